/* i18n.c - gettext set-up
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>
#include "i18n.h"

void
ks_i18n_init (void)
{
  setlocale (LC_ALL, "");
  bindtextdomain (PACKAGE, LOCALEDIR);
  textdomain (PACKAGE);
}
