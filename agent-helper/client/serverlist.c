/* serverlist.c - the list of shard servers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A list file has one server per line:
 *   CATEGORY URL [id=ID] [placeholder] [LABEL...]
 * with CATEGORY one of recommended, alternate, untrusted; '#' starts a
 * comment line.  ID is the location's identity (protocol.md section 5):
 * shard names are bound to it, so an operator who moves to a new
 * address keeps it; without one the canonical URL is the identity.
 * doc/servers.md describes it for operators.
 */
#include <config.h>
#include <stdio.h>
#include <stdlib.h>
#include <ctype.h>
#include <unistd.h>
#include "serverlist.h"
#include "dirstore.h"
#include "location.h"

#define KS_SERVERLIST_MAX 256
#define KS_SERVERLIST_MAX_BYTES (256 * 1024)

const char *
ks_server_category_name (ks_server_category_t cat)
{
  switch (cat)
    {
    case KS_SERVER_RECOMMENDED: return _("recommended");
    case KS_SERVER_ALTERNATE: return _("alternate");
    case KS_SERVER_UNTRUSTED: return _("untrusted");
    default: return _("user");
    }
}

const char *
ks_serverlist_default_file (void)
{
  const char *s = getenv ("KEYSAFE_SERVERS_FILE");

  if (s && *s)
    return s;
  /* The administrator's list overrides the one the package ships.  */
  if (!access (SYSCONFDIR "/keysafe/servers.list", F_OK))
    return SYSCONFDIR "/keysafe/servers.list";
  return PKGDATADIR "/servers.list";
}

void
ks_serverlist_free (ks_serverlist_t *list)
{
  unsigned int i;

  if (!list)
    return;
  for (i = 0; i < list->count; i++)
    {
      ks_free (list->server[i].url);
      ks_free (list->server[i].id);
      ks_free (list->server[i].label);
    }
  ks_free (list->server);
  ks_free (list);
}

/* A URL is usable when it is http or https with a host; the check is
 * kept simple on purpose, libcurl parses it again.  */
static int
url_is_ok (const char *url)
{
  char *path;

  if (!ks_dirstore_path (url, &path))
    {
      gpgrt_free (path);
      return 1;
    }
  if (!strncmp (url, "http://", 7))
    return url[7] && url[7] != '/';
  if (!strncmp (url, "https://", 8))
    return url[8] && url[8] != '/';
  return 0;
}

static gpg_error_t
add_server (ks_serverlist_t *list, const char *url, size_t urllen,
            const char *id, const char *label, ks_server_category_t cat,
            int placeholder)
{
  ks_server_t *s;
  gpg_error_t err;

  if (list->count >= KS_SERVERLIST_MAX)
    return gpg_error (GPG_ERR_TOO_LARGE);
  if (!(list->count % 16))
    {
      ks_server_t *n = ks_realloc (list->server,
                                     (list->count + 16) * sizeof *n);
      if (!n)
        return gpg_error_from_syserror ();
      list->server = n;
    }
  while (urllen && url[urllen - 1] == '/')
    urllen--;
  s = &list->server[list->count];
  memset (s, 0, sizeof *s);
  s->url = ks_malloc (urllen + 1);
  if (!s->url)
    return gpg_error_from_syserror ();
  memcpy (s->url, url, urllen);
  s->url[urllen] = 0;
  if (id)
    {
      s->id = ks_strdup (id);
      err = s->id ? 0 : gpg_error_from_syserror ();
    }
  else
    err = ks_location_canon_id (s->url, &s->id);
  if (err)
    {
      ks_free (s->url);
      return err;
    }
  if (label && *label)
    {
      s->label = ks_strdup (label);
      if (!s->label)
        {
          ks_free (s->url);
          ks_free (s->id);
          return gpg_error_from_syserror ();
        }
    }
  s->category = cat;
  s->placeholder = placeholder;
  list->count++;
  return 0;
}

static const char *
skip_ws (const char *p)
{
  while (*p == ' ' || *p == '\t')
    p++;
  return p;
}

static size_t
word_len (const char *p)
{
  size_t n = 0;

  while (p[n] && p[n] != ' ' && p[n] != '\t' && p[n] != '\n'
         && p[n] != '\r')
    n++;
  return n;
}

/* One line of the list: "CATEGORY URL [placeholder] [LABEL]".  */
static gpg_error_t
parse_line (const char *line, const char *fname, unsigned int lineno,
            ks_serverlist_t *list, char *errtext, size_t errlen)
{
  const char *p, *url;
  size_t n, urllen;
  ks_server_category_t cat;
  int placeholder = 0;
  char tmp[1024], label[256], id[KS_LOCATION_ID_MAX + 1];
  gpg_error_t err;

  p = skip_ws (line);
  if (*p == '#' || *p == '\r' || !*p)
    return 0;
  n = word_len (p);
  if (n == 11 && !strncmp (p, "recommended", n))
    cat = KS_SERVER_RECOMMENDED;
  else if (n == 9 && !strncmp (p, "alternate", n))
    cat = KS_SERVER_ALTERNATE;
  else if (n == 9 && !strncmp (p, "untrusted", n))
    cat = KS_SERVER_UNTRUSTED;
  else
    {
      snprintf (errtext, errlen, _("%s:%u: unknown server category"),
                fname, lineno);
      return gpg_error (GPG_ERR_INV_VALUE);
    }
  url = skip_ws (p + n);
  urllen = word_len (url);
  n = urllen < sizeof tmp ? urllen : sizeof tmp - 1;
  memcpy (tmp, url, n);
  tmp[n] = 0;
  if (!url_is_ok (tmp))
    {
      snprintf (errtext, errlen, _("%s:%u: invalid server URL"),
                fname, lineno);
      return gpg_error (GPG_ERR_INV_URI);
    }
  p = skip_ws (url + urllen);
  n = word_len (p);
  *id = 0;
  if (n > 3 && !strncmp (p, "id=", 3))
    {
      if (n - 3 < sizeof id)
        {
          memcpy (id, p + 3, n - 3);
          id[n - 3] = 0;
        }
      if (!ks_location_id_is_valid (id))
        {
          snprintf (errtext, errlen, _("%s:%u: invalid server id"),
                    fname, lineno);
          return gpg_error (GPG_ERR_INV_VALUE);
        }
      p = skip_ws (p + n);
      n = word_len (p);
    }
  if (n == 11 && !strncmp (p, "placeholder", n))
    {
      placeholder = 1;
      p = skip_ws (p + n);
    }
  n = strlen (p);
  while (n && (p[n - 1] == '\r' || p[n - 1] == ' ' || p[n - 1] == '\t'))
    n--;
  if (n >= sizeof label)
    n = sizeof label - 1;
  memcpy (label, p, n);
  label[n] = 0;
  err = add_server (list, url, urllen, *id ? id : NULL, label, cat,
                    placeholder);
  if (gpg_err_code (err) == GPG_ERR_INV_URI)
    snprintf (errtext, errlen, _("%s:%u: invalid server URL"),
              fname, lineno);
  return err;
}

gpg_error_t
ks_serverlist_parse (const char *text, const char *fname,
                     ks_serverlist_t *list, char *errtext, size_t errlen)
{
  gpg_error_t err;
  ks_buf_t in;
  char *line;
  size_t linesize = strlen (text) + 1;
  unsigned int lineno = 0;

  /* A line as long as the whole text always fits: no line is cut.  */
  line = ks_malloc (linesize);
  if (!line)
    return gpg_error_from_syserror ();
  ks_buf_view (&in, text, linesize - 1);
  while (!(err = ks_buf_get_line (&in, line, linesize)))
    {
      err = parse_line (line, fname, ++lineno, list, errtext, errlen);
      if (err)
        break;
    }
  if (gpg_err_code (err) == GPG_ERR_EOF)
    err = 0;
  ks_free (line);
  return err;
}

/* Restore order: recommended, alternate, untrusted; stable within.  */
static void
sort_by_category (ks_serverlist_t *list)
{
  unsigned int i, j;

  for (i = 1; i < list->count; i++)
    for (j = i; j > 0 && (list->server[j - 1].category
                          > list->server[j].category); j--)
      {
        ks_server_t t = list->server[j];
        list->server[j] = list->server[j - 1];
        list->server[j - 1] = t;
      }
}

gpg_error_t
ks_serverlist_load (const char **urls, const char *file,
                    ks_serverlist_t **r_list, char *errtext, size_t errlen)
{
  gpg_error_t err = 0;
  ks_serverlist_t *list;
  char *text = NULL;
  size_t textlen;
  const char *fname;

  *r_list = NULL;
  list = ks_calloc (1, sizeof *list);
  if (!list)
    return gpg_error_from_syserror ();

  if (urls && *urls)
    {
      for (; *urls; urls++)
        {
          if (!url_is_ok (*urls))
            {
              snprintf (errtext, errlen, _("invalid server URL '%s'"),
                        *urls);
              err = gpg_error (GPG_ERR_INV_URI);
              goto leave;
            }
          err = add_server (list, *urls, strlen (*urls), NULL, NULL,
                            KS_SERVER_USER, 0);
          if (gpg_err_code (err) == GPG_ERR_INV_URI)
            snprintf (errtext, errlen, _("invalid server URL '%s'"),
                      *urls);
          if (err)
            goto leave;
        }
      goto leave;
    }

  fname = file ? file : ks_serverlist_default_file ();
  err = ks_file_read (fname, KS_SERVERLIST_MAX_BYTES, 0,
                      (uint8_t **)&text, &textlen);
  if (err)
    {
      snprintf (errtext, errlen, _("can't read server list '%s': %s"),
                fname, gpg_strerror (err));
      goto leave;
    }
  err = ks_serverlist_parse (text, fname, list, errtext, errlen);
  if (err)
    goto leave;
  sort_by_category (list);

 leave:
  ks_free (text);
  if (err)
    ks_serverlist_free (list);
  else
    *r_list = list;
  return err;
}
