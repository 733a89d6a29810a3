/* keysafe-cli.c - the command line face of the flows
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * keysafe COMMAND [options]; COMMAND is backup, restore, check, servers,
 * upload-queued, firstboot, list or queue (options in args.c).
 * Everything the user sees goes to stderr, except the restored secret
 * with --stdout, the lists of `keysafe servers`, `list` and `queue`,
 * and the status lines on --status-fd.
 */
#include <config.h>
#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <unistd.h>
#include <fcntl.h>
#include <sys/stat.h>
#include "cli.h"
#include "password.h"
#include "render.h"

/* gpg's PROGRESS status line, once per percent of a step.  */
static void
status_progress (struct face *face, const char *what, uint64_t done,
                 uint64_t total)
{
  unsigned int pct = total ? (unsigned int)(done * 100 / total) : 0;
  char text[96];

  if (face->status_fd < 0)
    return;
  if (!strncmp (face->status_what, what, sizeof face->status_what - 1)
      && pct == face->status_pct)
    return;
  snprintf (face->status_what, sizeof face->status_what, "%s", what);
  face->status_pct = pct;
  snprintf (text, sizeof text, "%.40s ? %llu %llu", what,
            (unsigned long long)done, (unsigned long long)total);
  ks_cli_status (face, "PROGRESS", text);
}

static void
face_progress (void *arg, const char *what, uint64_t done, uint64_t total)
{
  struct face *face = arg;

  ks_progress_update (&face->progress, what, done, total);
  status_progress (face, what, done, total);
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

void
ks_cli_status (void *arg, const char *keyword, const char *text)
{
  struct face *face = arg;
  char line[1024];
  size_t i = 0;
  const unsigned char *s;

  if (face->status_fd < 0)
    return;
  i = snprintf (line, sizeof line, "[KEYSAFE:] %s%s", keyword,
                *text ? " " : "");
  /* As gpg: a control character or '%' travels %-escaped.  */
  for (s = (const unsigned char *)text; *s && i + 5 < sizeof line; s++)
    {
      if (*s == '%' || *s < 0x20)
        i += snprintf (line + i, 4, "%%%02X", *s);
      else
        line[i++] = *s;
    }
  line[i++] = '\n';
  ks_write_all (face->status_fd, line, i);
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
  if (face->password_file)
    {
      int fd = open (face->password_file, O_RDONLY | O_NOFOLLOW);

      if (fd < 0)
        return gpg_error_from_syserror ();
      err = ks_password_from_fd (fd, r_pw);
      close (fd);
      return err;
    }
  if (face->pinentry_mode == KS_PINENTRY_CANCEL)
    return gpg_error (GPG_ERR_CANCELED);
  if (face->pinentry_mode == KS_PINENTRY_ERROR)
    return gpg_error (GPG_ERR_NO_PIN_ENTRY);
  if (face->opt->batch)
    return gpg_error (GPG_ERR_NO_PASSPHRASE);
  ks_progress_break (&face->progress);
  err = gpg_error (GPG_ERR_NO_PIN_ENTRY);
  if (face->pinentry_mode == KS_PINENTRY_ASK)
    err = ks_agent_get_passphrase (face->opt->homedir, prompt,
                                   _("Password:"), confirm, r_pw);
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
      *r_data = ks_malloc_secure (buf->len ? buf->len : 1);
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
      gpgrt_log_error (ngettext ("there is %u secret key; choose it with"
                                 " --gpgkeyid\n",
                                 "there are %u secret keys; choose one with"
                                 " --gpgkeyid\n", kc.count), kc.count);
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
      ks_free (line);
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
  ks_status_backup (&r, ks_cli_status, face);
  ks_backup_result_release (&r);
  return err ? 1 : 0;
}

/* A GnuPG home named but missing fails now, not after minutes of KDF
 * work.  */
static int
home_is_missing (const char *home)
{
  struct stat st;

  if (!home || !*home || (!stat (home, &st) && S_ISDIR (st.st_mode)))
    return 0;
  gpgrt_log_error (_("the GnuPG home directory '%s' does not exist\n"),
                   home);
  return 1;
}

/* The commands whose answer is a list on stdout.  */
static int
is_listing (const char *cmd)
{
  return !strcmp (cmd, "servers") || !strcmp (cmd, "list")
         || !strcmp (cmd, "queue");
}

static gpg_error_t
run_listing (const char *cmd, const ks_options_t *opt, struct face *face,
             ks_ui_t *ui)
{
  gpg_error_t err;

  ui->info = face_print;
  if (!strcmp (cmd, "servers"))
    err = ks_flow_servers (opt, ui);
  else if (!strcmp (cmd, "list"))
    err = ks_flow_list (opt, ui);
  else
    err = ks_flow_queue (opt, ui, face->drop);
  if (fflush (stdout) && !err)
    err = gpg_error_from_syserror ();
  return err;
}

/* Run CMD; returns the exit status.  */
static int
run_command (const char *cmd, ks_options_t *opt, struct face *face,
             ks_ui_t *ui)
{
  gpg_error_t err;
  ks_fetch_result_t fres;
  ks_firstboot_result_t fbres;
  ks_queue_result_t qres;
  int rc;

  if (!strcmp (cmd, "backup"))
    {
      rc = cmd_backup (opt, face, ui);
      ks_flow_queue_notice (opt, ui);
      return rc;
    }
  if (!strcmp (cmd, "restore"))
    {
      err = ks_flow_restore (opt, ui, face->use_stdout, &fres);
      ks_render_restore (ui, &fres);
      ks_status_restore (&fres, ks_cli_status, face);
      ks_fetch_result_release (&fres);
    }
  else if (!strcmp (cmd, "check"))
    {
      err = ks_flow_check (opt, ui, &fres);
      ks_render_check (ui, &fres);
      ks_status_check (&fres, ks_cli_status, face);
      ks_fetch_result_release (&fres);
    }
  else if (is_listing (cmd))
    err = run_listing (cmd, opt, face, ui);
  else if (!strcmp (cmd, "upload-queued"))
    {
      err = ks_flow_upload_queued (opt, ui, &qres);
      ks_render_queue (ui, &qres);
      ks_status_queue (&qres, ks_cli_status, face);
      ks_queue_result_release (&qres);
    }
  else if (!strcmp (cmd, "firstboot"))
    {
      err = ks_flow_firstboot (opt, ui, &fbres);
      ks_render_firstboot (ui, &fbres);
      ks_status_firstboot (&fbres, ks_cli_status, face);
      ks_firstboot_result_release (&fbres);
    }
  else
    {
      gpgrt_log_error (_("unknown command '%s'\n"), cmd);
      gpgrt_log_error ("%s\n", ks_cli_strusage (1));
      return 2;
    }
  if (!is_listing (cmd))
    ks_flow_queue_notice (opt, ui);
  if (err)
    {
      char text[64];

      /* gpg's FAILURE line: the command and the error code.  */
      snprintf (text, sizeof text, "%s %u", cmd, err);
      ks_cli_status (face, "FAILURE", text);
    }
  return err ? 1 : 0;
}

int
main (int argc, char **argv)
{
  gpg_error_t err;
  /* Static: the strings the argparser read from keysafe.conf are kept
   * for the whole run and must stay reachable until exit.  */
  static ks_options_t opt;
  struct face face;
  ks_ui_t ui;
  const char *cmd = NULL;
  static const char *servers[KS_MAX_SERVERS_OPT + 1];
  int rc;

  gpgrt_set_strusage (ks_cli_strusage);
  gpgrt_log_set_prefix ("keysafe", GPGRT_LOG_WITH_PREFIX);
  ks_i18n_init ();
  err = ks_init ();
  if (err)
    {
      fprintf (stderr, "keysafe: %s: %s\n", _("initialisation failed"),
               gpg_strerror (err));
      return 2;
    }
  memset (&opt, 0, sizeof opt);
  memset (&face, 0, sizeof face);
  face.password_fd = -1;
  face.name_fd = -1;
  face.status_fd = -1;
  face.opt = &opt;
  rc = ks_cli_parse_args (&argc, &argv, &opt, &face, servers, &cmd);
  if (rc)
    return rc;
  if (opt.homedir)
    setenv ("GNUPGHOME", opt.homedir, 1);
  if (home_is_missing (opt.homedir ? opt.homedir : getenv ("GNUPGHOME")))
    return 2;

  err = ks_gpg_init ();
  if (err)
    {
      gpgrt_log_error (_("GPGME is not usable: %s\n"), gpg_strerror (err));
      return 2;
    }

  /* A person at the terminal or pinentry may mistype the password; a
   * descriptor or a file would give the same one again.  */
  if (face.password_fd < 0 && !face.password_file && !opt.batch
      && face.pinentry_mode != KS_PINENTRY_CANCEL
      && face.pinentry_mode != KS_PINENTRY_ERROR)
    opt.password_tries = 2;
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
