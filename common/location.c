/* location.c - canonical identity of a location
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The rules are normative (doc/protocol.md, "Locations"): two clients
 * that spell one server's URL differently must derive the same shard
 * names, and anything ambiguous is refused rather than normalised.
 */
#include <config.h>
#include <stdio.h>
#include "location.h"

static int
is_graph (int c)
{
  return c >= 0x21 && c <= 0x7e;
}

static int
lower (int c)
{
  return (c >= 'A' && c <= 'Z') ? c - 'A' + 'a' : c;
}

int
ks_location_id_is_valid (const char *id)
{
  size_t n;

  if (!id || !*id)
    return 0;
  for (n = 0; id[n]; n++)
    if (n >= KS_LOCATION_ID_MAX || !is_graph ((unsigned char)id[n]))
      return 0;
  return 1;
}

/* Check the path P[0..LEN) (starts with '/') and return its length
 * without trailing slashes, or -1 when it has an empty (other than
 * trailing), "." or ".." segment or a character we refuse.  */
static long
path_len (const char *p, size_t len)
{
  size_t i, seg;

  while (len > 0 && p[len - 1] == '/')
    len--;
  for (i = 0; i < len; i++)
    if (p[i] == '%' || p[i] == '?' || p[i] == '#' || p[i] == '@')
      return -1;
  for (i = 0; i < len; i = seg)
    {
      size_t s = i + 1;         /* p[i] is '/' */

      for (seg = s; seg < len && p[seg] != '/'; seg++)
        ;
      if (seg == s || (seg - s == 1 && p[s] == '.')
          || (seg - s == 2 && p[s] == '.' && p[s + 1] == '.'))
        return -1;
    }
  return (long)len;
}

/* HOST[:PORT] of H[0..LEN) for SCHEME into OUT (lowercase host, port
 * without leading zeros, default port dropped).  */
static gpg_error_t
canon_authority (const char *scheme, const char *h, size_t len,
                 char *out, size_t outsize)
{
  size_t hl = len, i;
  unsigned long port = 0;
  unsigned long def = !strcmp (scheme, "https") ? 443 : 80;
  const char *colon = NULL;

  if (len && h[0] == '[')
    {
      const char *end = memchr (h, ']', len);

      if (!end)
        return gpg_error (GPG_ERR_INV_URI);
      hl = (size_t)(end - h) + 1;
      if (hl < len)
        {
          if (h[hl] != ':')
            return gpg_error (GPG_ERR_INV_URI);
          colon = h + hl;
        }
    }
  else if ((colon = memchr (h, ':', len)))
    hl = (size_t)(colon - h);
  if (!hl || hl + 8 > outsize)
    return gpg_error (GPG_ERR_INV_URI);
  if (colon)
    {
      size_t pl = len - hl - 1;

      if (!pl || pl > 5)
        return gpg_error (GPG_ERR_INV_URI);
      for (i = 0; i < pl; i++)
        {
          if (colon[1 + i] < '0' || colon[1 + i] > '9')
            return gpg_error (GPG_ERR_INV_URI);
          port = port * 10 + (unsigned long)(colon[1 + i] - '0');
        }
      if (!port || port > 65535)
        return gpg_error (GPG_ERR_INV_URI);
    }
  for (i = 0; i < hl; i++)
    out[i] = (char)lower ((unsigned char)h[i]);
  out[hl] = 0;
  if (port && port != def)
    snprintf (out + hl, outsize - hl, ":%lu", port);
  return 0;
}

gpg_error_t
ks_location_canon_id (const char *url, char **r_id)
{
  gpg_error_t err;
  char scheme[8], auth[KS_LOCATION_ID_MAX + 1];
  const char *p, *rest, *slash;
  size_t sl, i, alen;
  long plen;
  char *id;

  *r_id = NULL;
  if (!url)
    return gpg_error (GPG_ERR_INV_URI);
  for (i = 0; url[i]; i++)
    if (!is_graph ((unsigned char)url[i]))
      return gpg_error (GPG_ERR_INV_URI);
  p = strstr (url, "://");
  if (!p || (sl = (size_t)(p - url)) >= sizeof scheme)
    return gpg_error (GPG_ERR_INV_URI);
  for (i = 0; i < sl; i++)
    scheme[i] = (char)lower ((unsigned char)url[i]);
  scheme[sl] = 0;
  rest = p + 3;
  if (!strcmp (scheme, "file"))
    {
      /* file:///path: no host; the path is the whole identity.  */
      if (*rest != '/')
        return gpg_error (GPG_ERR_INV_URI);
      plen = path_len (rest, strlen (rest));
      if (plen <= 0)
        return gpg_error (GPG_ERR_INV_URI);
      auth[0] = 0;
      alen = 0;
    }
  else if (!strcmp (scheme, "http") || !strcmp (scheme, "https"))
    {
      slash = strchr (rest, '/');
      alen = slash ? (size_t)(slash - rest) : strlen (rest);
      if (memchr (rest, '@', alen) || memchr (rest, '?', alen)
          || memchr (rest, '#', alen) || memchr (rest, '%', alen))
        return gpg_error (GPG_ERR_INV_URI);
      err = canon_authority (scheme, rest, alen, auth, sizeof auth);
      if (err)
        return err;
      rest += alen;
      plen = *rest ? path_len (rest, strlen (rest)) : 0;
      if (plen < 0)
        return gpg_error (GPG_ERR_INV_URI);
      alen = strlen (auth);
    }
  else
    return gpg_error (GPG_ERR_INV_URI);

  if (sl + 3 + alen + (size_t)plen > KS_LOCATION_ID_MAX)
    return gpg_error (GPG_ERR_INV_URI);
  id = gcry_malloc (sl + 3 + alen + (size_t)plen + 1);
  if (!id)
    return gpg_error_from_syserror ();
  memcpy (id, scheme, sl);
  memcpy (id + sl, "://", 3);
  memcpy (id + sl + 3, auth, alen);
  memcpy (id + sl + 3 + alen, rest, (size_t)plen);
  id[sl + 3 + alen + (size_t)plen] = 0;
  *r_id = id;
  return 0;
}
