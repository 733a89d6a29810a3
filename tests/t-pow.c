/* t-pow.c - proof of work, replay cache and load-adaptive difficulty
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The known answer below was computed independently (Python's hmac and
 * hashlib) from the description in doc/protocol.md; it is the test
 * vector printed there.
 */
#include <config.h>
#include "t-support.h"
/* The server's load and replay module is tested here with an explicit
 * clock; it is compiled into this test rather than linked from server/,
 * which builds no library.  */
#include "../server/load.c"

#define VEC_TIME 1700000000ULL
#define VEC_NAME "0123456789abcdef0123456789abcdef" \
                 "0123456789abcdef0123456789abcdef"
#define VEC_CHALLENGE "000000006553f10008202122232425262728292a2b2c2d2e2f" \
                      "09f574e52e65fd394e691db4b1acdf74"
#define VEC_PROOF VEC_CHALLENGE ".000000000000006d"

static void
test_vector (void)
{
  uint8_t keybytes[32];
  ks_pow_key_t *key = NULL;
  char proof[KS_POW_PROOF_SIZE];
  uint8_t id[KS_POW_ID_LEN];
  size_t i;

  for (i = 0; i < sizeof keybytes; i++)
    keybytes[i] = i;
  T_OK (ks_pow_key_from_bytes (keybytes, sizeof keybytes, &key));
  T_OK (ks_pow_check (key, VEC_PROOF, "PUT", VEC_NAME, 8, VEC_TIME + 10, id));
  /* The identifier is the challenge's MAC.  */
  T_CHECK (id[0] == 0x09 && id[15] == 0x74);
  /* The solver counts nonces from zero, so it finds the same one.  */
  T_OK (ks_pow_solve (VEC_CHALLENGE, "PUT", VEC_NAME, 0, proof, sizeof proof));
  T_CHECK (!strcmp (proof, VEC_PROOF));
  /* Bound to method and name.  */
  T_CHECK_ERR (ks_pow_check (key, VEC_PROOF, "GET", VEC_NAME, 8,
                             VEC_TIME + 10, id), GPG_ERR_BAD_SIGNATURE);
  T_CHECK_ERR (ks_pow_check (key, VEC_PROOF, "PUT",
                             "1123456789abcdef0123456789abcdef"
                             "0123456789abcdef0123456789abcdef", 8,
                             VEC_TIME + 10, id), GPG_ERR_BAD_SIGNATURE);
  /* Stale and from the future.  */
  T_OK (ks_pow_check (key, VEC_PROOF, "PUT", VEC_NAME, 8,
                      VEC_TIME + KS_POW_WINDOW, id));
  T_CHECK_ERR (ks_pow_check (key, VEC_PROOF, "PUT", VEC_NAME, 8,
                             VEC_TIME + KS_POW_WINDOW + 1, id),
               GPG_ERR_TIMEOUT);
  T_CHECK_ERR (ks_pow_check (key, VEC_PROOF, "PUT", VEC_NAME, 8,
                             VEC_TIME - 61, id), GPG_ERR_TIMEOUT);
  /* Too easy for the current load.  */
  T_CHECK_ERR (ks_pow_check (key, VEC_PROOF, "PUT", VEC_NAME, 9,
                             VEC_TIME + 10, id), GPG_ERR_TOO_SHORT);
  /* A nonce that misses the target (nonce 0 does: 109 was the first).  */
  T_CHECK_ERR (ks_pow_check (key, VEC_CHALLENGE ".0000000000000000", "PUT",
                             VEC_NAME, 8, VEC_TIME + 10, id),
               GPG_ERR_BAD_DATA);
  ks_pow_key_free (key);
}

static void
test_roundtrip (void)
{
  ks_pow_key_t *key = NULL, *other = NULL;
  char chal[KS_POW_CHALLENGE_SIZE], proof[KS_POW_PROOF_SIZE];
  char bad[KS_POW_PROOF_SIZE];
  uint8_t id[KS_POW_ID_LEN];
  const char *name = VEC_NAME;
  uint64_t now = 1800000000ULL;

  T_OK (ks_pow_key_new (&key));
  T_OK (ks_pow_key_new (&other));
  T_OK (ks_pow_challenge (key, 12, "GET", name, now, chal, sizeof chal));
  T_CHECK (strlen (chal) == 82);
  T_OK (ks_pow_solve (chal, "GET", name, 0, proof, sizeof proof));
  T_OK (ks_pow_check (key, proof, "GET", name, 12, now + 1, id));
  /* Another server's key.  */
  T_CHECK_ERR (ks_pow_check (other, proof, "GET", name, 12, now + 1, id),
               GPG_ERR_BAD_SIGNATURE);
  /* Raise the difficulty byte: the MAC no longer matches.  */
  strcpy (bad, proof);
  bad[17] = bad[17] == 'c' ? 'd' : 'c';
  T_CHECK_ERR (ks_pow_check (key, bad, "GET", name, 12, now + 1, id),
               GPG_ERR_BAD_SIGNATURE);
  /* Malformed: uppercase hex, no dot, short, long, empty.  */
  strcpy (bad, proof);
  bad[0] = bad[0] == '0' ? 'A' : 'F';
  T_CHECK_ERR (ks_pow_check (key, bad, "GET", name, 12, now, id),
               GPG_ERR_INV_VALUE);
  strcpy (bad, proof);
  bad[82] = ':';
  T_CHECK_ERR (ks_pow_check (key, bad, "GET", name, 12, now, id),
               GPG_ERR_INV_VALUE);
  strcpy (bad, proof);
  bad[98] = 0;
  T_CHECK_ERR (ks_pow_check (key, bad, "GET", name, 12, now, id),
               GPG_ERR_INV_VALUE);
  strcpy (bad, proof);
  strcat (bad, "0");
  T_CHECK_ERR (ks_pow_check (key, bad, "GET", name, 12, now, id),
               GPG_ERR_INV_VALUE);
  T_CHECK_ERR (ks_pow_check (key, "", "GET", name, 12, now, id),
               GPG_ERR_INV_VALUE);
  /* The solver gives up after its budget at a high difficulty.  */
  T_OK (ks_pow_challenge (key, 32, "GET", name, now, chal, sizeof chal));
  T_CHECK_ERR (ks_pow_solve (chal, "GET", name, 1000, proof, sizeof proof),
               GPG_ERR_TIMEOUT);
  T_CHECK_ERR (ks_pow_challenge (key, 33, "GET", name, now, chal,
                                 sizeof chal), GPG_ERR_INV_ARG);
  T_CHECK_ERR (ks_pow_solve ("zz", "GET", name, 1, proof, sizeof proof),
               GPG_ERR_INV_VALUE);
  ks_pow_key_free (key);
  ks_pow_key_free (other);
}

static void
test_replay (void)
{
  ks_replay_t *cache = NULL;
  uint8_t id[KS_POW_ID_LEN];
  unsigned int i;
  uint64_t now = 1000;

  T_CHECK_ERR (ks_replay_new (1000, &cache), GPG_ERR_INV_ARG);
  T_OK (ks_replay_new (64, &cache));
  memset (id, 0x11, sizeof id);
  T_OK (ks_replay_add (cache, id, now + 300, now));
  T_CHECK_ERR (ks_replay_add (cache, id, now + 300, now + 1),
               GPG_ERR_DUP_VALUE);
  /* After its expiry the slot is free again.  */
  T_OK (ks_replay_add (cache, id, now + 600, now + 301));
  /* Fill every slot an id with this home slot may use: the next one is
   * refused, not let through and not forgetting a live entry.  */
  for (i = 1; i < 32; i++)
    {
      id[15] = 100 + i;
      T_OK (ks_replay_add (cache, id, now + 600, now + 302));
    }
  id[15] = 200;
  T_CHECK_ERR (ks_replay_add (cache, id, now + 600, now + 302),
               GPG_ERR_EAGAIN);
  id[15] = 105;
  T_CHECK_ERR (ks_replay_add (cache, id, now + 600, now + 302),
               GPG_ERR_DUP_VALUE);
  ks_replay_free (cache);
}

static void
test_load (void)
{
  ks_load_t *load = NULL, *off = NULL;
  unsigned int i;
  uint64_t t = 5000;

  T_OK (ks_load_new (10, 20, &load));
  T_OK (ks_load_new (0, 20, &off));
  T_CHECK (ks_load_difficulty (load, t) == 10);
  /* 50 requests a second for ten seconds: 50 > 20 and > 40, so two
   * bits more.  */
  for (t = 5000; t < 5010; t++)
    for (i = 0; i < 50; i++)
      {
        ks_load_note (load, t);
        ks_load_note (off, t);
      }
  T_CHECK (ks_load_rate (load, 5009) == 50);
  T_CHECK (ks_load_difficulty (load, 5009) == 12);
  T_CHECK (ks_load_min_difficulty (load, 5009) == 11);
  T_CHECK (ks_load_difficulty (off, 5009) == 0);
  /* The window slides: ten seconds later the load is gone.  */
  T_CHECK (ks_load_rate (load, 5025) == 0);
  T_CHECK (ks_load_difficulty (load, 5025) == 10);
  T_CHECK (ks_load_min_difficulty (load, 5025) == 10);
  /* A flood cannot push it past the maximum.  */
  for (i = 0; i < 200000; i++)
    ks_load_note (load, 6000);
  /* 20000/s: 20 doubled ten times is 20480, so ten bits more.  */
  T_CHECK (ks_load_difficulty (load, 6000) == 20);
  ks_load_free (load);
  T_OK (ks_load_new (30, 1, &load));
  for (i = 0; i < 100000; i++)
    ks_load_note (load, 7000);
  T_CHECK (ks_load_difficulty (load, 7000) == KS_POW_MAX_DIFFICULTY);
  ks_load_free (load);
  ks_load_free (off);
}

int
main (void)
{
  t_init ();
  test_vector ();
  test_roundtrip ();
  test_replay ();
  test_load ();
  return t_done ();
}
