/* storebackup.h - the operator's encrypted backup of a store (GPGME)
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A backup is one archive of every shard, encrypted to the operator's
 * OpenPGP key.  The archive format ("KSSTORE1") is described in
 * doc/server-operator.md:
 *
 *   "KSSTORE1"                                    8 bytes
 *   per shard: 'S' || name (32 raw bytes) || be32 length || bytes
 *   end:       'E' || be64 number of shards
 *
 * The end record makes a truncated archive detectable; OpenPGP's
 * integrity protection covers the rest.
 */
#ifndef KS_SERVER_STOREBACKUP_H
#define KS_SERVER_STOREBACKUP_H

#include "keysafe.h"

/* How many backups --backup-store keeps: FILE (newest) and FILE.1 ..
 * FILE.6.  */
#define KS_BACKUP_KEEP 7

/* Write the store DIR, encrypted to RECIPIENT, to FILE; rotate older
 * backups.  R_COUNT gets the number of shards written.  */
gpg_error_t ks_backup_store (const char *dir, const char *file,
                             const char *recipient, unsigned long *r_count);

/* Decrypt FILE and put its shards into the store DIR; shards that exist
 * are left alone and counted in R_SKIPPED.  MAX_SHARD bounds a record.  */
gpg_error_t ks_restore_store (const char *dir, const char *file,
                              size_t max_shard, unsigned long *r_added,
                              unsigned long *r_skipped);

#endif /* KS_SERVER_STOREBACKUP_H */
