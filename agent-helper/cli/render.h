/* render.h - the command line's sentences for the flows' results
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The flows hand back what happened (keysafe-client.h); these turn it
 * into the translated lines the user reads, through UI->info for what
 * went well and UI->error for the line that explains a failure.
 */
#ifndef KS_RENDER_H
#define KS_RENDER_H

#include "keysafe-client.h"

void ks_render_backup (const ks_ui_t *ui, const ks_backup_result_t *r);
void ks_render_restore (const ks_ui_t *ui, const ks_fetch_result_t *r);
void ks_render_check (const ks_ui_t *ui, const ks_fetch_result_t *r);
void ks_render_queue (const ks_ui_t *ui, const ks_queue_result_t *r);
void ks_render_firstboot (const ks_ui_t *ui, const ks_firstboot_result_t *r);

#endif /* KS_RENDER_H */
