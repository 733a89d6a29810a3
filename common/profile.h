/* profile.h - the table of named parameter sets (versions)
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Every Argon2id call of protocol 2 uses one lane and a 16-byte salt,
 * the only shape libsodium and libgcrypt both compute.
 *
 * No version travels with the data: a profile is recognised only by the
 * fact that its domain tags and costs produce names that exist and a tag
 * that verifies.  doc/protocol.md is the normative description of every
 * value here; change it first.
 */
#ifndef KS_PROFILE_H
#define KS_PROFILE_H

#include "kdf.h"

#define KS_IV_LEN   12
#define KS_TAG_LEN  16
#define KS_KEY_LEN  32
#define KS_SEED_LEN 32
#define KS_NAME_HEX_LEN 64
/* The largest secret any profile accepts.  */
#define KS_MAX_SECRET (256 * 1024)
/* Most name seed instances a profile may have.  */
#define KS_MAX_NAME_INSTANCES 16
/* Salts are the first 16 bytes of a SHA-256: what libsodium takes.  */
#define KS_SALT_LEN 16

typedef struct ks_profile
{
  const char *name;             /* "default", "test", ... */
  const char *tag;              /* domain tag prefix, ASCII */
  ks_argon2_params_t name_cost; /* one instance of the name seed */
  unsigned int name_instances;  /* P: independent full-memory instances */
  ks_argon2_params_t key_cost;  /* password -> K */
  ks_argon2_params_t puzzle_cost; /* K || R -> E, one guess of R */
  unsigned int puzzle_bits;     /* R is in [0, 2^puzzle_bits) */
  unsigned int shares;          /* default n */
  unsigned int threshold;       /* default k */
  size_t object_size;           /* bytes of every stored object and shard */
} ks_profile_t;

/* Profiles newest first; index 0 is the newest.  The test profile is
 * last and is never the default.  */
unsigned int ks_profile_count (void);
const ks_profile_t *ks_profile_nth (unsigned int idx);
const ks_profile_t *ks_profile_find (const char *name);
const ks_profile_t *ks_profile_default (void);

/* Plaintext bytes carried by one object of PROFILE.  */
size_t ks_profile_chunk_size (const ks_profile_t *profile);

#endif /* KS_PROFILE_H */
