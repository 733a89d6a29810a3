/* util.h - small helpers shared by all of keysafe
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef KS_UTIL_H
#define KS_UTIL_H

#ifndef GPG_ERR_SOURCE_DEFAULT
# define GPG_ERR_SOURCE_DEFAULT GPG_ERR_SOURCE_USER_1
#endif
#include <gpg-error.h>
#include <gcrypt.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define KS_DIM(a) (sizeof (a) / sizeof *(a))

/* Wipe memory that held a secret.  explicit_bzero is not optimised
 * away even when the buffer is freed right after.  */
#define ks_wipe(p, n) explicit_bzero ((p), (n))

/* The one allocator family (GnuPG's doc/HACKING asks for one): all of
 * keysafe's memory comes from libgcrypt, so every pointer any function
 * hands out is freed with ks_free, or with ks_free_secret when it came
 * from ks_malloc_secure.  Memory that other libraries allocate (gpgrt,
 * GPGME, libcurl) is copied or freed at the boundary and never handed
 * on.  On failure they return NULL with errno set, so the caller's
 * gpg_error_from_syserror () says why.  */
void *ks_malloc (size_t n);
void *ks_calloc (size_t n, size_t m);
void *ks_malloc_secure (size_t n);
void *ks_realloc (void *p, size_t n);
char *ks_strdup (const char *s);
/* A copy of gpgrt-allocated S (NULL stays NULL); S is freed.  Returns
 * NULL with errno set when S was not NULL and the copy failed.  */
char *ks_strdup_gpgrt (char *s);
/* Accepts NULL.  */
void ks_free (void *p);
/* Free a secret buffer of N bytes: wipe then free.  Accepts NULL.  */
void ks_free_secret (void *p, size_t n);

/* Constant-time equality of two byte strings of the same length; returns
 * 1 when equal.  Keep it apart from memcmp: use it for MACs, tags and
 * anything derived from a secret.  */
int ks_memeq (const void *a, const void *b, size_t n);

/* Big-endian encoders used by the wire format.  */
void ks_put_be32 (uint8_t *p, uint32_t v);
uint32_t ks_get_be32 (const uint8_t *p);
void ks_put_be64 (uint8_t *p, uint64_t v);
uint64_t ks_get_be64 (const uint8_t *p);

/* Lowercase hex of LEN bytes into OUT (2*LEN+1 bytes incl. NUL).  */
void ks_hex_encode (const uint8_t *in, size_t len, char *out);
/* Strict lowercase/uppercase hex decode of exactly 2*LEN chars; returns
 * GPG_ERR_INV_VALUE on any other character or length.  */
gpg_error_t ks_hex_decode (const char *hex, uint8_t *out, size_t len);

/* The value of hex digit C (either case), or -1.  */
int ks_hex_value (int c);

/* True when S[0..LEN) is only lowercase hex digits (LEN may be 0).  */
int ks_hex_is_lower (const char *s, size_t len);

/* Milliseconds of the monotonic clock: for timeouts and progress pacing,
 * never for dates (it does not jump with the wall clock).  */
uint64_t ks_now_ms (void);

/* Number of online CPUs, at least 1.  */
unsigned int ks_ncpus (void);

/* Write all LEN bytes of BUF to FD, retrying short writes and EINTR.  */
gpg_error_t ks_write_all (int fd, const void *buf, size_t len);

#endif /* KS_UTIL_H */
