/* derive.c - the name seed N, shard names, the key K and the puzzle key E
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>
#include "derive.h"
#include "location.h"

/* The first 16 bytes of SHA-256 (tag || "/" LABEL "/" || A || B): the
 * salt of every Argon2id call.  The label keeps the derivations apart
 * even for equal inputs.  */
static gpg_error_t
make_salt (const ks_profile_t *profile, const char *label,
           const void *a, size_t alen, const void *b, size_t blen,
           uint8_t *salt)
{
  gpg_error_t err;
  gcry_md_hd_t md;
  uint8_t *d;

  err = gcry_md_open (&md, GCRY_MD_SHA256, GCRY_MD_FLAG_SECURE);
  if (err)
    return err;
  gcry_md_write (md, profile->tag, strlen (profile->tag));
  gcry_md_write (md, "/", 1);
  gcry_md_write (md, label, strlen (label));
  gcry_md_write (md, "/", 1);
  if (alen)
    gcry_md_write (md, a, alen);
  if (blen)
    gcry_md_write (md, b, blen);
  d = gcry_md_read (md, GCRY_MD_SHA256);
  memcpy (salt, d, KS_SALT_LEN);
  gcry_md_close (md);
  return 0;
}

/* True when S is 1..KS_NAME_MAX bytes of valid UTF-8 (RFC 3629: no
 * overlong forms, no surrogates, nothing above U+10FFFF).  */
static int
name_is_valid_utf8 (const char *str)
{
  const unsigned char *s = (const unsigned char *)str;
  size_t len = strlen (str), i = 0, n, b;
  uint32_t cp;

  if (!len || len > KS_NAME_MAX)
    return 0;
  while (i < len)
    {
      unsigned char c = s[i];

      if (c < 0x80)
        {
          i++;
          continue;
        }
      if (c >= 0xc2 && c <= 0xdf)
        n = 1, cp = c & 0x1f;
      else if (c >= 0xe0 && c <= 0xef)
        n = 2, cp = c & 0x0f;
      else if (c >= 0xf0 && c <= 0xf4)
        n = 3, cp = c & 0x07;
      else
        return 0;
      for (b = 1; b <= n; b++)
        {
          if (i + b >= len || (s[i + b] & 0xc0) != 0x80)
            return 0;
          cp = (cp << 6) | (s[i + b] & 0x3f);
        }
      if ((n == 2 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff)))
          || (n == 3 && (cp < 0x10000 || cp > 0x10ffff)))
        return 0;
      i += n + 1;
    }
  return 1;
}

gpg_error_t
ks_derive_seed (const ks_profile_t *profile, const char *name,
                const char *keyid, uint8_t *seed,
                ks_progress_cb_t progress, void *progress_arg)
{
  gpg_error_t err = 0;
  unsigned int np = profile->name_instances, q;
  size_t kl = keyid ? strlen (keyid) : 0;
  uint8_t salts[KS_MAX_NAME_INSTANCES * KS_SALT_LEN];
  uint8_t *parts = NULL;
  gcry_md_hd_t md = NULL;

  if (!name || !name_is_valid_utf8 (name))
    return gpg_error (GPG_ERR_INV_NAME);
  if (!np || np > KS_MAX_NAME_INSTANCES || profile->name_cost.lanes != 1)
    return gpg_error (GPG_ERR_INV_ARG);
  parts = gcry_malloc_secure ((size_t)np * KS_SEED_LEN);
  if (!parts)
    return gpg_error_from_syserror ();
  for (q = 0; q < np && !err; q++)
    {
      uint8_t qb = (uint8_t)(q + 1);

      err = make_salt (profile, "name", &qb, 1, keyid, kl,
                       salts + (size_t)q * KS_SALT_LEN);
    }
  /* The P instances run at once, one per core: 1/P of the wall time
   * for the owner, P full-memory instances for an attacker.  */
  if (!err)
    err = ks_kdf_argon2id_many (name, strlen (name), salts, np,
                                profile->name_cost.t_cost,
                                profile->name_cost.m_cost, parts, 0,
                                progress, progress_arg, "name");
  if (err)
    goto leave;

  err = gcry_md_open (&md, GCRY_MD_SHA256, GCRY_MD_FLAG_SECURE);
  if (err)
    goto leave;
  gcry_md_write (md, profile->tag, strlen (profile->tag));
  gcry_md_write (md, "/name/", 6);
  gcry_md_write (md, parts, (size_t)np * KS_SEED_LEN);
  memcpy (seed, gcry_md_read (md, GCRY_MD_SHA256), KS_SEED_LEN);

 leave:
  if (md)
    gcry_md_close (md);
  ks_free_secret (parts, (size_t)np * KS_SEED_LEN);
  return err;
}

gpg_error_t
ks_derive_shard_name (const ks_profile_t *profile, const uint8_t *seed,
                      const char *loc, unsigned int i, uint32_t j,
                      char *hex)
{
  gpg_error_t err;
  gcry_md_hd_t md;
  uint8_t b[5];

  *hex = 0;
  if (!ks_location_id_is_valid (loc) || i < 1 || i > 255)
    return gpg_error (GPG_ERR_INV_ARG);
  err = gcry_md_open (&md, GCRY_MD_SHA256, GCRY_MD_FLAG_SECURE);
  if (err)
    return err;
  gcry_md_write (md, profile->tag, strlen (profile->tag));
  gcry_md_write (md, "/shard/", 7);
  gcry_md_write (md, seed, KS_SEED_LEN);
  ks_put_be32 (b, (uint32_t)strlen (loc));
  gcry_md_write (md, b, 4);
  gcry_md_write (md, loc, strlen (loc));
  b[0] = (uint8_t)i;
  ks_put_be32 (b + 1, j);
  gcry_md_write (md, b, 5);
  ks_hex_encode (gcry_md_read (md, GCRY_MD_SHA256), 32, hex);
  gcry_md_close (md);
  return 0;
}

gpg_error_t
ks_derive_key (const ks_profile_t *profile, const uint8_t *seed,
               const void *password, size_t passwordlen, uint8_t *key,
               ks_progress_cb_t progress, void *progress_arg)
{
  gpg_error_t err;
  uint8_t salt[KS_SALT_LEN];

  if (profile->key_cost.lanes != 1)
    return gpg_error (GPG_ERR_INV_ARG);
  err = make_salt (profile, "key", seed, KS_SEED_LEN, NULL, 0, salt);
  if (!err)
    err = ks_kdf_argon2id (password, passwordlen, salt,
                           profile->key_cost.t_cost, profile->key_cost.m_cost,
                           key, progress, progress_arg, "key");
  return err;
}

gpg_error_t
ks_derive_puzzle_key (const ks_profile_t *profile, const uint8_t *seed,
                      const uint8_t *key, uint32_t r, uint8_t *ekey)
{
  gpg_error_t err;
  uint8_t salt[KS_SALT_LEN];
  uint8_t *pass;

  if (profile->puzzle_cost.lanes != 1)
    return gpg_error (GPG_ERR_INV_ARG);
  err = make_salt (profile, "puzzle", seed, KS_SEED_LEN, NULL, 0, salt);
  if (err)
    return err;
  pass = gcry_malloc_secure (KS_KEY_LEN + 4);
  if (!pass)
    return gpg_error_from_syserror ();
  memcpy (pass, key, KS_KEY_LEN);
  ks_put_be32 (pass + KS_KEY_LEN, r);
  err = ks_kdf_argon2id (pass, KS_KEY_LEN + 4, salt,
                         profile->puzzle_cost.t_cost,
                         profile->puzzle_cost.m_cost, ekey, NULL, NULL,
                         "puzzle");
  ks_free_secret (pass, KS_KEY_LEN + 4);
  return err;
}

int
ks_name_is_valid (const char *s, size_t len)
{
  return len == KS_NAME_HEXLEN && ks_hex_is_lower (s, len);
}
