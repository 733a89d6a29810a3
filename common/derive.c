/* derive.c - shard names, the key K and the puzzle key E
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>
#include "derive.h"

/* Salt = profile tag || "/" LABEL "/" || TEXT, in a fresh buffer.  The
 * label keeps the three derivations apart even for equal inputs.  */
static gpg_error_t
make_salt (const ks_profile_t *profile, const char *label, const char *text,
           uint8_t **r_salt, size_t *r_len)
{
  size_t tl = strlen (profile->tag);
  size_t ll = strlen (label);
  size_t xl = text ? strlen (text) : 0;
  uint8_t *s;

  *r_salt = NULL;
  s = gcry_malloc (tl + ll + 2 + xl + 1);
  if (!s)
    return gpg_error_from_syserror ();
  memcpy (s, profile->tag, tl);
  s[tl] = '/';
  memcpy (s + tl + 1, label, ll);
  s[tl + 1 + ll] = '/';
  if (xl)
    memcpy (s + tl + ll + 2, text, xl);
  *r_salt = s;
  *r_len = tl + ll + 2 + xl;
  return 0;
}

gpg_error_t
ks_derive_seed (const ks_profile_t *profile, const char *name,
                const char *keyid, uint8_t *seed,
                ks_progress_cb_t progress, void *progress_arg)
{
  gpg_error_t err;
  uint8_t *salt;
  size_t saltlen;

  if (!name || !*name)
    return gpg_error (GPG_ERR_INV_NAME);
  err = make_salt (profile, "name", keyid, &salt, &saltlen);
  if (err)
    return err;
  err = ks_argon2id (&profile->name_cost, name, strlen (name),
                     salt, saltlen, NULL, 0, NULL, 0,
                     seed, KS_SEED_LEN, progress, progress_arg, "name");
  gcry_free (salt);
  return err;
}

void
ks_derive_shard_name (const uint8_t *seed, unsigned int i, uint32_t j,
                      char *hex)
{
  uint8_t input[KS_SEED_LEN + 5];
  uint8_t digest[32];

  memcpy (input, seed, KS_SEED_LEN);
  input[KS_SEED_LEN] = (uint8_t)i;
  ks_put_be32 (input + KS_SEED_LEN + 1, j);
  gcry_md_hash_buffer (GCRY_MD_SHA256, digest, input, sizeof input);
  ks_hex_encode (digest, sizeof digest, hex);
  ks_wipe (input, sizeof input);
}

gpg_error_t
ks_derive_key (const ks_profile_t *profile, const char *name,
               const void *password, size_t passwordlen, uint8_t *key,
               ks_progress_cb_t progress, void *progress_arg)
{
  gpg_error_t err;
  uint8_t *salt;
  size_t saltlen;

  if (!name || !*name)
    return gpg_error (GPG_ERR_INV_NAME);
  err = make_salt (profile, "key", name, &salt, &saltlen);
  if (err)
    return err;
  err = ks_argon2id (&profile->key_cost, password, passwordlen,
                     salt, saltlen, NULL, 0, NULL, 0,
                     key, KS_KEY_LEN, progress, progress_arg, "key");
  gcry_free (salt);
  return err;
}

gpg_error_t
ks_derive_puzzle_key (const ks_profile_t *profile, const char *name,
                      const uint8_t *key, uint32_t r, uint8_t *ekey)
{
  gpg_error_t err;
  uint8_t *salt;
  size_t saltlen;
  uint8_t *pass;

  pass = gcry_malloc_secure (KS_KEY_LEN + 4);
  if (!pass)
    return gpg_error_from_syserror ();
  memcpy (pass, key, KS_KEY_LEN);
  ks_put_be32 (pass + KS_KEY_LEN, r);
  err = make_salt (profile, "puzzle", name, &salt, &saltlen);
  if (!err)
    err = ks_argon2id (&profile->puzzle_cost, pass, KS_KEY_LEN + 4,
                       salt, saltlen, NULL, 0, NULL, 0,
                       ekey, KS_KEY_LEN, NULL, NULL, "puzzle");
  gcry_free (salt);
  ks_free_secret (pass, KS_KEY_LEN + 4);
  return err;
}
