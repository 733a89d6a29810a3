/* settings.c - where keysafe.conf is
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Both faces read $GNUPGHOME/keysafe.conf with libgpg-error's argparser
 * (gpgrt_argparser with ARGPARSE_FLAG_USER), as gpg reads gpg.conf;
 * this tells the argparser which folder that is, before GPGME is up.
 */
#include <config.h>
#include <stdlib.h>
#include "keysafe-client.h"

int
ks_settings_set_confdir (const char *homedir)
{
  const char *home = homedir;
  char *buf = NULL;

  if (!home || !*home)
    home = getenv ("GNUPGHOME");
  if ((!home || !*home) && getenv ("HOME"))
    home = buf = gpgrt_bsprintf ("%s/.gnupg", getenv ("HOME"));
  if (!home || !*home)
    return 0;
  gpgrt_set_confdir (GPGRT_CONFDIR_USER, home);
  gpgrt_free (buf);
  return 1;
}
