/* shardstore.c - the on-disk layout of a shard store
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * See shardstore.h for the rules.
 */
#include <config.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <dirent.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <linux/openat2.h>
#include "shardstore.h"
#include "file.h"

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

int
ks_shardstore_name_is_valid (const char *name)
{
  return name && ks_name_is_valid (name, strnlen (name, KS_NAME_HEX_LEN + 1));
}

int
ks_shardstore_pair_is_valid (const char *s)
{
  return strnlen (s, 3) == 2 && ks_hex_is_lower (s, 2);
}

/* openat of PATH below DIRFD that follows no symlink on the way
 * ("ab/cd/NAME" with "ab" a planted link must not lead out of the store:
 * a synced folder or a stick is writable by others).  The store's root
 * itself (DIRFD AT_FDCWD) may be reached through links, as the operator
 * set it up.  Kernels before 5.6 lack openat2: O_NOFOLLOW then guards
 * the last component only.  */
static int
open_beneath (int dirfd, const char *path, int flags, mode_t mode)
{
  struct open_how how;
  int fd;

  if (dirfd == AT_FDCWD)
    return openat (dirfd, path, flags, mode);
  memset (&how, 0, sizeof how);
  how.flags = (uint64_t)flags;
  how.mode = (flags & O_CREAT) ? mode : 0;
  how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS;
  fd = (int)syscall (SYS_openat2, dirfd, path, &how, sizeof how);
  if (fd < 0 && errno == ENOSYS)
    fd = openat (dirfd, path, flags | O_NOFOLLOW, mode);
  return fd;
}

int
ks_shardstore_openat_quiet (int dirfd, const char *path, int flags)
{
  int fd = open_beneath (dirfd, path, flags | O_NOATIME, 0);

  if (fd < 0 && errno == EPERM)
    fd = open_beneath (dirfd, path, flags, 0);
  return fd;
}

gpg_error_t
ks_shardstore_free_space (int rootfd, uint64_t *r_bytes, uint64_t *r_files)
{
  struct statvfs sv;

  *r_bytes = *r_files = 0;
  if (fstatvfs (rootfd, &sv))
    return gpg_error_from_syserror ();
  *r_bytes = (uint64_t)sv.f_bavail * (uint64_t)sv.f_frsize;
  /* A filesystem without a fixed inode table (btrfs) reports none.  */
  *r_files = sv.f_files ? (uint64_t)sv.f_favail : UINT64_MAX;
  return 0;
}

gpg_error_t
ks_shardstore_room (int rootfd, uint64_t len, uint64_t reserve,
                    uint64_t reserve_files)
{
  gpg_error_t err;
  uint64_t bytes, files;

  err = ks_shardstore_free_space (rootfd, &bytes, &files);
  if (err)
    return err;
  if (bytes < reserve || bytes - reserve < len
      || files < reserve_files || files - reserve_files < 3)
    return gpg_error (GPG_ERR_ENOSPC);
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
  const char *base = strrchr (rel, '/');
  int fd;

  /* Made inside PARENT opened without following links, so a link in
   * place of "ab" cannot take the new folder out of the store.  */
  base = base ? base + 1 : rel;
  fd = open_beneath (rootfd, parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);
  if (fd < 0)
    return gpg_error_from_syserror ();
  if (mkdirat (fd, base, 0700))
    {
      err = errno == EEXIST ? 0 : space_error (gpg_error_from_syserror ());
      close (fd);
      return err;
    }
  utimensat (fd, base, epoch_times, AT_SYMLINK_NOFOLLOW);
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
  return ks_shardstore_put_reserved (rootfd, name, data, len, reserve, 0);
}

gpg_error_t
ks_shardstore_put_reserved (int rootfd, const char *name, const void *data,
                            size_t len, uint64_t reserve,
                            uint64_t reserve_files)
{
  gpg_error_t err;
  char top[3], dirrel[6], tmprel[32];
  int dirfd = -1, fd = -1, have_tmp = 0;

  if (!ks_shardstore_name_is_valid (name))
    return gpg_error (GPG_ERR_INV_NAME);
  err = ks_shardstore_room (rootfd, len, reserve, reserve_files);
  if (err)
    return err;

  ks_shardstore_subdir (name, dirrel);
  top[0] = name[0];
  top[1] = name[1];
  top[2] = 0;
  err = make_dir (rootfd, top, ".");
  if (!err)
    err = make_dir (rootfd, dirrel, top);
  if (err)
    return err;
  dirfd = open_beneath (rootfd, dirrel,
                        O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW, 0);
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
ks_shardstore_open (int rootfd, const char *name, int *r_fd,
                    uint64_t *r_size)
{
  char rel[KS_SHARDSTORE_RELPATH_SIZE];
  struct stat st;
  int fd;

  *r_fd = -1;
  *r_size = 0;
  if (!ks_shardstore_name_is_valid (name))
    return gpg_error (GPG_ERR_INV_NAME);
  ks_shardstore_relpath (name, rel);
  fd = ks_shardstore_openat_quiet (rootfd, rel,
                                   O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0)
    {
      if (errno == ENOENT || errno == ENOTDIR || errno == ELOOP)
        return gpg_error (GPG_ERR_ENOENT);
      return gpg_error_from_syserror ();
    }
  if (fstat (fd, &st) || !S_ISREG (st.st_mode))
    {
      close (fd);
      return gpg_error (GPG_ERR_ENOENT);
    }
  *r_fd = fd;
  *r_size = st.st_size;
  return 0;
}

int
ks_shardstore_has (int rootfd, const char *name)
{
  char rel[KS_SHARDSTORE_RELPATH_SIZE];
  struct stat st;

  if (!ks_shardstore_name_is_valid (name))
    return 0;
  ks_shardstore_relpath (name, rel);
  return !fstatat (rootfd, rel, &st, AT_SYMLINK_NOFOLLOW);
}

gpg_error_t
ks_shardstore_get (int rootfd, const char *name, size_t max,
                   ks_buf_t **r_buf)
{
  gpg_error_t err;
  ks_buf_t *buf = NULL;
  uint64_t size;
  uint8_t *p = NULL;
  size_t got = 0;
  int fd;

  *r_buf = NULL;
  err = ks_shardstore_open (rootfd, name, &fd, &size);
  if (err)
    return err;
  if (size > max)
    {
      err = gpg_error (GPG_ERR_TOO_LARGE);
      goto leave;
    }
  err = ks_buf_new (max, 0, &buf);
  if (!err && size)
    err = ks_buf_reserve (buf, size, &p);
  if (err)
    goto leave;
  /* Read exactly the size stat gave: a shard never changes once it has
   * its name, so anything else is an error, not a race to follow.  */
  while (got < size)
    {
      ssize_t n = read (fd, p + got, size - got);

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

/* Open the directory REL below ROOTFD for readdir, not following a
 * symbolic link there.  */
static gpg_error_t
open_dir (int rootfd, const char *rel, DIR **r_dir)
{
  int fd;

  *r_dir = NULL;
  fd = ks_shardstore_openat_quiet (rootfd, rel, O_RDONLY | O_DIRECTORY
                                   | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0)
    return gpg_error_from_syserror ();
  return ks_dir_from_fd (fd, r_dir);
}

/* Remove temp files in the directory REL (relative to ROOTFD).  */
static gpg_error_t
remove_temps (int rootfd, const char *rel, unsigned long *count)
{
  gpg_error_t err;
  DIR *dir;
  struct dirent *de;
  int fd, removed = 0;

  err = open_dir (rootfd, rel, &dir);
  if (err)
    return err;
  fd = dirfd (dir);
  while ((de = readdir (dir)))
    {
      if (strncmp (de->d_name, KS_SHARDSTORE_TMP_PREFIX,
                   strlen (KS_SHARDSTORE_TMP_PREFIX)))
        continue;
      if (unlinkat (fd, de->d_name, 0) && errno != ENOENT)
        {
          err = gpg_error_from_syserror ();
          goto leave;
        }
      removed = 1;
      (*count)++;
    }
  if (removed)
    {
      futimens (fd, epoch_times);
      if (fsync (fd))
        err = gpg_error_from_syserror ();
    }

 leave:
  closedir (dir);
  return err;
}

/* Sweep the ab/cd directories below the top-level directory TOP.  */
static gpg_error_t
sweep_top (int rootfd, const char *top, unsigned long *count)
{
  gpg_error_t err = 0;
  DIR *mid;
  struct dirent *de;
  char rel[6];

  /* A level that cannot be opened is for the store check to report.  */
  if (open_dir (rootfd, top, &mid))
    return 0;
  while ((de = readdir (mid)))
    {
      if (!ks_shardstore_pair_is_valid (de->d_name))
        continue;
      rel[0] = top[0]; rel[1] = top[1]; rel[2] = '/';
      rel[3] = de->d_name[0]; rel[4] = de->d_name[1]; rel[5] = 0;
      err = remove_temps (rootfd, rel, count);
      if (err && gpg_err_code (err) != GPG_ERR_ENOTDIR
          && gpg_err_code (err) != GPG_ERR_ELOOP)
        break;
      err = 0;
    }
  closedir (mid);
  return err;
}

gpg_error_t
ks_shardstore_sweep (int rootfd, unsigned long *r_removed)
{
  gpg_error_t err;
  DIR *top;
  struct dirent *de;
  unsigned long removed = 0;

  if (r_removed)
    *r_removed = 0;
  err = open_dir (rootfd, ".", &top);
  if (err)
    return err;
  while (!err && (de = readdir (top)))
    if (ks_shardstore_pair_is_valid (de->d_name))
      err = sweep_top (rootfd, de->d_name, &removed);
  closedir (top);
  if (r_removed)
    *r_removed = removed;
  return err;
}
