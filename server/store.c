/* store.c - the shard store: flat files in a hashed directory tree
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <dirent.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include "store.h"
#include "io.h"

struct ks_store
{
  int rootfd;
};

/* All timestamps of the store are this one instant.  */
static const struct timespec epoch_times[2] = { { 0, 0 }, { 0, 0 } };

int
ks_store_name_is_valid (const char *name)
{
  return name && ks_name_is_valid (name, strnlen (name, KS_NAME_HEX_LEN + 1));
}

int
ks_store_pair_is_valid (const char *s)
{
  return strnlen (s, 3) == 2 && ks_hex_is_lower (s, 2);
}

/* "ab/cd" of NAME into BUF (6 bytes).  */
static void
subdir_of (const char *name, char *buf)
{
  buf[0] = name[0]; buf[1] = name[1]; buf[2] = '/';
  buf[3] = name[2]; buf[4] = name[3]; buf[5] = 0;
}

/* "ab/cd/NAME" of NAME into BUF (6 + 65 bytes).  */
static void
path_of (const char *name, char *buf)
{
  subdir_of (name, buf);
  buf[5] = '/';
  memcpy (buf + 6, name, KS_NAME_HEX_LEN + 1);
}

static gpg_error_t
fsync_dirat (int rootfd, const char *rel)
{
  gpg_error_t err = 0;
  int fd = openat (rootfd, rel, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

  if (fd < 0)
    return gpg_error_from_syserror ();
  if (fsync (fd))
    err = gpg_error_from_syserror ();
  close (fd);
  return err;
}

/* Remove temp files in the directory REL (relative to ROOTFD).  */
static gpg_error_t
remove_temps (int rootfd, const char *rel, unsigned long *count)
{
  gpg_error_t err = 0;
  DIR *dir = NULL;
  struct dirent *de;
  int fd, removed = 0;

  fd = ks_io_openat_quiet (rootfd, rel,
                           O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0)
    return gpg_error_from_syserror ();
  dir = fdopendir (fd);
  if (!dir)
    {
      err = gpg_error_from_syserror ();
      close (fd);
      goto leave;
    }
  while ((de = readdir (dir)))
    {
      if (strncmp (de->d_name, KS_STORE_TMP_PREFIX,
                   strlen (KS_STORE_TMP_PREFIX)))
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
  if (dir)
    closedir (dir);
  return err;
}

gpg_error_t
ks_store_open (const char *dirname, ks_store_t **r_store,
               unsigned long *r_removed)
{
  gpg_error_t err = 0;
  ks_store_t *store = NULL;
  DIR *top = NULL, *mid = NULL;
  struct dirent *de1, *de2;
  char rel[6];
  unsigned long removed = 0;
  int fd;

  *r_store = NULL;
  if (r_removed)
    *r_removed = 0;
  if (mkdir (dirname, 0700) && errno != EEXIST)
    return gpg_error_from_syserror ();
  store = calloc (1, sizeof *store);
  if (!store)
    return gpg_error_from_syserror ();
  store->rootfd = ks_io_openat_quiet (AT_FDCWD, dirname,
                                      O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (store->rootfd < 0)
    {
      err = gpg_error_from_syserror ();
      goto leave;
    }

  /* Sweep temp files left by a crash.  Only the two levels of the tree
   * can hold them; anything else is for --check-store to report.  */
  fd = dup (store->rootfd);
  if (fd < 0 || !(top = fdopendir (fd)))
    {
      err = gpg_error_from_syserror ();
      if (fd >= 0)
        close (fd);
      goto leave;
    }
  while ((de1 = readdir (top)))
    {
      if (!ks_store_pair_is_valid (de1->d_name))
        continue;
      fd = ks_io_openat_quiet (store->rootfd, de1->d_name,
                               O_RDONLY | O_DIRECTORY | O_CLOEXEC
                               | O_NOFOLLOW);
      if (fd < 0)
        continue;
      mid = fdopendir (fd);
      if (!mid)
        {
          err = gpg_error_from_syserror ();
          close (fd);
          goto leave;
        }
      while ((de2 = readdir (mid)))
        {
          if (!ks_store_pair_is_valid (de2->d_name))
            continue;
          rel[0] = de1->d_name[0]; rel[1] = de1->d_name[1]; rel[2] = '/';
          rel[3] = de2->d_name[0]; rel[4] = de2->d_name[1]; rel[5] = 0;
          err = remove_temps (store->rootfd, rel, &removed);
          if (err && gpg_err_code (err) != GPG_ERR_ENOTDIR
              && gpg_err_code (err) != GPG_ERR_ELOOP)
            goto leave;
          err = 0;
        }
      closedir (mid);
      mid = NULL;
    }

  *r_store = store;
  store = NULL;
  if (r_removed)
    *r_removed = removed;

 leave:
  if (mid)
    closedir (mid);
  if (top)
    closedir (top);
  ks_store_close (store);
  return err;
}

void
ks_store_close (ks_store_t *store)
{
  if (!store)
    return;
  if (store->rootfd >= 0)
    close (store->rootfd);
  free (store);
}

gpg_error_t
ks_store_free_space (ks_store_t *store, uint64_t *r_bytes, uint64_t *r_files)
{
  struct statvfs sv;

  *r_bytes = *r_files = 0;
  if (fstatvfs (store->rootfd, &sv))
    return gpg_error_from_syserror ();
  *r_bytes = (uint64_t)sv.f_bavail * (uint64_t)sv.f_frsize;
  /* A filesystem without a fixed inode table (btrfs) reports none.  */
  *r_files = sv.f_files ? (uint64_t)sv.f_favail : UINT64_MAX;
  return 0;
}

gpg_error_t
ks_store_room (ks_store_t *store, uint64_t len, uint64_t reserve)
{
  gpg_error_t err;
  uint64_t bytes, files;

  err = ks_store_free_space (store, &bytes, &files);
  if (err)
    return err;
  /* A shard may need three inodes: its two directories and itself.  */
  if (bytes < reserve || bytes - reserve < len
      || files < KS_STORE_RESERVE_FILES + 3)
    return gpg_error (GPG_ERR_ENOSPC);
  return 0;
}

/* Make ab and ab/cd for NAME.  A new directory's entry is made durable
 * by an fsync of its parent, and every directory gets the epoch.  */
static gpg_error_t
make_dirs (ks_store_t *store, const char *name)
{
  gpg_error_t err;
  char rel[6];

  subdir_of (name, rel);
  rel[2] = 0;
  if (!mkdirat (store->rootfd, rel, 0700))
    {
      utimensat (store->rootfd, rel, epoch_times, AT_SYMLINK_NOFOLLOW);
      futimens (store->rootfd, epoch_times);
      if (fsync (store->rootfd))
        return gpg_error_from_syserror ();
    }
  else if (errno != EEXIST)
    return gpg_error_from_syserror ();
  rel[2] = '/';
  if (!mkdirat (store->rootfd, rel, 0700))
    {
      utimensat (store->rootfd, rel, epoch_times, AT_SYMLINK_NOFOLLOW);
      rel[2] = 0;
      utimensat (store->rootfd, rel, epoch_times, AT_SYMLINK_NOFOLLOW);
      err = fsync_dirat (store->rootfd, rel);
      if (err)
        return err;
    }
  else if (errno != EEXIST)
    return gpg_error_from_syserror ();
  return 0;
}

/* Map a full-disk or quota error to ENOSPC, which the HTTP layer
 * answers with 507.  */
static gpg_error_t
space_error (gpg_error_t err)
{
  if (gpg_err_code (err) == GPG_ERR_EDQUOT)
    return gpg_error (GPG_ERR_ENOSPC);
  return err;
}

gpg_error_t
ks_store_put (ks_store_t *store, const char *name,
              const void *data, size_t len, uint64_t reserve)
{
  gpg_error_t err;
  char dirrel[6], tmprel[6 + 16];
  int dirfd = -1, fd = -1, have_tmp = 0;

  if (!ks_store_name_is_valid (name))
    return gpg_error (GPG_ERR_INV_NAME);

  err = ks_store_room (store, len, reserve);
  if (err)
    return err;

  err = make_dirs (store, name);
  if (err)
    return space_error (err);
  subdir_of (name, dirrel);
  dirfd = openat (store->rootfd, dirrel,
                  O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
  if (dirfd < 0)
    {
      err = gpg_error_from_syserror ();
      goto leave;
    }

  /* A temp name no shard name can equal: it starts with "tmp.".  The
   * random part comes from the nonce generator; O_EXCL makes a
   * collision a retry, not a clobber.  */
  for (int tries = 0; fd < 0 && tries < 16; tries++)
    {
      uint8_t rnd[5];
      char hex[11];

      gcry_create_nonce (rnd, sizeof rnd);
      ks_hex_encode (rnd, sizeof rnd, hex);
      snprintf (tmprel, sizeof tmprel, KS_STORE_TMP_PREFIX "%s", hex);
      fd = openat (dirfd, tmprel,
                   O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW,
                   0600);
      if (fd < 0 && errno != EEXIST)
        {
          err = space_error (gpg_error_from_syserror ());
          goto leave;
        }
    }
  if (fd < 0)
    {
      err = gpg_error (GPG_ERR_INTERNAL);
      goto leave;
    }
  have_tmp = 1;

  err = ks_write_all (fd, data, len);
  if (!err && fsync (fd))
    err = gpg_error_from_syserror ();
  if (!err)
    futimens (fd, epoch_times);
  if (!err && close (fd))
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
   * epoch; the directory's mtime changed and is reset before the
   * fsync that makes it all durable.  */
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
ks_store_open_shard (ks_store_t *store, const char *name,
                     int *r_fd, uint64_t *r_size)
{
  char rel[6 + KS_NAME_HEX_LEN + 1];
  struct stat st;
  int fd;

  *r_fd = -1;
  *r_size = 0;
  if (!ks_store_name_is_valid (name))
    return gpg_error (GPG_ERR_INV_NAME);
  path_of (name, rel);
  fd = ks_io_openat_quiet (store->rootfd, rel,
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
ks_store_has (ks_store_t *store, const char *name)
{
  char rel[6 + KS_NAME_HEX_LEN + 1];
  struct stat st;

  if (!ks_store_name_is_valid (name))
    return 0;
  path_of (name, rel);
  return !fstatat (store->rootfd, rel, &st, AT_SYMLINK_NOFOLLOW);
}
