/* fuzz-record.c - the parser of the backup records in the GnuPG home
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>
#include <stdlib.h>
#include "keysafe.h"
#include "record.h"
#include "fuzz.h"

/* Whatever parses must format and parse back to the same record.  */
int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  ks_record_t rec, back;
  char *text = NULL;
  unsigned int i;

  if (!ks_record_parse (data, size, &rec))
    {
      if (ks_record_format (&rec, &text)
          || ks_record_parse (text, strlen (text), &back))
        abort ();
      if (back.time != rec.time || strcmp (back.profile, rec.profile)
          || strcmp (back.fpr, rec.fpr) || back.shares != rec.shares
          || back.threshold != rec.threshold
          || back.nlocations != rec.nlocations)
        abort ();
      for (i = 0; i < rec.nlocations; i++)
        if (strcmp (back.locations[i], rec.locations[i]))
          abort ();
      ks_record_release (&back);
      gpgrt_free (text);
    }
  ks_record_release (&rec);
  return 0;
}
