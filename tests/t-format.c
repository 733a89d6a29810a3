/* t-format.c - objects, shard sets and restore with the test profile
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>
#include "t-support.h"
#include "location.h"

static const ks_profile_t *prof;
static const char pw[] = "correct horse battery staple";
/* Identities of the locations of shares 1..5.  */
static const char *const locs[] =
  { "alpha", "http://127.0.0.1:4242", "file:///var/lib/ks", "d", "e" };

/* Feed the shards of SET for the shares in USE (bitmask of share
 * indexes, bit 0 = share 1) into a restore and return its result.  */
static gpg_error_t
restore_with (ks_shardset_t *set, unsigned int use, const char *password,
              uint8_t **r_secret, size_t *r_len)
{
  gpg_error_t err;
  ks_recover_t *rec;
  uint32_t j;
  unsigned int i;
  char name[KS_NAME_HEX_LEN + 1];

  err = ks_recover_new (prof, "item", NULL, NULL, NULL, &rec);
  if (err)
    return err;
  /* Names must agree with the ones backup produced.  */
  for (j = 0; j < set->nchunks; j++)
    for (i = 1; i <= set->n; i++)
      {
        T_OK (ks_recover_shard_name (rec, locs[i - 1], i, j, name));
        T_CHECK (!strcmp (name, set->names[j * set->n + i - 1]));
      }
  for (i = 1; i <= set->n; i++)
    if (use & (1u << (i - 1)))
      T_OK (ks_recover_add_shard (rec, 0, i, set->shards[i - 1],
                                  set->shard_len));
  err = ks_recover_unlock (rec, password, strlen (password), 0, NULL, NULL);
  if (!err)
    {
      T_CHECK (ks_recover_nchunks (rec) == set->nchunks);
      for (j = 1; j < set->nchunks; j++)
        for (i = 1; i <= set->n; i++)
          if (use & (1u << (i - 1)))
            T_OK (ks_recover_add_shard (rec, j, i,
                                        set->shards[j * set->n + i - 1],
                                        set->shard_len));
      err = ks_recover_finish (rec, r_secret, r_len);
    }
  ks_recover_free (rec);
  return err;
}

static void
round_trip (size_t len, unsigned int n, unsigned int k)
{
  uint8_t *secret = malloc (len + 1);
  uint8_t *out = NULL;
  size_t outlen = 0;
  ks_shardset_t *set = NULL;
  unsigned int use, bits, i;
  uint32_t want;

  gcry_randomize (secret, len, GCRY_WEAK_RANDOM);
  T_OK (ks_shardset_create (prof, "item", NULL, pw, strlen (pw),
                            secret, len, n, k, locs, NULL, NULL, &set));
  if (!set)
    return;
  T_OK (ks_object_count (prof, len, &want));
  T_CHECK (set->nchunks == want);
  T_CHECK (set->shard_len == prof->object_size);
  /* Every subset of at least k shares restores; smaller ones do not.  */
  for (use = 1; use < (1u << n); use++)
    {
      gpg_error_t err;

      for (i = 0, bits = 0; i < n; i++)
        bits += !!(use & (1u << i));
      err = restore_with (set, use, pw, &out, &outlen);
      if (bits >= k)
        {
          T_OK (err);
          T_CHECK (outlen == len && out && !memcmp (out, secret, len));
        }
      else
        T_CHECK (err);
      ks_free_secret (out, outlen);
      out = NULL;
      if (n > 3 && bits >= k)
        break;   /* one full pass over subsets is enough for big n */
    }
  ks_shardset_free (set);
  free (secret);
}

/* ks_shardset_create refuses these arguments with WANT.  */
static void
refused (const char *name, unsigned int n, unsigned int k,
         const char *const *loc, gpg_err_code_t want)
{
  ks_shardset_t *set = NULL;
  static const uint8_t secret[10];

  T_CHECK_ERR (ks_shardset_create (prof, name, NULL, pw, 3, secret,
                                   sizeof secret, n, k, loc, NULL, NULL,
                                   &set), want);
  T_CHECK (set == NULL);
}

/* 30 junk shards of every share index arrive before the honest pair
 * (a hostile location answers first): pairs are tried first, so the
 * honest pair is still among the candidates.  A wrong password first
 * and the right one after reuse N and the shards.  */
static void
junk_first (void)
{
  ks_shardset_t *set = NULL;
  ks_recover_t *rec = NULL;
  uint8_t secret[100], junk[512], *out = NULL;
  size_t outlen = 0;
  unsigned int h;

  gcry_randomize (secret, sizeof secret, GCRY_WEAK_RANDOM);
  T_OK (ks_shardset_create (prof, "item", NULL, pw, strlen (pw), secret,
                            sizeof secret, 3, 2, locs, NULL, NULL, &set));
  T_OK (ks_recover_new (prof, "item", NULL, NULL, NULL, &rec));
  if (!set || !rec)
    goto leave;
  T_CHECK (prof->object_size == sizeof junk);
  for (h = 0; h < 30; h++)
    {
      gcry_randomize (junk, sizeof junk, GCRY_WEAK_RANDOM);
      T_OK (ks_recover_add_shard (rec, 0, 1 + h % 3, junk, sizeof junk));
    }
  T_OK (ks_recover_add_shard (rec, 0, 2, set->shards[1], set->shard_len));
  T_OK (ks_recover_add_shard (rec, 0, 3, set->shards[2], set->shard_len));
  T_CHECK_ERR (ks_recover_add_shard (rec, 0, 1, junk, sizeof junk),
               GPG_ERR_TOO_MANY);
  T_CHECK_ERR (ks_recover_add_shard (rec, 0, 1, junk, 100),
               GPG_ERR_INV_LENGTH);
  T_CHECK_ERR (ks_recover_unlock (rec, "wrong", 5, 0, NULL, NULL),
               GPG_ERR_BAD_PASSPHRASE);
  T_OK (ks_recover_unlock (rec, pw, strlen (pw), 0, NULL, NULL));
  T_OK (ks_recover_finish (rec, &out, &outlen));
  T_CHECK (outlen == sizeof secret && out && !memcmp (out, secret, outlen));
  ks_free_secret (out, outlen);

 leave:
  ks_recover_free (rec);
  ks_shardset_free (set);
}

/* Names are bound to the location: another identity, another share
 * index or another chunk gives another name.  */
static void
names_bound (void)
{
  uint8_t seed[KS_SEED_LEN];
  char a[KS_NAME_HEX_LEN + 1], b[KS_NAME_HEX_LEN + 1];

  memset (seed, 7, sizeof seed);
  T_OK (ks_derive_shard_name (prof, seed, "alpha", 1, 0, a));
  T_CHECK (ks_name_is_valid (a, strlen (a)));
  T_OK (ks_derive_shard_name (prof, seed, "beta", 1, 0, b));
  T_CHECK (strcmp (a, b));
  T_OK (ks_derive_shard_name (prof, seed, "alpha", 2, 0, b));
  T_CHECK (strcmp (a, b));
  T_OK (ks_derive_shard_name (prof, seed, "alpha", 1, 1, b));
  T_CHECK (strcmp (a, b));
  /* NAME must be valid UTF-8.  */
  T_OK (ks_derive_seed (prof, "caf\xc3\xa9 \xf0\x9f\x94\x91", NULL, seed,
                        NULL, NULL));
  T_CHECK_ERR (ks_derive_seed (prof, "caf\xe9", NULL, seed, NULL, NULL),
               GPG_ERR_INV_NAME);
  T_CHECK_ERR (ks_derive_seed (prof, "\xc0\xaf", NULL, seed, NULL, NULL),
               GPG_ERR_INV_NAME);
  T_CHECK_ERR (ks_derive_seed (prof, "\xed\xa0\x80", NULL, seed, NULL, NULL),
               GPG_ERR_INV_NAME);
  T_CHECK_ERR (ks_derive_seed (prof, "x\xe2\x82", NULL, seed, NULL, NULL),
               GPG_ERR_INV_NAME);
  T_CHECK_ERR (ks_derive_shard_name (prof, seed, "", 1, 0, b),
               GPG_ERR_INV_ARG);
  T_CHECK_ERR (ks_derive_shard_name (prof, seed, "alpha", 0, 0, b),
               GPG_ERR_INV_ARG);
  T_CHECK_ERR (ks_derive_shard_name (prof, seed, "alpha", 256, 0, b),
               GPG_ERR_INV_ARG);
}

static void
canon_is (const char *url, const char *want)
{
  char *id = NULL;
  gpg_error_t err = ks_location_canon_id (url, &id);

  t_checks++;
  if (want ? (err || strcmp (id, want)) : !err)
    {
      t_errors++;
      fprintf (stderr, "FAIL: canon (%s) = %s, want %s\n", url,
               err ? gpg_strerror (err) : id, want ? want : "an error");
    }
  gcry_free (id);
}

/* doc/protocol.md section 5 (locations) gives these as examples.  */
static void
location_canon (void)
{
  canon_is ("http://abc.onion", "http://abc.onion");
  canon_is ("HTTP://ABC.Onion:80/", "http://abc.onion");
  canon_is ("http://abc.onion:8080", "http://abc.onion:8080");
  canon_is ("http://abc.onion:08080", "http://abc.onion:8080");
  canon_is ("https://Example.org:443/keysafe/", "https://example.org/keysafe");
  canon_is ("https://example.org:80", "https://example.org:80");
  canon_is ("http://127.0.0.1:4242", "http://127.0.0.1:4242");
  canon_is ("http://[::1]:4242/", "http://[::1]:4242");
  canon_is ("http://h/A/b//", "http://h/A/b");
  canon_is ("file:///var/lib/keysafe/", "file:///var/lib/keysafe");
  canon_is ("FILE:///Backup", "file:///Backup");
  canon_is ("file://host/x", NULL);
  canon_is ("file:///", NULL);
  canon_is ("ftp://h", NULL);
  canon_is ("http://", NULL);
  canon_is ("http://:80", NULL);
  canon_is ("http://h:0", NULL);
  canon_is ("http://h:65536", NULL);
  canon_is ("http://h:", NULL);
  canon_is ("http://u@h", NULL);
  canon_is ("http://h/a?b", NULL);
  canon_is ("http://h/a#b", NULL);
  canon_is ("http://h/%41", NULL);
  canon_is ("http://h/a//b", NULL);
  canon_is ("http://h/./b", NULL);
  canon_is ("http://h/a/..", NULL);
  canon_is ("http://h /a", NULL);
  canon_is ("http://h\xc3\xa9", NULL);
  canon_is ("h", NULL);
  T_CHECK (ks_location_id_is_valid ("keysafe-1.example"));
  T_CHECK (!ks_location_id_is_valid (""));
  T_CHECK (!ks_location_id_is_valid ("a b"));
}

int
main (void)
{
  size_t cs;
  ks_shardset_t *set = NULL;
  uint8_t *out = NULL;
  size_t outlen = 0, pos;
  uint8_t secret[300];
  uint8_t ekey[KS_KEY_LEN], iv[KS_IV_LEN], *obj, *chunk, *chunk2;
  uint32_t count;

  t_init ();
  prof = ks_profile_find ("test");
  if (!prof)
    T_DIE ("no test profile");
  cs = ks_profile_chunk_size (prof);
  T_CHECK (ks_profile_find ("default") == ks_profile_default ());
  T_CHECK (ks_profile_find ("nosuch") == NULL);
  T_CHECK (!strcmp (ks_profile_nth (ks_profile_count () - 1)->name, "test"));

  /* Chunk counts at the boundaries.  */
  T_OK (ks_object_count (prof, 0, &count)); T_CHECK (count == 1);
  T_OK (ks_object_count (prof, cs - 4, &count)); T_CHECK (count == 1);
  T_OK (ks_object_count (prof, cs - 3, &count)); T_CHECK (count == 2);
  T_OK (ks_object_count (prof, 10 * cs - 4, &count)); T_CHECK (count == 10);
  T_CHECK_ERR (ks_object_count (prof, KS_MAX_SECRET + 1, &count),
               GPG_ERR_TOO_LARGE);

  /* The fetch cap: the chunks of a 256 KiB secret.  */
  T_OK (ks_object_count (prof, KS_MAX_SECRET, &count));
  T_CHECK (ks_object_max_chunks (prof) == count);
  T_CHECK (ks_object_max_chunks (ks_profile_default ()) == 33);

  junk_first ();
  names_bound ();
  location_canon ();

  /* Round trips: 1 byte, exactly one object, one more, ten objects.  */
  round_trip (1, 3, 2);
  round_trip (0, 3, 2);
  round_trip (cs - 4, 3, 2);
  round_trip (cs - 3, 3, 2);
  round_trip (10 * cs - 4, 3, 2);
  round_trip (700, 5, 3);
  /* The largest secret: all of it must fit in secure memory at once.  */
  round_trip (KS_MAX_SECRET, 3, 2);

  /* Object level: any flipped bit fails with GPG_ERR_CHECKSUM.  */
  obj = malloc (prof->object_size);
  chunk = malloc (cs);
  chunk2 = malloc (cs);
  gcry_randomize (ekey, sizeof ekey, GCRY_WEAK_RANDOM);
  gcry_randomize (iv, sizeof iv, GCRY_WEAK_RANDOM);
  gcry_randomize (chunk, cs, GCRY_WEAK_RANDOM);
  T_OK (ks_object_seal (prof, ekey, 3, iv, chunk, obj));
  T_OK (ks_object_open (prof, ekey, 3, obj, chunk2));
  T_CHECK (!memcmp (chunk, chunk2, cs));
  T_CHECK_ERR (ks_object_open (prof, ekey, 4, obj, chunk2), GPG_ERR_CHECKSUM);
  for (pos = 0; pos < prof->object_size * 8; pos += 7)
    {
      obj[pos / 8] ^= 1 << (pos % 8);
      T_CHECK_ERR (ks_object_open (prof, ekey, 3, obj, chunk2),
                   GPG_ERR_CHECKSUM);
      obj[pos / 8] ^= 1 << (pos % 8);
    }
  ekey[5] ^= 0x10;
  T_CHECK_ERR (ks_object_open (prof, ekey, 3, obj, chunk2), GPG_ERR_CHECKSUM);

  /* Shard level: a corrupt shard among three does not stop a restore;
   * with only two shards, one of them corrupt, restore fails cleanly.  */
  gcry_randomize (secret, sizeof secret, GCRY_WEAK_RANDOM);
  T_OK (ks_shardset_create (prof, "item", NULL, pw, strlen (pw), secret,
                            sizeof secret, 3, 2, locs, NULL, NULL, &set));
  if (set)
    {
      set->shards[1][17] ^= 0x40;
      T_OK (restore_with (set, 7, pw, &out, &outlen));
      T_CHECK (outlen == sizeof secret && !memcmp (out, secret, outlen));
      ks_free_secret (out, outlen);
      out = NULL;
      T_CHECK_ERR (restore_with (set, 3, pw, &out, &outlen),
                   GPG_ERR_BAD_PASSPHRASE);
      /* Wrong password.  */
      T_CHECK_ERR (restore_with (set, 5, "wrong password", &out, &outlen),
                   GPG_ERR_BAD_PASSPHRASE);
      ks_shardset_free (set);
      set = NULL;
    }

  /* Bad parameters.  */
  {
    const char *twice[3] = { "a", "b", "a" };
    const char *bad[3] = { "a", "b", "c d" };

    refused ("item", 3, 1, locs, GPG_ERR_INV_ARG);
    refused ("item", 2, 3, locs, GPG_ERR_INV_ARG);
    refused ("", 3, 2, locs, GPG_ERR_INV_NAME);
    /* One location twice, an invalid identity, none: refused.  */
    refused ("item", 3, 2, twice, GPG_ERR_INV_ARG);
    refused ("item", 3, 2, bad, GPG_ERR_INV_ARG);
    refused ("item", 3, 2, NULL, GPG_ERR_INV_ARG);
  }
  T_CHECK (set == NULL);

  free (obj);
  free (chunk);
  free (chunk2);
  return t_done ();
}
