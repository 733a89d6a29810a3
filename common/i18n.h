/* i18n.h - gettext glue
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef KS_I18N_H
#define KS_I18N_H

#include <libintl.h>
#include <locale.h>

#define _(s) gettext (s)
#define N_(s) (s)

/* setlocale + bindtextdomain for the keysafe domain.  The catalogue
   directory is LOCALEDIR, or $KEYSAFE_LOCALEDIR when that is set and
   the process is not set-id (for running from the build tree).  */
void ks_i18n_init (void);

/* The translated "Please report bugs to <ADDRESS>." line of --help
   (strusage level 19).  The address is not part of the msgid, so that
   xgettext sees the whole string.  Points to a static buffer.  */
const char *ks_i18n_bugreport (void);

#endif /* KS_I18N_H */
