/* http.c - the HTTP face of keysafe-server (libmicrohttpd)
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Every request passes the same gate, in this order, so the cheap checks
 * come first and nothing costly is done for a request that has not paid
 * its proof of work:
 *
 *   raw request target and version (400, 505) -> path and method (404,
 *   405) -> name (400) -> declared length (413 above the largest object
 *   size, 400 for a size no profile has) -> proof of work (403 with a
 *   challenge) -> replay cache (403, or 429 when full) -> for PUT:
 *   uploads in memory (429), name taken (409), room (507) -> body (413
 *   past the largest size, 400 when its size is no profile's) -> store
 *   (201, 409, 507).
 *
 * The answers themselves are built in reply.c, the cheap checks are in
 * gate.c, the connection deadlines in slots.c.
 */
#include <config.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <microhttpd.h>
#include "http.h"
#include "gate.h"
#include "load.h"
#include "reaper.h"
#include "reply.h"
#include "slots.h"

#define HDR_POW "Keysafe-PoW"
#define HDR_CHALLENGE "Keysafe-Challenge"
/* The request line and the headers share this pool with the parsed
 * header table and the answer's head; libmicrohttpd answers 431 (414
 * for a long request line) when they do not fit.  32 KiB of pool holds
 * the 16 KiB of head section 12 promises with room to spare.  */
#define CONN_MEMORY_LIMIT (32 * 1024)
/* The share of the connection slots waiting connections may take; the
 * rest stays for connections with a request in progress.  */
#define WAITING_SHARE(n) ((n) - (n) / 4)

struct ks_http
{
  ks_server_opts_t opts;
  ks_store_t *store;
  struct MHD_Daemon *daemon;
  ks_pow_key_t *powkey;
  ks_load_t *load;
  ks_growth_t *growth;
  ks_replay_t *replay;
  ks_slots_t *slots;
  ks_reaper_t *reaper;
  pthread_mutex_t lock;        /* guards uploads */
  unsigned int uploads;
  size_t sizes[8];             /* the object sizes a PUT may have */
  unsigned int nsizes;
};

/* State of a PUT between its callbacks.  */
typedef struct request
{
  char name[KS_NAME_HEX_LEN + 1];
  ks_buf_t *body;
  int holds_upload;        /* counted in http->uploads */
} request_t;

/* Marks a request without a body whose answer waits for the second
 * call: libmicrohttpd 0.9.75 closes the connection after any response
 * queued on the first call, so answering there would cost every GET a
 * new connection (a new Tor stream for a client behind Tor).  */
static int deferred_marker;
/* Marks a request whose raw target failed the gate.  */
static int bad_target_marker;

#define IS_MARKER(p) ((p) == (void *)&deferred_marker \
                      || (p) == (void *)&bad_target_marker)

static uint64_t
now_seconds (void)
{
  return (uint64_t)time (NULL);
}

/* MHD's own messages can name client addresses; they are dropped.  */
static void
mhd_logger (void *cls, const char *fmt, va_list ap)
{
  (void)cls; (void)fmt; (void)ap;
}

/* libmicrohttpd 0.9.75 hands the access handler the target after
 * %-decoding, cut at a NUL and without an empty '?', so the raw target
 * is checked here, where it still is as sent.  URI points into MHD's
 * read buffer right after the separator it cut the request line at.  */
static void *
uri_logger (void *cls, const char *uri, struct MHD_Connection *conn)
{
  (void)cls; (void)conn;
  /* A request line with a method but no target ("GET \r\n") comes
   * here with URI NULL: there is no separator to look at.  */
  if (!uri)
    return &bad_target_marker;
  return ks_gate_raw_uri_is_clean (uri, uri[-1]) ? NULL
         : &bad_target_marker;
}


/* The difficulties.  */

/* The difficulty a request asks for at NOW (*R_WANT) and the least a
 * proof may have (*R_MIN): one bit of slack, never below the floor.  */
static void
difficulty (ks_http_t *http, int is_put, uint64_t now,
            unsigned int *r_want, unsigned int *r_min)
{
  unsigned int want, floor, extra = 0;
  uint64_t bytes, files;

  want = ks_load_difficulty (http->load, now);
  floor = http->opts.pow_difficulty;
  if (is_put)
    {
      extra = http->opts.pow_put_bits;
      if (!ks_store_free_space (http->store, &bytes, &files))
        extra += ks_growth_bits (http->growth, now, bytes, files);
      want += extra;
      floor += http->opts.pow_put_bits;
    }
  if (want > KS_POW_MAX_DIFFICULTY)
    want = KS_POW_MAX_DIFFICULTY;
  if (floor > KS_POW_MAX_DIFFICULTY)
    floor = KS_POW_MAX_DIFFICULTY;
  *r_want = want;
  *r_min = want > floor ? want - 1 : floor;
}

/* 403 with a fresh challenge for this request.  */
static enum MHD_Result
reply_challenge (ks_http_t *http, struct MHD_Connection *conn,
                 const char *method, const char *name,
                 unsigned int want, const char *why)
{
  char chal[KS_POW_CHALLENGE_SIZE];
  uint64_t stamp = now_seconds ();
  gpg_error_t err;

  stamp -= http->opts.test_challenge_age;
  err = ks_pow_challenge (http->powkey, want, method, name, stamp,
                          chal, sizeof chal);
  if (err)
    {
      gpgrt_log_error ("%s: %s\n", _("making a challenge failed"),
                       gpg_strerror (err));
      return ks_reply_status (conn, MHD_HTTP_INTERNAL_SERVER_ERROR);
    }
  return ks_reply_text (conn, MHD_HTTP_FORBIDDEN, why, HDR_CHALLENGE, chal);
}

/* Check the proof of work.  Returns 0 to go on, else the status already
 * queued (403 or 429) in *R_RET.  Only a proof that passed every check
 * counts as load: requests that paid nothing cannot raise the price
 * for everyone else.  */
static int
gate_pow (ks_http_t *http, struct MHD_Connection *conn, const char *method,
          const char *name, enum MHD_Result *r_ret)
{
  uint64_t now;
  unsigned int want, min;
  const char *proof, *why;
  uint8_t id[KS_POW_ID_LEN];
  gpg_error_t err;

  /* Proof of work off: the load only ever raises a base difficulty
   * above zero, so there is nothing to count or check.  */
  if (!http->opts.pow_difficulty)
    return 0;
  now = now_seconds ();
  difficulty (http, !strcmp (method, "PUT"), now, &want, &min);

  proof = MHD_lookup_connection_value (conn, MHD_HEADER_KIND, HDR_POW);
  if (!proof)
    {
      *r_ret = reply_challenge (http, conn, method, name, want,
                                "proof of work required\n");
      return 1;
    }
  err = ks_pow_check (http->powkey, proof, method, name, min, now, id);
  if (!err)
    err = ks_replay_add (http->replay, id, now + KS_POW_WINDOW, now);
  switch (gpg_err_code (err))
    {
    case GPG_ERR_NO_ERROR:
      ks_load_note (http->load, now);
      return 0;
    case GPG_ERR_EAGAIN:
      *r_ret = ks_reply_status (conn, MHD_HTTP_TOO_MANY_REQUESTS);
      return 1;
    case GPG_ERR_TIMEOUT:   why = "proof of work stale\n"; break;
    case GPG_ERR_DUP_VALUE: why = "proof of work already used\n"; break;
    case GPG_ERR_TOO_SHORT: why = "proof of work too easy\n"; break;
    default:                why = "proof of work invalid\n"; break;
    }
  *r_ret = reply_challenge (http, conn, method, name, want, why);
  return 1;
}


/* PUT.  */

static void
release_upload (ks_http_t *http, request_t *req)
{
  if (!req->holds_upload)
    return;
  pthread_mutex_lock (&http->lock);
  http->uploads--;
  pthread_mutex_unlock (&http->lock);
  req->holds_upload = 0;
}

static size_t
largest_size (ks_http_t *http)
{
  return http->sizes[http->nsizes - 1];
}

/* The first call of a PUT: everything but the body.  */
static enum MHD_Result
put_begin (ks_http_t *http, struct MHD_Connection *conn, const char *name,
           void **con_cls)
{
  enum MHD_Result ret;
  request_t *req;
  ks_gate_body_t body;
  unsigned int status = 0;
  int full;

  if (ks_gate_body (conn, &body))
    return ks_reply_status (conn, MHD_HTTP_BAD_REQUEST);
  if (body.has_length && body.length > largest_size (http))
    return ks_reply_status (conn, MHD_HTTP_CONTENT_TOO_LARGE);
  if (body.has_length
      && !ks_gate_size_is_known (http->sizes, http->nsizes, body.length))
    return ks_reply_status (conn, MHD_HTTP_BAD_REQUEST);

  if (gate_pow (http, conn, "PUT", name, &ret))
    return ret;

  req = calloc (1, sizeof *req);
  if (!req)
    return ks_reply_status (conn, MHD_HTTP_INTERNAL_SERVER_ERROR);
  memcpy (req->name, name, KS_NAME_HEX_LEN + 1);
  pthread_mutex_lock (&http->lock);
  full = http->uploads >= http->opts.max_uploads;
  if (!full)
    {
      http->uploads++;
      req->holds_upload = 1;
    }
  pthread_mutex_unlock (&http->lock);

  if (full)
    status = MHD_HTTP_TOO_MANY_REQUESTS;
  else if (ks_store_has (http->store, name))
    status = MHD_HTTP_CONFLICT;
  else if (gpg_err_code (ks_store_room (http->store, body.length,
                                        http->opts.reserve_bytes))
           == GPG_ERR_ENOSPC)
    status = MHD_HTTP_INSUFFICIENT_STORAGE;
  else if (ks_buf_new (largest_size (http), 0, &req->body))
    status = MHD_HTTP_INTERNAL_SERVER_ERROR;
  if (status)
    {
      /* Answer now; MHD then closes the connection instead of reading a
       * body nobody wants.  */
      release_upload (http, req);
      free (req);
      return ks_reply_status (conn, status);
    }
  *con_cls = req;
  return MHD_YES;
}

/* Further calls of a PUT: body data, then the end.  */
static enum MHD_Result
put_continue (ks_http_t *http, struct MHD_Connection *conn, request_t *req,
              const char *data, size_t *size)
{
  gpg_error_t err;
  const union MHD_ConnectionInfo *ci;
  size_t len;

  if (*size)
    {
      err = ks_buf_append (req->body, data, *size);
      if (err)
        {
          /* Over the limit while streaming (a chunked body), or out of
           * memory: drop what we have, answer at once and close; the
           * rest of the body is never read.  Nothing was written to
           * the store.  The lingering close is the reaper's, so this
           * worker goes straight back to the other connections.  */
          KS_BUF_FREE (req->body);
          release_upload (http, req);
          if (ks_reply_cut (conn, gpg_err_code (err) == GPG_ERR_TOO_LARGE
                                  ? MHD_HTTP_CONTENT_TOO_LARGE
                                  : MHD_HTTP_INTERNAL_SERVER_ERROR)
              && (ci = MHD_get_connection_info
                  (conn, MHD_CONNECTION_INFO_CONNECTION_FD)))
            ks_reaper_take (http->reaper, ci->connect_fd);
          return MHD_NO;
        }
      *size = 0;
      return MHD_YES;
    }

  /* The whole body is in.  A body of a size no profile has (a chunked
   * one; a declared length was checked up front) is malformed.  */
  len = req->body->len;
  if (!ks_gate_size_is_known (http->sizes, http->nsizes, len))
    err = gpg_error (GPG_ERR_NO_DATA);
  else
    err = ks_store_put (http->store, req->name, req->body->data, len,
                        http->opts.reserve_bytes);
  KS_BUF_FREE (req->body);
  release_upload (http, req);
  if (!err)
    ks_growth_note (http->growth, len, now_seconds ());
  if (ks_reply_status_of_error (err) == MHD_HTTP_INTERNAL_SERVER_ERROR)
    gpgrt_log_error ("%s: %s\n", _("storing a shard failed"),
                     gpg_strerror (err));
  return ks_reply_status (conn, ks_reply_status_of_error (err));
}


/* The handler.  */

/* The first call of any request.  Returns 1 when an answer is queued
 * (in *R_RET) or the request is deferred, 0 to go on at once (a shard
 * PUT).  */
static int
first_call (ks_http_t *http, struct MHD_Connection *conn, const char *url,
            const char *method, const char *version, void **con_cls,
            enum MHD_Result *r_ret)
{
  ks_gate_body_t body;
  const union MHD_ConnectionInfo *ci;
  unsigned int status;
  int is_shard, is_info;

  ci = MHD_get_connection_info (conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
  if (ci)
    ks_slots_busy (http->slots, ci->socket_context, now_seconds ());
  status = ks_gate_version (version);
  if (!status && *con_cls == &bad_target_marker)
    status = MHD_HTTP_BAD_REQUEST;
  *con_cls = NULL;
  if (status)
    {
      *r_ret = ks_reply_status (conn, status);
      return 1;
    }
  is_shard = !strncmp (url, KS_GATE_PATH_SHARD, strlen (KS_GATE_PATH_SHARD));
  is_info = !strcmp (url, KS_GATE_PATH_INFO);
  if (is_shard && !strcmp (method, MHD_HTTP_METHOD_PUT))
    return 0;

  /* Anything but a shard PUT: a body here is never wanted, so refuse
   * it at once (the connection then closes).  */
  if (ks_gate_body (conn, &body) || body.lengths || body.codings)
    {
      if (!is_info && !is_shard)
        *r_ret = ks_reply_status (conn, MHD_HTTP_NOT_FOUND);
      else if (!strcmp (method, MHD_HTTP_METHOD_GET))
        *r_ret = ks_reply_status (conn, MHD_HTTP_BAD_REQUEST);
      else
        *r_ret = ks_reply_not_allowed (conn, is_info);
      return 1;
    }
  *con_cls = &deferred_marker;
  *r_ret = MHD_YES;
  return 1;
}

static enum MHD_Result
access_handler (void *cls, struct MHD_Connection *conn, const char *url,
                const char *method, const char *version,
                const char *upload_data, size_t *upload_data_size,
                void **con_cls)
{
  ks_http_t *http = cls;
  request_t *req = *con_cls;
  enum MHD_Result ret;
  char name[KS_NAME_HEX_LEN + 1];
  int is_get, is_put;

  if (req && !IS_MARKER (req))
    return put_continue (http, conn, req, upload_data, upload_data_size);
  if (req != (void *)&deferred_marker
      && first_call (http, conn, url, method, version, con_cls, &ret))
    return ret;
  if (*upload_data_size)
    {
      *upload_data_size = 0;   /* cannot happen: no body was announced */
      return MHD_YES;
    }

  is_get = !strcmp (method, MHD_HTTP_METHOD_GET);
  is_put = !strcmp (method, MHD_HTTP_METHOD_PUT);
  if (!strcmp (url, KS_GATE_PATH_INFO))
    {
      if (!is_get)
        return ks_reply_not_allowed (conn, 1);
      return ks_reply_info (conn, http->sizes, http->nsizes,
                            ks_load_difficulty (http->load, now_seconds ()),
                            http->opts.pow_difficulty
                            ? http->opts.pow_put_bits : 0);
    }
  if (strncmp (url, KS_GATE_PATH_SHARD, strlen (KS_GATE_PATH_SHARD)))
    return ks_reply_status (conn, MHD_HTTP_NOT_FOUND);
  if (!is_get && !is_put)
    return ks_reply_not_allowed (conn, 0);
  if (ks_gate_shard_name (url, name))
    return ks_reply_status (conn, MHD_HTTP_BAD_REQUEST);

  if (is_put)
    return put_begin (http, conn, name, con_cls);
  if (gate_pow (http, conn, "GET", name, &ret))
    return ret;
  return ks_reply_shard (conn, http->store, name);
}

static void
request_completed (void *cls, struct MHD_Connection *conn, void **con_cls,
                   enum MHD_RequestTerminationCode toe)
{
  ks_http_t *http = cls;
  request_t *req = *con_cls;
  const union MHD_ConnectionInfo *ci;

  (void)toe;
  if (req && !IS_MARKER (req))
    {
      KS_BUF_FREE (req->body);
      release_upload (http, req);
      free (req);
    }
  *con_cls = NULL;
  /* The connection waits for its next request.  */
  ci = MHD_get_connection_info (conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
  if (ci)
    ks_slots_idle (http->slots, ci->socket_context, now_seconds ());
}

static void
connection_notify (void *cls, struct MHD_Connection *conn,
                   void **socket_context,
                   enum MHD_ConnectionNotificationCode toe)
{
  ks_http_t *http = cls;
  const union MHD_ConnectionInfo *ci;

  if (toe == MHD_CONNECTION_NOTIFY_STARTED)
    {
      ci = MHD_get_connection_info (conn, MHD_CONNECTION_INFO_CONNECTION_FD);
      *socket_context = ks_slots_open (http->slots, ci ? ci->connect_fd : -1,
                                       now_seconds ());
    }
  else if (toe == MHD_CONNECTION_NOTIFY_CLOSED)
    {
      ks_slots_close (http->slots, *socket_context);
      *socket_context = NULL;
    }
}

void
ks_http_sweep (ks_http_t *http)
{
  if (http)
    ks_slots_sweep (http->slots, now_seconds ());
}

static gpg_error_t
start_daemon (ks_http_t *http)
{
  const ks_server_opts_t *opts = &http->opts;
  unsigned int flags;

  flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_USE_ERROR_LOG;
  if (opts->addr.ss_family == AF_INET6)
    flags |= MHD_USE_IPv6;
  http->daemon = MHD_start_daemon
    (flags, 0, NULL, NULL, access_handler, http,
     MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&http->opts.addr,
     MHD_OPTION_THREAD_POOL_SIZE,
     (unsigned int)(opts->threads ? opts->threads : 1),
     MHD_OPTION_CONNECTION_LIMIT, opts->max_connections,
     MHD_OPTION_PER_IP_CONNECTION_LIMIT, opts->max_per_address,
     MHD_OPTION_CONNECTION_TIMEOUT, opts->idle_timeout,
     MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)CONN_MEMORY_LIMIT,
     MHD_OPTION_LISTEN_BACKLOG_SIZE, 1024u,
     /* Level 1: a request without Host, or with spaces where none
      * belong, is refused.  */
     MHD_OPTION_STRICT_FOR_CLIENT, 1,
     MHD_OPTION_URI_LOG_CALLBACK, uri_logger, http,
     MHD_OPTION_NOTIFY_COMPLETED, request_completed, http,
     MHD_OPTION_NOTIFY_CONNECTION, connection_notify, http,
     MHD_OPTION_EXTERNAL_LOGGER, mhd_logger, http,
     MHD_OPTION_END);
  if (!http->daemon)
    return gpg_error (errno ? gpg_err_code_from_errno (errno)
                            : GPG_ERR_GENERAL);
  return 0;
}

gpg_error_t
ks_http_start (const ks_server_opts_t *opts, ks_store_t *store,
               ks_http_t **r_http)
{
  gpg_error_t err;
  ks_http_t *http;

  *r_http = NULL;
  http = calloc (1, sizeof *http);
  if (!http)
    return gpg_error_from_syserror ();
  http->opts = *opts;
  http->store = store;
  pthread_mutex_init (&http->lock, NULL);
  err = ks_gate_profile_sizes (opts->max_shard_bytes, http->sizes,
                               KS_DIM (http->sizes), &http->nsizes);
  if (!err)
    err = ks_pow_key_new (&http->powkey);
  if (!err)
    err = ks_load_new (opts->pow_difficulty, opts->pow_load_rps, &http->load);
  if (!err)
    err = ks_growth_new (opts->fill_months, &http->growth);
  if (!err)
    err = ks_replay_new (opts->replay_slots, &http->replay);
  if (!err)
    err = ks_slots_new (WAITING_SHARE (opts->max_connections),
                        opts->head_timeout, opts->idle_timeout,
                        opts->request_timeout,
                        &http->slots);
  if (!err)
    err = ks_reaper_new (&http->reaper);
  if (!err)
    err = start_daemon (http);
  if (err)
    goto leave;
  *r_http = http;
  http = NULL;

 leave:
  ks_http_stop (http);
  return err;
}

unsigned int
ks_http_port (ks_http_t *http)
{
  const union MHD_DaemonInfo *di;

  di = MHD_get_daemon_info (http->daemon, MHD_DAEMON_INFO_BIND_PORT);
  return di ? di->port : 0;
}

void
ks_http_stop (ks_http_t *http)
{
  if (!http)
    return;
  if (http->daemon)
    MHD_stop_daemon (http->daemon);
  ks_reaper_free (http->reaper);
  ks_slots_free (http->slots);
  ks_replay_free (http->replay);
  ks_growth_free (http->growth);
  ks_load_free (http->load);
  ks_pow_key_free (http->powkey);
  pthread_mutex_destroy (&http->lock);
  free (http);
}
