/* buffer.h - one bounded buffer type for all untrusted bytes
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * HTTP bodies, Assuan inquiries and shards pass through ks_buf.  A buffer
 * has a hard maximum fixed at creation: an append that would pass it fails
 * with GPG_ERR_TOO_LARGE and leaves the buffer unchanged.  A secure buffer
 * lives in libgcrypt secure memory; every buffer is wiped when it grows
 * and when it is freed.
 *
 * The read half is a cursor over the content (OpenSSH's sshbuf has the
 * same two halves): every getter checks the length first and fails with
 * GPG_ERR_TOO_SHORT (nothing consumed) when fewer bytes are left, so a
 * parser written with them cannot read past its input.  A view
 * (ks_buf_view) puts the cursor over memory the caller owns, for parsing
 * without a copy; a view is never appended to or freed.
 */
#ifndef KS_BUFFER_H
#define KS_BUFFER_H

#include "util.h"

typedef struct ks_buf
{
  uint8_t *data;
  size_t len;                   /* bytes written */
  size_t off;                   /* bytes consumed by the getters */
  size_t alloc;
  size_t max;
  int secure;
  int view;                     /* DATA belongs to the caller: read only */
} ks_buf_t;

/* Create a buffer that may hold at most MAX bytes.  */
gpg_error_t ks_buf_new (size_t max, int secure, ks_buf_t **r_buf);
/* Wipe and free.  Accepts NULL.  */
void ks_buf_free (ks_buf_t *buf);
#define KS_BUF_FREE(b) do { ks_buf_free (b); (b) = NULL; } while (0)
gpg_error_t ks_buf_append (ks_buf_t *buf, const void *data, size_t len);
/* Wipe the content, keep the allocation; the cursor goes back to 0.  */
void ks_buf_clear (ks_buf_t *buf);
/* Make room for LEN more bytes and hand out where they go (*R_P); the
 * buffer's length grows by LEN, the caller fills them.  */
gpg_error_t ks_buf_reserve (ks_buf_t *buf, size_t len, uint8_t **r_p);
/* Hand the content over: *R_DATA (gcry memory, secure when the buffer
 * is; free with ks_free_secret (*R_DATA, *R_LEN)) and *R_LEN.  The buffer
 * is empty afterwards and may be reused or freed.  A buffer with nothing
 * in it hands out NULL and 0.  */
gpg_error_t ks_buf_detach (ks_buf_t *buf, uint8_t **r_data, size_t *r_len);

/* The read half.  */

/* A read-only cursor over DATA/LEN, which the caller keeps alive.  */
void ks_buf_view (ks_buf_t *view, const void *data, size_t len);
/* Bytes not yet consumed, and where they start.  */
size_t ks_buf_left (const ks_buf_t *buf);
const uint8_t *ks_buf_ptr (const ks_buf_t *buf);
/* Consume N bytes without looking at them.  */
gpg_error_t ks_buf_skip (ks_buf_t *buf, size_t n);
/* A big-endian 32-bit number.  */
gpg_error_t ks_buf_get_be32 (ks_buf_t *buf, uint32_t *r_v);
/* Exactly N bytes into OUT.  */
gpg_error_t ks_buf_get_bytes (ks_buf_t *buf, void *out, size_t n);
/* A shard name: exactly 64 lowercase hex characters (KS_NAME_HEXLEN),
 * into OUT (65 bytes with the NUL).  GPG_ERR_INV_NAME (nothing consumed)
 * for anything else in those 64 bytes.  */
gpg_error_t ks_buf_get_name (ks_buf_t *buf, char *out);
/* N bytes from exactly 2*N lowercase hex characters, into OUT.
 * GPG_ERR_INV_VALUE (nothing consumed) for any other character there.  */
gpg_error_t ks_buf_get_hex (ks_buf_t *buf, uint8_t *out, size_t n);
/* One line: the bytes up to the next LF (or to the end of the content
 * when no LF follows), without the LF and without one CR before it,
 * NUL-terminated into OUT of OUTSIZE bytes.  GPG_ERR_TOO_LARGE when the
 * line does not fit, GPG_ERR_INV_VALUE when it holds a NUL byte,
 * GPG_ERR_EOF when nothing is left; nothing is consumed on an error.  */
gpg_error_t ks_buf_get_line (ks_buf_t *buf, char *out, size_t outsize);

/* Percent-unescape TEXT (%XX, as Assuan escapes option values) into a
 * new NUL-terminated string *R_OUT, in secure memory when SECURE (free
 * with ks_free_secret (*R_OUT, strlen (*R_OUT) + 1), else ks_free).  A
 * '%' not followed by two hex digits stays as it is; %00 is refused with
 * GPG_ERR_INV_VALUE, since the result is a C string.  */
gpg_error_t ks_buf_unescape (const char *text, int secure, char **r_out);

#endif /* KS_BUFFER_H */
