/* queue.c - shards waiting for a server, and `keysafe upload-queued`
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>
#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <dirent.h>
#include <sys/stat.h>
#include "queue.h"
#include "gpg.h"
#include "flowutil.h"
#include "atomicfile.h"

#define QUEUE_MAGIC "keysafe-queue-1 "
#define QUEUE_MAX_FILE (KS_MAX_SECRET + 4096)

gpg_error_t
ks_queue_dir (const char *homedir, char **r_dir)
{
  gpg_error_t err;
  char *home = NULL;
  size_t n;

  *r_dir = NULL;
  err = ks_gpg_homedir (homedir, &home);
  if (err)
    return err;
  n = strlen (home) + sizeof "/keysafe-queue";
  *r_dir = gcry_malloc (n);
  if (!*r_dir)
    err = gpg_error_from_syserror ();
  else
    snprintf (*r_dir, n, "%s/keysafe-queue", home);
  gcry_free (home);
  return err;
}

static int
is_shard_name (const char *s)
{
  size_t i;

  for (i = 0; i < KS_NAME_HEX_LEN; i++)
    if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
      return 0;
  return !s[i];
}

gpg_error_t
ks_queue_add (const char *homedir, const char *url,
              const char *name, const uint8_t *data, size_t len)
{
  gpg_error_t err;
  char *dir = NULL, *path = NULL;
  struct iovec iov[4];
  size_t n;

  if (!is_shard_name (name) || strchr (url, '\n'))
    return gpg_error (GPG_ERR_INV_ARG);
  err = ks_queue_dir (homedir, &dir);
  if (err)
    goto leave;
  if (mkdir (dir, 0700) && errno != EEXIST)
    {
      err = gpg_error_from_syserror ();
      goto leave;
    }
  n = strlen (dir) + KS_NAME_HEX_LEN + 2;
  path = gcry_malloc (n);
  if (!path)
    {
      err = gpg_error_from_syserror ();
      goto leave;
    }
  snprintf (path, n, "%s/%s", dir, name);
  iov[0].iov_base = (void *)QUEUE_MAGIC;
  iov[0].iov_len = strlen (QUEUE_MAGIC);
  iov[1].iov_base = (void *)url;
  iov[1].iov_len = strlen (url);
  iov[2].iov_base = (void *)"\n";
  iov[2].iov_len = 1;
  iov[3].iov_base = (void *)data;
  iov[3].iov_len = len;
  err = ks_atomic_write (path, iov, KS_DIM (iov));

 leave:
  gcry_free (dir);
  gcry_free (path);
  return err;
}

static gpg_error_t
read_entry (const char *path, const char *name, ks_queue_entry_t *e)
{
  gpg_error_t err = 0;
  int fd;
  uint8_t *buf = NULL;
  size_t len = 0, ml = strlen (QUEUE_MAGIC);
  ssize_t n;
  uint8_t *nl;

  memset (e, 0, sizeof *e);
  fd = open (path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0)
    return gpg_error_from_syserror ();
  buf = gcry_malloc (QUEUE_MAX_FILE);
  if (!buf)
    {
      err = gpg_error_from_syserror ();
      goto leave;
    }
  while (len < QUEUE_MAX_FILE
         && (n = read (fd, buf + len, QUEUE_MAX_FILE - len)) != 0)
    {
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        {
          err = gpg_error_from_syserror ();
          goto leave;
        }
      len += n;
    }
  if (len < ml || memcmp (buf, QUEUE_MAGIC, ml)
      || !(nl = memchr (buf + ml, '\n', len - ml)))
    {
      err = gpg_error (GPG_ERR_INV_DATA);
      goto leave;
    }
  e->url = gcry_malloc ((nl - buf) - ml + 1);
  e->path = gcry_strdup (path);
  e->len = len - (nl + 1 - buf);
  e->data = gcry_malloc (e->len ? e->len : 1);
  if (!e->url || !e->path || !e->data)
    {
      err = gpg_error_from_syserror ();
      goto leave;
    }
  memcpy (e->url, buf + ml, (nl - buf) - ml);
  e->url[(nl - buf) - ml] = 0;
  memcpy (e->data, nl + 1, e->len);
  memcpy (e->name, name, KS_NAME_HEX_LEN + 1);

 leave:
  if (err)
    {
      gcry_free (e->url);
      gcry_free (e->path);
      gcry_free (e->data);
      memset (e, 0, sizeof *e);
    }
  gcry_free (buf);
  close (fd);
  return err;
}

void
ks_queue_list_free (ks_queue_entry_t *list, size_t count)
{
  size_t i;

  if (!list)
    return;
  for (i = 0; i < count; i++)
    {
      gcry_free (list[i].path);
      gcry_free (list[i].url);
      gcry_free (list[i].data);
    }
  gcry_free (list);
}

gpg_error_t
ks_queue_list (const char *homedir, ks_queue_entry_t **r_list,
               size_t *r_count)
{
  gpg_error_t err = 0;
  char *dir = NULL, path[4096];
  DIR *d = NULL;
  struct dirent *de;
  ks_queue_entry_t *list = NULL;
  size_t count = 0, alloc = 0;

  *r_list = NULL;
  *r_count = 0;
  err = ks_queue_dir (homedir, &dir);
  if (err)
    goto leave;
  d = opendir (dir);
  if (!d)
    {
      if (errno != ENOENT)
        err = gpg_error_from_syserror ();
      goto leave;
    }
  while ((de = readdir (d)) && count < KS_QUEUE_MAX)
    {
      if (!is_shard_name (de->d_name))
        continue;
      if (count == alloc)
        {
          ks_queue_entry_t *nl;

          alloc = alloc ? 2 * alloc : 16;
          nl = gcry_realloc (list, alloc * sizeof *nl);
          if (!nl)
            {
              err = gpg_error_from_syserror ();
              goto leave;
            }
          list = nl;
        }
      snprintf (path, sizeof path, "%s/%s", dir, de->d_name);
      if (read_entry (path, de->d_name, &list[count]))
        continue;   /* not ours or damaged: left alone */
      count++;
    }
  *r_list = list;
  *r_count = count;
  list = NULL;

 leave:
  if (d)
    closedir (d);
  ks_queue_list_free (list, count);
  gcry_free (dir);
  return err;
}

gpg_error_t
ks_queue_drop (const char *homedir, const char *name)
{
  gpg_error_t err;
  char *dir = NULL, path[4096];

  if (!is_shard_name (name))
    return gpg_error (GPG_ERR_INV_ARG);
  err = ks_queue_dir (homedir, &dir);
  if (err)
    return err;
  if (snprintf (path, sizeof path, "%s/%s", dir, name) >= (int)sizeof path)
    err = gpg_error (GPG_ERR_TOO_LARGE);
  gcry_free (dir);
  if (err)
    return err;
  if (unlink (path) && errno != ENOENT)
    return gpg_error_from_syserror ();
  return 0;
}

gpg_error_t
ks_queue_remove (const ks_queue_entry_t *e)
{
  if (unlink (e->path) && errno != ENOENT)
    return gpg_error_from_syserror ();
  return 0;
}

/* keysafe upload-queued: PUT every entry; a 201 or a 409 whose stored
 * bytes equal ours is done (so running it twice is harmless).  */
gpg_error_t
ks_flow_upload_queued (const ks_options_t *opt, const ks_ui_t *ui)
{
  gpg_error_t err;
  ks_queue_entry_t *q = NULL;
  size_t nq = 0, i, nget = 0, ndone = 0, nleft = 0;
  ks_xfer_t *x = NULL, *g = NULL;
  ks_transport_cfg_t cfg;
  char why[256];

  err = ks_queue_list (opt->homedir, &q, &nq);
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
  x = gcry_calloc (nq, sizeof *x);
  g = gcry_calloc (nq, sizeof *g);
  if (!x || !g)
    {
      err = gpg_error_from_syserror ();
      goto leave;
    }
  ks_flow_transport_cfg (opt, ui, &cfg);
  for (i = 0; i < nq; i++)
    {
      ks_xfer_set (&x[i], KS_HTTP_PUT, q[i].url, q[i].name, i, 0, 0);
      x[i].body = q[i].data;
      x[i].bodylen = q[i].len;
    }
  err = ks_transport_run (&cfg, x, nq);
  if (err)
    goto leave;

  /* A 409: is it our own shard, stored by an earlier run?  */
  for (i = 0; i < nq; i++)
    if (!x[i].err && x[i].status == 409)
      {
        ks_xfer_set (&g[nget], KS_HTTP_GET, q[i].url, q[i].name, i, 0, 0);
        g[nget].maxresp = q[i].len + 1;
        nget++;
      }
  if (nget)
    {
      err = ks_transport_run (&cfg, g, nget);
      if (err)
        goto leave;
    }

  for (i = 0; i < nq; i++)
    {
      int done = 0;

      if (!x[i].err && x[i].status == 201)
        done = 1;
      else if (!x[i].err && x[i].status == 409)
        {
          size_t k;

          for (k = 0; k < nget; k++)
            if (g[k].server == i)
              break;
          if (k < nget && !g[k].err && g[k].status == 200 && g[k].resp
              && g[k].resp->len == q[i].len
              && !memcmp (g[k].resp->data, q[i].data, q[i].len))
            done = 1;
          else if (k < nget && !g[k].err && g[k].status == 200)
            {
              ks_ui_infof (ui, _("%s holds other data under a queued"
                                 " name; dropping that shard"), q[i].url);
              ks_queue_remove (&q[i]);
              nleft++;
              continue;
            }
        }
      if (done)
        {
          ks_queue_remove (&q[i]);
          ndone++;
        }
      else
        {
          nleft++;
          ks_ui_infof (ui, _("%s: %s; the shard stays queued"), q[i].url,
                       ks_xfer_describe (&x[i], why, sizeof why));
        }
    }
  ks_ui_infof (ui, _("%zu queued shards sent, %zu left"), ndone, nleft);
  if (nleft)
    {
      ks_ui_errorf (ui, _("%zu shards could not be sent; run"
                          " 'keysafe upload-queued' again later"), nleft);
      err = gpg_error (GPG_ERR_TRY_LATER);
    }

 leave:
  ks_transport_release (x, nq);
  ks_transport_release (g, nget);
  gcry_free (x);
  gcry_free (g);
  ks_queue_list_free (q, nq);
  return err;
}
