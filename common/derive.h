/* derive.h - shard names, the key K and the puzzle key E
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef KS_DERIVE_H
#define KS_DERIVE_H

#include "profile.h"

/* N = Argon2id (pass = NAME, salt = tag || "/name/" || KEYID,
 *               profile->name_cost), 32 bytes.
 * KEYID may be NULL or "" (not bound).  This is the expensive step that
 * makes guessing names costly.  */
gpg_error_t ks_derive_seed (const ks_profile_t *profile, const char *name,
                            const char *keyid, uint8_t *seed,
                            ks_progress_cb_t progress, void *progress_arg);

/* A shard name on the wire: 64 lowercase hex characters.  */
#define KS_NAME_HEXLEN 64

/* True when S[0..LEN) is exactly a shard name (64 lowercase hex).  The
 * one check every reader of a name uses: server URL, upload queue,
 * parsers.  */
int ks_name_is_valid (const char *s, size_t len);

/* The shard name of share I (1..255) of chunk J as 64 lowercase hex
 * characters plus NUL: SHA-256 (N || byte I || be32 J).  */
void ks_derive_shard_name (const uint8_t *seed, unsigned int i, uint32_t j,
                           char *hex);

/* K = Argon2id (pass = PASSWORD, salt = tag || "/key/" || NAME,
 *               profile->key_cost), 32 bytes into KEY (secure memory).  */
gpg_error_t ks_derive_key (const ks_profile_t *profile, const char *name,
                           const void *password, size_t passwordlen,
                           uint8_t *key,
                           ks_progress_cb_t progress, void *progress_arg);

/* E = Argon2id (pass = K || be32 R, salt = tag || "/puzzle/" || NAME,
 *               profile->puzzle_cost), 32 bytes into EKEY.  */
gpg_error_t ks_derive_puzzle_key (const ks_profile_t *profile,
                                  const char *name, const uint8_t *key,
                                  uint32_t r, uint8_t *ekey);

#endif /* KS_DERIVE_H */
