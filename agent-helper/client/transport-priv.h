/* transport-priv.h - the inner state of transport.c's requests
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Shared by transport.c (the curl multi loop) and transport-pow.c (the
 * proof-of-work solvers that run beside it); nothing else includes it.
 */
#ifndef KS_TRANSPORT_PRIV_H
#define KS_TRANSPORT_PRIV_H

#include <pthread.h>
#include <curl/curl.h>
#include "transport.h"

/* Proof-of-work rounds and 429 retries per request (protocol.md
 * section 12, "Client behaviour").  */
#define KS_MAX_POW_ROUNDS 3
#define KS_MAX_BUSY_RETRIES 3
/* The most bits a client pays for one request (section 12, "Cap").  */
#define KS_POW_CAP_GET 24
#define KS_POW_CAP_PUT 26
/* A location's budget per operation (section 12, "Budget"): 2^(cap +
 * 3) expected hashes, eight requests at the cap, and 2^(cap - 2) more
 * for every request that gets a challenge, so a busy honest server
 * that asks two bits below the cap is paid for any number of requests
 * while one that keeps refusing proofs is not.  */
#define KS_POW_BUDGET_BITS 3
#define KS_POW_BUDGET_PER_REQUEST_BITS 2
/* Nonces tried per challenge: 16 times the average of the cap, so an
 * honest challenge is practically always solved.  */
#define KS_POW_MAX_TRIES(d) (1ULL << ((d) + 4))
/* Solver threads at once; the others wait for a free one.  */
#define KS_MAX_SOLVERS 2

/* A request waits (for its turn or a pause), runs on the multi handle,
 * or has its challenge solved in a thread of its own, so solving never
 * holds up the other transfers.  */
enum xstate { X_WAITING, X_ACTIVE, X_SOLVE_WAIT, X_SOLVING, X_DONE };

struct ks_xfer_priv
{
  CURL *easy;
  struct curl_slist *hdrs;
  char url[1024];
  char challenge[KS_POW_CHALLENGE_SIZE];
  char powhdr[KS_POW_PROOF_SIZE + 16];
  char curlerr[CURL_ERROR_SIZE];
  char socksuser[40];
  char proxy[300];
  enum xstate state;
  uint64_t not_before_ms;
  unsigned int pow_rounds;
  unsigned int busy_retries;
  int proxied;
  int overflow;
  /* The solver thread's side: it writes PROOF and SOLVE_ERR, then sets
   * SOLVED and wakes MULTI.  */
  pthread_t solver;
  CURLM *multi;
  char proof[KS_POW_PROOF_SIZE];
  gpg_error_t solve_err;
  int solved;
};

/* Milliseconds of the monotonic clock.  */
uint64_t ks_transport_now_ms (void);

/* The difficulty D of CHAL (82 hex characters), 0 when malformed.  */
unsigned int ks_pow_challenge_difficulty (const char *chal);

/* The most bits X may pay (protocol.md section 12, "Cap").  */
unsigned int ks_transport_pow_cap (const ks_transport_cfg_t *cfg,
                                   const ks_xfer_t *x);

/* Charge a challenge of D bits to X's location in CFG's budget (the
 * first challenge of a request adds its allowance first): 0, or
 * GPG_ERR_LIMIT_REACHED (nothing charged) when it would take the
 * location past its budget for the operation.  */
gpg_error_t ks_transport_pow_charge (const ks_transport_cfg_t *cfg,
                                     const ks_xfer_t *x, unsigned int d);

/* Start solvers for the requests in X_SOLVE_WAIT and take in the solved
 * ones (see transport-pow.c); a request that ends counts in *NDONE.  */
void ks_transport_run_solvers (const ks_transport_cfg_t *cfg, CURLM *multi,
                               ks_xfer_t *xfers, size_t n, size_t *ndone);

#endif /* KS_TRANSPORT_PRIV_H */
