/* pow.h - the servers' stateless proof of work
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * doc/protocol.md ("Proof of work") is normative.  A server hands out a
 * challenge bound to the method and shard name, protected by an HMAC under
 * a key it makes at start; the client finds a nonce so that a SHA-256 over
 * challenge, nonce, method and name starts with DIFFICULTY zero bits.
 * The server keeps no state per challenge beyond a bounded replay cache.
 */
#ifndef KS_POW_H
#define KS_POW_H

#include "util.h"

/* A challenge is valid this many seconds after it was made.  */
#define KS_POW_WINDOW 300
/* The highest difficulty (leading zero bits) a server may ask for.  */
#define KS_POW_MAX_DIFFICULTY 32
/* Sizes of the text forms, including the NUL.  A challenge is 41 bytes
 * (82 hex characters), a proof is the challenge, a dot and 8 nonce bytes
 * in hex (99 characters); the sizes leave room.  */
#define KS_POW_CHALLENGE_SIZE 128
#define KS_POW_PROOF_SIZE 160
/* Bytes of the replay-cache identifier of a proof: the challenge's MAC,
 * so a challenge can be spent once whatever nonce solves it, and an
 * attacker cannot choose where it lands in the cache.  */
#define KS_POW_ID_LEN 16

typedef struct ks_pow_key ks_pow_key_t;

/* A fresh random HMAC key (secure memory).  */
gpg_error_t ks_pow_key_new (ks_pow_key_t **r_key);
void ks_pow_key_free (ks_pow_key_t *key);
/* A key from 32 given bytes, for known-answer tests only.  */
#define KS_POW_KEY_LEN 32
gpg_error_t ks_pow_key_from_bytes (const uint8_t *bytes, size_t len,
                                   ks_pow_key_t **r_key);

/* Make a challenge for METHOD ("GET", "PUT") and NAME (64 hex) at time
 * NOW (seconds since the epoch) into OUT.  */
gpg_error_t ks_pow_challenge (const ks_pow_key_t *key, unsigned int difficulty,
                              const char *method, const char *name,
                              uint64_t now, char *out, size_t outsize);

/* Check PROOF (the Keysafe-PoW header value) for METHOD and NAME.
 * Errors: GPG_ERR_INV_VALUE malformed, GPG_ERR_BAD_SIGNATURE not ours or
 * bound to another request, GPG_ERR_TIMEOUT stale, GPG_ERR_TOO_SHORT
 * difficulty below MIN_DIFFICULTY, GPG_ERR_BAD_DATA the hash misses the
 * target.  A challenge stamped more than 60 s after NOW is stale too.
 * The MAC is compared in constant time.  On success R_ID (KS_POW_ID_LEN
 * bytes, may be NULL) gets the proof's replay-cache identifier.  The
 * checks run in that order, so a cheap refusal never hashes.  */
gpg_error_t ks_pow_check (const ks_pow_key_t *key, const char *proof,
                          const char *method, const char *name,
                          unsigned int min_difficulty, uint64_t now,
                          uint8_t *r_id);

/* Client side: solve CHALLENGE for METHOD and NAME, trying at most
 * MAX_TRIES nonces (0: no limit; GPG_ERR_TIMEOUT past the limit), into
 * PROOF (KS_POW_PROOF_SIZE bytes).  A difficulty of D costs 2^D SHA-256
 * computations on average.  GPG_ERR_INV_VALUE for a malformed challenge
 * or one asking more than KS_POW_MAX_DIFFICULTY.  */
gpg_error_t ks_pow_solve (const char *challenge, const char *method,
                          const char *name, uint64_t max_tries,
                          char *proof, size_t proofsize);

#endif /* KS_POW_H */
