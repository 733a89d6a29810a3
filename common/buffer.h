/* buffer.h - one bounded buffer type for all untrusted bytes
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * HTTP bodies, Assuan inquiries and shards pass through ks_buf.  A buffer
 * has a hard maximum fixed at creation: an append that would pass it fails
 * with GPG_ERR_TOO_LARGE and leaves the buffer unchanged.  A secure buffer
 * lives in libgcrypt secure memory; every buffer is wiped when it grows
 * and when it is freed.
 */
#ifndef KS_BUFFER_H
#define KS_BUFFER_H

#include "util.h"

typedef struct ks_buf
{
  uint8_t *data;
  size_t len;
  size_t alloc;
  size_t max;
  int secure;
} ks_buf_t;

/* Create a buffer that may hold at most MAX bytes.  */
gpg_error_t ks_buf_new (size_t max, int secure, ks_buf_t **r_buf);
/* Wipe and free.  Accepts NULL.  */
void ks_buf_free (ks_buf_t *buf);
#define KS_BUF_FREE(b) do { ks_buf_free (b); (b) = NULL; } while (0)
gpg_error_t ks_buf_append (ks_buf_t *buf, const void *data, size_t len);
/* Wipe the content, keep the allocation.  */
void ks_buf_clear (ks_buf_t *buf);

#endif /* KS_BUFFER_H */
