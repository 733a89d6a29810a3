/* results.c - the flows' results as Assuan status lines
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The keywords are those of --status-fd in keysafe (the client
 * library's status.c); here they travel as Assuan status lines.  They
 * are for programs: words and numbers, never translated prose (that
 * goes to INFO and ERROR_TEXT).
 *
 *   BACKUP_SERVER <i> stored|queued|lost|refused|unsent <url> [<reason>]
 *   LOCATION <i> <state> <url> [<reason>]
 *   RESTORE_RESULT <outcome> <profile|-> <found> <needed> <objects>
 *
 * <reason>, after a location that failed, is one of
 *   unreachable        no answer (connection, proxy, a missing folder)
 *   timeout            no answer in time
 *   proxy              the SOCKS proxy (Tor) failed
 *   pow-limit          it asked more proof of work than allowed
 *   full               it answered 507, or the folder's disk is full
 *   not-found          it answered 404
 *   taken              it answered 409
 *   too-large          it answered 413
 *   overloaded         it answered 429
 *   pow-refused        it answered 403
 *   unexpected-status  any other answer
 *   not-held           it answered 409 but does not hold the shard
 *   not-sent           the backup stopped before sending to it
 * RESTORE_RESULT has no byte count: the exact length of the secret
 * would tell its key type to whoever reads a log of these lines.
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

static void
send_status (void *arg, const char *keyword, const char *text)
{
  ks_session_t *s = arg;

  ks_helper_status (s->ctx, keyword, "%s", text);
}

void
ks_helper_status_backup (ks_session_t *s, const ks_backup_result_t *r)
{
  ks_status_backup (r, send_status, s);
}

void
ks_helper_status_restore (ks_session_t *s, const ks_fetch_result_t *r)
{
  ks_status_restore (r, send_status, s);
}

void
ks_helper_status_check (ks_session_t *s, const ks_fetch_result_t *r)
{
  ks_status_check (r, send_status, s);
}

void
ks_helper_status_queue (ks_session_t *s, const ks_queue_result_t *r)
{
  ks_status_queue (r, send_status, s);
}
