/* mkseed-combine.c - seeds for fuzz-combine: real backups under its E
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Usage: mkseed-combine DIR.  Writes a few backups (one and two chunks,
 * 2-of-3, shards in several orders and with one corrupt shard) in the
 * record format of fuzz-combine.c.
 */
#include <config.h>
#include <stdio.h>
#include <stdlib.h>
#include "keysafe.h"
#include "fuzz.h"

static void
write_seed (const char *dir, const char *name, const uint8_t *secret,
            size_t len, const char *order, int corrupt)
{
  const ks_profile_t *prof = ks_profile_find ("test");
  size_t osz = prof->object_size, cs = ks_profile_chunk_size (prof);
  uint8_t ekey[KS_KEY_LEN], iv[KS_IV_LEN], chunk[1024], obj[1024];
  uint8_t sh[4][1024], *shares[3] = { sh[0], sh[1], sh[2] };
  char path[4096];
  uint32_t nchunks, j;
  const char *o;
  FILE *fp;

  memset (ekey, FUZZ_COMBINE_KEY, sizeof ekey);
  if (cs > sizeof chunk || osz > sizeof obj
      || ks_object_count (prof, len, &nchunks))
    exit (99);
  snprintf (path, sizeof path, "%s/%s", dir, name);
  fp = fopen (path, "wb");
  if (!fp)
    exit (99);
  for (j = 0; j < nchunks; j++)
    {
      ks_object_chunk (prof, secret, len, j, chunk);
      memset (iv, (int)j + 1, sizeof iv);
      if (ks_object_seal (prof, ekey, j, iv, chunk, obj)
          || ks_shamir_split (obj, osz, 2, 3, shares))
        exit (99);
      if (corrupt)
        sh[(unsigned char)order[0] - '1'][7] ^= 0x55;
      for (o = order; *o; o++)
        {
          fputc ((int)(j << 4 | (uint32_t)(*o - '0')), fp);
          fwrite (sh[*o - '1'], 1, osz, fp);
        }
    }
  if (fclose (fp))
    exit (99);
}

int
main (int argc, char **argv)
{
  uint8_t secret[600];
  size_t i;

  if (argc != 2 || ks_init ())
    return 99;
  for (i = 0; i < sizeof secret; i++)
    secret[i] = (uint8_t)(i * 7 + 1);
  write_seed (argv[1], "one-chunk-12", secret, 100, "12", 0);
  write_seed (argv[1], "one-chunk-312", secret, 100, "312", 0);
  write_seed (argv[1], "empty-secret-23", secret, 0, "23", 0);
  write_seed (argv[1], "two-chunks-123", secret, sizeof secret, "123", 0);
  write_seed (argv[1], "two-chunks-lying-first", secret, sizeof secret,
              "123", 1);
  write_seed (argv[1], "one-chunk-lying-only-two", secret, 100, "12", 1);
  return 0;
}
