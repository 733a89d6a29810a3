/* flowutil.c - pieces shared by the flows
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>
#include <stdio.h>
#include <stdarg.h>
#include "flowutil.h"
#include "gpg.h"
#include "dirstore.h"

void
ks_ui_infof (const ks_ui_t *ui, const char *fmt, ...)
{
  va_list ap;
  char line[1024];

  if (!ui || !ui->info)
    return;
  va_start (ap, fmt);
  vsnprintf (line, sizeof line, fmt, ap);
  va_end (ap);
  ui->info (ui->arg, line);
}

void
ks_ui_errorf (const ks_ui_t *ui, const char *fmt, ...)
{
  va_list ap;
  char line[1024];

  if (!ui)
    return;
  va_start (ap, fmt);
  vsnprintf (line, sizeof line, fmt, ap);
  va_end (ap);
  if (ui->error)
    ui->error (ui->arg, line);
  else if (ui->info)
    ui->info (ui->arg, line);
}

void
ks_ui_progress_cb (void *arg, const char *what, uint64_t done,
                   uint64_t total)
{
  const ks_ui_t *ui = arg;

  if (ui && ui->progress)
    ui->progress (ui->arg, what, done, total);
}

void
ks_flow_transport_cfg (const ks_options_t *opt, const ks_ui_t *ui,
                       ks_transport_cfg_t *cfg)
{
  memset (cfg, 0, sizeof *cfg);
  cfg->tor_socks = opt->tor_socks;
  cfg->no_tor = opt->no_tor;
  cfg->timeout = opt->timeout;
  cfg->connect_timeout = opt->connect_timeout;
  cfg->pow_cap = opt->pow_cap;
  cfg->pow_budget = opt->pow_budget;
  cfg->verbose = opt->verbose;
  cfg->progress = ks_ui_progress_cb;
  cfg->progress_arg = (void *)ui;
}

const ks_options_t *
ks_op_begin (ks_op_t *op, const ks_options_t *opt)
{
  memset (op, 0, sizeof *op);
  op->opt = *opt;
  if (!op->opt.pow_budget)
    op->opt.pow_budget = &op->budget;
  return &op->opt;
}

void
ks_op_end (ks_op_t *op)
{
  ks_pow_budget_release (&op->budget);
}

/* The whole server list of OPT, placeholders included.  */
static gpg_error_t
load_list (const ks_options_t *opt, const ks_ui_t *ui,
           ks_serverlist_t **r_list)
{
  gpg_error_t err;
  char errtext[512];

  errtext[0] = 0;
  err = ks_serverlist_load (opt->servers, opt->servers_file, r_list,
                            errtext, sizeof errtext);
  if (err)
    ks_ui_errorf (ui, "%s", errtext[0] ? errtext : gpg_strerror (err));
  return err;
}

gpg_error_t
ks_flow_load_servers (const ks_options_t *opt, const ks_ui_t *ui,
                      ks_serverlist_t **r_list)
{
  gpg_error_t err;
  ks_serverlist_t *list = NULL;
  unsigned int i, o;

  *r_list = NULL;
  err = load_list (opt, ui, &list);
  if (err)
    return err;
  for (i = o = 0; i < list->count; i++)
    {
      if (list->server[i].placeholder)
        {
          ks_free (list->server[i].url);
          ks_free (list->server[i].id);
          ks_free (list->server[i].label);
          continue;
        }
      list->server[o++] = list->server[i];
    }
  list->count = o;
  if (!list->count)
    {
      ks_ui_errorf (ui, _("no usable server in the server list"
                          " (the shipped list holds placeholders only;"
                          " give servers with --server URL)"));
      ks_serverlist_free (list);
      return gpg_error (GPG_ERR_NO_DATA);
    }
  *r_list = list;
  return 0;
}

void
ks_flow_warn_tor (const ks_options_t *opt, const ks_ui_t *ui,
                  const ks_serverlist_t *list, unsigned int count)
{
  unsigned int i;
  int remote = 0;

  for (i = 0; i < count && i < list->count; i++)
    if (!ks_transport_is_loopback (list->server[i].url)
        && !ks_dirstore_is_url (list->server[i].url))
      remote = 1;
  if (!remote)
    return;
  if (opt->no_tor)
    ks_ui_infof (ui, _("WARNING: --no-tor: connecting to the servers"
                       " directly; they and the network see your"
                       " address"));
  else if (opt->verbose)
    ks_ui_infof (ui, _("connecting through the SOCKS5 proxy at %s"),
                 opt->tor_socks ? opt->tor_socks : "127.0.0.1:9050");
}

gpg_error_t
ks_flow_profile (const ks_options_t *opt, const ks_ui_t *ui,
                 const ks_profile_t **r_profile)
{
  *r_profile = opt->profile ? ks_profile_find (opt->profile)
                            : ks_profile_default ();
  if (!*r_profile)
    {
      ks_ui_errorf (ui, _("unknown profile '%s'"), opt->profile);
      return gpg_error (GPG_ERR_UNKNOWN_NAME);
    }
  return 0;
}

gpg_error_t
ks_flow_get_name (const ks_options_t *opt, const ks_ui_t *ui,
                  const char *prompt, char **r_name)
{
  gpg_error_t err;

  *r_name = NULL;
  if (opt->name && *opt->name)
    {
      /* Secure memory: the name is half of what opens a backup.  */
      *r_name = ks_malloc_secure (strlen (opt->name) + 1);
      if (!*r_name)
        return gpg_error_from_syserror ();
      strcpy (*r_name, opt->name);
      return 0;
    }
  if (!ui->get_name)
    err = gpg_error (GPG_ERR_MISSING_VALUE);
  else
    err = ui->get_name (ui->arg, prompt, r_name);
  if (!err && (!*r_name || !**r_name))
    {
      ks_free (*r_name);
      *r_name = NULL;
      err = gpg_error (GPG_ERR_MISSING_VALUE);
    }
  if (err)
    ks_ui_errorf (ui, _("no item name given: %s"), gpg_strerror (err));
  return err;
}

gpg_error_t
ks_flow_get_password (const ks_options_t *opt, const ks_ui_t *ui,
                      const char *prompt, int confirm, char **r_pw)
{
  gpg_error_t err;

  *r_pw = NULL;
  if (!ui->get_password)
    err = gpg_error (GPG_ERR_NO_PASSPHRASE);
  else
    err = ui->get_password (ui->arg, prompt, confirm, r_pw);
  if (!err && (!*r_pw || !**r_pw))
    {
      if (*r_pw)
        ks_free_secret (*r_pw, 1);
      *r_pw = NULL;
      err = gpg_error (GPG_ERR_NO_PASSPHRASE);
    }
  if (err)
    ks_ui_errorf (ui, _("no password: %s"), gpg_strerror (err));
  return err;
}

gpg_error_t
ks_flow_keyid (const ks_options_t *opt, const ks_ui_t *ui, const char *keyid,
               char *out)
{
  gpg_error_t err = ks_gpg_canon_keyid (opt->homedir, keyid, out);

  if (gpg_err_code (err) == GPG_ERR_NO_PUBKEY)
    ks_ui_errorf (ui, _("key id '%s' names no key here; give the"
                        " fingerprint"), keyid);
  else if (err)
    ks_ui_errorf (ui, _("'%s' is not a key id or fingerprint"
                        " (16 or 40 hex digits)"), keyid ? keyid : "");
  return err;
}

const char *
ks_flow_server_label (const ks_server_t *s)
{
  return s->url;
}

/* keysafe servers: the whole list, placeholders included, marked.  */
gpg_error_t
ks_flow_servers (const ks_options_t *opt, const ks_ui_t *ui)
{
  gpg_error_t err;
  ks_serverlist_t *list = NULL;
  unsigned int i, nrec = 0;

  err = load_list (opt, ui, &list);
  if (err)
    return err;
  for (i = 0; i < list->count; i++)
    {
      const ks_server_t *s = &list->server[i];
      const char *use = "";

      if (!s->placeholder && (s->category == KS_SERVER_RECOMMENDED
                              || s->category == KS_SERVER_USER))
        {
          if (nrec < 3)
            use = _(" (default)");
          nrec++;
        }
      ks_ui_infof (ui, "%-11s %s%s%s%s%s",
                   ks_server_category_name (s->category), s->url,
                   s->placeholder ? _(" [placeholder, never contacted]") : "",
                   use, s->label ? "  " : "", s->label ? s->label : "");
    }
  ks_serverlist_free (list);
  return 0;
}
