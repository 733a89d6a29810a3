/* strength.h - password strength and the implied cost to crack it
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef KS_STRENGTH_H
#define KS_STRENGTH_H

#include "keysafe.h"

/* Below this many bits of zxcvbn entropy a password is refused unless
 * the user forces it: about a million guesses.  */
#define KS_STRENGTH_MIN_BITS 20.0

/* Assumptions of the cost model, stated in the message and in
 * doc/protocol.md section 10: one CPU core running the fastest Argon2id
 * (libsodium, one lane) does about 2.4 GiB x pass per second (measured
 * there: 0.105-0.108 s per pass over 256 MiB, the attacker's puzzle
 * guesses, by bench-restore --passes; the slower 1 GiB passes are
 * rounded to the faster rate, in the attacker's favour), and a
 * core-hour costs an attacker USD 0.01.  */
#define KS_STRENGTH_KIB_PER_SEC (2.4 * 1024.0 * 1024.0)
#define KS_STRENGTH_USD_PER_CORE_HOUR 0.01

typedef struct ks_strength
{
  double bits;                  /* zxcvbn: log2 of the guesses needed */
  double sec_per_guess;         /* core-seconds per wrong guess */
  double core_seconds;          /* expected: half of all guesses */
  double dollars;
} ks_strength_t;

/* Estimate PW (NUL-terminated) against PROFILE.  USERWORDS (NULL or a
 * NULL-terminated list, e.g. the item name) count as known to the
 * attacker.  */
void ks_strength_estimate (const ks_profile_t *profile, const char *pw,
                           const char **userwords, ks_strength_t *r);

/* A human reading of core-seconds ("3 hours", "2e+09 years").  */
const char *ks_strength_duration (double seconds, char *buf, size_t size);

#endif /* KS_STRENGTH_H */
