/* t-secmem.c - the secure memory pool is locked and never grows
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * After ks_init the process has at least KS_SECMEM_SIZE bytes locked
 * (VmLck), secure allocations fill the pool and then fail, and the
 * locked amount stays the same: libgcrypt's auto-expansion would hand
 * out unlocked memory instead.
 */
#include <config.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "init.h"
#include "t-support.h"

/* VmLck of this process in KiB, or -1.  */
static long
vm_locked (void)
{
  FILE *fp = fopen ("/proc/self/status", "r");
  char line[256];
  long kb = -1;

  if (!fp)
    return -1;
  while (fgets (line, sizeof line, fp))
    if (!strncmp (line, "VmLck:", 6))
      kb = strtol (line + 6, NULL, 10);
  fclose (fp);
  return kb;
}

int
main (void)
{
  enum { PIECE = 32 * 1024, MAXPIECES = 4 * KS_SECMEM_SIZE / PIECE };
  static void *p[MAXPIECES];
  size_t n = 0, i;
  long before, after;

  T_OK (ks_init ());
  before = vm_locked ();
  if (before < 0)
    {
      printf ("SKIP: no VmLck in /proc/self/status\n");
      return 77;
    }
#ifdef KS_WITH_SANITIZERS
  /* ASan makes mlock a no-op: the pool is there but not locked, so only
   * its bound is checked here.  */
  printf ("note: built with sanitizers, mlock is not real; lock not checked\n");
#else
  T_CHECK (before >= KS_SECMEM_SIZE / 1024);
#endif
  while (n < MAXPIECES && (p[n] = gcry_malloc_secure (PIECE)))
    memset (p[n++], 0x5a, PIECE);
  after = vm_locked ();
  printf ("locked %ld KiB, %zu pieces of %d KiB fit, locked after %ld KiB\n",
          before, n, PIECE / 1024, after);
  T_CHECK (n < MAXPIECES);                      /* the pool ends */
  T_CHECK ((size_t)n * PIECE <= KS_SECMEM_SIZE);
  T_CHECK ((size_t)n * PIECE >= KS_SECMEM_SIZE / 2);
  T_CHECK (after == before);
  for (i = 0; i < n; i++)
    gcry_free (p[i]);
  return t_done ();
}
