/* shardset.c - from a secret to named shards (backup); recover.c goes back
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The order of operations and of randomness use here is normative
 * (doc/protocol.md, "Backup"): the known-answer vectors depend on it.
 */
#include <config.h>
#include "shardset.h"
#include "buffer.h"
#include "random.h"
#include "derive.h"
#include "object.h"
#include "puzzle.h"
#include "shamir.h"

#include "location.h"


static gpg_error_t
check_nk (unsigned int n, unsigned int k)
{
  if (k < 2 || k > n || n > KS_SHAMIR_MAX_SHARES)
    return gpg_error (GPG_ERR_INV_ARG);
  return 0;
}

/* N valid and pairwise distinct location identities: the shares of one
 * backup go to N different locations.  */
static gpg_error_t
check_locations (const char *const *loc, unsigned int n)
{
  unsigned int a, b;

  if (!loc)
    return gpg_error (GPG_ERR_INV_ARG);
  for (a = 0; a < n; a++)
    {
      if (!ks_location_id_is_valid (loc[a]))
        return gpg_error (GPG_ERR_INV_ARG);
      for (b = 0; b < a; b++)
        if (!strcmp (loc[a], loc[b]))
          return gpg_error (GPG_ERR_INV_ARG);
    }
  return 0;
}

void
ks_shardset_free (ks_shardset_t *set)
{
  size_t idx;

  if (!set)
    return;
  if (set->shards)
    for (idx = 0; idx < (size_t)set->nchunks * set->n; idx++)
      ks_free (set->shards[idx]);
  ks_free (set->shards);
  ks_free (set->names);
  ks_free_secret (set->seed, KS_SEED_LEN);
  ks_free (set);
}

gpg_error_t
ks_shardset_name (const ks_shardset_t *set, const char *loc, unsigned int i,
                  uint32_t j, char *hex)
{
  return ks_derive_shard_name (set->profile, set->seed, loc, i, j, hex);
}

/* Allocate the N shards of chunk J of SET and derive their names, share
 * I on the location LOC_IDS[I-1].  */
static gpg_error_t
name_chunk (ks_shardset_t *set, const uint8_t *seed,
            const char *const *loc_ids, uint32_t j)
{
  gpg_error_t err;
  size_t base = (size_t)j * set->n;
  unsigned int i;

  for (i = 0; i < set->n; i++)
    {
      set->shards[base + i] = ks_malloc (set->profile->object_size);
      if (!set->shards[base + i])
        return gpg_error_from_syserror ();
      err = ks_derive_shard_name (set->profile, seed, loc_ids[i], i + 1, j,
                                  set->names[base + i]);
      if (err)
        return err;
    }
  return 0;
}

gpg_error_t
ks_shardset_create (const ks_profile_t *profile,
                    const char *name, const char *keyid,
                    const void *password, size_t passwordlen,
                    const uint8_t *secret, size_t secretlen,
                    unsigned int n, unsigned int k,
                    const char *const *loc_ids,
                    ks_progress_cb_t progress, void *progress_arg,
                    ks_shardset_t **r_set)
{
  gpg_error_t err;
  ks_shardset_t *set = NULL;
  uint8_t *seed = NULL;         /* N, secure */
  uint8_t *key = NULL;          /* K, secure */
  uint8_t *ekey = NULL;         /* E, secure */
  uint8_t *chunk = NULL;        /* plaintext chunk, secure */
  uint8_t *obj = NULL;          /* sealed object (ciphertext) */
  size_t cs = ks_profile_chunk_size (profile);
  uint8_t rbuf[4], iv[KS_IV_LEN];
  uint32_t r, j;

  *r_set = NULL;
  if (!n)
    n = profile->shares;
  if (!k)
    k = profile->threshold;
  err = check_nk (n, k);
  if (!err)
    err = check_locations (loc_ids, n);
  if (err)
    goto leave;
  if (!name || !*name)
    {
      err = gpg_error (GPG_ERR_INV_NAME);
      goto leave;
    }

  set = ks_calloc (1, sizeof *set);
  if (!set)
    {
      err = gpg_error_from_syserror ();
      goto leave;
    }
  set->profile = profile;
  set->n = n;
  set->k = k;
  set->shard_len = profile->object_size;
  err = ks_object_count (profile, secretlen, &set->nchunks);
  if (err)
    goto leave;
  set->names = ks_calloc ((size_t)set->nchunks * n, sizeof *set->names);
  set->shards = ks_calloc ((size_t)set->nchunks * n, sizeof *set->shards);
  seed = ks_malloc_secure (KS_SEED_LEN);
  key = ks_malloc_secure (KS_KEY_LEN);
  ekey = ks_malloc_secure (KS_KEY_LEN);
  chunk = ks_malloc_secure (cs);
  obj = ks_malloc (profile->object_size);
  if (!set->names || !set->shards || !seed || !key || !ekey || !chunk
      || !obj)
    {
      err = gpg_error_from_syserror ();
      goto leave;
    }

  err = ks_derive_seed (profile, name, keyid, seed, progress, progress_arg);
  if (err)
    goto leave;
  err = ks_derive_key (profile, seed, password, passwordlen, key,
                       progress, progress_arg);
  if (err)
    goto leave;

  /* The puzzle: R is the first randomness drawn.  */
  ks_random (rbuf, sizeof rbuf);
  r = ks_get_be32 (rbuf) & (uint32_t)(((uint64_t)1 << profile->puzzle_bits) - 1);
  err = ks_derive_puzzle_key (profile, seed, key, r, ekey);
  ks_wipe (rbuf, sizeof rbuf);
  r = 0;
  if (err)
    goto leave;
  if (progress)
    progress (progress_arg, "puzzle", 1, 1);

  for (j = 0; j < set->nchunks; j++)
    {
      uint8_t **shards = set->shards + (size_t)j * n;

      err = name_chunk (set, seed, loc_ids, j);
      if (err)
        goto leave;
      ks_object_chunk (profile, secret, secretlen, j, chunk);
      ks_random (iv, sizeof iv);
      err = ks_object_seal (profile, ekey, j, iv, chunk, obj);
      if (err)
        goto leave;
      err = ks_shamir_split (obj, profile->object_size, k, n, shards);
      if (err)
        goto leave;
    }

  set->seed = seed;
  seed = NULL;
  *r_set = set;
  set = NULL;

 leave:
  ks_free_secret (seed, KS_SEED_LEN);
  ks_free_secret (key, KS_KEY_LEN);
  ks_free_secret (ekey, KS_KEY_LEN);
  ks_free_secret (chunk, cs);
  ks_free (obj);
  ks_shardset_free (set);
  return err;
}
