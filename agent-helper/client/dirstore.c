/* dirstore.c - a local directory as a shard location (file:///path)
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * See dirstore.h for the contract; the layout is common/shardstore.c.
 */
#include <config.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>
#include <mntent.h>
#include <sys/stat.h>
#include "shardstore.h"
#include "dirstore.h"

int
ks_dirstore_is_url (const char *base)
{
  return base && !strncmp (base, KS_DIRSTORE_SCHEME,
                           strlen (KS_DIRSTORE_SCHEME));
}

gpg_error_t
ks_dirstore_path (const char *base, char **r_path)
{
  const char *s;
  char *path, *d;

  *r_path = NULL;
  if (!ks_dirstore_is_url (base))
    return gpg_error (GPG_ERR_INV_URI);
  s = base + strlen (KS_DIRSTORE_SCHEME);
  if (!strncmp (s, "localhost/", 10))
    s += 9;
  if (*s != '/')
    return gpg_error (GPG_ERR_INV_URI);
  path = gpgrt_malloc (strlen (s) + 1);
  if (!path)
    return gpg_error (GPG_ERR_ENOMEM);
  for (d = path; *s; s++)
    {
      if (*s == '%')
        {
          char hex[3] = { s[1], s[1] ? s[2] : 0, 0 };
          uint8_t c;

          if (ks_hex_decode (hex, &c, 1) || !c)
            {
              gpgrt_free (path);
              return gpg_error (GPG_ERR_INV_URI);
            }
          *d++ = (char)c;
          s += 2;
        }
      else
        *d++ = *s;
    }
  *d = 0;
  *r_path = path;
  return 0;
}

/* The errors that mean "the disk is not there": never mounted (the
 * directory is missing), pulled out (EIO), a FUSE or network mount whose
 * server went away.  */
static gpg_error_t
absent_error (int e)
{
  switch (e)
    {
    case ENOENT: case ENOTDIR: case EIO: case ENODEV: case ENXIO:
    case ENOTCONN: case ESTALE: case ENOMEDIUM:
      return gpg_error (GPG_ERR_ENODEV);
    default:
      return gpg_error_from_errno (e);
    }
}

/* True when PATH is a mount point of /etc/fstab and nothing is mounted
 * on it now (FD, its open directory, is on its parent's device): an
 * unmounted USB stick's empty mount point is no location.  */
static int
is_unmounted_mount_point (const char *path, int fd)
{
  FILE *fp = setmntent ("/etc/fstab", "r");
  struct mntent *me;
  struct stat st, up;
  int listed = 0;

  if (!fp)
    return 0;
  while (!listed && (me = getmntent (fp)))
    listed = !strcmp (me->mnt_dir, path);
  endmntent (fp);
  return listed && !fstat (fd, &st) && !fstatat (fd, "..", &up, 0)
         && st.st_dev == up.st_dev && st.st_ino != up.st_ino;
}

/* Open the top directory of BASE.  */
static gpg_error_t
open_root (const char *base, int *r_fd)
{
  gpg_error_t err;
  char *path = NULL;
  size_t n;

  *r_fd = -1;
  err = ks_dirstore_path (base, &path);
  if (err)
    return err;
  for (n = strlen (path); n > 1 && path[n - 1] == '/'; n--)
    path[n - 1] = 0;
  *r_fd = open (path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (*r_fd < 0)
    err = absent_error (errno);
  else if (is_unmounted_mount_point (path, *r_fd))
    {
      close (*r_fd);
      *r_fd = -1;
      err = gpg_error (GPG_ERR_ENODEV);
    }
  gpgrt_free (path);
  return err;
}

gpg_error_t
ks_dirstore_is_present (const char *base)
{
  gpg_error_t err;
  struct stat st;
  int fd;

  err = open_root (base, &fd);
  if (err)
    return err;
  /* A dead mount can still open; a stat of it fails.  */
  if (fstat (fd, &st))
    err = absent_error (errno);
  close (fd);
  return err;
}

gpg_error_t
ks_dirstore_create (const char *base)
{
  gpg_error_t err;
  char *path = NULL;

  err = ks_dirstore_path (base, &path);
  if (err)
    return err;
  if (mkdir (path, 0700) && errno != EEXIST)
    err = gpg_error_from_syserror ();
  gpgrt_free (path);
  if (!err)
    err = ks_dirstore_is_present (base);
  return err;
}

gpg_error_t
ks_dirstore_put (const char *base, const char *name,
                 const void *data, size_t len)
{
  gpg_error_t err;
  ks_buf_t *old = NULL;
  int fd;

  err = open_root (base, &fd);
  if (err)
    return err;
  err = ks_shardstore_put (fd, name, data, len, 0);
  if (gpg_err_code (err) == GPG_ERR_EEXIST)
    {
      /* The same bytes again: a retry of a put whose answer was lost.
       * Shards are public bytes, a plain compare is fine.  */
      if (!ks_shardstore_get (fd, name, len, &old)
          && old->len == len && (!len || !memcmp (old->data, data, len)))
        err = 0;
    }
  ks_buf_free (old);
  close (fd);
  return err;
}

gpg_error_t
ks_dirstore_get (const char *base, const char *name, size_t max,
                 ks_buf_t **r_buf)
{
  gpg_error_t err;
  int fd;

  *r_buf = NULL;
  err = open_root (base, &fd);
  if (err)
    return err;
  err = ks_shardstore_get (fd, name, max, r_buf);
  close (fd);
  return err;
}

void
ks_dirstore_xfer (ks_xfer_t *x)
{
  gpg_error_t err;

  x->status = 0;
  x->err = 0;
  x->errtext[0] = 0;
  if (x->method == KS_HTTP_PUT)
    {
      err = ks_dirstore_put (x->base, x->name, x->body, x->bodylen);
      switch (gpg_err_code (err))
        {
        case 0: x->status = 201; return;
        case GPG_ERR_EEXIST: x->status = 409; return;
        case GPG_ERR_ENOSPC: x->status = 507; return;
        default: break;
        }
    }
  else
    {
      ks_buf_free (x->resp);
      x->resp = NULL;
      err = ks_dirstore_get (x->base, x->name, x->maxresp, &x->resp);
      switch (gpg_err_code (err))
        {
        case 0: x->status = 200; return;
        case GPG_ERR_ENOENT: x->status = 404; return;
        default: break;
        }
    }
  x->err = err;
  if (gpg_err_code (err) == GPG_ERR_ENODEV)
    snprintf (x->errtext, sizeof x->errtext, "%s",
              _("the directory is not there (a disk not mounted?)"));
  else
    snprintf (x->errtext, sizeof x->errtext, "%s", gpg_strerror (err));
}
