/* store.c - the shard store: flat files in a hashed directory tree
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The layout and its rules are common/shardstore.c's, shared with the
 * client's directory locations; this file holds the server's handle.
 */
#include <config.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/stat.h>
#include "store.h"

struct ks_store
{
  int rootfd;
};

gpg_error_t
ks_store_open (const char *dirname, ks_store_t **r_store,
               unsigned long *r_removed)
{
  gpg_error_t err = 0;
  ks_store_t *store = NULL;

  *r_store = NULL;
  if (r_removed)
    *r_removed = 0;
  if (mkdir (dirname, 0700) && errno != EEXIST)
    return gpg_error_from_syserror ();
  store = calloc (1, sizeof *store);
  if (!store)
    return gpg_error_from_syserror ();
  store->rootfd = ks_shardstore_openat_quiet (AT_FDCWD, dirname,
                                              O_RDONLY | O_DIRECTORY
                                              | O_CLOEXEC);
  if (store->rootfd < 0)
    {
      err = gpg_error_from_syserror ();
      goto leave;
    }
  err = ks_shardstore_sweep (store->rootfd, r_removed);
  if (err)
    goto leave;
  *r_store = store;
  store = NULL;

 leave:
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
  return ks_shardstore_free_space (store->rootfd, r_bytes, r_files);
}

gpg_error_t
ks_store_room (ks_store_t *store, uint64_t len, uint64_t reserve)
{
  return ks_shardstore_room (store->rootfd, len, reserve,
                             KS_STORE_RESERVE_FILES);
}

gpg_error_t
ks_store_put (ks_store_t *store, const char *name,
              const void *data, size_t len, uint64_t reserve)
{
  return ks_shardstore_put_reserved (store->rootfd, name, data, len,
                                     reserve, KS_STORE_RESERVE_FILES);
}

gpg_error_t
ks_store_open_shard (ks_store_t *store, const char *name,
                     int *r_fd, uint64_t *r_size)
{
  return ks_shardstore_open (store->rootfd, name, r_fd, r_size);
}

int
ks_store_has (ks_store_t *store, const char *name)
{
  return ks_shardstore_has (store->rootfd, name);
}
