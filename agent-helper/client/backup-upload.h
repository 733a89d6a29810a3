/* backup-upload.h - sending a backup's shards so that none strand
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The names are probed first (a 200 means the name is taken).  Then up
 * to K-1 shards of every object are written to the upload queue
 * *before* anything is sent (write-ahead), so a backup killed half-way
 * is finished by `keysafe upload-queued`; never K of them, so the
 * laptop never holds enough shards to attack the password without the
 * name.  The other shards go first; the queued ones follow and leave
 * the queue on a 201 (or a 409 whose stored bytes equal ours).
 */
#ifndef KS_BACKUP_UPLOAD_H
#define KS_BACKUP_UPLOAD_H

#include "flowutil.h"

/* Probe for a backup under SET's item name what a restore would ask:
 * every location of LIST (the list and the backup records) for chunk
 * 0 of every share 1 .. max (SET->n, LIST->count) bound to it.
 * *R_TAKEN is set when two or more locations hold one (protocol.md
 * section 8: the least k is 2, so a restorable backup shows on two; a
 * single lying location can neither claim nor block a name).  R_DOWN[i]
 * is set when SERVERS[i], a picked location, did not answer.  */
gpg_error_t ks_backup_probe (const ks_options_t *opt, const ks_ui_t *ui,
                             const ks_shardset_t *set,
                             const ks_serverlist_t *list,
                             const ks_server_t **servers,
                             int *r_taken, int *r_down);

/* Send SET to SERVERS (DOWN from the probe) as described above and
 * fill the per-location part of R (outcome, why, nstored, queued,
 * restorable).  */
gpg_error_t ks_backup_send (const ks_options_t *opt, const ks_ui_t *ui,
                            const ks_shardset_t *set,
                            const ks_server_t **servers, const int *down,
                            ks_backup_result_t *r);

#endif /* KS_BACKUP_UPLOAD_H */
