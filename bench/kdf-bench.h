/* kdf-bench.h - what bench/kdf's two files share
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef KS_KDF_BENCH_H
#define KS_KDF_BENCH_H

#include <time.h>

/* The clock ID (CLOCK_MONOTONIC, CLOCK_THREAD_CPUTIME_ID) in seconds.  */
#include "bench-clock.h"

/* bench/kdf --memory; the exit status of the program.  */
int bench_memory (void);

#endif /* KS_KDF_BENCH_H */
