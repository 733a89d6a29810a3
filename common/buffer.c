/* buffer.c - one bounded buffer type for all untrusted bytes
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>
#include "buffer.h"

gpg_error_t
ks_buf_new (size_t max, int secure, ks_buf_t **r_buf)
{
  ks_buf_t *buf;

  *r_buf = NULL;
  buf = gcry_calloc (1, sizeof *buf);
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
  if (!buf)
    return;
  ks_free_secret (buf->data, buf->alloc);
  gcry_free (buf);
}

void
ks_buf_clear (ks_buf_t *buf)
{
  if (buf->data)
    ks_wipe (buf->data, buf->alloc);
  buf->len = 0;
}

gpg_error_t
ks_buf_append (ks_buf_t *buf, const void *data, size_t len)
{
  size_t need, newalloc;
  uint8_t *p;

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
      p = buf->secure ? gcry_malloc_secure (newalloc) : gcry_malloc (newalloc);
      if (!p)
        return gpg_error_from_syserror ();
      if (buf->len)
        memcpy (p, buf->data, buf->len);
      ks_free_secret (buf->data, buf->alloc);
      buf->data = p;
      buf->alloc = newalloc;
    }
  if (len)
    memcpy (buf->data + buf->len, data, len);
  buf->len = need;
  return 0;
}
