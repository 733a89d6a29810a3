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
  err = ks_helper_begin_command (s);
  if (err)
    return err;

  ks_helper_make_options (s, &opt);
  ks_helper_make_ui (s, &ui);
  opt.gpgkeyid = keyid;
  opt.bind_keyid = has_option (line, "bind-keyid");
  if (use_inquire)
    {
      assuan_begin_confidential (ctx);
      err = assuan_inquire (ctx, "SECRET", &secret, &secretlen,
                            KS_MAX_SECRET);
      assuan_end_confidential (ctx);
      err = ks_helper_iomon_check (s, err);
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
  return ks_helper_end_command (s, err);
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
    err = ks_helper_begin_command (s);
  if (err)
    return err;
  ks_helper_make_options (s, opt);
  ks_helper_make_ui (s, ui);
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
/* RESTORE and CHECK: run the flow, send its result, end the command.  */
static gpg_error_t
run_item_command (assuan_context_t ctx, char *line,
                  const char *const *known, int restore)
{
  ks_session_t *s = assuan_get_pointer (ctx);
  ks_fetch_result_t result;
  ks_options_t opt;
  ks_ui_t ui;
  gpg_error_t err;

  err = begin_item_command (ctx, line, known, &opt, &ui);
  if (err)
    return err;
  if (restore)
    {
      err = ks_flow_restore (&opt, &ui, has_option (line, "stdout"),
                             &result);
      ks_helper_status_restore (s, &result);
    }
  else
    {
      err = ks_flow_check (&opt, &ui, &result);
      ks_helper_status_check (s, &result);
    }
  ks_fetch_result_release (&result);
  return ks_helper_end_command (s, err);
}

static gpg_error_t
do_restore (assuan_context_t ctx, char *line)
{
  static const char *const known[] = { "stdout", NULL };

  return run_item_command (ctx, line, known, 1);
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

  return run_item_command (ctx, line, known, 0);
}


/* Begin a command that takes no argument on CTX; ERROR (static: Assuan
 * keeps the pointer) tells a LINE that has one.  */
static gpg_error_t
begin_without_argument (assuan_context_t ctx, const char *line,
                        const char *error)
{
  if (*line)
    return assuan_set_error (ctx, gpg_error (GPG_ERR_ASS_PARAMETER), error);
  return ks_helper_begin_command (assuan_get_pointer (ctx));
}

static const char hlp_upload_queued[] =
  "UPLOAD_QUEUED\n"
  "\n"
  "Send the shards that wait in the upload queue of the GnuPG home.\n"
  "Each location comes as a QUEUE_LOCATION status line, the outcome as\n"
  "QUEUE_RESULT; the command fails while shards stay queued.";
static gpg_error_t
do_upload_queued (assuan_context_t ctx, char *line)
{
  ks_session_t *s = assuan_get_pointer (ctx);
  gpg_error_t err;
  ks_options_t opt;
  ks_ui_t ui;
  ks_queue_result_t result;

  err = begin_without_argument (ctx, line,
                                _("UPLOAD_QUEUED takes no argument"));
  if (err)
    return err;
  ks_helper_make_options (s, &opt);
  ks_helper_make_ui (s, &ui);
  err = ks_flow_upload_queued (&opt, &ui, &result);
  ks_helper_status_queue (s, &result);
  ks_queue_result_release (&result);
  return ks_helper_end_command (s, err);
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

  ks_helper_make_options (s, &opt);
  memset (&ui, 0, sizeof ui);
  ui.arg = s;
  ui.info = as_data ? servers_data_cb : servers_status_cb;
  ui.error = ks_helper_ui_error;
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

  err = begin_without_argument (ctx, line,
                                _("SERVERS takes no argument"));
  if (err)
    return err;
  err = list_servers (s, 0);
  return ks_helper_end_command (s, err);
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
      err = ks_helper_begin_command (s);
      if (err)
        return err;
      err = ks_helper_end_command (s, list_servers (s, 1));
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
KS_DEFINE_CMD (upload_queued)
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
      { "UPLOAD_QUEUED", cmd_upload_queued, hlp_upload_queued },
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
  ks_helper_iomon_install (session);
  return 0;
}
