/* strength.c - password strength (zxcvbn) and the implied cost to crack
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * An attacker who holds the shards must, for every guess of the
 * password, derive K and then try all 2^puzzle_bits values of R (the
 * owner stops at the right one, the attacker cannot tell a wrong
 * password from a wrong R).  The cost of one guess is therefore
 *   key_cost + 2^bits * puzzle_cost   (memory x passes of Argon2id),
 * and on average half of the 2^entropy candidates are tried.
 */
#include <config.h>
#include <stdio.h>
#include <math.h>
#include <zxcvbn.h>
#include "strength.h"

static double
argon2_seconds (const ks_argon2_params_t *p)
{
  return (double)p->t_cost * (double)p->m_cost / KS_STRENGTH_KIB_PER_SEC;
}

void
ks_strength_estimate (const ks_profile_t *profile, const char *pw,
                      const char **userwords, ks_strength_t *r)
{
  double guesses;

  memset (r, 0, sizeof *r);
  r->bits = ZxcvbnMatch (pw, userwords, NULL);
  if (r->bits < 0)
    r->bits = 0;
  r->sec_per_guess = argon2_seconds (&profile->key_cost)
    + ldexp (argon2_seconds (&profile->puzzle_cost), profile->puzzle_bits);
  guesses = ldexp (1.0, (int)(r->bits > 1 ? r->bits - 1 : 0));
  r->core_seconds = guesses * r->sec_per_guess;
  r->dollars = r->core_seconds / 3600.0 * KS_STRENGTH_USD_PER_CORE_HOUR;
}

const char *
ks_strength_duration (double s, char *buf, size_t size)
{
  if (s < 1)
    snprintf (buf, size, _("less than a second"));
  else if (s < 120)
    snprintf (buf, size, _("%.0f seconds"), s);
  else if (s < 7200)
    snprintf (buf, size, _("%.0f minutes"), s / 60);
  else if (s < 2 * 86400)
    snprintf (buf, size, _("%.0f hours"), s / 3600);
  else if (s < 2 * 31557600)
    snprintf (buf, size, _("%.0f days"), s / 86400);
  else if (s < 1e6 * 31557600)
    snprintf (buf, size, _("%.0f years"), s / 31557600);
  else
    snprintf (buf, size, _("%.1e years"), s / 31557600);
  return buf;
}
