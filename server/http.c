/* http.c - the HTTP face of keysafe-server (libmicrohttpd)
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Every request passes the same gate, in this order, so the cheap checks
 * come first and nothing costly is done for a request that has not paid
 * its proof of work:
 *
 *   path and method (404, 405) -> name and query (400) -> declared length
 *   (413) -> proof of work (403 with a challenge) -> replay cache (403,
 *   or 429 when full) -> for PUT: uploads in memory (429), name taken
 *   (409), reserve (507) -> body (413 past the limit, 400 when empty)
 *   -> store (201, 409, 507).
 *
 * The answers themselves are built in reply.c.
 */
#include <config.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <microhttpd.h>
#include "http.h"
#include "load.h"
#include "reply.h"

#define PATH_SHARD "/v1/shard/"
#define PATH_INFO "/v1/info"
#define HDR_POW "Keysafe-PoW"
#define HDR_CHALLENGE "Keysafe-Challenge"
/* Headers and the request line must fit in this; a request with more
 * gets MHD's 431.  MHD zeroes the whole pool after every request, so it
 * is kept small: 16 KiB holds any request a client sends (a proof of
 * work header is under 200 bytes) with room for the answer's head.  */
#define CONN_MEMORY_LIMIT (16 * 1024)

/* What a connection is doing, for the request deadline.  */
typedef struct conn_track
{
  struct conn_track *next, *prev;
  int fd;
  int cut;
  uint64_t since;       /* start of the current request (or idle time);
                         * written by the connection's thread without
                         * the lock, so accessed atomically */
} conn_track_t;

struct ks_http
{
  ks_server_opts_t opts;
  ks_store_t *store;
  struct MHD_Daemon *daemon;
  ks_pow_key_t *powkey;
  ks_load_t *load;
  ks_replay_t *replay;
  pthread_mutex_t lock;        /* guards uploads and the track list */
  unsigned int uploads;
  conn_track_t *tracks;
};

/* State of a PUT between its callbacks.  */
typedef struct request
{
  char name[KS_NAME_HEX_LEN + 1];
  ks_buf_t *body;
  int holds_upload;        /* counted in http->uploads */
} request_t;

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


/* 403 with a fresh challenge for this request.  */
static enum MHD_Result
reply_challenge (ks_http_t *http, struct MHD_Connection *conn,
                 const char *method, const char *name,
                 unsigned int difficulty, const char *why)
{
  char chal[KS_POW_CHALLENGE_SIZE];
  uint64_t stamp = now_seconds ();
  gpg_error_t err;

  stamp -= http->opts.test_challenge_age;
  err = ks_pow_challenge (http->powkey, difficulty, method, name, stamp,
                          chal, sizeof chal);
  if (err)
    {
      gpgrt_log_error ("%s: %s\n", _("making a challenge failed"),
                       gpg_strerror (err));
      return ks_reply_status (conn, MHD_HTTP_INTERNAL_SERVER_ERROR);
    }
  return ks_reply_text (conn, MHD_HTTP_FORBIDDEN, why, HDR_CHALLENGE, chal);
}



/* The gate.  */

/* Count query arguments: a shard request has none.  */
static enum MHD_Result
count_arg (void *cls, enum MHD_ValueKind kind, const char *key,
           const char *value)
{
  (void)kind; (void)key; (void)value;
  (*(unsigned int *)cls)++;
  return MHD_YES;
}

/* Count Content-Length and Transfer-Encoding headers: two lengths, or a
 * length with a coding, are how requests get smuggled past proxies.  */
typedef struct hdr_count
{
  unsigned int lengths;
  unsigned int codings;
  unsigned int unknown_coding;   /* anything but "chunked" */
} hdr_count_t;

static enum MHD_Result
count_header (void *cls, enum MHD_ValueKind kind, const char *key,
              const char *value)
{
  hdr_count_t *hc = cls;

  (void)kind; (void)value;
  if (!strcasecmp (key, MHD_HTTP_HEADER_CONTENT_LENGTH))
    hc->lengths++;
  else if (!strcasecmp (key, MHD_HTTP_HEADER_TRANSFER_ENCODING))
    {
      hc->codings++;
      if (!value || strcasecmp (value, "chunked"))
        hc->unknown_coding++;
    }
  return MHD_YES;
}

/* Parse a decimal Content-Length; MHD has already refused a malformed
 * one, so this only guards against surprises.  */
static int
declared_length (struct MHD_Connection *conn, uint64_t *r_len)
{
  const char *s = MHD_lookup_connection_value (conn, MHD_HEADER_KIND,
                                               MHD_HTTP_HEADER_CONTENT_LENGTH);
  uint64_t v = 0;

  *r_len = 0;
  if (!s)
    return 0;
  if (!*s)
    return -1;
  for (; *s; s++)
    {
      if (*s < '0' || *s > '9' || v > (UINT64_MAX - 9) / 10)
        return -1;
      v = v * 10 + (*s - '0');
    }
  *r_len = v;
  return 1;
}

/* Check the proof of work.  Returns 0 to go on, else the status already
 * queued (403 or 429) in *R_RET.  */
static int
gate_pow (ks_http_t *http, struct MHD_Connection *conn, const char *method,
          const char *name, enum MHD_Result *r_ret)
{
  uint64_t now;
  unsigned int difficulty;
  const char *proof;
  uint8_t id[KS_POW_ID_LEN];
  gpg_error_t err;

  /* Proof of work off: the load only ever raises a base difficulty
   * above zero, so there is nothing to count or check.  */
  if (!http->opts.pow_difficulty)
    return 0;
  now = now_seconds ();
  ks_load_note (http->load, now);
  difficulty = ks_load_difficulty (http->load, now);
  if (!difficulty)
    return 0;

  proof = MHD_lookup_connection_value (conn, MHD_HEADER_KIND, HDR_POW);
  if (!proof)
    {
      *r_ret = reply_challenge (http, conn, method, name, difficulty,
                                "proof of work required\n");
      return 1;
    }
  err = ks_pow_check (http->powkey, proof, method, name,
                      ks_load_min_difficulty (http->load, now), now, id);
  if (!err)
    err = ks_replay_add (http->replay, id, now + KS_POW_WINDOW, now);
  switch (gpg_err_code (err))
    {
    case GPG_ERR_NO_ERROR:
      return 0;
    case GPG_ERR_EAGAIN:
      *r_ret = ks_reply_status (conn, MHD_HTTP_TOO_MANY_REQUESTS);
      return 1;
    case GPG_ERR_TIMEOUT:
      *r_ret = reply_challenge (http, conn, method, name, difficulty,
                                "proof of work stale\n");
      return 1;
    case GPG_ERR_DUP_VALUE:
      *r_ret = reply_challenge (http, conn, method, name, difficulty,
                                "proof of work already used\n");
      return 1;
    case GPG_ERR_TOO_SHORT:
      *r_ret = reply_challenge (http, conn, method, name, difficulty,
                                "proof of work too easy\n");
      return 1;
    default:
      *r_ret = reply_challenge (http, conn, method, name, difficulty,
                                "proof of work invalid\n");
      return 1;
    }
}

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

/* The first call of a PUT: everything but the body.  */
static enum MHD_Result
put_begin (ks_http_t *http, struct MHD_Connection *conn, const char *name,
           void **con_cls)
{
  enum MHD_Result ret;
  request_t *req;
  uint64_t declared, avail;
  unsigned int status = 0;
  int has_len, full;
  hdr_count_t hc = { 0, 0, 0 };

  MHD_get_connection_values (conn, MHD_HEADER_KIND, count_header, &hc);
  if (hc.lengths > 1 || hc.codings > 1 || hc.unknown_coding
      || (hc.lengths && hc.codings))
    return ks_reply_status (conn, MHD_HTTP_BAD_REQUEST);
  has_len = declared_length (conn, &declared);
  if (has_len < 0)
    return ks_reply_status (conn, MHD_HTTP_BAD_REQUEST);
  if (has_len && declared > http->opts.max_shard_bytes)
    return ks_reply_status (conn, MHD_HTTP_CONTENT_TOO_LARGE);
  if (has_len && !declared)
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
  else if (!ks_store_free_bytes (http->store, &avail)
           && (avail < http->opts.reserve_bytes
               || avail - http->opts.reserve_bytes < declared))
    status = MHD_HTTP_INSUFFICIENT_STORAGE;
  else if (ks_buf_new (http->opts.max_shard_bytes, 0, &req->body))
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

  if (*size)
    {
      err = ks_buf_append (req->body, data, *size);
      if (err)
        {
          /* Over the limit while streaming (a chunked body), or out of
           * memory: drop what we have, answer at once and close; the
           * rest of the body is never read.  Nothing was written to
           * the store.  */
          KS_BUF_FREE (req->body);
          release_upload (http, req);
          ks_reply_cut (conn, gpg_err_code (err) == GPG_ERR_TOO_LARGE
                           ? MHD_HTTP_CONTENT_TOO_LARGE
                           : MHD_HTTP_INTERNAL_SERVER_ERROR);
          return MHD_NO;
        }
      *size = 0;
      return MHD_YES;
    }

  /* The whole body is in.  */
  if (!req->body->len)
    err = gpg_error (GPG_ERR_NO_DATA);  /* an empty shard is malformed */
  else
    err = ks_store_put (http->store, req->name, req->body->data,
                        req->body->len, http->opts.reserve_bytes);
  KS_BUF_FREE (req->body);
  release_upload (http, req);
  if (ks_reply_status_of_error (err) == MHD_HTTP_INTERNAL_SERVER_ERROR)
    gpgrt_log_error ("%s: %s\n", _("storing a shard failed"),
                     gpg_strerror (err));
  return ks_reply_status (conn, ks_reply_status_of_error (err));
}

/* Marks a request without a body whose answer waits for the second
 * call: libmicrohttpd 0.9.75 closes the connection after any response
 * queued on the first call, so answering there would cost every GET a
 * new connection (a new Tor stream for a client behind Tor).  */
static int deferred_marker;

static enum MHD_Result
access_handler (void *cls, struct MHD_Connection *conn, const char *url,
                const char *method, const char *version,
                const char *upload_data, size_t *upload_data_size,
                void **con_cls)
{
  ks_http_t *http = cls;
  request_t *req = *con_cls;
  enum MHD_Result ret;
  const char *name;
  unsigned int nargs = 0;
  int is_get, is_put, is_shard, is_info;
  hdr_count_t hc = { 0, 0, 0 };

  (void)version;
  if (req && *con_cls != &deferred_marker)
    return put_continue (http, conn, req, upload_data, upload_data_size);

  is_get = !strcmp (method, MHD_HTTP_METHOD_GET);
  is_put = !strcmp (method, MHD_HTTP_METHOD_PUT);
  is_shard = !strncmp (url, PATH_SHARD, strlen (PATH_SHARD));
  is_info = !strcmp (url, PATH_INFO);

  if (!req && !(is_put && is_shard))
    {
      /* First call of anything but a shard PUT.  A body here is never
       * wanted: refuse it at once (the connection then closes).  */
      MHD_get_connection_values (conn, MHD_HEADER_KIND, count_header, &hc);
      if ((hc.lengths || hc.codings) && !is_info && !is_shard)
        return ks_reply_status (conn, MHD_HTTP_NOT_FOUND);
      if ((hc.lengths || hc.codings) && is_get)
        return ks_reply_status (conn, MHD_HTTP_BAD_REQUEST);
      if (hc.lengths || hc.codings)
        return ks_reply_not_allowed (conn, is_info);
      *con_cls = &deferred_marker;
      return MHD_YES;
    }
  if (req && *upload_data_size)
    {
      *upload_data_size = 0;   /* cannot happen: no body was announced */
      return MHD_YES;
    }

  if (is_info && !is_get)
    return ks_reply_not_allowed (conn, 1);
  if (is_info)
    return ks_reply_info (conn, http->opts.max_shard_bytes,
                          ks_load_difficulty (http->load, now_seconds ()));
  if (!is_shard)
    return ks_reply_status (conn, MHD_HTTP_NOT_FOUND);
  if (!is_get && !is_put)
    return ks_reply_not_allowed (conn, 0);
  name = url + strlen (PATH_SHARD);
  MHD_get_connection_values (conn, MHD_GET_ARGUMENT_KIND, count_arg, &nargs);
  if (!ks_store_name_is_valid (name) || nargs)
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
  conn_track_t *t;

  (void)toe;
  if (req == (void *)&deferred_marker)
    *con_cls = NULL;
  else if (req)
    {
      KS_BUF_FREE (req->body);
      release_upload (http, req);
      free (req);
      *con_cls = NULL;
    }
  /* The next request on this connection gets a fresh deadline.  */
  ci = MHD_get_connection_info (conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
  if (ci && (t = ci->socket_context))
    __atomic_store_n (&t->since, now_seconds (), __ATOMIC_RELAXED);
}

static void
connection_notify (void *cls, struct MHD_Connection *conn,
                   void **socket_context, enum MHD_ConnectionNotificationCode toe)
{
  ks_http_t *http = cls;
  const union MHD_ConnectionInfo *ci;
  conn_track_t *t;

  if (toe == MHD_CONNECTION_NOTIFY_STARTED)
    {
      t = calloc (1, sizeof *t);
      if (!t)
        return;   /* Not tracked: only the idle timeout applies.  */
      ci = MHD_get_connection_info (conn, MHD_CONNECTION_INFO_CONNECTION_FD);
      t->fd = ci ? ci->connect_fd : -1;
      t->since = now_seconds ();
      pthread_mutex_lock (&http->lock);
      t->next = http->tracks;
      if (t->next)
        t->next->prev = t;
      http->tracks = t;
      pthread_mutex_unlock (&http->lock);
      *socket_context = t;
    }
  else if (toe == MHD_CONNECTION_NOTIFY_CLOSED && (t = *socket_context))
    {
      pthread_mutex_lock (&http->lock);
      if (t->prev)
        t->prev->next = t->next;
      else
        http->tracks = t->next;
      if (t->next)
        t->next->prev = t->prev;
      pthread_mutex_unlock (&http->lock);
      free (t);
      *socket_context = NULL;
    }
}

void
ks_http_sweep (ks_http_t *http)
{
  uint64_t now = now_seconds (), since;
  conn_track_t *t;

  if (!http || !http->opts.request_timeout)
    return;
  /* The track is removed under this lock before MHD closes the socket,
   * so the descriptor cut here is still that connection's.  shutdown(2)
   * makes MHD see the end of the stream and close it the usual way.  */
  pthread_mutex_lock (&http->lock);
  for (t = http->tracks; t; t = t->next)
    if (!t->cut && t->fd >= 0
        && now >= (since = __atomic_load_n (&t->since, __ATOMIC_RELAXED))
        && now - since >= http->opts.request_timeout)
      {
        shutdown (t->fd, SHUT_RDWR);
        t->cut = 1;
      }
  pthread_mutex_unlock (&http->lock);
}

gpg_error_t
ks_http_start (const ks_server_opts_t *opts, ks_store_t *store,
               ks_http_t **r_http)
{
  gpg_error_t err;
  ks_http_t *http;
  unsigned int flags;

  *r_http = NULL;
  http = calloc (1, sizeof *http);
  if (!http)
    return gpg_error_from_syserror ();
  http->opts = *opts;
  http->store = store;
  pthread_mutex_init (&http->lock, NULL);
  err = ks_pow_key_new (&http->powkey);
  if (!err)
    err = ks_load_new (opts->pow_difficulty, opts->pow_load_rps, &http->load);
  if (!err)
    err = ks_replay_new (opts->replay_slots, &http->replay);
  if (err)
    goto leave;

  flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_USE_ERROR_LOG;
  if (opts->addr.ss_family == AF_INET6)
    flags |= MHD_USE_IPv6;
  http->daemon = MHD_start_daemon
    (flags, 0, NULL, NULL, access_handler, http,
     MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&http->opts.addr,
     MHD_OPTION_THREAD_POOL_SIZE, (unsigned int)(opts->threads ? opts->threads : 1),
     MHD_OPTION_CONNECTION_LIMIT, opts->max_connections,
     MHD_OPTION_PER_IP_CONNECTION_LIMIT, opts->max_per_address,
     MHD_OPTION_CONNECTION_TIMEOUT, opts->idle_timeout,
     MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)CONN_MEMORY_LIMIT,
     MHD_OPTION_LISTEN_BACKLOG_SIZE, 1024u,
     /* Level 1: a request without Host, or with spaces where none
      * belong, is refused.  */
     MHD_OPTION_STRICT_FOR_CLIENT, 1,
     MHD_OPTION_NOTIFY_COMPLETED, request_completed, http,
     MHD_OPTION_NOTIFY_CONNECTION, connection_notify, http,
     MHD_OPTION_EXTERNAL_LOGGER, mhd_logger, http,
     MHD_OPTION_END);
  if (!http->daemon)
    {
      err = gpg_error (errno ? gpg_err_code_from_errno (errno)
                             : GPG_ERR_GENERAL);
      goto leave;
    }
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
  conn_track_t *t;

  if (!http)
    return;
  if (http->daemon)
    MHD_stop_daemon (http->daemon);
  while ((t = http->tracks))
    {
      http->tracks = t->next;
      free (t);
    }
  ks_replay_free (http->replay);
  ks_load_free (http->load);
  ks_pow_key_free (http->powkey);
  pthread_mutex_destroy (&http->lock);
  free (http);
}
