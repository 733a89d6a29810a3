/* bench-clock.h - the one clock of the benchmarks
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef KS_BENCH_CLOCK_H
#define KS_BENCH_CLOCK_H

#include <time.h>

/* Seconds of clock ID (CLOCK_MONOTONIC, CLOCK_THREAD_CPUTIME_ID, ...).  */
double bench_clock (clockid_t id);

#endif /* KS_BENCH_CLOCK_H */
