/* shamir.c - Shamir k-of-n over GF(2^8), constant time
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Field: GF(2^8) modulo x^8+x^4+x^3+x^2+1 (0x11d), as in libgfshare.
 *
 * Constant time: there are no log/exp tables and no branch or memory
 * index that depends on a secret, a coefficient or a share byte.  A
 * product is computed by shift-and-add where every conditional step is a
 * mask; the inverse is a^254 by a fixed chain of squarings and products.
 *
 * Split and combine only ever multiply secret bytes by public constants
 * (the x of a share, a Lagrange coefficient), so they work on eight byte
 * lanes of a 64-bit word at a time.  The lanes never carry into each
 * other, so byte order within the word does not matter.
 *
 * Randomness (normative, see doc/protocol.md): the bytes of one call
 * ks_random (buf, (k-1) * len) per split; coefficient c (1..k-1) of byte
 * position b is buf[(c-1) * len + b], and byte b of share x is
 * f(x) = secret[b] + sum_c coef_c * x^c.  The code draws these bytes in
 * consecutive pieces of at most COEF_CHUNK; ks_random is a stream (also
 * under a test seed), so the bytes are those of the one call.
 */
#include <config.h>
#include "shamir.h"
#include "random.h"

#define LANE_HI  UINT64_C (0x8080808080808080)
#define LANE_LO7 UINT64_C (0x7f7f7f7f7f7f7f7f)

uint8_t
ks_gf256_mul (uint8_t a, uint8_t b)
{
  unsigned int r = 0;
  unsigned int x = a;
  unsigned int y = b;
  int i;

  for (i = 0; i < 8; i++)
    {
      /* Add x when the low bit of y is set; then x *= t mod 0x11d.  */
      r ^= x & (0u - (y & 1));
      y >>= 1;
      x = (x << 1) ^ (0x11du & (0u - ((x >> 7) & 1)));
    }
  return (uint8_t)r;
}

uint8_t
ks_gf256_inv (uint8_t a)
{
  /* a^254 = a^-1 for a != 0, and 0^254 = 0.
   * 254 = 2 + 4 + 8 + 16 + 32 + 64 + 128.  */
  uint8_t sq = ks_gf256_mul (a, a);     /* a^2 */
  uint8_t r = sq;
  int i;

  for (i = 0; i < 6; i++)
    {
      sq = ks_gf256_mul (sq, sq);       /* a^4, a^8, ..., a^128 */
      r = ks_gf256_mul (r, sq);
    }
  return r;
}

/* Multiply each of the eight byte lanes of A by the public constant C.
 * The loop runs over the bits of C up to its highest set bit: that
 * depends on C only, which is public (a share's x or a Lagrange
 * coefficient); the bytes of A only ever meet masks.  */
static inline uint64_t
mul_lanes (uint64_t a, unsigned int c)
{
  uint64_t r = 0;

  for (; c; c >>= 1)
    {
      r ^= a & (UINT64_C (0) - (c & 1));
      /* Each lane's top bit moves to bit 0 of that lane, and times 0x1d
       * it stays inside the lane.  */
      a = ((a & LANE_LO7) << 1) ^ (((a & LANE_HI) >> 7) * 0x1d);
    }
  return r;
}

static inline uint64_t
load_lanes (const uint8_t *p, size_t n)
{
  uint64_t w = 0;

  memcpy (&w, p, n);
  return w;
}

static inline void
store_lanes (uint8_t *p, uint64_t w, size_t n)
{
  memcpy (p, &w, n);
}


/* Coefficients are drawn and used this many bytes at a time, so the
 * secure memory a split needs does not grow with the secret (libgcrypt's
 * secure pool cannot hand out a block larger than a pool).  */
#define COEF_CHUNK 8192

gpg_error_t
ks_shamir_split (const uint8_t *secret, size_t len,
                 unsigned int k, unsigned int n, uint8_t **shares)
{
  gpg_error_t err = 0;
  uint8_t *coef = NULL;
  uint8_t pw[KS_SHAMIR_MAX_SHARES];
  size_t off, m, b, w;
  unsigned int i, c;

  if (k < 2 || k > n || n > KS_SHAMIR_MAX_SHARES || !shares)
    {
      err = gpg_error (GPG_ERR_INV_ARG);
      goto leave;
    }
  if (!len)
    goto leave;
  if (!secret)
    {
      err = gpg_error (GPG_ERR_INV_ARG);
      goto leave;
    }
  for (i = 0; i < n; i++)
    if (!shares[i])
      {
        err = gpg_error (GPG_ERR_INV_ARG);
        goto leave;
      }

  coef = ks_malloc_secure (COEF_CHUNK);
  if (!coef)
    {
      err = gpg_error_from_syserror ();
      goto leave;
    }

  /* The sum f(x) = s + c_1 x + ... + c_{k-1} x^{k-1}, one coefficient at
   * a time: that reads the random bytes exactly in the order of one
   * ks_random (buf, (k-1) * len) call laid out as buf[(c-1) * len + b],
   * chunk after chunk.  The first pass writes s + c_1 x, so a share
   * buffer never holds the bare secret.  PW[i] is x^c for x = i + 1.  */
  for (i = 0; i < n; i++)
    pw[i] = (uint8_t)(i + 1);
  for (c = 1; c < k; c++)
    {
      for (off = 0; off < len; off += m)
        {
          m = len - off < COEF_CHUNK ? len - off : COEF_CHUNK;
          ks_random (coef, m);
          for (i = 0; i < n; i++)
            {
              uint8_t *dst = shares[i] + off;

              for (b = 0; b < m; b += w)
                {
                  uint64_t acc;

                  w = m - b < 8 ? m - b : 8;
                  acc = (c == 1 ? load_lanes (secret + off + b, w)
                         : load_lanes (dst + b, w));
                  acc ^= mul_lanes (load_lanes (coef + b, w), pw[i]);
                  store_lanes (dst + b, acc, w);
                }
            }
        }
      for (i = 0; i < n; i++)
        pw[i] = ks_gf256_mul (pw[i], (uint8_t)(i + 1));
    }

 leave:
  ks_free_secret (coef, COEF_CHUNK);
  return err;
}


gpg_error_t
ks_shamir_combine (const uint8_t *const *shares, const uint8_t *xs,
                   unsigned int count, size_t len, uint8_t *secret)
{
  gpg_error_t err = 0;
  uint8_t seen[256];
  uint8_t lag[KS_SHAMIR_MAX_SHARES];
  unsigned int c, j;
  size_t off, w;
  uint64_t acc;

  /* The x values are public (they come from shard names), so checking
   * them with branches is fine.  */
  if (count < 2 || count > KS_SHAMIR_MAX_SHARES || !xs || !shares
      || (len && !secret))
    {
      err = gpg_error (GPG_ERR_INV_ARG);
      goto leave;
    }
  memset (seen, 0, sizeof seen);
  for (c = 0; c < count; c++)
    {
      if (!xs[c] || seen[xs[c]] || (len && !shares[c]))
        {
          err = gpg_error (GPG_ERR_INV_ARG);
          goto leave;
        }
      seen[xs[c]] = 1;
    }

  /* Lagrange basis at 0: l_c = prod_{j != c} x_j / (x_j - x_c); in
   * characteristic 2 the difference is an XOR.  */
  for (c = 0; c < count; c++)
    {
      uint8_t num = 1, den = 1;

      for (j = 0; j < count; j++)
        if (j != c)
          {
            num = ks_gf256_mul (num, xs[j]);
            den = ks_gf256_mul (den, xs[j] ^ xs[c]);
          }
      lag[c] = ks_gf256_mul (num, ks_gf256_inv (den));
    }

  for (off = 0; off < len; off += w)
    {
      w = len - off < 8 ? len - off : 8;
      acc = 0;
      for (c = 0; c < count; c++)
        acc ^= mul_lanes (load_lanes (shares[c] + off, w), lag[c]);
      store_lanes (secret + off, acc, w);
    }

 leave:
  return err;
}
