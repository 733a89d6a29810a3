/* t-shamir-ct.c - constant-time check of the Shamir code under valgrind
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Run by t-shamir-ct.sh under valgrind memcheck.  Secret bytes, the
 * random coefficients and the shares are marked undefined
 * (VALGRIND_MAKE_MEM_UNDEFINED); memcheck then reports every branch
 * ("Conditional jump or move depends on uninitialised value") and every
 * address ("Use of uninitialised value of size 8") computed from them.
 * The arithmetic itself propagates undefinedness silently, so any such
 * report means a secret-dependent branch or memory index.
 *
 *   t-shamir-ct          all checks; valgrind must stay silent
 *   t-shamir-ct leak     a deliberate table lookup on a secret byte;
 *                        valgrind must report it (the harness can fail)
 */
#include <config.h>
#include "t-support.h"

#ifdef HAVE_VALGRIND_MEMCHECK_H
# include <valgrind/memcheck.h>
#else
# define VALGRIND_MAKE_MEM_UNDEFINED(p, n) ((void)(p), (void)(n))
# define VALGRIND_MAKE_MEM_DEFINED(p, n) ((void)(p), (void)(n))
# define VALGRIND_COUNT_ERRORS 0
#endif

#define SECRET(p, n) VALGRIND_MAKE_MEM_UNDEFINED ((p), (n))
#define PUBLIC(p, n) VALGRIND_MAKE_MEM_DEFINED ((p), (n))

/* This program's ks_random overrides the library's (random.o is then not
 * linked from libkeysafe.a): the bytes come from libgcrypt as usual, and
 * are marked undefined only after libgcrypt has produced them, so the
 * coefficients inside ks_shamir_split are secret to memcheck while
 * libgcrypt's own internals are not checked here.  */
void
ks_random (void *buf, size_t len)
{
  gcry_randomize (buf, len, GCRY_STRONG_RANDOM);
  SECRET (buf, len);
}

static unsigned int
errors_now (void)
{
  return VALGRIND_COUNT_ERRORS;
}

static void
report (const char *what, unsigned int before)
{
  unsigned int n = errors_now () - before;

  if (n)
    fprintf (stderr, "%s: %u valgrind error(s)\n", what, n);
}

static void
check_field (void)
{
  static uint8_t prod[256][256], inv[256];
  unsigned int a, b, before = errors_now ();
  uint8_t sa, sb;

  for (a = 0; a < 256; a++)
    for (b = 0; b < 256; b++)
      {
        sa = (uint8_t)a;
        sb = (uint8_t)b;
        SECRET (&sa, 1);
        SECRET (&sb, 1);
        prod[a][b] = ks_gf256_mul (sa, sb);
      }
  for (a = 0; a < 256; a++)
    {
      sa = (uint8_t)a;
      SECRET (&sa, 1);
      inv[a] = ks_gf256_inv (sa);
    }
  report ("ks_gf256_mul/inv", before);

  /* The results are right (checked after making them public again).  */
  PUBLIC (prod, sizeof prod);
  PUBLIC (inv, sizeof inv);
  T_CHECK (prod[0x80][2] == 0x1d && prod[3][7] == 9 && prod[0][0xff] == 0);
  for (a = 1; a < 256; a++)
    T_CHECK (prod[a][inv[a]] == 1);
  T_CHECK (inv[0] == 0);
}

static void
check_split_combine (unsigned int k, unsigned int n, size_t len)
{
  uint8_t *secret = gcry_malloc_secure (len + 1);
  uint8_t *copy = malloc (len + 1);
  uint8_t *out = gcry_malloc_secure (len + 1);
  uint8_t **sh = calloc (n, sizeof *sh);
  const uint8_t *pick[KS_SHAMIR_MAX_SHARES];
  uint8_t xs[KS_SHAMIR_MAX_SHARES];
  unsigned int i, before;

  if (!secret || !copy || !out || !sh)
    T_DIE ("out of memory");
  for (i = 0; i < n; i++)
    if (!(sh[i] = malloc (len + 1)))
      T_DIE ("out of memory");
  gcry_randomize (secret, len, GCRY_STRONG_RANDOM);
  memcpy (copy, secret, len);

  SECRET (secret, len);
  before = errors_now ();
  T_OK (ks_shamir_split (secret, len, k, n, sh));
  report ("ks_shamir_split", before);

  /* Combine the last k shares (a subset that is not 1..k).  */
  for (i = 0; i < k; i++)
    {
      pick[i] = sh[n - k + i];
      xs[i] = (uint8_t)(n - k + i + 1);
      SECRET (sh[n - k + i], len);
    }
  before = errors_now ();
  T_OK (ks_shamir_combine (pick, xs, k, len, out));
  report ("ks_shamir_combine", before);

  PUBLIC (out, len);
  T_CHECK (!memcmp (out, copy, len));

  for (i = 0; i < n; i++)
    free (sh[i]);
  free (sh);
  ks_free_secret (out, len + 1);
  ks_free_secret (secret, len + 1);
  free (copy);
}

/* A table lookup indexed by a secret byte, the kind of code the test
 * exists to catch.  */
static int
leak (void)
{
  static volatile uint8_t table[256];
  uint8_t s;
  volatile uint8_t r;

  gcry_randomize (&s, 1, GCRY_STRONG_RANDOM);
  SECRET (&s, 1);
  r = table[s];
  if (r == 0)
    table[0] = 1;
  return 0;
}

int
main (int argc, char **argv)
{
  t_init ();
  if (argc > 1 && !strcmp (argv[1], "leak"))
    return leak ();

  check_field ();
  check_split_combine (2, 3, 1000);
  check_split_combine (3, 5, 77);
  check_split_combine (5, 9, 33);
  check_split_combine (2, 255, 9);
  check_split_combine (255, 255, 3);
  check_split_combine (2, 2, 0);
  return t_done ();
}
