/* io.h - small I/O helpers of keysafe-server
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef KS_SERVER_IO_H
#define KS_SERVER_IO_H

#include "keysafe.h"

/* Write all LEN bytes of BUF to FD, retrying short writes and EINTR.  */
gpg_error_t ks_io_write_all (int fd, const void *buf, size_t len);

#endif /* KS_SERVER_IO_H */
