/* puzzle.c - solving the puzzle on all cores
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Thread T of NT tries R = T, T + NT, T + 2 NT, ... below 2^bits, so
 * the threads never repeat work and the first to open a candidate wins.
 * Each guess is one Argon2id run with a single lane: parallelism comes
 * from trying several values of R at once, which is what the owner has
 * and what an attacker pays for on every wrong password.
 */
#include <config.h>
#include <pthread.h>
#include "puzzle.h"
#include "derive.h"
#include "object.h"

struct solver
{
  const ks_profile_t *profile;
  const uint8_t *seed;
  const uint8_t *key;
  const uint8_t *const *cands;
  size_t ncands;
  unsigned int nthreads;

  pthread_mutex_t lock;
  int found;                   /* set once, under LOCK */
  gpg_error_t err;             /* first hard error, under LOCK */
  uint64_t tried;
  uint64_t total;
  uint8_t *ekey;               /* caller's buffers, written under LOCK */
  uint8_t *chunk0;
  size_t which;
  ks_progress_cb_t progress;
  void *progress_arg;
};

struct worker
{
  struct solver *s;
  unsigned int index;
};

static int
solver_should_stop (struct solver *s)
{
  int stop;

  pthread_mutex_lock (&s->lock);
  stop = s->found || s->err;
  pthread_mutex_unlock (&s->lock);
  return stop;
}

static void *
solve_thread (void *arg)
{
  struct worker *w = arg;
  struct solver *s = w->s;
  size_t cs = ks_profile_chunk_size (s->profile);
  uint8_t *ekey = gcry_malloc_secure (KS_KEY_LEN);
  uint8_t *chunk = gcry_malloc_secure (cs);
  uint64_t r;
  gpg_error_t err = 0;

  if (!ekey || !chunk)
    {
      err = gpg_error_from_syserror ();
      goto leave;
    }
  for (r = w->index; r < s->total; r += s->nthreads)
    {
      size_t c;

      if (solver_should_stop (s))
        break;
      err = ks_derive_puzzle_key (s->profile, s->seed, s->key,
                                  (uint32_t)r, ekey);
      if (err)
        break;
      for (c = 0; c < s->ncands; c++)
        if (!ks_object_open (s->profile, ekey, 0, s->cands[c], chunk))
          break;
      pthread_mutex_lock (&s->lock);
      if (c < s->ncands && !s->found)
        {
          s->found = 1;
          s->which = c;
          memcpy (s->ekey, ekey, KS_KEY_LEN);
          memcpy (s->chunk0, chunk, cs);
        }
      s->tried++;
      if (s->progress)
        s->progress (s->progress_arg, "puzzle", s->tried, s->total);
      pthread_mutex_unlock (&s->lock);
    }

 leave:
  if (err)
    {
      pthread_mutex_lock (&s->lock);
      if (!s->err)
        s->err = err;
      pthread_mutex_unlock (&s->lock);
    }
  ks_free_secret (ekey, KS_KEY_LEN);
  ks_free_secret (chunk, cs);
  return NULL;
}

gpg_error_t
ks_puzzle_solve (const ks_profile_t *profile, const uint8_t *seed,
                 const uint8_t *key,
                 const uint8_t *const *cands, size_t ncands,
                 unsigned int nthreads,
                 uint8_t *ekey, uint8_t *chunk0, size_t *r_which,
                 ks_progress_cb_t progress, void *progress_arg)
{
  struct solver s;
  struct worker w[KS_MAX_PUZZLE_THREADS];
  pthread_t tid[KS_MAX_PUZZLE_THREADS];
  int started[KS_MAX_PUZZLE_THREADS];
  unsigned int t;
  gpg_error_t err;

  *r_which = 0;
  if (!ncands || profile->puzzle_bits > 24)
    return gpg_error (GPG_ERR_INV_ARG);
  if (!nthreads)
    nthreads = ks_ncpus ();
  if (nthreads > KS_MAX_PUZZLE_THREADS)
    nthreads = KS_MAX_PUZZLE_THREADS;

  memset (&s, 0, sizeof s);
  s.profile = profile;
  s.seed = seed;
  s.key = key;
  s.cands = cands;
  s.ncands = ncands;
  s.total = (uint64_t)1 << profile->puzzle_bits;
  if (nthreads > s.total)
    nthreads = (unsigned int)s.total;
  s.nthreads = nthreads;
  s.ekey = ekey;
  s.chunk0 = chunk0;
  s.progress = progress;
  s.progress_arg = progress_arg;
  pthread_mutex_init (&s.lock, NULL);

  /* Thread 0 is this thread.  */
  for (t = 1; t < nthreads; t++)
    {
      w[t].s = &s;
      w[t].index = t;
      started[t] = !pthread_create (&tid[t], NULL, solve_thread, &w[t]);
      if (!started[t])
        {
          /* Fewer threads than asked: the others' values of R must
           * still be tried, so this one cannot just be dropped.  */
          solve_thread (&w[t]);
        }
    }
  w[0].s = &s;
  w[0].index = 0;
  solve_thread (&w[0]);
  for (t = 1; t < nthreads; t++)
    if (started[t])
      pthread_join (tid[t], NULL);

  pthread_mutex_destroy (&s.lock);
  if (s.found)
    {
      *r_which = s.which;
      err = 0;
    }
  else if (s.err)
    err = s.err;
  else
    err = gpg_error (GPG_ERR_BAD_PASSPHRASE);
  return err;
}
