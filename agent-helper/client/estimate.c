/* estimate.c - what a backup or a restore will cost on this machine
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>
#include <time.h>
#include "estimate.h"
#include "flowutil.h"
#include "strength.h"

/* Big enough that a pass is not lost in the timer's noise, small enough
 * that the measurement is quick: 16 MiB, 1 and 5 passes.  */
#define PROBE_KIB (16 * 1024)
#define PROBE_LONG_PASSES 5

static double
seconds_now (void)
{
  struct timespec t;

  clock_gettime (CLOCK_MONOTONIC, &t);
  return t.tv_sec + t.tv_nsec / 1e9;
}

/* Seconds of one probe of T passes (the best of two tries, so a moment
 * of other load does not inflate the estimate).  */
static gpg_error_t
probe (uint32_t t, double *r_sec)
{
  static const uint8_t salt[KS_SALT_LEN] = "keysafe-estimat";
  uint8_t out[32];
  gpg_error_t err = 0;
  double t0, best = 0;
  int i;

  for (i = 0; i < 2 && !err; i++)
    {
      t0 = seconds_now ();
      err = ks_kdf_argon2id ("probe", 5, salt, t, PROBE_KIB, out,
                             NULL, NULL, "estimate");
      t0 = seconds_now () - t0;
      if (!i || t0 < best)
        best = t0;
    }
  *r_sec = best;
  return err;
}

static double
instance_s (const ks_argon2_params_t *c, double fault, double pass)
{
  return c->m_cost * (fault + c->t_cost * pass);
}

void
ks_estimate_from_model (const ks_profile_t *profile, unsigned int nthreads,
                        unsigned int ncpus, double fault, double pass,
                        ks_estimate_t *r)
{
  unsigned int p = profile->name_instances ? profile->name_instances : 1;
  unsigned int rounds;
  double guesses = (double)((uint64_t)1 << profile->puzzle_bits);

  if (!ncpus)
    ncpus = 1;
  if (!nthreads || nthreads > ncpus)
    nthreads = ncpus;
  /* The name instances run ncpus at a time.  */
  rounds = (p + ncpus - 1) / ncpus;
  r->name_s = rounds * instance_s (&profile->name_cost, fault, pass);
  r->key_s = instance_s (&profile->key_cost, fault, pass);
  r->guess_s = instance_s (&profile->puzzle_cost, fault, pass);
  /* The threads take the values of R in turn: the right one is found
   * in round 1 .. ceil (2^bits / nthreads), on average the middle.  */
  rounds = (unsigned int)((guesses + nthreads - 1) / nthreads);
  r->puzzle_max_s = rounds * r->guess_s;
  r->puzzle_avg_s = (rounds + 1) / 2.0 * r->guess_s;
  r->backup_s = r->name_s + r->key_s + r->guess_s;
  r->restore_avg_s = r->name_s + r->key_s + r->puzzle_avg_s;
  r->restore_max_s = r->name_s + r->key_s + r->puzzle_max_s;
}

gpg_error_t
ks_estimate_profile (const ks_profile_t *profile, unsigned int nthreads,
                     ks_estimate_t *r)
{
  gpg_error_t err;
  double t1, tn, pass, fault;

  memset (r, 0, sizeof *r);
  err = probe (1, &t1);
  if (!err)
    err = probe (PROBE_LONG_PASSES, &tn);
  if (err)
    return err;
  pass = (tn - t1) / (PROBE_LONG_PASSES - 1) / PROBE_KIB;
  if (pass <= 0)
    pass = tn / PROBE_LONG_PASSES / PROBE_KIB;
  fault = t1 / PROBE_KIB - pass;
  if (fault < 0)
    fault = 0;
  ks_estimate_from_model (profile, nthreads, ks_ncpus (), fault, pass, r);
  return 0;
}

void
ks_flow_tell_estimate (const ks_options_t *opt, const ks_ui_t *ui,
                       const ks_profile_t *profile, int restore)
{
  ks_estimate_t e;
  char a[64], b[64];

  if (ks_estimate_profile (profile, opt->threads, &e))
    return;
  if (restore)
    ks_ui_infof (ui, _("on this machine a restore with profile '%s' takes"
                       " about %s (at most %s)"), profile->name,
                 ks_strength_duration (e.restore_avg_s, a, sizeof a),
                 ks_strength_duration (e.restore_max_s, b, sizeof b));
  else
    ks_ui_infof (ui, _("on this machine this backup takes about %s"),
                 ks_strength_duration (e.backup_s, a, sizeof a));
}
