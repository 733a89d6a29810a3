/* gpg.h - the GnuPG side: export, import, key listing and key creation via GPGME
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef KS_GPG_H
#define KS_GPG_H

#include "keysafe-client.h"

/* Export the secret key KEYID, minimal (third-party signatures dropped),
 * into secure memory (*R_DATA, *R_LEN; free with ks_free_secret).
 * GPG_ERR_NO_SECKEY when nothing matched.  R_FPR (may be NULL) gets the
 * fingerprint of the key, ks_malloc'd.  */
gpg_error_t ks_gpg_export_secret (const char *homedir, const char *keyid,
                                  uint8_t **r_data, size_t *r_len,
                                  char **r_fpr);

/* Import DATA; *R_FPR gets the fingerprint of the first imported key
 * (ks_malloc'd).  GPG_ERR_NO_SECKEY when no secret key was in it.  */
gpg_error_t ks_gpg_import (const char *homedir, const uint8_t *data,
                           size_t len, char **r_fpr);

/* ks_gpg_init and ks_gpg_list_secret: keysafe-client.h.  */

/* The fingerprint of the one secret key KEYID names, into FPR
 * (FPRSIZE bytes).  GPG_ERR_NO_SECKEY when there is none.  */
gpg_error_t ks_gpg_resolve_secret (const char *homedir, const char *keyid,
                                   char *fpr, size_t fprsize);

/* Make a key for USERID with GnuPG's default algorithm (primary key and
 * encryption subkey); its fingerprint goes to FPR.  gpg-agent protects
 * it the normal way (a passphrase asked through pinentry) unless
 * NO_PROTECTION.  */
gpg_error_t ks_gpg_create_key (const char *homedir, const char *userid,
                               int no_protection, char *fpr, size_t fprsize);

/* The GnuPG home directory in use (ks_malloc'd).  */
gpg_error_t ks_gpg_homedir (const char *homedir, char **r_dir);

/* Bytes of a buffer for a canonical key id: a v5 fingerprint + NUL.  */
#define KS_KEYID_BUFSIZE 65

/* The OpenPGP fingerprint (uppercase hex, 40 for v4, 64 for v5) that
 * names are bound to, from a user's KEYID (a fingerprint, or a 16-hex
 * long key id that GnuPG in HOMEDIR resolves to one key; optionally
 * "0x"), into OUT (KS_KEYID_BUFSIZE bytes).  GPG_ERR_INV_USER_ID for
 * anything else, GPG_ERR_NO_PUBKEY for a key id GnuPG does not know.  */
gpg_error_t ks_gpg_canon_keyid (const char *homedir, const char *keyid,
                                char *out);

#endif /* KS_GPG_H */
