/* server-fill.c - fill a keysafe store with N random shards, fast
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * For bench/server.sh only: writes STORE/ab/cd/<name> as the server
 * lays them out (same tree, epoch times) but without the fsyncs, so a
 * million shards take minutes, not hours.  The names go to stdout.
 *
 *   bench-server-fill STORE N SIZE > names
 */
#include <config.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/stat.h>
#include "keysafe.h"

int
main (int argc, char **argv)
{
  static const struct timespec epoch[2] = { { 0, 0 }, { 0, 0 } };
  unsigned long n, i;
  size_t size;
  uint8_t raw[32], *body;
  char name[65], path[4096];
  int fd;

  if (argc != 4)
    {
      fprintf (stderr, "usage: bench-server-fill STORE N SIZE\n");
      return 2;
    }
  if (ks_init ())
    return 2;
  n = strtoul (argv[2], NULL, 10);
  size = strtoul (argv[3], NULL, 10);
  body = malloc (size ? size : 1);
  if (!body)
    return 2;
  mkdir (argv[1], 0700);
  for (i = 0; i < n; i++)
    {
      gcry_create_nonce (raw, sizeof raw);
      ks_hex_encode (raw, sizeof raw, name);
      snprintf (path, sizeof path, "%s/%.2s", argv[1], name);
      mkdir (path, 0700);
      snprintf (path, sizeof path, "%s/%.2s/%.2s", argv[1], name, name + 2);
      mkdir (path, 0700);
      snprintf (path, sizeof path, "%s/%.2s/%.2s/%s", argv[1], name,
                name + 2, name);
      gcry_create_nonce (body, size);
      fd = open (path, O_WRONLY | O_CREAT | O_EXCL, 0600);
      if (fd < 0 || write (fd, body, size) != (ssize_t)size)
        {
          fprintf (stderr, "%s: %s\n", path, strerror (errno));
          return 1;
        }
      futimens (fd, epoch);
      close (fd);
      printf ("%s\n", name);
    }
  free (body);
  return 0;
}
