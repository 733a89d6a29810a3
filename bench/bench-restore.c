/* bench-restore.c - bench-restore: puzzle threads and the cost of a backup
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Figures of the client issue:
 *  1. restore wall time with the puzzle on 1 thread vs all threads
 *     (target: >= 1.8x on 2 cores).  Measured three ways: the exhaustive
 *     puzzle (a wrong password: all 2^bits values of R, the attacker's
 *     work and the owner's worst case), the unlock step with the right
 *     password averaged over several seeded backups (R differs), and the
 *     whole restore (name derivation + unlock + finish) for the same.
 *  2. backup time against the bare KDF time of its profile, i.e. the
 *     three Argon2id runs (name, key, one puzzle guess) alone (target:
 *     overhead <= 5%).
 *
 * The profile is built here, a copy of the default profile's shape
 * scaled down by 256: every memory cost / 64 and every pass count / 4
 * (two name instances, one lane everywhere, 2^7 values of R).  The
 * times it measures times 256 estimate the default profile's; it is
 * never used for real data.
 *
 *   bench-restore [--quick] [--seeds N]
 *   bench-restore --passes   (libsodium per-pass costs: passes.c)
 */
#include <config.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <pthread.h>
#include "keysafe.h"
#include "passes.h"

/* The default profile / 256: memory / 64, passes / 4.  */
#define BENCH_SCALE 256
static const ks_profile_t bench_profile =
  {
    "bench", "keysafe-2-bench",
    { 28, 16384, 1 }, 2,        /* name: 2 x 16 MiB x 28 passes */
    { 2, 16384, 1 },            /* key: 16 MiB x 2 passes */
    { 59, 4096, 1 },            /* puzzle: 4 MiB x 59 passes per guess */
    7, 3, 2, 8192
  };

static const ks_profile_t quick_profile =
  {
    "bench-quick", "keysafe-2-bench-quick",
    { 1, 32768, 1 }, 2,
    { 1, 1024, 1 },
    { 1, 2048, 1 },
    6, 3, 2, 8192
  };

static const char *const locs[] = { "bench-a", "bench-b", "bench-c" };

static double
now (void)
{
  return bench_clock (CLOCK_MONOTONIC);
}

static void
die (const char *what, gpg_error_t err)
{
  fprintf (stderr, "bench-restore: %s: %s\n", what, gpg_strerror (err));
  exit (1);
}

static const char pw[] = "correct horse battery staple 4711";
static const char name[] = "bench item";

static void
add_all (ks_recover_t *rec, const ks_shardset_t *set, uint32_t j)
{
  unsigned int i;
  gpg_error_t err;

  for (i = 1; i <= set->n; i++)
    {
      err = ks_recover_add_shard (rec, j, i, set->shards[j * set->n + i - 1],
                                  set->shard_len);
      if (err)
        die ("add_shard", err);
    }
}

/* One restore of SET on NTHREADS; returns the whole time, *R_UNLOCK the
 * unlock step alone.  */
static double
time_restore (const ks_profile_t *p, const ks_shardset_t *set,
              const char *password, unsigned int nthreads, double *r_unlock,
              int want_ok)
{
  ks_recover_t *rec = NULL;
  gpg_error_t err;
  double t0, t1, t2;
  uint8_t *secret = NULL;
  size_t len = 0;
  uint32_t j;

  t0 = now ();
  err = ks_recover_new (p, name, NULL, NULL, NULL, &rec);
  if (err)
    die ("recover_new", err);
  add_all (rec, set, 0);
  t1 = now ();
  err = ks_recover_unlock (rec, password, strlen (password), nthreads,
                           NULL, NULL);
  t2 = now ();
  if (want_ok && err)
    die ("unlock", err);
  if (!want_ok && gpg_err_code (err) != GPG_ERR_BAD_PASSPHRASE)
    die ("unlock with a wrong password did not fail", err);
  if (want_ok)
    {
      for (j = 1; j < set->nchunks; j++)
        add_all (rec, set, j);
      err = ks_recover_finish (rec, &secret, &len);
      if (err)
        die ("finish", err);
      ks_free_secret (secret, len);
    }
  ks_recover_free (rec);
  *r_unlock = t2 - t1;
  return now () - t0;
}

static double
time_kdf (const ks_profile_t *p)
{
  uint8_t out[32];
  const char salt[] = "keysafe-2-bench/";
  double t0 = now ();
  gpg_error_t err;

  uint8_t seed[KS_SEED_LEN];

  /* The name instances run in parallel: ks_derive_seed is the bare
   * KDF for that step.  */
  err = ks_derive_seed (p, name, NULL, seed, NULL, NULL);
  if (!err)
    err = ks_argon2id (&p->key_cost, pw, strlen (pw), salt, strlen (salt),
                       NULL, 0, NULL, 0, out, sizeof out, NULL, NULL, "key");
  if (!err)
    err = ks_argon2id (&p->puzzle_cost, out, sizeof out, salt, strlen (salt),
                       NULL, 0, NULL, 0, out, sizeof out, NULL, NULL,
                       "puzzle");
  if (err)
    die ("argon2id", err);
  return now () - t0;
}

/* How parallel is this machine right now?  The same Argon2 run in N
 * threads at once against one run alone: N on an idle machine, less
 * when other work takes cores.  */
static void *
calib_thread (void *arg)
{
  const ks_profile_t *p = arg;
  uint8_t out[32];

  ks_argon2id (&p->puzzle_cost, "x", 1, "calibration", 11, NULL, 0, NULL, 0,
               out, sizeof out, NULL, NULL, "calib");
  return NULL;
}

static double
calibrate (const ks_profile_t *p, unsigned int n)
{
  pthread_t tid[64];
  double t0, t1, tn;
  unsigned int i, k, rounds = 8;

  t0 = now ();
  for (k = 0; k < rounds; k++)
    calib_thread ((void *)p);
  t1 = now () - t0;
  if (n > 64)
    n = 64;
  t0 = now ();
  for (k = 0; k < rounds; k++)
    {
      for (i = 0; i < n; i++)
        pthread_create (&tid[i], NULL, calib_thread, (void *)p);
      for (i = 0; i < n; i++)
        pthread_join (tid[i], NULL);
    }
  tn = now () - t0;
  return n * t1 / tn;
}

static double
min3 (double a, double b, double c)
{
  double m = a < b ? a : b;
  return m < c ? m : c;
}

int
main (int argc, char **argv)
{
  const ks_profile_t *p = &bench_profile;
  unsigned int seeds = 8, s, ncpu;
  uint8_t secret[2000];
  ks_shardset_t *set = NULL;
  gpg_error_t err;
  double kdf[3], bk[3], t1, tn, u1, un, sum1 = 0, sumn = 0, usum1 = 0,
    usumn = 0, ex1 = 0, exn = 0, kdfmin, bkmin, d;
  int i, fails = 0;

  for (i = 1; i < argc; i++)
    if (!strcmp (argv[i], "--passes"))
      return bench_passes ();
    else if (!strcmp (argv[i], "--quick"))
      p = &quick_profile, seeds = 3;
    else if (!strcmp (argv[i], "--seeds") && i + 1 < argc)
      seeds = (unsigned int)atoi (argv[++i]);
    else
      {
        fprintf (stderr, "usage: bench-restore [--quick] [--seeds N] | --passes\n");
        return 2;
      }
  if (!seeds)
    seeds = 1;
  err = ks_init ();
  if (err)
    die ("init", err);
  ncpu = ks_ncpus ();
  memset (secret, 0x5a, sizeof secret);

  printf ("bench-restore: profile '%s': name %u x %u KiB x %u lanes,"
          " key %u x %u KiB x %u, puzzle %u x %u KiB, 2^%u values of R;"
          " %u CPUs\n",
          p->name, p->name_cost.t_cost, p->name_cost.m_cost,
          p->name_cost.lanes, p->key_cost.t_cost, p->key_cost.m_cost,
          p->key_cost.lanes, p->puzzle_cost.t_cost, p->puzzle_cost.m_cost,
          p->puzzle_bits, ncpu);

  printf ("parallel capacity now: %.2f of %u CPUs (the same Argon2 in %u"
          " threads at once vs alone; below %u means other load)\n",
          calibrate (p, ncpu), ncpu, ncpu, ncpu);

  /* 2. Backup against the bare KDF: best of three each, interleaved
   * so that a load change hits both alike.  */
  for (i = 0; i < 3; i++)
    {
      double t0;

      kdf[i] = time_kdf (p);
      t0 = now ();
      err = ks_shardset_create (p, name, NULL, pw, strlen (pw),
                                secret, sizeof secret, 0, 0, locs,
                                NULL, NULL, &set);
      bk[i] = now () - t0;
      if (err)
        die ("shardset_create", err);
      if (i < 2)
        {
          ks_shardset_free (set);
          set = NULL;
        }
    }
  kdfmin = min3 (kdf[0], kdf[1], kdf[2]);
  bkmin = min3 (bk[0], bk[1], bk[2]);
  d = (bkmin / kdfmin - 1) * 100;
  printf ("backup:  %.3f s   bare KDF (name + key + one puzzle guess):"
          " %.3f s   overhead %+.1f%%  (target <= 5%%: %s)\n",
          bkmin, kdfmin, d, d <= 5 ? "met" : "MISSED");
  if (d > 5)
    fails++;

  /* 1a. The exhaustive puzzle: a wrong password.  */
  /* Best of three, interleaved, against passing load.  */
  for (i = 0; i < 3; i++)
    {
      double a, b;

      time_restore (p, set, "wrong password", 1, &a, 0);
      time_restore (p, set, "wrong password", 0, &b, 0);
      if (!i || a < ex1)
        ex1 = a;
      if (!i || b < exn)
        exn = b;
    }
  printf ("exhaustive puzzle (wrong password, 2^%u tries): 1 thread %.3f s,"
          " %u threads %.3f s: speedup %.2fx  (target >= 1.8x: %s)\n",
          p->puzzle_bits, ex1, ncpu, exn, ex1 / exn,
          ex1 / exn >= 1.8 ? "met" : "MISSED");
  if (ex1 / exn < 1.8 && ncpu >= 2)
    fails++;
  ks_shardset_free (set);
  set = NULL;

  /* 1b/1c. Restores with the right password over seeded backups.  */
  for (s = 0; s < seeds; s++)
    {
      uint8_t seed[8];

      ks_put_be64 (seed, 0x6b73626e63680000ULL + s);
      ks_random_set_test_seed (seed, sizeof seed);
      err = ks_shardset_create (p, name, NULL, pw, strlen (pw),
                                secret, sizeof secret, 0, 0, locs,
                                NULL, NULL, &set);
      ks_random_set_test_seed (NULL, 0);
      if (err)
        die ("shardset_create", err);
      t1 = time_restore (p, set, pw, 1, &u1, 1);
      tn = time_restore (p, set, pw, 0, &un, 1);
      sum1 += t1;
      sumn += tn;
      usum1 += u1;
      usumn += un;
      ks_shardset_free (set);
      set = NULL;
    }
  printf ("unlock (right password, mean of %u backups): 1 thread %.3f s,"
          " %u threads %.3f s: speedup %.2fx  (target >= 1.8x: %s)\n",
          seeds, usum1 / seeds, ncpu, usumn / seeds, usum1 / usumn,
          usum1 / usumn >= 1.8 ? "met" : "MISSED");
  if (usum1 / usumn < 1.8 && ncpu >= 2)
    fails++;
  printf ("whole restore (name + unlock + finish, same backups): 1 thread"
          " %.3f s, %u threads %.3f s: speedup %.2fx  (the name instances"
          " run in parallel either way)\n",
          sum1 / seeds, ncpu, sumn / seeds, sum1 / sumn);
  if (p == &bench_profile)
    {
      double bkfull = bkmin * BENCH_SCALE / 60;
      double rsfull = sumn / seeds * BENCH_SCALE / 60;

      printf ("default profile, estimated (x %d): backup %.1f min (goal <="
              " 5: %s), restore on %u threads %.1f min on average (goal <="
              " 17: %s), attacker per wrong password %.1f core-min of this"
              " code (the puzzle on 1 thread)\n",
              BENCH_SCALE, bkfull, bkfull <= 5 ? "met" : "MISSED", ncpu,
              rsfull, rsfull <= 17 ? "met" : "MISSED",
              ex1 * BENCH_SCALE / 60);
      if (bkfull > 5 || rsfull > 17)
        fails++;
    }
  printf ("%d passed, %d failed\n", 3 - fails, fails);
  return fails ? 1 : 0;
}
