/* random.c - the library's one source of randomness
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>
#include <pthread.h>
#include "random.h"

/* Known-answer tests replace the RNG by a fixed stream; the programs
 * never do.  The state is global and guarded, since threads may ask.  */
static pthread_mutex_t test_lock = PTHREAD_MUTEX_INITIALIZER;
static uint8_t test_seed[64];
static size_t test_seedlen;
static int test_active;
static uint64_t test_counter;
static uint8_t test_block[32];
static size_t test_used = sizeof test_block;

void
ks_random_set_test_seed (const uint8_t *seed, size_t seedlen)
{
  pthread_mutex_lock (&test_lock);
  test_active = seed != NULL;
  test_seedlen = 0;
  if (seed)
    {
      test_seedlen = seedlen < sizeof test_seed ? seedlen : sizeof test_seed;
      memcpy (test_seed, seed, test_seedlen);
    }
  test_counter = 0;
  test_used = sizeof test_block;
  pthread_mutex_unlock (&test_lock);
}

void
ks_random (void *buf, size_t len)
{
  uint8_t *out = buf;
  uint8_t input[sizeof test_seed + 8];

  pthread_mutex_lock (&test_lock);
  if (!test_active)
    {
      pthread_mutex_unlock (&test_lock);
      gcry_randomize (buf, len, GCRY_STRONG_RANDOM);
      return;
    }
  while (len)
    {
      size_t n;

      if (test_used == sizeof test_block)
        {
          memcpy (input, test_seed, test_seedlen);
          ks_put_be64 (input + test_seedlen, test_counter++);
          gcry_md_hash_buffer (GCRY_MD_SHA256, test_block, input,
                               test_seedlen + 8);
          test_used = 0;
        }
      n = sizeof test_block - test_used;
      if (n > len)
        n = len;
      memcpy (out, test_block + test_used, n);
      test_used += n;
      out += n;
      len -= n;
    }
  pthread_mutex_unlock (&test_lock);
}
