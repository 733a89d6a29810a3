/* queue-send.c - `keysafe upload-queued`: the queue to the servers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>
#include <stdio.h>
#include "queue.h"
#include "flowutil.h"

/* What becomes of an entry in this run.  */
enum { Q_WAIT = 0, Q_SEND, Q_DROP, Q_REFUSED };

static int
in_queue (const ks_queue_entry_t *q, size_t nq, const char *name)
{
  size_t i;

  for (i = 0; i < nq; i++)
    if (!strcmp (q[i].name, name))
      return 1;
  return 0;
}

/* Decide into WHAT[i] whether entry i goes out: only when its object
 * has K shards stored or queued; an object that can no longer get
 * there (its other servers answer 404) is dropped, one whose servers
 * do not answer waits.  */
static gpg_error_t
check_sibs (const ks_transport_cfg_t *cfg, const ks_queue_entry_t *q,
            size_t nq, int *what)
{
  gpg_error_t err = 0;
  ks_xfer_t *g = NULL;
  size_t i, m = 0, total = 0;
  unsigned int s, have[KS_QUEUE_CHECK_MAX], unknown[KS_QUEUE_CHECK_MAX];

  for (i = 0; i < nq; i++)
    total += q[i].nsib;
  g = ks_calloc (total ? total : 1, sizeof *g);
  if (!g)
    return gpg_error_from_syserror ();
  for (i = 0; i < nq; i++)
    {
      have[i] = 1;
      unknown[i] = 0;
      for (s = 0; s < q[i].nsib; s++)
        if (in_queue (q, nq, q[i].sib[s].name))
          have[i]++;
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
      have[g[i].server]++;
    else if (g[i].err || g[i].status != 404)
      unknown[g[i].server]++;
  for (i = 0; !err && i < nq; i++)
    what[i] = (!q[i].k || have[i] >= q[i].k) ? Q_SEND
      : have[i] + unknown[i] >= q[i].k ? Q_WAIT : Q_DROP;
  ks_transport_release (g, m);
  ks_free (g);
  return err;
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
  size_t nall = 0, nq;
  ks_transport_cfg_t cfg;
  int *what = NULL, *done = NULL;

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
  /* Every entry may have a location of its own.  */
  r->loc = ks_calloc (nq, sizeof *r->loc);
  if (!what || !done || !r->loc)
    {
      err = gpg_error_from_syserror ();
      goto leave;
    }
  ks_flow_transport_cfg (opt, ui, &cfg);
  err = check_sibs (&cfg, q, nq, what);
  if (!err)
    err = send_entries (&cfg, q, nq, what, done, r);
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
  ks_queue_list_free (q, nall);
  return err;
}
