/* fuzz-recover.c - shards from a (hostile) server into a restore
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The input is cut into shards of the test profile's size; the first
 * byte picks the share index of each.  A restore must fail cleanly,
 * never crash or read out of bounds, whatever a server sends.
 */
#include <config.h>
#include "keysafe.h"
#include "fuzz.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  static int initialised;
  static const ks_profile_t *prof;
  ks_recover_t *rec = NULL;
  uint8_t *secret = NULL;
  size_t len = 0, osz, off;
  unsigned int count = 0;

  if (!initialised)
    {
      if (ks_init ())
        abort ();
      prof = ks_profile_find ("test");
      initialised = 1;
    }
  osz = prof->object_size;
  if (ks_recover_new (prof, "fuzz", NULL, NULL, NULL, &rec))
    abort ();
  /* Shard c: one byte of x, then up to osz bytes (short ones are
   * refused, as from a server that sent junk).  */
  for (off = 0; off < size && count < 4; count++)
    {
      size_t take = size - off - 1 < osz ? size - off - 1 : osz;

      ks_recover_add_shard (rec, 0, data[off] % 8, data + off + 1, take);
      off += 1 + take;
    }
  if (!ks_recover_unlock (rec, "pw", 2, 1, NULL, NULL))
    {
      if (!ks_recover_finish (rec, &secret, &len))
        ks_free_secret (secret, len);
    }
  ks_recover_free (rec);
  return 0;
}
