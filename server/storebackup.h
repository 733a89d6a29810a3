/* storebackup.h - the operator's encrypted backup of a store (GPGME)
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A backup is one archive of every shard (archive.h), signed with the
 * operator's OpenPGP key and encrypted to it.  The end record makes a
 * truncated archive detectable, the signature a forged one; a restore
 * checks both before it stores anything.
 */
#ifndef KS_SERVER_STOREBACKUP_H
#define KS_SERVER_STOREBACKUP_H

#include "keysafe.h"

/* How many backups --backup-store keeps: FILE (newest) and FILE.1 ..
 * FILE.6.  */
#define KS_BACKUP_KEEP 7

/* Write the store DIR, signed by SIGNER (a secret key) and encrypted
 * to RECIPIENT, to FILE; rotate older backups.  R_COUNT gets the number
 * of shards written.  */
gpg_error_t ks_backup_store (const char *dir, const char *file,
                             const char *recipient, const char *signer,
                             unsigned long *r_count);

/* Decrypt FILE and, once it is known to be complete and signed by
 * SIGNER, put its shards into the store DIR; shards that exist are left
 * alone and counted in R_SKIPPED.  MAX_SHARD bounds a record.  Nothing
 * is stored from a truncated, malformed or unsigned archive.  */
gpg_error_t ks_restore_store (const char *dir, const char *file,
                              const char *signer, size_t max_shard,
                              unsigned long *r_added,
                              unsigned long *r_skipped);

#endif /* KS_SERVER_STOREBACKUP_H */
