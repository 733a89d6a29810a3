/* keysafe-server.c - the shard store over HTTP: options and main
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * See doc/keysafe-server.8 for the options and doc/protocol.md for the
 * wire protocol.
 */
#define GPGRT_ENABLE_ARGPARSE_MACROS 1
#include <config.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <fcntl.h>
#include <netdb.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include "keysafe.h"
#include "store.h"
#include "http.h"
#include "storebackup.h"

#define DEFAULT_LISTEN "127.0.0.1:4242"
/* A cap on the profiles' object sizes, not a size of its own: the sizes
 * a PUT may have come from common/profile.c.  */
#define DEFAULT_MAX_SHARD (16 * 1024 * 1024)
#define DEFAULT_RESERVE (64ULL * 1024 * 1024)
#define DEFAULT_DIFFICULTY 16
#define DEFAULT_LOAD_RPS 20
#define DEFAULT_PUT_BITS 6
#define DEFAULT_FILL_MONTHS 12
#define DEFAULT_HEAD_TIMEOUT 10
#define DEFAULT_MAX_CONNECTIONS 1000
#define DEFAULT_MAX_UPLOADS 64
#define DEFAULT_IDLE_TIMEOUT 15
#define DEFAULT_REQUEST_TIMEOUT 30
#define DEFAULT_REPLAY_SLOTS 65536

enum cmd_and_opt_values
  {
    oStore = 500, oListen, oConfig, oMaxShard, oReserve, oDifficulty,
    oLoadRps, oMaxConn, oMaxPerAddr, oMaxUploads, oIdleTimeout,
    oRequestTimeout, oThreads, oForeground, oPortFile, oVerbose,
    oCheckStore, oCountStore, oBackupStore, oRestoreStore, oTo, oFrom,
    oRecipient, oTestChallengeAge, oReplaySlots, oPutBits, oFillMonths,
    oHeadTimeout, oSigner
  };

static gpgrt_opt_t opts[] =
  {
    ARGPARSE_group (300, N_("@Commands (default: serve):\n ")),
    ARGPARSE_s_s (oCheckStore, "check-store",
                  N_("|DIR|check the store DIR and report")),
    ARGPARSE_s_s (oCountStore, "count-store",
                  N_("|DIR|print the number of shards in DIR")),
    ARGPARSE_s_s (oBackupStore, "backup-store",
                  N_("|DIR|write an encrypted backup of DIR")),
    ARGPARSE_s_s (oRestoreStore, "restore-store",
                  N_("|DIR|restore a backup into DIR")),

    ARGPARSE_group (301, N_("@\nOptions:\n ")),
    ARGPARSE_s_s (oStore, "store", N_("|DIR|keep the shards in DIR")),
    ARGPARSE_s_s (oListen, "listen",
                  N_("|ADDR:PORT|listen there (default 127.0.0.1:4242)")),
    ARGPARSE_s_s (oConfig, "config", N_("|FILE|read options from FILE")),
    ARGPARSE_s_u (oMaxShard, "max-shard-bytes",
                  N_("|N|refuse shards larger than N bytes")),
    ARGPARSE_s_s (oReserve, "reserve-bytes",
                  N_("|N|keep N bytes of the disk free")),
    ARGPARSE_s_u (oDifficulty, "pow-difficulty",
                  N_("|N|base proof-of-work difficulty (0 = off)")),
    ARGPARSE_s_u (oLoadRps, "pow-load-rps",
                  N_("|N|raise the difficulty above N requests/s")),
    ARGPARSE_s_u (oPutBits, "pow-put-extra-bits",
                  N_("|N|a PUT pays N bits more than a GET")),
    ARGPARSE_s_u (oFillMonths, "fill-months",
                  N_("|N|raise the difficulty while the store grows "
                     "faster than half the free space in N months")),
    ARGPARSE_s_u (oMaxConn, "max-connections",
                  N_("|N|serve at most N connections at once")),
    ARGPARSE_s_u (oMaxPerAddr, "max-connections-per-address",
                  N_("|N|at most N connections per client address")),
    ARGPARSE_s_u (oMaxUploads, "max-uploads",
                  N_("|N|hold at most N uploads in memory")),
    ARGPARSE_s_u (oIdleTimeout, "idle-timeout",
                  N_("|N|close a connection idle for N seconds")),
    ARGPARSE_s_u (oHeadTimeout, "head-timeout",
                  N_("|N|cut a new connection without a request "
                     "after N seconds")),
    ARGPARSE_s_u (oRequestTimeout, "request-timeout",
                  N_("|N|cut a request that takes over N seconds")),
    ARGPARSE_s_u (oThreads, "threads", N_("|N|use N worker threads")),
    ARGPARSE_s_n (oForeground, "foreground", N_("do not detach")),
    ARGPARSE_s_s (oPortFile, "port-file",
                  N_("|FILE|write the bound port to FILE")),
    ARGPARSE_s_n (oVerbose, "verbose", N_("verbose")),
    ARGPARSE_s_s (oTo, "to", N_("|FILE|backup file to write")),
    ARGPARSE_s_s (oFrom, "from", N_("|FILE|backup file to read")),
    ARGPARSE_s_s (oRecipient, "recipient",
                  N_("|KEYID|encrypt the backup to KEYID")),
    ARGPARSE_s_s (oSigner, "signer",
                  N_("|KEYID|sign the backup with KEYID, or "
                     "accept only backups signed by it")),
    /* Hidden: for the test suite only.  */
    ARGPARSE_s_i (oTestChallengeAge, "test-challenge-age", "@"),
    ARGPARSE_s_u (oReplaySlots, "replay-slots", "@"),
    ARGPARSE_end ()
  };

typedef struct config
{
  const char *store;
  const char *listen;
  const char *portfile;
  const char *to, *from, *recipient, *signer;
  int command;               /* 0 = serve, else the command's option */
  const char *command_dir;
  int foreground;
  int verbose;
  ks_server_opts_t srv;
  char *owned[64];           /* strings read from the config file */
  unsigned int nowned;
  char *abs_portfile;        /* malloc'd by absolute () */
} config_t;

static const char *
my_strusage (int level)
{
  switch (level)
    {
    case 9: return "GPL-3.0-or-later";
    case 11: return "keysafe-server";
    case 13: return PACKAGE_VERSION;
    case 14: return "Copyright (C) 2026 The keysafe authors";
    case 19: return ks_i18n_bugreport ();
    case 1:
    case 40: return _("Usage: keysafe-server --store DIR [options]");
    case 41: return _("Syntax: keysafe-server --store DIR [options]\n"
                      "Store keysafe shards and serve them over HTTP.\n");
    default: return NULL;
    }
}

static int
parse_u64 (const char *s, uint64_t *r)
{
  char *end;
  unsigned long long v;

  errno = 0;
  if (!s || *s < '0' || *s > '9')
    return -1;
  v = strtoull (s, &end, 10);
  if (errno || *end)
    return -1;
  *r = v;
  return 0;
}

static void
handle_option (config_t *cfg, gpgrt_argparse_t *p)
{
  uint64_t v;

  switch (p->r_opt)
    {
    case oStore: cfg->store = p->r.ret_str; break;
    case oListen: cfg->listen = p->r.ret_str; break;
    case oConfig: break;  /* read in the first pass */
    case oMaxShard: cfg->srv.max_shard_bytes = p->r.ret_ulong; break;
    case oReserve:
      if (parse_u64 (p->r.ret_str, &v))
        gpgrt_log_fatal ("%s: %s\n", "--reserve-bytes", _("invalid number"));
      cfg->srv.reserve_bytes = v;
      break;
    case oDifficulty: cfg->srv.pow_difficulty = p->r.ret_ulong; break;
    case oLoadRps: cfg->srv.pow_load_rps = p->r.ret_ulong; break;
    case oPutBits: cfg->srv.pow_put_bits = p->r.ret_ulong; break;
    case oFillMonths: cfg->srv.fill_months = p->r.ret_ulong; break;
    case oHeadTimeout: cfg->srv.head_timeout = p->r.ret_ulong; break;
    case oSigner: cfg->signer = p->r.ret_str; break;
    case oMaxConn: cfg->srv.max_connections = p->r.ret_ulong; break;
    case oMaxPerAddr: cfg->srv.max_per_address = p->r.ret_ulong; break;
    case oMaxUploads: cfg->srv.max_uploads = p->r.ret_ulong; break;
    case oIdleTimeout: cfg->srv.idle_timeout = p->r.ret_ulong; break;
    case oRequestTimeout: cfg->srv.request_timeout = p->r.ret_ulong; break;
    case oThreads: cfg->srv.threads = p->r.ret_ulong; break;
    case oForeground: cfg->foreground = 1; break;
    case oPortFile: cfg->portfile = p->r.ret_str; break;
    case oVerbose: cfg->verbose = 1; break;
    case oTo: cfg->to = p->r.ret_str; break;
    case oFrom: cfg->from = p->r.ret_str; break;
    case oRecipient: cfg->recipient = p->r.ret_str; break;
    case oTestChallengeAge: cfg->srv.test_challenge_age = p->r.ret_int; break;
    case oReplaySlots: cfg->srv.replay_slots = p->r.ret_ulong; break;
    case oCheckStore: case oCountStore: case oBackupStore: case oRestoreStore:
      cfg->command = p->r_opt;
      cfg->command_dir = p->r.ret_str;
      break;
    default:
      p->err = ARGPARSE_PRINT_ERROR;
      break;
    }
}

/* String values read from a config file are allocated by the parser
 * and belong to the caller: they are kept until exit, then freed.  */
static void
own_string (config_t *cfg, gpgrt_argparse_t *p)
{
  if (p->r_opt <= 0 || p->r_type != ARGPARSE_TYPE_STRING || !p->r.ret_str)
    return;
  if (cfg->nowned >= KS_DIM (cfg->owned))
    gpgrt_log_fatal (_("too many options in the config file\n"));
  cfg->owned[cfg->nowned++] = p->r.ret_str;
}

/* One pass that hands every option to handle_option: over the config
 * file FP, or over the command line when FP is NULL.  *R_ARGC gets the
 * number of arguments left over.  */
static void
parse_pass (config_t *cfg, gpgrt_stream_t fp, int argc, char **argv,
            int *r_argc)
{
  gpgrt_argparse_t pargs;

  memset (&pargs, 0, sizeof pargs);
  pargs.argc = &argc;
  pargs.argv = &argv;
  while (gpgrt_argparse (fp, &pargs, opts))
    {
      handle_option (cfg, &pargs);
      if (fp)
        own_string (cfg, &pargs);
    }
  gpgrt_argparse (NULL, &pargs, NULL);
  *r_argc = argc;
}

static void
parse_options (config_t *cfg, int argc, char **argv)
{
  int oargc = argc;
  char **oargv = argv;
  const char *cfgfile = NULL;
  gpgrt_argparse_t pargs;
  gpgrt_stream_t fp;

  /* Pass 1: find --config.  */
  pargs.argc = &argc;
  pargs.argv = &argv;
  pargs.flags = ARGPARSE_FLAG_KEEP | ARGPARSE_FLAG_NOVERSION;
  while (gpgrt_argparse (NULL, &pargs, opts))
    if (pargs.r_opt == oConfig)
      cfgfile = pargs.r.ret_str;
  gpgrt_argparse (NULL, &pargs, NULL);

  /* Pass 2: the config file, the same options without the dashes.  */
  if (cfgfile)
    {
      fp = gpgrt_fopen (cfgfile, "r");
      if (!fp)
        gpgrt_log_fatal (_("cannot open '%s': %s\n"), cfgfile,
                         strerror (errno));
      parse_pass (cfg, fp, oargc, oargv, &argc);
      gpgrt_fclose (fp);
    }

  /* Pass 3: the command line wins.  */
  parse_pass (cfg, NULL, oargc, oargv, &argc);
  if (argc)
    gpgrt_usage (1);
}

/* "ADDR:PORT" or "[ADDR6]:PORT" with a numeric address.  */
static gpg_error_t
parse_listen (const char *spec, ks_server_opts_t *srv)
{
  char host[256];
  const char *colon, *port, *h;
  size_t hlen;
  struct addrinfo hints, *ai = NULL;

  colon = strrchr (spec, ':');
  if (!colon || !colon[1])
    return gpg_error (GPG_ERR_INV_VALUE);
  port = colon + 1;
  h = spec;
  hlen = colon - spec;
  if (hlen >= 2 && h[0] == '[' && h[hlen - 1] == ']')
    {
      h++;
      hlen -= 2;
    }
  if (!hlen || hlen >= sizeof host)
    return gpg_error (GPG_ERR_INV_VALUE);
  memcpy (host, h, hlen);
  host[hlen] = 0;
  memset (&hints, 0, sizeof hints);
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV | AI_PASSIVE;
  if (getaddrinfo (host, port, &hints, &ai) || !ai)
    return gpg_error (GPG_ERR_INV_VALUE);
  memcpy (&srv->addr, ai->ai_addr, ai->ai_addrlen);
  srv->addrlen = ai->ai_addrlen;
  freeaddrinfo (ai);
  return 0;
}

/* FILE gets the port by a rename from a temp file of a fresh name made
 * with O_EXCL (mkostemp), so nothing planted next to FILE, a symlink
 * least of all, is ever opened or written through.  */
static gpg_error_t
write_port_file (const char *file, unsigned int port)
{
  gpg_error_t err = 0;
  char tmp[PATH_MAX], line[16];
  int fd, len;

  if (snprintf (tmp, sizeof tmp, "%s.XXXXXX", file) >= (int)sizeof tmp)
    return gpg_error (GPG_ERR_TOO_LARGE);
  fd = mkostemp (tmp, O_CLOEXEC | O_NOFOLLOW);
  if (fd < 0)
    return gpg_error_from_syserror ();
  len = snprintf (line, sizeof line, "%u\n", port);
  if (fchmod (fd, 0644))
    err = gpg_error_from_syserror ();
  if (!err)
    err = ks_write_all (fd, line, len);
  if (close (fd) && !err)
    err = gpg_error_from_syserror ();
  if (!err && rename (tmp, file))
    err = gpg_error_from_syserror ();
  if (err)
    unlink (tmp);
  return err;
}

/* A relative path made absolute before the process leaves its
 * working directory.  */
static const char *
absolute (config_t *cfg, const char *path)
{
  char cwd[PATH_MAX], *s;

  if (!path || *path == '/')
    return path;
  if (!getcwd (cwd, sizeof cwd))
    gpgrt_log_fatal ("getcwd: %s\n", strerror (errno));
  s = malloc (strlen (cwd) + strlen (path) + 2);
  if (!s)
    gpgrt_log_fatal ("%s\n", strerror (errno));
  strcpy (stpcpy (stpcpy (s, cwd), "/"), path);
  free (cfg->abs_portfile);
  cfg->abs_portfile = s;
  return s;
}

static int
cmd_check (config_t *cfg)
{
  ks_store_report_t rep;
  gpg_error_t err;

  err = ks_store_check (cfg->command_dir, cfg->command == oCheckStore, &rep);
  if (err)
    {
      gpgrt_log_error ("%s: %s\n", cfg->command_dir, gpg_strerror (err));
      return 2;
    }
  if (cfg->command == oCountStore)
    {
      printf ("%lu\n", rep.shards);
      return 0;
    }
  printf (_("shards: %lu\n"), rep.shards);
  printf (_("bytes: %llu\n"), (unsigned long long)rep.bytes);
  printf (_("temp files: %lu\n"), rep.tempfiles);
  printf (_("empty shards: %lu\n"), rep.empty);
  printf (_("out of place: %lu\n"), rep.misplaced);
  if (rep.misplaced || rep.empty || rep.tempfiles)
    {
      printf (_("store is NOT clean\n"));
      return 1;
    }
  printf (_("store is clean\n"));
  return 0;
}

static int
cmd_backup (config_t *cfg)
{
  gpg_error_t err;
  unsigned long count, added, skipped;

  if (cfg->command == oBackupStore)
    {
      if (!cfg->to || !cfg->recipient)
        gpgrt_log_fatal (_("--backup-store needs --to FILE and "
                           "--recipient KEYID\n"));
      err = ks_backup_store (cfg->command_dir, cfg->to, cfg->recipient,
                             cfg->signer ? cfg->signer : cfg->recipient,
                             &count);
      if (err)
        {
          gpgrt_log_error (_("backup failed: %s\n"), gpg_strerror (err));
          return 1;
        }
      printf (_("backup written: %lu shards\n"), count);
      return 0;
    }
  if (!cfg->from)
    gpgrt_log_fatal (_("--restore-store needs --from FILE\n"));
  if (!cfg->signer && !cfg->recipient)
    gpgrt_log_fatal (_("--restore-store needs --signer KEYID\n"));
  err = ks_restore_store (cfg->command_dir, cfg->from,
                          cfg->signer ? cfg->signer : cfg->recipient,
                          cfg->srv.max_shard_bytes, &added, &skipped);
  printf (_("restored: %lu shards added, %lu already present\n"),
          added, skipped);
  if (err)
    {
      gpgrt_log_error (_("restore failed: %s\n"), gpg_strerror (err));
      return 1;
    }
  return 0;
}

static int
serve (config_t *cfg)
{
  gpg_error_t err;
  ks_store_t *store = NULL;
  ks_http_t *http = NULL;
  unsigned long removed;
  sigset_t set;
  struct timespec tick = { 1, 0 };
  int sig, rc = 1;

  if (!cfg->store)
    {
      gpgrt_log_error (_("no store given (--store DIR)\n"));
      return 2;
    }
  err = parse_listen (cfg->listen, &cfg->srv);
  if (err)
    {
      gpgrt_log_error (_("invalid listen address '%s'\n"), cfg->listen);
      return 2;
    }
  if (cfg->srv.pow_difficulty > KS_POW_MAX_DIFFICULTY)
    {
      gpgrt_log_error (_("difficulty above the maximum of %d\n"),
                       KS_POW_MAX_DIFFICULTY);
      return 2;
    }
  if (!cfg->srv.max_shard_bytes || cfg->srv.max_shard_bytes > 16 * 1024 * 1024)
    {
      gpgrt_log_error (_("invalid --max-shard-bytes\n"));
      return 2;
    }
  if (!cfg->srv.max_uploads)
    cfg->srv.max_uploads = 1;

  err = ks_store_open (cfg->store, &store, &removed);
  if (err)
    {
      gpgrt_log_error (_("cannot open the store: %s\n"), gpg_strerror (err));
      return 1;
    }
  if (removed)
    gpgrt_log_info (_("removed %lu temp files left by a crash\n"), removed);
  if (!cfg->srv.pow_difficulty)
    gpgrt_log_info (_("WARNING: proof of work is OFF "
                      "(--pow-difficulty 0): for tests and local demos only\n"));

  cfg->portfile = absolute (cfg, cfg->portfile);
  if (!cfg->foreground && daemon (0, 1))
    {
      gpgrt_log_error ("daemon: %s\n", strerror (errno));
      goto leave;
    }

  /* Block the stop signals in every thread; the main thread waits for
   * them and meanwhile sweeps connections past their deadline.  */
  sigemptyset (&set);
  sigaddset (&set, SIGTERM);
  sigaddset (&set, SIGINT);
  sigaddset (&set, SIGHUP);
  pthread_sigmask (SIG_BLOCK, &set, NULL);
  signal (SIGPIPE, SIG_IGN);

  err = ks_http_start (&cfg->srv, store, &http);
  if (err)
    {
      gpgrt_log_error (_("cannot listen on %s: %s\n"), cfg->listen,
                       gpg_strerror (err));
      goto leave;
    }
  if (cfg->portfile)
    {
      err = write_port_file (cfg->portfile, ks_http_port (http));
      if (err)
        {
          gpgrt_log_error (_("cannot write the port file: %s\n"),
                           gpg_strerror (err));
          goto leave;
        }
    }
  if (cfg->verbose)
    gpgrt_log_info (_("listening on port %u\n"), ks_http_port (http));

  for (;;)
    {
      sig = sigtimedwait (&set, NULL, &tick);
      if (sig > 0)
        break;
      ks_http_sweep (http);
    }
  rc = 0;

 leave:
  ks_http_stop (http);
  ks_store_close (store);
  return rc;
}

int
main (int argc, char **argv)
{
  config_t cfg;
  gpg_error_t err;
  unsigned int i;
  int rc;

  gpgrt_set_strusage (my_strusage);
  gpgrt_log_set_prefix ("keysafe-server", GPGRT_LOG_WITH_PREFIX);
  ks_i18n_init ();
  err = ks_init ();
  if (err)
    gpgrt_log_fatal (_("initialisation failed: %s\n"), gpg_strerror (err));
  /* Translate the help texts once; argparse prints them as they are.  */
  for (i = 0; opts[i].short_opt; i++)
    if (opts[i].description && *opts[i].description)
      opts[i].description = _(opts[i].description);

  memset (&cfg, 0, sizeof cfg);
  cfg.listen = DEFAULT_LISTEN;
  cfg.srv.max_shard_bytes = DEFAULT_MAX_SHARD;
  cfg.srv.reserve_bytes = DEFAULT_RESERVE;
  cfg.srv.pow_difficulty = DEFAULT_DIFFICULTY;
  cfg.srv.pow_load_rps = DEFAULT_LOAD_RPS;
  cfg.srv.pow_put_bits = DEFAULT_PUT_BITS;
  cfg.srv.fill_months = DEFAULT_FILL_MONTHS;
  cfg.srv.head_timeout = DEFAULT_HEAD_TIMEOUT;
  cfg.srv.max_connections = DEFAULT_MAX_CONNECTIONS;
  cfg.srv.max_uploads = DEFAULT_MAX_UPLOADS;
  cfg.srv.idle_timeout = DEFAULT_IDLE_TIMEOUT;
  cfg.srv.request_timeout = DEFAULT_REQUEST_TIMEOUT;
  cfg.srv.threads = ks_ncpus ();
  cfg.srv.replay_slots = DEFAULT_REPLAY_SLOTS;
  parse_options (&cfg, argc, argv);

  switch (cfg.command)
    {
    case oCheckStore:
    case oCountStore:
      rc = cmd_check (&cfg);
      break;
    case oBackupStore:
    case oRestoreStore:
      rc = cmd_backup (&cfg);
      break;
    default:
      rc = serve (&cfg);
      break;
    }
  for (i = 0; i < cfg.nowned; i++)
    gpgrt_free (cfg.owned[i]);
  free (cfg.abs_portfile);
  return rc;
}
