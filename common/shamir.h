/* shamir.h - Shamir k-of-n secret sharing over GF(2^8)
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The field is GF(2^8) with reducing polynomial x^8+x^4+x^3+x^2+1 (0x11d),
 * the one libgfshare uses, so shares combine with its gfcombine.  Share i
 * is the polynomial evaluated at x = i (1..n), byte by byte; the random
 * coefficients come from ks_random (shardset.h), the library's one
 * randomness source, in the order doc/protocol.md fixes: one call
 * ks_random (buf, (k-1) * len) per split, and coefficient c (1..k-1) of
 * byte b is buf[(c-1) * len + b], so byte b of share x is
 * secret[b] + sum_c coef_c * x^c.  The coefficients live in secure
 * memory and are wiped.  All arithmetic is constant time: no branch and
 * no table index depends on a secret, coefficient or share byte.
 */
#ifndef KS_SHAMIR_H
#define KS_SHAMIR_H

#include "util.h"

#define KS_SHAMIR_MAX_SHARES 255

/* Split SECRET (LEN bytes, LEN may be 0) into N shares of LEN bytes each,
 * any K of which recover it; 2 <= K <= N <= 255, else GPG_ERR_INV_ARG.
 * SHARES[i] (i = 0..N-1) is the share for x = i + 1 and must point to LEN
 * writable bytes that do not overlap SECRET.  Secure memory in use is a
 * fixed small buffer, whatever LEN and K.  */
gpg_error_t ks_shamir_split (const uint8_t *secret, size_t len,
                             unsigned int k, unsigned int n,
                             uint8_t **shares);

/* Recover a secret from COUNT shares of LEN bytes: SHARES[c] is the share
 * for x = XS[c].  The x values must be distinct and in 1..255 and COUNT
 * in 2..255, since no threshold is below 2 (else GPG_ERR_INV_ARG).  With
 * fewer shares than the threshold the output is garbage, not an error:
 * nothing in a share says how many are needed.  LEN may be 0.  SECRET
 * may be any writable buffer of LEN bytes; put it in secure memory.  */
gpg_error_t ks_shamir_combine (const uint8_t *const *shares,
                               const uint8_t *xs, unsigned int count,
                               size_t len, uint8_t *secret);

/* Field operations, exported for tests.  Constant time.  */
uint8_t ks_gf256_mul (uint8_t a, uint8_t b);
uint8_t ks_gf256_inv (uint8_t a);   /* inv(0) = 0 */

#endif /* KS_SHAMIR_H */
