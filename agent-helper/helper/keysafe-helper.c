/* keysafe-helper.c - keysafe's Assuan companion of gpg-agent
 * Copyright (C) 2026 The keysafe authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Two ways to run:
 *
 *   keysafe-helper --server   an Assuan server on stdin/stdout, as
 *                             gpg-connect-agent --exec starts it;
 *   keysafe-helper --daemon   an Assuan server on the socket S.keysafe
 *                             in GnuPG's socket directory (gpgconf
 *                             --list-dirs socketdir), in the foreground,
 *                             serving one client at a time; a client that
 *                             connects while another is served gets an
 *                             ERR greeting at once.
 *
 * The commands are in assuan-cmds.c.  Nothing but Assuan goes to
 * stdout; diagnostics go to stderr.
 */
#include <config.h>
/* gpgrt_argparse's ARGPARSE_* macros.  */
#define GPGRT_ENABLE_ARGPARSE_MACROS 1
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>
#include <gpgme.h>

#include "helper.h"

enum cmd_and_opt_values
  {
    aNull = 0,
    aServer = 500,
    aDaemon,

    oHomedir = 600,
    oProfile,
    oUseServer,
    oServersFile,
    oTorSocks,
    oNoTor,
    oPinentry,
    oBatch,
    oVerbose,
    oThreads,
    oTimeout,
    oConnectTimeout,
    oPowCap,
    oSocket
  };

static gpgrt_opt_t opts[] =
  {
    ARGPARSE_group (300, N_("@Commands:\n ")),
    ARGPARSE_c (aServer, "server",
                N_("run as an Assuan server on stdin and stdout")),
    ARGPARSE_c (aDaemon, "daemon",
                N_("run as an Assuan server on the socket S.keysafe")),

    ARGPARSE_group (301, N_("@\nOptions:\n ")),
    ARGPARSE_s_s (oHomedir, "homedir", N_("|DIR|use DIR as the GnuPG home")),
    ARGPARSE_s_s (oProfile, "profile",
                  N_("|NAME|use the profile NAME (\"test\" for tests)")),
    ARGPARSE_s_s (oUseServer, "use-server",
                  N_("|URL|use the keysafe server URL (repeatable)")),
    ARGPARSE_s_s (oServersFile, "servers-file",
                  N_("|FILE|read the server list from FILE")),
    ARGPARSE_s_s (oTorSocks, "tor-socks",
                  N_("|HOST:PORT|the SOCKS5 proxy of Tor")),
    ARGPARSE_s_n (oNoTor, "no-tor", N_("connect to servers without Tor")),
    ARGPARSE_s_n (oPinentry, "pinentry",
                  N_("ask passwords through gpg-agent's pinentry")),
    ARGPARSE_s_n (oBatch, "batch", N_("never ask anything interactively")),
    ARGPARSE_s_n (oVerbose, "verbose", N_("verbose")),
    ARGPARSE_s_u (oThreads, "threads",
                  N_("|N|solve the puzzle with N threads")),
    ARGPARSE_s_u (oTimeout, "timeout", N_("|SEC|time limit per request")),
    ARGPARSE_s_u (oConnectTimeout, "connect-timeout",
                  N_("|SEC|time limit to connect")),
    ARGPARSE_s_u (oPowCap, "pow-cap",
                  N_("|BITS|pay at most BITS of proof of work per request")),
    ARGPARSE_s_s (oSocket, "socket",
                  N_("|FILE|listen on FILE instead of S.keysafe")),
    ARGPARSE_end ()
  };


static volatile sig_atomic_t terminate_requested;


static const char *
my_strusage (int level)
{
  const char *p;

  switch (level)
    {
    case 9:  p = "GPL-3.0-or-later"; break;
    case 11: p = "keysafe-helper"; break;
    case 13: p = PACKAGE_VERSION; break;
    case 14: p = "Copyright (C) 2026 The keysafe authors"; break;
    case 19: p = ks_i18n_bugreport (); break;
    case 1:
    case 40: p = _("Usage: keysafe-helper --server|--daemon [options]");
      break;
    case 41:
      p = _("Syntax: keysafe-helper --server|--daemon [options]\n"
            "Back up and restore GnuPG keys with keysafe over Assuan\n");
      break;
    default: p = NULL; break;
    }
  return p;
}


static void
handle_signal (int signo)
{
  (void)signo;
  terminate_requested = 1;
}


/* A line longer than Assuan allows (1000 bytes) makes libassuan stop
 * reading it halfway: read and drop the rest of it, up to its newline,
 * then answer it with an ERR, so that the client stays in step.  */
static gpg_error_t
answer_long_line (assuan_context_t ctx)
{
  gpg_error_t err;
  char *line;
  size_t len;
  char buf[200];
  int n;

  for (n = 0; n < 1024; n++)
    {
      err = assuan_read_line (ctx, &line, &len);
      if (gpg_err_code (err) != GPG_ERR_ASS_LINE_TOO_LONG)
        break;
    }
  if (err)
    return err;
  err = gpg_error (GPG_ERR_ASS_LINE_TOO_LONG);
  snprintf (buf, sizeof buf, "ERR %u %s <%s>", err, gpg_strerror (err),
            gpg_strsource (err));
  return assuan_write_line (ctx, buf);
}


/* Serve one connection already set up in CTX until the client says BYE
 * or goes away.  In daemon mode (CLIENT_FD is the connection) the
 * listening socket is watched so that other clients are refused while
 * this one is served.  */
static gpg_error_t
serve_connection (assuan_context_t ctx, ks_session_t *session, int client_fd)
{
  gpg_error_t err;
  int done = 0;

  err = assuan_accept (ctx);
  if (err == (gpg_error_t)-1 || gpg_err_code (err) == GPG_ERR_EOF)
    return 0;
  if (err)
    return err;

  while (!done && !terminate_requested)
    {
      if (client_fd >= 0 && !assuan_pending_line (ctx))
        {
          struct pollfd pfd[2];

          pfd[0].fd = client_fd;
          pfd[0].events = POLLIN;
          pfd[0].revents = 0;
          pfd[1].fd = session->listen_fd;
          pfd[1].events = POLLIN;
          pfd[1].revents = 0;
          if (poll (pfd, 2, 1000) < 0)
            {
              if (errno == EINTR)
                continue;
              return gpg_error_from_syserror ();
            }
          if (pfd[1].revents & POLLIN)
            {
              int fd = accept (session->listen_fd, NULL, NULL);

              if (fd >= 0)
                {
                  ks_helper_refuse (fd);
                  if (session->defaults->opt.verbose)
                    gpgrt_log_info (_("busy: refused another client\n"));
                }
            }
          if (!(pfd[0].revents & (POLLIN | POLLHUP | POLLERR)))
            continue;
        }
      err = assuan_process_next (ctx, &done);
      if (gpg_err_code (err) == GPG_ERR_ASS_LINE_TOO_LONG)
        err = answer_long_line (ctx);
      if (gpg_err_code (err) == GPG_ERR_EOF || err == (gpg_error_t)-1)
        return 0;
      if (err)
        return err;
    }
  return 0;
}


static int
run_pipe_server (const ks_helper_defaults_t *defaults)
{
  gpg_error_t err;
  assuan_context_t ctx = NULL;
  assuan_fd_t filedes[2];
  ks_session_t session;

  memset (&session, 0, sizeof session);
  session.defaults = defaults;
  session.listen_fd = -1;
  ks_helper_session_reset (&session);

  filedes[0] = assuan_fdopen (0);
  filedes[1] = assuan_fdopen (1);
  err = assuan_new_ext (&ctx, GPG_ERR_SOURCE_DEFAULT,
                        &ks_helper_secure_hooks, NULL, NULL);
  if (!err)
    err = assuan_init_pipe_server (ctx, filedes);
  if (!err)
    err = ks_helper_register (ctx, &session);
  if (!err)
    err = serve_connection (ctx, &session, -1);
  if (err)
    gpgrt_log_error (_("Assuan server failed: %s\n"), gpg_strerror (err));
  ks_helper_session_reset (&session);
  assuan_release (ctx);
  return err ? 2 : 0;
}


static int
run_daemon (const ks_helper_defaults_t *defaults, const char *socketopt)
{
  gpg_error_t err;
  char *socketdir = NULL;
  char *sockname = NULL;
  ks_helper_listen_t lis = { -1, -1, 0, 0 };
  int listen_fd;
  struct sigaction sa;

  if (socketopt)
    sockname = gpgrt_strdup (socketopt);
  else
    {
      err = ks_agent_gpgconf_dir (defaults->opt.homedir, "socketdir", &socketdir);
      if (err)
        {
          gpgrt_log_error (_("cannot find GnuPG's socket directory: %s\n"),
                           gpg_strerror (err));
          return 2;
        }
      sockname = gpgrt_bsprintf ("%s/S.keysafe", socketdir);
    }
  if (!sockname || strlen (sockname) >= sizeof ((struct sockaddr_un *)0)->sun_path)
    {
      gpgrt_log_error (_("socket name too long\n"));
      err = gpg_error (GPG_ERR_TOO_LARGE);
      goto leave;
    }
  err = ks_helper_listen (sockname, &lis);
  listen_fd = lis.fd;
  if (err)
    {
      gpgrt_log_error (_("cannot listen on %s: %s\n"), sockname,
                       gpg_strerror (err));
      goto leave;
    }
  if (defaults->opt.verbose)
    gpgrt_log_info (_("listening on %s\n"), sockname);

  memset (&sa, 0, sizeof sa);
  sa.sa_handler = handle_signal;
  sigemptyset (&sa.sa_mask);
  sigaction (SIGTERM, &sa, NULL);
  sigaction (SIGINT, &sa, NULL);
  sigaction (SIGHUP, &sa, NULL);

  while (!terminate_requested)
    {
      struct pollfd pfd;
      int fd;
      assuan_context_t ctx = NULL;
      ks_session_t session;

      pfd.fd = listen_fd;
      pfd.events = POLLIN;
      pfd.revents = 0;
      if (poll (&pfd, 1, 1000) <= 0 || !(pfd.revents & POLLIN))
        continue;
      fd = accept (listen_fd, NULL, NULL);
      if (fd < 0)
        continue;

      if (defaults->opt.verbose)
        gpgrt_log_info (_("client connected\n"));
      memset (&session, 0, sizeof session);
      session.defaults = defaults;
      session.listen_fd = listen_fd;
      ks_helper_session_reset (&session);
      err = assuan_new_ext (&ctx, GPG_ERR_SOURCE_DEFAULT,
                            &ks_helper_secure_hooks, NULL, NULL);
      if (!err)
        err = assuan_init_socket_server (ctx, assuan_fdopen (fd),
                                         ASSUAN_SOCKET_SERVER_ACCEPTED);
      if (err)
        close (fd);
      if (!err)
        err = ks_helper_register (ctx, &session);
      if (!err)
        err = serve_connection (ctx, &session, fd);
      if (err && defaults->opt.verbose)
        gpgrt_log_info (_("connection ended: %s\n"), gpg_strerror (err));
      ks_helper_session_reset (&session);
      /* Releasing a socket server context closes its descriptor.  */
      assuan_release (ctx);
      if (defaults->opt.verbose)
        gpgrt_log_info (_("client disconnected\n"));
    }
  err = 0;

 leave:
  ks_helper_unlisten (sockname, &lis);
  gpgrt_free (socketdir);
  gpgrt_free (sockname);
  return err ? 2 : 0;
}


/* The value of --pow-cap; a value out of range ends the program.  */
static unsigned int
pow_cap_arg (unsigned long bits)
{
  if (bits < 1 || bits > KS_POW_CAP_MAX)
    {
      gpgrt_log_error (_("--pow-cap takes 1 to %u bits\n"),
                       (unsigned int)KS_POW_CAP_MAX);
      exit (2);
    }
  return (unsigned int)bits;
}


int
main (int argc, char **argv)
{
  gpg_error_t err;
  gpgrt_argparse_t pargs;
  enum cmd_and_opt_values cmd = aNull;
  ks_helper_defaults_t defaults;
  const char *socketopt = NULL;
  const char **servers = NULL;
  unsigned int nservers = 0;
  int i, rc;

  gpgrt_set_strusage (my_strusage);
  gpgrt_log_set_prefix ("keysafe-helper", GPGRT_LOG_WITH_PREFIX);
  ks_i18n_init ();
  err = ks_init ();
  if (err)
    {
      gpgrt_log_error (_("initialisation failed: %s\n"), gpg_strerror (err));
      return 2;
    }
  /* Translate the help texts once; argparse prints them as they are.  */
  for (i = 0; opts[i].short_opt; i++)
    if (opts[i].description && *opts[i].description)
      opts[i].description = _(opts[i].description);

  memset (&defaults, 0, sizeof defaults);
  servers = gpgrt_calloc (argc + KS_HELPER_MAX_SERVERS + 1,
                          sizeof *servers);
  if (!servers)
    {
      gpgrt_log_error ("%s\n", gpg_strerror (gpg_error_from_syserror ()));
      return 2;
    }

  pargs.argc = &argc;
  pargs.argv = &argv;
  pargs.flags = 0;
  while (gpgrt_argparse (NULL, &pargs, opts))
    {
      switch (pargs.r_opt)
        {
        case aServer:
        case aDaemon:
          if (cmd && cmd != (enum cmd_and_opt_values)pargs.r_opt)
            {
              gpgrt_log_error (_("--server and --daemon exclude each other\n"));
              return 2;
            }
          cmd = pargs.r_opt;
          break;
        case oHomedir: defaults.opt.homedir = pargs.r.ret_str; break;
        case oProfile: defaults.opt.profile = pargs.r.ret_str; break;
        case oUseServer: servers[nservers++] = pargs.r.ret_str; break;
        case oServersFile: defaults.opt.servers_file = pargs.r.ret_str; break;
        case oTorSocks: defaults.opt.tor_socks = pargs.r.ret_str; break;
        case oNoTor: defaults.opt.no_tor = 1; break;
        case oPinentry: defaults.pinentry = 1; break;
        case oBatch: defaults.opt.batch = 1; break;
        case oVerbose: defaults.opt.verbose++; break;
        case oThreads: defaults.opt.threads = (unsigned int)pargs.r.ret_ulong; break;
        case oTimeout:
          defaults.opt.timeout = (unsigned int)pargs.r.ret_ulong;
          break;
        case oConnectTimeout:
          defaults.opt.connect_timeout = (unsigned int)pargs.r.ret_ulong;
          break;
        case oPowCap:
          defaults.opt.pow_cap = pow_cap_arg (pargs.r.ret_ulong);
          break;
        case oSocket: socketopt = pargs.r.ret_str; break;
        default: pargs.err = ARGPARSE_PRINT_ERROR; break;
        }
    }
  gpgrt_argparse (NULL, &pargs, NULL);
  ks_helper_read_conf (&defaults, servers, &nservers);
  if (argc)
    {
      gpgrt_log_error (_("unexpected argument '%s'\n"), argv[0]);
      return 2;
    }
  if (defaults.opt.profile && !ks_profile_find (defaults.opt.profile))
    {
      gpgrt_log_error (_("unknown profile '%s'\n"), defaults.opt.profile);
      return 2;
    }
  if (nservers)
    defaults.opt.servers = servers;
  if (defaults.opt.homedir)
    {
      /* The flows use GPGME with the default home: point it there.  */
      setenv ("GNUPGHOME", defaults.opt.homedir, 1);
    }

  gpgme_check_version (NULL);
  assuan_set_gpg_err_source (GPG_ERR_SOURCE_DEFAULT);
  assuan_sock_init ();
  signal (SIGPIPE, SIG_IGN);

  switch (cmd)
    {
    case aServer:
      rc = run_pipe_server (&defaults);
      break;
    case aDaemon:
      rc = run_daemon (&defaults, socketopt);
      break;
    default:
      gpgrt_usage (1);
      rc = 2;
      break;
    }
  gpgrt_free (servers);
  return rc;
}
