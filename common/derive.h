/* derive.h - the name seed N, shard names, the key K and the puzzle key E
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * doc/protocol.md section 4 is normative.  Every Argon2id call is one
 * lane with a 16-byte salt, the first 16 bytes of SHA-256 over the
 * labelled inputs.
 */
#ifndef KS_DERIVE_H
#define KS_DERIVE_H

#include "profile.h"

/* The longest item name in bytes.  */
#define KS_NAME_MAX 1024

/* N = SHA-256 (tag || "/name/" || N_1 || ... || N_P), where
 *   N_q = Argon2id (NAME, salt16 (tag || "/name/" || byte q || KEYID),
 *                   profile->name_cost)
 * for q = 1..P (profile->name_instances), run in parallel threads: the
 * same work for an attacker, 1/P of the wall time on P cores.  KEYID is
 * NULL or "" (not bound) or the uppercase hex fingerprint.  NAME must
 * be 1..KS_NAME_MAX bytes of valid UTF-8, else GPG_ERR_INV_NAME.  SEED gets
 * 32 bytes; keep it in secure memory, it is half of what opens a
 * backup.  PROGRESS reports the first instance.  */
gpg_error_t ks_derive_seed (const ks_profile_t *profile, const char *name,
                            const char *keyid, uint8_t *seed,
                            ks_progress_cb_t progress, void *progress_arg);

/* A shard name on the wire: 64 lowercase hex characters.  */
#define KS_NAME_HEXLEN 64

/* True when S[0..LEN) is exactly a shard name (64 lowercase hex).  The
 * one check every reader of a name uses: server URL, upload queue,
 * parsers.  */
int ks_name_is_valid (const char *s, size_t len);

/* The name of share I (1..255) of chunk J on the location of identity
 * LOC (see location.h) as 64 lowercase hex characters plus NUL:
 *   SHA-256 (tag || "/shard/" || N || be32 len(LOC) || LOC
 *            || byte I || be32 J).
 * GPG_ERR_INV_ARG for an invalid identity or I out of range.  */
gpg_error_t ks_derive_shard_name (const ks_profile_t *profile,
                                  const uint8_t *seed, const char *loc,
                                  unsigned int i, uint32_t j, char *hex);

/* K = Argon2id (PASSWORD, salt16 (tag || "/key/" || N),
 *               profile->key_cost), 32 bytes into KEY (secure memory).
 * N binds K to both the item name and the key id.  */
gpg_error_t ks_derive_key (const ks_profile_t *profile, const uint8_t *seed,
                           const void *password, size_t passwordlen,
                           uint8_t *key,
                           ks_progress_cb_t progress, void *progress_arg);

/* E = Argon2id (K || be32 R, salt16 (tag || "/puzzle/" || N),
 *               profile->puzzle_cost), 32 bytes into EKEY.  */
gpg_error_t ks_derive_puzzle_key (const ks_profile_t *profile,
                                  const uint8_t *seed, const uint8_t *key,
                                  uint32_t r, uint8_t *ekey);

#endif /* KS_DERIVE_H */
