/* agent.c - asking for a password through gpg-agent's pinentry
 * Copyright (C) 2026 The keysafe authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * See agent.h for the contract.  GPGME does the talking: it knows where
 * the agent's socket is (gpgme_get_dirinfo) and its Assuan engine
 * (GPGME_PROTOCOL_ASSUAN, in gpg-agent mode) connects, passes the
 * display, tty and locale, and runs GET_PASSPHRASE.  The password comes
 * through the data callback straight into a secure ks_buf.  GPGME's
 * libassuan context is ordinary memory that GPGME allocates, so the
 * last D line stays there until the context is released; keysafe cannot
 * give GPGME secure allocators.  gpgconf is run by hand only for what
 * GPGME has no call for: starting the agent, and the directories of a
 * GnuPG home other than the default one.
 */
#include <config.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#include <assuan.h>
#include <gpgme.h>

#include "agent.h"

/* What gpgconf prints for one --list-dirs name fits easily in this.  */
#define GPGCONF_OUT_MAX 4096

/* The gpgconf program: GPGME knows where GnuPG is installed.  */
static const char *
gpgconf_program (void)
{
  const char *s;

  gpgme_check_version (NULL);
  s = gpgme_get_dirinfo ("gpgconf-name");
  return (s && *s) ? s : "gpgconf";
}


/* Run gpgconf [--homedir HOMEDIR] ARG1 [ARG2] and, when R_OUT is not
 * NULL, return its first output line (malloc'd) there.  */
static gpg_error_t
run_gpgconf (const char *homedir, const char *arg1, const char *arg2,
             char **r_out)
{
  gpg_error_t err = 0;
  const char *argv[7];
  int argc = 0;
  int fds[2] = { -1, -1 };
  pid_t pid;
  char *out = NULL;
  size_t outlen = 0;
  int status;
  const char *pgm = gpgconf_program ();

  if (r_out)
    *r_out = NULL;

  argv[argc++] = "gpgconf";
  if (homedir)
    {
      argv[argc++] = "--homedir";
      argv[argc++] = homedir;
    }
  argv[argc++] = arg1;
  if (arg2)
    argv[argc++] = arg2;
  argv[argc] = NULL;

  out = malloc (GPGCONF_OUT_MAX + 1);
  if (!out || pipe (fds))
    {
      err = gpg_error_from_syserror ();
      goto leave;
    }
  pid = fork ();
  if (pid == (pid_t)-1)
    {
      err = gpg_error_from_syserror ();
      goto leave;
    }
  if (!pid)
    {
      int devnull = open ("/dev/null", O_RDWR);

      if (devnull != -1)
        {
          dup2 (devnull, 0);
          dup2 (devnull, 2);
        }
      dup2 (fds[1], 1);
      execvp (pgm, (char *const *)argv);
      _exit (127);
    }
  close (fds[1]);
  fds[1] = -1;
  for (;;)
    {
      ssize_t n = read (fds[0], out + outlen, GPGCONF_OUT_MAX - outlen);

      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        break;
      outlen += n;
      if (outlen == GPGCONF_OUT_MAX)
        break;
    }
  close (fds[0]);
  fds[0] = -1;
  while (waitpid (pid, &status, 0) == (pid_t)-1)
    if (errno != EINTR)
      {
        err = gpg_error_from_syserror ();
        goto leave;
      }
  if (!WIFEXITED (status) || WEXITSTATUS (status))
    {
      err = gpg_error (GPG_ERR_NO_AGENT);
      goto leave;
    }
  out[outlen] = 0;
  out[strcspn (out, "\r\n")] = 0;
  if (r_out)
    {
      if (!*out)
        {
          err = gpg_error (GPG_ERR_NOT_FOUND);
          goto leave;
        }
      *r_out = out;
      out = NULL;
    }

 leave:
  if (fds[0] != -1)
    close (fds[0]);
  if (fds[1] != -1)
    close (fds[1]);
  free (out);
  return err;
}


/* True when HOMEDIR is the home GPGME's directory information is of:
 * none given, or the GNUPGHOME it saw.  */
static int
is_default_home (const char *homedir)
{
  const char *env = getenv ("GNUPGHOME");

  return !homedir || !*homedir || (env && !strcmp (env, homedir));
}


/* gpgconf --homedir HOMEDIR --list-dirs WHAT, %-unescaped.  */
static gpg_error_t
gpgconf_dir (const char *homedir, const char *what, char **r_path)
{
  gpg_error_t err;
  char *out = NULL;
  char *res = NULL;
  const char *s;
  char *d;

  *r_path = NULL;
  err = run_gpgconf (homedir, "--list-dirs", what, &out);
  if (err)
    goto leave;
  /* gpgconf percent-escapes some characters (":" at least).  */
  res = gpgrt_malloc (strlen (out) + 1);
  if (!res)
    {
      err = gpg_error_from_syserror ();
      goto leave;
    }
  for (s = out, d = res; *s; s++)
    {
      if (*s == '%' && s[1] && s[2])
        {
          char hex[3] = { s[1], s[2], 0 };

          *d++ = (char)strtoul (hex, NULL, 16);
          s += 2;
        }
      else
        *d++ = *s;
    }
  *d = 0;
  *r_path = res;
  res = NULL;

 leave:
  free (out);
  gpgrt_free (res);
  return err;
}


gpg_error_t
ks_agent_gpgconf_dir (const char *homedir, const char *what, char **r_path)
{
  const char *s;

  *r_path = NULL;
  /* GPGME asks gpgconf once per process and knows only the default
   * home; another --homedir needs gpgconf run for it.  */
  if (!is_default_home (homedir))
    return gpgconf_dir (homedir, what, r_path);
  gpgme_check_version (NULL);
  s = gpgme_get_dirinfo (what);
  if (!s || !*s)
    return gpg_error (GPG_ERR_NOT_FOUND);
  *r_path = gpgrt_strdup (s);
  return *r_path ? 0 : gpg_error_from_syserror ();
}


/* Percent-plus escape S for a GET_PASSPHRASE argument into a new
 * string; NULL or an empty S gives "X" (the agent's "none").  */
static char *
escape_arg (const char *s)
{
  char *res, *d;

  if (!s || !*s)
    return gpgrt_strdup ("X");
  res = gpgrt_malloc (3 * strlen (s) + 1);
  if (!res)
    return NULL;
  for (d = res; *s; s++)
    {
      unsigned char c = *s;

      if (c == ' ')
        *d++ = '+';
      else if (c < 0x20 || c == '%' || c == '+' || c == '"' || c == 0x7f)
        {
          snprintf (d, 4, "%%%02X", c);
          d += 3;
        }
      else
        *d++ = c;
    }
  *d = 0;
  return res;
}


/* One Assuan command on CTX; the D lines go to BUF when not NULL.  */
static gpg_error_t
transact (gpgme_ctx_t ctx, const char *line, ks_buf_t *buf);

/* Tell the agent where the user is, so pinentry shows up there.  GPGME
 * passes DISPLAY, GPG_TTY (or the tty of stdout), TERM and the locale;
 * these are the rest.  A failure of any single option is harmless (the
 * agent may not know it).  */
static void
send_session_options (gpgme_ctx_t ctx)
{
  static const char *const envvars[] =
    { "XAUTHORITY", "WAYLAND_DISPLAY", "XDG_SESSION_TYPE",
      "DBUS_SESSION_BUS_ADDRESS", "PINENTRY_USER_DATA" };
  char line[ASSUAN_LINELENGTH];
  const char *s;
  size_t i;

  /* GPGME looks at stdout only; a filter's tty is often stdin.  */
  s = getenv ("GPG_TTY");
  if (!s && !isatty (1) && isatty (0))
    s = ttyname (0);
  if (s && strlen (s) < 512)
    {
      snprintf (line, sizeof line, "OPTION ttyname=%s", s);
      transact (ctx, line, NULL);
    }
  for (i = 0; i < KS_DIM (envvars); i++)
    {
      s = getenv (envvars[i]);
      if (s && *s && strlen (s) < 512)
        {
          snprintf (line, sizeof line, "OPTION putenv=%s=%s", envvars[i], s);
          transact (ctx, line, NULL);
        }
    }
}


static gpg_error_t
data_cb (void *opaque, const void *data, size_t length)
{
  ks_buf_t *buf = opaque;

  if (!data)
    return 0;  /* END */
  return ks_buf_append (buf, data, length);
}


/* The agent may inquire while pinentry runs: PINENTRY_LAUNCHED gets an
 * empty answer; anything else (a loopback PASSPHRASE: keysafe has no
 * password to give, it is asking for one) is cancelled.  */
static gpg_error_t
inquire_cb (void *opaque, const char *name, const char *args,
            gpgme_data_t *r_data)
{
  (void)opaque;
  (void)args;
  if (!name)
    return 0;  /* GPGME is done with *R_DATA */
  *r_data = NULL;
  if (!strcmp (name, "PINENTRY_LAUNCHED"))
    return 0;
  return gpg_error (GPG_ERR_ASS_CANCELED);
}


static gpg_error_t
transact (gpgme_ctx_t ctx, const char *line, ks_buf_t *buf)
{
  gpgme_error_t err, op_err = 0;

  err = gpgme_op_assuan_transact_ext (ctx, line, buf ? data_cb : NULL, buf,
                                      inquire_cb, NULL, NULL, NULL, &op_err);
  return err ? err : op_err;
}


/* A GPGME context for the agent at SOCKNAME, connected (RESET).  */
static gpg_error_t
open_agent (const char *sockname, gpgme_ctx_t *r_ctx)
{
  gpg_error_t err;
  gpgme_ctx_t ctx = NULL;
  const char *s;

  *r_ctx = NULL;
  err = gpgme_new (&ctx);
  if (!err)
    err = gpgme_set_protocol (ctx, GPGME_PROTOCOL_ASSUAN);
  /* "!GPG_AGENT" puts GPGME's Assuan engine in gpg-agent mode: it sends
   * the session's display, tty and locale options on connecting.  */
  if (!err)
    err = gpgme_ctx_set_engine_info (ctx, GPGME_PROTOCOL_ASSUAN, sockname,
                                     "!GPG_AGENT");
  if (!err && (s = setlocale (LC_CTYPE, NULL)) && strlen (s) < 256)
    err = gpgme_set_locale (ctx, LC_CTYPE, s);
  if (!err && (s = setlocale (LC_MESSAGES, NULL)) && strlen (s) < 256)
    err = gpgme_set_locale (ctx, LC_MESSAGES, s);
  if (!err)
    err = transact (ctx, "RESET", NULL);
  if (!err)
    {
      *r_ctx = ctx;
      ctx = NULL;
    }
  gpgme_release (ctx);
  return err;
}


/* Connect to the agent of HOMEDIR, starting it if needed.  */
static gpg_error_t
connect_agent (const char *homedir, gpgme_ctx_t *r_ctx)
{
  gpg_error_t err;
  char *sockname = NULL;

  *r_ctx = NULL;
  err = ks_agent_gpgconf_dir (homedir, "agent-socket", &sockname);
  if (err)
    {
      err = gpg_error (GPG_ERR_NO_AGENT);
      goto leave;
    }
  if (open_agent (sockname, r_ctx))
    {
      /* Not running: gpgconf --launch starts it and waits until its
       * socket answers.  */
      if (run_gpgconf (homedir, "--launch", "gpg-agent", NULL)
          || open_agent (sockname, r_ctx))
        {
          err = gpg_error (GPG_ERR_NO_AGENT);
          goto leave;
        }
    }
  send_session_options (*r_ctx);

 leave:
  gpgrt_free (sockname);
  return err;
}


gpg_error_t
ks_agent_get_passphrase_err (const char *homedir, const char *errtext,
                             const char *desc, const char *prompt,
                             int repeat, char **r_pw)
{
  gpg_error_t err;
  gpgme_ctx_t ctx = NULL;
  ks_buf_t *buf = NULL;
  char *e_err = NULL, *e_prompt = NULL, *e_desc = NULL;
  char *line = NULL;
  char *pw = NULL;

  *r_pw = NULL;
  if (!desc)
    desc = _("Please enter the password of your keysafe backup.");
  if (!prompt)
    prompt = _("Password:");

  e_err = escape_arg (errtext);
  e_prompt = escape_arg (prompt);
  e_desc = escape_arg (desc);
  if (!e_err || !e_prompt || !e_desc)
    {
      err = gpg_error_from_syserror ();
      goto leave;
    }
  line = gpgrt_bsprintf ("GET_PASSPHRASE --data%s X %s %s %s",
                         repeat ? " --repeat=1" : "",
                         e_err, e_prompt, e_desc);
  if (!line)
    {
      err = gpg_error_from_syserror ();
      goto leave;
    }
  if (strlen (line) >= ASSUAN_LINELENGTH)
    {
      err = gpg_error (GPG_ERR_TOO_LARGE);
      goto leave;
    }

  err = ks_buf_new (KS_AGENT_MAX_PW, 1, &buf);
  if (err)
    goto leave;
  err = connect_agent (homedir, &ctx);
  if (err)
    goto leave;
  err = transact (ctx, line, buf);
  if (err)
    goto leave;
  if (!buf->len)
    {
      err = gpg_error (GPG_ERR_NO_PASSPHRASE);
      goto leave;
    }
  if (memchr (buf->data, 0, buf->len))
    {
      err = gpg_error (GPG_ERR_INV_PASSPHRASE);
      goto leave;
    }
  pw = ks_malloc_secure (buf->len + 1);
  if (!pw)
    {
      err = gpg_error_from_syserror ();
      goto leave;
    }
  memcpy (pw, buf->data, buf->len);
  pw[buf->len] = 0;
  *r_pw = pw;
  pw = NULL;

 leave:
  gpgme_release (ctx);
  ks_buf_free (buf);
  gpgrt_free (e_err);
  gpgrt_free (e_prompt);
  gpgrt_free (e_desc);
  gpgrt_free (line);
  return err;
}


gpg_error_t
ks_agent_get_passphrase (const char *homedir, const char *desc,
                         const char *prompt, int repeat, char **r_pw)
{
  return ks_agent_get_passphrase_err (homedir, NULL, desc, prompt, repeat,
                                      r_pw);
}
