/* conf.c - keysafe.conf for keysafe-helper
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The helper reads the same $GNUPGHOME/keysafe.conf as keysafe, with
 * libgpg-error's argparser, in keysafe's spelling ("server URL" is a
 * location there, while the helper's own --server is a command): the
 * settings a session takes from it are the locations, the profile and
 * the connection's.  The other options of the file are keysafe's and
 * are passed over.  The command line wins over the file.
 */
#include <config.h>
#define GPGRT_ENABLE_ARGPARSE_MACROS 1
#include <stdio.h>
#include "helper.h"

enum conf_opt
  {
    cLocation = 700,
    cServersFile,
    cProfile,
    cTorSocks,
    cNoTor,
    cTimeout,
    cConnectTimeout,
    cPowCap,
    cThreads,
    cVerbose
  };

static gpgrt_opt_t conf_opts[] =
  {
    ARGPARSE_s_s (cLocation, "server", "@"),
    ARGPARSE_s_s (cLocation, "location", "@"),
    ARGPARSE_s_s (cServersFile, "servers-file", "@"),
    ARGPARSE_s_s (cProfile, "profile", "@"),
    ARGPARSE_s_s (cTorSocks, "tor-socks", "@"),
    ARGPARSE_s_n (cNoTor, "no-tor", "@"),
    ARGPARSE_s_u (cTimeout, "timeout", "@"),
    ARGPARSE_s_u (cConnectTimeout, "connect-timeout", "@"),
    ARGPARSE_s_u (cPowCap, "pow-cap", "@"),
    ARGPARSE_s_u (cThreads, "threads", "@"),
    ARGPARSE_s_n (cVerbose, "verbose", "@"),
    ARGPARSE_end ()
  };

/* Take one option of the file into OPT unless the command line set it
 * (SET_* say what it set).  */
static void
take (const gpgrt_argparse_t *pargs, ks_options_t *opt, const char **servers,
      unsigned int *nservers, int cmdline_servers)
{
  switch (pargs->r_opt)
    {
    case cLocation:
      if (!cmdline_servers && *nservers < KS_HELPER_MAX_SERVERS)
        servers[(*nservers)++] = pargs->r.ret_str;
      break;
    case cServersFile:
      if (!opt->servers_file)
        opt->servers_file = pargs->r.ret_str;
      break;
    case cProfile:
      if (!opt->profile)
        opt->profile = pargs->r.ret_str;
      break;
    case cTorSocks:
      if (!opt->tor_socks)
        opt->tor_socks = pargs->r.ret_str;
      break;
    case cNoTor: opt->no_tor = 1; break;
    case cTimeout:
      if (!opt->timeout)
        opt->timeout = pargs->r.ret_ulong;
      break;
    case cConnectTimeout:
      if (!opt->connect_timeout)
        opt->connect_timeout = pargs->r.ret_ulong;
      break;
    case cPowCap:
      if (pargs->r.ret_ulong < 1 || pargs->r.ret_ulong > KS_POW_CAP_MAX)
        gpgrt_log_error (_("pow-cap takes 1 to %u bits; ignored\n"),
                         (unsigned int)KS_POW_CAP_MAX);
      else if (!opt->pow_cap)
        opt->pow_cap = pargs->r.ret_ulong;
      break;
    case cThreads:
      if (!opt->threads)
        opt->threads = pargs->r.ret_ulong;
      break;
    case cVerbose: opt->verbose++; break;
    default: break;             /* keysafe's option, or not for us */
    }
}

/* What libgpg-error's argparser handed out from keysafe.conf: it never
 * frees those strings, so they stay reachable for the whole run.  */
static const char *kept[64];
static unsigned int nkept;

void
ks_helper_read_conf (ks_helper_defaults_t *d, const char **servers,
                     unsigned int *nservers)
{
  gpgrt_argparse_t pargs;
  char arg0[] = "keysafe-helper";
  char *argv0[] = { arg0, NULL };
  char **argv = argv0;
  int argc = 1;
  int cmdline_servers = *nservers > 0;

  if (!ks_settings_set_confdir (d->opt.homedir))
    return;
  memset (&pargs, 0, sizeof pargs);
  pargs.argc = &argc;
  pargs.argv = &argv;
  pargs.flags = ARGPARSE_FLAG_KEEP | ARGPARSE_FLAG_USER;
  while (gpgrt_argparser (&pargs, conf_opts, KS_SETTINGS_FILE))
    {
      /* The strings libgpg-error hands out from a file (the file's name
       * too) are never freed: the options keep them for the whole run,
       * and this keeps the others reachable (LeakSanitizer).  */
      if ((pargs.r_opt == ARGPARSE_CONFFILE && pargs.r_type)
          || (pargs.r_opt > 0
              && (pargs.r_type & ARGPARSE_TYPE_MASK) == ARGPARSE_TYPE_STRING))
        if (nkept < KS_DIM (kept))
          kept[nkept++] = pargs.r.ret_str;
      if (pargs.r_opt > 0)
        take (&pargs, &d->opt, servers, nservers, cmdline_servers);
    }
  gpgrt_argparse (NULL, &pargs, NULL);
  if (cmdline_servers)
    d->opt.no_records = 1;
}
