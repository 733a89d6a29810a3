/* fuzz-queue.c - an upload-queue file as found in the GnuPG home
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Anything with write access to the home may leave junk in the queue
 * directory; the parser must refuse it cleanly, and what it accepts must
 * hold exactly the bytes after the URL line.
 */
#include <config.h>
#include <stdlib.h>
#include "keysafe.h"
#include "queue.h"
#include "fuzz.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  ks_queue_entry_t e;

  fuzz_init ();
  if (ks_queue_parse_entry (data, size, &e))
    return 0;
  if (!e.url || strchr (e.url, '\n')
      || e.len > size || memcmp (e.data, data + size - e.len, e.len))
    abort ();
  ks_queue_entry_release (&e);
  return 0;
}
