/* status.c - the flows' results as keyword status lines
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * One vocabulary for both faces: keysafe writes these after
 * "[KEYSAFE:] " on --status-fd, keysafe-helper sends them as Assuan
 * status lines.  A program reads them, so they are words and numbers,
 * not sentences (gpg's doc/DETAILS habit); doc/keysafe.1 lists them:
 *   BACKUP_SERVER <i> stored|queued|lost|refused|unsent <url> [<reason>]
 *   BACKUP_RESULT <profile> <stored> <n> <k> <queued> restorable|not-restorable
 *   LOCATION <i> answered|failed|not-asked|present|missing|unreachable <url> [<reason>]
 *   RESTORE_RESULT <outcome> <profile|-> <found> <needed> <objects>
 *   IMPORTED <fingerprint>
 *   CHECK_RESULT <outcome> <profile|-> <present> <shares> <needed>
 *                restorable|not-restorable <opened> <later-missing>
 *   QUEUE_LOCATION <i> answered|failed <url> <sent> <left> <dropped>
 *                  <refused> [<reason>]
 *   QUEUE_RESULT ok|empty|unreadable|transfer|left <sent> <left> <dropped>
 *                <refused>
 *   FIRSTBOOT_RESULT done|already|busy|pending|failed <reason>
 *                    <fingerprint|-> <profile|-> <holding> <n> <k> <queued>
 * <outcome> is ok, not-found, unreachable, too-few, bad-password,
 * corrupt, not-opened or missing.  <reason> is a keyword too
 * (transport.c, ks_xfer_reason): unreachable, timeout, proxy, pow-limit, full,
 * not-found, taken, too-large, overloaded, pow-refused,
 * unexpected-status; a backup adds not-held (the name is answered taken
 * but the shard is not there) and not-sent.  RESTORE_RESULT gives no
 * byte count: the exact length of a secret tells its key type and size
 * to whoever reads a log.
 * A firstboot <reason> is ok, no-home,
 * lock, pending-read, pending-write, list-keys, no-key, userid,
 * create-key, queue, backup, not-restorable or marker.
 */
#include <config.h>
#include <stdio.h>
#include <stdarg.h>
#include "keysafe-client.h"

static void
emit (ks_status_cb_t cb, void *arg, const char *keyword, const char *fmt,
      ...)
{
  va_list ap;
  char text[800];

  va_start (ap, fmt);
  vsnprintf (text, sizeof text, fmt, ap);
  va_end (ap);
  cb (arg, keyword, text);
}

static const char *
outcome_word (ks_fetch_failure_t failure)
{
  switch (failure)
    {
    case KS_FETCH_OK: return "ok";
    case KS_FETCH_NOT_FOUND: return "not-found";
    case KS_FETCH_UNREACHABLE: return "unreachable";
    case KS_FETCH_TOO_FEW: return "too-few";
    case KS_FETCH_BAD_PASSWORD: return "bad-password";
    case KS_FETCH_CORRUPT: return "corrupt";
    case KS_FETCH_NOT_OPENED: return "not-opened";
    case KS_FETCH_MISSING: return "missing";
    }
  return "?";
}

static const char *
restorable_word (int restorable)
{
  return restorable ? "restorable" : "not-restorable";
}

static const char *
backup_word (ks_backup_outcome_t o)
{
  switch (o)
    {
    case KS_BACKUP_STORED: return "stored";
    case KS_BACKUP_QUEUED: return "queued";
    case KS_BACKUP_LOST: return "lost";
    case KS_BACKUP_REFUSED: return "refused";
    case KS_BACKUP_UNSENT: return "unsent";
    }
  return "unknown";
}

/* A location that failed without a transfer (a backup that stopped
 * before sending to it) has no reason of its own.  */
static const char *
reason_word (const ks_location_t *l)
{
  return l->reason ? l->reason : "not-sent";
}

void
ks_status_backup (const ks_backup_result_t *r, ks_status_cb_t cb, void *arg)
{
  unsigned int i;

  if (!r->uploaded)
    return;
  for (i = 0; i < r->n; i++)
    {
      if (r->outcome[i] == KS_BACKUP_STORED)
        emit (cb, arg, "BACKUP_SERVER", "%u stored %s", i + 1,
              r->loc[i].url);
      else
        emit (cb, arg, "BACKUP_SERVER", "%u %s %s %s", i + 1,
              backup_word (r->outcome[i]), r->loc[i].url,
              reason_word (&r->loc[i]));
    }
  emit (cb, arg, "BACKUP_RESULT", "%s %u %u %u %zu %s",
        r->profile, r->nstored, r->n, r->k, r->nqueued,
        restorable_word (r->restorable));
}

/* One LOCATION line per server of R up to COUNT; with CHECK the words
 * say whether its own share is there.  */
static void
status_locations (const ks_fetch_result_t *r, unsigned int count, int check,
                  ks_status_cb_t cb, void *arg)
{
  static const char *const words[] = { "not-asked", "answered", "failed" };
  unsigned int i;

  for (i = 0; i < count && i < r->nloc; i++)
    {
      const ks_location_t *l = &r->loc[i];
      const char *w = words[l->state];

      if (check)
        w = l->has_shard ? "present"
            : l->state == KS_LOC_FAILED ? "unreachable" : "missing";
      if (l->state == KS_LOC_FAILED)
        emit (cb, arg, "LOCATION", "%u %s %s %s", i + 1, w, l->url,
              reason_word (l));
      else
        emit (cb, arg, "LOCATION", "%u %s %s", i + 1, w, l->url);
    }
}

void
ks_status_restore (const ks_fetch_result_t *r, ks_status_cb_t cb, void *arg)
{
  if (!r->decided)
    return;
  status_locations (r, r->nloc, 0, cb, arg);
  emit (cb, arg, "RESTORE_RESULT", "%s %s %u %u %u",
        outcome_word (r->failure), r->profile ? r->profile : "-",
        r->found, r->needed, r->nchunks);
  if (r->fpr)
    emit (cb, arg, "IMPORTED", "%s", r->fpr);
}

void
ks_status_check (const ks_fetch_result_t *r, ks_status_cb_t cb, void *arg)
{
  if (!r->decided)
    return;
  status_locations (r, r->failure == KS_FETCH_NOT_FOUND
                    ? r->nloc : r->nshares, 1, cb, arg);
  emit (cb, arg, "CHECK_RESULT", "%s %s %u %u %u %s %d %u",
        outcome_word (r->failure), r->profile ? r->profile : "-",
        r->present, r->nshares, r->needed, restorable_word (r->restorable),
        r->opened, r->missing_later);
}

void
ks_status_queue (const ks_queue_result_t *r, ks_status_cb_t cb, void *arg)
{
  static const char *const words[] = { "ok", "empty", "unreadable",
                                       "transfer", "left" };
  unsigned int i;

  for (i = 0; i < r->nloc; i++)
    {
      const ks_queue_location_t *l = &r->loc[i];
      int failed = l->state == KS_LOC_FAILED;

      emit (cb, arg, "QUEUE_LOCATION", "%u %s %s %zu %zu %zu %zu%s%s",
            i + 1, failed ? "failed" : "answered", l->url, l->sent, l->left,
            l->dropped, l->refused, failed ? " " : "",
            failed ? l->reason : "");
    }
  emit (cb, arg, "QUEUE_RESULT", "%s %zu %zu %zu %zu", words[r->failure],
        r->nsent, r->nleft, r->ndropped, r->nrefused);
}

void
ks_status_firstboot (const ks_firstboot_result_t *r, ks_status_cb_t cb,
                     void *arg)
{
  static const char *const outcomes[] = { "failed", "done", "already",
                                          "busy", "pending" };
  static const char *const reasons[] = {
    "ok", "no-home", "lock", "pending-read", "pending-write", "list-keys",
    "no-key", "userid", "create-key", "queue", "backup", "not-restorable",
    "marker" };

  if (r->resumed)
    ks_status_queue (&r->queue, cb, arg);
  ks_status_backup (&r->backup, cb, arg);
  emit (cb, arg, "FIRSTBOOT_RESULT", "%s %s %s %s %u %u %u %zu",
        outcomes[r->outcome], reasons[r->failure], *r->fpr ? r->fpr : "-",
        *r->profile ? r->profile : "-", r->holding, r->n, r->k, r->queued);
}
