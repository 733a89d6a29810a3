/* backup-flow.c - the backup flow: secret -> shards -> servers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Shard I of every chunk goes to server I of the list (the first N
 * recommended or user-given servers), all in parallel.  A 409 from any
 * server means the name is taken: the user is asked for another name,
 * and everything is derived again (the names depend on it).  Shards a
 * server could not take wait in the upload queue.
 */
#include <config.h>
#include <stdio.h>
#include "flowutil.h"
#include "estimate.h"
#include "gpg.h"
#include "queue.h"
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

/* Upload SET to SERVERS.  *R_TAKEN is set when some server has the
 * name already; R_OK[i] tells whether server i took all its shards.  */
static gpg_error_t
upload (const ks_options_t *opt, const ks_ui_t *ui, const ks_shardset_t *set,
        const ks_server_t **servers, int *r_taken, int *r_ok,
        ks_xfer_t **r_x, size_t *r_nx)
{
  gpg_error_t err;
  ks_transport_cfg_t cfg;
  ks_xfer_t *x;
  size_t nx = (size_t)set->nchunks * set->n, idx;
  unsigned int i;

  *r_taken = 0;
  *r_x = NULL;
  *r_nx = 0;
  x = gcry_calloc (nx, sizeof *x);
  if (!x)
    return gpg_error_from_syserror ();
  for (idx = 0; idx < nx; idx++)
    {
      i = idx % set->n;
      ks_xfer_set (&x[idx], KS_HTTP_PUT, servers[i]->url, set->names[idx],
                   i, i + 1, idx / set->n);
      x[idx].body = set->shards[idx];
      x[idx].bodylen = set->shard_len;
    }
  ks_flow_transport_cfg (opt, ui, &cfg);
  err = ks_transport_run (&cfg, x, nx);
  if (err)
    {
      gcry_free (x);
      return err;
    }
  for (i = 0; i < set->n; i++)
    r_ok[i] = 1;
  for (idx = 0; idx < nx; idx++)
    {
      if (!x[idx].err && x[idx].status == 409)
        *r_taken = 1;
      if (x[idx].err || x[idx].status != 201)
        r_ok[x[idx].server] = 0;
    }
  *r_x = x;
  *r_nx = nx;
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
      ks_ui_errorf (ui, _("the name '%s' is taken on a server;"
                          " choose another name (--name)"), *io_name);
      return gpg_error (GPG_ERR_NAME_EXISTS);
    }
  snprintf (prompt, sizeof prompt,
            _("The name '%s' is taken; choose another name"), *io_name);
  err = ui->get_name (ui->arg, prompt, &nn);
  if (!err && (!nn || !*nn))
    err = gpg_error (GPG_ERR_CANCELED);
  if (err)
    {
      gcry_free (nn);
      ks_ui_errorf (ui, _("the name '%s' is taken; no other name"
                          " given"), *io_name);
      return err;
    }
  gcry_free (*io_name);
  *io_name = nn;
  return 0;
}

/* Queue what a server did not take and record every location in R.  */
static gpg_error_t
record_result (const ks_options_t *opt, const ks_ui_t *ui,
               const ks_server_t **servers, const int *ok,
               const ks_xfer_t *x, size_t nx, ks_backup_result_t *r)
{
  gpg_error_t err;
  unsigned int i;
  size_t idx;

  r->queued = gcry_calloc (nx ? nx : 1, sizeof *r->queued);
  if (!r->queued)
    return gpg_error_from_syserror ();
  for (i = 0; i < r->n; i++)
    {
      r->loc[i].url = gcry_strdup (servers[i]->url);
      if (!r->loc[i].url)
        return gpg_error_from_syserror ();
      r->loc[i].state = ok[i] ? KS_LOC_ANSWERED : KS_LOC_FAILED;
      r->outcome[i] = ok[i] ? KS_BACKUP_STORED : KS_BACKUP_QUEUED;
      if (ok[i])
        r->nstored++;
    }
  for (idx = 0; idx < nx; idx++)
    {
      if (!x[idx].err && x[idx].status == 201)
        continue;
      i = x[idx].server;
      if (!r->loc[i].why[0])
        ks_xfer_describe (&x[idx], r->loc[i].why, sizeof r->loc[i].why);
      err = ks_queue_add (opt->homedir, servers[i]->url,
                          x[idx].name, x[idx].body, x[idx].bodylen);
      if (err)
        {
          ks_ui_errorf (ui, _("can't queue a shard for %s: %s"),
                        servers[i]->url, gpg_strerror (err));
          return err;
        }
      memcpy (r->queued[r->nqueued++], x[idx].name, KS_NAME_HEX_LEN + 1);
    }
  if (r->nqueued)
    ks_queue_dir (opt->homedir, &r->queue_dir);
  r->restorable = r->nstored >= r->k;
  r->uploaded = 1;
  return r->restorable ? 0 : gpg_error (GPG_ERR_TRY_LATER);
}

gpg_error_t
ks_flow_backup (const ks_options_t *opt, const ks_ui_t *ui,
                const uint8_t *secret, size_t secretlen,
                ks_backup_result_t *r)
{
  gpg_error_t err;
  const ks_profile_t *profile;
  ks_serverlist_t *list = NULL;
  const ks_server_t *servers[KS_SHAMIR_MAX_SHARES];
  const char *locs[KS_SHAMIR_MAX_SHARES];
  int ok[KS_SHAMIR_MAX_SHARES];
  unsigned int n, k, i, attempt;
  uint8_t *own = NULL;
  size_t ownlen = 0;
  char *fpr = NULL, *pw = NULL;
  char keyidbuf[KS_KEYID_BUFSIZE];
  const char *keyid = NULL;
  ks_shardset_t *set = NULL;
  ks_xfer_t *x = NULL;
  size_t nx = 0;
  int taken = 0;

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
      ks_ui_infof (ui, _("uploading %u shards of %u objects to %u servers..."),
                   n, (unsigned int)set->nchunks, n);
      err = upload (opt, ui, set, servers, &taken, ok, &x, &nx);
      if (err || !taken)
        break;
      ks_transport_release (x, nx);
      gcry_free (x);
      x = NULL;
      ks_shardset_free (set);
      set = NULL;
      err = ask_other_name (opt, ui, attempt, &r->name);
      if (err)
        goto leave;
    }
  if (!err)
    err = record_result (opt, ui, servers, ok, x, nx, r);

 leave:
  ks_transport_release (x, nx);
  gcry_free (x);
  ks_shardset_free (set);
  if (pw)
    ks_free_secret (pw, strlen (pw));
  gcry_free (fpr);
  ks_free_secret (own, ownlen);
  ks_serverlist_free (list);
  return err;
}

void
ks_backup_result_release (ks_backup_result_t *r)
{
  unsigned int i;

  if (!r)
    return;
  for (i = 0; i < KS_DIM (r->loc); i++)
    gcry_free (r->loc[i].url);
  gcry_free (r->name);
  gcry_free (r->queued);
  gcry_free (r->queue_dir);
  memset (r, 0, sizeof *r);
}
