/* keysafe-cli.c - the command line face of the flows
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * keysafe COMMAND [options]; COMMAND is backup, restore, check, servers,
 * upload-queued or firstboot.  Everything the user sees goes to stderr,
 * except the restored secret with --stdout and the list of `keysafe
 * servers`.
 */
#include <config.h>
#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <unistd.h>
#define GPGRT_ENABLE_ARGPARSE_MACROS 1
#include "keysafe.h"
#include "keysafe-client.h"
#include "password.h"
#include "progress.h"
#include "render.h"

#define KS_MAX_SERVERS_OPT 64

enum cmd_and_opt_values
  {
    oQuiet = 'q',
    oVerbose = 'v',
    oGpgKeyId = 500,
    oStdin,
    oStdout,
    oName,
    oPasswordFd,
    oNameFd,
    oBindKeyId,
    oShares,
    oThreshold,
    oProfile,
    oServer,
    oServersFile,
    oTorSocks,
    oNoTor,
    oBatch,
    oHomedir,
    oForce,
    oThreads,
    oTimeout,
    oConnectTimeout,
    oUserId,
    oNoProtection
  };

static gpgrt_opt_t opts[] =
  {
    ARGPARSE_group (300, N_("@Commands:\n"
                            " backup          back up a secret key\n"
                            " restore         restore a backup\n"
                            " check           are all my shards still stored?\n"
                            " servers         show the server list\n"
                            " upload-queued   send shards that waited for"
                            " a server\n")),
    ARGPARSE_group (302, N_("@ firstboot       once: make a key if there is"
                            " none, back it up\n")),
    ARGPARSE_group (301, N_("@\nOptions:\n ")),
    ARGPARSE_s_s (oGpgKeyId, "gpgkeyid", N_("|KEYID|the GnuPG key to back up"
                                            " or restore")),
    ARGPARSE_s_n (oStdin, "stdin", N_("back up the bytes read from stdin")),
    ARGPARSE_s_n (oStdout, "stdout", N_("write the restored secret to"
                                        " stdout")),
    ARGPARSE_s_s (oName, "name", N_("|NAME|the name of the backup")),
    ARGPARSE_s_i (oPasswordFd, "password-fd",
                  N_("|FD|read the password from descriptor FD")),
    ARGPARSE_s_i (oNameFd, "name-fd",
                  N_("|FD|read the name of the backup from descriptor FD")),
    ARGPARSE_s_n (oBindKeyId, "bind-keyid", N_("bind the backup to the key"
                                               " id")),
    ARGPARSE_s_u (oShares, "shares", N_("|N|split into N shares")),
    ARGPARSE_s_u (oThreshold, "threshold", N_("|K|K shares restore it")),
    ARGPARSE_s_s (oProfile, "profile", N_("|NAME|use only profile NAME")),
    ARGPARSE_s_s (oServer, "server", N_("|URL|use server URL (repeatable;"
                                        " replaces the list)")),
    ARGPARSE_s_s (oServersFile, "servers-file", N_("|FILE|read the server"
                                                   " list from FILE")),
    ARGPARSE_s_s (oTorSocks, "tor-socks", N_("|HOST:PORT|Tor's SOCKS port"
                                             " (default 127.0.0.1:9050)")),
    ARGPARSE_s_n (oNoTor, "no-tor", N_("connect directly (not anonymous)")),
    ARGPARSE_s_n (oBatch, "batch", N_("never ask anything")),
    ARGPARSE_s_s (oHomedir, "homedir", N_("|DIR|the GnuPG home directory")),
    ARGPARSE_s_n (oForce, "force", N_("accept a weak password")),
    ARGPARSE_s_u (oThreads, "threads", N_("|N|puzzle threads (0 = all"
                                          " CPUs)")),
    ARGPARSE_s_u (oTimeout, "timeout", N_("|SEC|time limit per request")),
    ARGPARSE_s_u (oConnectTimeout, "connect-timeout",
                  N_("|SEC|time limit to connect")),
    ARGPARSE_s_s (oUserId, "userid", N_("|USERID|firstboot: the user ID of"
                                        " a new key")),
    ARGPARSE_s_n (oNoProtection, "no-protection",
                  N_("firstboot: a new key without passphrase")),
    ARGPARSE_s_n (oVerbose, "verbose", N_("verbose")),
    ARGPARSE_s_n (oQuiet, "quiet", N_("be quiet")),
    ARGPARSE_end ()
  };

/* The face's state.  */
struct face
{
  const ks_options_t *opt;
  int password_fd;
  int name_fd;                  /* --name-fd: the name, kept off argv */
  int quiet;
  int use_stdin;                /* backup --stdin */
  int use_stdout;               /* restore --stdout */
  ks_progress_t progress;
};

static const char *
my_strusage (int level)
{
  switch (level)
    {
    case 9: return "GPL-3.0-or-later";
    case 11: return "keysafe";
    case 13: return PACKAGE_VERSION;
    case 14: return "Copyright (C) 2026 The keysafe authors";
    case 19: return ks_i18n_bugreport ();
    case 1:
    case 40: return _("Usage: keysafe COMMAND [options] (-h for help)");
    case 41:
      return _("Syntax: keysafe COMMAND [options]\n"
               "Back up a GnuPG secret key in shards on several servers,"
               " and restore it\nfrom an item name and a password.\n");
    default: return NULL;
    }
}

static void
face_progress (void *arg, const char *what, uint64_t done, uint64_t total)
{
  struct face *face = arg;

  ks_progress_update (&face->progress, what, done, total);
}

static void
face_info (void *arg, const char *text)
{
  struct face *face = arg;

  if (face->quiet)
    return;
  ks_progress_break (&face->progress);
  fprintf (stderr, "keysafe: %s\n", text);
}

static void
face_error (void *arg, const char *text)
{
  struct face *face = arg;

  ks_progress_break (&face->progress);
  fprintf (stderr, "keysafe: %s\n", text);
}

/* keysafe servers prints its list on stdout.  */
static void
face_print (void *arg, const char *text)
{
  (void)arg;
  printf ("%s\n", text);
}

static gpg_error_t
face_get_name (void *arg, const char *prompt, char **r_name)
{
  struct face *face = arg;

  *r_name = NULL;
  /* The name is half of what opens a backup: read into secure memory,
   * never seen in the process list.  */
  if (face->name_fd >= 0)
    return ks_password_from_fd (face->name_fd, r_name);
  if (face->opt->batch)
    return gpg_error (GPG_ERR_MISSING_VALUE);
  ks_progress_break (&face->progress);
  return ks_password_read_line_tty (prompt, r_name);
}

static gpg_error_t
face_get_password (void *arg, const char *prompt, int confirm, char **r_pw)
{
  struct face *face = arg;
  gpg_error_t err;

  *r_pw = NULL;
  if (face->password_fd >= 0)
    return ks_password_from_fd (face->password_fd, r_pw);
  if (face->opt->batch)
    return gpg_error (GPG_ERR_NO_PASSPHRASE);
  ks_progress_break (&face->progress);
  err = ks_agent_get_passphrase (face->opt->homedir, prompt, _("Password:"),
                                 confirm, r_pw);
  if (gpg_err_code (err) == GPG_ERR_NO_AGENT
      || gpg_err_code (err) == GPG_ERR_NO_PIN_ENTRY)
    {
      char p[512];

      snprintf (p, sizeof p, "%s:", prompt);
      err = ks_password_from_tty (p, confirm, r_pw);
    }
  return err;
}

static gpg_error_t
face_put_secret (void *arg, const uint8_t *data, size_t len)
{
  (void)arg;
  return ks_write_all (STDOUT_FILENO, data, len);
}

/* Read all of stdin into secure memory.  */
static gpg_error_t
read_stdin (uint8_t **r_data, size_t *r_len)
{
  gpg_error_t err;
  ks_buf_t *buf = NULL;
  uint8_t tmp[4096];
  ssize_t n;

  *r_data = NULL;
  *r_len = 0;
  err = ks_buf_new (KS_MAX_SECRET, 1, &buf);
  if (err)
    return err;
  for (;;)
    {
      n = read (STDIN_FILENO, tmp, sizeof tmp);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        {
          err = gpg_error_from_syserror ();
          break;
        }
      if (!n)
        break;
      err = ks_buf_append (buf, tmp, n);
      if (err)
        break;
    }
  ks_wipe (tmp, sizeof tmp);
  if (!err)
    {
      *r_data = gcry_malloc_secure (buf->len ? buf->len : 1);
      if (!*r_data)
        err = gpg_error_from_syserror ();
      else
        {
          if (buf->len)
            memcpy (*r_data, buf->data, buf->len);
          *r_len = buf->len;
        }
    }
  ks_buf_free (buf);
  return err;
}

struct keychoice
{
  unsigned int count;
  char fpr[20][65];
  char uid[20][128];
};

static void
collect_key (void *arg, const char *fpr, const char *uid)
{
  struct keychoice *kc = arg;

  if (kc->count >= KS_DIM (kc->fpr))
    return;
  snprintf (kc->fpr[kc->count], sizeof kc->fpr[0], "%s", fpr);
  snprintf (kc->uid[kc->count], sizeof kc->uid[0], "%s", uid);
  kc->count++;
}

/* backup without --gpgkeyid and --stdin: offer the secret keys.  */
static gpg_error_t
choose_key (ks_options_t *opt, char *fprbuf, size_t fprsize)
{
  gpg_error_t err;
  struct keychoice kc;
  unsigned int i, pick = 0;
  char *line = NULL;

  memset (&kc, 0, sizeof kc);
  err = ks_gpg_list_secret (opt->homedir, collect_key, &kc);
  if (err)
    {
      gpgrt_log_error (_("can't list the secret keys: %s\n"),
                       gpg_strerror (err));
      return err;
    }
  if (!kc.count)
    {
      gpgrt_log_error (_("no secret key found; give --gpgkeyid or"
                         " --stdin\n"));
      return gpg_error (GPG_ERR_NO_SECKEY);
    }
  if (kc.count == 1)
    pick = 1;
  else if (opt->batch)
    {
      gpgrt_log_error (_("there are %u secret keys; choose one with"
                         " --gpgkeyid\n"), kc.count);
      return gpg_error (GPG_ERR_AMBIGUOUS_NAME);
    }
  else
    {
      for (i = 0; i < kc.count; i++)
        fprintf (stderr, "  %u) %s  %s\n", i + 1, kc.fpr[i], kc.uid[i]);
      err = ks_password_read_line_tty (_("Which key do you want to back"
                                         " up? (number)"), &line);
      if (err)
        return err;
      pick = (unsigned int)strtoul (line, NULL, 10);
      gcry_free (line);
      if (pick < 1 || pick > kc.count)
        {
          gpgrt_log_error (_("no such key\n"));
          return gpg_error (GPG_ERR_CANCELED);
        }
    }
  snprintf (fprbuf, fprsize, "%s", kc.fpr[pick - 1]);
  opt->gpgkeyid = fprbuf;
  fprintf (stderr, "keysafe: %s %s  %s\n", _("backing up"),
           kc.fpr[pick - 1], kc.uid[pick - 1]);
  return 0;
}

/* The command line, from gpgrt_argparse: options into OPT and FACE,
 * --server URLs into SERVERS, the command into *R_CMD.  Returns the
 * exit status 2 on a usage error, else 0.  */
static int
parse_args (int *argc, char ***argv, ks_options_t *opt, struct face *face,
            const char **servers, const char **r_cmd)
{
  gpgrt_argparse_t pargs;
  unsigned int nservers = 0;
  int extra_args = 0;

  *r_cmd = NULL;
  pargs.argc = argc;
  pargs.argv = argv;
  pargs.flags = ARGPARSE_FLAG_KEEP | ARGPARSE_FLAG_MIXED;
  while (gpgrt_argparse (NULL, &pargs, opts))
    {
      switch (pargs.r_opt)
        {
        case ARGPARSE_IS_ARG:
          if (!*r_cmd)
            *r_cmd = pargs.r.ret_str;
          else
            extra_args = 1;
          break;
        case oGpgKeyId: opt->gpgkeyid = pargs.r.ret_str; break;
        case oStdin: face->use_stdin = 1; break;
        case oStdout: face->use_stdout = 1; break;
        case oName: opt->name = pargs.r.ret_str; break;
        case oPasswordFd: face->password_fd = pargs.r.ret_int; break;
        case oNameFd: face->name_fd = pargs.r.ret_int; break;
        case oBindKeyId: opt->bind_keyid = 1; break;
        case oShares: opt->shares = pargs.r.ret_ulong; break;
        case oThreshold: opt->threshold = pargs.r.ret_ulong; break;
        case oProfile: opt->profile = pargs.r.ret_str; break;
        case oServer:
          if (nservers >= KS_MAX_SERVERS_OPT)
            {
              gpgrt_log_error (_("too many --server options\n"));
              return 2;
            }
          servers[nservers++] = pargs.r.ret_str;
          break;
        case oServersFile: opt->servers_file = pargs.r.ret_str; break;
        case oTorSocks: opt->tor_socks = pargs.r.ret_str; break;
        case oNoTor: opt->no_tor = 1; break;
        case oBatch: opt->batch = 1; break;
        case oHomedir: opt->homedir = pargs.r.ret_str; break;
        case oForce: opt->force = 1; break;
        case oThreads: opt->threads = pargs.r.ret_ulong; break;
        case oTimeout: opt->timeout = pargs.r.ret_ulong; break;
        case oConnectTimeout: opt->connect_timeout = pargs.r.ret_ulong; break;
        case oUserId: opt->userid = pargs.r.ret_str; break;
        case oNoProtection: opt->no_protection = 1; break;
        case oVerbose: opt->verbose++; break;
        case oQuiet: face->quiet = 1; break;
        default:
          pargs.err = ARGPARSE_PRINT_ERROR;
          break;
        }
    }
  gpgrt_argparse (NULL, &pargs, NULL);  /* release internal state */
  if (gpgrt_get_errorcount (0))
    return 2;
  if (!*r_cmd || extra_args)
    {
      gpgrt_log_error ("%s\n", my_strusage (1));
      return 2;
    }
  if (nservers)
    {
      servers[nservers] = NULL;
      opt->servers = servers;
    }
  return 0;
}

/* keysafe backup: the secret from stdin, the key given, or one chosen.
 * Returns the exit status.  */
static int
cmd_backup (ks_options_t *opt, struct face *face, const ks_ui_t *ui)
{
  gpg_error_t err;
  uint8_t *secret = NULL;
  size_t secretlen = 0;
  char fprbuf[65];
  ks_backup_result_t r;

  if (face->use_stdin && opt->gpgkeyid && !opt->bind_keyid)
    {
      gpgrt_log_error (_("--stdin and --gpgkeyid exclude each other"
                         " (unless --bind-keyid)\n"));
      return 2;
    }
  if (face->use_stdin)
    {
      err = read_stdin (&secret, &secretlen);
      if (err)
        {
          gpgrt_log_error (_("can't read the secret from stdin: %s\n"),
                           gpg_strerror (err));
          return 1;
        }
    }
  else if (!opt->gpgkeyid && choose_key (opt, fprbuf, sizeof fprbuf))
    return 1;
  err = ks_flow_backup (opt, ui, secret, secretlen, &r);
  ks_free_secret (secret, secretlen);
  ks_render_backup (ui, &r);
  ks_backup_result_release (&r);
  return err ? 1 : 0;
}

/* Run CMD; returns the exit status.  */
static int
run_command (const char *cmd, ks_options_t *opt, struct face *face,
             ks_ui_t *ui)
{
  gpg_error_t err;
  ks_fetch_result_t fres;
  ks_firstboot_result_t fbres;

  if (!strcmp (cmd, "backup"))
    return cmd_backup (opt, face, ui);
  if (!strcmp (cmd, "restore"))
    {
      err = ks_flow_restore (opt, ui, face->use_stdout, &fres);
      ks_render_restore (ui, &fres);
      ks_fetch_result_release (&fres);
    }
  else if (!strcmp (cmd, "check"))
    {
      err = ks_flow_check (opt, ui, &fres);
      ks_render_check (ui, &fres);
      ks_fetch_result_release (&fres);
    }
  else if (!strcmp (cmd, "servers"))
    {
      ui->info = face_print;
      err = ks_flow_servers (opt, ui);
      if (fflush (stdout) && !err)
        err = gpg_error_from_syserror ();
    }
  else if (!strcmp (cmd, "upload-queued"))
    err = ks_flow_upload_queued (opt, ui);
  else if (!strcmp (cmd, "firstboot"))
    {
      err = ks_flow_firstboot (opt, ui, &fbres);
      ks_render_backup (ui, &fbres.backup);
      ks_backup_result_release (&fbres.backup);
    }
  else
    {
      gpgrt_log_error (_("unknown command '%s'\n"), cmd);
      gpgrt_log_error ("%s\n", my_strusage (1));
      return 2;
    }
  return err ? 1 : 0;
}

int
main (int argc, char **argv)
{
  gpg_error_t err;
  ks_options_t opt;
  struct face face;
  ks_ui_t ui;
  const char *cmd = NULL;
  const char *servers[KS_MAX_SERVERS_OPT + 1];
  unsigned int i;
  int rc;

  gpgrt_set_strusage (my_strusage);
  gpgrt_log_set_prefix ("keysafe", GPGRT_LOG_WITH_PREFIX);
  ks_i18n_init ();
  err = ks_init ();
  if (err)
    {
      fprintf (stderr, "keysafe: %s: %s\n", _("initialisation failed"),
               gpg_strerror (err));
      return 2;
    }
  /* The option texts in the user's language.  */
  for (i = 0; opts[i].short_opt; i++)
    if (opts[i].description)
      opts[i].description = _(opts[i].description);

  memset (&opt, 0, sizeof opt);
  memset (&face, 0, sizeof face);
  face.password_fd = -1;
  face.name_fd = -1;
  face.opt = &opt;
  rc = parse_args (&argc, &argv, &opt, &face, servers, &cmd);
  if (rc)
    return rc;
  if (opt.homedir)
    setenv ("GNUPGHOME", opt.homedir, 1);

  err = ks_gpg_init ();
  if (err)
    {
      gpgrt_log_error (_("GPGME is not usable: %s\n"), gpg_strerror (err));
      return 2;
    }

  ks_progress_init (&face.progress, isatty (2) && !opt.batch
                    && !face.quiet);
  memset (&ui, 0, sizeof ui);
  ui.arg = &face;
  ui.progress = face_progress;
  ui.info = face_info;
  ui.error = face_error;
  ui.get_name = face_get_name;
  ui.get_password = face_get_password;
  ui.put_secret = face_put_secret;

  rc = run_command (cmd, &opt, &face, &ui);
  ks_progress_break (&face.progress);
  return rc;
}
