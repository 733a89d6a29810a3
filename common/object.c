/* object.c - padding, chunking and the AES-256-GCM objects
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>
#include "object.h"

#define LEN_PREFIX 4

gpg_error_t
ks_object_count (const ks_profile_t *profile, size_t len, uint32_t *r_count)
{
  size_t cs = ks_profile_chunk_size (profile);

  *r_count = 0;
  if (len > KS_MAX_SECRET)
    return gpg_error (GPG_ERR_TOO_LARGE);
  *r_count = (uint32_t)((LEN_PREFIX + len + cs - 1) / cs);
  return 0;
}

uint32_t
ks_object_max_chunks (const ks_profile_t *profile)
{
  size_t cs = ks_profile_chunk_size (profile);

  return (uint32_t)((LEN_PREFIX + KS_MAX_SECRET + cs - 1) / cs);
}

void
ks_object_chunk (const ks_profile_t *profile, const uint8_t *secret,
                 size_t len, uint32_t j, uint8_t *chunk)
{
  size_t cs = ks_profile_chunk_size (profile);
  size_t start = (size_t)j * cs;   /* offset in the padded stream */
  size_t pos;

  memset (chunk, 0, cs);
  for (pos = 0; pos < cs; pos++)
    {
      size_t s = start + pos;

      if (s < LEN_PREFIX)
        chunk[pos] = (uint8_t)((uint32_t)len >> (8 * (LEN_PREFIX - 1 - s)));
      else if (s - LEN_PREFIX < len)
        chunk[pos] = secret[s - LEN_PREFIX];
      else
        break;
    }
}

/* AD = tag || "/object/" || be32 J: binds each object to its profile
 * and position, so chunks cannot be swapped.  */
static gpg_error_t
set_ad (gcry_cipher_hd_t hd, const ks_profile_t *profile, uint32_t j)
{
  static const char label[] = "/object/";
  size_t tl = strlen (profile->tag);
  uint8_t ad[96];

  if (tl + sizeof label - 1 + 4 > sizeof ad)
    return gpg_error (GPG_ERR_BUG);
  memcpy (ad, profile->tag, tl);
  memcpy (ad + tl, label, sizeof label - 1);
  ks_put_be32 (ad + tl + sizeof label - 1, j);
  return gcry_cipher_authenticate (hd, ad, tl + sizeof label - 1 + 4);
}

static gpg_error_t
open_cipher (const ks_profile_t *profile, const uint8_t *ekey, uint32_t j,
             const uint8_t *iv, gcry_cipher_hd_t *r_hd)
{
  gpg_error_t err;
  gcry_cipher_hd_t hd;

  *r_hd = NULL;
  err = gcry_cipher_open (&hd, GCRY_CIPHER_AES256, GCRY_CIPHER_MODE_GCM,
                          GCRY_CIPHER_SECURE);
  if (err)
    return err;
  err = gcry_cipher_setkey (hd, ekey, KS_KEY_LEN);
  if (!err)
    err = gcry_cipher_setiv (hd, iv, KS_IV_LEN);
  if (!err)
    err = set_ad (hd, profile, j);
  if (err)
    gcry_cipher_close (hd);
  else
    *r_hd = hd;
  return err;
}

gpg_error_t
ks_object_seal (const ks_profile_t *profile, const uint8_t *ekey,
                uint32_t j, const uint8_t *iv,
                const uint8_t *chunk, uint8_t *obj)
{
  gpg_error_t err;
  gcry_cipher_hd_t hd;
  size_t cs = ks_profile_chunk_size (profile);

  err = open_cipher (profile, ekey, j, iv, &hd);
  if (err)
    return err;
  memcpy (obj, iv, KS_IV_LEN);
  err = gcry_cipher_final (hd);
  if (!err)
    err = gcry_cipher_encrypt (hd, obj + KS_IV_LEN, cs, chunk, cs);
  if (!err)
    err = gcry_cipher_gettag (hd, obj + KS_IV_LEN + cs, KS_TAG_LEN);
  gcry_cipher_close (hd);
  return err;
}

gpg_error_t
ks_object_open (const ks_profile_t *profile, const uint8_t *ekey,
                uint32_t j, const uint8_t *obj, uint8_t *chunk)
{
  gpg_error_t err;
  gcry_cipher_hd_t hd;
  size_t cs = ks_profile_chunk_size (profile);

  err = open_cipher (profile, ekey, j, obj, &hd);
  if (err)
    return err;
  err = gcry_cipher_final (hd);
  if (!err)
    err = gcry_cipher_decrypt (hd, chunk, cs, obj + KS_IV_LEN, cs);
  if (!err)
    err = gcry_cipher_checktag (hd, obj + KS_IV_LEN + cs, KS_TAG_LEN);
  gcry_cipher_close (hd);
  if (err)
    ks_wipe (chunk, cs);
  return err;
}

gpg_error_t
ks_object_secret_len (const ks_profile_t *profile, const uint8_t *chunk0,
                      size_t *r_len)
{
  uint32_t len = ks_get_be32 (chunk0);

  (void)profile;
  *r_len = 0;
  if (len > KS_MAX_SECRET)
    return gpg_error (GPG_ERR_INV_LENGTH);
  *r_len = len;
  return 0;
}
