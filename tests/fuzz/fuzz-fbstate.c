/* fuzz-fbstate.c - the first-boot pending file
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A pending file from a crashed or tampered first boot must be refused
 * cleanly; what is accepted keeps its invariants (sorted valid names,
 * 2 <= k <= n <= the Shamir maximum).
 */
#include <config.h>
#include <stdlib.h>
#include "keysafe.h"
#include "fbstate.h"
#include "fuzz.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  ks_fbpending_t pd;
  size_t i;

  fuzz_init ();
  if (ks_fbstate_parse_pending (data, size, &pd))
    return 0;
  if (pd.k < 2 || pd.k > pd.n || pd.n > KS_SHAMIR_MAX_SHARES
      || !*pd.fpr || !*pd.profile || pd.names.count > KS_FBSTATE_MAX_PENDING)
    abort ();
  for (i = 0; i < pd.names.count; i++)
    if (!ks_name_is_valid (pd.names.name[i], strlen (pd.names.name[i]))
        || (i && strcmp (pd.names.name[i - 1], pd.names.name[i]) > 0))
      abort ();
  ks_fbstate_names_release (&pd.names);
  return 0;
}
