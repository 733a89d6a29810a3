/* t-srvload.c - normal requests' latency beside a flood of oversized PUTs
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 *   t-srvload PORT PATH N RATE NAME
 *
 * Makes N GET requests of PATH one after another, each on a new
 * connection, and prints their median latency in microseconds.  With
 * RATE > 0 it meanwhile starts RATE oversized chunked PUTs of NAME a
 * second (until the N requests are done), each from its own thread: it
 * sends 72 KiB at once, past every object size (and past the 64 KiB
 * limit of keysafe-server 0.1.0), then keeps sending 1 KiB
 * chunks every 50 ms for a second without reading, as a client does
 * that streams its body and reads late.  A server that lingers on such
 * a connection in its worker thread stalls everyone else.  Prints
 * "median_us=M max_us=X floods=F".  Every wait is bounded.
 */
#include <config.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include "t-srvnet.h"

static int port;
static const char *shard_name;
static volatile int stop_flood;

static uint64_t
now_us (void)
{
  struct timespec t;

  clock_gettime (CLOCK_MONOTONIC, &t);
  return (uint64_t)t.tv_sec * 1000000 + t.tv_nsec / 1000;
}

static int
send_str (int fd, const char *s, size_t len)
{
  return send (fd, s, len, MSG_NOSIGNAL) == (ssize_t)len ? 0 : -1;
}

static void *
flood_one (void *arg)
{
  static char chunk[4096 + 16], small[1024 + 16];
  char head[256];
  int fd, i, n;

  (void)arg;
  fd = t_connect_port (port);
  if (fd < 0)
    return NULL;
  n = snprintf (head, sizeof head, "PUT /v1/shard/%s HTTP/1.1\r\nHost: x\r\n"
                "Transfer-Encoding: chunked\r\n\r\n", shard_name);
  memcpy (chunk, "1000\r\n", 6);
  memset (chunk + 6, 'a', 4096);
  memcpy (chunk + 6 + 4096, "\r\n", 2);
  memcpy (small, "400\r\n", 5);
  memset (small + 5, 'b', 1024);
  memcpy (small + 5 + 1024, "\r\n", 2);
  if (!send_str (fd, head, n))
    for (i = 0; i < 18; i++)
      send_str (fd, chunk, 6 + 4096 + 2);
  for (i = 0; i < 20; i++)
    {
      if (send_str (fd, small, 5 + 1024 + 2))
        break;
      usleep (50 * 1000);
    }
  close (fd);
  return NULL;
}

static void *
flood (void *arg)
{
  unsigned int rate = *(unsigned int *)arg;
  unsigned long started = 0;
  pthread_attr_t attr;
  pthread_t t;

  pthread_attr_init (&attr);
  pthread_attr_setdetachstate (&attr, PTHREAD_CREATE_DETACHED);
  while (!stop_flood)
    {
      if (!pthread_create (&t, &attr, flood_one, NULL))
        started++;
      usleep (1000000 / rate);
    }
  pthread_attr_destroy (&attr);
  return (void *)started;
}

/* One GET of PATH on a new connection; its latency, or 0 on failure.  */
static uint64_t
one_get (const char *path)
{
  char req[256], buf[16384];
  uint64_t t0 = now_us ();
  ssize_t n;
  size_t got = 0;
  int fd, len;

  fd = t_connect_port (port);
  if (fd < 0)
    return 0;
  len = snprintf (req, sizeof req, "GET %s HTTP/1.1\r\nHost: x\r\n"
                  "Connection: close\r\n\r\n", path);
  if (send_str (fd, req, len))
    {
      close (fd);
      return 0;
    }
  while ((n = recv (fd, buf, sizeof buf, 0)) > 0)
    got += n;
  close (fd);
  if (got < 12 || n < 0)
    return 0;
  return now_us () - t0;
}

static int
cmp_u64 (const void *a, const void *b)
{
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

  return x < y ? -1 : x > y;
}

int
main (int argc, char **argv)
{
  unsigned int n, rate, i, ok = 0;
  uint64_t *lat;
  pthread_t ft;
  void *started = NULL;

  if (argc != 6)
    {
      fprintf (stderr, "usage: t-srvload PORT PATH N RATE NAME\n");
      return 99;
    }
  signal (SIGPIPE, SIG_IGN);
  port = atoi (argv[1]);
  n = atoi (argv[3]);
  rate = atoi (argv[4]);
  shard_name = argv[5];
  lat = calloc (n ? n : 1, sizeof *lat);
  if (!lat || !n)
    return 99;
  if (rate && pthread_create (&ft, NULL, flood, &rate))
    return 99;
  if (rate)
    usleep (1000 * 1000);   /* let the flood get going */
  for (i = 0; i < n; i++)
    {
      lat[ok] = one_get (argv[2]);
      if (lat[ok])
        ok++;
      usleep (20 * 1000);
    }
  stop_flood = 1;
  if (rate)
    pthread_join (ft, &started);
  if (!ok)
    return 1;
  qsort (lat, ok, sizeof *lat, cmp_u64);
  printf ("median_us=%lu max_us=%lu ok=%u floods=%lu\n",
          (unsigned long)lat[ok / 2], (unsigned long)lat[ok - 1], ok,
          (unsigned long)(uintptr_t)started);
  free (lat);
  return 0;
}
