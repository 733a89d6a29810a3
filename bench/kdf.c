/* kdf.c - bench/kdf: our Argon2id against the reference argon2 CLI
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * What it measures: the wall-clock time of one Argon2id computation by
 * ks_argon2id (libgcrypt, lanes in parallel threads) and by the
 * reference implementation's command-line tool (Debian package argon2,
 * libargon2 built without SIMD, -p lanes in threads), on the same
 * parameters, several repetitions each, alternating which one goes
 * first.  For each parameter set it prints every timing, the median
 * time of each side, and the median over the repetitions of the speed
 * ratio reference time / our time (> 1 means ours is faster; the
 * target is >= 1.2 on 2 cores).  The CPU time (user + system, all
 * threads) of each run is printed next to it: on a busy machine the
 * wall times are noisy, the CPU times much less.  Every output of the CLI (printed raw
 * with -r) is compared with ours: any difference is an error.
 *
 * The CLI is run as
 *   echo -n PASS | argon2 SALT -id -t T -k KIB -p LANES -l 32 -r
 * so its time includes one fork/exec (about a millisecond, against the
 * hundreds of milliseconds measured).
 *
 * How to run it (it is built by make, never run by make check):
 *   make -C build/bench kdf
 *   build/bench/kdf                 # default sets, 5 repetitions
 *   build/bench/kdf -n 9            # more repetitions
 *   build/bench/kdf -s 3:65536:2 -s 1:1048576:2   # own sets T:KIB:LANES
 *   build/bench/kdf --argon2 /usr/bin/argon2
 * Run it on an otherwise idle machine.  The default sets are 64 MiB and
 * 256 MiB with t=3, each with 2 lanes and with 1 lane.  Exit status: 0
 * when all outputs agree, 1 on a mismatch or an error, 2 on bad usage.
 */
#include <config.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <sys/resource.h>
#include "keysafe.h"

#define BENCH_PASS "password"
#define BENCH_SALT "somesaltsomesalt"
#define BENCH_OUTLEN 32
#define MAX_SETS 16
#define MAX_REPS 101

struct set
{
  ks_argon2_params_t params;
};

static double
now (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

static double
tv_secs (const struct timeval *tv)
{
  return tv->tv_sec + tv->tv_usec / 1e6;
}

/* User + system CPU time of this process, all threads.  */
static double
self_cpu (void)
{
  struct rusage ru;

  getrusage (RUSAGE_SELF, &ru);
  return tv_secs (&ru.ru_utime) + tv_secs (&ru.ru_stime);
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
  double tmp[MAX_REPS];

  memcpy (tmp, v, n * sizeof *v);
  qsort (tmp, n, sizeof *tmp, cmp_double);
  return n % 2 ? tmp[n / 2] : (tmp[n / 2 - 1] + tmp[n / 2]) / 2;
}

/* Run ours once; time in seconds into *R_SECS, hex of the tag into HEX.  */
static int
run_ours (const ks_argon2_params_t *p, double *r_secs, double *r_cpu,
          char *hex)
{
  uint8_t out[BENCH_OUTLEN];
  gpg_error_t err;
  double t0, c0;

  c0 = self_cpu ();
  t0 = now ();
  err = ks_argon2id (p, BENCH_PASS, strlen (BENCH_PASS),
                     BENCH_SALT, strlen (BENCH_SALT), NULL, 0, NULL, 0,
                     out, sizeof out, NULL, NULL, "bench");
  *r_secs = now () - t0;
  *r_cpu = self_cpu () - c0;
  if (err)
    {
      fprintf (stderr, "kdf: ks_argon2id: %s\n", gpg_strerror (err));
      return -1;
    }
  ks_hex_encode (out, sizeof out, hex);
  return 0;
}

/* Run the CLI once, the password on its stdin, its stdout (the raw
 * hex) into HEX.  */
static int
run_cli (const char *cli, const ks_argon2_params_t *p, double *r_secs,
         double *r_cpu, char *hex)
{
  char targ[16], karg[16], parg[16], larg[16];
  char buf[256];
  int in[2], out[2];
  size_t len = 0;
  ssize_t n;
  pid_t pid;
  int status = 0;
  struct rusage ru;
  double t0;

  snprintf (targ, sizeof targ, "%u", (unsigned int)p->t_cost);
  snprintf (karg, sizeof karg, "%u", (unsigned int)p->m_cost);
  snprintf (parg, sizeof parg, "%u", (unsigned int)p->lanes);
  snprintf (larg, sizeof larg, "%d", BENCH_OUTLEN);
  if (pipe (in))
    return -1;
  if (pipe (out))
    {
      close (in[0]);
      close (in[1]);
      return -1;
    }

  t0 = now ();
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
      execlp (cli, cli, BENCH_SALT, "-id", "-t", targ, "-k", karg,
              "-p", parg, "-l", larg, "-r", (char *)NULL);
      perror (cli);
      _exit (127);
    }
  close (in[0]);
  close (out[1]);
  /* The password is 8 bytes: it fits any pipe buffer, no deadlock.  */
  if (write (in[1], BENCH_PASS, strlen (BENCH_PASS))
      != (ssize_t)strlen (BENCH_PASS))
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
  *r_secs = now () - t0;
  *r_cpu = tv_secs (&ru.ru_utime) + tv_secs (&ru.ru_stime);
  buf[len] = 0;
  if (!WIFEXITED (status) || WEXITSTATUS (status))
    {
      fprintf (stderr, "kdf: %s failed (status %d)\n", cli, status);
      return -1;
    }
  while (len && (buf[len - 1] == '\n' || buf[len - 1] == '\r'))
    buf[--len] = 0;
  if (len != 2 * BENCH_OUTLEN)
    {
      fprintf (stderr, "kdf: unexpected output from %s: '%s'\n", cli, buf);
      return -1;
    }
  memcpy (hex, buf, len + 1);
  return 0;
}

static int
parse_set (const char *arg, struct set *set)
{
  unsigned int t, k, p;
  char extra;

  if (sscanf (arg, "%u:%u:%u%c", &t, &k, &p, &extra) != 3)
    return -1;
  set->params.t_cost = t;
  set->params.m_cost = k;
  set->params.lanes = p;
  return ks_kdf_check_params (&set->params) ? -1 : 0;
}

static void
usage (FILE *fp)
{
  fputs ("usage: kdf [-n REPS] [-s T:KIB:LANES]... [--argon2 PATH]\n"
         "Times Argon2id of keysafe (libgcrypt) against the argon2 CLI.\n",
         fp);
}

int
main (int argc, char **argv)
{
  static const struct set defaults[] =
    { { { 3, 65536, 2 } }, { { 3, 262144, 2 } },
      { { 3, 65536, 1 } }, { { 3, 262144, 1 } } };
  struct set sets[MAX_SETS];
  unsigned int nsets = 0, reps = 5, i, r;
  const char *cli = getenv ("ARGON2_CLI");
  int mismatches = 0, errors = 0;
  double all_ratios[MAX_SETS];
  gpg_error_t err;

  if (!cli || !*cli || !strcmp (cli, "no"))
    cli = "argon2";
  for (i = 1; i < (unsigned int)argc; i++)
    {
      if (!strcmp (argv[i], "-n") && i + 1 < (unsigned int)argc)
        {
          reps = (unsigned int)strtoul (argv[++i], NULL, 10);
          if (!reps || reps > MAX_REPS)
            {
              usage (stderr);
              return 2;
            }
        }
      else if (!strcmp (argv[i], "-s") && i + 1 < (unsigned int)argc)
        {
          if (nsets == MAX_SETS || parse_set (argv[++i], &sets[nsets]))
            {
              fprintf (stderr, "kdf: bad set '%s'\n", argv[i]);
              return 2;
            }
          nsets++;
        }
      else if (!strcmp (argv[i], "--argon2") && i + 1 < (unsigned int)argc)
        cli = argv[++i];
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

  err = ks_init ();
  if (err)
    {
      fprintf (stderr, "kdf: ks_init: %s\n", gpg_strerror (err));
      return 1;
    }

  printf ("Argon2id, %u online CPUs, %u repetitions, reference: %s\n",
          ks_ncpus (), reps, cli);
  for (i = 0; i < nsets; i++)
    {
      const ks_argon2_params_t *p = &sets[i].params;
      double ours[MAX_REPS] = { 0 }, ref[MAX_REPS] = { 0 };
      double ratio[MAX_REPS] = { 0 };
      double ours_cpu[MAX_REPS] = { 0 }, ref_cpu[MAX_REPS] = { 0 };

      printf ("\nt=%u m=%u KiB (%u MiB) lanes=%u\n",
              (unsigned int)p->t_cost, (unsigned int)p->m_cost,
              (unsigned int)(p->m_cost / 1024), (unsigned int)p->lanes);
      for (r = 0; r < reps; r++)
        {
          char hex_ours[2 * BENCH_OUTLEN + 1], hex_ref[2 * BENCH_OUTLEN + 1];
          int rc;

          /* Alternate the order so neither side always runs on a
           * warm (or a thermally throttled) machine.  */
          if (r % 2)
            rc = run_cli (cli, p, &ref[r], &ref_cpu[r], hex_ref)
                 || run_ours (p, &ours[r], &ours_cpu[r], hex_ours);
          else
            rc = run_ours (p, &ours[r], &ours_cpu[r], hex_ours)
                 || run_cli (cli, p, &ref[r], &ref_cpu[r], hex_ref);
          if (rc)
            {
              errors++;
              break;
            }
          ratio[r] = ref[r] / ours[r];
          printf ("  rep %u: ours %.3f s (cpu %.3f)  reference %.3f s"
                  " (cpu %.3f)  ratio %.2f  %s\n",
                  r + 1, ours[r], ours_cpu[r], ref[r], ref_cpu[r], ratio[r],
                  strcmp (hex_ours, hex_ref) ? "OUTPUT MISMATCH" : "same tag");
          if (strcmp (hex_ours, hex_ref))
            {
              mismatches++;
              fprintf (stderr, "  ours %s\n  ref  %s\n", hex_ours, hex_ref);
            }
        }
      if (r < reps)
        break;
      all_ratios[i] = median (ratio, reps);
      printf ("  median: ours %.3f s (cpu %.3f)  reference %.3f s (cpu %.3f)"
              "  speed ratio (reference/ours) %.2f\n",
              median (ours, reps), median (ours_cpu, reps),
              median (ref, reps), median (ref_cpu, reps), all_ratios[i]);
    }

  if (!errors)
    {
      printf ("\nsummary (median speed ratio reference/ours, target >= 1.20"
              " with 2 lanes on 2 cores):\n");
      for (i = 0; i < nsets; i++)
        printf ("  t=%u m=%u KiB lanes=%u: %.2f\n",
                (unsigned int)sets[i].params.t_cost,
                (unsigned int)sets[i].params.m_cost,
                (unsigned int)sets[i].params.lanes, all_ratios[i]);
    }
  if (mismatches)
    printf ("%d OUTPUT MISMATCHES\n", mismatches);
  return (errors || mismatches) ? 1 : 0;
}
