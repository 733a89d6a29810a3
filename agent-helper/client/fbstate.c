/* fbstate.c - the files of keysafe firstboot in the GnuPG home
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * See fbstate.h.  Every file is written whole or not at all
 * (common/file.c).
 */
#include <config.h>
#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <fcntl.h>
#include <time.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/stat.h>
#include "fbstate.h"
#include "queue.h"
#include "file.h"

#define PENDING_MAGIC "keysafe-firstboot-pending-1"
/* The longest line of a pending file ("shard " and 64 hex digits, a
 * fingerprint, a profile name) is far shorter.  */
#define LINE_MAX_LEN 256
/* The header and KS_FBSTATE_MAX_PENDING shard lines fit easily.  */
#define PENDING_MAX_FILE (LINE_MAX_LEN * (KS_FBSTATE_MAX_PENDING + 8))

gpg_error_t
ks_fbstate_path (const char *home, const char *file, char **r_path)
{
  size_t n = strlen (home) + strlen (file) + 2;

  *r_path = ks_malloc (n);
  if (!*r_path)
    return gpg_error_from_syserror ();
  snprintf (*r_path, n, "%s/%s", home, file);
  return 0;
}

int
ks_fbstate_exists (const char *path)
{
  struct stat st;

  return !lstat (path, &st);
}

/* Write TEXT to HOME/FILE: whole or not at all.  */
static gpg_error_t
write_atomic (const char *home, const char *file, const char *text)
{
  gpg_error_t err;
  char *path = NULL;
  struct iovec iov;

  err = ks_fbstate_path (home, file, &path);
  if (err)
    return err;
  iov.iov_base = (void *)text;
  iov.iov_len = strlen (text);
  err = ks_file_write_atomic (path, &iov, 1);
  ks_free (path);
  return err;
}

gpg_error_t
ks_fbstate_lock (const char *home, int *r_fd)
{
  gpg_error_t err;
  char *path = NULL;
  int fd;

  *r_fd = -1;
  err = ks_fbstate_path (home, KS_FBSTATE_LOCK, &path);
  if (err)
    return err;
  fd = open (path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0)
    err = gpg_error_from_syserror ();
  else if (flock (fd, LOCK_EX | LOCK_NB))
    {
      err = errno == EWOULDBLOCK ? gpg_error (GPG_ERR_LOCKED)
                                 : gpg_error_from_syserror ();
      close (fd);
    }
  else
    *r_fd = fd;
  ks_free (path);
  return err;
}

static int
cmp_name (const void *a, const void *b)
{
  return strcmp (a, b);
}

int
ks_fbstate_names_have (const ks_fbnames_t *s, const char *name)
{
  return s->count && bsearch (name, s->name, s->count, sizeof *s->name,
                              cmp_name) != NULL;
}

void
ks_fbstate_names_release (ks_fbnames_t *s)
{
  ks_free (s->name);
  s->name = NULL;
  s->count = 0;
}

gpg_error_t
ks_fbstate_servers_holding (const char *homedir,
                            const ks_fbnames_t *pending, unsigned int n,
                            const char (*sent)[KS_NAME_HEX_LEN + 1],
                            size_t nsent, unsigned int *r_nok,
                            size_t *r_left)
{
  gpg_error_t err;
  ks_queue_entry_t *q = NULL;
  size_t nq = 0, i, j, left = 0;
  unsigned int shorts = 0;

  *r_nok = 0;
  *r_left = 0;
  err = ks_queue_list (homedir, &q, &nq);
  if (err)
    return err;
  for (i = 0; i < nq; i++)
    {
      if (!ks_fbstate_names_have (pending, q[i].name))
        continue;
      left++;
      for (j = 0; j < i; j++)
        if (ks_fbstate_names_have (pending, q[j].name)
            && !strcmp (q[j].url, q[i].url))
          break;
      if (j == i)
        shorts++;
    }
  for (i = 0; i < pending->count; i++)
    {
      for (j = 0; j < nq && strcmp (q[j].name, pending->name[i]); j++)
        ;
      if (j < nq)
        continue;
      for (j = 0; j < nsent && strcmp (sent[j], pending->name[i]); j++)
        ;
      if (j == nsent)
        shorts++;               /* dropped: no server holds it */
    }
  *r_nok = shorts < n ? n - shorts : 0;
  *r_left = left;
  ks_queue_list_free (q, nq);
  return 0;
}

gpg_error_t
ks_fbstate_write_marker (const char *home, const char *fpr,
                         const char *profile, size_t queued)
{
  gpg_error_t err;
  char date[64], *text;
  time_t now = time (NULL);
  struct tm tm;

  if (!gmtime_r (&now, &tm)
      || !strftime (date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &tm))
    snprintf (date, sizeof date, "%lld", (long long)now);
  text = gpgrt_bsprintf ("# keysafe firstboot is done; delete this file to"
                         " run it again.\n"
                         "date %s\nfingerprint %s\nprofile %s\n"
                         "queued %zu\n", date, fpr, profile, queued);
  if (!text)
    return gpg_error_from_syserror ();
  err = write_atomic (home, KS_FBSTATE_MARKER, text);
  gpgrt_free (text);
  return err;
}

gpg_error_t
ks_fbstate_write_pending (const char *home, const char *fpr,
                          const char *profile, unsigned int n,
                          unsigned int k, const ks_fbnames_t *newq)
{
  gpg_error_t err;
  char *text, *p;
  size_t i, size;

  if (newq->count > KS_FBSTATE_MAX_PENDING)
    return gpg_error (GPG_ERR_TOO_LARGE);
  size = 512 + strlen (fpr) + strlen (profile)
    + newq->count * (KS_NAME_HEX_LEN + 8);
  text = ks_malloc (size);
  if (!text)
    return gpg_error_from_syserror ();
  p = text;
  p += snprintf (p, size, "%s\nfingerprint %s\nprofile %s\nshares %u\n"
                 "threshold %u\n", PENDING_MAGIC, fpr, profile, n, k);
  for (i = 0; i < newq->count; i++)
    p += snprintf (p, size - (p - text), "shard %s\n", newq->name[i]);
  err = write_atomic (home, KS_FBSTATE_PENDING, text);
  ks_free (text);
  return err;
}

static gpg_error_t
add_pending_name (ks_fbpending_t *pd, const char *name, size_t *cap)
{
  void *nn;

  if (pd->names.count == KS_FBSTATE_MAX_PENDING)
    return gpg_error (GPG_ERR_TOO_LARGE);
  if (pd->names.count == *cap)
    {
      *cap = *cap ? 2 * *cap : 16;
      nn = ks_realloc (pd->names.name, *cap * sizeof *pd->names.name);
      if (!nn)
        return gpg_error_from_syserror ();
      pd->names.name = nn;
    }
  memcpy (pd->names.name[pd->names.count++], name, KS_NAME_HEX_LEN + 1);
  return 0;
}

/* A field that does not fit is not one we wrote.  */
static gpg_error_t
copy_field (char *dst, size_t dstsize, const char *src)
{
  size_t n = strlen (src);

  if (n >= dstsize)
    return gpg_error (GPG_ERR_INV_DATA);
  memcpy (dst, src, n + 1);
  return 0;
}

gpg_error_t
ks_fbstate_parse_pending (const uint8_t *bytes, size_t len,
                          ks_fbpending_t *pd)
{
  gpg_error_t err = 0;
  ks_buf_t in;
  char line[LINE_MAX_LEN];
  size_t cap = 0;
  int first = 1;

  memset (pd, 0, sizeof *pd);
  /* Every line ends in LF: a file without one at the end was cut.  */
  if (len && bytes[len - 1] != '\n')
    return gpg_error (GPG_ERR_INV_DATA);
  ks_buf_view (&in, bytes, len);
  while (!(err = ks_buf_get_line (&in, line, sizeof line)))
    {
      if (first)
        {
          if (strcmp (line, PENDING_MAGIC))
            break;
          first = 0;
        }
      else if (!strncmp (line, "fingerprint ", 12))
        err = copy_field (pd->fpr, sizeof pd->fpr, line + 12);
      else if (!strncmp (line, "profile ", 8))
        err = copy_field (pd->profile, sizeof pd->profile, line + 8);
      else if (!strncmp (line, "shares ", 7))
        pd->n = (unsigned int)strtoul (line + 7, NULL, 10);
      else if (!strncmp (line, "threshold ", 10))
        pd->k = (unsigned int)strtoul (line + 10, NULL, 10);
      else if (!strncmp (line, "shard ", 6)
               && ks_name_is_valid (line + 6, strlen (line + 6)))
        {
          err = add_pending_name (pd, line + 6, &cap);
        }
      if (err)
        goto leave;
    }
  if (gpg_err_code (err) == GPG_ERR_TOO_LARGE)
    goto leave;   /* a line too long */
  err = 0;
  if (first || ks_buf_left (&in) || !*pd->fpr || !*pd->profile
      || pd->k < 2 || pd->k > pd->n || pd->n > KS_SHAMIR_MAX_SHARES)
    {
      err = gpg_error (GPG_ERR_INV_DATA);
      goto leave;
    }
  if (pd->names.count)
    qsort (pd->names.name, pd->names.count, sizeof *pd->names.name,
           cmp_name);

 leave:
  if (err)
    {
      if (gpg_err_code (err) != GPG_ERR_ENOMEM)
        err = gpg_error (GPG_ERR_INV_DATA);
      ks_fbstate_names_release (&pd->names);
    }
  return err;
}

gpg_error_t
ks_fbstate_read_pending (const char *path, ks_fbpending_t *pd)
{
  gpg_error_t err;
  uint8_t *bytes = NULL;
  size_t len = 0;

  memset (pd, 0, sizeof *pd);
  err = ks_file_read_at (AT_FDCWD, path, PENDING_MAX_FILE, 0, &bytes,
                         &len);
  if (!err)
    err = ks_fbstate_parse_pending (bytes, len, pd);
  ks_free (bytes);
  return err;
}

void
ks_fbstate_drop_pending (const char *homedir, const char *path,
                         const ks_fbnames_t *pending)
{
  ks_queue_entry_t *q = NULL;
  size_t nq = 0, i;

  if (!ks_queue_list (homedir, &q, &nq))
    for (i = 0; i < nq; i++)
      if (ks_fbstate_names_have (pending, q[i].name))
        ks_queue_remove (&q[i]);
  ks_queue_list_free (q, nq);
  unlink (path);
}
