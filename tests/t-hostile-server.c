/* t-hostile-server.c - a shard server that misbehaves on purpose, for tests
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * It speaks keysafe's HTTP interface (doc/protocol.md section 12) on
 * 127.0.0.1 with libmicrohttpd, like keysafe-server, and logs every
 * shard request it gets, so a test can see what a client asked a server
 * it should not trust.  The command line is stable (other tests use it):
 *
 *   t-hostile-server --mode MODE --port-file FILE [--log FILE]
 *                    [--listen 127.0.0.1:PORT] [--difficulty D]
 *                    [--stall-seconds S]
 *
 * MODE is one of
 *   record    an honest in-memory store (PUT 201 or 409, GET 200 or
 *             404, no proof of work); only the log is hostile.
 *   greedy    every shard request gets 403 with a challenge of
 *             difficulty D (default 32) and a bad MAC: a client that
 *             pays it spends up to 2^D hashes for nothing.
 *   conflict  every PUT gets 409 ("name taken"), every GET 404.
 *   stall     every shard request waits S seconds (default 60) before
 *             an answer of 503; the connection stays open meanwhile.
 *   wrong     stores PUTs like record, but a GET of a stored name
 *             answers bytes of the same length with every bit flipped
 *             (a lying server), and 404 for the others.
 *   claim     claims every name: every GET answers 200 with 512 bytes
 *             of junk (the test profile's object size), every PUT 409.
 *
 * The log (--log, default stderr) gets one line per shard request, as it
 * arrives:  MS METHOD NAME STATUS  with MS the wall clock in
 * milliseconds since the epoch (CLOCK_REALTIME, comparable with
 * `date +%s%3N`), METHOD GET or PUT, NAME the 64-hex name (or "-"), and
 * STATUS the answer.  GET /v1/info answers a JSON line with the mode's
 * difficulty and is logged with NAME "info".
 *
 * It runs until SIGTERM or SIGINT.  Loopback only: --listen refuses any
 * address but 127.0.0.1.
 */
#include <config.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <time.h>
#include <unistd.h>
#include <pthread.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <microhttpd.h>
#include "keysafe.h"

#define MAX_SHARDS 4096
#define MAX_BODY (256 * 1024)
/* T || D || Q || M of protocol.md section 12.  */
#define CHALLENGE_LEN 41

enum mode { M_RECORD, M_GREEDY, M_CONFLICT, M_STALL, M_WRONG, M_CLAIM };

/* What a claim-mode GET answers (the test profile's object size).  */
#define CLAIM_LEN 512

struct shard
{
  char name[KS_NAME_HEX_LEN + 1];
  uint8_t *data;
  size_t len;
};

struct request
{
  uint8_t *body;
  size_t len;
  int too_large;
};

static enum mode mode;
static unsigned int difficulty = 32;
static unsigned int stall_seconds = 60;
static FILE *logfp;
static struct shard shards[MAX_SHARDS];
static unsigned int nshards;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static volatile sig_atomic_t stop;

static void
on_signal (int sig)
{
  (void)sig;
  stop = 1;
}

static void
log_request (const char *method, const char *name, unsigned int status)
{
  struct timespec ts;

  clock_gettime (CLOCK_REALTIME, &ts);
  pthread_mutex_lock (&lock);
  fprintf (logfp, "%llu %s %s %u\n",
           (unsigned long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000,
           method, name, status);
  fflush (logfp);
  pthread_mutex_unlock (&lock);
}

static int
name_is_hex64 (const char *s)
{
  size_t i;

  for (i = 0; i < KS_NAME_HEX_LEN; i++)
    if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
      return 0;
  return !s[i];
}

/* The stored shard NAME, or NULL.  Called with LOCK held.  */
static struct shard *
find_shard (const char *name)
{
  unsigned int i;

  for (i = 0; i < nshards; i++)
    if (!strcmp (shards[i].name, name))
      return &shards[i];
  return NULL;
}

static enum MHD_Result
reply (struct MHD_Connection *conn, unsigned int status, const void *data,
       size_t len, const char *ctype, const char *challenge)
{
  struct MHD_Response *r;
  enum MHD_Result ret;

  r = MHD_create_response_from_buffer (len, (void *)data,
                                       MHD_RESPMEM_MUST_COPY);
  if (!r)
    return MHD_NO;
  MHD_add_response_header (r, "Cache-Control", "no-store");
  if (ctype)
    MHD_add_response_header (r, "Content-Type", ctype);
  if (challenge)
    MHD_add_response_header (r, "Keysafe-Challenge", challenge);
  ret = MHD_queue_response (conn, status, r);
  MHD_destroy_response (r);
  return ret;
}

/* A challenge of the wanted difficulty whose MAC is random: well formed,
 * so a client reads D from it, but no proof for it is ever accepted.  */
static void
make_challenge (char *hex)
{
  uint8_t c[CHALLENGE_LEN];
  uint64_t t = (uint64_t)time (NULL);
  int i;

  for (i = 0; i < 8; i++)
    c[i] = (uint8_t)(t >> (56 - 8 * i));
  c[8] = (uint8_t)difficulty;
  gcry_randomize (c + 9, sizeof c - 9, GCRY_WEAK_RANDOM);
  ks_hex_encode (c, sizeof c, hex);
}

static unsigned int
do_put (const char *name, struct request *req)
{
  struct shard *s;
  unsigned int status;

  if (mode == M_CONFLICT || mode == M_CLAIM)
    return 409;
  pthread_mutex_lock (&lock);
  if (find_shard (name))
    status = 409;
  else if (nshards >= MAX_SHARDS)
    status = 507;
  else
    {
      s = &shards[nshards++];
      snprintf (s->name, sizeof s->name, "%s", name);
      s->data = req->body;
      s->len = req->len;
      req->body = NULL;
      status = 201;
    }
  pthread_mutex_unlock (&lock);
  return status;
}

static enum MHD_Result
do_get (struct MHD_Connection *conn, const char *name)
{
  struct shard *s;
  uint8_t *copy = NULL;
  size_t len = 0, i;
  enum MHD_Result ret;

  if (mode == M_CLAIM)
    {
      static uint8_t junk[CLAIM_LEN];

      memset (junk, 0x5a, sizeof junk);
      log_request ("GET", name, 200);
      return reply (conn, 200, junk, sizeof junk,
                    "application/octet-stream", NULL);
    }
  pthread_mutex_lock (&lock);
  s = mode == M_CONFLICT ? NULL : find_shard (name);
  if (s)
    {
      copy = malloc (s->len ? s->len : 1);
      if (copy)
        {
          memcpy (copy, s->data, s->len);
          len = s->len;
        }
    }
  pthread_mutex_unlock (&lock);
  if (!copy)
    {
      log_request ("GET", name, s ? 500 : 404);
      return reply (conn, s ? 500 : 404, "not found\n", s ? 0 : 10,
                    "text/plain", NULL);
    }
  if (mode == M_WRONG)
    for (i = 0; i < len; i++)
      copy[i] ^= 0xff;
  log_request ("GET", name, 200);
  ret = reply (conn, 200, copy, len, "application/octet-stream", NULL);
  free (copy);
  return ret;
}

static enum MHD_Result
answer_info (struct MHD_Connection *conn)
{
  char json[256];

  snprintf (json, sizeof json,
            "{\"software\":\"t-hostile-server\",\"version\":\"0\","
            "\"max_shard_bytes\":%u,\"object_sizes\":[%u],"
            "\"pow_difficulty\":%u,\"pow_put_extra_bits\":0}\n",
            (unsigned int)MAX_BODY, (unsigned int)MAX_BODY,
            mode == M_GREEDY ? difficulty : 0);
  log_request ("GET", "info", 200);
  return reply (conn, 200, json, strlen (json), "application/json", NULL);
}

/* Everything but the PUT body's arrival: the mode decides.  */
static enum MHD_Result
answer_shard (struct MHD_Connection *conn, const char *method,
              const char *name, struct request *req)
{
  char chal[CHALLENGE_LEN * 2 + 1];
  unsigned int status, i;

  if (mode == M_GREEDY)
    {
      make_challenge (chal);
      log_request (method, name, 403);
      return reply (conn, 403, "proof of work required\n", 23,
                    "text/plain", chal);
    }
  if (mode == M_STALL)
    {
      for (i = 0; i < stall_seconds * 10 && !stop; i++)
        usleep (100000);
      log_request (method, name, 503);
      return reply (conn, 503, "", 0, NULL, NULL);
    }
  if (!strcmp (method, "GET"))
    return do_get (conn, name);
  status = req->too_large ? 413 : do_put (name, req);
  log_request (method, name, status);
  return reply (conn, status, "", 0, NULL, NULL);
}

static enum MHD_Result
handler (void *cls, struct MHD_Connection *conn, const char *url,
         const char *method, const char *version, const char *data,
         size_t *data_size, void **con_cls)
{
  struct request *req = *con_cls;
  const char *name;

  (void)cls;
  (void)version;
  if (!req)
    {
      req = calloc (1, sizeof *req);
      if (!req)
        return MHD_NO;
      *con_cls = req;
      return MHD_YES;
    }
  if (*data_size)
    {
      if (req->len + *data_size > MAX_BODY)
        req->too_large = 1;
      else
        {
          uint8_t *n = realloc (req->body, req->len + *data_size);
          if (!n)
            return MHD_NO;
          req->body = n;
          memcpy (req->body + req->len, data, *data_size);
          req->len += *data_size;
        }
      *data_size = 0;
      return MHD_YES;
    }
  if (!strcmp (method, "GET") && !strcmp (url, "/v1/info"))
    return answer_info (conn);
  if (strncmp (url, "/v1/shard/", 10)
      || (strcmp (method, "GET") && strcmp (method, "PUT")))
    {
      log_request (method, "-", 404);
      return reply (conn, 404, "", 0, NULL, NULL);
    }
  name = url + 10;
  if (!name_is_hex64 (name))
    {
      log_request (method, "-", 400);
      return reply (conn, 400, "", 0, NULL, NULL);
    }
  return answer_shard (conn, method, name, req);
}

static void
completed (void *cls, struct MHD_Connection *conn, void **con_cls,
           enum MHD_RequestTerminationCode toe)
{
  struct request *req = *con_cls;

  (void)cls;
  (void)conn;
  (void)toe;
  if (req)
    {
      free (req->body);
      free (req);
    }
  *con_cls = NULL;
}

static int
parse_mode (const char *s)
{
  static const char *names[] = { "record", "greedy", "conflict", "stall",
                                 "wrong", "claim" };
  unsigned int i;

  for (i = 0; i < KS_DIM (names); i++)
    if (!strcmp (s, names[i]))
      {
        mode = (enum mode)i;
        return 0;
      }
  return -1;
}

static int
usage (void)
{
  fprintf (stderr, "usage: t-hostile-server --mode record|greedy|conflict|"
           "stall|wrong|claim --port-file FILE [--log FILE]\n"
           "       [--listen 127.0.0.1:PORT] [--difficulty D]"
           " [--stall-seconds S]\n");
  return 99;
}

static int
write_port (const char *file, unsigned int port)
{
  char tmp[4096];
  FILE *fp;

  snprintf (tmp, sizeof tmp, "%s.tmp", file);
  fp = fopen (tmp, "w");
  if (!fp || fprintf (fp, "%u\n", port) < 0 || fclose (fp))
    return -1;
  return rename (tmp, file);
}

int
main (int argc, char **argv)
{
  const char *portfile = NULL, *logfile = NULL, *listen = "127.0.0.1:0";
  struct MHD_Daemon *d;
  const union MHD_DaemonInfo *info;
  struct sockaddr_in sa;
  unsigned int port = 0;
  int i, have_mode = 0;

  for (i = 1; i + 1 < argc; i += 2)
    {
      if (!strcmp (argv[i], "--mode"))
        {
          if (parse_mode (argv[i + 1]))
            return usage ();
          have_mode = 1;
        }
      else if (!strcmp (argv[i], "--port-file"))
        portfile = argv[i + 1];
      else if (!strcmp (argv[i], "--log"))
        logfile = argv[i + 1];
      else if (!strcmp (argv[i], "--listen"))
        listen = argv[i + 1];
      else if (!strcmp (argv[i], "--difficulty"))
        difficulty = (unsigned int)atoi (argv[i + 1]);
      else if (!strcmp (argv[i], "--stall-seconds"))
        stall_seconds = (unsigned int)atoi (argv[i + 1]);
      else
        return usage ();
    }
  if (i != argc || !have_mode || !portfile || difficulty > 32
      || strncmp (listen, "127.0.0.1:", 10))
    return usage ();
  port = (unsigned int)atoi (listen + 10);
  if (port > 65535)
    return usage ();
  logfp = logfile ? fopen (logfile, "a") : stderr;
  if (!logfp)
    {
      perror (logfile);
      return 99;
    }
  gcry_check_version (NULL);
  gcry_control (GCRYCTL_INITIALIZATION_FINISHED, 0);
  signal (SIGTERM, on_signal);
  signal (SIGINT, on_signal);
  signal (SIGPIPE, SIG_IGN);

  memset (&sa, 0, sizeof sa);
  sa.sin_family = AF_INET;
  sa.sin_port = htons ((uint16_t)port);
  sa.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
  /* A thread per connection: a stalled answer holds only its own.  */
  d = MHD_start_daemon (MHD_USE_THREAD_PER_CONNECTION
                        | MHD_USE_INTERNAL_POLLING_THREAD,
                        0, NULL, NULL, handler, NULL,
                        MHD_OPTION_SOCK_ADDR, &sa,
                        MHD_OPTION_NOTIFY_COMPLETED, completed, NULL,
                        MHD_OPTION_CONNECTION_LIMIT, 200,
                        MHD_OPTION_END);
  if (!d)
    {
      fprintf (stderr, "t-hostile-server: can't listen on %s\n", listen);
      return 99;
    }
  info = MHD_get_daemon_info (d, MHD_DAEMON_INFO_BIND_PORT);
  if (!info || write_port (portfile, info->port))
    {
      fprintf (stderr, "t-hostile-server: can't write %s\n", portfile);
      MHD_stop_daemon (d);
      return 99;
    }
  while (!stop)
    usleep (100000);
  MHD_stop_daemon (d);
  for (i = 0; (unsigned int)i < nshards; i++)
    free (shards[i].data);
  if (logfile)
    fclose (logfp);
  return 0;
}
