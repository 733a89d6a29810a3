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
 * no reader takes for a shard).  The times of every shard and of its
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

/* Store LEN bytes of DATA under NAME below the directory ROOTFD,
 * creating ab/ and ab/cd/ as needed.  GPG_ERR_EEXIST when the name is
 * taken (the stored shard is untouched); GPG_ERR_ENOSPC when the write
 * would leave less than RESERVE bytes free or the disk or quota is full;
 * GPG_ERR_INV_NAME for a bad NAME.  On every error nothing is left under
 * NAME and the temp file is removed.  */
gpg_error_t ks_shardstore_put (int rootfd, const char *name,
                               const void *data, size_t len,
                               uint64_t reserve);

/* Read the whole shard NAME below ROOTFD into a new buffer of at most
 * MAX bytes (*R_BUF, free with ks_buf_free).  GPG_ERR_ENOENT when there
 * is no such shard (or something that is not a regular file is in its
 * place), GPG_ERR_TOO_LARGE when it is larger than MAX.  */
gpg_error_t ks_shardstore_get (int rootfd, const char *name, size_t max,
                               ks_buf_t **r_buf);

/* Bytes free for an unprivileged writer on ROOTFD's filesystem.  */
gpg_error_t ks_shardstore_free_bytes (int rootfd, uint64_t *r_free);

#endif /* KS_SHARDSTORE_H */
