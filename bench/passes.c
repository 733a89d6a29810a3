/* passes.c - bench-restore --passes: CPU seconds per Argon2id pass
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * doc/protocol.md section 10 states the default profile's costs in
 * core-seconds of the fastest CPU code, libsodium's Argon2id (one lane,
 * runtime-dispatched AVX2/AVX-512).  This measures it: the thread CPU
 * time of T2 passes minus that of T1 passes, divided by T2 - T1, so the
 * page faults of the first pass (which an attacker who reuses memory
 * does not pay) and other load on the machine (it is CPU time, best of
 * REPS) do not count.  libsodium is loaded at run time, so the build
 * does not depend on it; ks_kdf_argon2id (this build's backend) is measured
 * the same way in the same run for the ratio.
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

/* Best-of-REPS CPU seconds per pass over MIB MiB, and of the first
 * pass's extra cost (page faults) into *R_FIRST.  */
static double
per_pass (int sodium, unsigned int mib, unsigned int t1, unsigned int t2,
          unsigned int reps, double *r_first)
{
  double best = 1e9, bestfirst = 1e9, a, b;
  unsigned int r;

  for (r = 0; r < reps; r++)
    {
      a = run_once (sodium, t1, mib);
      b = run_once (sodium, t2, mib);
      if ((b - a) / (t2 - t1) < best)
        best = (b - a) / (t2 - t1);
      if (a - t1 * best < bestfirst)
        bestfirst = a - t1 * best;
    }
  *r_first = bestfirst;
  return best;
}

int
bench_passes (void)
{
  void *h = dlopen ("libsodium.so.23", RTLD_NOW);
  int (*init) (void);
  const ks_profile_t *d = ks_profile_default ();
  double s256, s1g, o256, g256, f256, f1g, guess, key, name, att;
  double restore, backup;

  if (!h || !(init = (int (*) (void))dlsym (h, "sodium_init"))
      || !(sodium_argon2id = (pwhash_fn)dlsym (h, "crypto_pwhash_argon2id"))
      || init () < 0)
    {
      fprintf (stderr, "bench-restore: libsodium.so.23 not found\n");
      return 77;
    }
  s256 = per_pass (1, 256, 2, 18, 3, &f256);
  s1g = per_pass (1, 1024, 2, 6, 3, &f1g);
  o256 = per_pass (0, 256, 2, 18, 1, &g256);
  printf ("CPU seconds per pass, one lane, best of 3 (first-pass page"
          " faults apart):\n"
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
          "  owner on 2 cores: backup %.1f min (goal <= 5),"
          " restore %.1f min on average (goal <= 17)\n",
          att, att / 60, name * d->name_instances, d->name_instances,
          backup / 60, restore / 60);
  return (att >= 3000 && backup <= 300 && restore <= 1020) ? 0 : 1;
}
