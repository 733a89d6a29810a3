/* fetch.c - getting the shards of one backup from the servers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * On backup shard I went to server I.  So the first round asks server
 * I for share I, all servers in parallel; a restore then asks every
 * location for every other share index (a server list that changed
 * order), and all of them for the later chunks, before K is derived.
 * A server that did not answer is not asked again: it would cost its
 * timeout twice.
 */
#include <config.h>
#include <stdio.h>
#include "flowutil.h"

static void
note_failure (ks_fetch_t *f, const ks_xfer_t *x)
{
  char why[256];

  if (x->server >= KS_DIM (f->state))
    return;
  if (x->err || (x->status != 200 && x->status != 404))
    {
      if (f->state[x->server] != KS_LOC_ANSWERED)
        {
          f->state[x->server] = KS_LOC_FAILED;
          snprintf (f->why[x->server], sizeof f->why[x->server], "%s",
                    ks_xfer_describe (x, why, sizeof why));
          f->reason[x->server] = ks_xfer_reason (x);
        }
    }
  else
    f->state[x->server] = KS_LOC_ANSWERED;
}

/* Request *NX of X: share SHARE of chunk CHUNK from server S.  The one
 * place where the fetch derives a shard name.  */
static gpg_error_t
add_get (ks_fetch_t *f, ks_xfer_t *x, size_t *nx, unsigned int s,
         unsigned int share, uint32_t chunk)
{
  char name[KS_NAME_HEX_LEN + 1];
  gpg_error_t err;

  err = ks_recover_shard_name (f->rec, f->list->server[s].id, share, chunk,
                               name);
  if (err)
    return err;
  ks_xfer_set (&x[*nx], KS_HTTP_GET, f->list->server[s].url, name, s, share,
               chunk);
  x[*nx].maxresp = ks_recover_profile (f->rec)->object_size + 1;
  (*nx)++;
  return 0;
}

/* Remember that X's location gave its chunk: a new pair for chunk 0,
 * else the pair moves on to that chunk.  */
static gpg_error_t
note_pair (ks_fetch_t *f, const ks_xfer_t *x)
{
  unsigned int p;

  if (x->chunk)
    {
      for (p = 0; p < f->npairs; p++)
        if (f->pairs[p].server == x->server && f->pairs[p].share == x->share
            && f->pairs[p].upto + 1 == x->chunk)
          f->pairs[p].upto = x->chunk;
      return 0;
    }
  if (!(f->npairs % 16))
    {
      ks_fetch_pair_t *n = ks_realloc (f->pairs, (f->npairs + 16)
                                         * sizeof *n);
      if (!n)
        return gpg_error_from_syserror ();
      f->pairs = n;
    }
  f->pairs[f->npairs].server = x->server;
  f->pairs[f->npairs].share = x->share;
  f->pairs[f->npairs].upto = 0;
  f->npairs++;
  return 0;
}

static gpg_error_t
run_round (const ks_options_t *opt, const ks_ui_t *ui, ks_fetch_t *f,
           ks_xfer_t *x, size_t nx)
{
  gpg_error_t err;
  ks_transport_cfg_t cfg;
  size_t idx;

  ks_flow_transport_cfg (opt, ui, &cfg);
  err = ks_transport_run (&cfg, x, nx);
  if (err)
    return err;
  for (idx = 0; idx < nx; idx++)
    {
      note_failure (f, &x[idx]);
      if (x[idx].err || x[idx].status != 200 || !x[idx].resp)
        continue;
      err = ks_recover_add_shard (f->rec, x[idx].chunk, x[idx].share,
                                  x[idx].resp->data, x[idx].resp->len);
      if (gpg_err_code (err) == GPG_ERR_INV_LENGTH)
        {
          f->junk++;
          if (opt->verbose)
            ks_ui_infof (ui, _("%s answered a shard of the wrong size;"
                               " ignored"), f->list->server[x[idx].server].url);
          err = 0;
          continue;
        }
      if (gpg_err_code (err) == GPG_ERR_TOO_MANY)
        err = 0;
      if (err)
        return err;
      if (x[idx].chunk == 0 && f->share_server[x[idx].share] < 0)
        f->share_server[x[idx].share] = x[idx].server;
      err = note_pair (f, &x[idx]);
      if (err)
        return err;
    }
  return 0;
}

gpg_error_t
ks_fetch_chunk0 (const ks_options_t *opt, const ks_ui_t *ui,
                 ks_recover_t *rec, const ks_serverlist_t *list,
                 unsigned int k, ks_fetch_t *f)
{
  gpg_error_t err = 0;
  const ks_profile_t *profile = ks_recover_profile (rec);
  unsigned int nsrv = list->count, s, i;
  ks_xfer_t *x = NULL;
  size_t nx = 0;

  ks_free (f->pairs);
  memset (f, 0, sizeof *f);
  f->rec = rec;
  f->list = list;
  for (i = 0; i <= KS_SHAMIR_MAX_SHARES; i++)
    f->share_server[i] = -1;
  if (nsrv > KS_DIM (f->state))
    nsrv = KS_DIM (f->state);
  /* The backup's N: the servers that got a share.  */
  f->nfirst = opt->shares ? opt->shares : profile->shares;
  if (f->nfirst > nsrv)
    f->nfirst = nsrv;
  f->maxshare = nsrv;
  if (profile->shares > f->maxshare)
    f->maxshare = profile->shares;
  if (opt->shares > f->maxshare)
    f->maxshare = opt->shares;
  if (f->maxshare > KS_SHAMIR_MAX_SHARES)
    f->maxshare = KS_SHAMIR_MAX_SHARES;

  /* Round 1: server I, share I, for the first N servers.  */
  x = ks_calloc (f->nfirst ? f->nfirst : 1, sizeof *x);
  if (!x)
    return gpg_error_from_syserror ();
  for (s = 0; s < f->nfirst && !err; s++)
    err = add_get (f, x, &nx, s, s + 1, 0);
  if (!err)
    err = run_round (opt, ui, f, x, nx);
  ks_transport_release (x, nx);
  ks_free (x);
  if (err)
    return err;
  f->found = ks_recover_shard_count (rec, 0);
  if (f->found < k)
    err = ks_fetch_more (opt, ui, f, NULL);
  return err;
}

gpg_error_t
ks_fetch_more (const ks_options_t *opt, const ks_ui_t *ui, ks_fetch_t *f,
               unsigned int *r_new)
{
  gpg_error_t err = 0;
  unsigned int nsrv = f->list->count, s, i, before = f->found;
  ks_xfer_t *x = NULL;
  size_t nx = 0;

  if (r_new)
    *r_new = 0;
  if (f->more_done)
    return 0;
  f->more_done = 1;
  if (nsrv > KS_DIM (f->state))
    nsrv = KS_DIM (f->state);
  x = ks_calloc ((size_t)f->maxshare * nsrv + 1, sizeof *x);
  if (!x)
    return gpg_error_from_syserror ();
  /* Every share index from every location that was not asked for it
   * and did not fail already (protocol.md section 9, step 2): the
   * names are bound to the location, so this tells none of them a name
   * another one serves, and a junk shard of one index cannot hide the
   * honest one.  */
  for (i = 1; i <= f->maxshare && !err; i++)
    {
      for (s = 0; s < nsrv && !err; s++)
        {
          if ((s == i - 1 && s < f->nfirst) || f->state[s] == KS_LOC_FAILED)
            continue;
          err = add_get (f, x, &nx, s, i, 0);
        }
    }
  if (nx && !err)
    {
      err = run_round (opt, ui, f, x, nx);
      ks_transport_release (x, nx);
    }
  ks_free (x);
  f->found = ks_recover_shard_count (f->rec, 0);
  if (r_new)
    *r_new = f->found - before;
  return err;
}

gpg_error_t
ks_fetch_rest (const ks_options_t *opt, const ks_ui_t *ui, ks_fetch_t *f)
{
  gpg_error_t err = 0;
  uint32_t maxj = ks_object_max_chunks (ks_recover_profile (f->rec)), j;
  unsigned int p;
  ks_xfer_t *x = NULL;
  size_t nx = 1;

  if (f->rest_done)
    return 0;
  f->rest_done = 1;
  if (!f->npairs)
    return 0;
  x = ks_calloc (f->npairs, sizeof *x);
  if (!x)
    return gpg_error_from_syserror ();
  /* One round per chunk: a location that gave chunk J-1 is asked for
   * chunk J; the rounds end when no location has one more.  */
  for (j = 1; j < maxj && nx && !err; j++)
    {
      nx = 0;
      for (p = 0; p < f->npairs && !err; p++)
        if (f->pairs[p].upto + 1 == j)
          err = add_get (f, x, &nx, f->pairs[p].server, f->pairs[p].share,
                         j);
      if (nx && !err)
        err = run_round (opt, ui, f, x, nx);
      ks_transport_release (x, nx);
    }
  ks_free (x);
  return err;
}

unsigned int
ks_fetch_answered (const ks_fetch_t *f)
{
  unsigned int s, n = 0;

  for (s = 0; s < KS_DIM (f->state); s++)
    if (f->state[s] == KS_LOC_ANSWERED)
      n++;
  return n;
}


gpg_error_t
ks_fetch_result_init (const ks_serverlist_t *list, ks_fetch_result_t *r)
{
  unsigned int s;

  r->nloc = list->count < KS_FETCH_MAX_SERVERS ? list->count
                                               : KS_FETCH_MAX_SERVERS;
  r->loc = ks_calloc (r->nloc ? r->nloc : 1, sizeof *r->loc);
  if (!r->loc)
    return gpg_error_from_syserror ();
  for (s = 0; s < r->nloc; s++)
    {
      r->loc[s].url = ks_strdup (list->server[s].url);
      if (!r->loc[s].url)
        return gpg_error_from_syserror ();
    }
  return 0;
}

void
ks_fetch_snapshot (const ks_fetch_t *f, ks_fetch_result_t *r)
{
  unsigned int s;

  for (s = 0; s < r->nloc; s++)
    {
      r->loc[s].state = f->state[s];
      snprintf (r->loc[s].why, sizeof r->loc[s].why, "%s", f->why[s]);
      r->loc[s].reason = f->reason[s];
    }
}

void
ks_fetch_result_release (ks_fetch_result_t *r)
{
  unsigned int s;

  if (!r)
    return;
  for (s = 0; r->loc && s < r->nloc; s++)
    ks_free (r->loc[s].url);
  ks_free (r->loc);
  ks_free (r->name);
  ks_free (r->fpr);
  memset (r, 0, sizeof *r);
}

gpg_error_t
ks_fetch_locate (const ks_options_t *opt, const ks_ui_t *ui,
                 const ks_profile_t *pinned, const char *name,
                 const char *keyid, const ks_serverlist_t *list,
                 int for_restore, ks_fetch_t *f, ks_fetch_result_t *r,
                 ks_fetch_try_t try, void *arg)
{
  gpg_error_t err = 0;
  unsigned int pidx, nprof = pinned ? 1 : ks_profile_count ();
  size_t tl = 0;
  int stop = 0;

  for (pidx = 0; pidx < nprof && !stop && !err; pidx++)
    {
      const ks_profile_t *profile = pinned ? pinned : ks_profile_nth (pidx);
      ks_recover_t *rec = NULL;
      int n;

      n = snprintf (r->tried + tl, sizeof r->tried - tl, "%s%s",
                    tl ? ", " : "", profile->name);
      if (n > 0 && (size_t)n < sizeof r->tried - tl)
        tl += n;
      r->needed = opt->threshold ? opt->threshold : profile->threshold;
      if (for_restore)
        ks_ui_infof (ui, _("looking for '%s' with profile '%s'..."),
                     name, profile->name);
      ks_recover_free (f->rec);
      f->rec = NULL;
      err = ks_recover_new (profile, name, keyid, ks_ui_progress_cb,
                            (void *)ui, &rec);
      if (!err)
        err = ks_fetch_chunk0 (opt, ui, rec, list,
                               for_restore ? r->needed : 0, f);
      f->rec = rec;
      if (!err)
        err = try (arg, profile, f, &stop);
    }
  return err;
}

gpg_error_t
ks_flow_begin_item (const ks_options_t *opt, const ks_ui_t *ui,
                    const char *prompt, ks_item_t *item,
                    ks_fetch_result_t *r)
{
  gpg_error_t err;

  memset (item, 0, sizeof *item);
  memset (r, 0, sizeof *r);
  if (opt->profile)
    {
      err = ks_flow_profile (opt, ui, &item->pinned);
      if (err)
        return err;
    }
  err = ks_flow_load_item_servers (opt, ui, &item->list);
  if (err)
    return err;
  if (opt->gpgkeyid)
    {
      err = ks_flow_keyid (opt, ui, opt->gpgkeyid, item->keyidbuf);
      if (err)
        return err;
      item->keyid = item->keyidbuf;
    }
  err = ks_flow_get_name (opt, ui, prompt, &r->name);
  if (!err)
    err = ks_fetch_result_init (item->list, r);
  if (err)
    return err;
  item->f = ks_calloc (1, sizeof *item->f);
  return item->f ? 0 : gpg_error_from_syserror ();
}

void
ks_flow_end_item (ks_item_t *item)
{
  if (item->f)
    {
      ks_recover_free (item->f->rec);
      ks_free (item->f->pairs);
    }
  ks_free (item->f);
  ks_serverlist_free (item->list);
  memset (item, 0, sizeof *item);
}
