/* shardset.h - from a secret to named shards and back
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * This is the whole cryptographic side of backup and restore; the
 * programs add only transport (HTTP), prompting and GnuPG.
 */
#ifndef KS_SHARDSET_H
#define KS_SHARDSET_H

#include "profile.h"

/* The shards of one backup.  Shard of share I (1..n) of chunk J lives at
 * index J * n + (I - 1) of NAMES and SHARDS.  Shards are not secret
 * alone but are kept in ordinary memory only after encryption.  */
typedef struct ks_shardset
{
  const ks_profile_t *profile;
  unsigned int n;
  unsigned int k;
  uint32_t nchunks;
  size_t shard_len;
  char (*names)[KS_NAME_HEX_LEN + 1];
  uint8_t **shards;
  /* N, in secure memory: the probe before an upload derives the names
   * a restore would ask of any location (ks_shardset_name).  */
  uint8_t *seed;
} ks_shardset_t;

/* Encrypt and split SECRET for item NAME under PASSWORD.  KEYID may be
 * NULL (not bound) or the uppercase hex fingerprint.  N and K of 0 take
 * the profile's defaults.  LOC_IDS[0..N) are the identities of the
 * locations that get share 1..N (location.h), pairwise distinct; the
 * names in NAMES are bound to them.  */
gpg_error_t ks_shardset_create (const ks_profile_t *profile,
                                const char *name, const char *keyid,
                                const void *password, size_t passwordlen,
                                const uint8_t *secret, size_t secretlen,
                                unsigned int n, unsigned int k,
                                const char *const *loc_ids,
                                ks_progress_cb_t progress, void *progress_arg,
                                ks_shardset_t **r_set);
void ks_shardset_free (ks_shardset_t *set);

/* The name of share I of chunk J of SET's item on the location of
 * identity LOC (any location, not only SET's), as
 * ks_derive_shard_name.  */
gpg_error_t ks_shardset_name (const ks_shardset_t *set, const char *loc,
                              unsigned int i, uint32_t j, char *hex);

/* Restore: derive names, take shards as they arrive, unlock, finish.  */
typedef struct ks_recover ks_recover_t;

/* Derives the name seed (the expensive step).  */
gpg_error_t ks_recover_new (const ks_profile_t *profile, const char *name,
                            const char *keyid,
                            ks_progress_cb_t progress, void *progress_arg,
                            ks_recover_t **r_rec);
/* For tests and the fuzz harness: a restore whose encryption key E
 * (KS_KEY_LEN bytes) is already known, so no Argon2 runs at all: no name
 * seed (ks_recover_shard_name gives nothing useful), and unlock only
 * combines and opens.  */
gpg_error_t ks_recover_new_with_key (const ks_profile_t *profile,
                                     const uint8_t *ekey,
                                     ks_recover_t **r_rec);
void ks_recover_free (ks_recover_t *rec);
const ks_profile_t *ks_recover_profile (ks_recover_t *rec);

/* Name of share I of chunk J on the location of identity LOC into HEX
 * (65 bytes).  A restore asks each location only for names bound to
 * it.  */
gpg_error_t ks_recover_shard_name (ks_recover_t *rec, const char *loc,
                                   unsigned int i, uint32_t j, char *hex);

/* Hand over a fetched shard; bytes are copied.  A shard of the wrong
 * size is refused with GPG_ERR_INV_LENGTH (a server answered junk).  */
gpg_error_t ks_recover_add_shard (ks_recover_t *rec, uint32_t j,
                                  unsigned int i,
                                  const uint8_t *data, size_t len);

/* Number of shards held for chunk J.  */
unsigned int ks_recover_shard_count (ks_recover_t *rec, uint32_t j);

/* With the shards of chunk 0 in hand: derive K, solve the puzzle over
 * every candidate combination (subsets of two or more shards, pairs
 * first, so a lying server cannot stop a restore).  After
 * GPG_ERR_BAD_PASSPHRASE it may be called again with another password:
 * N and the shards are kept.  GPG_ERR_NO_DATA with fewer than
 * two shards, GPG_ERR_BAD_PASSPHRASE when nothing opens.  */
gpg_error_t ks_recover_unlock (ks_recover_t *rec,
                               const void *password, size_t passwordlen,
                               unsigned int nthreads,
                               ks_progress_cb_t progress, void *progress_arg);

/* After unlock: how many chunks the secret has.  */
uint32_t ks_recover_nchunks (ks_recover_t *rec);

/* After the shards of every chunk are added: the secret, in secure
 * memory (free with ks_free_secret (*r_secret, *r_len)).  GPG_ERR_CHECKSUM
 * when some chunk has no combination that verifies.  */
gpg_error_t ks_recover_finish (ks_recover_t *rec,
                               uint8_t **r_secret, size_t *r_len);

#endif /* KS_SHARDSET_H */
