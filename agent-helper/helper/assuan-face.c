/* assuan-face.c - the face a flow sees in keysafe-helper
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The ks_ui_t of a session turns the flows' callbacks into INQUIREs,
 * status lines and D lines; a command is begun and ended here (one at
 * a time, the flow's clear line on the ERR).  While a flow works, the
 * daemon's listening socket is watched so that a second client is
 * refused at once.
 */
#include <config.h>
#include <sys/stat.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "helper.h"

struct assuan_malloc_hooks ks_helper_secure_hooks =
  {
    ks_malloc_secure,
    ks_realloc,
    ks_free
  };

/* Progress lines of one step are sent at most this often, plus the
 * first and the last one of each step.  */
#define PROGRESS_INTERVAL_MS 100


static uint64_t
now_ms (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}


static void
refuse_waiting_clients (ks_session_t *s)
{
  struct pollfd pfd;
  int n, fd;

  if (s->listen_fd < 0)
    return;
  for (n = 0; n < 16; n++)
    {
      pfd.fd = s->listen_fd;
      pfd.events = POLLIN;
      pfd.revents = 0;
      if (poll (&pfd, 1, 0) <= 0 || !(pfd.revents & POLLIN))
        return;
      fd = accept (s->listen_fd, NULL, NULL);
      if (fd < 0)
        return;
      ks_helper_refuse (fd);
      if (s->defaults->opt.verbose)
        gpgrt_log_info (_("busy: refused another client\n"));
    }
}


void
ks_helper_refuse (int fd)
{
  gpg_error_t err = gpg_error (GPG_ERR_EBUSY);
  char line[256];
  int n;

  n = snprintf (line, sizeof line, "ERR %u %s <%s> - %s\n",
                err, gpg_strerror (err), gpg_strsource (err),
                _("keysafe-helper serves one client at a time"));
  if (n > 0 && (size_t)n < sizeof line)
    {
      /* A client that is already gone needs no answer.  */
      if (write (fd, line, n) < 0)
        n = 0;
    }
  close (fd);
}



/*
 * The face: ks_ui_t callbacks of a session.
 */

static void
ui_progress (void *arg, const char *what, uint64_t done, uint64_t total)
{
  ks_session_t *s = arg;
  uint64_t now = now_ms ();
  char line[128];
  int same = !strncmp (s->last_what, what, sizeof s->last_what - 1);
  int last = total && done >= total;

  if (same && !last && now - s->last_ms < PROGRESS_INTERVAL_MS)
    goto leave;
  if (same && done == s->last_done && !last)
    goto leave;
  /* gpg's format (doc/DETAILS): PROGRESS <what> <char> <cur> <total>.  */
  snprintf (line, sizeof line, "%.40s ? %llu %llu", what,
            (unsigned long long)done, (unsigned long long)total);
  assuan_write_status (s->ctx, "PROGRESS", line);
  snprintf (s->last_what, sizeof s->last_what, "%s", what);
  s->last_done = done;
  s->last_ms = now;
  s->progress_count++;

 leave:
  refuse_waiting_clients (s);
}


static void
ui_info (void *arg, const char *text)
{
  ks_session_t *s = arg;

  ks_helper_status (s->ctx, "INFO", "%s", text);
}


/* The flow's one clear line on failure: it goes at the end of the ERR
 * line (libassuan cuts it to 100 bytes) and, whole, in a status line.  */
void
ks_helper_ui_error (void *arg, const char *text)
{
  ks_session_t *s = arg;

  ks_helper_status (s->ctx, "ERROR_TEXT", "%s", text);
  gpgrt_free (s->errtext);
  s->errtext = gpgrt_strdup (text);
}


/* INQUIRE KEYWORD for at most MAXLEN bytes of text.  *R_VALUE gets a
 * NUL-terminated copy in secure memory (the Assuan context allocates in
 * secure memory), without one trailing newline.  Empty, NUL-containing
 * or oversized answers are refused.  */
static gpg_error_t
inquire_text (ks_session_t *s, const char *keyword, size_t maxlen,
              char **r_value)
{
  gpg_error_t err;
  unsigned char *buf = NULL;
  size_t len = 0;

  *r_value = NULL;
  assuan_begin_confidential (s->ctx);
  err = assuan_inquire (s->ctx, keyword, &buf, &len, maxlen);
  assuan_end_confidential (s->ctx);
  err = ks_helper_iomon_check (s, err);
  if (gpg_err_code (err) == GPG_ERR_ASS_TOO_MUCH_DATA)
    {
      /* libassuan has read and dropped the rest, up to the END.  */
      err = assuan_set_error (s->ctx, gpg_error (GPG_ERR_TOO_LARGE),
                              _("the inquired value is too long"));
      goto leave;
    }
  if (err)
    goto leave;
  /* The value is its first line, without a CR before the LF, exactly
   * as keysafe's --passphrase-fd/-file read it (gpg's --passphrase-file
   * reads one line): a file written with echo, or on Windows, and sent
   * with /definqfile gives the same name and password as through the
   * command line.  */
  {
    unsigned char *lf = memchr (buf, '\n', len);

    if (lf)
      {
        ks_wipe (lf, len - (size_t)(lf - buf));
        len = (size_t)(lf - buf);
      }
    if (len && buf[len - 1] == '\r')
      buf[--len] = 0;
  }
  if (!len)
    {
      err = gpg_error (!strcmp (keyword, "PASSWORD")
                       ? GPG_ERR_NO_PASSPHRASE : GPG_ERR_NO_DATA);
      goto leave;
    }
  if (memchr (buf, 0, len))
    {
      err = gpg_error (GPG_ERR_INV_VALUE);
      goto leave;
    }
  *r_value = (char *)buf;
  buf = NULL;

 leave:
  if (buf)
    ks_free_secret (buf, len);
  return err;
}


static gpg_error_t
ui_get_name (void *arg, const char *prompt, char **r_name)
{
  ks_session_t *s = arg;

  *r_name = NULL;
  /* With OPTION name= the flow asks only when that name was taken;
   * without, the first question is the plain one.  A taken name in
   * batch mode ends the command.  */
  if ((s->name || s->name_asks++) && s->batch)
    return gpg_error (GPG_ERR_CANCELED);
  if (prompt)
    ks_helper_status (s->ctx, "INFO", "%s", prompt);
  return inquire_text (s, "NAME", KS_HELPER_MAX_NAME, r_name);
}


static gpg_error_t
ui_get_password (void *arg, const char *prompt, int confirm, char **r_pw)
{
  ks_session_t *s = arg;

  *r_pw = NULL;
  if (s->pinentry && !s->batch)
    return ks_agent_get_passphrase (s->defaults->opt.homedir, prompt,
                                    _("Password:"), confirm, r_pw);
  /* A program answers the inquiry; asking it twice proves nothing.  */
  return inquire_text (s, "PASSWORD", KS_HELPER_MAX_PASSWORD, r_pw);
}


static gpg_error_t
ui_put_secret (void *arg, const uint8_t *data, size_t len)
{
  ks_session_t *s = arg;

  return assuan_send_data (s->ctx, data, len);
}


void
ks_helper_make_ui (ks_session_t *s, ks_ui_t *ui)
{
  memset (ui, 0, sizeof *ui);
  ui->arg = s;
  ui->progress = ui_progress;
  ui->info = ui_info;
  ui->get_name = ui_get_name;
  ui->get_password = ui_get_password;
  ui->put_secret = ui_put_secret;
  ui->error = ks_helper_ui_error;
}


void
ks_helper_make_options (ks_session_t *s, ks_options_t *opt)
{
  const ks_helper_defaults_t *d = s->defaults;

  *opt = d->opt;
  if (s->profile)
    opt->profile = s->profile;
  if (s->servers_set)
    {
      /* Locations given explicitly replace those of the records.  */
      opt->servers = (const char **)s->servers;
      opt->no_records = 1;
    }
  opt->batch = s->batch;
  opt->name = s->name;
  /* With pinentry a person answers; an INQUIRE is answered by a program,
   * which asks for more tries with OPTION password-tries.  */
  opt->password_tries = s->password_tries_set ? s->password_tries
                        : (s->pinentry && !s->batch) ? 2 : 0;
}


/* Start and end a command: one at a time, progress state cleared.  */
gpg_error_t
ks_helper_begin_command (ks_session_t *s)
{
  const char *home = s->defaults->opt.homedir ? s->defaults->opt.homedir
                                               : getenv ("GNUPGHOME");
  struct stat st;

  if (s->busy)
    return assuan_set_error (s->ctx, gpg_error (GPG_ERR_ASS_NESTED_COMMANDS),
                             _("another command is running"));
  /* Before the long work, not after it: the import at the end needs
   * the home.  Unset means GnuPG's default, which gpg creates.  */
  if (home && *home && (stat (home, &st) || !S_ISDIR (st.st_mode)))
    {
      /* libassuan keeps the pointer: the session owns the text.  */
      gpgrt_free (s->errtext);
      s->errtext = gpgrt_bsprintf (_("the GnuPG home directory '%s' does"
                                     " not exist"), home);
      return assuan_set_error (s->ctx, gpg_error (GPG_ERR_ENOENT),
                               s->errtext ? s->errtext : "");
    }
  s->busy = 1;
  s->name_asks = 0;
  gpgrt_free (s->errtext);
  s->errtext = NULL;
  s->progress_count = 0;
  s->last_what[0] = 0;
  s->last_done = 0;
  s->last_ms = 0;
  return 0;
}


gpg_error_t
ks_helper_end_command (ks_session_t *s, gpg_error_t err)
{
  gpg_error_t err2;

  s->busy = 0;
  /* Flush pending D lines before the OK.  */
  err2 = assuan_send_data (s->ctx, NULL, 0);
  /* libassuan keeps the pointer: ERRTEXT lives until the next command. */
  if (err && s->errtext)
    err = assuan_set_error (s->ctx, err, s->errtext);
  return err ? err : err2;
}


