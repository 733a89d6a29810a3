/* transport.h - HTTP to the shard servers, all in parallel
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * One call runs a batch of PUTs and GETs on libcurl's multi interface.
 * Every request has a connect and a total timeout, so a dead or silent
 * server costs no more than that.  A 403 with a Keysafe-Challenge header
 * is answered by solving the proof of work (common/pow.h) and sending the
 * request again with Keysafe-PoW; a 429 is retried after a pause.
 * Servers that are not on loopback are reached through a SOCKS5h proxy
 * (Tor), which also resolves their names; each server gets its own SOCKS
 * credentials, so Tor puts it on a circuit of its own.
 */
#ifndef KS_TRANSPORT_H
#define KS_TRANSPORT_H

#include "keysafe.h"

typedef enum
  {
    KS_HTTP_GET = 0,
    KS_HTTP_PUT = 1
  } ks_http_method_t;

struct ks_xfer_priv;

typedef struct ks_xfer
{
  /* Set by the caller.  */
  const char *base;             /* server base URL, no trailing '/' */
  ks_http_method_t method;
  char name[KS_NAME_HEX_LEN + 1];
  const uint8_t *body;          /* PUT: the shard (not copied) */
  size_t bodylen;
  size_t maxresp;               /* GET: largest body accepted */
  unsigned int server;          /* free for the caller's bookkeeping */
  unsigned int share;
  uint32_t chunk;

  /* Results.  */
  long status;                  /* HTTP status of the last answer, 0 none */
  gpg_error_t err;              /* transport error, 0 when answered */
  char errtext[200];            /* a short reason for the user */
  ks_buf_t *resp;               /* body of a 200 answer (GET) */

  struct ks_xfer_priv *priv;
} ks_xfer_t;

/* Proof of work paid in one operation (a backup, a restore, a check,
 * an upload of the queue), per location (protocol.md section 12,
 * "Budget"), so a location that asks a lot stops being paid without
 * eating into what the others may ask.  Start it zeroed, release it at
 * the end of the operation.  */
typedef struct ks_pow_budget
{
  size_t n, size;
  struct ks_pow_budget_loc
  {
    char *url;                  /* base URL, ks_malloc'd */
    uint64_t spent;             /* expected hashes paid: the sum of 2^D */
    uint64_t limit;             /* what may be paid so far */
  } *loc;
} ks_pow_budget_t;

void ks_pow_budget_release (ks_pow_budget_t *b);

typedef struct ks_transport_cfg
{
  const char *tor_socks;        /* HOST:PORT, NULL = 127.0.0.1:9050 */
  int no_tor;                   /* connect directly to every server */
  unsigned int timeout;         /* seconds per attempt, 0 = 60 */
  unsigned int connect_timeout; /* 0 = 30 */
  /* The most bits paid for one request; 0 = the protocol's caps (26
   * for a PUT, 24 for a GET).  */
  unsigned int pow_cap;
  ks_pow_budget_t *pow_budget;  /* NULL = no budget kept */
  int verbose;
  /* Told after each finished request (may be NULL).  */
  void (*progress) (void *arg, const char *what, uint64_t done,
                    uint64_t total);
  void *progress_arg;
} ks_transport_cfg_t;

/* Fill X (zeroed first) as the request METHOD of the shard NAME at
 * BASE; SERVER, SHARE and CHUNK are the caller's bookkeeping.  A PUT
 * then gets X->body and X->bodylen, a GET X->maxresp.  The one place
 * where requests are made, so every field starts out set.  */
void ks_xfer_set (ks_xfer_t *x, ks_http_method_t method, const char *base,
                  const char *name, unsigned int server, unsigned int share,
                  uint32_t chunk);

/* Run the N requests of XFERS until each has an answer or has failed;
 * the results are in each element.  Only a failure of the machinery
 * itself (out of memory, libcurl unusable) is returned.  */
gpg_error_t ks_transport_run (const ks_transport_cfg_t *cfg,
                              ks_xfer_t *xfers, size_t n);

/* Free the answer bodies of N requests (accepts NULL).  */
void ks_transport_release (ks_xfer_t *xfers, size_t n);

/* True when URL's host is on loopback (localhost, 127/8, ::1).  */
int ks_transport_is_loopback (const char *url);

/* A short description of the outcome of X for the user.  */
const char *ks_xfer_describe (const ks_xfer_t *x, char *buf, size_t size);
/* The same as one untranslated keyword for status lines (status.c
 * lists them).  */
const char *ks_xfer_reason (const ks_xfer_t *x);

#endif /* KS_TRANSPORT_H */
