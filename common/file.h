/* file.h - whole files: written atomically, read with a bound
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef KS_FILE_H
#define KS_FILE_H

#include <sys/uio.h>
#include "util.h"

/* Write the IOVCNT parts of IOV, one after the other, to PATH (mode
 * 0600): into PATH.tmp (O_EXCL, O_NOFOLLOW), fsync, rename over PATH,
 * fsync of the directory.  A crash at any point leaves the old PATH or
 * the whole new one; on an error PATH.tmp is removed.  */
gpg_error_t ks_file_write_atomic (const char *path, const struct iovec *iov,
                                  int iovcnt);

/* Read all of PATH (opened O_NOFOLLOW, so a planted symlink is not
 * followed) into *R_DATA, allocated with ks_malloc (ks_malloc_secure
 * when SECURE), with a NUL after the content that *R_LEN does not count.
 * GPG_ERR_TOO_LARGE when the file has more than MAX bytes; nothing is
 * returned on an error.  Free with ks_free, or ks_free_secret when
 * SECURE.  */
gpg_error_t ks_file_read (const char *path, size_t max, int secure,
                          uint8_t **r_data, size_t *r_len);

#endif /* KS_FILE_H */
