/* fuzz-pow.c - the Keysafe-PoW header and the challenge a client solves
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The server parses a proof from any client; a client parses a
 * challenge from any server.  Both must refuse junk without crashing,
 * and a proof the fuzzer made up must never pass the HMAC.
 */
#include <config.h>
#include <stdlib.h>
#include "keysafe.h"
#include "fuzz.h"

#define NAME "c71524b7154f4a5bc1b997833d7842bef41ec7a548bd6ddd10b4f777817b347e"

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  static ks_pow_key_t *key;
  uint8_t id[KS_POW_ID_LEN];
  char proof[KS_POW_PROOF_SIZE];
  char *text;

  if (!key)
    {
      if (ks_init () || ks_pow_key_new (&key))
        abort ();
    }
  text = malloc (size + 1);
  if (!text)
    return 0;
  memcpy (text, data, size);
  text[size] = 0;
  if (!ks_pow_check (key, text, "PUT", NAME, 0, 1000000, id))
    abort ();   /* a forgery passed */
  /* As a challenge from a hostile server: bounded work, no crash.  */
  ks_pow_solve (text, "GET", NAME, 256, proof, sizeof proof);
  free (text);
  return 0;
}
