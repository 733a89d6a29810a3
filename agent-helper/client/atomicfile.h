/* atomicfile.h - files written whole or not at all
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef KS_ATOMICFILE_H
#define KS_ATOMICFILE_H

#include <sys/uio.h>
#include "keysafe.h"

/* Write the IOVCNT parts of IOV, one after the other, to PATH (mode
 * 0600): into PATH.tmp (O_EXCL, O_NOFOLLOW), fsync, rename over PATH,
 * fsync of the directory.  A crash at any point leaves the old PATH or
 * the whole new one; on an error PATH.tmp is removed.  */
gpg_error_t ks_atomic_write (const char *path, const struct iovec *iov,
                             int iovcnt);

#endif /* KS_ATOMICFILE_H */
