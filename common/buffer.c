/* buffer.c - one bounded buffer type for all untrusted bytes
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>
#include "buffer.h"
#include "derive.h"

gpg_error_t
ks_buf_new (size_t max, int secure, ks_buf_t **r_buf)
{
  ks_buf_t *buf;

  *r_buf = NULL;
  buf = ks_calloc (1, sizeof *buf);
  if (!buf)
    return gpg_error_from_syserror ();
  buf->max = max;
  buf->secure = !!secure;
  *r_buf = buf;
  return 0;
}

void
ks_buf_free (ks_buf_t *buf)
{
  if (!buf || buf->view)
    return;
  ks_free_secret (buf->data, buf->alloc);
  ks_free (buf);
}

void
ks_buf_clear (ks_buf_t *buf)
{
  if (buf->data)
    ks_wipe (buf->data, buf->alloc);
  buf->len = 0;
  buf->off = 0;
}

gpg_error_t
ks_buf_reserve (ks_buf_t *buf, size_t len, uint8_t **r_p)
{
  size_t need, newalloc;
  uint8_t *p;

  *r_p = NULL;
  if (buf->view)
    return gpg_error (GPG_ERR_INV_OP);
  if (len > buf->max || buf->len > buf->max - len)
    return gpg_error (GPG_ERR_TOO_LARGE);
  need = buf->len + len;
  if (need > buf->alloc)
    {
      /* Grow by doubling, capped at the maximum; copy rather than
       * realloc so the old block can be wiped.  */
      newalloc = buf->alloc ? buf->alloc : 64;
      while (newalloc < need)
        newalloc = newalloc > buf->max / 2 ? buf->max : newalloc * 2;
      p = buf->secure ? ks_malloc_secure (newalloc) : ks_malloc (newalloc);
      if (!p)
        return gpg_error_from_syserror ();
      if (buf->len)
        memcpy (p, buf->data, buf->len);
      ks_free_secret (buf->data, buf->alloc);
      buf->data = p;
      buf->alloc = newalloc;
    }
  *r_p = buf->data ? buf->data + buf->len : NULL;
  buf->len = need;
  return 0;
}

gpg_error_t
ks_buf_append (ks_buf_t *buf, const void *data, size_t len)
{
  gpg_error_t err;
  uint8_t *p;

  err = ks_buf_reserve (buf, len, &p);
  if (!err && len)
    memcpy (p, data, len);
  return err;
}

gpg_error_t
ks_buf_detach (ks_buf_t *buf, uint8_t **r_data, size_t *r_len)
{
  *r_data = NULL;
  *r_len = 0;
  if (buf->view)
    return gpg_error (GPG_ERR_INV_OP);
  if (!buf->len)
    return 0;
  /* The bytes past LEN were wiped when the block grew; the caller frees
   * with the length it is told, so wipe the tail now.  */
  if (buf->alloc > buf->len)
    ks_wipe (buf->data + buf->len, buf->alloc - buf->len);
  *r_data = buf->data;
  *r_len = buf->len;
  buf->data = NULL;
  buf->len = buf->off = buf->alloc = 0;
  return 0;
}

void
ks_buf_view (ks_buf_t *view, const void *data, size_t len)
{
  memset (view, 0, sizeof *view);
  view->data = (uint8_t *)data;
  view->len = view->max = len;
  view->view = 1;
}

size_t
ks_buf_left (const ks_buf_t *buf)
{
  return buf->len - buf->off;
}

const uint8_t *
ks_buf_ptr (const ks_buf_t *buf)
{
  return buf->data + buf->off;
}

gpg_error_t
ks_buf_skip (ks_buf_t *buf, size_t n)
{
  if (n > ks_buf_left (buf))
    return gpg_error (GPG_ERR_TOO_SHORT);
  buf->off += n;
  return 0;
}

gpg_error_t
ks_buf_get_bytes (ks_buf_t *buf, void *out, size_t n)
{
  if (n > ks_buf_left (buf))
    return gpg_error (GPG_ERR_TOO_SHORT);
  if (n)
    memcpy (out, ks_buf_ptr (buf), n);
  buf->off += n;
  return 0;
}

gpg_error_t
ks_buf_get_be32 (ks_buf_t *buf, uint32_t *r_v)
{
  *r_v = 0;
  if (ks_buf_left (buf) < 4)
    return gpg_error (GPG_ERR_TOO_SHORT);
  *r_v = ks_get_be32 (ks_buf_ptr (buf));
  buf->off += 4;
  return 0;
}

gpg_error_t
ks_buf_get_name (ks_buf_t *buf, char *out)
{
  *out = 0;
  if (ks_buf_left (buf) < KS_NAME_HEXLEN)
    return gpg_error (GPG_ERR_TOO_SHORT);
  if (!ks_name_is_valid ((const char *)ks_buf_ptr (buf), KS_NAME_HEXLEN))
    return gpg_error (GPG_ERR_INV_NAME);
  memcpy (out, ks_buf_ptr (buf), KS_NAME_HEXLEN);
  out[KS_NAME_HEXLEN] = 0;
  buf->off += KS_NAME_HEXLEN;
  return 0;
}

gpg_error_t
ks_buf_get_hex (ks_buf_t *buf, uint8_t *out, size_t n)
{
  const char *p = (const char *)ks_buf_ptr (buf);
  size_t i;

  if (ks_buf_left (buf) / 2 < n)
    return gpg_error (GPG_ERR_TOO_SHORT);
  if (!ks_hex_is_lower (p, 2 * n))
    return gpg_error (GPG_ERR_INV_VALUE);
  for (i = 0; i < n; i++)
    out[i] = (uint8_t)(ks_hex_value (p[2 * i]) << 4
                       | ks_hex_value (p[2 * i + 1]));
  buf->off += 2 * n;
  return 0;
}

gpg_error_t
ks_buf_get_line (ks_buf_t *buf, char *out, size_t outsize)
{
  const uint8_t *p = ks_buf_ptr (buf);
  size_t left = ks_buf_left (buf);
  const uint8_t *lf;
  size_t n, used;

  if (outsize)
    *out = 0;
  if (!left)
    return gpg_error (GPG_ERR_EOF);
  lf = memchr (p, '\n', left);
  n = lf ? (size_t)(lf - p) : left;
  used = lf ? n + 1 : n;
  if (lf && n && p[n - 1] == '\r')
    n--;
  if (memchr (p, 0, n))
    return gpg_error (GPG_ERR_INV_VALUE);
  if (n >= outsize)
    return gpg_error (GPG_ERR_TOO_LARGE);
  memcpy (out, p, n);
  out[n] = 0;
  buf->off += used;
  return 0;
}

gpg_error_t
ks_buf_unescape (const char *text, int secure, char **r_out)
{
  gpg_error_t err;
  ks_buf_t in, *out = NULL;
  uint8_t c, esc[3];
  uint8_t *data = NULL;
  size_t len = strlen (text);
  int hi, lo;

  *r_out = NULL;
  ks_buf_view (&in, text, len);
  err = ks_buf_new (len + 1, secure, &out);
  while (!err && ks_buf_left (&in))
    {
      const uint8_t *p = ks_buf_ptr (&in);

      if (p[0] == '%' && ks_buf_left (&in) >= 3
          && (hi = ks_hex_value (p[1])) >= 0
          && (lo = ks_hex_value (p[2])) >= 0)
        {
          err = ks_buf_get_bytes (&in, esc, 3);
          c = (uint8_t)(hi << 4 | lo);
          if (!err && !c)
            err = gpg_error (GPG_ERR_INV_VALUE);
        }
      else
        err = ks_buf_get_bytes (&in, &c, 1);
      if (!err)
        err = ks_buf_append (out, &c, 1);
    }
  c = 0;
  if (!err)
    err = ks_buf_append (out, &c, 1);
  if (!err)
    err = ks_buf_detach (out, &data, &len);
  if (!err)
    *r_out = (char *)data;
  ks_buf_free (out);
  return err;
}
