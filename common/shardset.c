/* shardset.c - from a secret to named shards and back
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

/* Shards held for one chunk beyond this are ignored: with M shards a
 * restore tries up to 2^M subsets.  */
#define KS_RECOVER_MAX_PER_CHUNK 10
/* Distinct combinations tried per chunk.  */
#define KS_RECOVER_MAX_CANDS 128

static gpg_error_t
check_nk (unsigned int n, unsigned int k)
{
  if (k < 2 || k > n || n > KS_SHAMIR_MAX_SHARES)
    return gpg_error (GPG_ERR_INV_ARG);
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
  ks_free (set);
}

gpg_error_t
ks_shardset_create (const ks_profile_t *profile,
                    const char *name, const char *keyid,
                    const void *password, size_t passwordlen,
                    const uint8_t *secret, size_t secretlen,
                    unsigned int n, unsigned int k,
                    ks_progress_cb_t progress, void *progress_arg,
                    ks_shardset_t **r_set)
{
  gpg_error_t err;
  ks_shardset_t *set = NULL;
  uint8_t seed[KS_SEED_LEN];
  uint8_t *key = NULL;          /* K, secure */
  uint8_t *ekey = NULL;         /* E, secure */
  uint8_t *chunk = NULL;        /* plaintext chunk, secure */
  uint8_t *obj = NULL;          /* sealed object (ciphertext) */
  size_t cs = ks_profile_chunk_size (profile);
  uint8_t rbuf[4], iv[KS_IV_LEN];
  uint32_t r, j;
  unsigned int i;

  *r_set = NULL;
  if (!n)
    n = profile->shares;
  if (!k)
    k = profile->threshold;
  err = check_nk (n, k);
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
  key = ks_malloc_secure (KS_KEY_LEN);
  ekey = ks_malloc_secure (KS_KEY_LEN);
  chunk = ks_malloc_secure (cs);
  obj = ks_malloc (profile->object_size);
  if (!set->names || !set->shards || !key || !ekey || !chunk || !obj)
    {
      err = gpg_error_from_syserror ();
      goto leave;
    }

  err = ks_derive_seed (profile, name, keyid, seed, progress, progress_arg);
  if (err)
    goto leave;
  err = ks_derive_key (profile, name, password, passwordlen, key,
                       progress, progress_arg);
  if (err)
    goto leave;

  /* The puzzle: R is the first randomness drawn.  */
  ks_random (rbuf, sizeof rbuf);
  r = ks_get_be32 (rbuf) & (uint32_t)(((uint64_t)1 << profile->puzzle_bits) - 1);
  err = ks_derive_puzzle_key (profile, name, key, r, ekey);
  ks_wipe (rbuf, sizeof rbuf);
  r = 0;
  if (err)
    goto leave;
  if (progress)
    progress (progress_arg, "puzzle", 1, 1);

  for (j = 0; j < set->nchunks; j++)
    {
      uint8_t **shards = set->shards + (size_t)j * n;

      for (i = 0; i < n; i++)
        {
          shards[i] = ks_malloc (profile->object_size);
          if (!shards[i])
            {
              err = gpg_error_from_syserror ();
              goto leave;
            }
          ks_derive_shard_name (seed, i + 1, j, set->names[(size_t)j * n + i]);
        }
      ks_object_chunk (profile, secret, secretlen, j, chunk);
      ks_random (iv, sizeof iv);
      err = ks_object_seal (profile, ekey, j, iv, chunk, obj);
      if (err)
        goto leave;
      err = ks_shamir_split (obj, profile->object_size, k, n, shards);
      if (err)
        goto leave;
    }

  *r_set = set;
  set = NULL;

 leave:
  ks_wipe (seed, sizeof seed);
  ks_free_secret (key, KS_KEY_LEN);
  ks_free_secret (ekey, KS_KEY_LEN);
  ks_free_secret (chunk, cs);
  ks_free (obj);
  ks_shardset_free (set);
  return err;
}


/*
 * Restore.
 */

struct held_shard
{
  uint32_t j;
  uint8_t x;
  uint8_t *data;
};

struct ks_recover
{
  const ks_profile_t *profile;
  char *name;
  uint8_t seed[KS_SEED_LEN];
  struct held_shard *held;
  size_t nheld;
  size_t allocheld;
  uint8_t *ekey;                /* after unlock, secure */
  uint8_t *chunk0;              /* after unlock, secure */
  size_t secretlen;
  uint32_t nchunks;
  int keyed;                    /* EKEY given: no KDF, no puzzle */
  int unlocked;
};

gpg_error_t
ks_recover_new (const ks_profile_t *profile, const char *name,
                const char *keyid,
                ks_progress_cb_t progress, void *progress_arg,
                ks_recover_t **r_rec)
{
  gpg_error_t err;
  ks_recover_t *rec;

  *r_rec = NULL;
  if (!name || !*name)
    return gpg_error (GPG_ERR_INV_NAME);
  rec = ks_calloc (1, sizeof *rec);
  if (!rec)
    return gpg_error_from_syserror ();
  rec->profile = profile;
  rec->name = ks_strdup (name);
  if (!rec->name)
    {
      err = gpg_error_from_syserror ();
      goto leave;
    }
  err = ks_derive_seed (profile, name, keyid, rec->seed,
                        progress, progress_arg);
  if (err)
    goto leave;
  *r_rec = rec;
  rec = NULL;

 leave:
  ks_recover_free (rec);
  return err;
}

gpg_error_t
ks_recover_new_with_key (const ks_profile_t *profile, const uint8_t *ekey,
                         ks_recover_t **r_rec)
{
  ks_recover_t *rec;

  *r_rec = NULL;
  rec = ks_calloc (1, sizeof *rec);
  if (!rec)
    return gpg_error_from_syserror ();
  rec->profile = profile;
  rec->ekey = ks_malloc_secure (KS_KEY_LEN);
  if (!rec->ekey)
    {
      gpg_error_t err = gpg_error_from_syserror ();

      ks_recover_free (rec);
      return err;
    }
  memcpy (rec->ekey, ekey, KS_KEY_LEN);
  rec->keyed = 1;
  *r_rec = rec;
  return 0;
}

void
ks_recover_free (ks_recover_t *rec)
{
  size_t h;

  if (!rec)
    return;
  for (h = 0; h < rec->nheld; h++)
    ks_free (rec->held[h].data);
  ks_free (rec->held);
  ks_wipe (rec->seed, sizeof rec->seed);
  ks_free_secret (rec->ekey, KS_KEY_LEN);
  ks_free_secret (rec->chunk0, ks_profile_chunk_size (rec->profile));
  ks_free (rec->name);
  ks_free (rec);
}

const ks_profile_t *
ks_recover_profile (ks_recover_t *rec)
{
  return rec->profile;
}

void
ks_recover_shard_name (ks_recover_t *rec, unsigned int i, uint32_t j,
                       char *hex)
{
  ks_derive_shard_name (rec->seed, i, j, hex);
}

unsigned int
ks_recover_shard_count (ks_recover_t *rec, uint32_t j)
{
  size_t h;
  unsigned int count = 0;

  for (h = 0; h < rec->nheld; h++)
    if (rec->held[h].j == j)
      count++;
  return count;
}

gpg_error_t
ks_recover_add_shard (ks_recover_t *rec, uint32_t j, unsigned int i,
                      const uint8_t *data, size_t len)
{
  size_t h;
  struct held_shard *p;

  if (i < 1 || i > KS_SHAMIR_MAX_SHARES)
    return gpg_error (GPG_ERR_INV_ARG);
  if (len != rec->profile->object_size)
    return gpg_error (GPG_ERR_INV_LENGTH);
  for (h = 0; h < rec->nheld; h++)
    if (rec->held[h].j == j && rec->held[h].x == i
        && !memcmp (rec->held[h].data, data, len))
      return 0;   /* the same shard twice */
  if (ks_recover_shard_count (rec, j) >= KS_RECOVER_MAX_PER_CHUNK)
    return gpg_error (GPG_ERR_TOO_MANY);

  if (rec->nheld == rec->allocheld)
    {
      size_t na = rec->allocheld ? 2 * rec->allocheld : 8;

      p = ks_realloc (rec->held, na * sizeof *p);
      if (!p)
        return gpg_error_from_syserror ();
      rec->held = p;
      rec->allocheld = na;
    }
  p = &rec->held[rec->nheld];
  p->data = ks_malloc (len);
  if (!p->data)
    return gpg_error_from_syserror ();
  memcpy (p->data, data, len);
  p->j = j;
  p->x = (uint8_t)i;
  rec->nheld++;
  return 0;
}

/* Every distinct object that some subset of two or more shards of chunk
 * J with distinct x combines into.  With honest shards all subsets give
 * the same object, so this is usually one candidate; a corrupt shard
 * adds wrong ones but cannot remove the right one while an honest
 * subset of threshold size exists.  */
static gpg_error_t
make_candidates (ks_recover_t *rec, uint32_t j,
                 uint8_t ***r_cands, size_t *r_ncands)
{
  gpg_error_t err = 0;
  size_t olen = rec->profile->object_size;
  const uint8_t *sh[KS_RECOVER_MAX_PER_CHUNK];
  uint8_t xs[KS_RECOVER_MAX_PER_CHUNK];
  const uint8_t *sub[KS_RECOVER_MAX_PER_CHUNK];
  uint8_t subx[KS_RECOVER_MAX_PER_CHUNK];
  unsigned int m = 0, mask, b, cnt;
  uint8_t **cands = NULL;
  size_t ncands = 0, c, h;
  uint8_t *buf = NULL;

  *r_cands = NULL;
  *r_ncands = 0;
  for (h = 0; h < rec->nheld && m < KS_RECOVER_MAX_PER_CHUNK; h++)
    if (rec->held[h].j == j)
      {
        sh[m] = rec->held[h].data;
        xs[m] = rec->held[h].x;
        m++;
      }
  if (m < 2)
    return gpg_error (GPG_ERR_NO_DATA);

  cands = ks_calloc (KS_RECOVER_MAX_CANDS, sizeof *cands);
  if (!cands)
    return gpg_error_from_syserror ();

  for (mask = 1; mask < (1u << m) && ncands < KS_RECOVER_MAX_CANDS; mask++)
    {
      int dup = 0;

      for (b = 0, cnt = 0; b < m; b++)
        if (mask & (1u << b))
          {
            for (c = 0; c < cnt; c++)
              if (subx[c] == xs[b])
                dup = 1;
            sub[cnt] = sh[b];
            subx[cnt] = xs[b];
            cnt++;
          }
      if (cnt < 2 || dup)
        continue;
      if (!buf)
        {
          buf = ks_malloc (olen);
          if (!buf)
            {
              err = gpg_error_from_syserror ();
              goto leave;
            }
        }
      err = ks_shamir_combine (sub, subx, cnt, olen, buf);
      if (err)
        goto leave;
      for (c = 0; c < ncands; c++)
        if (!memcmp (cands[c], buf, olen))
          break;
      if (c == ncands)
        {
          cands[ncands++] = buf;
          buf = NULL;
        }
    }
  *r_cands = cands;
  *r_ncands = ncands;
  cands = NULL;

 leave:
  ks_free (buf);
  if (cands)
    {
      for (c = 0; c < ncands; c++)
        ks_free (cands[c]);
      ks_free (cands);
    }
  return err;
}

static void
free_candidates (uint8_t **cands, size_t ncands)
{
  size_t c;

  for (c = 0; c < ncands; c++)
    ks_free (cands[c]);
  ks_free (cands);
}

/* Open chunk J with the known key from any of its candidates into
 * CHUNK; GPG_ERR_CHECKSUM when none verifies.  */
static gpg_error_t
open_chunk (ks_recover_t *rec, uint32_t j, uint8_t **cands, size_t ncands,
            uint8_t *chunk)
{
  gpg_error_t err = gpg_error (GPG_ERR_CHECKSUM);
  size_t c;

  for (c = 0; c < ncands && err; c++)
    err = ks_object_open (rec->profile, rec->ekey, j, cands[c], chunk);
  return err;
}

gpg_error_t
ks_recover_unlock (ks_recover_t *rec,
                   const void *password, size_t passwordlen,
                   unsigned int nthreads,
                   ks_progress_cb_t progress, void *progress_arg)
{
  gpg_error_t err;
  size_t cs = ks_profile_chunk_size (rec->profile);
  uint8_t *key = NULL;
  uint8_t **cands = NULL;
  size_t ncands = 0, which;

  if (rec->unlocked)
    return 0;
  err = make_candidates (rec, 0, &cands, &ncands);
  if (err)
    goto leave;
  key = ks_malloc_secure (KS_KEY_LEN);
  if (!rec->ekey)
    rec->ekey = ks_malloc_secure (KS_KEY_LEN);
  if (!rec->chunk0)
    rec->chunk0 = ks_malloc_secure (cs);
  if (!key || !rec->ekey || !rec->chunk0)
    {
      err = gpg_error_from_syserror ();
      goto leave;
    }
  if (rec->keyed)
    {
      err = open_chunk (rec, 0, cands, ncands, rec->chunk0);
      if (gpg_err_code (err) == GPG_ERR_CHECKSUM)
        err = gpg_error (GPG_ERR_BAD_PASSPHRASE);
    }
  else
    {
      err = ks_derive_key (rec->profile, rec->name, password, passwordlen,
                           key, progress, progress_arg);
      if (!err)
        err = ks_puzzle_solve (rec->profile, rec->name, key,
                               (const uint8_t *const *)cands, ncands,
                               nthreads, rec->ekey, rec->chunk0, &which,
                               progress, progress_arg);
    }
  if (err)
    goto leave;
  err = ks_object_secret_len (rec->profile, rec->chunk0, &rec->secretlen);
  if (!err)
    err = ks_object_count (rec->profile, rec->secretlen, &rec->nchunks);
  if (err)
    goto leave;
  rec->unlocked = 1;

 leave:
  ks_free_secret (key, KS_KEY_LEN);
  free_candidates (cands, ncands);
  return err;
}

uint32_t
ks_recover_nchunks (ks_recover_t *rec)
{
  return rec->unlocked ? rec->nchunks : 0;
}

/* Copy the secret's bytes in chunk J (CHUNK, opened) to their place in
 * SECRET; the bytes past the secret must be zero padding.  */
static gpg_error_t
take_chunk (ks_recover_t *rec, uint32_t j, const uint8_t *chunk,
            uint8_t *secret)
{
  size_t cs = ks_profile_chunk_size (rec->profile);
  size_t start = (size_t)j * cs, end = 4 + rec->secretlen;
  size_t from = start < 4 ? 4 - start : 0;   /* chunk 0 starts with len */
  size_t to = end > start ? (end - start < cs ? end - start : cs) : 0;
  size_t pos;

  if (to < from)
    to = from;
  for (pos = to; pos < cs; pos++)
    if (chunk[pos])
      return gpg_error (GPG_ERR_INV_DATA);   /* not our format */
  if (to > from)
    memcpy (secret + start + from - 4, chunk + from, to - from);
  return 0;
}

gpg_error_t
ks_recover_finish (ks_recover_t *rec, uint8_t **r_secret, size_t *r_len)
{
  gpg_error_t err = 0;
  size_t cs = ks_profile_chunk_size (rec->profile);
  ks_buf_t *out = NULL;
  uint8_t *secret, *chunk = NULL;
  uint8_t **cands = NULL;
  size_t ncands = 0;
  uint32_t j;

  *r_secret = NULL;
  *r_len = 0;
  if (!rec->unlocked)
    return gpg_error (GPG_ERR_INV_STATE);
  /* The secret is assembled in place in a secure buffer and handed over
   * whole: no copy of it is made on the way out.  */
  err = ks_buf_new (rec->secretlen, 1, &out);
  if (!err)
    err = ks_buf_reserve (out, rec->secretlen, &secret);
  if (!err)
    err = take_chunk (rec, 0, rec->chunk0, secret);
  if (!err && rec->nchunks > 1 && !(chunk = ks_malloc_secure (cs)))
    err = gpg_error_from_syserror ();
  for (j = 1; !err && j < rec->nchunks; j++)
    {
      err = make_candidates (rec, j, &cands, &ncands);
      if (!err)
        err = open_chunk (rec, j, cands, ncands, chunk);
      free_candidates (cands, ncands);
      cands = NULL;
      ncands = 0;
      if (!err)
        err = take_chunk (rec, j, chunk, secret);
    }
  if (!err)
    err = ks_buf_detach (out, r_secret, r_len);
  /* An empty secret still comes back as memory the caller may free.  */
  if (!err && !*r_secret && !(*r_secret = ks_malloc_secure (1)))
    err = gpg_error_from_syserror ();
  ks_free_secret (chunk, cs);
  ks_buf_free (out);
  return err;
}
