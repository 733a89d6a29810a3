/* puzzle.h - the puzzle that multiplies the cost of a password guess
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Backup picks a random R < 2^bits and encrypts under E(K, R).  Restore
 * must try values of R until the tag of object 0 verifies, in parallel
 * threads; an attacker pays all 2^bits for each wrong password.
 */
#ifndef KS_PUZZLE_H
#define KS_PUZZLE_H

#include "profile.h"

/* The most threads a puzzle is solved with.  */
#define KS_MAX_PUZZLE_THREADS 64

/* SEED is the name seed N (it salts E).  Try every R on NTHREADS threads (0 = one per CPU) against each of the
 * NCANDS candidate objects for chunk 0 (several when shards disagree).
 * On success writes E to EKEY, the chunk to CHUNK0 and the index of the
 * candidate that verified to *R_WHICH.  GPG_ERR_BAD_PASSPHRASE when no R
 * opens any candidate.  PROGRESS counts tried values of R.  */
gpg_error_t ks_puzzle_solve (const ks_profile_t *profile,
                             const uint8_t *seed,
                             const uint8_t *key,
                             const uint8_t *const *cands, size_t ncands,
                             unsigned int nthreads,
                             uint8_t *ekey, uint8_t *chunk0,
                             size_t *r_which,
                             ks_progress_cb_t progress, void *progress_arg);

#endif /* KS_PUZZLE_H */
