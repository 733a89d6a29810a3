/* gate.c - the cheap checks of a request, before any work is done for it
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>
#include <strings.h>
#include "gate.h"
#include "buffer.h"
#include "profile.h"

int
ks_gate_raw_uri_is_clean (const char *uri, char separator)
{
  ks_buf_t in;
  uint8_t c;

  if (!uri || separator)
    return 0;
  ks_buf_view (&in, uri, strlen (uri));
  while (!ks_buf_get_bytes (&in, &c, 1))
    if (c == '%' || c == '?' || c == '#' || c <= ' ' || c >= 0x7f)
      return 0;
  return 1;
}

unsigned int
ks_gate_version (const char *version)
{
  ks_buf_t in;
  char v[9];

  if (!version)
    return MHD_HTTP_BAD_REQUEST;
  if (!strcmp (version, MHD_HTTP_VERSION_1_1)
      || !strcmp (version, MHD_HTTP_VERSION_1_0))
    return 0;
  /* "HTTP/" DIGIT "." DIGIT and nothing more is a version we do not
   * speak; anything else is not a version at all.  */
  ks_buf_view (&in, version, strlen (version));
  if (ks_buf_left (&in) != 8 || ks_buf_get_bytes (&in, v, 8))
    return MHD_HTTP_BAD_REQUEST;
  if (memcmp (v, "HTTP/", 5) || v[5] < '0' || v[5] > '9' || v[6] != '.'
      || v[7] < '0' || v[7] > '9')
    return MHD_HTTP_BAD_REQUEST;
  return MHD_HTTP_HTTP_VERSION_NOT_SUPPORTED;
}

gpg_error_t
ks_gate_shard_name (const char *url, char *name)
{
  size_t plen = strlen (KS_GATE_PATH_SHARD);
  ks_buf_t in;

  *name = 0;
  ks_buf_view (&in, url, strlen (url));
  if (ks_buf_left (&in) < plen || memcmp (ks_buf_ptr (&in),
                                          KS_GATE_PATH_SHARD, plen))
    return gpg_error (GPG_ERR_INV_NAME);
  ks_buf_skip (&in, plen);
  if (ks_buf_get_name (&in, name) || ks_buf_left (&in))
    {
      *name = 0;
      return gpg_error (GPG_ERR_INV_NAME);
    }
  return 0;
}

/* A decimal Content-Length without sign, spaces or overflow.  */
static int
parse_length (const char *s, uint64_t *r_len)
{
  ks_buf_t in;
  uint64_t v = 0;
  uint8_t c;

  ks_buf_view (&in, s, strlen (s));
  if (!ks_buf_left (&in))
    return -1;
  while (!ks_buf_get_bytes (&in, &c, 1))
    {
      if (c < '0' || c > '9' || v > (UINT64_MAX - 9) / 10)
        return -1;
      v = v * 10 + (c - '0');
    }
  *r_len = v;
  return 0;
}

static enum MHD_Result
note_header (void *cls, enum MHD_ValueKind kind, const char *key,
             const char *value)
{
  ks_gate_body_t *b = cls;

  (void)kind;
  if (!strcasecmp (key, MHD_HTTP_HEADER_CONTENT_LENGTH))
    {
      b->lengths++;
      b->has_length = value && !parse_length (value, &b->length);
      if (!b->has_length)
        b->unknown_coding++;   /* a malformed length is as bad */
    }
  else if (!strcasecmp (key, MHD_HTTP_HEADER_TRANSFER_ENCODING))
    {
      b->codings++;
      if (!value || strcasecmp (value, "chunked"))
        b->unknown_coding++;
    }
  return MHD_YES;
}

gpg_error_t
ks_gate_body (struct MHD_Connection *conn, ks_gate_body_t *r_body)
{
  memset (r_body, 0, sizeof *r_body);
  MHD_get_connection_values (conn, MHD_HEADER_KIND, note_header, r_body);
  if (r_body->lengths > 1 || r_body->codings > 1 || r_body->unknown_coding
      || (r_body->lengths && r_body->codings))
    return gpg_error (GPG_ERR_INV_VALUE);
  return 0;
}

int
ks_gate_size_is_known (const size_t *sizes, unsigned int nsizes,
                       uint64_t len)
{
  unsigned int i;

  for (i = 0; i < nsizes; i++)
    if (sizes[i] == len)
      return 1;
  return 0;
}

gpg_error_t
ks_gate_profile_sizes (size_t max, size_t *sizes, unsigned int maxn,
                       unsigned int *r_n)
{
  unsigned int i, j, n = 0;
  size_t sz;

  for (i = 0; i < ks_profile_count (); i++)
    {
      sz = ks_profile_nth (i)->object_size;
      if (sz > max || ks_gate_size_is_known (sizes, n, sz) || n == maxn)
        continue;
      for (j = n++; j > 0 && sizes[j - 1] > sz; j--)
        sizes[j] = sizes[j - 1];
      sizes[j] = sz;
    }
  *r_n = n;
  return n ? 0 : gpg_error (GPG_ERR_INV_VALUE);
}
