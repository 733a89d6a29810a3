/* recover.c - from fetched shards back to the secret (restore)
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The restore side of shardset.h: hold the shards as they arrive,
 * combine candidate subsets pairs first, unlock with the password (key,
 * then the puzzle), open every chunk.  doc/protocol.md section 9.
 */
#include <config.h>
#include "shardset.h"
#include "buffer.h"
#include "derive.h"
#include "object.h"
#include "puzzle.h"
#include "shamir.h"

/* Shards held for one chunk; more are refused (GPG_ERR_TOO_MANY).  */
#define KS_RECOVER_MAX_PER_CHUNK 32
/* Subsets of held shards visited per chunk, skipped ones included.
 * All 496 pairs of 32 shards fit, and all pairs and triples of up to
 * 29 shards (406 + 3654), so junk cannot push an honest subset of a
 * 2-of-n or 3-of-n backup past the cap (doc/protocol.md section 9).  */
#define KS_RECOVER_MAX_SUBSETS 4096

struct held_shard
{
  uint32_t j;
  uint8_t x;
  uint8_t *data;
};

/* Allocated in secure memory: SEED is half of what opens a backup.  */
struct ks_recover
{
  const ks_profile_t *profile;
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
  rec = ks_malloc_secure (sizeof *rec);
  if (!rec)
    return gpg_error_from_syserror ();
  memset (rec, 0, sizeof *rec);
  rec->profile = profile;
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
  rec = ks_malloc_secure (sizeof *rec);
  if (!rec)
    return gpg_error_from_syserror ();
  memset (rec, 0, sizeof *rec);
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
  ks_free_secret (rec, sizeof *rec);
}

const ks_profile_t *
ks_recover_profile (ks_recover_t *rec)
{
  return rec->profile;
}

gpg_error_t
ks_recover_shard_name (ks_recover_t *rec, const char *loc,
                       unsigned int i, uint32_t j, char *hex)
{
  return ks_derive_shard_name (rec->profile, rec->seed, loc, i, j, hex);
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

/* Advance IDX[0..S) to the next S-subset of 0..M-1 in lexicographic
 * order; 0 when there is none.  */
static int
next_subset (unsigned int *idx, unsigned int s, unsigned int m)
{
  unsigned int a, b;

  for (a = s; a-- > 0;)
    if (idx[a] < m - s + a)
      {
        idx[a]++;
        for (b = a + 1; b < s; b++)
          idx[b] = idx[b - 1] + 1;
        return 1;
      }
  return 0;
}

/* Combine the subset IDX[0..S) of SH/XS into BUF unless two of its
 * shards share an index; *R_USED tells whether it did.  */
static gpg_error_t
combine_subset (const uint8_t *const *sh, const uint8_t *xs,
                const unsigned int *idx, unsigned int s, size_t olen,
                uint8_t *buf, int *r_used)
{
  const uint8_t *sub[KS_RECOVER_MAX_PER_CHUNK];
  uint8_t subx[KS_RECOVER_MAX_PER_CHUNK];
  unsigned int a, b;

  *r_used = 0;
  for (a = 0; a < s; a++)
    {
      for (b = 0; b < a; b++)
        if (subx[b] == xs[idx[a]])
          return 0;
      sub[a] = sh[idx[a]];
      subx[a] = xs[idx[a]];
    }
  *r_used = 1;
  return ks_shamir_combine (sub, subx, s, olen, buf);
}

/* Every distinct object that some subset of two or more shards of chunk
 * J with distinct x combines into.  Subsets are visited by size, pairs
 * first, and within a size in lexicographic order of arrival; at most
 * KS_RECOVER_MAX_SUBSETS of them.  With honest shards all subsets give
 * the same object, so this is usually one candidate; a corrupt shard
 * adds wrong ones but cannot remove the right one.  */
static gpg_error_t
make_candidates (ks_recover_t *rec, uint32_t j,
                 uint8_t ***r_cands, size_t *r_ncands)
{
  gpg_error_t err = 0;
  size_t olen = rec->profile->object_size;
  const uint8_t *sh[KS_RECOVER_MAX_PER_CHUNK];
  uint8_t xs[KS_RECOVER_MAX_PER_CHUNK];
  unsigned int idx[KS_RECOVER_MAX_PER_CHUNK];
  unsigned int m = 0, s, a, visited = 0;
  uint8_t **cands = NULL;
  size_t ncands = 0, c, h;
  uint8_t *buf = NULL;
  int used;

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

  cands = ks_calloc (KS_RECOVER_MAX_SUBSETS, sizeof *cands);
  if (!cands)
    return gpg_error_from_syserror ();

  for (s = 2; s <= m && visited < KS_RECOVER_MAX_SUBSETS; s++)
    {
      for (a = 0; a < s; a++)
        idx[a] = a;
      do
        {
          visited++;
          if (!buf && !(buf = ks_malloc (olen)))
            {
              err = gpg_error_from_syserror ();
              goto leave;
            }
          err = combine_subset (sh, xs, idx, s, olen, buf, &used);
          if (err)
            goto leave;
          if (!used)
            continue;
          for (c = 0; c < ncands; c++)
            if (!memcmp (cands[c], buf, olen))
              break;
          if (c == ncands)
            {
              cands[ncands++] = buf;
              buf = NULL;
            }
        }
      while (visited < KS_RECOVER_MAX_SUBSETS && next_subset (idx, s, m));
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
      err = ks_derive_key (rec->profile, rec->seed, password, passwordlen,
                           key, progress, progress_arg);
      if (!err)
        err = ks_puzzle_solve (rec->profile, rec->seed, key,
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
