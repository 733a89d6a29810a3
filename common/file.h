/* file.h - whole files (written atomically, read with a bound), listings
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef KS_FILE_H
#define KS_FILE_H

#include <sys/uio.h>
#include <dirent.h>
#include "util.h"

/* Write the IOVCNT parts of IOV, one after the other, to PATH (mode
 * 0600): into an unnamed file of PATH's directory (O_TMPFILE), fsync,
 * linked as PATH.tmp once complete, renamed over PATH, fsync of the
 * directory.  Where O_TMPFILE or /proc is missing, PATH.tmp is written
 * directly (O_EXCL, O_NOFOLLOW).  A crash at any point leaves the old
 * PATH or the whole new one, and with O_TMPFILE no partial file at
 * all; on an error PATH.tmp is removed.  */
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
/* The same for the file NAME in the directory DIRFD, opened also
 * O_NONBLOCK: a FIFO planted among state files reads as empty instead
 * of blocking the program.  */
gpg_error_t ks_file_read_at (int dirfd, const char *name, size_t max,
                             int secure, uint8_t **r_data, size_t *r_len);

/* The entries of the directory DIR that KEEP accepts (with KEEP NULL
 * all but "." and ".."), at most MAX, in directory order, into *R_NAMES:
 * a ks_malloc'd array of *R_COUNT ks_malloc'd names.  A missing DIR is
 * an empty list.  Free with ks_dir_list_free.  */
gpg_error_t ks_dir_list (const char *dir, int (*keep) (const char *name),
                         size_t max, char ***r_names, size_t *r_count);
void ks_dir_list_free (char **names, size_t count);

/* The directory open on FD as a stream for readdir, in *R_DIR; FD is
 * consumed either way (closedir closes it).  */
gpg_error_t ks_dir_from_fd (int fd, DIR **r_dir);

#endif /* KS_FILE_H */
