/* restore.c - the restore flow: name + password -> shards -> secret
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * No version travels with the data, so every known profile is tried,
 * newest first (or only the pinned one): its names are derived, the
 * servers asked, and where shards exist the password is tried.  Only
 * after all profiles is "wrong password" or "not found" told.
 */
#include <config.h>
#include <stdio.h>
#include "flowutil.h"
#include "gpg.h"

gpg_error_t
ks_flow_restore (const ks_options_t *opt, const ks_ui_t *ui, int to_ui)
{
  gpg_error_t err;
  ks_serverlist_t *list = NULL;
  char *name = NULL, *pw = NULL, *fpr = NULL;
  char keyidbuf[KS_KEYID_BUFSIZE];
  const char *keyid = NULL;
  const ks_profile_t *pinned = NULL;
  unsigned int pidx, nprof, k;
  ks_recover_t *rec = NULL;
  ks_fetch_t *f = NULL;
  uint8_t *secret = NULL;
  size_t secretlen = 0;
  int bad_pw = 0, too_few = 0, corrupt = 0, done = 0;
  unsigned int best_found = 0, best_k = 0, bad_found = 0;
  char fails[2048], bad_fails[2048], tried[256];
  size_t tl = 0;

  fails[0] = bad_fails[0] = tried[0] = 0;
  err = ks_flow_begin_item (opt, ui, _("Name of the backup to restore"), &pinned, &list,
                            keyidbuf, &keyid, &name);
  if (err)
    goto leave;
  err = ks_flow_get_password (opt, ui, _("Password of the backup"), 0, &pw);
  if (err)
    goto leave;
  ks_flow_warn_tor (opt, ui, list, list->count);
  f = gcry_calloc (1, sizeof *f);
  if (!f)
    {
      err = gpg_error_from_syserror ();
      goto leave;
    }

  nprof = pinned ? 1 : ks_profile_count ();
  for (pidx = 0; pidx < nprof && !done; pidx++)
    {
      const ks_profile_t *profile = pinned ? pinned : ks_profile_nth (pidx);
      int n;

      n = snprintf (tried + tl, sizeof tried - tl, "%s%s",
                    tl ? ", " : "", profile->name);
      if (n > 0 && (size_t)n < sizeof tried - tl)
        tl += n;
      k = opt->threshold ? opt->threshold : profile->threshold;
      ks_ui_infof (ui, _("looking for '%s' with profile '%s'..."),
                   name, profile->name);
      ks_recover_free (rec);
      rec = NULL;
      err = ks_recover_new (profile, name, keyid, ks_ui_progress_cb,
                            (void *)ui, &rec);
      if (err)
        goto leave;
      err = ks_fetch_chunk0 (opt, ui, rec, list, k, f);
      if (err)
        goto leave;
      ks_fetch_failures (f, fails, sizeof fails);
      if (opt->verbose)
        ks_ui_infof (ui, _("profile '%s': %u shards found"), profile->name,
                     f->found);
      if (!f->found)
        continue;
      if (f->found < 2)
        {
          too_few = 1;
          if (f->found > best_found)
            best_found = f->found, best_k = k;
          continue;
        }
      ks_ui_infof (ui, _("found %u shards; solving the puzzle..."),
                   f->found);
      err = ks_recover_unlock (rec, pw, strlen (pw), opt->threads,
                               ks_ui_progress_cb, (void *)ui);
      if (gpg_err_code (err) == GPG_ERR_BAD_PASSPHRASE && !f->more_done)
        {
          /* Maybe a higher threshold, or a lying server: ask the rest
           * of the list and try again if that brought new shards.  */
          unsigned int nnew = 0;

          err = ks_fetch_more (opt, ui, f, &nnew);
          if (err)
            goto leave;
          ks_fetch_failures (f, fails, sizeof fails);
          if (nnew)
            {
              ks_ui_infof (ui, _("found %u more shards; trying again..."),
                           nnew);
              err = ks_recover_unlock (rec, pw, strlen (pw), opt->threads,
                                       ks_ui_progress_cb, (void *)ui);
            }
          else
            err = gpg_error (GPG_ERR_BAD_PASSPHRASE);
        }
      if (gpg_err_code (err) == GPG_ERR_BAD_PASSPHRASE && f->found < k)
        {
          /* Fewer shards than the threshold cannot open it: that is
           * no proof of a wrong password.  */
          too_few = 1;
          if (f->found > best_found)
            best_found = f->found, best_k = k;
          err = 0;
          continue;
        }
      if (gpg_err_code (err) == GPG_ERR_BAD_PASSPHRASE)
        {
          bad_pw = 1;
          bad_found = f->found;
          memcpy (bad_fails, fails, sizeof bad_fails);
          err = 0;
          continue;
        }
      if (err)
        {
          ks_ui_errorf (ui, _("can't open the backup: %s"),
                        gpg_strerror (err));
          goto leave;
        }
      err = ks_fetch_rest (opt, ui, f);
      if (err)
        goto leave;
      err = ks_recover_finish (rec, &secret, &secretlen);
      if (err)
        {
          corrupt = 1;
          ks_fetch_failures (f, fails, sizeof fails);
          err = 0;
          continue;
        }
      done = 1;
      ks_ui_infof (ui, _("restored %zu bytes (profile '%s', %u objects)"),
                   secretlen, profile->name,
                   (unsigned int)ks_recover_nchunks (rec));
    }

  if (!done)
    {
      if (corrupt)
        {
          ks_ui_errorf (ui, _("the password is right but some objects of"
                              " the backup could not be put together: too"
                              " many shards are missing or damaged%s%s"),
                        fails[0] ? _("; failed: ") : "", fails);
          err = gpg_error (GPG_ERR_CHECKSUM);
        }
      else if (bad_pw && bad_fails[0])
        {
          ks_ui_errorf (ui, _("could not open '%s' with the %u shards"
                              " found: the password is wrong, or the backup"
                              " needs more shards than the servers that"
                              " answered hold; unreachable: %s"),
                        name, bad_found, bad_fails);
          err = gpg_error (GPG_ERR_BAD_PASSPHRASE);
        }
      else if (bad_pw)
        {
          ks_ui_errorf (ui, _("wrong password for '%s' (or damaged shards);"
                              " profiles tried: %s"), name, tried);
          err = gpg_error (GPG_ERR_BAD_PASSPHRASE);
        }
      else if (too_few)
        {
          ks_ui_errorf (ui, _("only %u shards of '%s' found, at least %u are"
                              " needed%s%s"), best_found, name, best_k,
                        fails[0] ? _("; unreachable: ") : "", fails);
          err = gpg_error (GPG_ERR_NO_DATA);
        }
      else if (!ks_fetch_answered (f))
        {
          ks_ui_errorf (ui, _("no server could be reached: %s"), fails);
          err = gpg_error (GPG_ERR_NETWORK);
        }
      else
        {
          ks_ui_errorf (ui, _("no backup named '%s' found (profiles"
                              " tried: %s)%s%s"), name, tried,
                        fails[0] ? _("; unreachable: ") : "", fails);
          err = gpg_error (GPG_ERR_NOT_FOUND);
        }
      goto leave;
    }

  if (to_ui)
    {
      if (!ui->put_secret)
        err = gpg_error (GPG_ERR_NOT_SUPPORTED);
      else
        err = ui->put_secret (ui->arg, secret, secretlen);
      if (err)
        ks_ui_errorf (ui, _("can't write the restored secret: %s"),
                      gpg_strerror (err));
    }
  else
    {
      err = ks_gpg_import (opt->homedir, secret, secretlen, &fpr);
      if (err)
        ks_ui_errorf (ui, _("can't import the restored key into GnuPG: %s"),
                      gpg_strerror (err));
      else
        ks_ui_infof (ui, _("imported secret key %s"), fpr ? fpr : "?");
    }

 leave:
  ks_free_secret (secret, secretlen);
  ks_recover_free (rec);
  gcry_free (f);
  if (pw)
    ks_free_secret (pw, strlen (pw));
  gcry_free (name);
  gcry_free (fpr);
  ks_serverlist_free (list);
  return err;
}
