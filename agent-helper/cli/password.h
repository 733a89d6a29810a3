/* password.h - reading a password from a descriptor or the terminal
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Both return a NUL-terminated password in secure memory; free it with
 * ks_free_secret (pw, strlen (pw)).  gpg-agent's pinentry (agent.h) is
 * the first choice of the command line; these are the other two ways.
 */
#ifndef KS_PASSWORD_H
#define KS_PASSWORD_H

#include "keysafe.h"

#define KS_PASSWORD_MAX 1024

/* Read up to the first newline or EOF from FD (--password-fd).  */
gpg_error_t ks_password_from_fd (int fd, char **r_pw);

/* Ask on /dev/tty without echo; CONFIRM asks twice and compares.
 * GPG_ERR_ENOTTY without a terminal.  */
gpg_error_t ks_password_from_tty (const char *prompt, int confirm,
                                  char **r_pw);

/* Ask for a line on /dev/tty with echo (the item name), ks_malloc'd.  */
gpg_error_t ks_password_read_line_tty (const char *prompt, char **r_line);

#endif /* KS_PASSWORD_H */
