/* t-hostile-store.c - a lying shard server for the backup tests
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Usage: t-hostile-store PORTFILE MODE
 * MODE "409": every PUT is answered 409 (the name is taken) and every
 * GET 404, so the server never holds a shard while it claims a name.
 * It listens on 127.0.0.1 (a kernel-chosen port, written to PORTFILE)
 * until SIGTERM.
 */
#include <config.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <microhttpd.h>

static volatile sig_atomic_t stop;

static void
on_term (int sig)
{
  (void)sig;
  stop = 1;
}

static enum MHD_Result
answer (void *cls, struct MHD_Connection *c, const char *url,
        const char *method, const char *version, const char *data,
        size_t *size, void **state)
{
  static int first;
  struct MHD_Response *resp;
  enum MHD_Result ret;
  unsigned int status;

  (void)cls; (void)url; (void)version; (void)data;
  if (!*state)
    {
      *state = &first;
      return MHD_YES;
    }
  if (*size)
    {
      *size = 0;                /* the body is read and dropped */
      return MHD_YES;
    }
  status = !strcmp (method, "PUT") ? 409 : 404;
  resp = MHD_create_response_from_buffer (0, (void *)"",
                                          MHD_RESPMEM_PERSISTENT);
  if (!resp)
    return MHD_NO;
  ret = MHD_queue_response (c, status, resp);
  MHD_destroy_response (resp);
  return ret;
}

int
main (int argc, char **argv)
{
  struct MHD_Daemon *d;
  const union MHD_DaemonInfo *info;
  struct sockaddr_in sa;
  FILE *fp;

  if (argc != 3 || strcmp (argv[2], "409"))
    {
      fprintf (stderr, "usage: t-hostile-store PORTFILE 409\n");
      return 99;
    }
  memset (&sa, 0, sizeof sa);
  sa.sin_family = AF_INET;
  sa.sin_addr.s_addr = htonl (INADDR_LOOPBACK);
  signal (SIGTERM, on_term);
  d = MHD_start_daemon (MHD_USE_INTERNAL_POLLING_THREAD, 0, NULL, NULL,
                        answer, NULL, MHD_OPTION_SOCK_ADDR, &sa,
                        MHD_OPTION_END);
  if (!d)
    return 99;
  info = MHD_get_daemon_info (d, MHD_DAEMON_INFO_BIND_PORT);
  fp = fopen (argv[1], "w");
  if (!info || !fp || fprintf (fp, "%u\n", info->port) < 0 || fclose (fp))
    return 99;
  while (!stop)
    pause ();
  MHD_stop_daemon (d);
  return 0;
}
