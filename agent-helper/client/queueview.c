/* queueview.c - keysafe queue: what waits, per location
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The upload queue (queue.h) seen per location: how many shards wait
 * and since when, whether a directory location is there now, and the
 * dropping of a location's entries when it is gone for good.  A shard
 * that waits for a location that is gone is told on every run, with
 * its age, so it never waits silently.
 */
#include <config.h>
#include <stdio.h>
#include <time.h>
#include <sys/stat.h>
#include "flowutil.h"
#include "queue.h"
#include "dirstore.h"
#include "location.h"

/* One location of the queue.  */
struct qloc
{
  const char *url;              /* into the queue's entries */
  size_t count;
  time_t oldest;
};

/* Group the N entries of Q by location into LOCS (room for N).  */
static size_t
group (const ks_queue_entry_t *q, size_t n, struct qloc *locs)
{
  size_t i, j, nloc = 0;
  struct stat st;

  for (i = 0; i < n; i++)
    {
      time_t t = stat (q[i].path, &st) ? time (NULL) : st.st_mtime;

      for (j = 0; j < nloc; j++)
        if (!strcmp (locs[j].url, q[i].url))
          break;
      if (j == nloc)
        {
          locs[nloc].url = q[i].url;
          locs[nloc].count = 0;
          locs[nloc].oldest = t;
          nloc++;
        }
      locs[j].count++;
      if (t < locs[j].oldest)
        locs[j].oldest = t;
    }
  return nloc;
}

static void
format_age (time_t since, char *buf, size_t size)
{
  long days = (long)((time (NULL) - since) / 86400);

  if (days < 1)
    snprintf (buf, size, "%s", _("less than a day"));
  else
    snprintf (buf, size, ngettext ("%ld day", "%ld days", days), days);
}

static void
tell_location (const ks_ui_t *ui, const struct qloc *l, int listing)
{
  char age[64];
  int gone = ks_dirstore_is_url (l->url) && ks_dirstore_is_present (l->url);

  format_age (l->oldest, age, sizeof age);
  if (listing)
    ks_ui_infof (ui, ngettext ("%s: %zu shard waits, the oldest for %s%s",
                               "%s: %zu shards wait, the oldest for %s%s",
                               l->count),
                 l->url, l->count, age,
                 gone ? _(" (the location is not there now)") : "");
  else if (gone)
    ks_ui_infof (ui, ngettext ("%zu shard has waited %s for %s, which is"
                               " not there; mount it and run 'keysafe"
                               " upload-queued', or 'keysafe queue --drop"
                               " %s'",
                               "%zu shards have waited %s for %s, which is"
                               " not there; mount it and run 'keysafe"
                               " upload-queued', or 'keysafe queue --drop"
                               " %s'", l->count),
                 l->count, age, l->url, l->url);
}

/* True if the queued URL QURL names the location WANT (a canonical
 * identity, or URL itself when it has none).  */
static int
same_location (const char *qurl, const char *want)
{
  char *id = NULL;
  int same;

  if (ks_location_canon_id (qurl, &id))
    return !strcmp (qurl, want);
  same = !strcmp (id, want);
  gcry_free (id);
  return same;
}

/* Drop the entries of Q that wait for URL, compared as locations are
 * (common/location.h: case of scheme and host, default port, trailing
 * slashes).  */
static gpg_error_t
drop_location (const ks_ui_t *ui, const ks_queue_entry_t *q, size_t n,
               const char *url)
{
  gpg_error_t err = 0;
  size_t i, ndropped = 0;
  char *want = NULL;

  if (ks_location_canon_id (url, &want))
    want = NULL;
  for (i = 0; i < n && !err; i++)
    if (same_location (q[i].url, want ? want : url))
      {
        err = ks_queue_remove (&q[i]);
        if (!err)
          ndropped++;
      }
  if (err)
    ks_ui_errorf (ui, _("can't drop a queued shard: %s"), gpg_strerror (err));
  else if (!ndropped)
    {
      ks_ui_errorf (ui, _("no shard waits for %s"), url);
      err = gpg_error (GPG_ERR_NOT_FOUND);
    }
  else
    ks_ui_errorf (ui, ngettext ("dropped %zu shard queued for %s",
                                "dropped %zu shards queued for %s",
                                ndropped), ndropped, url);
  gcry_free (want);
  return err;
}

/* Tell (LISTING) every location of the queue, or only those that are
 * gone.  */
static gpg_error_t
queue_report (const ks_options_t *opt, const ks_ui_t *ui, int listing,
              const char *drop)
{
  gpg_error_t err;
  ks_queue_entry_t *q = NULL;
  struct qloc *locs = NULL;
  size_t n = 0, nloc, i;

  err = ks_queue_list (opt->homedir, &q, &n);
  if (err)
    {
      ks_ui_errorf (ui, _("can't read the upload queue: %s"),
                    gpg_strerror (err));
      return err;
    }
  if (drop)
    err = drop_location (ui, q, n, drop);
  else if (!n && listing)
    ks_ui_errorf (ui, _("the upload queue is empty"));
  else if (n)
    {
      locs = ks_calloc (n, sizeof *locs);
      if (!locs)
        err = gpg_error_from_syserror ();
      nloc = locs ? group (q, n, locs) : 0;
      for (i = 0; i < nloc; i++)
        tell_location (ui, &locs[i], listing);
      ks_free (locs);
    }
  ks_queue_list_free (q, n);
  return err;
}

gpg_error_t
ks_flow_queue (const ks_options_t *opt, const ks_ui_t *ui, const char *drop)
{
  return queue_report (opt, ui, 1, drop);
}

void
ks_flow_queue_notice (const ks_options_t *opt, const ks_ui_t *ui)
{
  queue_report (opt, ui, 0, NULL);
}
