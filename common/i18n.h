/* i18n.h - gettext glue
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef KS_I18N_H
#define KS_I18N_H

#include <libintl.h>
#include <locale.h>

#define _(s) gettext (s)
#define N_(s) (s)

/* setlocale + bindtextdomain for the keysafe domain.  */
void ks_i18n_init (void);

#endif /* KS_I18N_H */
