/* i18n.c - gettext set-up
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "i18n.h"

/* The directory that holds LANG/LC_MESSAGES/keysafe.mo.  Normally the
   configured LOCALEDIR; the environment variable KEYSAFE_LOCALEDIR
   replaces it so that the test suite (and a translator checking a
   catalogue) can run an uninstalled program against the build tree's
   catalogue.  The variable only chooses message texts, which the user
   can already choose with LANGUAGE, so honouring it gives nothing away;
   it is still ignored in a set-id process, whose environment belongs to
   someone else.  */
static const char *
locale_dir (void)
{
  const char *s = getenv ("KEYSAFE_LOCALEDIR");

  if (!s || !*s || getuid () != geteuid () || getgid () != getegid ())
    return LOCALEDIR;
  return s;
}

void
ks_i18n_init (void)
{
  setlocale (LC_ALL, "");
  bindtextdomain (PACKAGE, locale_dir ());
  textdomain (PACKAGE);
}

const char *
ks_i18n_bugreport (void)
{
  /* Only the main thread prints usage texts, so one buffer will do.  */
  static char line[256];

  if (snprintf (line, sizeof line, _("Please report bugs to <%s>.\n"),
                PACKAGE_BUGREPORT) >= (int)sizeof line)
    snprintf (line, sizeof line, "<%s>\n", PACKAGE_BUGREPORT);
  return line;
}
