/* file.c - whole files: written atomically, read with a bound
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The upload queue and the first-boot state live in the GnuPG home; a
 * crash or a full disk must never leave half a file there.
 */
#include <config.h>
#include <stdio.h>
#include <string.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include "file.h"
#include "buffer.h"

/* The directory of PATH, ks_malloc'd; NULL with errno set.  */
static char *
dir_of (const char *path)
{
  const char *slash = strrchr (path, '/');
  char *dir;

  if (!slash)
    return ks_strdup (".");
  if (slash == path)
    return ks_strdup ("/");
  dir = ks_malloc (slash - path + 1);
  if (dir)
    {
      memcpy (dir, path, slash - path);
      dir[slash - path] = 0;
    }
  return dir;
}

/* Make the rename of a file in the directory of PATH durable.  */
static void
sync_parent (const char *path)
{
  char *dir = dir_of (path);
  int fd;

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

/* Write IOV into FD and make it durable.  */
static gpg_error_t
write_parts (int fd, const struct iovec *iov, int iovcnt)
{
  gpg_error_t err = 0;
  int i;

  for (i = 0; i < iovcnt && !err; i++)
    err = ks_write_all (fd, iov[i].iov_base, iov[i].iov_len);
  if (!err && fsync (fd))
    err = gpg_error_from_syserror ();
  return err;
}

/* The whole content first, in an unnamed file of PATH's directory
 * (O_TMPFILE), then named TMP: a crash while writing leaves nothing
 * behind, not half a file.  GPG_ERR_NOT_SUPPORTED when the file system
 * or a missing /proc does not allow it.  */
static gpg_error_t
write_unnamed (const char *path, const char *tmp, const struct iovec *iov,
               int iovcnt)
{
  gpg_error_t err;
  char *dir = dir_of (path);
  char proc[64];
  int fd;

  if (!dir)
    return gpg_error_from_syserror ();
  fd = open (dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, 0600);
  ks_free (dir);
  if (fd < 0)
    return gpg_error (GPG_ERR_NOT_SUPPORTED);
  err = write_parts (fd, iov, iovcnt);
  snprintf (proc, sizeof proc, "/proc/self/fd/%d", fd);
  if (!err && linkat (AT_FDCWD, proc, AT_FDCWD, tmp, AT_SYMLINK_FOLLOW))
    err = errno == ENOENT && access ("/proc/self/fd", X_OK)
      ? gpg_error (GPG_ERR_NOT_SUPPORTED) : gpg_error_from_syserror ();
  if (close (fd) && !err)
    err = gpg_error_from_syserror ();
  return err;
}

gpg_error_t
ks_file_write_atomic (const char *path, const struct iovec *iov, int iovcnt)
{
  gpg_error_t err = 0;
  size_t n = strlen (path) + 5;
  char *tmp;
  int fd;

  tmp = ks_malloc (n);
  if (!tmp)
    return gpg_error_from_syserror ();
  snprintf (tmp, n, "%s.tmp", path);
  unlink (tmp);   /* left by a crash between its link and its rename */
  err = write_unnamed (path, tmp, iov, iovcnt);
  if (gpg_err_code (err) == GPG_ERR_NOT_SUPPORTED)
    {
      fd = open (tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
                 0600);
      if (fd < 0)
        {
          err = gpg_error_from_syserror ();
          goto leave;
        }
      err = write_parts (fd, iov, iovcnt);
      if (close (fd) && !err)
        err = gpg_error_from_syserror ();
    }
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

/* All of FD, at most MAX bytes, as ks_file_read tells.  */
static gpg_error_t
read_all (int fd, size_t max, int secure, uint8_t **r_data, size_t *r_len)
{
  gpg_error_t err = 0;
  ks_buf_t *buf = NULL;
  uint8_t chunk[4096];
  size_t len = 0;
  ssize_t n;

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
  return err;
}

static gpg_error_t
read_at (int dirfd, const char *name, int flags, size_t max, int secure,
         uint8_t **r_data, size_t *r_len)
{
  gpg_error_t err;
  int fd;

  *r_data = NULL;
  *r_len = 0;
  if (max >= SIZE_MAX - 4096)
    return gpg_error (GPG_ERR_INV_ARG);
  fd = openat (dirfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | flags);
  if (fd < 0)
    return gpg_error_from_syserror ();
  err = read_all (fd, max, secure, r_data, r_len);
  close (fd);
  return err;
}

gpg_error_t
ks_file_read (const char *path, size_t max, int secure,
              uint8_t **r_data, size_t *r_len)
{
  return read_at (AT_FDCWD, path, 0, max, secure, r_data, r_len);
}

gpg_error_t
ks_file_read_at (int dirfd, const char *name, size_t max, int secure,
                 uint8_t **r_data, size_t *r_len)
{
  return read_at (dirfd, name, O_NONBLOCK, max, secure, r_data, r_len);
}

gpg_error_t
ks_dir_from_fd (int fd, DIR **r_dir)
{
  gpg_error_t err;

  *r_dir = fdopendir (fd);
  if (*r_dir)
    return 0;
  err = gpg_error_from_syserror ();
  close (fd);
  return err;
}

void
ks_dir_list_free (char **names, size_t count)
{
  size_t i;

  if (!names)
    return;
  for (i = 0; i < count; i++)
    ks_free (names[i]);
  ks_free (names);
}

gpg_error_t
ks_dir_list (const char *dir, int (*keep) (const char *name), size_t max,
             char ***r_names, size_t *r_count)
{
  gpg_error_t err = 0;
  DIR *d;
  struct dirent *de;
  char **names = NULL, **grown;
  size_t count = 0, alloc = 0;

  *r_names = NULL;
  *r_count = 0;
  d = opendir (dir);
  if (!d)
    return errno == ENOENT ? 0 : gpg_error_from_syserror ();
  while (!err && count < max && (de = readdir (d)))
    {
      if (!strcmp (de->d_name, ".") || !strcmp (de->d_name, "..")
          || (keep && !keep (de->d_name)))
        continue;
      if (count == alloc)
        {
          alloc = alloc ? 2 * alloc : 16;
          grown = ks_realloc (names, alloc * sizeof *names);
          if (!grown)
            {
              err = gpg_error_from_syserror ();
              break;
            }
          names = grown;
        }
      names[count] = ks_strdup (de->d_name);
      if (!names[count])
        err = gpg_error_from_syserror ();
      else
        count++;
    }
  closedir (d);
  if (err)
    {
      ks_dir_list_free (names, count);
      return err;
    }
  *r_names = names;
  *r_count = count;
  return 0;
}
