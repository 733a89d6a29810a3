/* restore.c - the restore flow: name + password -> shards -> secret
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * No version travels with the data, so every known profile is tried,
 * newest first (or only the pinned one): its names are derived, the
 * servers asked, and where shards exist the password is tried.  Only
 * after all profiles is "wrong password" or "not found" decided.
 */
#include <config.h>
#include <stdio.h>
#include "flowutil.h"
#include "gpg.h"
#include "estimate.h"

/* What the profiles tried so far found.  */
struct restore_state
{
  const ks_options_t *opt;
  const ks_ui_t *ui;
  char *pw;                     /* secure memory, owned */
  unsigned int tries;           /* passwords asked again so far */
  ks_fetch_result_t *r;
  int bad_pw, too_few, corrupt;
  unsigned int best_found, best_k, bad_found;
  uint8_t *secret;
  size_t secretlen;
};

/* Fewer shards than PROFILE needs: remember the best such find.  */
static void
note_too_few (struct restore_state *st, const ks_fetch_t *f, unsigned int k)
{
  st->too_few = 1;
  if (f->found > st->best_found)
    st->best_found = f->found, st->best_k = k;
}

/* Fetch every shard of every chunk from every location, then open the
 * shards with the password.  */
static gpg_error_t
unlock (struct restore_state *st, ks_fetch_t *f)
{
  gpg_error_t err;

  /* Everything is fetched before K is derived (protocol.md section 9):
   * a server that sees no request after the puzzle starts learns
   * nothing about R from the timing.  */
  err = ks_fetch_more (st->opt, st->ui, f, NULL);
  if (!err)
    err = ks_fetch_rest (st->opt, st->ui, f);
  if (err)
    return err;
  if (!st->bad_pw)
    ks_fetch_snapshot (f, st->r);
  ks_ui_infof (st->ui, _("found %u shards; solving the puzzle..."),
               f->found);
  return ks_recover_unlock (f->rec, st->pw, strlen (st->pw),
                            st->opt->threads, ks_ui_progress_cb,
                            (void *)st->ui);
}

/* The password did not open the backup: ask for another one, when the
 * face allows it.  The shards and N stay: nothing goes over the network
 * again (a server must not learn when the puzzle ends).  */
static int
ask_again (struct restore_state *st)
{
  char *pw = NULL;

  if (st->tries >= st->opt->password_tries || !st->ui->get_password)
    return 0;
  st->tries++;
  if (st->ui->get_password (st->ui->arg,
                            _("Wrong password. Password of the backup"),
                            0, &pw) || !pw || !*pw)
    {
      if (pw)
        ks_free_secret (pw, strlen (pw));
      return 0;
    }
  ks_free_secret (st->pw, strlen (st->pw));
  st->pw = pw;
  ks_ui_infof (st->ui, _("trying the new password on the same shards..."));
  return 1;
}

/* One profile: the shards of chunk 0 are in F.  The servers' states of
 * the last profile explain the outcome, except that those of a wrong
 * password stay once one was seen.  */
static gpg_error_t
try_profile (void *arg, const ks_profile_t *profile, ks_fetch_t *f,
             int *r_stop)
{
  struct restore_state *st = arg;
  unsigned int k = st->r->needed;
  gpg_error_t err;

  if (!st->bad_pw)
    ks_fetch_snapshot (f, st->r);
  if (st->opt->verbose)
    ks_ui_infof (st->ui, _("profile '%s': %u shards found"), profile->name,
                 f->found);
  if (!f->found)
    return 0;
  /* The first profile with shards, until one opens.  */
  if (!st->r->profile)
    st->r->profile = profile->name;
  if (f->found < 2)
    {
      note_too_few (st, f, k);
      return 0;
    }
  err = unlock (st, f);
  while (gpg_err_code (err) == GPG_ERR_BAD_PASSPHRASE && f->found >= k
         && ask_again (st))
    err = ks_recover_unlock (f->rec, st->pw, strlen (st->pw),
                             st->opt->threads, ks_ui_progress_cb,
                             (void *)st->ui);
  if (gpg_err_code (err) == GPG_ERR_BAD_PASSPHRASE && f->found < k)
    {
      /* Fewer shards than the threshold cannot open it: that is no
       * proof of a wrong password.  */
      note_too_few (st, f, k);
      return 0;
    }
  if (gpg_err_code (err) == GPG_ERR_BAD_PASSPHRASE)
    {
      ks_fetch_snapshot (f, st->r);
      st->bad_pw = 1;
      st->bad_found = f->found;
      return 0;
    }
  if (err)
    {
      ks_ui_errorf (st->ui, _("can't open the backup: %s"),
                    gpg_strerror (err));
      return err;
    }
  err = ks_recover_finish (f->rec, &st->secret, &st->secretlen);
  if (err)
    {
      st->corrupt = 1;
      st->r->detail = err;
      ks_fetch_snapshot (f, st->r);
      return 0;
    }
  *r_stop = 1;
  st->r->profile = profile->name;
  st->r->opened = 1;
  st->r->found = f->found;
  st->r->secretlen = st->secretlen;
  st->r->nchunks = ks_recover_nchunks (f->rec);
  return 0;
}

/* Nothing restored: why, in R, and the error code.  */
static gpg_error_t
classify (struct restore_state *st, const ks_fetch_t *f)
{
  ks_fetch_result_t *r = st->r;

  if (st->corrupt)
    {
      r->failure = KS_FETCH_CORRUPT;
      return gpg_error (GPG_ERR_CHECKSUM);
    }
  if (st->bad_pw)
    {
      r->failure = KS_FETCH_BAD_PASSWORD;
      r->found = st->bad_found;
      return gpg_error (GPG_ERR_BAD_PASSPHRASE);
    }
  if (st->too_few)
    {
      r->failure = KS_FETCH_TOO_FEW;
      r->found = st->best_found;
      r->needed = st->best_k;
      return gpg_error (GPG_ERR_NO_DATA);
    }
  r->failure = ks_fetch_answered (f) ? KS_FETCH_NOT_FOUND
                                     : KS_FETCH_UNREACHABLE;
  return gpg_error (ks_fetch_answered (f) ? GPG_ERR_NOT_FOUND
                                          : GPG_ERR_NETWORK);
}

/* Hand the secret out: to the face, or into GnuPG.  */
static gpg_error_t
deliver (const ks_options_t *opt, const ks_ui_t *ui, int to_ui,
         struct restore_state *st)
{
  gpg_error_t err;

  if (to_ui)
    {
      if (!ui->put_secret)
        err = gpg_error (GPG_ERR_NOT_SUPPORTED);
      else
        err = ui->put_secret (ui->arg, st->secret, st->secretlen);
      if (err)
        ks_ui_errorf (ui, _("can't write the restored secret: %s"),
                      gpg_strerror (err));
      return err;
    }
  err = ks_gpg_import (opt->homedir, st->secret, st->secretlen,
                       &st->r->fpr);
  if (err)
    ks_ui_errorf (ui, _("can't import the restored key into GnuPG: %s"),
                  gpg_strerror (err));
  return err;
}

gpg_error_t
ks_flow_restore (const ks_options_t *opt, const ks_ui_t *ui, int to_ui,
                 ks_fetch_result_t *r)
{
  gpg_error_t err;
  char *pw = NULL;
  ks_item_t item;
  struct restore_state st;
  ks_op_t op;

  opt = ks_op_begin (&op, opt);
  memset (&st, 0, sizeof st);
  err = ks_flow_begin_item (opt, ui, _("Name of the backup to restore"),
                            &item, r);
  if (!err)
    ks_flow_tell_estimate (opt, ui, item.pinned ? item.pinned
                                                : ks_profile_default (), 1);
  if (!err)
    err = ks_flow_get_password (opt, ui, _("Password of the backup"), 0,
                                &pw);
  if (err)
    goto leave;
  ks_flow_warn_tor (opt, ui, item.list, item.list->count);
  st.opt = opt;
  st.ui = ui;
  st.pw = pw;
  pw = NULL;
  st.r = r;
  err = ks_fetch_locate (opt, ui, item.pinned, r->name, item.keyid,
                         item.list, 1, item.f, r, try_profile, &st);
  if (err)
    goto leave;
  r->decided = 1;
  if (!r->opened)
    err = classify (&st, item.f);
  else
    err = deliver (opt, ui, to_ui, &st);

 leave:
  ks_free_secret (st.secret, st.secretlen);
  if (pw)
    ks_free_secret (pw, strlen (pw));
  if (st.pw)
    ks_free_secret (st.pw, strlen (st.pw));
  ks_flow_end_item (&item);
  ks_op_end (&op);
  return err;
}
