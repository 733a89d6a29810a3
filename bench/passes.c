/* passes.c - bench-restore --passes: CPU seconds per Argon2id pass
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * doc/protocol.md section 10 states the default profile's costs in
 * core-seconds of the fastest CPU code, libsodium's Argon2id (one lane,
 * runtime-dispatched AVX2/AVX-512).  This measures it: the thread CPU
 * time of T2 passes minus that of T1 passes over the same memory size,
 * divided by T2 - T1, median of REPS.  The first touch of the fresh
 * work area that every call maps (page faults, and on this VM the host
 * backing the pages again) cancels out: an attacker who reuses memory
 * does not pay it, and it varies by seconds from one call to the next,
 * in user time as much as in system time.  libsodium is loaded at
 * run time, so the build does not depend on it; ks_kdf_argon2id (this
 * build's backend) is measured the same way in the same run for the
 * ratio.
 *
 * Then the owner's side at full size, in wall time, through this
 * build's backend on all cores at once (so memory-bandwidth contention
 * between the cores and the page faults of every fresh work area are
 * in it): the name instances, the key, and two rounds of one puzzle
 * guess per core.  Only the number of puzzle rounds is computed: R is
 * uniform, the cores take the values of R in turn, so an average
 * restore runs (2^bits / ncpu + 1) / 2 rounds.
 */
#include <config.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <dlfcn.h>
#include <math.h>
#include "keysafe.h"
#include "passes.h"

typedef int (*pwhash_fn) (unsigned char *, unsigned long long,
                          const char *, unsigned long long,
                          const unsigned char *, unsigned long long,
                          size_t, int);
static pwhash_fn sodium_argon2id;

static double
cpu_now (void)
{
  return bench_clock (CLOCK_THREAD_CPUTIME_ID);
}

/* CPU seconds of one run of T passes over MIB MiB; SODIUM or ours.  */
static double
run_once (int sodium, unsigned int t, unsigned int mib)
{
  unsigned char out[32], salt[16] = { 1 };
  double t0 = cpu_now ();

  if (sodium)
    {
      /* crypto_pwhash_ALG_ARGON2ID13 is 2.  */
      if (sodium_argon2id (out, 32, "pw", 2, salt, t,
                           (size_t)mib << 20, 2))
        {
          fprintf (stderr, "bench-restore: libsodium refused\n");
          exit (1);
        }
    }
  else if (ks_kdf_argon2id ("pw", 2, salt, t, mib * 1024, out,
                            NULL, NULL, NULL))
    {
      fprintf (stderr, "bench-restore: ks_kdf_argon2id failed\n");
      exit (1);
    }
  return cpu_now () - t0;
}

static int
cmp_double (const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;

  return x < y ? -1 : x > y;
}

/* The median over REPS of (CPU of T2 passes - CPU of T1 passes) /
 * (T2 - T1): seconds per pass over MIB MiB without the first touch of
 * the fresh work area, and the median of that first-touch cost into
 * *R_FIRST.  */
static double
per_pass (int sodium, unsigned int mib, unsigned int t1, unsigned int t2,
          unsigned int reps, double *r_first)
{
  double pass[8], first[8], a, b;
  unsigned int r;

  for (r = 0; r < reps && r < 8; r++)
    {
      a = run_once (sodium, t1, mib);
      b = run_once (sodium, t2, mib);
      pass[r] = (b - a) / (t2 - t1);
      first[r] = a - t1 * pass[r];
    }
  qsort (pass, r, sizeof *pass, cmp_double);
  qsort (first, r, sizeof *first, cmp_double);
  *r_first = first[r / 2];
  return pass[r / 2];
}

static double
wall_now (void)
{
  return bench_clock (CLOCK_MONOTONIC);
}

/* Wall seconds of INSTANCES instances of COST on all cores at once.  */
static double
wall_many (const ks_argon2_params_t *cost, unsigned int instances)
{
  uint8_t salts[KS_KDF_SALT_LEN * KS_KDF_MAX_INSTANCES] = { 2 };
  uint8_t outs[KS_KDF_OUT_LEN * KS_KDF_MAX_INSTANCES];
  unsigned int i;
  double t0;

  for (i = 0; i < instances; i++)
    salts[i * KS_KDF_SALT_LEN] = (uint8_t)i;
  t0 = wall_now ();
  if (ks_kdf_argon2id_many ("pw", 2, salts, instances, cost->t_cost,
                            cost->m_cost, outs, 0, NULL, NULL, NULL))
    {
      fprintf (stderr, "bench-restore: ks_kdf_argon2id_many failed\n");
      exit (1);
    }
  return wall_now () - t0;
}

/* The owner's backup and average restore of profile D on this
 * machine, measured at full size in wall time; 0 when both meet their
 * goals.  */
static int
bench_owner (const ks_profile_t *d)
{
  unsigned int ncpu = ks_ncpus ();
  double name, key, r1, r2, one, round, rounds, backup, restore;

  /* As many guesses at once as the puzzle runs threads.  */
  if (ncpu > KS_MAX_PUZZLE_THREADS)
    ncpu = KS_MAX_PUZZLE_THREADS;

  printf ("owner, full size, wall time, %s backend on %u cores:\n",
          ks_kdf_backend (), ncpu);
  fflush (stdout);
  name = wall_many (&d->name_cost, d->name_instances);
  key = wall_many (&d->key_cost, 1);
  r1 = wall_many (&d->puzzle_cost, ncpu);
  r2 = wall_many (&d->puzzle_cost, ncpu);
  round = (r1 + r2) / 2;
  rounds = (ldexp (1, (int)d->puzzle_bits) / ncpu + 1) / 2;
  one = wall_many (&d->puzzle_cost, 1);
  backup = name + key + one;
  restore = name + key + rounds * round;
  printf ("  name (%u instances) %.1f s, key %.1f s, one puzzle guess"
          " alone %.2f s, one round (%u guesses at once) %.2f s and"
          " %.2f s (%.2fx one alone)\n"
          "  backup %.1f min (goal <= 5), restore %.1f min on average"
          " (%.1f rounds; goal <= 17), worst %.1f min\n",
          d->name_instances, name, key, one, ncpu, r1, r2, round / one,
          backup / 60,
          restore / 60, rounds,
          (name + key + ldexp (1, (int)d->puzzle_bits) / ncpu * round) / 60);
  return backup <= 300 && restore <= 1020 ? 0 : 1;
}

int
bench_passes (void)
{
  void *h = dlopen ("libsodium.so.23", RTLD_NOW);
  int (*init) (void);
  const ks_profile_t *d = ks_profile_default ();
  double s256, s1g, o256, g256, f256, f1g, guess, key, name, att;
  double restore, backup;
  int owner;

  if (!h || !(init = (int (*) (void))dlsym (h, "sodium_init"))
      || !(sodium_argon2id = (pwhash_fn)dlsym (h, "crypto_pwhash_argon2id"))
      || init () < 0)
    {
      fprintf (stderr, "bench-restore: libsodium.so.23 not found\n");
      return 77;
    }
  s256 = per_pass (1, 256, 2, 34, 3, &f256);
  s1g = per_pass (1, 1024, 1, 9, 3, &f1g);
  o256 = per_pass (0, 256, 2, 34, 3, &g256);
  printf ("CPU seconds per pass, one lane, median of 3 (the first touch"
          " of a fresh area apart):\n"
          "  libsodium:   256 MiB %.4f s (first pass +%.3f s),"
          " 1 GiB %.4f s (+%.3f s)\n"
          "  ks_kdf_argon2id (%s): 256 MiB %.4f s: %.2fx libsodium\n",
          s256, f256, s1g, f1g, ks_kdf_backend (), o256, o256 / s256);

  guess = d->puzzle_cost.t_cost * s256 * d->puzzle_cost.m_cost / 262144.0;
  key = d->key_cost.t_cost * s1g * d->key_cost.m_cost / 1048576.0;
  name = d->name_cost.t_cost * s1g * d->name_cost.m_cost / 1048576.0;
  att = key + ldexp (guess, (int)d->puzzle_bits);
  /* The owner pays the page faults; on average R is found after
   * (2^bits / 2 + 1) / 2 guesses per core on 2 cores.  */
  backup = name + f1g + key + f1g + guess + f256;
  restore = name + f1g + key + f1g
    + (ldexp (1, (int)d->puzzle_bits - 1) + 1) / 2 * (guess + f256);
  printf ("default profile with libsodium:\n"
          "  attacker per wrong password: %.0f core-s = %.1f core-min"
          " (goal >= 50)\n"
          "  attacker per name guess: %.0f core-s (%u instances)\n"
          "  owner on 2 cores, from these CPU figures: backup %.1f min,"
          " restore %.1f min on average\n",
          att, att / 60, name * d->name_instances, d->name_instances,
          backup / 60, restore / 60);
  fflush (stdout);
  owner = bench_owner (d);
  return (att >= 3000 && !owner) ? 0 : 1;
}
