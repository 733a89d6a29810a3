/* kdf.h - Argon2id through libgcrypt
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef KS_KDF_H
#define KS_KDF_H

#include "util.h"

typedef struct ks_argon2_params
{
  uint32_t t_cost;   /* passes */
  uint32_t m_cost;   /* memory in KiB */
  uint32_t lanes;    /* parallelism; lanes run in parallel threads */
} ks_argon2_params_t;

/* Progress of a long computation: DONE of TOTAL units of the step WHAT
 * ("name", "key", "puzzle").  Called from the caller's thread or from a
 * worker thread, never concurrently.  */
typedef void (*ks_progress_cb_t) (void *arg, const char *what,
                                  uint64_t done, uint64_t total);

/* Argon2id (RFC 9106, version 0x13) of PASS with SALT, optional secret
 * KEY and associated data AD, into OUT of OUTLEN bytes.  Lanes run in
 * parallel threads through libgcrypt's thread-ops hook; PROGRESS (may be
 * NULL) is told after each finished segment (pass x slice x lane).  */
gpg_error_t ks_argon2id (const ks_argon2_params_t *params,
                         const void *pass, size_t passlen,
                         const void *salt, size_t saltlen,
                         const void *key, size_t keylen,
                         const void *ad, size_t adlen,
                         void *out, size_t outlen,
                         ks_progress_cb_t progress, void *progress_arg,
                         const char *what);

#endif /* KS_KDF_H */
