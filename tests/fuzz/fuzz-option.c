/* fuzz-option.c - an Assuan OPTION value (keysafe-helper's name=)
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The value comes from whatever talks to the helper.  Unescaping must
 * stay inside the input, never produce more bytes than it read, never
 * let a NUL through, and escaping the result again must give it back.
 */
#include <config.h>
#include <stdio.h>
#include <stdlib.h>
#include "keysafe.h"
#include "fuzz.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  char *text, *out = NULL, *again = NULL, *esc, *e;
  size_t i, n;

  fuzz_init ();
  text = ks_malloc (size + 1);
  if (!text)
    abort ();
  memcpy (text, data, size);
  text[size] = 0;
  if (!ks_buf_unescape (text, 1, &out))
    {
      n = strlen (out);
      if (n > strlen (text))
        abort ();
      /* Escape every byte and unescape again: the same string.  */
      esc = e = ks_malloc (3 * n + 1);
      if (!esc)
        abort ();
      for (i = 0; i < n; i++, e += 3)
        snprintf (e, 4, "%%%02X", (unsigned char)out[i]);
      *e = 0;
      if (ks_buf_unescape (esc, 0, &again) || strcmp (again, out))
        abort ();
      ks_free (again);
      ks_free (esc);
      ks_free_secret (out, n + 1);
    }
  ks_free (text);
  return 0;
}
