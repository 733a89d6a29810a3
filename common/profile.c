/* profile.c - the table of named parameter sets
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * doc/protocol.md ("Profiles") is normative and explains the costs.
 * A new profile goes first in the table; an old one is never changed,
 * or the backups made with it could no longer be found.
 */
#include <config.h>
#include "profile.h"

static const ks_profile_t profiles[] =
  {
    {
      "default", "keysafe-2-default",
      /* name: 1 GiB per instance, two instances, one per core; the
       * costs are measured in doc/protocol.md section 10.  */
      { 112, 1048576, 1 }, 2,
      /* key: 1 GiB, a few seconds */
      { 8, 1048576, 1 },
      /* puzzle: 256 MiB, about 24 core-seconds per guess of R; 2^7
       * values (fewer, longer guesses: the owner pays the page faults
       * of a fresh work area per guess, an attacker reuses memory) */
      { 236, 262144, 1 },
      7, 3, 2, 8192
    },
    {
      /* Tiny costs for tests and demos; never the default.  The shape
       * (two name instances, one lane) is that of the default.  */
      "test", "keysafe-2-test",
      { 1, 64, 1 }, 2,
      { 1, 64, 1 },
      { 1, 32, 1 },
      4, 3, 2, 512
    }
  };

unsigned int
ks_profile_count (void)
{
  return KS_DIM (profiles);
}

const ks_profile_t *
ks_profile_nth (unsigned int idx)
{
  return idx < KS_DIM (profiles) ? &profiles[idx] : NULL;
}

const ks_profile_t *
ks_profile_find (const char *name)
{
  unsigned int i;

  for (i = 0; name && i < KS_DIM (profiles); i++)
    if (!strcmp (profiles[i].name, name))
      return &profiles[i];
  return NULL;
}

const ks_profile_t *
ks_profile_default (void)
{
  return &profiles[0];
}

size_t
ks_profile_chunk_size (const ks_profile_t *profile)
{
  return profile->object_size - KS_IV_LEN - KS_TAG_LEN;
}
