/* backup.c - the backup flow: secret -> shards -> servers
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
      x[idx].base = servers[i]->url;
      x[idx].method = KS_HTTP_PUT;
      memcpy (x[idx].name, set->names[idx], KS_NAME_HEX_LEN + 1);
      x[idx].body = set->shards[idx];
      x[idx].bodylen = set->shard_len;
      x[idx].server = i;
      x[idx].share = i + 1;
      x[idx].chunk = idx / set->n;
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

gpg_error_t
ks_flow_backup (const ks_options_t *opt, const ks_ui_t *ui,
                const uint8_t *secret, size_t secretlen)
{
  gpg_error_t err;
  const ks_profile_t *profile;
  ks_serverlist_t *list = NULL;
  const ks_server_t *servers[KS_SHAMIR_MAX_SHARES];
  const char *locs[KS_SHAMIR_MAX_SHARES];
  int ok[KS_SHAMIR_MAX_SHARES];
  unsigned int n, k, i, nok, attempt;
  uint8_t *own = NULL;
  size_t ownlen = 0;
  char *fpr = NULL, *name = NULL, *pw = NULL;
  char keyidbuf[KS_KEYID_BUFSIZE];
  const char *keyid = NULL;
  ks_shardset_t *set = NULL;
  ks_xfer_t *x = NULL;
  size_t nx = 0, idx, nqueued = 0;
  int taken = 0;
  char why[256];

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
  err = ks_flow_load_servers (opt, ui, &list);
  if (err)
    goto leave;
  err = pick_servers (ui, list, n, servers);
  if (err)
    goto leave;

  if (!secret)
    {
      if (!opt->gpgkeyid)
        {
          ks_ui_errorf (ui, _("no key given to back up"));
          err = gpg_error (GPG_ERR_NO_SECKEY);
          goto leave;
        }
      err = ks_gpg_export_secret (opt->homedir, opt->gpgkeyid,
                                  &own, &ownlen, &fpr);
      if (err)
        {
          ks_ui_errorf (ui, _("can't export the secret key '%s': %s"),
                        opt->gpgkeyid, gpg_strerror (err));
          goto leave;
        }
      ks_ui_infof (ui, _("exported secret key %s (%zu bytes, minimal)"),
                   fpr, ownlen);
      secret = own;
      secretlen = ownlen;
    }
  if (!secretlen)
    {
      ks_ui_errorf (ui, _("nothing to back up: the secret is empty"));
      err = gpg_error (GPG_ERR_NO_DATA);
      goto leave;
    }
  if (secretlen > KS_MAX_SECRET)
    {
      ks_ui_errorf (ui, _("the secret is too large (%zu bytes, at most %u)"),
                    secretlen, (unsigned int)KS_MAX_SECRET);
      err = gpg_error (GPG_ERR_TOO_LARGE);
      goto leave;
    }

  if (opt->bind_keyid)
    {
      const char *src = fpr ? fpr : opt->gpgkeyid;

      if (!src)
        {
          ks_ui_errorf (ui, _("--bind-keyid needs --gpgkeyid"));
          err = gpg_error (GPG_ERR_MISSING_VALUE);
          goto leave;
        }
      err = ks_flow_keyid (opt, ui, src, keyidbuf);
      if (err)
        goto leave;
      keyid = keyidbuf;
      ks_ui_infof (ui, _("names bound to key id %s: restoring needs"
                         " --gpgkeyid %s"), keyid, keyid);
    }

  err = ks_flow_get_name (opt, ui, _("Name of this backup (you need it,"
                                     " with the password, to restore)"),
                          &name);
  if (err)
    goto leave;
  err = ks_flow_get_password (opt, ui, _("Password for this backup"), 1, &pw);
  if (err)
    goto leave;
  err = check_strength (opt, ui, profile, pw, name);
  if (err)
    goto leave;
  ks_flow_warn_tor (opt, ui, list, n);

  for (attempt = 0; ; attempt++)
    {
      ks_ui_infof (ui, _("deriving keys with profile '%s'..."),
                   profile->name);
      for (i = 0; i < n; i++)
        locs[i] = servers[i]->url;
      err = ks_shardset_create (profile, name, keyid, pw, strlen (pw),
                                secret, secretlen, n, k, locs,
                                ks_ui_progress_cb, (void *)ui, &set);
      if (err)
        {
          ks_ui_errorf (ui, _("can't make the shards: %s"),
                        gpg_strerror (err));
          goto leave;
        }
      ks_ui_infof (ui, _("uploading %u shards of %u objects to %u servers..."),
                   n, (unsigned int)set->nchunks, n);
      err = upload (opt, ui, set, servers, &taken, ok, &x, &nx);
      if (err)
        goto leave;
      if (!taken)
        break;

      /* The name is taken: ask for another one.  */
      ks_transport_release (x, nx);
      gcry_free (x);
      x = NULL;
      ks_shardset_free (set);
      set = NULL;
      if (opt->batch || !ui->get_name || attempt + 1 >= KS_BACKUP_MAX_NAMES)
        {
          ks_ui_errorf (ui, _("the name '%s' is taken on a server;"
                              " choose another name (--name)"), name);
          err = gpg_error (GPG_ERR_NAME_EXISTS);
          goto leave;
        }
      {
        char prompt[512];
        char *nn = NULL;

        snprintf (prompt, sizeof prompt,
                  _("The name '%s' is taken; choose another name"), name);
        err = ui->get_name (ui->arg, prompt, &nn);
        if (!err && (!nn || !*nn))
          err = gpg_error (GPG_ERR_CANCELED);
        if (err)
          {
            gcry_free (nn);
            ks_ui_errorf (ui, _("the name '%s' is taken; no other name"
                                " given"), name);
            goto leave;
          }
        gcry_free (name);
        name = nn;
      }
    }

  /* Tell the result, queue what is missing.  */
  for (i = nok = 0; i < n; i++)
    if (ok[i])
      nok++;
  if (nok < n)
    for (idx = 0; idx < nx; idx++)
      {
        if (!x[idx].err && x[idx].status == 201)
          continue;
        err = ks_queue_add (opt->homedir, servers[x[idx].server]->url,
                            x[idx].name, x[idx].body, x[idx].bodylen);
        if (err)
          {
            ks_ui_errorf (ui, _("can't queue a shard for %s: %s"),
                          servers[x[idx].server]->url, gpg_strerror (err));
            goto leave;
          }
        nqueued++;
      }
  for (i = 0; i < n; i++)
    if (!ok[i])
      {
        for (idx = 0; idx < nx; idx++)
          if (x[idx].server == i && (x[idx].err || x[idx].status != 201))
            break;
        ks_ui_infof (ui, _("server %u (%s) failed: %s"), i + 1,
                     servers[i]->url,
                     ks_xfer_describe (&x[idx], why, sizeof why));
      }
  if (nok == n)
    ks_ui_infof (ui, _("backup '%s' stored: %u of %u servers hold their"
                       " shards; any %u restore it"), name, nok, n, k);
  else
    {
      char *qdir = NULL;

      ks_queue_dir (opt->homedir, &qdir);
      ks_ui_infof (ui, _("%zu shards wait in the upload queue %s;"
                         " run 'keysafe upload-queued' when the servers"
                         " are back"), nqueued, qdir ? qdir : "");
      gcry_free (qdir);
      if (nok >= k)
        ks_ui_infof (ui, _("the backup is restorable now: %u of %u servers"
                           " hold their shards and %u are needed"),
                     nok, n, k);
      else
        {
          ks_ui_errorf (ui, _("the backup is NOT restorable yet: only %u"
                              " of %u servers hold their shards and %u are"
                              " needed"), nok, n, k);
          err = gpg_error (GPG_ERR_TRY_LATER);
        }
    }

 leave:
  ks_transport_release (x, nx);
  gcry_free (x);
  ks_shardset_free (set);
  if (pw)
    ks_free_secret (pw, strlen (pw));
  gcry_free (name);
  gcry_free (fpr);
  ks_free_secret (own, ownlen);
  ks_serverlist_free (list);
  return err;
}
