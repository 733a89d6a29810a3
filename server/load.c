/* load.c - load measurement, adaptive difficulty and the replay cache
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>
#include <pthread.h>
#include <stdlib.h>
#include "load.h"

/* How many slots after its home slot an entry may be put in.  */
#define REPLAY_PROBE 32

struct ks_load
{
  pthread_mutex_t lock;
  unsigned int base;
  unsigned int threshold;
  uint64_t second[KS_LOAD_WINDOW];
  unsigned int count[KS_LOAD_WINDOW];
};

gpg_error_t
ks_load_new (unsigned int base_difficulty, unsigned int rps_threshold,
             ks_load_t **r_load)
{
  ks_load_t *load;

  *r_load = NULL;
  load = calloc (1, sizeof *load);
  if (!load)
    return gpg_error_from_syserror ();
  pthread_mutex_init (&load->lock, NULL);
  load->base = base_difficulty > KS_POW_MAX_DIFFICULTY
               ? KS_POW_MAX_DIFFICULTY : base_difficulty;
  load->threshold = rps_threshold ? rps_threshold : 1;
  *r_load = load;
  return 0;
}

void
ks_load_free (ks_load_t *load)
{
  if (!load)
    return;
  pthread_mutex_destroy (&load->lock);
  free (load);
}

void
ks_load_note (ks_load_t *load, uint64_t now)
{
  unsigned int i = now % KS_LOAD_WINDOW;

  pthread_mutex_lock (&load->lock);
  if (load->second[i] != now)
    {
      load->second[i] = now;
      load->count[i] = 0;
    }
  if (load->count[i] < UINT32_MAX)
    load->count[i]++;
  pthread_mutex_unlock (&load->lock);
}

unsigned int
ks_load_rate (ks_load_t *load, uint64_t now)
{
  uint64_t sum = 0;
  unsigned int i;

  pthread_mutex_lock (&load->lock);
  for (i = 0; i < KS_LOAD_WINDOW; i++)
    if (load->second[i] <= now && now - load->second[i] < KS_LOAD_WINDOW)
      sum += load->count[i];
  pthread_mutex_unlock (&load->lock);
  return (unsigned int)(sum / KS_LOAD_WINDOW);
}

unsigned int
ks_load_difficulty (ks_load_t *load, uint64_t now)
{
  unsigned int d = load->base;
  uint64_t limit = load->threshold;
  unsigned int rate;

  if (!d)
    return 0;
  rate = ks_load_rate (load, now);
  while (rate > limit && d < KS_POW_MAX_DIFFICULTY)
    {
      d++;
      limit *= 2;
    }
  return d;
}

unsigned int
ks_load_min_difficulty (ks_load_t *load, uint64_t now)
{
  unsigned int d = ks_load_difficulty (load, now);

  if (d > load->base)
    d--;
  return d;
}


struct ks_growth
{
  pthread_mutex_t lock;
  uint64_t fill_hours;
  uint64_t minute[KS_GROWTH_SLOTS];
  uint64_t bytes[KS_GROWTH_SLOTS];
  uint64_t shards[KS_GROWTH_SLOTS];
};

gpg_error_t
ks_growth_new (unsigned int fill_months, ks_growth_t **r_growth)
{
  ks_growth_t *g;

  *r_growth = NULL;
  g = calloc (1, sizeof *g);
  if (!g)
    return gpg_error_from_syserror ();
  pthread_mutex_init (&g->lock, NULL);
  g->fill_hours = (uint64_t)(fill_months ? fill_months : 1) * 30 * 24;
  *r_growth = g;
  return 0;
}

void
ks_growth_free (ks_growth_t *g)
{
  if (!g)
    return;
  pthread_mutex_destroy (&g->lock);
  free (g);
}

void
ks_growth_note (ks_growth_t *g, uint64_t bytes, uint64_t now)
{
  uint64_t minute = now / 60;
  unsigned int i = minute % KS_GROWTH_SLOTS;

  pthread_mutex_lock (&g->lock);
  if (g->minute[i] != minute)
    {
      g->minute[i] = minute;
      g->bytes[i] = g->shards[i] = 0;
    }
  g->bytes[i] += bytes;
  g->shards[i]++;
  pthread_mutex_unlock (&g->lock);
}

/* Doublings of RATE above BUDGET (per hour).  */
static unsigned int
doublings (uint64_t rate, uint64_t budget)
{
  unsigned int bits = 0;

  if (!budget)
    budget = 1;
  while (rate > budget && bits < KS_POW_MAX_DIFFICULTY)
    {
      bits++;
      budget = budget > UINT64_MAX / 2 ? UINT64_MAX : budget * 2;
    }
  return bits;
}

unsigned int
ks_growth_bits (ks_growth_t *g, uint64_t now, uint64_t free_bytes,
                uint64_t free_files)
{
  uint64_t minute = now / 60, bytes = 0, shards = 0;
  unsigned int i, a, b;

  pthread_mutex_lock (&g->lock);
  for (i = 0; i < KS_GROWTH_SLOTS; i++)
    if (g->minute[i] <= minute && minute - g->minute[i] < KS_GROWTH_SLOTS)
      {
        bytes += g->bytes[i];
        shards += g->shards[i];
      }
  pthread_mutex_unlock (&g->lock);
  a = doublings (bytes, free_bytes / 2 / g->fill_hours);
  b = free_files == UINT64_MAX ? 0
      : doublings (shards, free_files / 2 / g->fill_hours);
  return a > b ? a : b;
}


struct ks_replay_entry
{
  uint8_t id[KS_POW_ID_LEN];
  uint64_t expires;
};

struct ks_replay
{
  pthread_mutex_t lock;
  unsigned int mask;
  struct ks_replay_entry *slot;
};

gpg_error_t
ks_replay_new (unsigned int nslots, ks_replay_t **r_cache)
{
  ks_replay_t *cache;

  *r_cache = NULL;
  if (nslots < REPLAY_PROBE || (nslots & (nslots - 1)))
    return gpg_error (GPG_ERR_INV_ARG);
  cache = calloc (1, sizeof *cache);
  if (!cache)
    return gpg_error_from_syserror ();
  cache->slot = calloc (nslots, sizeof *cache->slot);
  if (!cache->slot)
    {
      free (cache);
      return gpg_error_from_syserror ();
    }
  pthread_mutex_init (&cache->lock, NULL);
  cache->mask = nslots - 1;
  *r_cache = cache;
  return 0;
}

void
ks_replay_free (ks_replay_t *cache)
{
  if (!cache)
    return;
  pthread_mutex_destroy (&cache->lock);
  free (cache->slot);
  free (cache);
}

gpg_error_t
ks_replay_add (ks_replay_t *cache, const uint8_t *id, uint64_t expires,
               uint64_t now)
{
  gpg_error_t err = gpg_error (GPG_ERR_EAGAIN);
  struct ks_replay_entry *e, *freeslot = NULL;
  unsigned int home, i;

  /* The ID is a MAC under the server's key: its bits are uniform and
   * not chosen by the client, so they index the table directly.  */
  home = ks_get_be32 (id) & cache->mask;
  pthread_mutex_lock (&cache->lock);
  for (i = 0; i < REPLAY_PROBE; i++)
    {
      e = &cache->slot[(home + i) & cache->mask];
      if (e->expires && e->expires >= now)
        {
          if (!memcmp (e->id, id, KS_POW_ID_LEN))
            {
              err = gpg_error (GPG_ERR_DUP_VALUE);
              goto leave;
            }
        }
      else if (!freeslot)
        freeslot = e;
    }
  if (freeslot)
    {
      memcpy (freeslot->id, id, KS_POW_ID_LEN);
      freeslot->expires = expires;
      err = 0;
    }

 leave:
  pthread_mutex_unlock (&cache->lock);
  return err;
}
