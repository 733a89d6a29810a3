/* passes.h - bench-restore --passes
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef KS_BENCH_PASSES_H
#define KS_BENCH_PASSES_H

#include <time.h>

/* The clock ID in seconds.  */
#include "bench-clock.h"

/* Measure per-pass CPU time of libsodium and ks_argon2id, then the
 * owner's wall times at full size, and print the default profile's
 * costs; 0 when it meets its goals, 1 when not, 77 without libsodium.  */
int bench_passes (void);

#endif /* KS_BENCH_PASSES_H */
