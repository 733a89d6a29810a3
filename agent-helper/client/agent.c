/* agent.c - asking for a password through gpg-agent's pinentry
 * Copyright (C) 2026 The keysafe authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * See agent.h for the contract.  The Assuan context lives in libgcrypt
 * secure memory (malloc hooks), because libassuan keeps the last line it
 * read - the D line carrying the password - in the context itself;
 * gcry_free wipes secure memory when the context is released.
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

static struct assuan_malloc_hooks secure_hooks =
  {
    gcry_malloc_secure,
    gcry_realloc,
    gcry_free
  };


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


gpg_error_t
ks_agent_gpgconf_dir (const char *homedir, const char *what, char **r_path)
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


/* Tell the agent where the user is, so pinentry shows up there.  A
 * failure of any single option is harmless (the agent may not know it).  */
static void
send_session_options (assuan_context_t ctx)
{
  static const char *const envvars[] =
    { "XAUTHORITY", "WAYLAND_DISPLAY", "XDG_SESSION_TYPE",
      "DBUS_SESSION_BUS_ADDRESS", "PINENTRY_USER_DATA" };
  char line[ASSUAN_LINELENGTH];
  const char *s;
  size_t i;

  s = getenv ("GPG_TTY");
  if (!s && isatty (0))
    s = ttyname (0);
  if (s && strlen (s) < 512)
    {
      snprintf (line, sizeof line, "OPTION ttyname=%s", s);
      assuan_transact (ctx, line, NULL, NULL, NULL, NULL, NULL, NULL);
    }
  s = getenv ("TERM");
  if (s && *s && strlen (s) < 512)
    {
      snprintf (line, sizeof line, "OPTION ttytype=%s", s);
      assuan_transact (ctx, line, NULL, NULL, NULL, NULL, NULL, NULL);
    }
  s = getenv ("DISPLAY");
  if (s && *s && strlen (s) < 512)
    {
      snprintf (line, sizeof line, "OPTION display=%s", s);
      assuan_transact (ctx, line, NULL, NULL, NULL, NULL, NULL, NULL);
    }
  for (i = 0; i < KS_DIM (envvars); i++)
    {
      s = getenv (envvars[i]);
      if (s && *s && strlen (s) < 512)
        {
          snprintf (line, sizeof line, "OPTION putenv=%s=%s", envvars[i], s);
          assuan_transact (ctx, line, NULL, NULL, NULL, NULL, NULL, NULL);
        }
    }
  s = setlocale (LC_CTYPE, NULL);
  if (s && strlen (s) < 256)
    {
      snprintf (line, sizeof line, "OPTION lc-ctype=%s", s);
      assuan_transact (ctx, line, NULL, NULL, NULL, NULL, NULL, NULL);
    }
  s = setlocale (LC_MESSAGES, NULL);
  if (s && strlen (s) < 256)
    {
      snprintf (line, sizeof line, "OPTION lc-messages=%s", s);
      assuan_transact (ctx, line, NULL, NULL, NULL, NULL, NULL, NULL);
    }
}


/* Connect to the agent of HOMEDIR, starting it if needed.  */
static gpg_error_t
connect_agent (const char *homedir, assuan_context_t *r_ctx)
{
  gpg_error_t err;
  assuan_context_t ctx = NULL;
  char *sockname = NULL;

  *r_ctx = NULL;
  err = ks_agent_gpgconf_dir (homedir, "agent-socket", &sockname);
  if (err)
    {
      err = gpg_error (GPG_ERR_NO_AGENT);
      goto leave;
    }
  err = assuan_new_ext (&ctx, GPG_ERR_SOURCE_DEFAULT, &secure_hooks,
                        NULL, NULL);
  if (err)
    goto leave;
  err = assuan_socket_connect (ctx, sockname, ASSUAN_INVALID_PID, 0);
  if (err)
    {
      /* Not running: gpgconf --launch starts it and waits until its
       * socket answers.  */
      if (run_gpgconf (homedir, "--launch", "gpg-agent", NULL)
          || assuan_socket_connect (ctx, sockname, ASSUAN_INVALID_PID, 0))
        {
          err = gpg_error (GPG_ERR_NO_AGENT);
          goto leave;
        }
      err = 0;
    }
  assuan_transact (ctx, "RESET", NULL, NULL, NULL, NULL, NULL, NULL);
  send_session_options (ctx);
  *r_ctx = ctx;
  ctx = NULL;

 leave:
  assuan_release (ctx);
  gpgrt_free (sockname);
  return err;
}


static gpg_error_t
collect_cb (void *opaque, const void *buffer, size_t length)
{
  ks_buf_t *buf = opaque;

  return ks_buf_append (buf, buffer, length);
}


gpg_error_t
ks_agent_get_passphrase_err (const char *homedir, const char *errtext,
                             const char *desc, const char *prompt,
                             int repeat, char **r_pw)
{
  gpg_error_t err;
  assuan_context_t ctx = NULL;
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
  assuan_begin_confidential (ctx);
  err = assuan_transact (ctx, line, collect_cb, buf, NULL, NULL, NULL, NULL);
  assuan_end_confidential (ctx);
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
  pw = gcry_malloc_secure (buf->len + 1);
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
  assuan_release (ctx);
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
