/* args.c - keysafe's options: keysafe.conf, then the command line
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * As gpg reads gpg.conf: libgpg-error's argparser reads keysafe.conf in
 * the GnuPG home first, where every long option is allowed without its
 * dashes ("server file:///media/usb/keysafe", "profile test"), then the
 * command line.  Locations given on the command line replace those of
 * the file and the backup records.
 */
#include <config.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#define GPGRT_ENABLE_ARGPARSE_MACROS 1
#include "cli.h"

const char *ks_cli_conf_file;

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
    oPasswordFile,
    oPinentryMode,
    oStatusFd,
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
    oPowCap,
    oUserId,
    oNoProtection,
    oDrop,
    oOptions,
    oNoOptions
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
    ARGPARSE_group (303, N_("@ list            show what is backed up where\n"
                            " queue           show the upload queue per"
                            " location\n")),
    ARGPARSE_group (301, N_("@\nOptions:\n ")),
    ARGPARSE_s_s (oGpgKeyId, "gpgkeyid", N_("|KEYID|the GnuPG key to back up"
                                            " or restore")),
    ARGPARSE_s_n (oStdin, "stdin", N_("back up the bytes read from stdin")),
    ARGPARSE_s_n (oStdout, "stdout", N_("write the restored secret to"
                                        " stdout")),
    ARGPARSE_s_s (oName, "name", N_("|NAME|the name of the backup")),
    ARGPARSE_s_i (oPasswordFd, "password-fd",
                  N_("|FD|read the password from descriptor FD")),
    ARGPARSE_s_i (oPasswordFd, "passphrase-fd", "@"),
    ARGPARSE_s_i (oNameFd, "name-fd",
                  N_("|FD|read the name of the backup from descriptor FD")),
    ARGPARSE_s_s (oPasswordFile, "passphrase-file",
                  N_("|FILE|read the password from the first line of"
                     " FILE")),
    ARGPARSE_s_s (oPinentryMode, "pinentry-mode",
                  N_("|MODE|ask, loopback, cancel or error, as gpg")),
    ARGPARSE_s_i (oStatusFd, "status-fd",
                  N_("|FD|write status lines for scripts to FD")),
    ARGPARSE_s_n (oBindKeyId, "bind-keyid", N_("bind the backup to the key"
                                               " id")),
    ARGPARSE_s_u (oShares, "shares", N_("|N|split into N shares")),
    ARGPARSE_s_u (oThreshold, "threshold", N_("|K|K shares restore it")),
    ARGPARSE_s_s (oProfile, "profile", N_("|NAME|use only profile NAME")),
    ARGPARSE_s_s (oServer, "server", N_("|URL|use the location URL (a server"
                                        " or file:///dir; repeatable;"
                                        " replaces the list)")),
    ARGPARSE_s_s (oServer, "location", "@"),
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
    ARGPARSE_s_u (oPowCap, "pow-cap",
                  N_("|BITS|pay at most BITS of proof of work per request")),
    ARGPARSE_s_s (oUserId, "userid", N_("|USERID|firstboot: the user ID of"
                                        " a new key")),
    ARGPARSE_s_n (oNoProtection, "no-protection",
                  N_("firstboot: a new key without passphrase")),
    ARGPARSE_s_s (oDrop, "drop", N_("|URL|queue: drop what waits for the"
                                    " location URL")),
    ARGPARSE_conffile (oOptions, "options",
                       N_("|FILE|read options from FILE, not"
                          " keysafe.conf")),
    ARGPARSE_noconffile (oNoOptions, "no-options", N_("read no option"
                                                      " file")),
    ARGPARSE_s_n (oVerbose, "verbose", N_("verbose")),
    ARGPARSE_s_n (oQuiet, "quiet", N_("be quiet")),
    ARGPARSE_end ()
  };

const char *
ks_cli_strusage (int level)
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

/* --homedir of the command line, read before keysafe.conf (it is found
 * there), as gpg does.  */
static const char *
find_homedir (int argc, char **argv)
{
  gpgrt_argparse_t pargs;
  const char *home = NULL;

  memset (&pargs, 0, sizeof pargs);
  pargs.argc = &argc;
  pargs.argv = &argv;
  pargs.flags = ARGPARSE_FLAG_KEEP | ARGPARSE_FLAG_MIXED
                | ARGPARSE_FLAG_NOVERSION;
  while (gpgrt_argparse (NULL, &pargs, opts))
    if (pargs.r_opt == oHomedir)
      home = pargs.r.ret_str;
  gpgrt_argparse (NULL, &pargs, NULL);
  return home;
}

static int
parse_pinentry_mode (const char *s, ks_pinentry_mode_t *r_mode)
{
  if (!strcmp (s, "ask") || !strcmp (s, "default"))
    *r_mode = KS_PINENTRY_ASK;
  else if (!strcmp (s, "loopback"))
    *r_mode = KS_PINENTRY_LOOPBACK;
  else if (!strcmp (s, "cancel"))
    *r_mode = KS_PINENTRY_CANCEL;
  else if (!strcmp (s, "error"))
    *r_mode = KS_PINENTRY_ERROR;
  else
    {
      gpgrt_log_error (_("invalid pinentry mode '%s'\n"), s);
      return -1;
    }
  return 0;
}

/* Take a location; those of the command line and those of the file
 * are kept apart, since the command line's replace the file's.  */
static int
add_location (const char **list, unsigned int *n, const char *url)
{
  if (*n >= KS_MAX_SERVERS_OPT)
    {
      gpgrt_log_error (_("too many --server options\n"));
      return -1;
    }
  list[(*n)++] = url;
  return 0;
}

/* One option; returns -1 on a usage error.  */
static int
take_option (gpgrt_argparse_t *pargs, ks_options_t *opt, struct face *face)
{
  switch (pargs->r_opt)
    {
    case oGpgKeyId: opt->gpgkeyid = pargs->r.ret_str; break;
    case oStdin: face->use_stdin = 1; break;
    case oStdout: face->use_stdout = 1; break;
    case oName: opt->name = pargs->r.ret_str; break;
    case oPasswordFd: face->password_fd = pargs->r.ret_int; break;
    case oNameFd: face->name_fd = pargs->r.ret_int; break;
    case oPasswordFile: face->password_file = pargs->r.ret_str; break;
    case oPinentryMode:
      return parse_pinentry_mode (pargs->r.ret_str, &face->pinentry_mode);
    case oStatusFd: face->status_fd = pargs->r.ret_int; break;
    case oBindKeyId: opt->bind_keyid = 1; break;
    case oShares: opt->shares = pargs->r.ret_ulong; break;
    case oThreshold: opt->threshold = pargs->r.ret_ulong; break;
    case oProfile: opt->profile = pargs->r.ret_str; break;
    case oServersFile: opt->servers_file = pargs->r.ret_str; break;
    case oTorSocks: opt->tor_socks = pargs->r.ret_str; break;
    case oNoTor: opt->no_tor = 1; break;
    case oBatch: opt->batch = 1; break;
    case oHomedir: opt->homedir = pargs->r.ret_str; break;
    case oForce: opt->force = 1; break;
    case oThreads: opt->threads = pargs->r.ret_ulong; break;
    case oTimeout: opt->timeout = pargs->r.ret_ulong; break;
    case oConnectTimeout: opt->connect_timeout = pargs->r.ret_ulong; break;
    case oPowCap:
      if (pargs->r.ret_ulong < 1 || pargs->r.ret_ulong > KS_POW_CAP_MAX)
        {
          gpgrt_log_error (_("--pow-cap takes 1 to %u bits\n"),
                           (unsigned int)KS_POW_CAP_MAX);
          return -1;
        }
      opt->pow_cap = pargs->r.ret_ulong;
      break;
    case oUserId: opt->userid = pargs->r.ret_str; break;
    case oNoProtection: opt->no_protection = 1; break;
    case oDrop: face->drop = pargs->r.ret_str; break;
    case oVerbose: opt->verbose++; break;
    case oQuiet: face->quiet = 1; break;
    case oOptions: case oNoOptions: break;  /* done by the argparser */
    default:
      pargs->err = ARGPARSE_PRINT_ERROR;
      break;
    }
  return 0;
}

int
ks_cli_parse_args (int *argc, char ***argv, ks_options_t *opt,
                   struct face *face, const char **servers,
                   const char **r_cmd)
{
  gpgrt_argparse_t pargs;
  static const char *conf_servers[KS_MAX_SERVERS_OPT + 1];
  unsigned int nservers = 0, nconf = 0;
  int extra_args = 0, in_conf = 0, rc = 0;
  int have_conf;
  unsigned int i;

  *r_cmd = NULL;
  /* The option texts in the user's language.  */
  for (i = 0; opts[i].short_opt; i++)
    if (opts[i].description)
      opts[i].description = _(opts[i].description);
  have_conf = ks_settings_set_confdir (find_homedir (*argc, *argv));

  memset (&pargs, 0, sizeof pargs);
  pargs.argc = argc;
  pargs.argv = argv;
  pargs.flags = ARGPARSE_FLAG_KEEP | ARGPARSE_FLAG_MIXED
                | (have_conf ? ARGPARSE_FLAG_USER : 0);
  while (!rc && gpgrt_argparser (&pargs, opts, KS_SETTINGS_FILE))
    {
      switch (pargs.r_opt)
        {
        case ARGPARSE_CONFFILE:
          in_conf = pargs.r_type != 0;
          /* libgpg-error hands out the file's name and never frees
           * it: keep it, reachable for the whole run.  */
          if (in_conf)
            ks_cli_conf_file = pargs.r.ret_str;
          if (in_conf && opt->verbose)
            gpgrt_log_info (_("reading options from '%s'\n"),
                            pargs.r.ret_str);
          break;
        case ARGPARSE_IS_ARG:
          if (!*r_cmd)
            *r_cmd = pargs.r.ret_str;
          else
            extra_args = 1;
          break;
        case oServer:
          if (in_conf)
            rc = add_location (conf_servers, &nconf, pargs.r.ret_str);
          else
            rc = add_location (servers, &nservers, pargs.r.ret_str);
          break;
        case oHomedir:
          if (!in_conf)
            opt->homedir = pargs.r.ret_str;
          break;
        default:
          rc = take_option (&pargs, opt, face);
          break;
        }
    }
  gpgrt_argparse (NULL, &pargs, NULL);  /* release internal state */
  if (rc || gpgrt_get_errorcount (0))
    return 2;
  if (!*r_cmd || extra_args)
    {
      gpgrt_log_error ("%s\n", ks_cli_strusage (1));
      return 2;
    }
  if (nservers)
    {
      servers[nservers] = NULL;
      opt->servers = servers;
      opt->no_records = 1;
    }
  else if (nconf)
    {
      conf_servers[nconf] = NULL;
      opt->servers = conf_servers;
    }
  return 0;
}
