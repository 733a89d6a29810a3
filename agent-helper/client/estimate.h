/* estimate.h - what a backup or a restore will cost on this machine
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The owner is told before the long work starts how long it will take,
 * from a short measurement of the configured Argon2id here and now (two
 * small runs that separate the cost of fresh memory from the cost of a
 * pass), scaled to the profile's sizes.  Nothing secret is used.
 */
#ifndef KS_ESTIMATE_H
#define KS_ESTIMATE_H

#include "keysafe.h"

typedef struct ks_estimate
{
  double name_s;                /* the name seed, instances on all cores */
  double key_s;                 /* the password key */
  double guess_s;               /* one value of R, one core */
  double puzzle_avg_s;          /* (rounds + 1) / 2 rounds of NTHREADS
                                   guesses at once */
  double puzzle_max_s;          /* every value of R */
  double backup_s;              /* name + key + one guess */
  double restore_avg_s;         /* name + key + puzzle_avg */
  double restore_max_s;
} ks_estimate_t;

/* Measure and fill *R for PROFILE with NTHREADS puzzle threads (0: all
 * cores).  Takes a fraction of a second.  */
gpg_error_t ks_estimate_profile (const ks_profile_t *profile,
                                 unsigned int nthreads, ks_estimate_t *r);

/* The cost model behind it, for tests: a single-lane Argon2id over
 * M_KIB KiB with T passes costs M_KIB * (FAULT + T * PASS) seconds.  */
void ks_estimate_from_model (const ks_profile_t *profile,
                             unsigned int nthreads, unsigned int ncpus,
                             double fault, double pass, ks_estimate_t *r);


#include "keysafe-client.h"

/* Tell UI what the work of PROFILE will take here: a backup's time
 * (RESTORE zero) or a restore's average and worst time.  A failed
 * measurement is no error: nothing is told.  */
void ks_flow_tell_estimate (const ks_options_t *opt, const ks_ui_t *ui,
                            const ks_profile_t *profile, int restore);

#endif /* KS_ESTIMATE_H */
