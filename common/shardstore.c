/* shardstore.c - the on-disk layout of a shard store
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * See shardstore.h for the rules.
 */
#include <config.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include "shardstore.h"

/* All timestamps of the store are this one instant.  */
static const struct timespec epoch_times[2] = { { 0, 0 }, { 0, 0 } };

void
ks_shardstore_subdir (const char *name, char *out)
{
  out[0] = name[0]; out[1] = name[1]; out[2] = '/';
  out[3] = name[2]; out[4] = name[3]; out[5] = 0;
}

void
ks_shardstore_relpath (const char *name, char *out)
{
  ks_shardstore_subdir (name, out);
  out[5] = '/';
  memcpy (out + 6, name, KS_NAME_HEX_LEN);
  out[6 + KS_NAME_HEX_LEN] = 0;
}

gpg_error_t
ks_shardstore_free_bytes (int rootfd, uint64_t *r_free)
{
  struct statvfs sv;

  *r_free = 0;
  if (fstatvfs (rootfd, &sv))
    return gpg_error_from_syserror ();
  *r_free = (uint64_t)sv.f_bavail * (uint64_t)sv.f_frsize;
  return 0;
}

/* A full disk and a full quota are the same to the caller.  */
static gpg_error_t
space_error (gpg_error_t err)
{
  if (gpg_err_code (err) == GPG_ERR_EDQUOT)
    return gpg_error (GPG_ERR_ENOSPC);
  return err;
}

/* mkdirat REL below ROOTFD with the epoch; a new entry is made durable
 * by an fsync of PARENT (relative to ROOTFD, "." for ROOTFD itself).  */
static gpg_error_t
make_dir (int rootfd, const char *rel, const char *parent)
{
  gpg_error_t err = 0;
  int fd;

  if (mkdirat (rootfd, rel, 0700))
    return errno == EEXIST ? 0 : space_error (gpg_error_from_syserror ());
  utimensat (rootfd, rel, epoch_times, AT_SYMLINK_NOFOLLOW);
  fd = openat (rootfd, parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0)
    return gpg_error_from_syserror ();
  futimens (fd, epoch_times);
  if (fsync (fd))
    err = gpg_error_from_syserror ();
  close (fd);
  return err;
}

/* Create a temp file in DIRFD: *R_FD and its name in TMPREL (32 bytes).
 * The random part comes from the nonce generator; O_EXCL makes a
 * collision a retry, not a clobber.  */
static gpg_error_t
create_temp (int dirfd, char *tmprel, int *r_fd)
{
  int tries;

  *r_fd = -1;
  for (tries = 0; tries < 16; tries++)
    {
      uint8_t rnd[5];
      char hex[11];

      gcry_create_nonce (rnd, sizeof rnd);
      ks_hex_encode (rnd, sizeof rnd, hex);
      snprintf (tmprel, 32, KS_SHARDSTORE_TMP_PREFIX "%s", hex);
      *r_fd = openat (dirfd, tmprel,
                      O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW,
                      0600);
      if (*r_fd >= 0)
        return 0;
      if (errno != EEXIST)
        return space_error (gpg_error_from_syserror ());
    }
  return gpg_error (GPG_ERR_INTERNAL);
}

gpg_error_t
ks_shardstore_put (int rootfd, const char *name, const void *data,
                   size_t len, uint64_t reserve)
{
  gpg_error_t err;
  char top[3], dirrel[6], tmprel[32];
  uint64_t avail;
  int dirfd = -1, fd = -1, have_tmp = 0;

  if (!name || !ks_name_is_valid (name, strlen (name)))
    return gpg_error (GPG_ERR_INV_NAME);
  err = ks_shardstore_free_bytes (rootfd, &avail);
  if (err)
    return err;
  if (avail < reserve || avail - reserve < len)
    return gpg_error (GPG_ERR_ENOSPC);

  ks_shardstore_subdir (name, dirrel);
  top[0] = name[0];
  top[1] = name[1];
  top[2] = 0;
  err = make_dir (rootfd, top, ".");
  if (!err)
    err = make_dir (rootfd, dirrel, top);
  if (err)
    return err;
  dirfd = openat (rootfd, dirrel,
                  O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
  if (dirfd < 0)
    return gpg_error_from_syserror ();

  err = create_temp (dirfd, tmprel, &fd);
  if (err)
    goto leave;
  have_tmp = 1;
  err = ks_write_all (fd, data, len);
  if (!err && fsync (fd))
    err = gpg_error_from_syserror ();
  if (!err)
    futimens (fd, epoch_times);
  if (close (fd) && !err)
    err = gpg_error_from_syserror ();
  fd = -1;
  if (err)
    {
      err = space_error (err);
      goto leave;
    }

  /* The atomic create-if-absent.  */
  if (linkat (dirfd, tmprel, dirfd, name, 0))
    {
      err = errno == EEXIST ? gpg_error (GPG_ERR_EEXIST)
                            : space_error (gpg_error_from_syserror ());
      goto leave;
    }
  if (unlinkat (dirfd, tmprel, 0))
    {
      err = gpg_error_from_syserror ();
      goto leave;
    }
  have_tmp = 0;
  /* link(2) changed the inode's ctime only, the mtime stays at the
   * epoch; the directory's mtime changed and is reset before the fsync
   * that makes it all durable.  */
  futimens (dirfd, epoch_times);
  if (fsync (dirfd))
    err = gpg_error_from_syserror ();

 leave:
  if (fd >= 0)
    close (fd);
  if (have_tmp)
    {
      unlinkat (dirfd, tmprel, 0);
      futimens (dirfd, epoch_times);
    }
  if (dirfd >= 0)
    close (dirfd);
  return err;
}

gpg_error_t
ks_shardstore_get (int rootfd, const char *name, size_t max,
                   ks_buf_t **r_buf)
{
  gpg_error_t err;
  char rel[KS_SHARDSTORE_RELPATH_SIZE];
  ks_buf_t *buf = NULL;
  struct stat st;
  uint8_t *p = NULL;
  size_t got = 0;
  int fd;

  *r_buf = NULL;
  if (!name || !ks_name_is_valid (name, strlen (name)))
    return gpg_error (GPG_ERR_INV_NAME);
  ks_shardstore_relpath (name, rel);
  fd = openat (rootfd, rel, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0)
    {
      if (errno == ENOENT || errno == ENOTDIR || errno == ELOOP)
        return gpg_error (GPG_ERR_ENOENT);
      return gpg_error_from_syserror ();
    }
  if (fstat (fd, &st))
    {
      err = gpg_error_from_syserror ();
      goto leave;
    }
  if (!S_ISREG (st.st_mode))
    {
      err = gpg_error (GPG_ERR_ENOENT);
      goto leave;
    }
  if ((uint64_t)st.st_size > max)
    {
      err = gpg_error (GPG_ERR_TOO_LARGE);
      goto leave;
    }
  err = ks_buf_new (max, 0, &buf);
  if (!err && st.st_size)
    err = ks_buf_reserve (buf, st.st_size, &p);
  if (err)
    goto leave;
  /* Read exactly the size stat gave: a shard never changes once it has
   * its name, so anything else is an error, not a race to follow.  */
  while (got < (size_t)st.st_size)
    {
      ssize_t n = read (fd, p + got, st.st_size - got);

      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        {
          err = gpg_error_from_syserror ();
          goto leave;
        }
      if (!n)
        {
          err = gpg_error (GPG_ERR_TOO_SHORT);
          goto leave;
        }
      got += n;
    }
  *r_buf = buf;
  buf = NULL;

 leave:
  close (fd);
  ks_buf_free (buf);
  return err;
}
