/* storewalk.c - walking a store: --check-store and the backup's source
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <dirent.h>
#include <sys/stat.h>
#include "store.h"
#include "file.h"

static int
is_dot (const char *s)
{
  return !strcmp (s, ".") || !strcmp (s, "..");
}

typedef struct walk_state
{
  ks_store_report_t *report;   /* check mode, or NULL */
  int verbose;
  ks_store_walk_cb_t cb;       /* walk mode, or NULL */
  void *opaque;
} walk_state_t;

static void
note (walk_state_t *ws, const char *what, const char *a, const char *b,
      const char *c)
{
  ws->report->misplaced++;
  if (ws->verbose)
    fprintf (stderr, "keysafe-server: %s: %s%s%s%s%s\n", what,
             a, b ? "/" : "", b ? b : "", c ? "/" : "", c ? c : "");
}

/* The leaf directory A/B.  */
static gpg_error_t
walk_leaf (walk_state_t *ws, int fd, const char *a, const char *b)
{
  gpg_error_t err = 0;
  DIR *dir;
  struct dirent *de;
  struct stat st;
  int sfd;

  err = ks_dir_from_fd (fd, &dir);
  if (err)
    return err;
  while (!err && (de = readdir (dir)))
    {
      const char *n = de->d_name;

      if (is_dot (n))
        continue;
      if (!strncmp (n, KS_SHARDSTORE_TMP_PREFIX, strlen (KS_SHARDSTORE_TMP_PREFIX)))
        {
          if (ws->report)
            {
              ws->report->tempfiles++;
              if (ws->verbose)
                fprintf (stderr, "keysafe-server: %s: %s/%s/%s\n",
                         _("temp file"), a, b, n);
            }
          continue;
        }
      if (!ks_shardstore_name_is_valid (n) || n[0] != a[0] || n[1] != a[1]
          || n[2] != b[0] || n[3] != b[1])
        {
          if (ws->report)
            note (ws, _("wrong name or place"), a, b, n);
          continue;
        }
      sfd = ks_shardstore_openat_quiet (dirfd (dir), n,
                                O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
      if (sfd < 0 || fstat (sfd, &st) || !S_ISREG (st.st_mode))
        {
          if (sfd >= 0)
            close (sfd);
          if (ws->report)
            note (ws, _("not a regular file"), a, b, n);
          continue;
        }
      if (ws->report)
        {
          if (!st.st_size)
            {
              ws->report->empty++;
              if (ws->verbose)
                fprintf (stderr, "keysafe-server: %s: %s/%s/%s\n",
                         _("empty shard"), a, b, n);
            }
          else
            {
              ws->report->shards++;
              ws->report->bytes += st.st_size;
            }
        }
      if (ws->cb && st.st_size)
        err = ws->cb (ws->opaque, n, sfd, st.st_size);
      close (sfd);
    }
  closedir (dir);
  return err;
}

/* A directory level of the tree, FD open on it: the top (A is NULL) or
 * ab (A is its name).  Each entry must be a two-hex directory; its
 * contents are the next level down, or the leaf under ab.  FD is
 * consumed.  */
static gpg_error_t
walk_level (walk_state_t *ws, int fd, const char *a)
{
  gpg_error_t err = 0;
  DIR *dir;
  struct dirent *de;
  int sub;

  err = ks_dir_from_fd (fd, &dir);
  if (err)
    return err;
  while (!err && (de = readdir (dir)))
    {
      if (is_dot (de->d_name))
        continue;
      sub = -1;
      if (ks_shardstore_pair_is_valid (de->d_name))
        sub = ks_shardstore_openat_quiet (dirfd (dir), de->d_name,
                                  O_RDONLY | O_DIRECTORY | O_CLOEXEC
                                  | O_NOFOLLOW);
      if (sub < 0)
        {
          if (ws->report)
            note (ws, _("wrong name or place"), a ? a : de->d_name,
                  a ? de->d_name : NULL, NULL);
          continue;
        }
      err = a ? walk_leaf (ws, sub, a, de->d_name)
              : walk_level (ws, sub, de->d_name);
    }
  closedir (dir);
  return err;
}

static gpg_error_t
walk_top (walk_state_t *ws, const char *dirname)
{
  int fd = ks_shardstore_openat_quiet (AT_FDCWD, dirname,
                               O_RDONLY | O_DIRECTORY | O_CLOEXEC);

  if (fd < 0)
    return gpg_error_from_syserror ();
  return walk_level (ws, fd, NULL);
}

gpg_error_t
ks_store_check (const char *dir, int verbose, ks_store_report_t *r_report)
{
  walk_state_t ws = { 0 };

  memset (r_report, 0, sizeof *r_report);
  ws.report = r_report;
  ws.verbose = verbose;
  return walk_top (&ws, dir);
}

gpg_error_t
ks_store_walk (const char *dir, ks_store_walk_cb_t cb, void *opaque)
{
  walk_state_t ws = { 0 };

  ws.cb = cb;
  ws.opaque = opaque;
  return walk_top (&ws, dir);
}
