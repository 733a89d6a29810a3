/* t-srvclient.c - a raw HTTP client for the keysafe-server tests
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * curl(1) does the well-formed requests in the shell tests; this helper
 * does what curl will not: raw bytes, many connections held open,
 * dribbling clients, racing uploads and a kill -9 in the middle of 200
 * uploads.  Every wait is bounded.
 *
 *   t-srvclient solve CHALLENGE METHOD NAME
 *   t-srvclient raw PORT FILE            -> prints the status (000: none)
 *   t-srvclient hold PORT N SECONDS idle|dribble  (prints "ready")
 *   t-srvclient race PORT NAME N SIZE    -> "created=A conflict=B whole=1"
 *   t-srvclient crash PORT PID N SIZE DIR
 *   t-srvclient verify PORT DIR          -> checks what crash recorded
 */
#include <config.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include "keysafe.h"
#include "t-srvnet.h"

#define IO_TIMEOUT_MS 20000

static void
die (const char *what)
{
  fprintf (stderr, "t-srvclient: %s: %s\n", what, strerror (errno));
  exit (99);
}

/* Send all of BUF; returns -1 if the peer went away.  */
static int
send_all (int fd, const void *buf, size_t len)
{
  const char *p = buf;
  ssize_t n;

  while (len)
    {
      n = send (fd, p, len, MSG_NOSIGNAL);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        return -1;
      p += n;
      len -= n;
    }
  return 0;
}

/* Read a response (until EOF or a complete body) into a malloc'd
 * buffer.  Returns the status, 0 if there was none.  */
static int
read_response (int fd, char **r_body, size_t *r_bodylen)
{
  size_t alloc = 4096, len = 0, need = (size_t)-1;
  char *buf = malloc (alloc), *hend, *cl;
  struct pollfd pfd = { fd, POLLIN, 0 };
  int status = 0;
  ssize_t n;

  if (!buf)
    die ("malloc");
  for (;;)
    {
      if (len + 1 >= alloc)
        {
          alloc *= 2;
          if (!(buf = realloc (buf, alloc)))
            die ("realloc");
        }
      if (poll (&pfd, 1, IO_TIMEOUT_MS) <= 0)
        break;
      n = recv (fd, buf + len, alloc - len - 1, 0);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        break;
      len += n;
      buf[len] = 0;
      if (need == (size_t)-1 && (hend = strstr (buf, "\r\n\r\n")))
        {
          cl = strcasestr (buf, "\r\nContent-Length:");
          if (cl && cl < hend)
            need = (hend - buf) + 4 + strtoul (cl + 17, NULL, 10);
        }
      if (need != (size_t)-1 && len >= need)
        break;
    }
  buf[len] = 0;
  if (len > 12 && !strncmp (buf, "HTTP/1.", 7))
    status = atoi (buf + 9);
  if (r_body)
    {
      hend = strstr (buf, "\r\n\r\n");
      *r_bodylen = hend ? len - (hend + 4 - buf) : 0;
      *r_body = malloc (*r_bodylen + 1);
      if (!*r_body)
        die ("malloc");
      if (hend)
        memcpy (*r_body, hend + 4, *r_bodylen);
    }
  free (buf);
  return status;
}

static char *
read_file (const char *path, size_t *r_len)
{
  struct stat st;
  char *buf;
  int fd = open (path, O_RDONLY);

  if (fd < 0 || fstat (fd, &st))
    die (path);
  buf = malloc (st.st_size + 1);
  if (!buf || read (fd, buf, st.st_size) != st.st_size)
    die (path);
  close (fd);
  *r_len = st.st_size;
  return buf;
}

static void
write_file (const char *path, const void *data, size_t len)
{
  int fd = open (path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

  if (fd < 0 || write (fd, data, len) != (ssize_t)len || close (fd))
    die (path);
}

static void
random_name (char *name)
{
  uint8_t raw[32];

  gcry_create_nonce (raw, sizeof raw);
  ks_hex_encode (raw, sizeof raw, name);
}

static int
cmd_solve (char **argv)
{
  char proof[KS_POW_PROOF_SIZE];
  gpg_error_t err = ks_pow_solve (argv[0], argv[1], argv[2], 0,
                                  proof, sizeof proof);

  if (err)
    {
      fprintf (stderr, "solve: %s\n", gpg_strerror (err));
      return 1;
    }
  printf ("%s\n", proof);
  return 0;
}

static int
cmd_raw (char **argv)
{
  size_t len;
  char *req = read_file (argv[1], &len);
  int fd = t_connect_port (atoi (argv[0]));
  int status = 0;

  if (fd >= 0)
    {
      send_all (fd, req, len);  /* the server may cut us short */
      shutdown (fd, SHUT_WR);
      status = read_response (fd, NULL, NULL);
      close (fd);
    }
  printf ("%03d\n", status);
  free (req);
  return 0;
}

static int
cmd_hold (char **argv)
{
  int port = atoi (argv[0]), n = atoi (argv[1]), secs = atoi (argv[2]);
  int dribble = !strcmp (argv[3], "dribble");
  const char *line = "GET /v1/info HTTP/1.1\r\nHost: x\r\nX-Slow: "
    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
  int *fds = calloc (n, sizeof *fds);
  size_t pos = 0;
  time_t end;
  int i;

  if (!fds)
    die ("calloc");
  for (i = 0; i < n; i++)
    fds[i] = t_connect_port (port);
  printf ("ready\n");
  fflush (stdout);
  end = time (NULL) + secs;
  while (time (NULL) < end)
    {
      if (dribble && pos < strlen (line))
        {
          for (i = 0; i < n; i++)
            if (fds[i] >= 0 && send_all (fds[i], line + pos, 1))
              {
                close (fds[i]);
                fds[i] = -1;
              }
          pos++;
        }
      usleep (500 * 1000);
    }
  for (i = 0; i < n; i++)
    if (fds[i] >= 0)
      close (fds[i]);
  free (fds);
  return 0;
}

static char *
put_head (const char *name, size_t size)
{
  char *s;

  if (gpgrt_asprintf (&s, "PUT /v1/shard/%s HTTP/1.1\r\nHost: x\r\n"
                      "Content-Length: %zu\r\nConnection: close\r\n\r\n",
                      name, size) < 0)
    die ("asprintf");
  return s;
}

static int
cmd_race (char **argv)
{
  int port = atoi (argv[0]), n = atoi (argv[2]), i, st;
  const char *name = argv[1];
  size_t size = strtoul (argv[3], NULL, 10), glen;
  int *fds = calloc (n, sizeof *fds);
  char **bodies = calloc (n, sizeof *bodies), *head, *got;
  int created = 0, conflict = 0, other = 0, whole = 0;

  if (!fds || !bodies)
    die ("calloc");
  head = put_head (name, size);
  /* Everything but the last byte on every connection, then the last
   * bytes back to back, so the stores really overlap.  */
  for (i = 0; i < n; i++)
    {
      bodies[i] = malloc (size);
      if (!bodies[i])
        die ("malloc");
      memset (bodies[i], 'A' + i % 26, size);
      bodies[i][0] = i;
      fds[i] = t_connect_port (port);
      if (fds[i] < 0 || send_all (fds[i], head, strlen (head))
          || send_all (fds[i], bodies[i], size - 1))
        die ("race connect");
    }
  usleep (200 * 1000);
  for (i = 0; i < n; i++)
    send_all (fds[i], bodies[i] + size - 1, 1);
  for (i = 0; i < n; i++)
    {
      st = read_response (fds[i], NULL, NULL);
      close (fds[i]);
      if (st == 201)
        created++;
      else if (st == 409)
        conflict++;
      else
        other++;
    }
  /* What is stored is one whole body.  */
  i = t_connect_port (port);
  if (i >= 0)
    {
      char req[256];
      snprintf (req, sizeof req, "GET /v1/shard/%s HTTP/1.1\r\nHost: x\r\n"
                "Connection: close\r\n\r\n", name);
      send_all (i, req, strlen (req));
      if (read_response (i, &got, &glen) == 200 && glen == size)
        for (st = 0; st < n; st++)
          if (!memcmp (got, bodies[st], size))
            whole = 1;
      close (i);
      free (got);
    }
  printf ("created=%d conflict=%d other=%d whole=%d\n",
          created, conflict, other, whole);
  for (i = 0; i < n; i++)
    free (bodies[i]);
  free (bodies);
  free (fds);
  free (head);
  return 0;
}

static int
cmd_crash (char **argv)
{
  int port = atoi (argv[0]), n = atoi (argv[2]), i, st, answered = 0;
  pid_t pid = atoi (argv[1]);
  size_t size = strtoul (argv[3], NULL, 10);
  const char *dir = argv[4];
  int *fds = calloc (n, sizeof *fds);
  char (*names)[KS_NAME_HEX_LEN + 1] = calloc (n, sizeof *names);
  char *body = malloc (size), *head, path[4096];
  FILE *acked;
  int killed = 0;

  if (!fds || !names || !body)
    die ("calloc");
  snprintf (path, sizeof path, "%s/acked", dir);
  acked = fopen (path, "w");
  if (!acked)
    die (path);
  /* Open all, each with its headers and half its body sent.  */
  for (i = 0; i < n; i++)
    {
      random_name (names[i]);
      gcry_create_nonce (body, size);
      snprintf (path, sizeof path, "%s/%s", dir, names[i]);
      write_file (path, body, size);
      head = put_head (names[i], size);
      fds[i] = t_connect_port (port);
      if (fds[i] < 0 || send_all (fds[i], head, strlen (head))
          || send_all (fds[i], body, size / 2))
        die ("crash connect");
      free (head);
    }
  /* Finish them one by one; kill the server half way.  */
  for (i = 0; i < n; i++)
    {
      snprintf (path, sizeof path, "%s/%s", dir, names[i]);
      free (body);
      body = read_file (path, &size);
      if (!killed && answered >= n / 2)
        {
          /* The bodies not yet finished are in flight when it dies.  */
          kill (pid, SIGKILL);
          killed = 1;
        }
      if (send_all (fds[i], body + size / 2, size - size / 2))
        {
          close (fds[i]);
          continue;
        }
      st = read_response (fds[i], NULL, NULL);
      close (fds[i]);
      if (st == 201)
        {
          fprintf (acked, "%s\n", names[i]);
          fflush (acked);
          answered++;
        }
    }
  if (!killed)
    kill (pid, SIGKILL);
  fclose (acked);
  printf ("acknowledged=%d of %d\n", answered, n);
  free (body);
  free (names);
  free (fds);
  return 0;
}

static int
get_shard (int port, const char *name, char **r_body, size_t *r_len)
{
  char req[256];
  int fd = t_connect_port (port), st;

  *r_body = NULL;
  *r_len = 0;
  if (fd < 0)
    return 0;
  snprintf (req, sizeof req, "GET /v1/shard/%s HTTP/1.1\r\nHost: x\r\n"
            "Connection: close\r\n\r\n", name);
  send_all (fd, req, strlen (req));
  st = read_response (fd, r_body, r_len);
  close (fd);
  return st;
}

static int
cmd_verify (char **argv)
{
  int port = atoi (argv[0]), bad = 0, intact = 0, absent = 0, extra = 0;
  const char *dir = argv[1];
  char path[4096], line[128], *want, *got;
  size_t wlen, glen;
  FILE *all;
  int st, isacked;

  /* Every file DIR/<name> is a body that was sent; DIR/acked lists the
   * ones the server acknowledged.  */
  snprintf (path, sizeof path, "ls %s | grep -v acked", dir);
  all = popen (path, "r");
  if (!all)
    die ("popen");
  while (fgets (line, sizeof line, all))
    {
      line[strcspn (line, "\n")] = 0;
      if (strlen (line) != KS_NAME_HEX_LEN)
        continue;
      snprintf (path, sizeof path, "%s/%s", dir, line);
      want = read_file (path, &wlen);
      snprintf (path, sizeof path, "grep -qx %s %s/acked", line, dir);
      isacked = !system (path);
      st = get_shard (port, line, &got, &glen);
      if (st == 200 && glen == wlen && !memcmp (got, want, wlen))
        {
          if (isacked)
            intact++;
          else
            extra++;   /* stored whole, the answer was lost: fine */
        }
      else if (st == 404 && !isacked)
        absent++;
      else
        {
          fprintf (stderr, "verify: %s: status %d, %zu bytes, acked %d\n",
                   line, st, glen, isacked);
          bad++;
        }
      free (want);
      free (got);
    }
  pclose (all);
  printf ("intact=%d whole-unacked=%d absent=%d bad=%d\n",
          intact, extra, absent, bad);
  return bad ? 1 : 0;
}

int
main (int argc, char **argv)
{
  signal (SIGPIPE, SIG_IGN);
  if (ks_init ())
    return 99;
  if (argc == 5 && !strcmp (argv[1], "solve"))
    return cmd_solve (argv + 2);
  if (argc == 4 && !strcmp (argv[1], "raw"))
    return cmd_raw (argv + 2);
  if (argc == 6 && !strcmp (argv[1], "hold"))
    return cmd_hold (argv + 2);
  if (argc == 6 && !strcmp (argv[1], "race"))
    return cmd_race (argv + 2);
  if (argc == 7 && !strcmp (argv[1], "crash"))
    return cmd_crash (argv + 2);
  if (argc == 4 && !strcmp (argv[1], "verify"))
    return cmd_verify (argv + 2);
  fprintf (stderr, "usage: t-srvclient solve|raw|hold|race|crash|verify ...\n");
  return 99;
}
