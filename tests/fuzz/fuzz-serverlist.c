/* fuzz-serverlist.c - a server list file
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The list comes from a file the user or a distribution edits; the
 * parser must refuse junk with a message and never accept a server
 * whose URL is not http(s) with a host.
 */
#include <config.h>
#include <stdlib.h>
#include "keysafe.h"
#include "serverlist.h"
#include "fuzz.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  gpg_error_t err;
  ks_serverlist_t *list;
  char errtext[256];
  char *text;
  size_t i;

  fuzz_init ();
  list = ks_calloc (1, sizeof *list);
  text = ks_malloc (size + 1);
  if (!list || !text)
    abort ();
  memcpy (text, data, size);
  text[size] = 0;
  *errtext = 0;
  err = ks_serverlist_parse (text, "fuzz", list, errtext, sizeof errtext);
  if (!err)
    {
      for (i = 0; i < list->count; i++)
        if (strncmp (list->server[i].url, "http", 4)
            || strchr (list->server[i].url, '\n'))
          abort ();
    }
  else if (!*errtext && gpg_err_code (err) != GPG_ERR_TOO_LARGE)
    abort ();   /* an error the user is not told about */
  ks_serverlist_free (list);
  ks_free (text);
  return 0;
}
