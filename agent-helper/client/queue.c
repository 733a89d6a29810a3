/* queue.c - shards waiting for a server
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>
#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <sys/stat.h>
#include "queue.h"
#include "gpg.h"
#include "flowutil.h"
#include "file.h"

#define QUEUE_MAGIC "keysafe-queue-1 "
#define QUEUE_MAGIC2 "keysafe-queue-2 "
#define QUEUE_MAGIC3 "keysafe-queue-3 "
#define QUEUE_MAX_LINE 2048
#define QUEUE_MAX_HEAD (KS_SHAMIR_MAX_SHARES * QUEUE_MAX_LINE)
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
  *r_dir = ks_malloc (n);
  if (!*r_dir)
    err = gpg_error_from_syserror ();
  else
    snprintf (*r_dir, n, "%s/keysafe-queue", home);
  ks_free (home);
  return err;
}

/* The head of a version 3 entry into a new HEAD.  */
static gpg_error_t
make_head (const char *url, const ks_queue_obj_t *obj, unsigned int k,
           const ks_queue_sib_t *sib, unsigned int nsib, ks_buf_t **r_head)
{
  gpg_error_t err;
  char line[KS_NAME_HEX_LEN + 64];
  unsigned int i;

  if (!ks_name_is_valid (obj->backup, strlen (obj->backup))
      || obj->chunk >= obj->nchunks)
    return gpg_error (GPG_ERR_INV_ARG);
  err = ks_buf_new (QUEUE_MAX_HEAD, 0, r_head);
  if (!err)
    err = ks_buf_append (*r_head, QUEUE_MAGIC3, strlen (QUEUE_MAGIC3));
  if (!err)
    err = ks_buf_append (*r_head, url, strlen (url));
  snprintf (line, sizeof line, "\nk %u\nbackup %s %lu %lu\n", k,
            obj->backup, (unsigned long)obj->chunk,
            (unsigned long)obj->nchunks);
  if (!err)
    err = ks_buf_append (*r_head, line, strlen (line));
  for (i = 0; !err && i < nsib; i++)
    {
      if (strchr (sib[i].url, '\n') || strchr (sib[i].url, ' ')
          || !ks_name_is_valid (sib[i].name, strlen (sib[i].name)))
        err = gpg_error (GPG_ERR_INV_ARG);
      if (!err)
        err = ks_buf_append (*r_head, "sib ", 4);
      if (!err)
        err = ks_buf_append (*r_head, sib[i].url, strlen (sib[i].url));
      if (!err)
        err = ks_buf_append (*r_head, " ", 1);
      if (!err)
        err = ks_buf_append (*r_head, sib[i].name, KS_NAME_HEX_LEN);
      if (!err)
        err = ks_buf_append (*r_head, "\n", 1);
    }
  if (!err)
    err = ks_buf_append (*r_head, "end\n", 4);
  return err;
}

gpg_error_t
ks_queue_add (const char *homedir, const char *url,
              const char *name, const uint8_t *data, size_t len,
              const ks_queue_obj_t *obj, unsigned int k,
              const ks_queue_sib_t *sib, unsigned int nsib)
{
  gpg_error_t err;
  char *dir = NULL, *path = NULL;
  ks_buf_t *head = NULL;
  struct iovec iov[2];
  struct stat st;
  size_t n;

  if (!ks_name_is_valid (name, strlen (name)) || strchr (url, '\n'))
    return gpg_error (GPG_ERR_INV_ARG);
  err = make_head (url, obj, k, sib, nsib, &head);
  if (!err)
    err = ks_queue_dir (homedir, &dir);
  if (err)
    goto leave;
  if (mkdir (dir, 0700) && errno != EEXIST)
    {
      err = gpg_error_from_syserror ();
      goto leave;
    }
  /* Shards go only into a real directory of ours, not where a link
   * planted in the GnuPG home points.  */
  if (lstat (dir, &st))
    {
      err = gpg_error_from_syserror ();
      goto leave;
    }
  if (!S_ISDIR (st.st_mode) || st.st_uid != geteuid ())
    {
      err = gpg_error (GPG_ERR_EPERM);
      goto leave;
    }
  n = strlen (dir) + KS_NAME_HEX_LEN + 2;
  path = ks_malloc (n);
  if (!path)
    {
      err = gpg_error_from_syserror ();
      goto leave;
    }
  snprintf (path, n, "%s/%s", dir, name);
  iov[0].iov_base = (void *)ks_buf_ptr (head);
  iov[0].iov_len = ks_buf_left (head);
  iov[1].iov_base = (void *)data;
  iov[1].iov_len = len;
  err = ks_file_write_atomic (path, iov, KS_DIM (iov));

 leave:
  ks_buf_free (head);
  ks_free (dir);
  ks_free (path);
  return err;
}

/* The "backup <id> <chunk> <chunks>" line of a version 3 entry.  */
static gpg_error_t
read_obj (ks_buf_t *in, ks_queue_entry_t *e)
{
  char line[QUEUE_MAX_LINE], *p;
  unsigned long j, nj;

  if (ks_buf_get_line (in, line, sizeof line) || strncmp (line, "backup ", 7)
      || strlen (line) < 7 + KS_NAME_HEX_LEN + 4
      || line[7 + KS_NAME_HEX_LEN] != ' ')
    return gpg_error (GPG_ERR_INV_DATA);
  memcpy (e->obj.backup, line + 7, KS_NAME_HEX_LEN);
  e->obj.backup[KS_NAME_HEX_LEN] = 0;
  p = line + 8 + KS_NAME_HEX_LEN;
  if (!ks_name_is_valid (e->obj.backup, KS_NAME_HEX_LEN) || *p < '0'
      || *p > '9')
    return gpg_error (GPG_ERR_INV_DATA);
  j = strtoul (p, &p, 10);
  if (*p != ' ' || p[1] < '0' || p[1] > '9')
    return gpg_error (GPG_ERR_INV_DATA);
  nj = strtoul (p + 1, &p, 10);
  if (*p || j >= nj || nj > KS_MAX_SECRET)
    return gpg_error (GPG_ERR_INV_DATA);
  e->obj.chunk = j;
  e->obj.nchunks = nj;
  e->has_obj = 1;
  return 0;
}

/* The rest of the head of a version 2 or (V3) 3 entry from IN into E
 * (after its first line); IN is left at the shard bytes.  */
static gpg_error_t
read_sibs (ks_buf_t *in, ks_queue_entry_t *e, int v3)
{
  gpg_error_t err;
  char line[QUEUE_MAX_LINE], *sp;
  unsigned long k;

  err = ks_buf_get_line (in, line, sizeof line);
  if (err)
    return gpg_error (GPG_ERR_INV_DATA);
  if (strncmp (line, "k ", 2) || !(k = strtoul (line + 2, &sp, 10))
      || *sp || k > KS_SHAMIR_MAX_SHARES)
    return gpg_error (GPG_ERR_INV_DATA);
  e->k = k;
  if (v3 && (err = read_obj (in, e)))
    return err;
  e->sib = ks_calloc (KS_SHAMIR_MAX_SHARES, sizeof *e->sib);
  if (!e->sib)
    return gpg_error_from_syserror ();
  while (!(err = ks_buf_get_line (in, line, sizeof line))
         && strcmp (line, "end"))
    {
      sp = strrchr (line, ' ');
      if (strncmp (line, "sib ", 4) || !sp || sp < line + 5
          || !ks_name_is_valid (sp + 1, strlen (sp + 1))
          || e->nsib >= KS_SHAMIR_MAX_SHARES)
        return gpg_error (GPG_ERR_INV_DATA);
      *sp = 0;
      e->sib[e->nsib].url = ks_strdup (line + 4);
      if (!e->sib[e->nsib].url)
        return gpg_error_from_syserror ();
      memcpy (e->sib[e->nsib++].name, sp + 1, KS_NAME_HEX_LEN + 1);
    }
  return err ? gpg_error (GPG_ERR_INV_DATA) : 0;
}

void
ks_queue_entry_release (ks_queue_entry_t *e)
{
  unsigned int i;

  ks_free (e->url);
  ks_free (e->path);
  ks_free (e->data);
  for (i = 0; i < e->nsib; i++)
    ks_free ((char *)e->sib[i].url);
  ks_free (e->sib);
  memset (e, 0, sizeof *e);
}

gpg_error_t
ks_queue_parse_entry (const uint8_t *bytes, size_t len, ks_queue_entry_t *e)
{
  gpg_error_t err;
  ks_buf_t in;
  char magic[sizeof QUEUE_MAGIC - 1];
  size_t urlsize;
  int v2, v3;

  memset (e, 0, sizeof *e);
  ks_buf_view (&in, bytes, len);
  err = ks_buf_get_bytes (&in, magic, sizeof magic);
  v2 = !err && !memcmp (magic, QUEUE_MAGIC2, sizeof magic);
  v3 = !err && !memcmp (magic, QUEUE_MAGIC3, sizeof magic);
  if (err || (!v2 && !v3 && memcmp (magic, QUEUE_MAGIC, sizeof magic))
      || !memchr (ks_buf_ptr (&in), '\n', ks_buf_left (&in)))
    return gpg_error (GPG_ERR_INV_DATA);
  urlsize = ks_buf_left (&in) + 1;
  e->url = ks_malloc (urlsize);
  if (!e->url)
    return gpg_error_from_syserror ();
  err = ks_buf_get_line (&in, e->url, urlsize);
  if (err)
    {
      err = gpg_error (GPG_ERR_INV_DATA);
      goto leave;
    }
  if ((v2 || v3) && (err = read_sibs (&in, e, v3)))
    goto leave;
  e->len = ks_buf_left (&in);
  e->data = ks_malloc (e->len ? e->len : 1);
  if (!e->data)
    {
      err = gpg_error_from_syserror ();
      goto leave;
    }
  err = ks_buf_get_bytes (&in, e->data, e->len);

 leave:
  if (err)
    ks_queue_entry_release (e);
  return err;
}

static gpg_error_t
read_entry (const char *path, const char *name, ks_queue_entry_t *e)
{
  gpg_error_t err;
  uint8_t *bytes = NULL;
  size_t len = 0;

  memset (e, 0, sizeof *e);
  err = ks_file_read_at (AT_FDCWD, path, QUEUE_MAX_FILE, 0, &bytes, &len);
  if (err)
    return err;
  err = ks_queue_parse_entry (bytes, len, e);
  ks_free (bytes);
  if (err)
    return err;
  e->path = ks_strdup (path);
  if (!e->path)
    {
      err = gpg_error_from_syserror ();
      ks_queue_entry_release (e);
      return err;
    }
  memcpy (e->name, name, KS_NAME_HEX_LEN + 1);
  return 0;
}

void
ks_queue_list_free (ks_queue_entry_t *list, size_t count)
{
  size_t i;

  if (!list)
    return;
  for (i = 0; i < count; i++)
    ks_queue_entry_release (&list[i]);
  ks_free (list);
}

static int
is_queue_name (const char *name)
{
  return ks_name_is_valid (name, strlen (name));
}

gpg_error_t
ks_queue_list (const char *homedir, ks_queue_entry_t **r_list,
               size_t *r_count)
{
  gpg_error_t err = 0;
  char *dir = NULL, path[4096], **names = NULL;
  ks_queue_entry_t *list = NULL;
  size_t nnames = 0, count = 0, i;

  *r_list = NULL;
  *r_count = 0;
  err = ks_queue_dir (homedir, &dir);
  if (!err)
    err = ks_dir_list (dir, is_queue_name, KS_QUEUE_MAX, &names, &nnames);
  if (err || !nnames)
    goto leave;
  list = ks_calloc (nnames, sizeof *list);
  if (!list)
    {
      err = gpg_error_from_syserror ();
      goto leave;
    }
  for (i = 0; i < nnames; i++)
    {
      snprintf (path, sizeof path, "%s/%s", dir, names[i]);
      if (!read_entry (path, names[i], &list[count]))
        count++;   /* else not ours or damaged: left alone */
    }
  *r_list = list;
  *r_count = count;
  list = NULL;

 leave:
  ks_queue_list_free (list, count);
  ks_dir_list_free (names, nnames);
  ks_free (dir);
  return err;
}

gpg_error_t
ks_queue_remove (const ks_queue_entry_t *e)
{
  if (unlink (e->path) && errno != ENOENT)
    return gpg_error_from_syserror ();
  return 0;
}

gpg_error_t
ks_queue_drop (const char *homedir, const char *name)
{
  gpg_error_t err;
  char *dir = NULL, path[4096];

  if (!ks_name_is_valid (name, strlen (name)))
    return gpg_error (GPG_ERR_INV_ARG);
  err = ks_queue_dir (homedir, &dir);
  if (err)
    return err;
  if (snprintf (path, sizeof path, "%s/%s", dir, name) >= (int)sizeof path)
    err = gpg_error (GPG_ERR_TOO_LARGE);
  ks_free (dir);
  if (err)
    return err;
  if (unlink (path) && errno != ENOENT)
    return gpg_error_from_syserror ();
  return 0;
}
