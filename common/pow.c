/* pow.c - the servers' stateless proof of work
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * doc/protocol.md ("Proof of work") is the normative description; the
 * byte layouts below follow it exactly.
 *
 *   challenge = be64 time || u8 difficulty || 16 random || 16 mac
 *   mac       = HMAC-SHA256 (key, "keysafe-pow-1" || time || difficulty
 *                            || random || method || 0x00 || name)[0..15]
 *   proof     = hex (challenge) "." hex (nonce[8])
 *   accepted  when SHA-256 (challenge || nonce || method || 0x00 || name)
 *             starts with DIFFICULTY zero bits.
 */
#include <config.h>
#include "pow.h"
#include "buffer.h"

#define POW_TAG "keysafe-pow-1"
#define POW_KEY_LEN KS_POW_KEY_LEN
#define POW_RAND_LEN 16
#define POW_MAC_LEN 16
#define POW_NONCE_LEN 8
#define POW_CHAL_LEN (8 + 1 + POW_RAND_LEN + POW_MAC_LEN)   /* 41 */
#define POW_CHAL_HEX (2 * POW_CHAL_LEN)                     /* 82 */
#define POW_PROOF_HEX (POW_CHAL_HEX + 1 + 2 * POW_NONCE_LEN) /* 99 */
/* A challenge stamped later than now by more than this is refused; the
 * server makes and checks them with one clock, so this only absorbs a
 * clock step.  */
#define POW_FUTURE_SLACK 60
/* Method and name are short; anything longer is not a request of ours.  */
#define POW_MAX_BINDING 128

struct ks_pow_key
{
  uint8_t key[POW_KEY_LEN];
};

gpg_error_t
ks_pow_key_new (ks_pow_key_t **r_key)
{
  ks_pow_key_t *key;

  *r_key = NULL;
  key = ks_malloc_secure (sizeof *key);
  if (!key)
    return gpg_error_from_syserror ();
  gcry_randomize (key->key, sizeof key->key, GCRY_STRONG_RANDOM);
  *r_key = key;
  return 0;
}

gpg_error_t
ks_pow_key_from_bytes (const uint8_t *bytes, size_t len,
                       ks_pow_key_t **r_key)
{
  gpg_error_t err;

  *r_key = NULL;
  if (len != POW_KEY_LEN)
    return gpg_error (GPG_ERR_INV_KEYLEN);
  err = ks_pow_key_new (r_key);
  if (!err)
    memcpy ((*r_key)->key, bytes, POW_KEY_LEN);
  return err;
}

void
ks_pow_key_free (ks_pow_key_t *key)
{
  ks_free_secret (key, sizeof *key);
}

/* Check METHOD and NAME for use in the bound data.  */
static gpg_error_t
check_binding (const char *method, const char *name)
{
  if (!method || !name || !*method)
    return gpg_error (GPG_ERR_INV_ARG);
  if (strlen (method) + strlen (name) > POW_MAX_BINDING)
    return gpg_error (GPG_ERR_INV_ARG);
  return 0;
}

/* Compute the 16-byte MAC of the first 25 bytes of CHAL into OUT.  */
static gpg_error_t
compute_mac (const ks_pow_key_t *key, const uint8_t *chal,
             const char *method, const char *name, uint8_t *out)
{
  gpg_error_t err;
  gcry_mac_hd_t hd = NULL;
  uint8_t full[32];
  size_t fulllen = sizeof full;

  err = gcry_mac_open (&hd, GCRY_MAC_HMAC_SHA256, 0, NULL);
  if (err)
    goto leave;
  err = gcry_mac_setkey (hd, key->key, sizeof key->key);
  if (!err)
    err = gcry_mac_write (hd, POW_TAG, strlen (POW_TAG));
  if (!err)
    err = gcry_mac_write (hd, chal, 8 + 1 + POW_RAND_LEN);
  if (!err)
    err = gcry_mac_write (hd, method, strlen (method) + 1); /* with NUL */
  if (!err)
    err = gcry_mac_write (hd, name, strlen (name));
  if (!err)
    err = gcry_mac_read (hd, full, &fulllen);
  if (err)
    goto leave;
  memcpy (out, full, POW_MAC_LEN);

 leave:
  gcry_mac_close (hd);
  ks_wipe (full, sizeof full);
  return err;
}

gpg_error_t
ks_pow_challenge (const ks_pow_key_t *key, unsigned int difficulty,
                  const char *method, const char *name,
                  uint64_t now, char *out, size_t outsize)
{
  gpg_error_t err;
  uint8_t chal[POW_CHAL_LEN];

  if (outsize)
    *out = 0;
  if (!key || outsize < POW_CHAL_HEX + 1)
    return gpg_error (GPG_ERR_BUFFER_TOO_SHORT);
  if (difficulty > KS_POW_MAX_DIFFICULTY)
    return gpg_error (GPG_ERR_INV_ARG);
  err = check_binding (method, name);
  if (err)
    return err;

  ks_put_be64 (chal, now);
  chal[8] = difficulty;
  /* The random part only makes challenges distinct; it needs to be
   * unpredictable, not secret, which is what a nonce is.  */
  gcry_create_nonce (chal + 9, POW_RAND_LEN);
  err = compute_mac (key, chal, method, name, chal + 9 + POW_RAND_LEN);
  if (err)
    return err;
  ks_hex_encode (chal, sizeof chal, out);
  return 0;
}

/* Number of leading zero bits of DIGEST, looking at no more than
 * LIMIT bits.  */
static unsigned int
leading_zero_bits (const uint8_t *digest, unsigned int limit)
{
  unsigned int n = 0, i;
  int bit;

  for (i = 0; n < limit; i++)
    {
      if (!digest[i])
        {
          n += 8;
          continue;
        }
      for (bit = 7; bit >= 0 && !(digest[i] & (1 << bit)); bit--)
        n++;
      break;
    }
  return n;
}

/* Fill BUF with challenge || nonce || method || 0 || name and return
 * its length.  BUF must hold POW_CHAL_LEN + 8 + POW_MAX_BINDING + 1.  */
static size_t
build_work (uint8_t *buf, const uint8_t *chal, const uint8_t *nonce,
            const char *method, const char *name)
{
  size_t n = 0, ml = strlen (method) + 1, nl = strlen (name);

  memcpy (buf, chal, POW_CHAL_LEN);
  n += POW_CHAL_LEN;
  memcpy (buf + n, nonce, POW_NONCE_LEN);
  n += POW_NONCE_LEN;
  memcpy (buf + n, method, ml);
  n += ml;
  memcpy (buf + n, name, nl);
  n += nl;
  return n;
}

/* PROOF is exactly hex (challenge) "." hex (nonce), lowercase.  */
static gpg_error_t
parse_proof (const char *proof, uint8_t *chal, uint8_t *nonce)
{
  ks_buf_t in;
  uint8_t dot = 0;

  ks_buf_view (&in, proof, strlen (proof));
  if (ks_buf_get_hex (&in, chal, POW_CHAL_LEN)
      || ks_buf_get_bytes (&in, &dot, 1) || dot != '.'
      || ks_buf_get_hex (&in, nonce, POW_NONCE_LEN) || ks_buf_left (&in))
    return gpg_error (GPG_ERR_INV_VALUE);
  return 0;
}

gpg_error_t
ks_pow_check (const ks_pow_key_t *key, const char *proof,
              const char *method, const char *name,
              unsigned int min_difficulty, uint64_t now,
              uint8_t *r_id)
{
  gpg_error_t err;
  uint8_t chal[POW_CHAL_LEN];
  uint8_t nonce[POW_NONCE_LEN];
  uint8_t mac[POW_MAC_LEN];
  uint8_t work[POW_CHAL_LEN + POW_NONCE_LEN + POW_MAX_BINDING + 1];
  uint8_t digest[32];
  uint64_t stamp;
  unsigned int difficulty;
  size_t worklen;

  if (r_id)
    memset (r_id, 0, KS_POW_ID_LEN);
  if (!key || !proof)
    return gpg_error (GPG_ERR_INV_VALUE);
  err = check_binding (method, name);
  if (err)
    return gpg_error (GPG_ERR_INV_VALUE);

  err = parse_proof (proof, chal, nonce);
  if (err)
    return err;

  /* Ours and bound to this request?  */
  err = compute_mac (key, chal, method, name, mac);
  if (err)
    return err;
  if (!ks_memeq (mac, chal + 9 + POW_RAND_LEN, POW_MAC_LEN))
    return gpg_error (GPG_ERR_BAD_SIGNATURE);

  stamp = ks_get_be64 (chal);
  difficulty = chal[8];
  if (stamp > now + POW_FUTURE_SLACK)
    return gpg_error (GPG_ERR_TIMEOUT);
  if (now > stamp && now - stamp > KS_POW_WINDOW)
    return gpg_error (GPG_ERR_TIMEOUT);
  if (difficulty > KS_POW_MAX_DIFFICULTY)
    return gpg_error (GPG_ERR_INV_VALUE);
  if (difficulty < min_difficulty)
    return gpg_error (GPG_ERR_TOO_SHORT);

  worklen = build_work (work, chal, nonce, method, name);
  gcry_md_hash_buffer (GCRY_MD_SHA256, digest, work, worklen);
  if (leading_zero_bits (digest, difficulty) < difficulty)
    return gpg_error (GPG_ERR_BAD_DATA);

  if (r_id)
    memcpy (r_id, mac, KS_POW_ID_LEN);
  return 0;
}

gpg_error_t
ks_pow_solve (const char *challenge, const char *method,
              const char *name, uint64_t max_tries,
              char *proof, size_t proofsize)
{
  gpg_error_t err;
  uint8_t chal[POW_CHAL_LEN];
  uint8_t work[POW_CHAL_LEN + POW_NONCE_LEN + POW_MAX_BINDING + 1];
  uint8_t digest[32];
  uint8_t *noncep;
  unsigned int difficulty;
  size_t worklen;
  uint64_t tries, nonce;
  ks_buf_t in;

  if (proofsize)
    *proof = 0;
  if (proofsize < POW_PROOF_HEX + 1)
    return gpg_error (GPG_ERR_BUFFER_TOO_SHORT);
  err = check_binding (method, name);
  if (err)
    return err;
  if (!challenge)
    return gpg_error (GPG_ERR_INV_VALUE);
  ks_buf_view (&in, challenge, strlen (challenge));
  if (ks_buf_get_hex (&in, chal, POW_CHAL_LEN) || ks_buf_left (&in))
    return gpg_error (GPG_ERR_INV_VALUE);
  difficulty = chal[8];
  if (difficulty > KS_POW_MAX_DIFFICULTY)
    return gpg_error (GPG_ERR_INV_VALUE);

  memset (work, 0, sizeof work);
  memset (digest, 0, sizeof digest);
  worklen = build_work (work, chal, digest, method, name); /* zero nonce */
  noncep = work + POW_CHAL_LEN;
  for (tries = 0, nonce = 0; !max_tries || tries < max_tries;
       tries++, nonce++)
    {
      ks_put_be64 (noncep, nonce);
      gcry_md_hash_buffer (GCRY_MD_SHA256, digest, work, worklen);
      if (leading_zero_bits (digest, difficulty) >= difficulty)
        {
          memcpy (proof, challenge, POW_CHAL_HEX);
          proof[POW_CHAL_HEX] = '.';
          ks_hex_encode (noncep, POW_NONCE_LEN, proof + POW_CHAL_HEX + 1);
          return 0;
        }
    }
  return gpg_error (GPG_ERR_TIMEOUT);
}
