/* store.h - the shard store: flat files in a hashed directory tree
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * keysafe-server's handle on a store directory.  The layout (STORE/ab/cd/
 * NAME, temp file, fsync, link without replacing, directory fsync, epoch
 * times) is common/shardstore.h's, the same a client's directory
 * location follows.  The server adds the sweep of temp files at start
 * and a reserve of inodes.
 */
#ifndef KS_SERVER_STORE_H
#define KS_SERVER_STORE_H

#include <stdint.h>
#include "keysafe.h"
#include "shardstore.h"

typedef struct ks_store ks_store_t;

/* Open the store at DIR (created mode 0700 if missing), remove temp
 * files left by a crash and return the handle.  R_REMOVED (may be NULL)
 * gets the number of temp files removed.  */
gpg_error_t ks_store_open (const char *dir, ks_store_t **r_store,
                           unsigned long *r_removed);
void ks_store_close (ks_store_t *store);

/* Store DATA under NAME.  GPG_ERR_EEXIST when the name is taken (the
 * stored shard is untouched), GPG_ERR_ENOSPC when the write would leave
 * less than RESERVE bytes free or the disk is full; in every error case
 * nothing is left under NAME.  Free inodes are
 * checked as ks_store_room does.  */
gpg_error_t ks_store_put (ks_store_t *store, const char *name,
                          const void *data, size_t len, uint64_t reserve);

/* Open the shard NAME for reading; R_FD gets a descriptor the caller
 * closes and R_SIZE its size.  GPG_ERR_ENOENT when it does not exist.  */
gpg_error_t ks_store_open_shard (ks_store_t *store, const char *name,
                                 int *r_fd, uint64_t *r_size);

/* True if NAME exists (a cheap early 409).  */
int ks_store_has (ks_store_t *store, const char *name);

/* Bytes and inodes free for an unprivileged writer on the store's
 * filesystem (UINT64_MAX inodes where it has no inode limit).  */
gpg_error_t ks_store_free_space (ks_store_t *store, uint64_t *r_bytes,
                                 uint64_t *r_files);

/* Inodes a store never eats into: a full inode table stops the whole
 * filesystem as surely as full blocks.  */
#define KS_STORE_RESERVE_FILES 1024

/* 0 if a shard of LEN bytes fits leaving RESERVE bytes and
 * KS_STORE_RESERVE_FILES inodes free, else GPG_ERR_ENOSPC.  */
gpg_error_t ks_store_room (ks_store_t *store, uint64_t len,
                           uint64_t reserve);

/* What a walk of a store found.  */
typedef struct ks_store_report
{
  unsigned long shards;      /* well-formed shard files */
  uint64_t bytes;            /* their total size */
  unsigned long tempfiles;   /* tmp.* files (in flight or left by a crash) */
  unsigned long misplaced;   /* anything else: wrong names, places, types */
  unsigned long empty;       /* zero-length shard files */
} ks_store_report_t;

/* Walk the store at DIR.  With VERBOSE every entry out of place is
 * printed to stderr (paths relative to DIR).  */
gpg_error_t ks_store_check (const char *dir, int verbose,
                            ks_store_report_t *r_report);

/* Call CB for every shard under DIR (in no particular order) with its
 * name and an open descriptor (closed by the walker after CB returns).
 * A non-zero return from CB stops the walk and is returned.  */
typedef gpg_error_t (*ks_store_walk_cb_t) (void *opaque, const char *name,
                                           int fd, uint64_t size);
gpg_error_t ks_store_walk (const char *dir, ks_store_walk_cb_t cb,
                           void *opaque);

#endif /* KS_SERVER_STORE_H */
