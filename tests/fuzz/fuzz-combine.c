/* fuzz-combine.c - shard combination and object opening, without the KDF
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * fuzz-recover pays Argon2 for every input, so it runs slowly and its
 * coverage stays flat.  Here the encryption key E is fixed
 * (FUZZ_COMBINE_KEY), so the fuzzer works on what a hostile server
 * controls: which shards arrive for which chunk and what they hold.
 * The seeds (made by mkseed-combine) are real backups under that E, so
 * mutations reach the candidate subsets, the chunk rounds and the
 * padding check.  Input: records of one byte (chunk j = bits 4-5,
 * share x = bits 0-2) and one object of the test profile.
 */
#include <config.h>
#include <stdlib.h>
#include "keysafe.h"
#include "fuzz.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  static int initialised;
  static const ks_profile_t *prof;
  static uint8_t ekey[KS_KEY_LEN];
  ks_recover_t *rec = NULL;
  uint8_t *secret = NULL;
  size_t len = 0, osz, off;
  unsigned int count;

  if (!initialised)
    {
      if (ks_init ())
        abort ();
      prof = ks_profile_find ("test");
      memset (ekey, FUZZ_COMBINE_KEY, sizeof ekey);
      initialised = 1;
    }
  osz = prof->object_size;
  if (ks_recover_new_with_key (prof, ekey, &rec))
    abort ();
  for (off = 0, count = 0; off + 1 + osz <= size && count < 16;
       off += 1 + osz, count++)
    ks_recover_add_shard (rec, (data[off] >> 4) & 3, data[off] & 7,
                          data + off + 1, osz);
  if (!ks_recover_unlock (rec, NULL, 0, 1, NULL, NULL)
      && !ks_recover_finish (rec, &secret, &len))
    {
      if (!secret || len > (size_t)ks_recover_nchunks (rec) * osz)
        abort ();
      ks_free_secret (secret, len);
    }
  ks_recover_free (rec);
  return 0;
}
