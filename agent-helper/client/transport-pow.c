/* transport-pow.c - proof of work for the transfers, beside the curl loop
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A challenge is solved in a thread of its own, so an expensive one
 * never holds up the other transfers nor eats into their timeouts
 * (protocol.md section 12, "Client behaviour"); a challenge above the
 * client's cap is refused without solving it.
 */
#include <config.h>
#include <stdio.h>
#include "transport-priv.h"

/* The difficulty D of a challenge in hex (protocol.md section 12), or
 * 0 when it is malformed (ks_pow_solve then refuses it).  */
unsigned int
ks_pow_challenge_difficulty (const char *chal)
{
  char hex[3];
  uint8_t d;

  if (strlen (chal) != 82)
    return 0;
  memcpy (hex, chal + 16, 2);
  hex[2] = 0;
  return ks_hex_decode (hex, &d, 1) ? 0 : d;
}

unsigned int
ks_transport_pow_cap (const ks_transport_cfg_t *cfg, const ks_xfer_t *x)
{
  if (cfg->pow_cap)
    return cfg->pow_cap;
  return x->method == KS_HTTP_PUT ? KS_POW_CAP_PUT : KS_POW_CAP_GET;
}

/* The record of URL in B, added with the base allowance LIMIT when
 * new; NULL with errno set when out of memory.  */
static struct ks_pow_budget_loc *
budget_loc (ks_pow_budget_t *b, const char *url, uint64_t limit)
{
  struct ks_pow_budget_loc *loc;
  size_t i;

  for (i = 0; i < b->n; i++)
    if (!strcmp (b->loc[i].url, url))
      return &b->loc[i];
  if (b->n == b->size)
    {
      size_t size = b->size ? 2 * b->size : 8;

      loc = ks_realloc (b->loc, size * sizeof *loc);
      if (!loc)
        return NULL;
      b->loc = loc;
      b->size = size;
    }
  loc = &b->loc[b->n];
  loc->url = ks_strdup (url);
  if (!loc->url)
    return NULL;
  loc->spent = 0;
  loc->limit = limit;
  b->n++;
  return loc;
}

gpg_error_t
ks_transport_pow_charge (const ks_transport_cfg_t *cfg, const ks_xfer_t *x,
                         unsigned int d)
{
  ks_pow_budget_t *b = cfg->pow_budget;
  unsigned int cap = cfg->pow_cap ? cfg->pow_cap : KS_POW_CAP_PUT;
  uint64_t cost = 1ULL << d;
  struct ks_pow_budget_loc *loc;

  if (!b)
    return 0;
  loc = budget_loc (b, x->base, 1ULL << (cap + KS_POW_BUDGET_BITS));
  if (!loc)
    return gpg_error_from_syserror ();
  if (!x->priv->pow_rounds)
    loc->limit += 1ULL << (cap > KS_POW_BUDGET_PER_REQUEST_BITS
                           ? cap - KS_POW_BUDGET_PER_REQUEST_BITS : 0);
  if (loc->spent > loc->limit || cost > loc->limit - loc->spent)
    return gpg_error (GPG_ERR_LIMIT_REACHED);
  loc->spent += cost;
  return 0;
}

void
ks_pow_budget_release (ks_pow_budget_t *b)
{
  size_t i;

  if (!b)
    return;
  for (i = 0; i < b->n; i++)
    ks_free (b->loc[i].url);
  ks_free (b->loc);
  memset (b, 0, sizeof *b);
}

/* The thread that solves X's challenge.  */
static void *
solve_thread (void *arg)
{
  ks_xfer_t *x = arg;
  struct ks_xfer_priv *p = x->priv;
  unsigned int d = ks_pow_challenge_difficulty (p->challenge);

  p->solve_err = ks_pow_solve (p->challenge,
                               x->method == KS_HTTP_PUT ? "PUT" : "GET",
                               x->name, KS_POW_MAX_TRIES (d),
                               p->proof, sizeof p->proof);
  __atomic_store_n (&p->solved, 1, __ATOMIC_RELEASE);
  curl_multi_wakeup (p->multi);
  return NULL;
}

/* Start solvers for the challenges that wait, up to KS_MAX_SOLVERS at
 * once, and take in the solved ones: a request with a proof waits for
 * its turn again, one whose challenge could not be solved is done.  */
void
ks_transport_run_solvers (const ks_transport_cfg_t *cfg, CURLM *multi, ks_xfer_t *xfers,
             size_t n, size_t *ndone)
{
  size_t i, nsolving = 0;

  for (i = 0; i < n; i++)
    {
      struct ks_xfer_priv *p = xfers[i].priv;

      if (p->state != X_SOLVING)
        continue;
      if (!__atomic_load_n (&p->solved, __ATOMIC_ACQUIRE))
        {
          nsolving++;
          continue;
        }
      pthread_join (p->solver, NULL);
      p->solved = 0;
      if (p->solve_err)
        {
          xfers[i].err = p->solve_err;
          snprintf (xfers[i].errtext, sizeof xfers[i].errtext,
                    _("proof of work failed: %s"),
                    gpg_strerror (p->solve_err));
          p->state = X_DONE;
          (*ndone)++;
          if (cfg->progress)
            cfg->progress (cfg->progress_arg, "transfer", *ndone, n);
          continue;
        }
      snprintf (p->powhdr, sizeof p->powhdr, "Keysafe-PoW: %s", p->proof);
      p->state = X_WAITING;
      p->not_before_ms = 0;
    }
  for (i = 0; i < n && nsolving < KS_MAX_SOLVERS; i++)
    {
      struct ks_xfer_priv *p = xfers[i].priv;

      if (p->state != X_SOLVE_WAIT)
        continue;
      p->multi = multi;
      p->solved = 0;
      if (pthread_create (&p->solver, NULL, solve_thread, &xfers[i]))
        {
          xfers[i].err = gpg_error_from_syserror ();
          snprintf (xfers[i].errtext, sizeof xfers[i].errtext, "%s",
                    gpg_strerror (xfers[i].err));
          p->state = X_DONE;
          (*ndone)++;
          continue;
        }
      p->state = X_SOLVING;
      nsolving++;
    }
}
