/* t-vectors.c - the known-answer vectors of doc/protocol.md
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Usage: t-vectors [--generate] [FILE]
 * Without --generate, recomputes every value of FILE (default
 * $srcdir/data/vectors.txt) and compares.  Protocol 2.  With --generate, prints the
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
  size_t secretlen;
  unsigned int n, k;
};

/* Identities of the locations of shares 1..3: a server list `id`, a
 * canonical onion URL and a directory.  */
static const char *const vlocs[3] =
  {
    "keysafe-a.example",
    "http://2gzyxa5ihm7nsggfxnu52rck2vv4rvmdlkiu3zzui5du4xyclen53wid.onion",
    "file:///var/lib/keysafe"
  };
/* The identity share 1 has after its operator moved to a new onion
 * address without an `id`: its names change, so the shards must move
 * with the list's `id`, not the address.  */
#define VMOVED "http://ll7fc3ldzulkc5grdckqwdvlvq7gtpcd2txjkh5ov23zpuxylx3ihjad.onion"

static const struct vec vecs[] =
  {
    /* Two chunks, 2 of 3, not bound.  */
    { "v1", "", 600, 3, 2 },
    /* Bound to a v4 fingerprint, 3 of 3.  */
    { "v2", "8A1E7F2C9B3D4E5F60718293A4B5C6D7E8F90123", 600, 3, 3 },
    /* The chunk boundary of the test profile (C = 484): exactly one
     * chunk, and one byte more, two.  */
    { "v3", "", 480, 3, 2 },
    { "v4", "", 481, 3, 2 },
    /* A v5 fingerprint, an empty secret.  */
    { "v5", "0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF0123456789ABCDEF",
      0, 3, 2 }
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

/* The 16-byte salt of LABEL: SHA-256 (tag || "/" LABEL "/" || A || B).  */
static void
emit_salt (const ks_profile_t *prof, const char *vl, const char *key,
           const char *label, const void *a, size_t al,
           const void *b, size_t bl)
{
  gcry_md_hd_t md;

  if (gcry_md_open (&md, GCRY_MD_SHA256, 0))
    T_DIE ("gcry_md_open");
  gcry_md_write (md, prof->tag, strlen (prof->tag));
  gcry_md_write (md, "/", 1);
  gcry_md_write (md, label, strlen (label));
  gcry_md_write (md, "/", 1);
  gcry_md_write (md, a, al);
  gcry_md_write (md, b, bl);
  emit_hex (vl, key, gcry_md_read (md, GCRY_MD_SHA256), KS_SALT_LEN);
  gcry_md_close (md);
}

static void
run_vector (const ks_profile_t *prof, const struct vec *v)
{
  uint8_t seed[KS_SEED_LEN], key[KS_KEY_LEN], ekey[KS_KEY_LEN];
  uint8_t rbuf[4], iv[KS_IV_LEN], q;
  uint8_t *secret = malloc (v->secretlen + 1);
  size_t cs = ks_profile_chunk_size (prof), i;
  uint8_t *chunk = malloc (cs), *obj = malloc (prof->object_size);
  char name[KS_NAME_HEX_LEN + 1], label[64], num[16];
  ks_shardset_t *set = NULL;
  uint32_t r, j;
  unsigned int s;

  for (i = 0; i < v->secretlen; i++)
    secret[i] = (uint8_t)(i * 7 + 1);

  emit (v->label, "profile", prof->name);
  emit (v->label, "name", VNAME);
  emit (v->label, "keyid", v->keyid);
  emit (v->label, "password", VPASS);
  emit (v->label, "randomness", VSEED);
  snprintf (num, sizeof num, "%u %u", v->n, v->k);
  emit (v->label, "n k", num);
  for (s = 0; s < v->n; s++)
    {
      snprintf (label, sizeof label, "location.%u", s + 1);
      emit (v->label, label, vlocs[s]);
    }
  emit_hex (v->label, "secret", secret, v->secretlen);

  for (q = 1; q <= prof->name_instances; q++)
    {
      snprintf (label, sizeof label, "salt.name.%u", q);
      emit_salt (prof, v->label, label, "name", &q, 1,
                 v->keyid, strlen (v->keyid));
    }
  T_OK (ks_derive_seed (prof, VNAME, v->keyid, seed, NULL, NULL));
  emit_hex (v->label, "N", seed, sizeof seed);
  emit_salt (prof, v->label, "salt.key", "key", seed, sizeof seed, "", 0);
  T_OK (ks_derive_key (prof, seed, VPASS, strlen (VPASS), key, NULL, NULL));
  emit_hex (v->label, "K", key, sizeof key);
  emit_salt (prof, v->label, "salt.puzzle", "puzzle", seed, sizeof seed,
             "", 0);

  /* The randomness stream, in its order of use: R, then per chunk the
   * IV and the Shamir coefficients.  */
  ks_random_set_test_seed ((const uint8_t *)VSEED, strlen (VSEED));
  ks_random (rbuf, 4);
  r = ks_get_be32 (rbuf) & ((1u << prof->puzzle_bits) - 1);
  snprintf (num, sizeof num, "%u", r);
  emit (v->label, "R", num);
  T_OK (ks_derive_puzzle_key (prof, seed, key, r, ekey));
  emit_hex (v->label, "E", ekey, sizeof ekey);
  ks_random (iv, sizeof iv);
  ks_object_chunk (prof, secret, v->secretlen, 0, chunk);
  T_OK (ks_object_seal (prof, ekey, 0, iv, chunk, obj));
  emit_hex (v->label, "object.0", obj, prof->object_size);

  /* The whole backup from the same stream must agree.  */
  ks_random_set_test_seed ((const uint8_t *)VSEED, strlen (VSEED));
  T_OK (ks_shardset_create (prof, VNAME, v->keyid, VPASS, strlen (VPASS),
                            secret, v->secretlen, v->n, v->k, vlocs,
                            NULL, NULL, &set));
  ks_random_set_test_seed (NULL, 0);
  if (set)
    {
      snprintf (num, sizeof num, "%u", (unsigned)set->nchunks);
      emit (v->label, "chunks", num);
      for (j = 0; j < set->nchunks; j++)
        for (s = 1; s <= set->n; s++)
          {
            T_OK (ks_derive_shard_name (prof, seed, vlocs[s - 1], s, j,
                                        name));
            T_CHECK (!strcmp (name, set->names[j * set->n + s - 1]));
            snprintf (label, sizeof label, "name.%u.%u", s, (unsigned)j);
            emit (v->label, label, name);
            snprintf (label, sizeof label, "shard.%u.%u", s, (unsigned)j);
            emit_hex (v->label, label, set->shards[j * set->n + s - 1],
                      set->shard_len);
          }
      ks_shardset_free (set);
    }
  emit (v->label, "moved", VMOVED);
  T_OK (ks_derive_shard_name (prof, seed, VMOVED, 1, 0, name));
  emit (v->label, "moved.name.1.0", name);
  free (secret);
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
