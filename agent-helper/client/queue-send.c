/* queue-send.c - `keysafe upload-queued`: the queue to the servers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>
#include <stdio.h>
#include "queue.h"
#include "flowutil.h"

/* What becomes of an entry in this run: Q_LAST is a chunk 0 shard
 * that waits for the rest of its backup to be stored in this run;
 * Q_REFUSED one whose server answers 409 without holding it.  */
enum { Q_WAIT = 0, Q_SEND, Q_DROP, Q_LAST, Q_SENT, Q_REFUSED };

/* An entry's object and backup, and (for the first entry of an object,
 * its lead) how many of the object's shards are where.  */
struct qobj
{
  size_t lead, group;
  unsigned int stored, queued, unknown;
  int verdict;                  /* of the group's first entry */
};

static int
in_queue (const ks_queue_entry_t *q, size_t nq, const char *name)
{
  size_t i;

  for (i = 0; i < nq; i++)
    if (!strcmp (q[i].name, name))
      return 1;
  return 0;
}

/* Are entries A and B of one backup?  */
static int
same_backup (const ks_queue_entry_t *a, const ks_queue_entry_t *b)
{
  return a->has_obj && b->has_obj && !strcmp (a->obj.backup, b->obj.backup);
}

static int
is_first (const ks_queue_entry_t *e)
{
  return e->has_obj && e->obj.chunk == 0;
}

/* Find the lead and group of each of the first NQ entries and ask the
 * servers for the shards of each object that are not among all NALL
 * queued ones.  */
static gpg_error_t
count_shards (const ks_transport_cfg_t *cfg, const ks_queue_entry_t *q,
              size_t nq, size_t nall, struct qobj *o)
{
  gpg_error_t err = 0;
  ks_xfer_t *g = NULL;
  size_t i, l, m = 0, total = 0;
  unsigned int s;

  for (i = 0; i < nq; i++)
    {
      o[i].lead = o[i].group = i;
      for (l = 0; l < i && o[i].group == i; l++)
        if (same_backup (&q[l], &q[i]))
          o[i].group = l;
      for (l = o[i].group; l < i && o[i].lead == i; l++)
        if (same_backup (&q[l], &q[i]) && q[l].obj.chunk == q[i].obj.chunk)
          o[i].lead = l;
      if (o[i].lead == i)
        total += q[i].nsib;
    }
  g = ks_calloc (total ? total : 1, sizeof *g);
  if (!g)
    return gpg_error_from_syserror ();
  for (i = 0; i < nq; i++)
    if (o[i].lead == i)
      {
        o[i].queued = 1;
        for (s = 0; s < q[i].nsib; s++)
          if (in_queue (q, nall, q[i].sib[s].name))
            o[i].queued++;
          else
            {
              ks_xfer_set (&g[m], KS_HTTP_GET, q[i].sib[s].url,
                           q[i].sib[s].name, i, 0, 0);
              g[m++].maxresp = q[i].len + 1;
            }
      }
  if (m)
    err = ks_transport_run (cfg, g, m);
  for (i = 0; !err && i < m; i++)
    if (!g[i].err && g[i].status == 200)
      o[g[i].server].stored++;
    else if (g[i].err || g[i].status != 404)
      o[g[i].server].unknown++;
  ks_transport_release (g, m);
  ks_free (g);
  return err;
}

/* Decide into WHAT[i] whether entry i goes out, per backup: only when
 * every object of its backup that has entries can reach K shards
 * stored or queued (one without entries got K stored before its last
 * entry left); a backup that can no longer get there (its other
 * servers answer 404) is dropped whole, one whose servers do not
 * answer waits.  Chunk 0 goes last (Q_LAST).  */
static gpg_error_t
check_sibs (const ks_transport_cfg_t *cfg, const ks_queue_entry_t *q,
            size_t nq, size_t nall, struct qobj *o, int *what)
{
  gpg_error_t err;
  size_t i, l;
  int v;

  err = count_shards (cfg, q, nq, nall, o);
  for (i = 0; !err && i < nq; i++)
    {
      if (o[i].group == i)
        {
          o[i].verdict = Q_SEND;
          for (l = i; l < nq; l++)
            if (o[l].group == i && o[l].lead == l && q[l].k)
              {
                if (o[l].stored + o[l].queued + o[l].unknown < q[l].k)
                  o[i].verdict = Q_DROP;
                else if (o[l].stored + o[l].queued < q[l].k
                         && o[i].verdict == Q_SEND)
                  o[i].verdict = Q_WAIT;
              }
        }
      v = o[o[i].group].verdict;
      what[i] = v == Q_SEND && is_first (&q[i]) ? Q_LAST : v;
    }
  return err;
}

/* After a round: an object that a refusal (409 with other bytes) left
 * short of K, stored and queued, can never be restored, so its whole
 * backup is dropped now, chunk 0 with it; else a later run would judge
 * chunk 0 alone and make the name look taken for a backup that never
 * restores.  */
static void
drop_refused_short (const ks_queue_entry_t *q, size_t nq,
                    const struct qobj *o, const int *done, int *what)
{
  size_t l, e;
  unsigned int refused;

  for (l = 0; l < nq; l++)
    {
      if (o[l].lead != l || !q[l].k)
        continue;
      refused = 0;
      for (e = l; e < nq; e++)
        refused += o[e].lead == l && what[e] == Q_REFUSED;
      if (!refused || o[l].stored + o[l].queued - refused >= q[l].k)
        continue;
      for (e = o[l].group; e < nq; e++)
        if (o[e].group == o[l].group && !done[e] && what[e] != Q_REFUSED)
          what[e] = Q_DROP;
    }
}

/* After the first round: chunk 0 of a backup goes out when every other
 * object of it that has entries now has K stored shards, nothing of it
 * was dropped and none of its entries lies past the NQ looked at.  The
 * number of entries released.  */
static size_t
release_first (const ks_queue_entry_t *q, size_t nq, size_t nall,
               const struct qobj *o, const int *done, int *what)
{
  size_t i, l, n = 0;
  unsigned int stored;
  int ok;

  for (i = 0; i < nq; i++)
    {
      if (what[i] != Q_LAST)
        continue;
      ok = 1;
      for (l = nq; ok && l < nall; l++)
        ok = !same_backup (&q[l], &q[i]);
      for (l = o[i].group; ok && l < nq; l++)
        if (o[l].group == o[i].group
            && (what[l] == Q_DROP || what[l] == Q_REFUSED))
          ok = 0;
        else if (o[l].group == o[i].group && o[l].lead == l
                 && !is_first (&q[l]))
          {
            size_t e;

            stored = o[l].stored;
            for (e = l; e < nq; e++)
              stored += o[e].lead == l && done[e];
            ok = stored >= q[l].k;
          }
      what[i] = ok ? Q_SEND : Q_WAIT;
      n += ok;
    }
  return n;
}

/* The location of R for URL, added when new; NULL when out of core.  */
static ks_queue_location_t *
location_of (ks_queue_result_t *r, const char *url)
{
  unsigned int i;
  ks_queue_location_t *l;

  for (i = 0; i < r->nloc; i++)
    if (!strcmp (r->loc[i].url, url))
      return &r->loc[i];
  l = &r->loc[r->nloc];
  memset (l, 0, sizeof *l);
  l->url = ks_strdup (url);
  if (!l->url)
    return NULL;
  r->nloc++;
  return l;
}

/* Mark the location of entry Q as failed for the reason of X.  */
static void
location_failed (ks_queue_result_t *r, const ks_queue_entry_t *q,
                 const ks_xfer_t *x)
{
  ks_queue_location_t *l = location_of (r, q->url);

  if (l && l->state != KS_LOC_FAILED)
    {
      l->state = KS_LOC_FAILED;
      l->reason = ks_xfer_reason (x);
      ks_xfer_describe (x, l->why, sizeof l->why);
    }
}

/* PUT the entries marked Q_SEND; DONE[i] is set when the server holds
 * the shard (a 201, or a 409 whose stored bytes equal ours).  A 409
 * with other bytes makes the entry Q_REFUSED.  A failed PUT marks its
 * location in R.  */
static gpg_error_t
send_entries (const ks_transport_cfg_t *cfg, ks_queue_entry_t *q,
              size_t nq, int *what, int *done, ks_queue_result_t *r)
{
  gpg_error_t err;
  ks_xfer_t *x, *g;
  size_t i, nx = 0, ng = 0, a;

  x = ks_calloc (nq, sizeof *x);
  g = ks_calloc (nq, sizeof *g);
  if (!x || !g)
    {
      err = gpg_error_from_syserror ();
      goto leave;
    }
  for (i = 0; i < nq; i++)
    if (what[i] == Q_SEND)
      {
        ks_xfer_set (&x[nx], KS_HTTP_PUT, q[i].url, q[i].name, i, 0, 0);
        x[nx].body = q[i].data;
        x[nx++].bodylen = q[i].len;
      }
  err = ks_transport_run (cfg, x, nx);
  for (a = 0; !err && a < nx; a++)
    if (!x[a].err && x[a].status == 409)
      {
        ks_xfer_set (&g[ng], KS_HTTP_GET, x[a].base, x[a].name,
                     x[a].server, 0, 0);
        g[ng++].maxresp = q[x[a].server].len + 1;
      }
  if (!err && ng)
    err = ks_transport_run (cfg, g, ng);
  for (a = 0; !err && a < nx; a++)
    {
      i = x[a].server;
      if (!x[a].err && x[a].status == 201)
        done[i] = 1;
      else if (x[a].err || x[a].status != 409)
        location_failed (r, &q[i], &x[a]);
    }
  for (a = 0; !err && a < ng; a++)
    {
      i = g[a].server;
      if (!g[a].err && g[a].status == 200 && g[a].resp
          && g[a].resp->len == q[i].len
          && !memcmp (g[a].resp->data, q[i].data, q[i].len))
        done[i] = 1;
      else if (!g[a].err && (g[a].status == 200 || g[a].status == 404))
        what[i] = Q_REFUSED;
    }

 leave:
  ks_transport_release (x, nx);
  ks_transport_release (g, ng);
  ks_free (x);
  ks_free (g);
  return err;
}

/* keysafe upload-queued: send every entry whose object can still be
 * restored (so running it twice is harmless).  */
gpg_error_t
ks_flow_upload_queued (const ks_options_t *opt, const ks_ui_t *ui,
                       ks_queue_result_t *r)
{
  gpg_error_t err;
  ks_op_t op;

  err = ks_queue_send (ks_op_begin (&op, opt), ui, r);
  ks_op_end (&op);
  return err;
}

void
ks_queue_result_release (ks_queue_result_t *r)
{
  unsigned int i;

  if (!r)
    return;
  for (i = 0; i < r->nloc; i++)
    ks_free (r->loc[i].url);
  ks_free (r->loc);
  ks_free (r->sent);
  memset (r, 0, sizeof *r);
}

/* Tell in R what became of the NQ entries of Q, and take the sent and
 * dropped ones out of the queue.  */
static gpg_error_t
tally (ks_queue_entry_t *q, size_t nq, const int *what, const int *done,
       ks_queue_result_t *r)
{
  size_t i;
  ks_queue_location_t *l;

  r->sent = ks_calloc (nq, sizeof *r->sent);
  if (!r->sent)
    return gpg_error_from_syserror ();
  for (i = 0; i < nq; i++)
    {
      l = location_of (r, q[i].url);
      if (!l)
        return gpg_error_from_syserror ();
      if (done[i])
        {
          memcpy (r->sent[r->nsent++], q[i].name, KS_NAME_HEX_LEN + 1);
          l->sent++;
        }
      else if (what[i] == Q_REFUSED)
        l->refused++;
      else if (what[i] == Q_DROP)
        l->dropped++;
      else
        {
          l->left++;
          r->nleft++;
          continue;
        }
      ks_queue_remove (&q[i]);
    }
  for (i = 0; i < r->nloc; i++)
    {
      r->ndropped += r->loc[i].dropped;
      r->nrefused += r->loc[i].refused;
    }
  return 0;
}

gpg_error_t
ks_queue_send (const ks_options_t *opt, const ks_ui_t *ui,
               ks_queue_result_t *r)
{
  gpg_error_t err;
  ks_queue_entry_t *q = NULL;
  size_t nall = 0, nq, i;
  ks_transport_cfg_t cfg;
  int *what = NULL, *done = NULL;
  struct qobj *o = NULL;

  memset (r, 0, sizeof *r);
  err = ks_queue_list (opt->homedir, &q, &nall);
  nq = nall;
  if (err)
    {
      r->failure = KS_QUEUE_UNREADABLE;
      r->detail = err;
      goto leave;
    }
  if (!nq)
    {
      r->failure = KS_QUEUE_EMPTY;
      goto leave;
    }
  if (nq > KS_QUEUE_CHECK_MAX)
    nq = KS_QUEUE_CHECK_MAX;    /* the rest in the next run */
  what = ks_calloc (nq, sizeof *what);
  done = ks_calloc (nq, sizeof *done);
  o = ks_calloc (nq, sizeof *o);
  /* Every entry may have a location of its own.  */
  r->loc = ks_calloc (nq, sizeof *r->loc);
  if (!what || !done || !o || !r->loc)
    {
      err = gpg_error_from_syserror ();
      goto leave;
    }
  ks_flow_transport_cfg (opt, ui, &cfg);
  err = check_sibs (&cfg, q, nq, nall, o, what);
  if (!err)
    err = send_entries (&cfg, q, nq, what, done, r);
  for (i = 0; !err && i < nq; i++)
    if (what[i] == Q_SEND)
      what[i] = Q_SENT;
  if (!err)
    drop_refused_short (q, nq, o, done, what);
  if (!err && release_first (q, nq, nall, o, done, what))
    err = send_entries (&cfg, q, nq, what, done, r);
  if (!err)
    drop_refused_short (q, nq, o, done, what);
  if (err)
    {
      r->failure = KS_QUEUE_TRANSFER;
      r->detail = err;
      goto leave;
    }
  err = tally (q, nq, what, done, r);
  if (!err && r->nleft)
    {
      r->failure = KS_QUEUE_LEFT;
      err = gpg_error (GPG_ERR_TRY_LATER);
    }

 leave:
  ks_free (what);
  ks_free (done);
  ks_free (o);
  ks_queue_list_free (q, nall);
  return err;
}
