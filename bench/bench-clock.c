/* bench-clock.c - the one clock of the benchmarks
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>
#include "bench-clock.h"

double
bench_clock (clockid_t id)
{
  struct timespec ts;

  clock_gettime (id, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}
