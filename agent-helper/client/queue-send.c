/* queue-send.c - `keysafe upload-queued`: the queue to the servers
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>
#include <stdio.h>
#include "queue.h"
#include "flowutil.h"

/* What becomes of an entry in this run.  */
enum { Q_WAIT = 0, Q_SEND, Q_DROP };

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

/* PUT the entries marked Q_SEND; DONE[i] is set when the server holds
 * the shard (a 201, or a 409 whose stored bytes equal ours).  A 409
 * with other bytes drops the entry.  */
static gpg_error_t
send_entries (const ks_ui_t *ui, const ks_transport_cfg_t *cfg, ks_queue_entry_t *q,
              size_t nq, int *what, int *done)
{
  gpg_error_t err;
  ks_xfer_t *x, *g;
  size_t i, nx = 0, ng = 0, a;
  char why[256];

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
      else if (!x[a].err && x[a].status == 409)
        continue;
      else
        ks_ui_infof (ui, _("%s: %s; the shard stays queued"), q[i].url,
                     ks_xfer_describe (&x[a], why, sizeof why));
    }
  for (a = 0; !err && a < ng; a++)
    {
      i = g[a].server;
      if (!g[a].err && g[a].status == 200 && g[a].resp
          && g[a].resp->len == q[i].len
          && !memcmp (g[a].resp->data, q[i].data, q[i].len))
        done[i] = 1;
      else if (!g[a].err && (g[a].status == 200 || g[a].status == 404))
        {
          ks_ui_infof (ui, _("%s answers that a queued name is taken but"
                             " does not hold the shard; dropping it"),
                       q[i].url);
          what[i] = Q_DROP;
        }
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
ks_flow_upload_queued (const ks_options_t *opt, const ks_ui_t *ui)
{
  gpg_error_t err;
  ks_op_t op;

  err = ks_queue_send (ks_op_begin (&op, opt), ui, NULL, NULL);
  ks_op_end (&op);
  return err;
}

gpg_error_t
ks_queue_send (const ks_options_t *opt, const ks_ui_t *ui,
               char (**r_sent)[KS_NAME_HEX_LEN + 1], size_t *r_nsent)
{
  gpg_error_t err;
  ks_queue_entry_t *q = NULL;
  size_t nall = 0, nq, i, ndone = 0, nleft = 0, ndrop = 0;
  ks_transport_cfg_t cfg;
  int *what = NULL, *done = NULL;

  if (r_sent)
    {
      *r_sent = NULL;
      *r_nsent = 0;
    }
  err = ks_queue_list (opt->homedir, &q, &nall);
  nq = nall;
  if (err)
    {
      ks_ui_errorf (ui, _("can't read the upload queue: %s"),
                    gpg_strerror (err));
      goto leave;
    }
  if (!nq)
    {
      ks_ui_infof (ui, _("the upload queue is empty"));
      goto leave;
    }
  if (nq > KS_QUEUE_CHECK_MAX)
    nq = KS_QUEUE_CHECK_MAX;    /* the rest in the next run */
  what = ks_calloc (nq, sizeof *what);
  done = ks_calloc (nq, sizeof *done);
  if (!what || !done)
    {
      err = gpg_error_from_syserror ();
      goto leave;
    }
  ks_flow_transport_cfg (opt, ui, &cfg);
  err = check_sibs (&cfg, q, nq, what);
  if (!err)
    err = send_entries (ui, &cfg, q, nq, what, done);
  if (err)
    goto leave;
  if (r_sent && !(*r_sent = ks_calloc (nq, sizeof **r_sent)))
    {
      err = gpg_error_from_syserror ();
      goto leave;
    }
  for (i = 0; i < nq; i++)
    if (done[i] && r_sent)
      memcpy ((*r_sent)[(*r_nsent)++], q[i].name, KS_NAME_HEX_LEN + 1);
  for (i = 0; i < nq; i++)
    if (done[i] || what[i] == Q_DROP)
      {
        ks_queue_remove (&q[i]);
        ndone += done[i];
        ndrop += !done[i];
      }
    else
      nleft++;
  if (ndrop)
    ks_ui_infof (ui, ngettext ("%zu queued shard dropped: its backup never"
                               " got enough shards out to be restorable",
                               "%zu queued shards dropped: their backup"
                               " never got enough shards out to be"
                               " restorable", ndrop), ndrop);
  ks_ui_infof (ui, ngettext ("%zu queued shard sent, %zu left",
                             "%zu queued shards sent, %zu left", ndone),
               ndone, nleft);
  if (nleft)
    {
      ks_ui_errorf (ui, ngettext ("%zu shard could not be sent; run"
                                  " 'keysafe upload-queued' again later",
                                  "%zu shards could not be sent; run"
                                  " 'keysafe upload-queued' again later",
                                  nleft), nleft);
      err = gpg_error (GPG_ERR_TRY_LATER);
    }

 leave:
  ks_free (what);
  ks_free (done);
  ks_queue_list_free (q, nall);
  return err;
}
