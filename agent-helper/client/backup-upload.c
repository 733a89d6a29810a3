/* backup-upload.c - sending a backup's shards so that none strand
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>
#include <stdio.h>
#include "backup-upload.h"
#include "queue.h"

/* What became of one shard.  */
enum { SH_UNSENT = 0, SH_STORED, SH_QUEUED, SH_REFUSED, SH_FAILED };

gpg_error_t
ks_backup_probe (const ks_options_t *opt, const ks_ui_t *ui,
                 const ks_shardset_t *set, const ks_serverlist_t *list,
                 const ks_server_t **servers, int *r_taken, int *r_down)
{
  gpg_error_t err = 0;
  ks_transport_cfg_t cfg;
  ks_xfer_t *x;
  unsigned int nr = set->n > list->count ? set->n : list->count;
  unsigned int s, i, p, holding = 0;
  size_t nx = 0, idx;
  int *holds = NULL, *failed = NULL;

  *r_taken = 0;
  for (p = 0; p < set->n; p++)
    r_down[p] = 0;
  if (nr > KS_SHAMIR_MAX_SHARES)
    nr = KS_SHAMIR_MAX_SHARES;
  x = ks_calloc ((size_t)list->count * nr + 1, sizeof *x);
  holds = ks_calloc (list->count + 1, sizeof *holds);
  failed = ks_calloc (list->count + 1, sizeof *failed);
  if (!x || !holds || !failed)
    {
      err = gpg_error_from_syserror ();
      goto leave;
    }
  for (s = 0; s < list->count && !err; s++)
    for (i = 1; i <= nr && !list->server[s].placeholder && !err; i++)
      {
        ks_xfer_set (&x[nx], KS_HTTP_GET, list->server[s].url, "", s, i, 0);
        err = ks_shardset_name (set, list->server[s].id, i, 0, x[nx].name);
        x[nx++].maxresp = set->shard_len + 1;
      }
  if (err)
    goto leave;
  ks_flow_transport_cfg (opt, ui, &cfg);
  err = ks_transport_run (&cfg, x, nx);
  for (idx = 0; !err && idx < nx; idx++)
    if (!x[idx].err && x[idx].status == 200)
      holds[x[idx].server] = 1;
    else if (x[idx].err || x[idx].status != 404)
      failed[x[idx].server] = 1;
  for (s = 0; s < list->count; s++)
    holding += holds[s];
  *r_taken = holding >= 2;
  for (p = 0; p < set->n; p++)
    for (s = 0; s < list->count; s++)
      if (failed[s] && !strcmp (list->server[s].url, servers[p]->url))
        r_down[p] = 1;
  ks_transport_release (x, nx);

 leave:
  ks_free (x);
  ks_free (holds);
  ks_free (failed);
  return err;
}

/* Did the GET G find exactly the shard IDX of SET?  */
static int
holds_ours (const ks_xfer_t *g, const ks_shardset_t *set, size_t idx)
{
  return !g->err && g->status == 200 && g->resp
    && g->resp->len == set->shard_len
    && !memcmp (g->resp->data, set->shards[idx], set->shard_len);
}

/* PUT the M shards WHICH of SET; a 409 is settled by fetching the
 * shard: the same bytes count as stored, other bytes (or none) mean
 * the server refuses the name.  ST[idx] gets the outcome, R->loc the
 * first reason of a location.  */
static gpg_error_t
put_shards (const ks_options_t *opt, const ks_ui_t *ui,
            const ks_shardset_t *set, const ks_server_t **servers,
            const size_t *which, size_t m, int *st, ks_backup_result_t *r)
{
  gpg_error_t err;
  ks_transport_cfg_t cfg;
  ks_xfer_t *x = NULL, *g = NULL;
  size_t *map = NULL, a, ng = 0, idx;
  unsigned int i;

  if (!m)
    return 0;
  x = ks_calloc (m, sizeof *x);
  g = ks_calloc (m, sizeof *g);
  map = ks_calloc (m, sizeof *map);
  if (!x || !g || !map)
    {
      err = gpg_error_from_syserror ();
      goto leave;
    }
  for (a = 0; a < m; a++)
    {
      idx = which[a];
      i = idx % set->n;
      ks_xfer_set (&x[a], KS_HTTP_PUT, servers[i]->url, set->names[idx],
                   i, i + 1, idx / set->n);
      x[a].body = set->shards[idx];
      x[a].bodylen = set->shard_len;
    }
  ks_flow_transport_cfg (opt, ui, &cfg);
  err = ks_transport_run (&cfg, x, m);
  if (err)
    goto leave;
  for (a = 0; a < m; a++)
    if (!x[a].err && x[a].status == 409)
      {
        ks_xfer_set (&g[ng], KS_HTTP_GET, x[a].base, x[a].name,
                     x[a].server, x[a].share, x[a].chunk);
        g[ng].maxresp = set->shard_len + 1;
        map[ng++] = a;
      }
  if (ng && (err = ks_transport_run (&cfg, g, ng)))
    goto leave;
  for (a = 0; a < m; a++)
    st[which[a]] = (!x[a].err && x[a].status == 201) ? SH_STORED : SH_FAILED;
  for (a = 0; a < ng; a++)
    {
      idx = which[map[a]];
      i = idx % set->n;
      if (holds_ours (&g[a], set, idx))
        st[idx] = SH_STORED;
      else if (!g[a].err && (g[a].status == 200 || g[a].status == 404))
        {
          st[idx] = SH_REFUSED;
          if (!r->loc[i].why[0])
            {
              snprintf (r->loc[i].why, sizeof r->loc[i].why, "%s",
                        _("it answers that the name is taken, but it"
                          " does not hold this shard"));
              r->loc[i].reason = "not-held";
            }
        }
    }
  for (a = 0; a < m; a++)
    {
      i = x[a].server;
      if (st[which[a]] == SH_FAILED && !r->loc[i].why[0])
        {
          ks_xfer_describe (&x[a], r->loc[i].why, sizeof r->loc[i].why);
          r->loc[i].reason = ks_xfer_reason (&x[a]);
        }
    }

 leave:
  ks_transport_release (x, m);
  ks_transport_release (g, ng);
  ks_free (x);
  ks_free (g);
  ks_free (map);
  return err;
}

/* Count the shards of chunk J in state S.  */
static unsigned int
count_state (const ks_shardset_t *set, const int *st, uint32_t j, int s)
{
  unsigned int i, c = 0;

  for (i = 0; i < set->n; i++)
    c += st[(size_t)j * set->n + i] == s;
  return c;
}

/* Pick the K-1 locations whose shards are written ahead: those the
 * probe found down first (they need the queue anyway), then the last
 * ones of the list.  */
static void
pick_ahead (const ks_shardset_t *set, const int *down, int *ahead)
{
  unsigned int i, m = 0;

  for (i = 0; i < set->n; i++)
    ahead[i] = 0;
  for (i = 0; i < set->n && m + 1 < set->k; i++)
    if (down[i])
      ahead[i] = 1, m++;
  for (i = set->n; i-- > 0 && m + 1 < set->k; )
    if (!ahead[i])
      ahead[i] = 1, m++;
}

/* Queue shard IDX (or drop it from the queue with DROP).  */
static gpg_error_t
queue_one (const ks_options_t *opt, const ks_ui_t *ui,
           const ks_shardset_t *set, const ks_server_t **servers,
           size_t idx, int drop)
{
  gpg_error_t err;
  const char *url = servers[idx % set->n]->url;
  ks_queue_sib_t sib[KS_SHAMIR_MAX_SHARES];
  ks_queue_obj_t obj;
  unsigned int i, ns = 0;
  size_t first = idx - idx % set->n;

  uint8_t id[32];

  /* The backup's id: a hash of its first shard, random per backup (a
   * run again under the same name and password gets another one) and
   * never a name on a server.  */
  gcry_md_hash_buffer (GCRY_MD_SHA256, id, set->shards[0], set->shard_len);
  ks_hex_encode (id, sizeof id, obj.backup);
  obj.chunk = idx / set->n;
  obj.nchunks = set->nchunks;

  for (i = 0; i < set->n; i++)
    if (first + i != idx)
      {
        sib[ns].url = servers[i]->url;
        memcpy (sib[ns++].name, set->names[first + i], KS_NAME_HEX_LEN + 1);
      }
  if (drop)
    err = ks_queue_drop (opt->homedir, set->names[idx]);
  else
    err = ks_queue_add (opt->homedir, url, set->names[idx],
                        set->shards[idx], set->shard_len, &obj, set->k,
                        sib, ns);
  if (err)
    ks_ui_errorf (ui, _("can't update the upload queue for %s: %s"),
                  url, gpg_strerror (err));
  return err;
}

/* The per-location outcome, counts and queued names from ST.  */
static gpg_error_t
summarize (const ks_options_t *opt, const ks_shardset_t *set,
           const ks_server_t **servers, const int *st,
           ks_backup_result_t *r)
{
  size_t nx = (size_t)set->nchunks * set->n, idx;
  unsigned int i, worst[KS_SHAMIR_MAX_SHARES];
  uint32_t j;
  /* By state: the worst shard of a location gives its outcome.  */
  static const unsigned int rank[] = { 2, 0, 1, 4, 3 };
  static const ks_backup_outcome_t out[] =
    { KS_BACKUP_UNSENT, KS_BACKUP_STORED, KS_BACKUP_QUEUED,
      KS_BACKUP_REFUSED, KS_BACKUP_LOST };

  r->queued = ks_calloc (nx ? nx : 1, sizeof *r->queued);
  if (!r->queued)
    return gpg_error_from_syserror ();
  for (i = 0; i < set->n; i++)
    worst[i] = SH_STORED;
  for (idx = 0; idx < nx; idx++)
    {
      i = idx % set->n;
      if (rank[st[idx]] > rank[worst[i]])
        worst[i] = st[idx];
      if (st[idx] == SH_QUEUED)
        memcpy (r->queued[r->nqueued++], set->names[idx],
                KS_NAME_HEX_LEN + 1);
    }
  for (i = 0; i < set->n; i++)
    {
      r->loc[i].url = ks_strdup (servers[i]->url);
      if (!r->loc[i].url)
        return gpg_error_from_syserror ();
      r->outcome[i] = out[worst[i]];
      r->loc[i].state = worst[i] == SH_STORED ? KS_LOC_ANSWERED
                                              : KS_LOC_FAILED;
      r->nstored += worst[i] == SH_STORED;
    }
  r->restorable = r->later = 1;
  for (j = 0; j < set->nchunks; j++)
    {
      unsigned int s = count_state (set, st, j, SH_STORED);

      if (s < set->k)
        r->restorable = 0;
      if (s + count_state (set, st, j, SH_QUEUED) < set->k)
        r->later = 0;
    }
  if (r->nqueued)
    ks_queue_dir (opt->homedir, &r->queue_dir);
  r->uploaded = 1;
  return 0;
}

/* Phase 2: the written-ahead shards of chunks J0..J1-1; each leaves
 * the queue once the server holds it or refuses the name.  */
static gpg_error_t
send_ahead (const ks_options_t *opt, const ks_ui_t *ui,
            const ks_shardset_t *set, const ks_server_t **servers,
            uint32_t j0, uint32_t j1, int *st, size_t *which,
            ks_backup_result_t *r)
{
  gpg_error_t err;
  size_t idx, m = 0;

  for (idx = (size_t)j0 * set->n; idx < (size_t)j1 * set->n; idx++)
    if (st[idx] == SH_QUEUED)
      which[m++] = idx;
  err = put_shards (opt, ui, set, servers, which, m, st, r);
  for (idx = 0; !err && idx < m; idx++)
    {
      if (st[which[idx]] == SH_FAILED)
        st[which[idx]] = SH_QUEUED;
      else
        err = queue_one (opt, ui, set, servers, which[idx], 1);
    }
  return err;
}

/* Can chunk J still reach K shards (stored or queued)?  */
static int
reachable (const ks_shardset_t *set, const int *st, uint32_t j)
{
  return count_state (set, st, j, SH_STORED)
    + count_state (set, st, j, SH_QUEUED) >= set->k;
}

/* Send chunks J0..J1-1, whose written-ahead shards are queued: PUT the
 * others, then (when every one of them can still reach K) the queued
 * ones.  What failed waits in the queue while that object holds fewer
 * than K-1 shards there.  *R_HOPELESS when one cannot reach K.  */
static gpg_error_t
send_chunks (const ks_options_t *opt, const ks_ui_t *ui,
             const ks_shardset_t *set, const ks_server_t **servers,
             const int *ahead, uint32_t j0, uint32_t j1, int *st,
             size_t *which, ks_backup_result_t *r, int *r_hopeless)
{
  gpg_error_t err;
  size_t idx, m = 0;
  uint32_t j;

  for (idx = (size_t)j0 * set->n; idx < (size_t)j1 * set->n; idx++)
    if (!ahead[idx % set->n])
      which[m++] = idx;
  err = put_shards (opt, ui, set, servers, which, m, st, r);
  for (j = j0; !err && j < j1; j++)
    if (!reachable (set, st, j))
      *r_hopeless = 1;
  if (!err && !*r_hopeless)
    err = send_ahead (opt, ui, set, servers, j0, j1, st, which, r);
  /* A written-ahead shard the server refused may leave its object
   * short.  */
  for (j = j0; !err && !*r_hopeless && j < j1; j++)
    if (!reachable (set, st, j))
      *r_hopeless = 1;
  for (idx = (size_t)j0 * set->n;
       !*r_hopeless && !err && idx < (size_t)j1 * set->n; idx++)
    if (st[idx] == SH_FAILED
        && count_state (set, st, idx / set->n, SH_QUEUED) + 1 < set->k)
      {
        err = queue_one (opt, ui, set, servers, idx, 0);
        st[idx] = SH_QUEUED;
      }
  return err;
}

/* Chunk 0 while another object is short of K stored shards: PUT its
 * not written-ahead shards one at a time until one is stored, so that
 * with the queued ones it can reach K but no K of it are on servers
 * before the rest of the backup is.  */
static gpg_error_t
send_first_alone (const ks_options_t *opt, const ks_ui_t *ui,
                  const ks_shardset_t *set, const ks_server_t **servers,
                  const int *ahead, int *st, ks_backup_result_t *r)
{
  gpg_error_t err = 0;
  size_t idx;

  for (idx = 0; !err && idx < set->n && !reachable (set, st, 0); idx++)
    if (!ahead[idx])
      err = put_shards (opt, ui, set, servers, &idx, 1, st, r);
  return err;
}

/* Chunk 0 goes out last: only it makes a name taken (the probe and a
 * restore start there), so an interrupted backup leaves chunk 0 below
 * K or every other object at K stored shards already.  */
gpg_error_t
ks_backup_send (const ks_options_t *opt, const ks_ui_t *ui,
                const ks_shardset_t *set, const ks_server_t **servers,
                const int *down, ks_backup_result_t *r)
{
  gpg_error_t err = 0;
  size_t nx = (size_t)set->nchunks * set->n, idx;
  int ahead[KS_SHAMIR_MAX_SHARES], *st;
  size_t *which;
  uint32_t j;
  int hopeless = 0, rest_stored = 1;

  st = ks_calloc (nx, sizeof *st);
  which = ks_calloc (nx, sizeof *which);
  if (!st || !which)
    {
      err = gpg_error_from_syserror ();
      goto leave;
    }
  pick_ahead (set, down, ahead);
  for (idx = 0; idx < nx && !err; idx++)
    if (ahead[idx % set->n])
      {
        err = queue_one (opt, ui, set, servers, idx, 0);
        st[idx] = SH_QUEUED;
      }
  if (!err && set->nchunks > 1)
    err = send_chunks (opt, ui, set, servers, ahead, 1, set->nchunks, st,
                       which, r, &hopeless);
  for (j = 1; j < set->nchunks; j++)
    if (count_state (set, st, j, SH_STORED) < set->k)
      rest_stored = 0;
  if (!err && !hopeless && rest_stored)
    err = send_chunks (opt, ui, set, servers, ahead, 0, 1, st, which, r,
                       &hopeless);
  else if (!err && !hopeless)
    {
      err = send_first_alone (opt, ui, set, servers, ahead, st, r);
      hopeless = !reachable (set, st, 0);
    }
  if (err)
    goto leave;

  /* Too few shards can ever get out: nothing of the backup waits.  */
  for (idx = 0; hopeless && !err && idx < nx; idx++)
    if (st[idx] == SH_QUEUED)
      {
        err = queue_one (opt, ui, set, servers, idx, 1);
        st[idx] = SH_UNSENT;
      }
  if (!err)
    err = summarize (opt, set, servers, st, r);
  if (!err && !r->restorable)
    err = gpg_error (r->later ? GPG_ERR_TRY_LATER : GPG_ERR_UNFINISHED);

 leave:
  ks_free (st);
  ks_free (which);
  return err;
}
