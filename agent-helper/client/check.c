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

/* Stop at the first profile with a shard.  */
static gpg_error_t
try_profile (void *arg, const ks_profile_t *profile, ks_fetch_t *f,
             int *r_stop)
{
  ks_fetch_result_t *r = arg;

  r->profile = profile->name;
  *r_stop = f->found > 0;
  return 0;
}

/* The password is optional here: without it only presence is told.  */
static char *
get_optional_password (const ks_ui_t *ui)
{
  char *pw = NULL;

  if (ui->get_password
      && ui->get_password (ui->arg, _("Password of the backup (to check"
                                      " that it opens)"), 0, &pw))
    pw = NULL;
  if (pw && !*pw)
    {
      ks_free_secret (pw, 1);
      pw = NULL;
    }
  return pw;
}

/* Open the backup with PW and fetch every later shard: R->opened, the
 * shards of later objects missing, or the error in R->detail.  */
static gpg_error_t
open_all (const ks_options_t *opt, const ks_ui_t *ui, ks_fetch_t *f,
          const char *pw, ks_fetch_result_t *r)
{
  gpg_error_t err;
  uint32_t j;
  uint8_t *secret = NULL;
  size_t secretlen = 0;

  /* Every chunk before K is derived (protocol.md section 9).  */
  err = ks_fetch_rest (opt, ui, f);
  if (err)
    return err;
  err = ks_recover_unlock (f->rec, pw, strlen (pw), opt->threads,
                           ks_ui_progress_cb, (void *)ui);
  if (err)
    {
      r->failure = KS_FETCH_NOT_OPENED;
      r->detail = err;
      return err;
    }
  r->nchunks = ks_recover_nchunks (f->rec);
  for (j = 1; j < r->nchunks; j++)
    r->missing_later += r->present - ks_recover_shard_count (f->rec, j);
  err = ks_recover_finish (f->rec, &secret, &secretlen);
  ks_free_secret (secret, secretlen);
  if (err)
    {
      r->failure = KS_FETCH_CORRUPT;
      r->detail = err;
      return err;
    }
  r->opened = 1;
  r->restorable = 1;
  return 0;
}

gpg_error_t
ks_flow_check (const ks_options_t *opt, const ks_ui_t *ui,
               ks_fetch_result_t *r)
{
  gpg_error_t err;
  char *pw = NULL;
  ks_item_t item;
  ks_fetch_t *f;
  unsigned int i, n;
  ks_op_t op;

  opt = ks_op_begin (&op, opt);
  err = ks_flow_begin_item (opt, ui, _("Name of the backup to check"),
                            &item, r);
  if (err)
    goto leave;
  pw = get_optional_password (ui);
  f = item.f;
  err = ks_fetch_locate (opt, ui, item.pinned, r->name, item.keyid,
                         item.list, 0, f, r, try_profile, r);
  if (err)
    goto leave;
  ks_fetch_snapshot (f, r);
  if (!f->found)
    {
      r->decided = 1;
      r->profile = NULL;
      r->failure = KS_FETCH_NOT_FOUND;
      err = gpg_error (GPG_ERR_NOT_FOUND);
      goto leave;
    }

  n = opt->shares ? opt->shares : ks_recover_profile (f->rec)->shares;
  if (n > r->nloc)
    n = r->nloc;
  r->nshares = n;
  for (i = 1; i <= n; i++)
    if (f->share_server[i] == (int)(i - 1))
      {
        r->loc[i - 1].has_shard = 1;
        r->present++;
      }
  r->found = f->found;
  r->restorable = r->present >= r->needed;
  if (pw)
    {
      err = open_all (opt, ui, f, pw, r);
      /* Not opening is a verdict; a failing machinery is not.  */
      r->decided = r->failure != KS_FETCH_OK;
      if (err)
        goto leave;
    }
  r->decided = 1;
  if (r->present < n || r->missing_later)
    {
      r->failure = KS_FETCH_MISSING;
      err = gpg_error (GPG_ERR_MISSING_VALUE);
    }

 leave:
  if (pw)
    ks_free_secret (pw, strlen (pw));
  ks_flow_end_item (&item);
  ks_op_end (&op);
  return err;
}
