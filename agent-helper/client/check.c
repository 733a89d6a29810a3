/* check.c - are all my shards still stored?
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * With the name alone the first shard of every share is looked for on
 * its server.  With the password too, the backup is opened (as a restore
 * would, without importing anything) and every shard of every object is
 * fetched, so the answer also says that the backup really restores.
 */
#include <config.h>
#include <stdio.h>
#include "flowutil.h"
#include "gpg.h"

gpg_error_t
ks_flow_check (const ks_options_t *opt, const ks_ui_t *ui)
{
  gpg_error_t err;
  ks_serverlist_t *list = NULL;
  char *name = NULL, *pw = NULL;
  char keyidbuf[KS_KEYID_BUFSIZE];
  const char *keyid = NULL;
  const ks_profile_t *pinned = NULL;
  unsigned int pidx, nprof, i, n = 0, k = 0, present = 0;
  ks_recover_t *rec = NULL;
  ks_fetch_t *f = NULL;
  uint8_t *secret = NULL;
  size_t secretlen = 0;
  int found = 0, complete = 1, restorable;
  char fails[2048];

  err = ks_flow_begin_item (opt, ui, _("Name of the backup to check"), &pinned, &list,
                            keyidbuf, &keyid, &name);
  if (err)
    goto leave;
  /* The password is optional here: without it only presence is told.  */
  if (ui->get_password
      && ui->get_password (ui->arg, _("Password of the backup (to check"
                                      " that it opens)"), 0, &pw))
    pw = NULL;
  if (pw && !*pw)
    {
      ks_free_secret (pw, 1);
      pw = NULL;
    }
  f = gcry_calloc (1, sizeof *f);
  if (!f)
    {
      err = gpg_error_from_syserror ();
      goto leave;
    }

  nprof = pinned ? 1 : ks_profile_count ();
  for (pidx = 0; pidx < nprof && !found; pidx++)
    {
      const ks_profile_t *profile = pinned ? pinned : ks_profile_nth (pidx);

      n = opt->shares ? opt->shares : profile->shares;
      k = opt->threshold ? opt->threshold : profile->threshold;
      if (n > list->count)
        n = list->count;
      ks_recover_free (rec);
      rec = NULL;
      err = ks_recover_new (profile, name, keyid, ks_ui_progress_cb,
                            (void *)ui, &rec);
      if (err)
        goto leave;
      /* K = 0: only server I for share I, which is what is checked.  */
      err = ks_fetch_chunk0 (opt, ui, rec, list, 0, f);
      if (err)
        goto leave;
      if (f->found)
        found = 1;
    }
  if (!found)
    {
      ks_ui_errorf (ui, _("no shard of '%s' found on any server%s%s"), name,
                    ks_fetch_failures (f, fails, sizeof fails)[0]
                    ? _("; unreachable: ") : "", fails);
      err = gpg_error (GPG_ERR_NOT_FOUND);
      goto leave;
    }

  for (i = 1; i <= n; i++)
    {
      if (f->share_server[i] == (int)(i - 1))
        {
          present++;
          ks_ui_infof (ui, _("server %u (%s): shard present"), i,
                       list->server[i - 1].url);
        }
      else if (f->state[i - 1] == 2)
        ks_ui_infof (ui, _("server %u (%s): unreachable: %s"), i,
                     list->server[i - 1].url, f->why[i - 1]);
      else
        ks_ui_infof (ui, _("server %u (%s): shard MISSING"), i,
                     list->server[i - 1].url);
    }

  restorable = present >= k;
  if (pw)
    {
      uint32_t j, nchunks;
      unsigned int missing = 0;

      err = ks_recover_unlock (rec, pw, strlen (pw), opt->threads,
                               ks_ui_progress_cb, (void *)ui);
      if (err)
        {
          ks_ui_errorf (ui, _("the shards are there but the backup does"
                              " not open: %s"), gpg_strerror (err));
          goto leave;
        }
      err = ks_fetch_rest (opt, ui, f);
      if (err)
        goto leave;
      nchunks = ks_recover_nchunks (rec);
      for (j = 1; j < nchunks; j++)
        missing += present - ks_recover_shard_count (rec, j);
      err = ks_recover_finish (rec, &secret, &secretlen);
      if (err)
        {
          ks_ui_errorf (ui, _("the backup does not restore: %s"),
                        gpg_strerror (err));
          goto leave;
        }
      ks_ui_infof (ui, _("the backup opens and restores (%u objects);"
                         " %u later shards missing"),
                   (unsigned int)nchunks, missing);
      if (missing)
        complete = 0;
      restorable = 1;
    }

  if (present == n && complete)
    ks_ui_infof (ui, _("all %u shards of '%s' are stored"), n, name);
  else
    {
      ks_ui_errorf (ui, _("some shards of '%s' are missing; the backup"
                          " is %s"), name,
                    restorable ? _("still restorable")
                                 : _("NOT restorable"));
      err = gpg_error (GPG_ERR_MISSING_VALUE);
    }

 leave:
  ks_free_secret (secret, secretlen);
  ks_recover_free (rec);
  gcry_free (f);
  if (pw)
    ks_free_secret (pw, strlen (pw));
  gcry_free (name);
  ks_serverlist_free (list);
  return err;
}
