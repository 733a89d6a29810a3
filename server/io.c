/* io.c - small I/O helpers of keysafe-server
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>
#include "io.h"

gpg_error_t
ks_io_read_all (int fd, uint64_t size, char **r_data)
{
  char *data;
  size_t off = 0;
  ssize_t n;

  *r_data = NULL;
  data = malloc (size);
  if (!data)
    return gpg_error_from_syserror ();
  while (off < size)
    {
      n = pread (fd, data + off, size - off, off);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        {
          gpg_error_t err = n < 0 ? gpg_error_from_syserror ()
                                  : gpg_error (GPG_ERR_EOF);
          free (data);
          return err;
        }
      off += n;
    }
  *r_data = data;
  return 0;
}
