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
