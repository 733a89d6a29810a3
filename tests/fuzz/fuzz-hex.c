/* fuzz-hex.c - the strict hex decoder used for names and proofs
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>
#include <stdlib.h>
#include "keysafe.h"
#include "fuzz.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  char *text = malloc (size + 1);
  uint8_t out[64];
  char back[129];

  if (!text)
    return 0;
  memcpy (text, data, size);
  text[size] = 0;
  /* Whatever decodes must encode back to the same text, lowercased.  */
  if (!ks_hex_decode (text, out, 32))
    {
      size_t i;

      ks_hex_encode (out, 32, back);
      for (i = 0; i < 64; i++)
        if (back[i] != (text[i] >= 'A' && text[i] <= 'F'
                        ? text[i] - 'A' + 'a' : text[i]))
          abort ();
    }
  free (text);
  return 0;
}
