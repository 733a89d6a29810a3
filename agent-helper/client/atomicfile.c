/* atomicfile.c - files written whole or not at all
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The upload queue and the first-boot state live in the GnuPG home; a
 * crash or a full disk must never leave half a file there.
 */
#include <config.h>
#include <stdio.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include "atomicfile.h"

/* Make the rename of a file in the directory of PATH durable.  */
static void
sync_parent (const char *path)
{
  const char *slash = strrchr (path, '/');
  char *dir;
  int fd;

  if (!slash)
    dir = gcry_strdup (".");
  else if (slash == path)
    dir = gcry_strdup ("/");
  else
    {
      dir = gcry_malloc (slash - path + 1);
      if (dir)
        {
          memcpy (dir, path, slash - path);
          dir[slash - path] = 0;
        }
    }
  if (!dir)
    return;
  fd = open (dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd >= 0)
    {
      fsync (fd);
      close (fd);
    }
  gcry_free (dir);
}

gpg_error_t
ks_atomic_write (const char *path, const struct iovec *iov, int iovcnt)
{
  gpg_error_t err = 0;
  size_t n = strlen (path) + 5;
  char *tmp;
  int fd, i;

  tmp = gcry_malloc (n);
  if (!tmp)
    return gpg_error_from_syserror ();
  snprintf (tmp, n, "%s.tmp", path);
  unlink (tmp);   /* left by a crash */
  fd = open (tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0)
    {
      err = gpg_error_from_syserror ();
      goto leave;
    }
  for (i = 0; i < iovcnt && !err; i++)
    err = ks_write_all (fd, iov[i].iov_base, iov[i].iov_len);
  if (!err && fsync (fd))
    err = gpg_error_from_syserror ();
  if (close (fd) && !err)
    err = gpg_error_from_syserror ();
  if (!err && rename (tmp, path))
    err = gpg_error_from_syserror ();
  if (err)
    unlink (tmp);
  else
    sync_parent (path);

 leave:
  gcry_free (tmp);
  return err;
}
