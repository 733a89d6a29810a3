/* render.c - the command line's sentences for the flows' results
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>
#include <stdio.h>
#include "keysafe.h"
#include "render.h"

/* "url (reason), url (reason)" of the servers that failed, into BUF.  */
static const char *
failures (const ks_fetch_result_t *r, char *buf, size_t size)
{
  unsigned int s;
  size_t used = 0;

  *buf = 0;
  for (s = 0; s < r->nloc && used < size; s++)
    if (r->loc[s].state == KS_LOC_FAILED)
      {
        int n = snprintf (buf + used, size - used, "%s%s (%s)",
                          used ? ", " : "", r->loc[s].url, r->loc[s].why);
        if (n < 0)
          break;
        used += n;
      }
  return buf;
}

void
ks_render_backup (const ks_ui_t *ui, const ks_backup_result_t *r)
{
  unsigned int i;

  if (!r->uploaded)
    return;
  for (i = 0; i < r->n; i++)
    if (r->outcome[i] == KS_BACKUP_QUEUED)
      ks_ui_infof (ui, _("server %u (%s) failed: %s"), i + 1,
                   r->loc[i].url, r->loc[i].why);
    else if (r->outcome[i] == KS_BACKUP_REFUSED)
      ks_ui_errorf (ui, _("server %u (%s) refused the backup: %s"), i + 1,
                    r->loc[i].url, r->loc[i].why);
    else if (r->outcome[i] == KS_BACKUP_LOST)
      ks_ui_errorf (ui, ngettext ("server %u (%s) failed: %s; its shards"
                                  " are not kept, because the upload queue"
                                  " holds at most %u shard of a backup",
                                  "server %u (%s) failed: %s; its shards"
                                  " are not kept, because the upload queue"
                                  " holds at most %u shards of a backup",
                                  r->k - 1),
                    i + 1, r->loc[i].url, r->loc[i].why, r->k - 1);
    else if (r->outcome[i] == KS_BACKUP_UNSENT)
      ks_ui_infof (ui, _("server %u (%s): nothing sent"), i + 1,
                   r->loc[i].url);
  if (r->nstored == r->n)
    {
      ks_ui_infof (ui, _("backup '%s' stored: %u of %u servers hold their"
                         " shards; any %u restore it"),
                   r->name, r->nstored, r->n, r->k);
      return;
    }
  if (r->nqueued)
    ks_ui_infof (ui, ngettext ("%zu shard waits in the upload queue %s;"
                             " run 'keysafe upload-queued' when the"
                             " servers are back",
                             "%zu shards wait in the upload queue %s;"
                             " run 'keysafe upload-queued' when the"
                             " servers are back", r->nqueued),
               r->nqueued, r->queue_dir ? r->queue_dir : "");
  if (r->restorable)
    ks_ui_infof (ui, _("the backup is restorable now: %u of %u servers"
                       " hold their shards and %u are needed"),
                 r->nstored, r->n, r->k);
  else if (r->later)
    ks_ui_errorf (ui, _("the backup is NOT restorable yet: only %u"
                        " of %u servers hold their shards and %u are"
                        " needed"), r->nstored, r->n, r->k);
  else
    ks_ui_errorf (ui, _("the backup FAILED and cannot become restorable:"
                        " %u of %u servers hold their shards, %u are"
                        " needed; back up again when more servers"
                        " work"), r->nstored, r->n, r->k);
}

/* Why nothing was restored.  */
static void
render_restore_failure (const ks_ui_t *ui, const ks_fetch_result_t *r)
{
  char fails[2048];

  failures (r, fails, sizeof fails);
  switch (r->failure)
    {
    case KS_FETCH_CORRUPT:
      ks_ui_errorf (ui, _("the password is right but some objects of"
                          " the backup could not be put together: too"
                          " many shards are missing or damaged%s%s"),
                    fails[0] ? _("; failed: ") : "", fails);
      break;
    case KS_FETCH_BAD_PASSWORD:
      if (fails[0])
        ks_ui_errorf (ui, _("could not open '%s' with the %u shards"
                            " found: the password is wrong, or the backup"
                            " needs more shards than the servers that"
                            " answered hold; unreachable: %s"),
                      r->name, r->found, fails);
      else
        ks_ui_errorf (ui, _("wrong password for '%s' (or damaged shards);"
                            " profiles tried: %s"), r->name, r->tried);
      break;
    case KS_FETCH_TOO_FEW:
      ks_ui_errorf (ui, ngettext ("only %u shard of '%s' found, at least"
                                  " %u are needed%s%s",
                                  "only %u shards of '%s' found, at least"
                                  " %u are needed%s%s", r->found),
                    r->found, r->name, r->needed,
                    fails[0] ? _("; unreachable: ") : "", fails);
      break;
    case KS_FETCH_UNREACHABLE:
      ks_ui_errorf (ui, _("no server could be reached: %s"), fails);
      break;
    default:
      ks_ui_errorf (ui, _("no backup named '%s' found (profiles"
                          " tried: %s)%s%s"), r->name, r->tried,
                    fails[0] ? _("; unreachable: ") : "", fails);
      break;
    }
}

void
ks_render_restore (const ks_ui_t *ui, const ks_fetch_result_t *r)
{
  unsigned int s;

  if (!r->decided)
    return;
  if (!r->opened)
    {
      if (r->failure)
        render_restore_failure (ui, r);
      return;
    }
  ks_ui_infof (ui, ngettext ("restored %zu bytes (profile '%s', %u object)",
                             "restored %zu bytes (profile '%s', %u objects)",
                             r->nchunks),
               r->secretlen, r->profile, r->nchunks);
  /* A server that failed is named even when the others sufficed: the
   * user should know which one to drop from the list.  */
  for (s = 0; s < r->nloc; s++)
    if (r->loc[s].state == KS_LOC_FAILED)
      ks_ui_infof (ui, _("server %s did not help: %s"), r->loc[s].url,
                   r->loc[s].why);
  if (r->fpr)
    ks_ui_infof (ui, _("imported secret key %s"), r->fpr);
}

void
ks_render_check (const ks_ui_t *ui, const ks_fetch_result_t *r)
{
  char fails[2048];
  unsigned int i;

  if (!r->decided)
    return;
  if (r->failure == KS_FETCH_NOT_FOUND)
    {
      ks_ui_errorf (ui, _("no shard of '%s' found on any server%s%s"),
                    r->name, failures (r, fails, sizeof fails)[0]
                    ? _("; unreachable: ") : "", fails);
      return;
    }
  for (i = 0; i < r->nshares; i++)
    {
      const ks_location_t *l = &r->loc[i];

      if (l->has_shard)
        ks_ui_infof (ui, _("server %u (%s): shard present"), i + 1, l->url);
      else if (l->state == KS_LOC_FAILED)
        ks_ui_infof (ui, _("server %u (%s): unreachable: %s"), i + 1,
                     l->url, l->why);
      else
        ks_ui_infof (ui, _("server %u (%s): shard MISSING"), i + 1, l->url);
    }
  if (r->failure == KS_FETCH_NOT_OPENED)
    {
      ks_ui_errorf (ui, _("the shards are there but the backup does"
                          " not open: %s"), gpg_strerror (r->detail));
      return;
    }
  if (r->failure == KS_FETCH_CORRUPT)
    {
      ks_ui_errorf (ui, _("the backup does not restore: %s"),
                    gpg_strerror (r->detail));
      return;
    }
  if (r->opened)
    ks_ui_infof (ui, ngettext ("the backup opens and restores (%u object);"
                               " %u later shards missing",
                               "the backup opens and restores (%u objects);"
                               " %u later shards missing", r->nchunks),
                 r->nchunks, r->missing_later);
  if (r->failure == KS_FETCH_MISSING)
    ks_ui_errorf (ui, _("some shards of '%s' are missing; the backup"
                        " is %s"), r->name,
                  r->restorable ? _("still restorable")
                                : _("NOT restorable"));
  else
    ks_ui_infof (ui, _("all %u shards of '%s' are stored"), r->nshares,
                 r->name);
}

void
ks_render_queue (const ks_ui_t *ui, const ks_queue_result_t *r)
{
  unsigned int i;

  switch (r->failure)
    {
    case KS_QUEUE_UNREADABLE:
      ks_ui_errorf (ui, _("can't read the upload queue: %s"),
                    gpg_strerror (r->detail));
      return;
    case KS_QUEUE_TRANSFER:
      ks_ui_errorf (ui, _("can't send the queued shards: %s"),
                    gpg_strerror (r->detail));
      return;
    case KS_QUEUE_EMPTY:
      ks_ui_infof (ui, _("the upload queue is empty"));
      return;
    default:
      break;
    }
  for (i = 0; i < r->nloc; i++)
    {
      const ks_queue_location_t *l = &r->loc[i];

      if (l->state == KS_LOC_FAILED && l->left)
        ks_ui_infof (ui, ngettext ("%s: %s; %zu shard stays queued",
                                   "%s: %s; %zu shards stay queued",
                                   l->left), l->url, l->why, l->left);
      if (l->refused)
        ks_ui_infof (ui, ngettext ("%s answers that a queued name is taken"
                                   " but does not hold the shard; %zu shard"
                                   " dropped",
                                   "%s answers that queued names are taken"
                                   " but does not hold the shards; %zu"
                                   " shards dropped", l->refused),
                     l->url, l->refused);
    }
  if (r->ndropped)
    ks_ui_infof (ui, ngettext ("%zu queued shard dropped: its backup never"
                               " got enough shards out to be restorable",
                               "%zu queued shards dropped: their backup"
                               " never got enough shards out to be"
                               " restorable", r->ndropped), r->ndropped);
  ks_ui_infof (ui, ngettext ("%zu queued shard sent, %zu left",
                             "%zu queued shards sent, %zu left", r->nsent),
               r->nsent, r->nleft);
  if (r->nleft)
    ks_ui_errorf (ui, ngettext ("%zu shard could not be sent; run"
                                " 'keysafe upload-queued' again later",
                                "%zu shards could not be sent; run"
                                " 'keysafe upload-queued' again later",
                                r->nleft), r->nleft);
}

/* HOME/FILE of R into BUF.  */
static const char *
state_path (const ks_firstboot_result_t *r, char *buf, size_t size)
{
  snprintf (buf, size, "%s/%s", r->home ? r->home : "",
            r->file ? r->file : "");
  return buf;
}

/* Why first boot failed.  */
static void
render_firstboot_failure (const ks_ui_t *ui, const ks_firstboot_result_t *r)
{
  const char *home = r->home ? r->home : "";
  const char *file = r->file ? r->file : "";
  const char *why = gpg_strerror (r->detail);
  char path[1024];

  switch (r->failure)
    {
    case KS_FIRSTBOOT_OK:
      break;                    /* the flow told it already */
    case KS_FIRSTBOOT_NO_HOME:
      if (r->home)
        ks_ui_errorf (ui, _("can't create the GnuPG home %s: %s"), home,
                      why);
      else
        ks_ui_errorf (ui, _("can't find the GnuPG home: %s"), why);
      break;
    case KS_FIRSTBOOT_LOCK:
      ks_ui_errorf (ui, _("can't lock %s/%s: %s"), home, file, why);
      break;
    case KS_FIRSTBOOT_PENDING_READ:
      ks_ui_errorf (ui, _("can't read %s: %s; delete it to start over"),
                    state_path (r, path, sizeof path), why);
      break;
    case KS_FIRSTBOOT_PENDING_WRITE:
      ks_ui_errorf (ui, _("can't write %s: %s"),
                    state_path (r, path, sizeof path), why);
      ks_ui_errorf (ui, _("first boot is not done: fewer than %u servers"
                          " hold their shards of the backup of %s; the"
                          " next run sends the queued ones"), r->k, r->fpr);
      break;
    case KS_FIRSTBOOT_LIST_KEYS:
      ks_ui_errorf (ui, _("can't list the secret keys: %s"), why);
      break;
    case KS_FIRSTBOOT_NO_KEY:
      ks_ui_errorf (ui, _("no secret key '%s': %s"),
                    r->keyid ? r->keyid : "", why);
      break;
    case KS_FIRSTBOOT_USERID:
      ks_ui_errorf (ui, _("can't make a user ID from the passwd"
                          " entry (%s); give --userid"), why);
      break;
    case KS_FIRSTBOOT_CREATE_KEY:
      ks_ui_errorf (ui, _("can't create a key for '%s': %s"),
                    r->userid ? r->userid : "", why);
      break;
    case KS_FIRSTBOOT_QUEUE:
      ks_ui_errorf (ui, _("can't read the upload queue: %s"), why);
      break;
    case KS_FIRSTBOOT_BACKUP:
      ks_ui_errorf (ui, _("first boot is not done: the backup of %s failed"
                          " (%s); the next run tries again"), r->fpr, why);
      break;
    case KS_FIRSTBOOT_NOT_RESTORABLE:
      ks_ui_errorf (ui, _("first boot is not done: the backup of %s is"
                          " still not restorable (%u of %u servers hold"
                          " their shards, %u needed); the next run tries"
                          " again"), r->fpr, r->holding, r->n, r->k);
      break;
    case KS_FIRSTBOOT_MARKER:
      ks_ui_errorf (ui, _("can't write the first-boot marker %s/%s: %s"),
                    home, file, why);
      break;
    }
}

void
ks_render_firstboot (const ks_ui_t *ui, const ks_firstboot_result_t *r)
{
  const char *home = r->home ? r->home : "";
  const char *file = r->file ? r->file : "";
  char path[1024];

  if (r->resumed)
    ks_render_queue (ui, &r->queue);
  ks_render_backup (ui, &r->backup);
  switch (r->outcome)
    {
    case KS_FIRSTBOOT_ALREADY:
      ks_ui_infof (ui, _("first boot is done already (%s); nothing to do"),
                   state_path (r, path, sizeof path));
      break;
    case KS_FIRSTBOOT_BUSY:
      ks_ui_infof (ui, _("another keysafe firstboot is running (%s/%s);"
                         " nothing to do"), home, file);
      break;
    case KS_FIRSTBOOT_DONE:
      if (r->queued && r->resumed)
        ks_ui_infof (ui, ngettext ("the backup is restorable: %u of %u"
                                   " servers hold their shards; %zu shard"
                                   " waits in the upload queue for"
                                   " 'keysafe upload-queued'",
                                   "the backup is restorable: %u of %u"
                                   " servers hold their shards; %zu shards"
                                   " wait in the upload queue for"
                                   " 'keysafe upload-queued'", r->queued),
                     r->holding, r->n, r->queued);
      else if (r->queued)
        ks_ui_infof (ui, ngettext ("the backup counts as done: it is"
                                   " restorable now; the %zu queued shard"
                                   " follows with 'keysafe upload-queued'",
                                   "the backup counts as done: it is"
                                   " restorable now; the %zu queued shards"
                                   " follow with 'keysafe upload-queued'",
                                   r->queued), r->queued);
      ks_ui_infof (ui, _("first boot is done: key %s is backed up (profile"
                         " '%s'); marker %s/%s"), r->fpr, r->profile, home,
                   file);
      break;
    case KS_FIRSTBOOT_PENDING:
      ks_ui_errorf (ui, _("first boot is not done: fewer than %u servers"
                          " hold their shards of the backup of %s; the"
                          " next run sends the queued ones"), r->k, r->fpr);
      break;
    case KS_FIRSTBOOT_FAILED:
      render_firstboot_failure (ui, r);
      break;
    }
  if (r->created && r->outcome != KS_FIRSTBOOT_DONE)
    ks_ui_infof (ui, _("the new key %s stays in the keyring"), r->fpr);
}
