/* t-shardnames.c - the shard names of one chunk of a backup, for tests
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * t-shardnames ITEM CHUNK N URL... prints, one a line, the name of
 * every share 1..N of chunk CHUNK on every location URL (test profile,
 * no key id bound).  The shell tests count which of them a server
 * store holds, to tell what an interrupted backup left behind.
 */
#include <config.h>
#include <stdlib.h>
#include "t-support.h"
#include "location.h"

int
main (int argc, char **argv)
{
  ks_recover_t *rec = NULL;
  char name[KS_NAME_HEX_LEN + 1], *id;
  unsigned long j, n, i;
  int a;

  if (argc < 5)
    {
      fprintf (stderr, "usage: t-shardnames ITEM CHUNK N URL...\n");
      return 99;
    }
  t_init ();
  j = strtoul (argv[2], NULL, 10);
  n = strtoul (argv[3], NULL, 10);
  T_OK (ks_recover_new (ks_profile_find ("test"), argv[1], NULL, NULL, NULL,
                        &rec));
  for (a = 4; rec && a < argc; a++)
    {
      if (ks_location_canon_id (argv[a], &id))
        T_DIE ("bad URL");
      for (i = 1; i <= n; i++)
        {
          T_OK (ks_recover_shard_name (rec, id, i, j, name));
          printf ("%s\n", name);
        }
      gcry_free (id);
    }
  ks_recover_free (rec);
  return t_done ();
}
