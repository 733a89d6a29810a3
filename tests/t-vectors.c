/* t-vectors.c - the known-answer vectors of doc/protocol.md
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Usage: t-vectors [--generate] [FILE]
 * Without --generate, recomputes every value of FILE (default
 * $srcdir/data/vectors.txt) and compares.  With --generate, prints the
 * file; that is how it was made, and it must only ever be regenerated
 * together with a change to doc/protocol.md.
 */
#include <config.h>
#include "t-support.h"

#define VNAME "keysafe test vector"
#define VPASS "hunter2 is not a good password"
#define VSEED "keysafe test vector randomness"

struct vec
{
  const char *label;
  const char *keyid;
};

static const struct vec vecs[] =
  {
    { "v1", "" },
    { "v2", "8A1E7F2C9B3D4E5F60718293A4B5C6D7E8F90123" }
  };

static FILE *gen;          /* non-NULL when generating */
static char *expected;     /* file contents when checking */

static void
emit (const char *vlabel, const char *key, const char *value)
{
  char line[128];
  char *p, *e;
  size_t vlen;

  if (gen)
    {
      fprintf (gen, "%s.%s = %s\n", vlabel, key, value);
      return;
    }
  snprintf (line, sizeof line, "%s.%s = ", vlabel, key);
  p = strstr (expected, line);
  t_checks++;
  if (!p)
    {
      t_errors++;
      fprintf (stderr, "FAIL: %s%s missing from the vector file\n", line, "");
      return;
    }
  p += strlen (line);
  e = strchr (p, '\n');
  vlen = e ? (size_t)(e - p) : strlen (p);
  if (vlen != strlen (value) || memcmp (p, value, vlen))
    {
      t_errors++;
      fprintf (stderr, "FAIL: %s.%s\n  want %.*s\n  got  %s\n",
               vlabel, key, (int)vlen, p, value);
    }
}

static void
emit_hex (const char *vlabel, const char *key, const uint8_t *b, size_t n)
{
  char *hex = malloc (2 * n + 1);

  ks_hex_encode (b, n, hex);
  emit (vlabel, key, hex);
  free (hex);
}

static void
run_vector (const ks_profile_t *prof, const struct vec *v)
{
  uint8_t seed[KS_SEED_LEN], key[KS_KEY_LEN], ekey[KS_KEY_LEN];
  uint8_t rbuf[4], iv[KS_IV_LEN];
  uint8_t secret[600];
  size_t cs = ks_profile_chunk_size (prof), i;
  uint8_t *chunk = malloc (cs), *obj = malloc (prof->object_size);
  char name[KS_NAME_HEX_LEN + 1], label[64], num[16];
  ks_shardset_t *set = NULL;
  uint32_t r, j;
  unsigned int s;

  /* The secret: 600 bytes, so it spans two objects of the test profile. */
  for (i = 0; i < sizeof secret; i++)
    secret[i] = (uint8_t)(i * 7 + 1);

  emit (v->label, "profile", prof->name);
  emit (v->label, "name", VNAME);
  emit (v->label, "keyid", v->keyid);
  emit (v->label, "password", VPASS);
  emit (v->label, "randomness", VSEED);
  emit_hex (v->label, "secret", secret, sizeof secret);

  T_OK (ks_derive_seed (prof, VNAME, v->keyid, seed, NULL, NULL));
  emit_hex (v->label, "N", seed, sizeof seed);
  T_OK (ks_derive_key (prof, VNAME, VPASS, strlen (VPASS), key, NULL, NULL));
  emit_hex (v->label, "K", key, sizeof key);

  /* The randomness stream, in its order of use: R, then per chunk the
   * IV and the Shamir coefficients.  */
  ks_random_set_test_seed ((const uint8_t *)VSEED, strlen (VSEED));
  ks_random (rbuf, 4);
  r = ks_get_be32 (rbuf) & ((1u << prof->puzzle_bits) - 1);
  snprintf (num, sizeof num, "%u", r);
  emit (v->label, "R", num);
  T_OK (ks_derive_puzzle_key (prof, VNAME, key, r, ekey));
  emit_hex (v->label, "E", ekey, sizeof ekey);
  ks_random (iv, sizeof iv);
  ks_object_chunk (prof, secret, sizeof secret, 0, chunk);
  T_OK (ks_object_seal (prof, ekey, 0, iv, chunk, obj));
  emit_hex (v->label, "object.0", obj, prof->object_size);

  /* The whole backup from the same stream must agree.  */
  ks_random_set_test_seed ((const uint8_t *)VSEED, strlen (VSEED));
  T_OK (ks_shardset_create (prof, VNAME, v->keyid, VPASS, strlen (VPASS),
                            secret, sizeof secret, 3, 2, NULL, NULL, &set));
  ks_random_set_test_seed (NULL, 0);
  if (set)
    {
      T_CHECK (set->nchunks == 2);
      for (j = 0; j < set->nchunks; j++)
        for (s = 1; s <= set->n; s++)
          {
            ks_derive_shard_name (seed, s, j, name);
            T_CHECK (!strcmp (name, set->names[j * set->n + s - 1]));
            snprintf (label, sizeof label, "name.%u.%u", s, (unsigned)j);
            emit (v->label, label, name);
            snprintf (label, sizeof label, "shard.%u.%u", s, (unsigned)j);
            emit_hex (v->label, label, set->shards[j * set->n + s - 1],
                      set->shard_len);
          }
      ks_shardset_free (set);
    }
  free (chunk);
  free (obj);
}

int
main (int argc, char **argv)
{
  const ks_profile_t *prof;
  const char *file = NULL;
  char path[1024];
  size_t len, i;

  t_init ();
  if (argc > 1 && !strcmp (argv[1], "--generate"))
    {
      gen = stdout;
      argc--, argv++;
    }
  if (argc > 1)
    file = argv[1];
  prof = ks_profile_find ("test");
  if (!gen)
    {
      if (!file)
        {
          snprintf (path, sizeof path, "%s/data/vectors.txt",
                    getenv ("srcdir") ? getenv ("srcdir") : ".");
          file = path;
        }
      expected = t_read_file (file, &len);
    }
  else
    printf ("# keysafe known-answer vectors, test profile (doc/protocol.md)\n"
            "# Made by tests/t-vectors --generate.  Hex is lowercase.\n");
  for (i = 0; i < KS_DIM (vecs); i++)
    run_vector (prof, &vecs[i]);
  free (expected);
  return gen ? 0 : t_done ();
}
