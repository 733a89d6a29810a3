/* shardstore.h - the on-disk layout of a shard store
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The rules every writer and reader of a store directory follows, so a
 * directory filled by one can be read by the other: keysafe-server's
 * store and a client's directory location (file:///path) are the same
 * layout.
 *
 * A shard NAME (64 lowercase hex) lives in ROOT/ab/cd/NAME, where ab and
 * cd are the first two pairs of its characters.  A write goes to a temp
 * file "tmp.XXXXXXXXXX" in the same directory (a name that can never be a
 * shard name), is written whole and fsync'd, then linked to its final
 * name with link(2), which fails if the name exists: the first writer
 * wins and a stored shard is never replaced.  The temp name is unlinked
 * and the directory fsync'd before success is reported, so a crash at any
 * instant leaves either the whole shard or nothing (plus a temp file that
 * no reader takes for a shard, and ks_shardstore_sweep removes).  The times of every shard and of its
 * directories are the epoch, so the store tells no one when a shard
 * arrived.  All paths are opened relative to a descriptor of ROOT and
 * without following symbolic links below it.
 */
#ifndef KS_SHARDSTORE_H
#define KS_SHARDSTORE_H

#include "keysafe.h"

#define KS_SHARDSTORE_TMP_PREFIX "tmp."
/* "ab/cd/" + name + NUL.  */
#define KS_SHARDSTORE_RELPATH_SIZE (6 + KS_NAME_HEX_LEN + 1)

/* "ab/cd" of NAME into OUT (6 bytes).  */
void ks_shardstore_subdir (const char *name, char *out);
/* "ab/cd/NAME" of NAME into OUT (KS_SHARDSTORE_RELPATH_SIZE bytes).  */
void ks_shardstore_relpath (const char *name, char *out);

/* True if NAME is exactly 64 lowercase hex characters.  */
int ks_shardstore_name_is_valid (const char *name);
/* True if S is exactly two lowercase hex characters (a directory level).  */
int ks_shardstore_pair_is_valid (const char *s);

/* openat(2) with O_NOATIME added: reading a shard or listing a store
 * directory must not write its access time.  The store keeps every time
 * at the epoch, and an access time would tell when a shard was last
 * fetched; it also makes the first read of each shard an inode write
 * for the journal, which is slow while the disk is busy.  Falls back to
 * a plain open where O_NOATIME is not allowed (EPERM: a file the
 * process does not own).  */
int ks_shardstore_openat_quiet (int dirfd, const char *path, int flags);

/* Bytes and inodes free for an unprivileged writer on ROOTFD's
 * filesystem (UINT64_MAX inodes where it has no inode limit).  */
gpg_error_t ks_shardstore_free_space (int rootfd, uint64_t *r_bytes,
                                      uint64_t *r_files);

/* 0 if a shard of LEN bytes fits below ROOTFD leaving RESERVE bytes and
 * RESERVE_FILES inodes free, else GPG_ERR_ENOSPC.  A full inode table
 * stops a filesystem as surely as full blocks, and a shard may need
 * three inodes: its two directories and itself.  */
gpg_error_t ks_shardstore_room (int rootfd, uint64_t len, uint64_t reserve,
                                uint64_t reserve_files);

/* Store LEN bytes of DATA under NAME below the directory ROOTFD,
 * creating ab/ and ab/cd/ as needed.  GPG_ERR_EEXIST when the name is
 * taken (the stored shard is untouched); GPG_ERR_ENOSPC when
 * ks_shardstore_room refuses (RESERVE bytes, RESERVE_FILES inodes) or
 * the disk or quota is full; GPG_ERR_INV_NAME for a bad NAME.  On every
 * error nothing is left under NAME and the temp file is removed.  */
gpg_error_t ks_shardstore_put_reserved (int rootfd, const char *name,
                                        const void *data, size_t len,
                                        uint64_t reserve,
                                        uint64_t reserve_files);
/* The same without an inode reserve.  */
gpg_error_t ks_shardstore_put (int rootfd, const char *name,
                               const void *data, size_t len,
                               uint64_t reserve);

/* Open the shard NAME below ROOTFD for reading, without touching its
 * access time; R_FD gets a descriptor the caller closes and R_SIZE its
 * size.  GPG_ERR_ENOENT when there is no such shard (or something that
 * is not a regular file is in its place).  */
gpg_error_t ks_shardstore_open (int rootfd, const char *name,
                                int *r_fd, uint64_t *r_size);

/* True if something is stored under NAME (a cheap early "exists").  */
int ks_shardstore_has (int rootfd, const char *name);

/* Read the whole shard NAME below ROOTFD into a new buffer of at most
 * MAX bytes (*R_BUF, free with ks_buf_free).  GPG_ERR_ENOENT as for
 * ks_shardstore_open, GPG_ERR_TOO_LARGE when it is larger than MAX.  */
gpg_error_t ks_shardstore_get (int rootfd, const char *name, size_t max,
                               ks_buf_t **r_buf);

/* Remove the temp files a crash left in the ab/cd directories below
 * ROOTFD; *R_REMOVED (may be NULL) gets their number.  Only the two
 * levels of the tree can hold them; anything else out of place is left
 * for a store check to report.  */
gpg_error_t ks_shardstore_sweep (int rootfd, unsigned long *r_removed);

#endif /* KS_SHARDSTORE_H */
