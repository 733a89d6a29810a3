/* derive.c - shard names, the key K and the puzzle key E
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>
#include "derive.h"

/* Argon2id (PASS, TAG || "/" LABEL "/" || TEXT, COST) into 32 bytes of
 * OUT.  The label keeps the three derivations apart even for equal
 * inputs.  */
static gpg_error_t
derive (const ks_profile_t *profile, const ks_argon2_params_t *cost,
        const char *label, const char *text,
        const void *pass, size_t passlen, uint8_t *out,
        ks_progress_cb_t progress, void *progress_arg)
{
  gpg_error_t err;
  size_t tl = strlen (profile->tag);
  size_t ll = strlen (label);
  size_t xl = text ? strlen (text) : 0;
  uint8_t *salt;

  salt = gcry_malloc (tl + ll + 2 + xl + 1);
  if (!salt)
    return gpg_error_from_syserror ();
  memcpy (salt, profile->tag, tl);
  salt[tl] = '/';
  memcpy (salt + tl + 1, label, ll);
  salt[tl + 1 + ll] = '/';
  if (xl)
    memcpy (salt + tl + ll + 2, text, xl);
  err = ks_argon2id (cost, pass, passlen, salt, tl + ll + 2 + xl,
                     NULL, 0, NULL, 0, out, 32,
                     progress, progress_arg, label);
  gcry_free (salt);
  return err;
}

gpg_error_t
ks_derive_seed (const ks_profile_t *profile, const char *name,
                const char *keyid, uint8_t *seed,
                ks_progress_cb_t progress, void *progress_arg)
{
  if (!name || !*name)
    return gpg_error (GPG_ERR_INV_NAME);
  return derive (profile, &profile->name_cost, "name", keyid,
                 name, strlen (name), seed, progress, progress_arg);
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
  if (!name || !*name)
    return gpg_error (GPG_ERR_INV_NAME);
  return derive (profile, &profile->key_cost, "key", name,
                 password, passwordlen, key, progress, progress_arg);
}

gpg_error_t
ks_derive_puzzle_key (const ks_profile_t *profile, const char *name,
                      const uint8_t *key, uint32_t r, uint8_t *ekey)
{
  gpg_error_t err;
  uint8_t *pass;

  pass = gcry_malloc_secure (KS_KEY_LEN + 4);
  if (!pass)
    return gpg_error_from_syserror ();
  memcpy (pass, key, KS_KEY_LEN);
  ks_put_be32 (pass + KS_KEY_LEN, r);
  err = derive (profile, &profile->puzzle_cost, "puzzle", name,
                pass, KS_KEY_LEN + 4, ekey, NULL, NULL);
  ks_free_secret (pass, KS_KEY_LEN + 4);
  return err;
}

int
ks_name_is_valid (const char *s, size_t len)
{
  return len == KS_NAME_HEXLEN && ks_hex_is_lower (s, len);
}
