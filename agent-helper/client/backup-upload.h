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

/* Probe SERVERS for the names of chunk 0 that a restore of SET would
 * ask them (SET->probe_names).  *R_TAKEN is set when K or more of them
 * already hold one: a backup exists under the name.  Fewer prove
 * nothing (one lying server could claim every name) and the upload
 * goes on; such a server answers 409 and is checked then.  R_DOWN[i]
 * is set when server i did not answer the probe.  */
gpg_error_t ks_backup_probe (const ks_options_t *opt, const ks_ui_t *ui,
                             const ks_shardset_t *set,
                             const ks_server_t **servers, int *r_taken,
                             int *r_down);

/* Send SET to SERVERS (DOWN from the probe) as described above and
 * fill the per-location part of R (outcome, why, nstored, queued,
 * restorable).  */
gpg_error_t ks_backup_send (const ks_options_t *opt, const ks_ui_t *ui,
                            const ks_shardset_t *set,
                            const ks_server_t **servers, const int *down,
                            ks_backup_result_t *r);

#endif /* KS_BACKUP_UPLOAD_H */
