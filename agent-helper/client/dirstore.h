/* dirstore.h - a local directory as a shard location (file:///path)
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A directory location holds shards in exactly keysafe-server's store
 * layout (common/shardstore.h): a USB stick or a synced folder filled by
 * the client can later be served by keysafe-server --store unchanged,
 * and a server's store can be read as a directory.  The never-replace
 * rule is the server's: the first writer wins.  A put of the bytes that
 * are already stored under the name counts as stored (a queued shard
 * sent twice); other bytes under the name are "exists", as a server's
 * 409.
 *
 * The top directory is never created by a put or a get: a removable disk
 * that is not mounted leaves its mount point empty, and writing there
 * would put the shard on the wrong disk.  A missing or gone directory,
 * and a mount point of /etc/fstab with nothing mounted on it, give
 * GPG_ERR_ENODEV, so the caller can queue the shard and tell the
 * user; ks_dirstore_create makes it on the user's explicit request.
 */
#ifndef KS_DIRSTORE_H
#define KS_DIRSTORE_H

#include "keysafe.h"
#include "transport.h"

#define KS_DIRSTORE_SCHEME "file://"

/* True when BASE is a directory location ("file://...").  */
int ks_dirstore_is_url (const char *base);

/* The directory of the location URL BASE ("file:///path" or
 * "file://localhost/path", %XX escapes decoded) into *R_PATH
 * (gpgrt_malloc'd).  GPG_ERR_INV_URI for anything else, a relative path
 * or an escaped NUL.  */
gpg_error_t ks_dirstore_path (const char *base, char **r_path);

/* 0 when the location BASE is there and is a directory; GPG_ERR_ENODEV
 * when it does not exist, is not a directory or its disk is gone (not
 * mounted, pulled out, a dead network mount; an fstab mount point with
 * nothing mounted); GPG_ERR_INV_URI for a bad
 * BASE; other errors (EACCES) as they are.  */
gpg_error_t ks_dirstore_is_present (const char *base);

/* Create the top directory of BASE (mode 0700), on explicit request of
 * the user.  Its parent must exist: a mount point is never made up.  An
 * existing directory is fine.  */
gpg_error_t ks_dirstore_create (const char *base);

/* Store LEN bytes of DATA under NAME at BASE.  0 when stored, or when
 * the same bytes were already there; GPG_ERR_EEXIST when other bytes
 * hold NAME; GPG_ERR_ENOSPC when the disk is full; GPG_ERR_ENODEV when
 * the location is not there.  Nothing half-written is ever left under
 * NAME.  */
gpg_error_t ks_dirstore_put (const char *base, const char *name,
                             const void *data, size_t len);

/* Read the shard NAME at BASE, at most MAX bytes, into *R_BUF.
 * GPG_ERR_ENOENT when there is none, GPG_ERR_ENODEV when the location is
 * not there, GPG_ERR_TOO_LARGE above MAX.  */
gpg_error_t ks_dirstore_get (const char *base, const char *name,
                             size_t max, ks_buf_t **r_buf);

/* Run one transfer X whose base is a file:// URL the way a server would
 * answer it: a PUT gets status 201 (stored), 409 (other bytes hold the
 * name) or 507 (disk full); a GET gets 200 with X->resp or 404.  A
 * location that is not there, or any other failure, leaves status 0
 * with X->err and X->errtext set, as an unreachable server does, so the
 * caller queues the shard.  */
void ks_dirstore_xfer (ks_xfer_t *x);

#endif /* KS_DIRSTORE_H */
