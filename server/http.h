/* http.h - the HTTP face of keysafe-server (libmicrohttpd)
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * doc/protocol.md ("The server's HTTP interface") is normative for the
 * paths, the status codes and the proof of work.  Nothing here logs a
 * client address or a shard name, and no request is logged at all.
 */
#ifndef KS_SERVER_HTTP_H
#define KS_SERVER_HTTP_H

#include <stdint.h>
#include <sys/socket.h>
#include "keysafe.h"
#include "store.h"

typedef struct ks_server_opts
{
  struct sockaddr_storage addr;  /* where to listen */
  socklen_t addrlen;
  size_t max_shard_bytes;        /* largest body accepted */
  uint64_t reserve_bytes;        /* free space the store never eats into */
  unsigned int pow_difficulty;   /* base difficulty; 0 = off */
  unsigned int pow_load_rps;     /* load at which difficulty starts rising */
  unsigned int pow_put_bits;     /* bits a PUT pays above a GET */
  unsigned int fill_months;      /* growth budget: half the free space in
                                  * this many months */
  unsigned int max_connections;  /* all connections at once */
  unsigned int max_per_address;  /* per client address; 0 = no cap */
  unsigned int max_uploads;      /* PUT bodies held in memory at once */
  unsigned int idle_timeout;     /* seconds without any byte moving */
  unsigned int head_timeout;     /* seconds a new connection has for its
                                  * first request head */
  unsigned int request_timeout;  /* seconds one request may take in all */
  unsigned int threads;          /* worker threads */
  unsigned int replay_slots;     /* replay cache size (power of two) */
  int64_t test_challenge_age;    /* tests only: back-date challenges */
} ks_server_opts_t;

typedef struct ks_http ks_http_t;

/* Start serving STORE with OPTS (copied).  */
gpg_error_t ks_http_start (const ks_server_opts_t *opts, ks_store_t *store,
                           ks_http_t **r_http);
/* The port actually bound (useful with port 0).  */
unsigned int ks_http_port (ks_http_t *http);
/* Cut connections past the head or the request deadline; call about
 * once a second.  */
void ks_http_sweep (ks_http_t *http);
/* Stop and free.  Accepts NULL.  */
void ks_http_stop (ks_http_t *http);

#endif /* KS_SERVER_HTTP_H */
