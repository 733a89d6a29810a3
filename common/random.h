/* random.h - the library's one source of randomness
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef KS_RANDOM_H
#define KS_RANDOM_H

#include "util.h"

/* Deterministic randomness, for known-answer tests only: after this
 * call, all randomness of this library (R, IVs, Shamir coefficients) is
 * SHA-256 (SEED || be64 counter) blocks in order of use.  SEED NULL goes
 * back to GCRY_STRONG_RANDOM.  Never called by the programs.  */
void ks_random_set_test_seed (const uint8_t *seed, size_t seedlen);
/* The library's one randomness source.  */
void ks_random (void *buf, size_t len);

#endif /* KS_RANDOM_H */
