/* backup-flow.c - the backup flow: secret -> shards -> servers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Shard I of every chunk goes to server I of the list (the first N
 * recommended or user-given servers).  The name is probed first, on
 * every location a restore would ask: when two or more hold a backup
 * under it, the name is taken, the user is asked for another name, and
 * everything is derived again (the names depend on it).  Sending, the
 * upload queue and what a refusing server leaves are in
 * backup-upload.c.
 */
#include <config.h>
#include <stdio.h>
#include "flowutil.h"
#include "estimate.h"
#include "gpg.h"
#include "backup-upload.h"
#include "strength.h"

/* Names tried before giving up on taken names.  */
#define KS_BACKUP_MAX_NAMES 5

/* Check the password, tell its strength; GPG_ERR_WEAK_KEY when it is
 * too weak and not forced.  */
static gpg_error_t
check_strength (const ks_options_t *opt, const ks_ui_t *ui,
                const ks_profile_t *profile, const char *pw,
                const char *name)
{
  ks_strength_t st;
  const char *words[2] = { name, NULL };
  char d1[64], d2[64];

  ks_strength_estimate (profile, pw, words, &st);
  ks_ui_infof (ui, _("password strength: about 2^%.0f guesses; one guess"
                     " costs %s of CPU time with profile '%s',"
                     " so cracking it takes about %s (USD %.3g at"
                     " %.2f per core-hour)"),
               st.bits, ks_strength_duration (st.sec_per_guess, d1, sizeof d1),
               profile->name,
               ks_strength_duration (st.core_seconds, d2, sizeof d2),
               st.dollars, KS_STRENGTH_USD_PER_CORE_HOUR);
  if (st.bits < KS_STRENGTH_MIN_BITS)
    {
      if (opt->force)
        {
          ks_ui_infof (ui, _("WARNING: this password is very weak;"
                             " used anyway (--force)"));
          return 0;
        }
      ks_ui_errorf (ui, _("this password is too weak (about 2^%.0f"
                          " guesses); choose a longer one, or use --force"),
                    st.bits);
      return gpg_error (GPG_ERR_WEAK_KEY);
    }
  return 0;
}

/* The servers shard 1..N go to: recommended or user-given, in order.
 * Alternates are never used for a backup, so they never hold enough
 * shards to restore on their own.  */
static gpg_error_t
pick_servers (const ks_ui_t *ui, const ks_serverlist_t *list, unsigned int n,
              const ks_server_t **out)
{
  unsigned int i, m = 0;

  for (i = 0; i < list->count && m < n; i++)
    if (list->server[i].category == KS_SERVER_RECOMMENDED
        || list->server[i].category == KS_SERVER_USER)
      out[m++] = &list->server[i];
  if (m < n)
    {
      ks_ui_errorf (ui, _("a backup in %u shares needs %u servers;"
                          " the list has only %u usable ones"), n, n, m);
      return gpg_error (GPG_ERR_TOO_SHORT);
    }
  return 0;
}

/* The secret to back up: SECRET as given, or the key OPT->gpgkeyid
 * exported into *R_OWN.  *R_FPR gets the exported key's fingerprint.  */
static gpg_error_t
get_secret (const ks_options_t *opt, const ks_ui_t *ui,
            const uint8_t **io_secret, size_t *io_len,
            uint8_t **r_own, size_t *r_ownlen, char **r_fpr)
{
  gpg_error_t err;

  if (!*io_secret)
    {
      if (!opt->gpgkeyid)
        {
          ks_ui_errorf (ui, _("no key given to back up"));
          return gpg_error (GPG_ERR_NO_SECKEY);
        }
      err = ks_gpg_export_secret (opt->homedir, opt->gpgkeyid,
                                  r_own, r_ownlen, r_fpr);
      if (err)
        {
          ks_ui_errorf (ui, _("can't export the secret key '%s': %s"),
                        opt->gpgkeyid, gpg_strerror (err));
          return err;
        }
      ks_ui_infof (ui, _("exported secret key %s (%zu bytes, minimal)"),
                   *r_fpr, *r_ownlen);
      *io_secret = *r_own;
      *io_len = *r_ownlen;
    }
  if (!*io_len)
    {
      ks_ui_errorf (ui, _("nothing to back up: the secret is empty"));
      return gpg_error (GPG_ERR_NO_DATA);
    }
  if (*io_len > KS_MAX_SECRET)
    {
      ks_ui_errorf (ui, _("the secret is too large (%zu bytes, at most %u)"),
                    *io_len, (unsigned int)KS_MAX_SECRET);
      return gpg_error (GPG_ERR_TOO_LARGE);
    }
  return 0;
}

/* The key id the names are bound to (--bind-keyid), or none.  */
static gpg_error_t
get_bound_keyid (const ks_options_t *opt, const ks_ui_t *ui, const char *fpr,
                 char *keyidbuf, const char **r_keyid)
{
  gpg_error_t err;
  const char *src = fpr ? fpr : opt->gpgkeyid;

  *r_keyid = NULL;
  if (!opt->bind_keyid)
    return 0;
  if (!src)
    {
      ks_ui_errorf (ui, _("--bind-keyid needs --gpgkeyid"));
      return gpg_error (GPG_ERR_MISSING_VALUE);
    }
  err = ks_flow_keyid (opt, ui, src, keyidbuf);
  if (err)
    return err;
  *r_keyid = keyidbuf;
  ks_ui_infof (ui, _("names bound to key id %s: restoring needs"
                     " --gpgkeyid %s"), keyidbuf, keyidbuf);
  return 0;
}

/* The name is taken: ask for another one into *IO_NAME.  */
static gpg_error_t
ask_other_name (const ks_options_t *opt, const ks_ui_t *ui,
                unsigned int attempt, char **io_name)
{
  gpg_error_t err;
  char prompt[512];
  char *nn = NULL;

  if (opt->batch || !ui->get_name || attempt + 1 >= KS_BACKUP_MAX_NAMES)
    {
      ks_ui_errorf (ui, _("the name '%s' is taken: a backup under it"
                          " exists; choose another name (--name)"),
                    *io_name);
      return gpg_error (GPG_ERR_NAME_EXISTS);
    }
  snprintf (prompt, sizeof prompt,
            _("The name '%s' is taken; choose another name"), *io_name);
  err = ui->get_name (ui->arg, prompt, &nn);
  if (!err && (!nn || !*nn))
    err = gpg_error (GPG_ERR_CANCELED);
  if (err)
    {
      ks_free (nn);
      ks_ui_errorf (ui, _("the name '%s' is taken; no other name"
                          " given"), *io_name);
      return err;
    }
  ks_free (*io_name);
  *io_name = nn;
  return 0;
}

gpg_error_t
ks_flow_backup (const ks_options_t *opt, const ks_ui_t *ui,
                const uint8_t *secret, size_t secretlen,
                ks_backup_result_t *r)
{
  gpg_error_t err;
  const ks_profile_t *profile;
  ks_serverlist_t *list = NULL, *probelist = NULL;
  const ks_server_t *servers[KS_SHAMIR_MAX_SHARES];
  const char *locs[KS_SHAMIR_MAX_SHARES];
  int down[KS_SHAMIR_MAX_SHARES];
  unsigned int n, k, i, attempt;
  uint8_t *own = NULL;
  size_t ownlen = 0;
  char *fpr = NULL, *pw = NULL;
  char keyidbuf[KS_KEYID_BUFSIZE];
  const char *keyid = NULL;
  ks_shardset_t *set = NULL;
  int taken = 0;
  ks_op_t op;

  opt = ks_op_begin (&op, opt);
  memset (r, 0, sizeof *r);
  err = ks_flow_profile (opt, ui, &profile);
  if (err)
    goto leave;
  n = opt->shares ? opt->shares : profile->shares;
  k = opt->threshold ? opt->threshold : profile->threshold;
  if (k < 2 || k > n || n > KS_SHAMIR_MAX_SHARES)
    {
      ks_ui_errorf (ui, _("invalid shares/threshold %u/%u: need"
                          " 2 <= threshold <= shares <= %u"),
                    n, k, (unsigned int)KS_SHAMIR_MAX_SHARES);
      err = gpg_error (GPG_ERR_INV_ARG);
      goto leave;
    }
  r->profile = profile->name;
  r->n = n;
  r->k = k;
  err = ks_flow_load_servers (opt, ui, &list);
  if (!err)
    err = pick_servers (ui, list, n, servers);
  if (!err)
    err = ks_flow_load_item_servers (opt, ui, &probelist);
  if (!err)
    err = get_secret (opt, ui, &secret, &secretlen, &own, &ownlen, &fpr);
  if (!err)
    err = get_bound_keyid (opt, ui, fpr, keyidbuf, &keyid);
  if (!err)
    err = ks_flow_get_name (opt, ui, _("Name of this backup (you need it,"
                                       " with the password, to restore)"),
                            &r->name);
  if (!err)
    err = ks_flow_get_password (opt, ui, _("Password for this backup"), 1,
                                &pw);
  if (!err)
    err = check_strength (opt, ui, profile, pw, r->name);
  if (err)
    goto leave;
  ks_flow_warn_tor (opt, ui, list, n);

  ks_flow_tell_estimate (opt, ui, profile, 0);
  for (attempt = 0; ; attempt++)
    {
      ks_ui_infof (ui, _("deriving keys with profile '%s'..."),
                   profile->name);
      for (i = 0; i < n; i++)
        locs[i] = servers[i]->id;
      err = ks_shardset_create (profile, r->name, keyid, pw, strlen (pw),
                                secret, secretlen, n, k, locs,
                                ks_ui_progress_cb, (void *)ui, &set);
      if (err)
        {
          ks_ui_errorf (ui, _("can't make the shards: %s"),
                        gpg_strerror (err));
          goto leave;
        }
      r->nchunks = set->nchunks;
      err = ks_backup_probe (opt, ui, set, probelist, servers, &taken,
                             down);
      if (err || !taken)
        break;
      ks_shardset_free (set);
      set = NULL;
      err = ask_other_name (opt, ui, attempt, &r->name);
      if (err)
        goto leave;
    }
  if (!err)
    {
      ks_ui_infof (ui, _("uploading %u shards of %u objects to %u servers..."),
                   n, (unsigned int)set->nchunks, n);
      err = ks_backup_send (opt, ui, set, servers, down, r);
    }
  if (r->uploaded)
    ks_flow_record_backup (opt, ui, r, fpr);

 leave:
  ks_shardset_free (set);
  if (pw)
    ks_free_secret (pw, strlen (pw));
  ks_free (fpr);
  ks_free_secret (own, ownlen);
  ks_serverlist_free (list);
  ks_serverlist_free (probelist);
  ks_op_end (&op);
  return err;
}

void
ks_backup_result_release (ks_backup_result_t *r)
{
  unsigned int i;

  if (!r)
    return;
  for (i = 0; i < KS_DIM (r->loc); i++)
    ks_free (r->loc[i].url);
  ks_free (r->name);
  ks_free (r->queued);
  ks_free (r->queue_dir);
  memset (r, 0, sizeof *r);
}
