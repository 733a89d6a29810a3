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

/* Limits that ks_argon2id enforces (RFC 9106 section 3.1, narrowed where
 * libgcrypt 1.10 needs it).  Anything outside them is refused with
 * GPG_ERR_INV_ARG before any memory is allocated.
 *
 * - lanes: 1..KS_ARGON2_MAX_LANES.  Each lane beyond the first costs one
 *   thread per slice; more lanes than cores buys nothing.
 * - m_cost: at least 8 * lanes KiB (the RFC minimum) and at most
 *   KS_ARGON2_MAX_M_COST, because libgcrypt 1.10 computes the size of its
 *   block array in 32-bit arithmetic (1024 * blocks) and would wrap at
 *   4 GiB.  As in the RFC, m_cost is rounded down to a multiple of
 *   4 * lanes for the memory actually used; the unrounded value enters H0.
 * - t_cost: at least 1.
 * - salt: at least KS_ARGON2_MIN_SALT bytes.
 * - password: at least 1 byte.  The RFC allows an empty password but
 *   libgcrypt 1.10 refuses it, so no caller may rely on it.
 * - output: at least KS_ARGON2_MIN_OUT bytes.
 * - every length below 2^32, and a NULL pointer only with length 0.  */
#define KS_ARGON2_MAX_LANES  64
#define KS_ARGON2_MAX_M_COST (4U * 1024 * 1024 - 1)
#define KS_ARGON2_MIN_SALT   8
#define KS_ARGON2_MIN_OUT    4

/* Progress of a long computation: DONE of TOTAL units of the step WHAT
 * ("name", "key", "puzzle").  Called from the caller's thread or from a
 * worker thread, never concurrently.  */
typedef void (*ks_progress_cb_t) (void *arg, const char *what,
                                  uint64_t done, uint64_t total);

/* Check PARAMS against the limits above; 0 or GPG_ERR_INV_ARG.  A
 * profile table can be checked with this once, at start-up or in a
 * test.  */
gpg_error_t ks_kdf_check_params (const ks_argon2_params_t *params);

/* Argon2id (RFC 9106, version 0x13) of PASS with SALT, optional secret
 * KEY and associated data AD, into OUT of OUTLEN bytes.  Lanes run in
 * parallel threads through libgcrypt's thread-ops hook; PROGRESS (may be
 * NULL) is told after each finished slice (all lanes of one pass x slice),
 * that is t_cost * 4 times with DONE = 1 .. TOTAL = t_cost * 4, always
 * from the calling thread.  WHAT is passed through to PROGRESS (NULL
 * gives "kdf").
 *
 * The function is reentrant: several threads may run it at once.
 * libgcrypt keeps pointers to (not copies of) the inputs while it runs
 * and wipes its memory blocks before freeing them; those blocks are in
 * ordinary memory, not secure memory (hundreds of MiB cannot be
 * mlocked).  On error OUT is wiped.  */
gpg_error_t ks_argon2id (const ks_argon2_params_t *params,
                         const void *pass, size_t passlen,
                         const void *salt, size_t saltlen,
                         const void *key, size_t keylen,
                         const void *ad, size_t adlen,
                         void *out, size_t outlen,
                         ks_progress_cb_t progress, void *progress_arg,
                         const char *what);

#endif /* KS_KDF_H */
