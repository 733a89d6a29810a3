/* file.c - whole files: written atomically, read with a bound
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
#include "file.h"
#include "buffer.h"

/* Make the rename of a file in the directory of PATH durable.  */
static void
sync_parent (const char *path)
{
  const char *slash = strrchr (path, '/');
  char *dir;
  int fd;

  if (!slash)
    dir = ks_strdup (".");
  else if (slash == path)
    dir = ks_strdup ("/");
  else
    {
      dir = ks_malloc (slash - path + 1);
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
  ks_free (dir);
}

gpg_error_t
ks_file_write_atomic (const char *path, const struct iovec *iov, int iovcnt)
{
  gpg_error_t err = 0;
  size_t n = strlen (path) + 5;
  char *tmp;
  int fd, i;

  tmp = ks_malloc (n);
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
  ks_free (tmp);
  return err;
}

gpg_error_t
ks_file_read (const char *path, size_t max, int secure,
              uint8_t **r_data, size_t *r_len)
{
  gpg_error_t err = 0;
  ks_buf_t *buf = NULL;
  uint8_t chunk[4096];
  size_t len = 0;
  ssize_t n;
  int fd;

  *r_data = NULL;
  *r_len = 0;
  if (max >= SIZE_MAX - sizeof chunk)
    return gpg_error (GPG_ERR_INV_ARG);
  fd = open (path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0)
    return gpg_error_from_syserror ();
  /* One byte over MAX tells a file of exactly MAX from a longer one;
   * the NUL needs one more.  */
  err = ks_buf_new (max + 2, secure, &buf);
  while (!err && (n = read (fd, chunk, sizeof chunk)) != 0)
    {
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        err = gpg_error_from_syserror ();
      else if (buf->len + n > max)
        err = gpg_error (GPG_ERR_TOO_LARGE);
      else
        err = ks_buf_append (buf, chunk, n);
    }
  ks_wipe (chunk, sizeof chunk);
  if (!err)
    {
      len = buf->len;
      err = ks_buf_append (buf, "", 1);
    }
  if (!err)
    err = ks_buf_detach (buf, r_data, r_len);
  if (!err)
    *r_len = len;
  ks_buf_free (buf);
  close (fd);
  return err;
}
