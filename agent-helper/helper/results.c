/* results.c - the flows' results as Assuan status lines
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A program reads these, so they are words and numbers, not sentences
 * (gpg's doc/DETAILS habit):
 *   BACKUP_SERVER <i> stored|queued|lost|refused|unsent <url> [<reason>]
 *   BACKUP_RESULT <profile> <stored> <n> <k> <queued> restorable|not-restorable
 *   LOCATION <i> answered|failed|not-asked|present|missing|unreachable <url> [<reason>]
 *   RESTORE_RESULT <outcome> <profile|-> <found> <needed> <objects> <bytes>
 *   IMPORTED <fingerprint>
 *   CHECK_RESULT <outcome> <profile|-> <present> <shares> <needed>
 *                restorable|not-restorable <opened> <later-missing>
 * <outcome> is ok, not-found, unreachable, too-few, bad-password,
 * corrupt, not-opened or missing.
 */
#include <config.h>
#include <stdio.h>
#include <stdarg.h>
#include "helper.h"

void
ks_helper_status (assuan_context_t ctx, const char *keyword,
                  const char *fmt, ...)
{
  va_list ap;
  char text[800], buf[800];
  size_t i = 0;
  const unsigned char *s;

  va_start (ap, fmt);
  vsnprintf (text, sizeof text, fmt, ap);
  va_end (ap);
  /* Escape what would break the line; cut it to one Assuan line.  */
  for (s = (const unsigned char *)text; *s && i + 4 < sizeof buf; s++)
    {
      if (*s == '%' || *s < 0x20)
        {
          snprintf (buf + i, 4, "%%%02X", *s);
          i += 3;
        }
      else
        buf[i++] = *s;
    }
  buf[i] = 0;
  assuan_write_status (ctx, keyword, buf);
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

void
ks_helper_status_backup (ks_session_t *s, const ks_backup_result_t *r)
{
  unsigned int i;

  if (!r->uploaded)
    return;
  for (i = 0; i < r->n; i++)
    {
      if (r->outcome[i] == KS_BACKUP_STORED)
        ks_helper_status (s->ctx, "BACKUP_SERVER", "%u stored %s", i + 1,
                          r->loc[i].url);
      else
        ks_helper_status (s->ctx, "BACKUP_SERVER", "%u %s %s %s", i + 1,
                          backup_word (r->outcome[i]), r->loc[i].url,
                          r->loc[i].why);
    }
  ks_helper_status (s->ctx, "BACKUP_RESULT", "%s %u %u %u %zu %s",
                    r->profile, r->nstored, r->n, r->k, r->nqueued,
                    restorable_word (r->restorable));
}

/* One LOCATION line per server of R up to COUNT; with CHECK the words
 * say whether its own share is there.  */
static void
status_locations (ks_session_t *s, const ks_fetch_result_t *r,
                  unsigned int count, int check)
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
        ks_helper_status (s->ctx, "LOCATION", "%u %s %s %s", i + 1, w,
                          l->url, l->why);
      else
        ks_helper_status (s->ctx, "LOCATION", "%u %s %s", i + 1, w, l->url);
    }
}

void
ks_helper_status_restore (ks_session_t *s, const ks_fetch_result_t *r)
{
  if (!r->decided)
    return;
  status_locations (s, r, r->nloc, 0);
  ks_helper_status (s->ctx, "RESTORE_RESULT", "%s %s %u %u %u %zu",
                    outcome_word (r->failure),
                    r->profile ? r->profile : "-", r->found, r->needed,
                    r->nchunks, r->secretlen);
  if (r->fpr)
    ks_helper_status (s->ctx, "IMPORTED", "%s", r->fpr);
}

void
ks_helper_status_check (ks_session_t *s, const ks_fetch_result_t *r)
{
  if (!r->decided)
    return;
  status_locations (s, r, r->failure == KS_FETCH_NOT_FOUND
                    ? r->nloc : r->nshares, 1);
  ks_helper_status (s->ctx, "CHECK_RESULT", "%s %s %u %u %u %s %d %u",
                    outcome_word (r->failure),
                    r->profile ? r->profile : "-", r->present, r->nshares,
                    r->needed, restorable_word (r->restorable), r->opened,
                    r->missing_later);
}
