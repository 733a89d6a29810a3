/* bench-kdf.c - bench/kdf: our Argon2id against libsodium, the argon2 CLI
 * and libgcrypt, one lane, in one run
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What it measures, for each parameter set (default: 256 MiB x 10
 * passes and 1 GiB x 1 pass, one lane, 32-byte output, 16-byte salt):
 *   ours       ks_kdf_argon2id, the backend configure chose
 *   libsodium  crypto_pwhash_argon2id called directly (when built)
 *   libgcrypt  gcry_kdf_open/compute/final called directly, no threads
 *   argon2     the reference CLI (Debian package argon2), as
 *              echo -n PASS | argon2 SALT -id -t T -k KIB -p 1 -l 32 -r
 * Each round runs every implementation once, the order rotated from
 * round to round, so none always runs first or on a warmer machine.
 * Per run it takes the wall time and the CPU time of the work: the
 * calling thread's CPU clock for the three in-process ones (they all
 * compute in this thread), the child's rusage for the CLI.  The CPU
 * time is what other load on a shared machine cannot inflate much, so
 * the ratios are printed from medians of both; the verdict line uses
 * CPU time.  All outputs must be equal, or the run fails.
 *
 * It also prints seconds per pass per GiB of libsodium, the figure
 * the default profile is tuned with.
 *
 * --memory measures the page-fault side of a fresh large work area
 * instead (see bench/kdf-results.txt for what was found):
 *   touching a fresh 1 GiB mmap, plain and with MADV_HUGEPAGE;
 *   libsodium's and libgcrypt's first and second call on 1 GiB x 1.
 *
 * How to run it (built by make, never run by make check):
 *   make -C build/bench kdf
 *   nice -n 10 build/bench/kdf            # 5 rounds
 *   build/bench/kdf -n 7 -s 10:262144     # own sets T:KIB
 *   build/bench/kdf --memory
 * Exit status: 0 when all outputs agree, 1 on a mismatch or an error,
 * 2 on bad usage.
 */
#include <config.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <sys/resource.h>
#ifdef KS_ARGON2_LIBSODIUM
#include <sodium.h>
#endif
#include "keysafe.h"
#include "kdf-bench.h"

#define PASS "password"
#define SALT "somesaltsomesalt"   /* 16 bytes, as protocol 2 uses */
#define OUTLEN 32
#define MAX_SETS 8
#define MAX_ROUNDS 31

enum impl { OURS, SODIUM, GCRYPT, CLI, NIMPL };
static const char *const impl_name[NIMPL] =
  { "ours", "libsodium", "libgcrypt", "argon2 cli" };

struct set
{
  uint32_t t, m_kib;
};

struct timing
{
  double wall, cpu;
};

static const char *cli = "argon2";

static double
tv_secs (const struct timeval *tv)
{
  return tv->tv_sec + tv->tv_usec / 1e6;
}

static int
cmp_double (const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;

  return x < y ? -1 : x > y;
}

static double
median (const double *v, unsigned int n)
{
  double tmp[MAX_ROUNDS];

  memcpy (tmp, v, n * sizeof *v);
  qsort (tmp, n, sizeof *tmp, cmp_double);
  return n % 2 ? tmp[n / 2] : (tmp[n / 2 - 1] + tmp[n / 2]) / 2;
}

static int
run_gcrypt (const struct set *s, uint8_t *out)
{
  unsigned long param[4] = { OUTLEN, s->t, s->m_kib, 1 };
  gcry_kdf_hd_t hd;
  gpg_error_t err;

  err = gcry_kdf_open (&hd, GCRY_KDF_ARGON2, GCRY_KDF_ARGON2ID, param, 4,
                       PASS, strlen (PASS), SALT, strlen (SALT),
                       NULL, 0, NULL, 0);
  if (err)
    return -1;
  err = gcry_kdf_compute (hd, NULL);
  if (!err)
    err = gcry_kdf_final (hd, OUTLEN, out);
  gcry_kdf_close (hd);
  return err ? -1 : 0;
}

/* One in-process run of IMPL; its output as hex into HEX.  */
static int
run_inproc (enum impl impl, const struct set *s, struct timing *tm,
            char *hex)
{
  uint8_t out[OUTLEN];
  double w0, c0;
  int rc = -1;

  w0 = bench_clock (CLOCK_MONOTONIC);
  c0 = bench_clock (CLOCK_THREAD_CPUTIME_ID);
  if (impl == OURS)
    rc = ks_kdf_argon2id (PASS, strlen (PASS), (const uint8_t *)SALT,
                          s->t, s->m_kib, out, NULL, NULL, NULL) ? -1 : 0;
  else if (impl == GCRYPT)
    rc = run_gcrypt (s, out);
#ifdef KS_ARGON2_LIBSODIUM
  else if (impl == SODIUM)
    rc = crypto_pwhash_argon2id (out, OUTLEN, PASS, strlen (PASS),
                                 (const uint8_t *)SALT, s->t,
                                 (size_t)s->m_kib * 1024,
                                 crypto_pwhash_ALG_ARGON2ID13);
#endif
  tm->cpu = bench_clock (CLOCK_THREAD_CPUTIME_ID) - c0;
  tm->wall = bench_clock (CLOCK_MONOTONIC) - w0;
  if (rc)
    fprintf (stderr, "kdf: %s failed\n", impl_name[impl]);
  else
    ks_hex_encode (out, sizeof out, hex);
  return rc;
}

/* Run the CLI once, the password on its stdin, its stdout (the raw
 * hex) into HEX; CPU time from the child's rusage.  */
static int
run_cli (const struct set *s, struct timing *tm, char *hex)
{
  char targ[16], karg[16], larg[16], buf[256];
  int in[2], out[2], status = 0;
  size_t len = 0;
  ssize_t n;
  pid_t pid;
  struct rusage ru;
  double w0;

  snprintf (targ, sizeof targ, "%u", (unsigned int)s->t);
  snprintf (karg, sizeof karg, "%u", (unsigned int)s->m_kib);
  snprintf (larg, sizeof larg, "%d", OUTLEN);
  if (pipe (in))
    return -1;
  if (pipe (out))
    {
      close (in[0]);
      close (in[1]);
      return -1;
    }
  w0 = bench_clock (CLOCK_MONOTONIC);
  pid = fork ();
  if (pid < 0)
    {
      perror ("kdf: fork");
      close (in[0]); close (in[1]); close (out[0]); close (out[1]);
      return -1;
    }
  if (!pid)
    {
      dup2 (in[0], 0);
      dup2 (out[1], 1);
      close (in[0]); close (in[1]); close (out[0]); close (out[1]);
      execlp (cli, cli, SALT, "-id", "-t", targ, "-k", karg,
              "-p", "1", "-l", larg, "-r", (char *)NULL);
      perror (cli);
      _exit (127);
    }
  close (in[0]);
  close (out[1]);
  /* 8 bytes fit any pipe buffer: no deadlock.  */
  if (write (in[1], PASS, strlen (PASS)) != (ssize_t)strlen (PASS))
    perror ("kdf: write");
  close (in[1]);
  while (len < sizeof buf - 1
         && ((n = read (out[0], buf + len, sizeof buf - 1 - len)) > 0
             || (n < 0 && errno == EINTR)))
    if (n > 0)
      len += n;
  close (out[0]);
  memset (&ru, 0, sizeof ru);
  while (wait4 (pid, &status, 0, &ru) < 0 && errno == EINTR)
    ;
  tm->wall = bench_clock (CLOCK_MONOTONIC) - w0;
  tm->cpu = tv_secs (&ru.ru_utime) + tv_secs (&ru.ru_stime);
  buf[len] = 0;
  while (len && (buf[len - 1] == '\n' || buf[len - 1] == '\r'))
    buf[--len] = 0;
  if (!WIFEXITED (status) || WEXITSTATUS (status) || len != 2 * OUTLEN)
    {
      fprintf (stderr, "kdf: %s failed (status %d): '%s'\n",
               cli, status, buf);
      return -1;
    }
  memcpy (hex, buf, len + 1);
  return 0;
}

static int
impl_built (enum impl impl)
{
#ifndef KS_ARGON2_LIBSODIUM
  if (impl == SODIUM)
    return 0;
#endif
  return 1;
}

/* Every implementation ROUNDS times on S; medians into MED.  */
static int
bench_set (const struct set *s, unsigned int rounds,
           struct timing med[NIMPL])
{
  double wall[NIMPL][MAX_ROUNDS], cpu[NIMPL][MAX_ROUNDS];
  char hex[NIMPL][2 * OUTLEN + 1];
  unsigned int r, k, i;
  int bad = 0;

  printf ("\nt=%u m=%u KiB (%.2f GiB), one lane\n", (unsigned int)s->t,
          (unsigned int)s->m_kib, s->m_kib / 1048576.0);
  for (r = 0; r < rounds; r++)
    {
      for (k = 0; k < NIMPL; k++)
        {
          enum impl impl = (enum impl)((k + r) % NIMPL);
          struct timing tm = { 0, 0 };

          if (!impl_built (impl))
            continue;
          if (impl == CLI ? run_cli (s, &tm, hex[impl])
                          : run_inproc (impl, s, &tm, hex[impl]))
            return -1;
          wall[impl][r] = tm.wall;
          cpu[impl][r] = tm.cpu;
        }
      printf ("  round %u:", r + 1);
      for (i = 0; i < NIMPL; i++)
        if (impl_built (i))
          {
            printf ("  %s %.3f s (cpu %.3f)", impl_name[i], wall[i][r],
                    cpu[i][r]);
            if (strcmp (hex[i], hex[OURS]))
              bad = 1;
          }
      printf ("%s\n", bad ? "  OUTPUT MISMATCH" : "");
      if (bad)
        return -1;
    }
  printf ("  same tag from all: %s\n", hex[OURS]);
  for (i = 0; i < NIMPL; i++)
    if (impl_built (i))
      {
        med[i].wall = median (wall[i], rounds);
        med[i].cpu = median (cpu[i], rounds);
        printf ("  median %-10s %7.3f s wall  %7.3f s cpu\n", impl_name[i],
                med[i].wall, med[i].cpu);
      }
  return 0;
}

static void
print_ratios (const struct set *s, const struct timing med[NIMPL])
{
  unsigned int i;
  double gib_pass = (double)s->t * s->m_kib / 1048576.0;

  printf ("  ratios (ours / other, median cpu; wall in brackets):\n");
  for (i = 1; i < NIMPL; i++)
    if (impl_built (i))
      printf ("    ours/%-10s %.3f  (%.3f)\n", impl_name[i],
              med[OURS].cpu / med[i].cpu, med[OURS].wall / med[i].wall);
  if (impl_built (SODIUM))
    printf ("  libsodium single lane: %.3f s per pass per GiB cpu"
            " (%.3f wall)\n", med[SODIUM].cpu / gib_pass,
            med[SODIUM].wall / gib_pass);
  /* The verdict is on 256 MiB x 10 passes; with fewer passes the first
   * touch of the fresh work area, which varies by seconds on a VM,
   * outweighs the Argon2 work.  */
  if (impl_built (SODIUM) && s->t == 10 && s->m_kib == 262144)
    printf ("  verdict: ours/libsodium %.3f %s 1.05\n",
            med[OURS].cpu / med[SODIUM].cpu,
            med[OURS].cpu / med[SODIUM].cpu <= 1.05 ? "<=" : "EXCEEDS");
}

static void
usage (FILE *fp)
{
  fputs ("usage: kdf [-n ROUNDS] [-s T:KIB]... [--argon2 PATH] [--memory]\n"
         "Times one-lane Argon2id: ours, libsodium, libgcrypt, argon2 CLI.\n",
         fp);
}

int
main (int argc, char **argv)
{
  static const struct set defaults[] = { { 10, 262144 }, { 1, 1048576 } };
  struct set sets[MAX_SETS];
  struct timing med[NIMPL];
  unsigned int nsets = 0, rounds = 5, i;
  const char *env = getenv ("ARGON2_CLI");
  int memory = 0;

  if (env && *env && strcmp (env, "no"))
    cli = env;
  for (i = 1; i < (unsigned int)argc; i++)
    {
      unsigned int t, k;
      char extra;

      if (!strcmp (argv[i], "-n") && i + 1 < (unsigned int)argc)
        {
          rounds = (unsigned int)strtoul (argv[++i], NULL, 10);
          if (!rounds || rounds > MAX_ROUNDS)
            {
              usage (stderr);
              return 2;
            }
        }
      else if (!strcmp (argv[i], "-s") && i + 1 < (unsigned int)argc
               && nsets < MAX_SETS
               && sscanf (argv[++i], "%u:%u%c", &t, &k, &extra) == 2
               && t && k >= KS_KDF_MIN_M_KIB && k <= KS_ARGON2_MAX_M_COST)
        {
          sets[nsets].t = t;
          sets[nsets++].m_kib = k;
        }
      else if (!strcmp (argv[i], "--argon2") && i + 1 < (unsigned int)argc)
        cli = argv[++i];
      else if (!strcmp (argv[i], "--memory"))
        memory = 1;
      else if (!strcmp (argv[i], "-h") || !strcmp (argv[i], "--help"))
        {
          usage (stdout);
          return 0;
        }
      else
        {
          usage (stderr);
          return 2;
        }
    }
  if (!nsets)
    {
      memcpy (sets, defaults, sizeof defaults);
      nsets = KS_DIM (defaults);
    }
  if (ks_init ())
    return 1;
#ifdef KS_ARGON2_LIBSODIUM
  if (sodium_init () < 0)
    return 1;
#endif
  if (memory)
    return bench_memory ();

  printf ("Argon2id one lane: ours = %s backend; %u online CPUs; %u rounds;"
          " cli %s\n", ks_kdf_backend (), ks_ncpus (), rounds, cli);
  for (i = 0; i < nsets; i++)
    {
      if (bench_set (&sets[i], rounds, med))
        return 1;
      print_ratios (&sets[i], med);
    }
  return 0;
}
