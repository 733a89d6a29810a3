/* kdf.h - Argon2id: libgcrypt with secret/AD and lanes, and the
 * single-lane calls of protocol 2 through the configured backend
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


/* Protocol 2 computes only what libsodium and libgcrypt both can: one
 * lane, a 16-byte salt, a 32-byte output, no secret and no associated
 * data.  These calls use the backend chosen by configure
 * (--with-argon2): libsodium's crypto_pwhash_argon2id, whose SIMD code
 * is what an attacker runs, or libgcrypt's.  Both give the same bytes.
 *
 * - t: passes, at least 1.
 * - m_kib: memory in KiB, KS_KDF_MIN_M_KIB..KS_ARGON2_MAX_M_COST (the
 *   narrower of the two backends' limits: libsodium wants 8 KiB, and
 *   libgcrypt 1.10 wraps above 4 GiB).  Rounded down to a multiple of 4
 *   for the memory used, as in RFC 9106.
 * - pass: at least 1 byte (libgcrypt refuses an empty one).
 *
 * The work area is allocated and freed by the backend in ordinary
 * memory; libgcrypt wipes it, libsodium 1.0.18 unmaps it without
 * wiping (the kernel zeroes pages before it hands them out again).
 * OUT should be secure memory; it is wiped on error.  */
#define KS_KDF_SALT_LEN      16
#define KS_KDF_OUT_LEN       32
#define KS_KDF_MIN_M_KIB     8
#define KS_KDF_MAX_INSTANCES 256

/* "libsodium" or "libgcrypt": the backend of the calls below.  */
const char *ks_kdf_backend (void);

/* One single-lane Argon2id of PASS with SALT into OUT, computed in the
 * calling thread when PROGRESS is NULL.  PROGRESS is told as for
 * ks_kdf_argon2id_many with one instance.  */
gpg_error_t ks_kdf_argon2id (const void *pass, size_t passlen,
                             const uint8_t *salt, uint32_t t,
                             uint32_t m_kib, uint8_t *out,
                             ks_progress_cb_t progress, void *progress_arg,
                             const char *what);

/* INSTANCES independent single-lane Argon2id computations of the same
 * PASS, cost T x M_KIB each, instance I with salt SALTS + 16 * I and its
 * output into OUTS + 32 * I.  How the salts are made and how the
 * outputs are combined is the caller's business.  Instances run in
 * parallel threads, at most NTHREADS at once (0: ks_ncpus ()), so the
 * memory in use is at most that many times M_KIB.  Every instance uses
 * its full memory; none is cut short.
 *
 * PROGRESS (may be NULL) is called from the calling thread only, with
 * TOTAL = INSTANCES * T * 4 slices and DONE strictly increasing, the
 * last call DONE = TOTAL.  libgcrypt reports every finished slice;
 * libsodium has no progress hook, so while an instance runs its slices
 * are estimated from the time it has run and the speed measured on the
 * instances finished before in this process (or a 8 MiB calibration
 * run), never reaching its total before it is done.  With PROGRESS
 * the calling thread only waits and reports; without it, it computes
 * too.  WHAT is passed through (NULL gives "kdf").
 *
 * On error every output is wiped.  */
gpg_error_t ks_kdf_argon2id_many (const void *pass, size_t passlen,
                                  const uint8_t *salts,
                                  unsigned int instances,
                                  uint32_t t, uint32_t m_kib,
                                  uint8_t *outs, unsigned int nthreads,
                                  ks_progress_cb_t progress,
                                  void *progress_arg, const char *what);

#endif /* KS_KDF_H */
