/* assuan-cmds.c - the Assuan commands of keysafe-helper
 * Copyright (C) 2026 The keysafe authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Each command is a cmd_X (ctx, line) with its help text hlp_X, all
 * registered from one table, as in GnuPG's agent/command.c.  The flows
 * (flow.h) do the work; this file is the face that turns their questions
 * into INQUIREs (or gpg-agent pinentry prompts), their progress into
 * "S PROGRESS" lines in gpg's format and their output into D lines.
 * doc/keysafe-helper.1 documents every command, status line and error.
 */
#include <config.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "helper.h"

struct assuan_malloc_hooks ks_helper_secure_hooks =
  {
    gcry_malloc_secure,
    gcry_realloc,
    gcry_free
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


/* Is "--NAME" one of the options at the start of LINE?  Options end at
 * the first word not starting with "--" or at a lone "--".  */
static int
has_option (const char *line, const char *name)
{
  size_t n = strlen (name);
  const char *s = line;

  while (*s == ' ' || *s == '\t')
    s++;
  while (s[0] == '-' && s[1] == '-')
    {
      if (s[2] == ' ' || s[2] == '\t' || !s[2])
        return 0;
      if (!strncmp (s + 2, name, n)
          && (!s[2 + n] || s[2 + n] == ' ' || s[2 + n] == '\t'))
        return 1;
      while (*s && *s != ' ' && *s != '\t')
        s++;
      while (*s == ' ' || *s == '\t')
        s++;
    }
  return 0;
}


/* The first word after the options of LINE.  */
static char *
skip_options (char *line)
{
  char *s = line;

  while (*s == ' ' || *s == '\t')
    s++;
  while (s[0] == '-' && s[1] == '-')
    {
      int dashdash = (s[2] == ' ' || s[2] == '\t' || !s[2]);

      while (*s && *s != ' ' && *s != '\t')
        s++;
      while (*s == ' ' || *s == '\t')
        s++;
      if (dashdash)
        break;
    }
  return s;
}


/* Reject an option the command does not know.  KNOWN is a
 * NULL-terminated list of names without dashes.  */
static gpg_error_t
check_options (assuan_context_t ctx, const char *line,
               const char *const *known)
{
  const char *s = line;
  size_t i, n;

  while (*s == ' ' || *s == '\t')
    s++;
  while (s[0] == '-' && s[1] == '-')
    {
      if (s[2] == ' ' || s[2] == '\t' || !s[2])
        return 0;
      n = strcspn (s + 2, " \t");
      for (i = 0; known[i]; i++)
        if (strlen (known[i]) == n && !strncmp (s + 2, known[i], n))
          break;
      if (!known[i])
        return assuan_set_error (ctx, gpg_error (GPG_ERR_UNKNOWN_OPTION),
                                 _("unknown option of this command"));
      s += 2 + n;
      while (*s == ' ' || *s == '\t')
        s++;
    }
  return 0;
}


/* Copy the single word WORD (a key id) out of the argument part of a
 * command, refusing more than one word.  */
static gpg_error_t
get_keyid_arg (assuan_context_t ctx, char *args, int required,
               const char **r_keyid)
{
  size_t n;

  *r_keyid = NULL;
  n = strcspn (args, " \t");
  if (!n)
    {
      if (required)
        return assuan_set_error (ctx, gpg_error (GPG_ERR_ASS_PARAMETER),
                                 _("KEYID expected"));
      return 0;
    }
  if (args[n + strspn (args + n, " \t")])
    return assuan_set_error (ctx, gpg_error (GPG_ERR_ASS_PARAMETER),
                             _("only one KEYID expected"));
  if (n > 256)
    return assuan_set_error (ctx, gpg_error (GPG_ERR_ASS_PARAMETER),
                             _("KEYID too long"));
  args[n] = 0;
  *r_keyid = args;
  return 0;
}


/* In daemon mode: refuse clients that connect while we are busy.  */
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
static void
ui_error (void *arg, const char *text)
{
  ks_session_t *s = arg;

  ks_helper_status (s->ctx, "ERROR_TEXT", "%s", text);
  gpgrt_free (s->errtext);
  s->errtext = gpgrt_strdup (text);
}


/* INQUIRE KEYWORD for at most MAXLEN bytes of text.  *R_VALUE gets a
 * NUL-terminated copy in secure memory (the Assuan context allocates in
 * secure memory).  Empty, NUL-containing or oversized answers are
 * refused.  */
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
  if (gpg_err_code (err) == GPG_ERR_ASS_TOO_MUCH_DATA)
    {
      /* libassuan has read and dropped the rest, up to the END.  */
      err = assuan_set_error (s->ctx, gpg_error (GPG_ERR_TOO_LARGE),
                              _("the inquired value is too long"));
      goto leave;
    }
  if (err)
    goto leave;
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


static void
make_ui (ks_session_t *s, ks_ui_t *ui)
{
  memset (ui, 0, sizeof *ui);
  ui->arg = s;
  ui->progress = ui_progress;
  ui->info = ui_info;
  ui->get_name = ui_get_name;
  ui->get_password = ui_get_password;
  ui->put_secret = ui_put_secret;
  ui->error = ui_error;
}


static void
make_options (ks_session_t *s, ks_options_t *opt)
{
  const ks_helper_defaults_t *d = s->defaults;

  *opt = d->opt;
  if (s->profile)
    opt->profile = s->profile;
  if (s->servers_set)
    opt->servers = (const char **)s->servers;
  opt->batch = s->batch;
  opt->name = s->name;
}


/* Start and end a command: one at a time, progress state cleared.  */
static gpg_error_t
begin_command (ks_session_t *s)
{
  if (s->busy)
    return assuan_set_error (s->ctx, gpg_error (GPG_ERR_ASS_NESTED_COMMANDS),
                             _("another command is running"));
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


static gpg_error_t
end_command (ks_session_t *s, gpg_error_t err)
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



/*
 * Commands
 */

static const char hlp_backup[] =
  "BACKUP [--bind-keyid] KEYID\n"
  "BACKUP [--bind-keyid] --inquire [KEYID]\n"
  "\n"
  "Back up the secret key KEYID, exported from GnuPG (minimal, secret),\n"
  "or with --inquire the bytes answered to INQUIRE SECRET.  The item\n"
  "name comes from OPTION name= or INQUIRE NAME, the password from\n"
  "INQUIRE PASSWORD or, with OPTION password-mode=pinentry, from\n"
  "gpg-agent's pinentry.  --bind-keyid binds the shard names to KEYID.\n"
  "Status: PROGRESS <what> ? <cur> <total>, INFO <text>, BACKUP_SERVER,\n"
  "BACKUP_RESULT (keysafe-helper(1)).";
static gpg_error_t
do_backup (assuan_context_t ctx, char *line)
{
  static const char *const known[] = { "bind-keyid", "inquire", NULL };
  ks_session_t *s = assuan_get_pointer (ctx);
  gpg_error_t err;
  ks_options_t opt;
  ks_ui_t ui;
  int use_inquire;
  const char *keyid;
  unsigned char *secret = NULL;
  size_t secretlen = 0;
  ks_backup_result_t result;

  memset (&result, 0, sizeof result);
  err = check_options (ctx, line, known);
  if (err)
    return err;
  use_inquire = has_option (line, "inquire");
  err = get_keyid_arg (ctx, skip_options (line),
                       !use_inquire || has_option (line, "bind-keyid"),
                       &keyid);
  if (err)
    return err;
  err = begin_command (s);
  if (err)
    return err;

  make_options (s, &opt);
  make_ui (s, &ui);
  opt.gpgkeyid = keyid;
  opt.bind_keyid = has_option (line, "bind-keyid");
  if (use_inquire)
    {
      assuan_begin_confidential (ctx);
      err = assuan_inquire (ctx, "SECRET", &secret, &secretlen,
                            KS_MAX_SECRET);
      assuan_end_confidential (ctx);
      if (gpg_err_code (err) == GPG_ERR_ASS_TOO_MUCH_DATA)
        {
          err = assuan_set_error (ctx, gpg_error (GPG_ERR_TOO_LARGE),
                                  _("the secret is too large"));
        }
      else if (!err && !secretlen)
        err = gpg_error (GPG_ERR_NO_DATA);
      if (err)
        goto leave;
    }
  err = ks_flow_backup (&opt, &ui, secret, secretlen, &result);
  ks_helper_status_backup (s, &result);
  ks_backup_result_release (&result);

 leave:
  if (secret)
    ks_free_secret (secret, secretlen);
  return end_command (s, err);
}


/* Common start of RESTORE and CHECK: check the options of LINE
 * against KNOWN, take the optional KEYID (binding the names to it when
 * given), begin the command and fill OPT and UI for the flow.  */
static gpg_error_t
begin_item_command (assuan_context_t ctx, char *line,
                    const char *const *known,
                    ks_options_t *opt, ks_ui_t *ui)
{
  ks_session_t *s = assuan_get_pointer (ctx);
  gpg_error_t err;
  const char *keyid;

  err = check_options (ctx, line, known);
  if (!err)
    err = get_keyid_arg (ctx, skip_options (line), 0, &keyid);
  if (!err)
    err = begin_command (s);
  if (err)
    return err;
  make_options (s, opt);
  make_ui (s, ui);
  opt->gpgkeyid = keyid;
  opt->bind_keyid = !!keyid;
  return 0;
}


static const char hlp_restore[] =
  "RESTORE [--stdout] [KEYID]\n"
  "\n"
  "Restore the secret stored under the item name (OPTION name= or\n"
  "INQUIRE NAME) and the password (INQUIRE PASSWORD or pinentry).\n"
  "Every known profile is tried, newest first, unless OPTION profile=\n"
  "pins one.  Without --stdout the secret is imported into GnuPG and\n"
  "its fingerprint told in an IMPORTED status line; with --stdout it is\n"
  "sent as D lines.  KEYID is needed if the backup was bound to it.\n"
  "Status: LOCATION per server, RESTORE_RESULT.";
static gpg_error_t
do_restore (assuan_context_t ctx, char *line)
{
  static const char *const known[] = { "stdout", NULL };
  ks_fetch_result_t result;
  ks_options_t opt;
  ks_ui_t ui;
  gpg_error_t err;

  err = begin_item_command (ctx, line, known, &opt, &ui);
  if (err)
    return err;
  err = ks_flow_restore (&opt, &ui, has_option (line, "stdout"), &result);
  ks_helper_status_restore (assuan_get_pointer (ctx), &result);
  ks_fetch_result_release (&result);
  return end_command (assuan_get_pointer (ctx), err);
}


static const char hlp_check[] =
  "CHECK [KEYID]\n"
  "\n"
  "Are the shards of the item (name and password as for RESTORE) still\n"
  "stored?  The result of each server comes as a LOCATION status line,\n"
  "the outcome as CHECK_RESULT; the command fails if a shard is missing.";
static gpg_error_t
do_check (assuan_context_t ctx, char *line)
{
  static const char *const known[] = { NULL };
  ks_fetch_result_t result;
  ks_options_t opt;
  ks_ui_t ui;
  gpg_error_t err;

  err = begin_item_command (ctx, line, known, &opt, &ui);
  if (err)
    return err;
  err = ks_flow_check (&opt, &ui, &result);
  ks_helper_status_check (assuan_get_pointer (ctx), &result);
  ks_fetch_result_release (&result);
  return end_command (assuan_get_pointer (ctx), err);
}


/* ks_ui_t whose info lines become status lines SERVER or D lines.  */
static void
servers_status_cb (void *arg, const char *text)
{
  ks_session_t *s = arg;

  ks_helper_status (s->ctx, "SERVER", "%s", text);
}

static void
servers_data_cb (void *arg, const char *text)
{
  ks_session_t *s = arg;

  assuan_send_data (s->ctx, text, strlen (text));
  assuan_send_data (s->ctx, "\n", 1);
}

static gpg_error_t
list_servers (ks_session_t *s, int as_data)
{
  ks_options_t opt;
  ks_ui_t ui;

  make_options (s, &opt);
  memset (&ui, 0, sizeof ui);
  ui.arg = s;
  ui.info = as_data ? servers_data_cb : servers_status_cb;
  ui.error = ui_error;
  return ks_flow_servers (&opt, &ui);
}


static const char hlp_servers[] =
  "SERVERS\n"
  "\n"
  "List the servers this session would use, in restore order, one\n"
  "status line each: SERVER <category> <url> [placeholder] [label].";
static gpg_error_t
do_servers (assuan_context_t ctx, char *line)
{
  ks_session_t *s = assuan_get_pointer (ctx);
  gpg_error_t err;

  if (*line)
    return assuan_set_error (ctx, gpg_error (GPG_ERR_ASS_PARAMETER),
                             _("SERVERS takes no argument"));
  err = begin_command (s);
  if (err)
    return err;
  err = list_servers (s, 0);
  return end_command (s, err);
}


static const char hlp_getinfo[] =
  "GETINFO WHAT\n"
  "\n"
  "Information as D lines; WHAT is one of:\n"
  "  version   - the version of the program\n"
  "  pid       - the process id of the server\n"
  "  profiles  - the known profiles, newest first, with their costs\n"
  "  servers   - the server list, as the SERVERS command";
static gpg_error_t
do_getinfo (assuan_context_t ctx, char *line)
{
  ks_session_t *s = assuan_get_pointer (ctx);
  gpg_error_t err = 0;
  char buf[256];
  unsigned int i;

  if (!strcmp (line, "version"))
    err = assuan_send_data (ctx, PACKAGE_VERSION, strlen (PACKAGE_VERSION));
  else if (!strcmp (line, "pid"))
    {
      snprintf (buf, sizeof buf, "%lu", (unsigned long)getpid ());
      err = assuan_send_data (ctx, buf, strlen (buf));
    }
  else if (!strcmp (line, "profiles"))
    {
      for (i = 0; !err && i < ks_profile_count (); i++)
        {
          const ks_profile_t *p = ks_profile_nth (i);

          snprintf (buf, sizeof buf,
                    "%s name=%u:%u key=%u:%u puzzle=%u:%u:%u shares=%u:%u"
                    " object=%zu\n",
                    p->name,
                    (unsigned int)p->name_cost.m_cost,
                    (unsigned int)p->name_cost.t_cost,
                    (unsigned int)p->key_cost.m_cost,
                    (unsigned int)p->key_cost.t_cost,
                    (unsigned int)p->puzzle_cost.m_cost,
                    (unsigned int)p->puzzle_cost.t_cost,
                    p->puzzle_bits, p->threshold, p->shares,
                    p->object_size);
          err = assuan_send_data (ctx, buf, strlen (buf));
        }
    }
  else if (!strcmp (line, "servers"))
    {
      err = begin_command (s);
      if (err)
        return err;
      err = end_command (s, list_servers (s, 1));
    }
  else if (!*line)
    err = assuan_set_error (ctx, gpg_error (GPG_ERR_ASS_PARAMETER),
                            _("GETINFO needs an argument"));
  else
    err = assuan_set_error (ctx, gpg_error (GPG_ERR_ASS_PARAMETER),
                            _("unknown value for WHAT"));
  return err;
}



/* The servers run libassuan's assuan_process_next loop, in which a
 * command handler finishes its own command with assuan_process_done
 * (that writes the OK or ERR line).  Each cmd_X does that for its do_X.  */
#define KS_DEFINE_CMD(x)                                              \
  static gpg_error_t                                                  \
  cmd_##x (assuan_context_t ctx, char *line)                          \
  {                                                                   \
    return assuan_process_done (ctx, do_##x (ctx, line));             \
  }
KS_DEFINE_CMD (backup)
KS_DEFINE_CMD (restore)
KS_DEFINE_CMD (check)
KS_DEFINE_CMD (servers)
KS_DEFINE_CMD (getinfo)


/*
 * Registration
 */

gpg_error_t
ks_helper_register (assuan_context_t ctx, ks_session_t *session)
{
  static const struct
  {
    const char *name;
    assuan_handler_t handler;
    const char *help;
  } table[] =
    {
      { "BACKUP",  cmd_backup,  hlp_backup },
      { "RESTORE", cmd_restore, hlp_restore },
      { "CHECK",   cmd_check,   hlp_check },
      { "SERVERS", cmd_servers, hlp_servers },
      { "GETINFO", cmd_getinfo, hlp_getinfo },
      { NULL }
    };
  gpg_error_t err;
  int i;

  for (i = 0; table[i].name; i++)
    {
      err = assuan_register_command (ctx, table[i].name, table[i].handler,
                                     table[i].help);
      if (err)
        return err;
    }
  err = assuan_register_option_handler (ctx, ks_helper_option_handler);
  if (!err)
    err = assuan_register_reset_notify (ctx, ks_helper_reset_notify);
  if (err)
    return err;
  assuan_set_hello_line (ctx, "keysafe-helper " PACKAGE_VERSION
                         " at your service");
  session->ctx = ctx;
  assuan_set_pointer (ctx, session);
  return 0;
}
