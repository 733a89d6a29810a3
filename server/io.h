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

#endif /* KS_SERVER_IO_H */
