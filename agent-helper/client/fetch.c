/* fetch.c - getting the shards of one backup from the servers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * On backup shard I went to server I.  So restore asks server I for
 * share I first, all servers in parallel; only when that leaves fewer
 * than K shards are the other servers asked for the missing shares (a
 * server list that changed order, or shards moved by an operator).  A
 * server that did not answer is not asked again: it would cost its
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
      if (f->state[x->server] != 1)
        {
          f->state[x->server] = 2;
          snprintf (f->why[x->server], sizeof f->why[x->server], "%s",
                    ks_xfer_describe (x, why, sizeof why));
        }
    }
  else
    f->state[x->server] = 1;
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
    }
  return 0;
}

gpg_error_t
ks_fetch_chunk0 (const ks_options_t *opt, const ks_ui_t *ui,
                 ks_recover_t *rec, const ks_serverlist_t *list,
                 unsigned int k, ks_fetch_t *f)
{
  gpg_error_t err;
  const ks_profile_t *profile = ks_recover_profile (rec);
  unsigned int nsrv = list->count, s, i;
  ks_xfer_t *x = NULL;
  size_t nx = 0;

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
  x = gcry_calloc (f->nfirst ? f->nfirst : 1, sizeof *x);
  if (!x)
    return gpg_error_from_syserror ();
  for (s = 0; s < f->nfirst; s++)
    {
      x[nx].base = list->server[s].url;
      x[nx].method = KS_HTTP_GET;
      err = ks_recover_shard_name (rec, list->server[s].url, s + 1, 0,
                                   x[nx].name);
      if (err)
        break;
      x[nx].maxresp = profile->object_size + 1;
      x[nx].server = s;
      x[nx].share = s + 1;
      x[nx].chunk = 0;
      nx++;
    }
  if (!err)
    err = run_round (opt, ui, f, x, nx);
  ks_transport_release (x, nx);
  gcry_free (x);
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
  const ks_profile_t *profile = ks_recover_profile (f->rec);
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
  x = gcry_calloc ((size_t)f->maxshare * nsrv + 1, sizeof *x);
  if (!x)
    return gpg_error_from_syserror ();
  /* Every missing share from every server that was not asked for it
   * and did not fail already.  */
  for (i = 1; i <= f->maxshare; i++)
    {
      if (f->share_server[i] >= 0)
        continue;
      for (s = 0; s < nsrv; s++)
        {
          if ((s == i - 1 && s < f->nfirst) || f->state[s] == 2)
            continue;
          x[nx].base = f->list->server[s].url;
          x[nx].method = KS_HTTP_GET;
          err = ks_recover_shard_name (f->rec, f->list->server[s].url, i, 0,
                                       x[nx].name);
          if (err)
            goto leave;
          x[nx].maxresp = profile->object_size + 1;
          x[nx].server = s;
          x[nx].share = i;
          x[nx].chunk = 0;
          nx++;
        }
    }
  if (nx)
    {
      err = run_round (opt, ui, f, x, nx);
      ks_transport_release (x, nx);
    }
 leave:
  gcry_free (x);
  f->found = ks_recover_shard_count (f->rec, 0);
  if (r_new)
    *r_new = f->found - before;
  return err;
}

gpg_error_t
ks_fetch_rest (const ks_options_t *opt, const ks_ui_t *ui, ks_fetch_t *f)
{
  gpg_error_t err = 0;
  const ks_profile_t *profile = ks_recover_profile (f->rec);
  uint32_t nchunks = ks_recover_nchunks (f->rec), j;
  unsigned int i, have = 0;
  ks_xfer_t *x = NULL;
  size_t nx = 0;

  for (i = 1; i <= f->maxshare; i++)
    if (f->share_server[i] >= 0)
      have++;
  if (nchunks <= 1 || !have)
    return 0;
  x = gcry_calloc ((size_t)(nchunks - 1) * have, sizeof *x);
  if (!x)
    return gpg_error_from_syserror ();
  for (j = 1; j < nchunks; j++)
    for (i = 1; i <= f->maxshare; i++)
      {
        int s = f->share_server[i];

        if (s < 0)
          continue;
        x[nx].base = f->list->server[s].url;
        x[nx].method = KS_HTTP_GET;
        err = ks_recover_shard_name (f->rec, f->list->server[s].url, i, j,
                                     x[nx].name);
        if (err)
          goto leave;
        x[nx].maxresp = profile->object_size + 1;
        x[nx].server = s;
        x[nx].share = i;
        x[nx].chunk = j;
        nx++;
      }
  err = run_round (opt, ui, f, x, nx);
 leave:
  ks_transport_release (x, nx);
  gcry_free (x);
  return err;
}

const char *
ks_fetch_failures (const ks_fetch_t *f, char *buf, size_t size)
{
  unsigned int s;
  size_t used = 0;

  *buf = 0;
  for (s = 0; s < f->list->count && s < KS_DIM (f->state); s++)
    if (f->state[s] == 2 && used < size)
      {
        int n = snprintf (buf + used, size - used, "%s%s (%s)",
                          used ? ", " : "", f->list->server[s].url,
                          f->why[s]);
        if (n < 0)
          break;
        used += n;
      }
  return buf;
}

unsigned int
ks_fetch_answered (const ks_fetch_t *f)
{
  unsigned int s, n = 0;

  for (s = 0; s < KS_DIM (f->state); s++)
    if (f->state[s] == 1)
      n++;
  return n;
}
