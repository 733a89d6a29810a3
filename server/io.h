/* io.h - small I/O helpers of keysafe-server
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef KS_SERVER_IO_H
#define KS_SERVER_IO_H

#include "keysafe.h"

/* Read all SIZE bytes of the file open at FD, from offset 0, into a new
 * malloc'd buffer at R_DATA.  A file shorter than SIZE (it changed since
 * its fstat; the store never rewrites a shard) is GPG_ERR_EOF.  */
gpg_error_t ks_io_read_all (int fd, uint64_t size, char **r_data);

/* openat(2) with O_NOATIME added: reading a shard or listing a store
 * directory must not write its access time.  The store keeps every time
 * at the epoch, and an access time would tell when a shard was last
 * fetched; it also makes the first read of each shard an inode write
 * for the journal, which is slow while the disk is busy.  Falls back to
 * a plain open where O_NOATIME is not allowed (EPERM: a file the
 * process does not own).  */
int ks_io_openat_quiet (int dirfd, const char *path, int flags);

#endif /* KS_SERVER_IO_H */
