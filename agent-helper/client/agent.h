/* agent.h - asking for a password through gpg-agent's pinentry
 * Copyright (C) 2026 The keysafe authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * keysafe and keysafe-helper never draw a password dialog themselves:
 * they ask gpg-agent (Assuan GET_PASSPHRASE over the agent's socket),
 * so the desktop's normal pinentry asks, with the same look, the same
 * grab of the keyboard and the same tty/X11/Wayland handling as gpg.
 *
 * GPGME finds the agent (gpgme_get_dirinfo "agent-socket"; for a home
 * other than the default one `gpgconf --homedir H --list-dirs`) and talks
 * to it with its Assuan engine; `gpgconf --launch gpg-agent` starts it
 * when it is not running.  The session's display, tty, TERM and locale
 * are passed to the agent (OPTION ...) so pinentry appears where the
 * user is.  The password is never cached by the agent (cache id "X").
 */
#ifndef KS_AGENT_H
#define KS_AGENT_H

#include "keysafe-client.h"

/* Asking gpg-agent for a password:
 *
 *   HOMEDIR  the GnuPG home, or NULL for the default (GNUPGHOME or ~/.gnupg).
 *   DESC     the text of the dialog, already translated; newlines allowed.
 *            NULL gives a generic text.
 *   PROMPT   the label in front of the entry field (e.g. _("Password:")),
 *            already translated; NULL gives a generic label.
 *   REPEAT   non-zero: pinentry asks a second time and the two must match
 *            (backup); zero: asked once (restore, check).
 *   R_PW     set to NULL on entry; on success a NUL-terminated password in
 *            libgcrypt secure memory, to be freed with
 *            ks_free_secret (*r_pw, strlen (*r_pw)).
 *
 * Errors (gpg-error codes; nothing is printed):
 *   GPG_ERR_NO_AGENT      no gpg-agent could be reached or started: the
 *                         caller may fall back to the terminal.
 *   GPG_ERR_CANCELED      the user pressed Cancel (or closed the dialog).
 *   GPG_ERR_NO_PIN_ENTRY  the agent could not run a pinentry (no tty and
 *                         no display): a fallback may make sense too.
 *   GPG_ERR_NO_PASSPHRASE the user entered an empty password.
 *   GPG_ERR_TOO_LARGE     the password is longer than KS_AGENT_MAX_PW.
 *   anything else the agent said, with its source.
 *
 * ks_agent_get_passphrase (const char *homedir, const char *desc,
 *                          const char *prompt, int repeat, char **r_pw)
 * is declared in keysafe-client.h, with KS_AGENT_MAX_PW.
 */

/* The same with an ERRTEXT shown above the entry (e.g. "too weak, try
 * again"), or NULL for none.  */
gpg_error_t ks_agent_get_passphrase_err (const char *homedir,
                                         const char *errtext,
                                         const char *desc,
                                         const char *prompt, int repeat,
                                         char **r_pw);

/* ks_agent_gpgconf_dir: keysafe-client.h.  */

#endif /* KS_AGENT_H */
