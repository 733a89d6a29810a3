/* load.h - load measurement, adaptive difficulty and the replay cache
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The load is the number of shard requests per second over a sliding
 * window of KS_LOAD_WINDOW seconds.  The proof-of-work difficulty is the
 * operator's base difficulty plus one bit for every doubling of the load
 * above the operator's threshold, capped at KS_POW_MAX_DIFFICULTY; a base
 * of 0 turns proof of work off entirely.
 *
 * The replay cache remembers each spent challenge (by its MAC) until its
 * window has passed.  It is a fixed table: when the slots a challenge may
 * use are all live, the request is refused (429) rather than the cache
 * forgetting a live entry, so the cache can neither grow nor be flushed
 * by a flood.  All functions are thread-safe.
 */
#ifndef KS_SERVER_LOAD_H
#define KS_SERVER_LOAD_H

#include <stdint.h>
#include "keysafe.h"

#define KS_LOAD_WINDOW 10

typedef struct ks_load ks_load_t;

gpg_error_t ks_load_new (unsigned int base_difficulty,
                         unsigned int rps_threshold, ks_load_t **r_load);
void ks_load_free (ks_load_t *load);

/* Count one request at time NOW (seconds).  */
void ks_load_note (ks_load_t *load, uint64_t now);
/* Requests per second over the window ending at NOW, rounded down.  */
unsigned int ks_load_rate (ks_load_t *load, uint64_t now);
/* The difficulty to ask for at NOW.  */
unsigned int ks_load_difficulty (ks_load_t *load, uint64_t now);
/* The lowest difficulty a proof may have at NOW: one bit below the
 * current one, so a proof made just before the load rose still counts.  */
unsigned int ks_load_min_difficulty (ks_load_t *load, uint64_t now);


/* The store's growth.  A store must not be fillable at the price of
 * the load alone, so PUTs pay more while the store grows faster than a
 * budget: the budget lets half of what is free (bytes and inodes alike)
 * fill in FILL_MONTHS months (30 days each), the rate the original
 * keysafe tied its limits to.  The growth is the bytes and shards
 * stored over the last hour (KS_GROWTH_SLOTS minutes); every doubling
 * of it above the budget adds one bit, for bytes or inodes, whichever
 * is further over.  */
#define KS_GROWTH_SLOTS 60

typedef struct ks_growth ks_growth_t;

gpg_error_t ks_growth_new (unsigned int fill_months, ks_growth_t **r_growth);
void ks_growth_free (ks_growth_t *growth);
/* A shard of BYTES bytes was stored at NOW (seconds).  */
void ks_growth_note (ks_growth_t *growth, uint64_t bytes, uint64_t now);
/* The bits the growth adds at NOW, with FREE_BYTES and FREE_FILES left
 * in the store's filesystem (above its reserves).  */
unsigned int ks_growth_bits (ks_growth_t *growth, uint64_t now,
                             uint64_t free_bytes, uint64_t free_files);


typedef struct ks_replay ks_replay_t;

/* A cache of NSLOTS entries (a power of two).  */
gpg_error_t ks_replay_new (unsigned int nslots, ks_replay_t **r_cache);
void ks_replay_free (ks_replay_t *cache);

/* Record ID (KS_POW_ID_LEN bytes) as spent until EXPIRES.  Returns
 * GPG_ERR_DUP_VALUE if it was spent already, GPG_ERR_EAGAIN if no slot is
 * free at NOW.  */
gpg_error_t ks_replay_add (ks_replay_t *cache, const uint8_t *id,
                           uint64_t expires, uint64_t now);

#endif /* KS_SERVER_LOAD_H */
