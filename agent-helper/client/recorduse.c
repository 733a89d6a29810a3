/* recorduse.c - the flows' use of the backup records
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A backup leaves a record (record.h) of where its shards went; restore
 * and check ask those locations first, in share order, so a restore
 * needs no location option even after the settings changed; `keysafe
 * list` tells the records.
 */
#include <config.h>
#include <stdio.h>
#include <strings.h>
#include <time.h>
#include "flowutil.h"
#include "record.h"
#include "location.h"

void
ks_flow_record_backup (const ks_options_t *opt, const ks_ui_t *ui,
                       const ks_backup_result_t *r, const char *fpr)
{
  gpg_error_t err;
  ks_record_t rec;
  unsigned int i;

  memset (&rec, 0, sizeof rec);
  rec.time = (uint64_t)time (NULL);
  snprintf (rec.profile, sizeof rec.profile, "%s", r->profile);
  if (fpr && (strlen (fpr) == 40 || strlen (fpr) == 64))
    snprintf (rec.fpr, sizeof rec.fpr, "%s", fpr);
  rec.shares = r->n;
  rec.threshold = r->k;
  for (i = 0; i < r->n && i < KS_RECORD_MAX_LOCATIONS; i++)
    rec.locations[rec.nlocations++] = r->loc[i].url;
  err = ks_record_add (opt->homedir, &rec, NULL);
  /* The URLs belong to R: nothing of REC is freed.  */
  if (err)
    ks_ui_infof (ui, _("WARNING: can't write the record of this backup:"
                       " %s"), gpg_strerror (err));
}

/* The record of OPT's key (its key id or fingerprint ends the record's
 * fingerprint), else the newest.  */
static const ks_record_t *
pick_record (const ks_options_t *opt, const ks_record_t *recs, size_t n)
{
  size_t i, klen;
  const char *k = opt->gpgkeyid;

  if (!n)
    return NULL;
  if (k && (!strncmp (k, "0x", 2) || !strncmp (k, "0X", 2)))
    k += 2;
  klen = k ? strlen (k) : 0;
  for (i = n; k && klen >= 16 && i-- > 0;)
    {
      size_t flen = strlen (recs[i].fpr);

      if (flen >= klen && !strcasecmp (recs[i].fpr + flen - klen, k))
        return &recs[i];
    }
  return &recs[n - 1];
}

/* Move or add URL to position POS of LIST.  */
static gpg_error_t
put_at (ks_serverlist_t *list, unsigned int pos, const char *url)
{
  ks_server_t s, *n;
  unsigned int i;
  gpg_error_t err;

  for (i = 0; i < list->count; i++)
    if (!strcmp (list->server[i].url, url))
      break;
  if (i < pos)
    return 0;                   /* listed twice in the record */
  if (i == list->count)
    {
      n = ks_realloc (list->server, (list->count + 1) * sizeof *n);
      if (!n)
        return gpg_error_from_syserror ();
      list->server = n;
      memset (&list->server[i], 0, sizeof list->server[i]);
      list->server[i].url = ks_strdup (url);
      if (!list->server[i].url)
        return gpg_error_from_syserror ();
      list->server[i].category = KS_SERVER_USER;
      list->count++;
      /* A location only the record knows has its URL's canonical
       * identity, as a --server URL has.  */
      err = ks_location_canon_id (url, &list->server[i].id);
      if (err)
        return err;
    }
  s = list->server[i];
  memmove (&list->server[pos + 1], &list->server[pos],
           (i - pos) * sizeof s);
  list->server[pos] = s;
  return 0;
}

static void
keep_line (void *arg, const char *text)
{
  snprintf (arg, 512, "%s", text);
}

gpg_error_t
ks_flow_load_item_servers (const ks_options_t *opt, const ks_ui_t *ui,
                           ks_serverlist_t **r_list)
{
  gpg_error_t err;
  ks_record_t *recs = NULL;
  const ks_record_t *rec = NULL;
  size_t n = 0, r;
  unsigned int i, pos = 0;
  ks_ui_t quiet;
  char why[512];

  *r_list = NULL;
  if (!opt->no_records && !ks_record_list (opt->homedir, &recs, &n, NULL))
    rec = pick_record (opt, recs, n);
  /* With a record, a list that is empty or cannot be read is no error:
   * the record says where to look.  */
  memset (&quiet, 0, sizeof quiet);
  quiet.arg = why;
  quiet.error = keep_line;
  why[0] = 0;
  err = ks_flow_load_servers (opt, rec ? &quiet : ui, r_list);
  if (rec && err)
    {
      if (gpg_err_code (err) != GPG_ERR_NO_DATA)
        ks_ui_infof (ui, "%s", why);
      err = 0;
      *r_list = ks_calloc (1, sizeof **r_list);
      if (!*r_list)
        err = gpg_error_from_syserror ();
    }
  /* The record of the key first, then every other record, newest
   * first: a backup made before the settings changed is still found.  */
  for (r = 0; rec && !err && r <= n; r++)
    {
      const ks_record_t *cur = !r ? rec : &recs[n - r];

      if (r && cur == rec)
        continue;
      for (i = 0; !err && i < cur->nlocations; i++)
        {
          err = put_at (*r_list, pos, cur->locations[i]);
          if (!err && pos < (*r_list)->count
              && !strcmp ((*r_list)->server[pos].url, cur->locations[i]))
            pos++;
        }
    }
  if (rec && opt->verbose)
    ks_ui_infof (ui, _("asking first the %u locations of the backup"
                       " records"), pos);
  ks_record_free_list (recs, n);
  if (err)
    {
      ks_serverlist_free (*r_list);
      *r_list = NULL;
    }
  return err;
}

gpg_error_t
ks_flow_list (const ks_options_t *opt, const ks_ui_t *ui)
{
  gpg_error_t err;
  ks_record_t *recs = NULL;
  size_t n = 0, i;
  unsigned int j, bad = 0;
  char when[32];

  err = ks_record_list (opt->homedir, &recs, &n, &bad);
  if (err)
    {
      ks_ui_errorf (ui, _("can't read the backup records: %s"),
                    gpg_strerror (err));
      return err;
    }
  for (i = 0; i < n; i++)
    {
      time_t t = (time_t)recs[i].time;
      struct tm tm;

      if (!gmtime_r (&t, &tm)
          || !strftime (when, sizeof when, "%Y-%m-%dT%H:%M:%SZ", &tm))
        snprintf (when, sizeof when, "%llu",
                  (unsigned long long)recs[i].time);
      ks_ui_infof (ui, "backup %s %s %s %u %u", when, recs[i].profile,
                   recs[i].fpr[0] ? recs[i].fpr : "-", recs[i].threshold,
                   recs[i].shares);
      for (j = 0; j < recs[i].nlocations; j++)
        ks_ui_infof (ui, "  location %u %s", j + 1, recs[i].locations[j]);
    }
  if (bad)
    ks_ui_errorf (ui, ngettext ("%u file in the records folder is not a"
                                " backup record",
                                "%u files in the records folder are not"
                                " backup records", bad), bad);
  ks_record_free_list (recs, n);
  return 0;
}
