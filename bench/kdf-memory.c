/* kdf-memory.c - bench/kdf --memory: what a fresh 1 GiB work area costs
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Three questions, each answered with wall and CPU time of this thread:
 *  1. Touching a fresh 1 GiB anonymous mapping page by page, plain,
 *     with madvise (MADV_HUGEPAGE) first, and mapped with MAP_POPULATE
 *     (the kernel pre-faults it in one call).
 *  2. libsodium's first and later calls of 1 GiB x 1 pass: it maps and
 *     unmaps its work area on every call, so each call pays the faults.
 *  3. libgcrypt's (malloc) calls of 1 GiB x 1 pass, with glibc's
 *     defaults (a fresh mmap per call) and then with mmap off and no
 *     trimming (M_MMAP_MAX 0, M_TRIM_THRESHOLD high), where the second
 *     call reuses the heap the first one faulted in.
 * Run it also under GLIBC_TUNABLES=glibc.malloc.hugetlb=1 to see what
 * transparent huge pages on malloc's memory do for libgcrypt.
 */
#include <config.h>
#include <malloc.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#ifdef KS_ARGON2_LIBSODIUM
#include <sodium.h>
#endif
#include "keysafe.h"
#include "kdf-bench.h"

#define GIB ((size_t)1 << 30)

static void
start (double *w0, double *c0)
{
  *w0 = bench_clock (CLOCK_MONOTONIC);
  *c0 = bench_clock (CLOCK_THREAD_CPUTIME_ID);
}

static void
report (const char *what, double w0, double c0)
{
  printf ("  %-46s %6.3f s wall  %6.3f s cpu\n", what,
          bench_clock (CLOCK_MONOTONIC) - w0,
          bench_clock (CLOCK_THREAD_CPUTIME_ID) - c0);
}

/* Map 1 GiB (MODE 0 plain, 1 MADV_HUGEPAGE, 2 MAP_POPULATE), write
 * one byte per 4 KiB page, unmap.  */
static int
touch (int mode, const char *what)
{
  volatile uint8_t *p;
  void *m;
  size_t off;
  double w0, c0;

  start (&w0, &c0);
  m = mmap (NULL, GIB, PROT_READ | PROT_WRITE,
            MAP_PRIVATE | MAP_ANONYMOUS | (mode == 2 ? MAP_POPULATE : 0),
            -1, 0);
  if (m == MAP_FAILED)
    return -1;
  if (mode == 1 && madvise (m, GIB, MADV_HUGEPAGE))
    perror ("madvise");
  p = m;
  for (off = 0; off < GIB; off += 4096)
    p[off] = 1;
  munmap (m, GIB);
  report (what, w0, c0);
  return 0;
}

static int
gcrypt_1g (const char *what)
{
  unsigned long param[4] = { 32, 1, 1048576, 1 };
  gcry_kdf_hd_t hd;
  uint8_t out[32];
  gpg_error_t err;
  double w0, c0;

  start (&w0, &c0);
  err = gcry_kdf_open (&hd, GCRY_KDF_ARGON2, GCRY_KDF_ARGON2ID, param, 4,
                       "password", 8, "somesaltsomesalt", 16,
                       NULL, 0, NULL, 0);
  if (err)
    return -1;
  err = gcry_kdf_compute (hd, NULL);
  if (!err)
    err = gcry_kdf_final (hd, sizeof out, out);
  gcry_kdf_close (hd);
  report (what, w0, c0);
  return err ? -1 : 0;
}

int
bench_memory (void)
{
  unsigned int r;
  char label[64];

  printf ("fresh 1 GiB work areas; %ld-byte pages; THP setting: ",
          sysconf (_SC_PAGESIZE));
  fflush (stdout);
  if (system ("cat /sys/kernel/mm/transparent_hugepage/enabled"))
    printf ("(unknown)\n");

  printf ("1. touching a fresh 1 GiB mapping (alternating, 3 rounds)\n");
  for (r = 0; r < 3; r++)
    if (touch (0, "plain") || touch (1, "madvise(MADV_HUGEPAGE)")
        || touch (2, "MAP_POPULATE"))
      return 1;

#ifdef KS_ARGON2_LIBSODIUM
  printf ("2. libsodium 1 GiB x 1 pass, consecutive calls\n");
  for (r = 0; r < 3; r++)
    {
      static const uint8_t salt[16] = "somesaltsomesalt";
      uint8_t out[32];
      double w0, c0;

      start (&w0, &c0);
      if (crypto_pwhash_argon2id (out, sizeof out, "password", 8, salt, 1,
                                  GIB, crypto_pwhash_ALG_ARGON2ID13))
        return 1;
      snprintf (label, sizeof label, "call %u", r + 1);
      report (label, w0, c0);
    }
#endif

  printf ("3. libgcrypt 1 GiB x 1 pass, consecutive calls\n");
  for (r = 0; r < 2; r++)
    {
      snprintf (label, sizeof label, "glibc defaults, call %u", r + 1);
      if (gcrypt_1g (label))
        return 1;
    }
  if (!mallopt (M_MMAP_MAX, 0) || !mallopt (M_TRIM_THRESHOLD, 0x7fffffff)
      || !mallopt (M_TOP_PAD, 64 << 20))
    printf ("  mallopt refused\n");
  for (r = 0; r < 3; r++)
    {
      snprintf (label, sizeof label, "M_MMAP_MAX 0, no trim, call %u", r + 1);
      if (gcrypt_1g (label))
        return 1;
    }
  return 0;
}
