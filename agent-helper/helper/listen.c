/* listen.c - the daemon's socket, never taken from a live helper
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Probing a socket and then removing it is a race: between the probe
 * and the unlink another helper may have put its live socket there.  So
 * the right to the name is a lock: an flock on NAME.lock, held for the
 * daemon's life and dropped by the kernel when it dies.  Whoever holds
 * it may remove a socket left at NAME, since no other helper can be
 * listening on it; whoever cannot get it leaves NAME alone.  (gpg-agent
 * binds first and probes on EADDRINUSE; the lock closes the gap between
 * its probe and its unlink.)  The directory must be writable by us
 * alone, or another user could swap NAME under the checks.  At exit the
 * socket is removed only if NAME is still the one we bound.
 */
#include <config.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>
#include "helper.h"

/* The directory of NAME is ours alone: owned by us, no group or other
 * write bit.  */
static gpg_error_t
check_dir (const char *name)
{
  char dir[sizeof ((struct sockaddr_un *)0)->sun_path];
  struct stat st;

  snprintf (dir, sizeof dir, "%s", name);
  if (lstat (dirname (dir), &st))
    return gpg_error_from_syserror ();
  if (!S_ISDIR (st.st_mode) || st.st_uid != geteuid ()
      || (st.st_mode & (S_IWGRP | S_IWOTH)))
    {
      gpgrt_log_error (_("refusing a socket in %s: others can write "
                         "there\n"), dir);
      return gpg_error (GPG_ERR_EPERM);
    }
  return 0;
}

/* Take the lock of NAME into *R_FD.  GPG_ERR_EADDRINUSE when another
 * helper holds it.  */
static gpg_error_t
take_lock (const char *name, int *r_fd)
{
  char lockname[sizeof ((struct sockaddr_un *)0)->sun_path + 8];
  struct stat st;
  int fd;

  snprintf (lockname, sizeof lockname, "%s.lock", name);
  fd = open (lockname, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0)
    return gpg_error_from_syserror ();
  if (fstat (fd, &st) || !S_ISREG (st.st_mode) || st.st_uid != geteuid ())
    {
      close (fd);
      gpgrt_log_error (_("refusing to use %s: not a file of ours\n"),
                       lockname);
      return gpg_error (GPG_ERR_EEXIST);
    }
  if (flock (fd, LOCK_EX | LOCK_NB))
    {
      gpg_error_t err = errno == EWOULDBLOCK
                        ? gpg_error (GPG_ERR_EADDRINUSE)
                        : gpg_error_from_syserror ();

      close (fd);
      if (gpg_err_code (err) == GPG_ERR_EADDRINUSE)
        gpgrt_log_error (_("another keysafe-helper serves %s\n"), name);
      return err;
    }
  *r_fd = fd;
  return 0;
}

/* Bind FD to ADDR (NAME); a socket left there is removed first if no
 * one answers on it and it is ours.  The caller holds the lock.  */
static gpg_error_t
bind_name (int fd, const struct sockaddr_un *addr, const char *name)
{
  struct stat st;
  int probe;

  if (!bind (fd, (const struct sockaddr *)addr, sizeof *addr))
    return 0;
  if (errno != EADDRINUSE)
    return gpg_error_from_syserror ();
  /* A server that does not take the lock (an older helper) may still
   * listen there.  */
  probe = socket (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (probe >= 0
      && !connect (probe, (const struct sockaddr *)addr, sizeof *addr))
    {
      close (probe);
      gpgrt_log_error (_("another keysafe-helper serves %s\n"), name);
      return gpg_error (GPG_ERR_EADDRINUSE);
    }
  if (probe >= 0)
    close (probe);
  if (lstat (name, &st) || !S_ISSOCK (st.st_mode)
      || st.st_uid != geteuid ())
    {
      gpgrt_log_error (_("refusing to replace %s: not a socket of ours\n"),
                       name);
      return gpg_error (GPG_ERR_EEXIST);
    }
  if (unlink (name)
      || bind (fd, (const struct sockaddr *)addr, sizeof *addr))
    return gpg_error_from_syserror ();
  return 0;
}

gpg_error_t
ks_helper_listen (const char *name, ks_helper_listen_t *r_l)
{
  gpg_error_t err;
  struct sockaddr_un addr;
  struct stat st;
  mode_t oldmask;
  int redirected = 0;

  memset (&st, 0, sizeof st);
  r_l->fd = r_l->lockfd = -1;
  memset (&addr, 0, sizeof addr);
  if (assuan_sock_set_sockaddr_un (name, (struct sockaddr *)&addr,
                                   &redirected))
    return gpg_error_from_syserror ();
  err = check_dir (name);
  if (!err)
    err = take_lock (name, &r_l->lockfd);
  if (err)
    goto leave;
  r_l->fd = socket (AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (r_l->fd < 0)
    {
      err = gpg_error_from_syserror ();
      goto leave;
    }
  oldmask = umask (077);
  err = bind_name (r_l->fd, &addr, name);
  umask (oldmask);
  if (!err && lstat (name, &st))
    err = gpg_error_from_syserror ();
  if (!err && listen (r_l->fd, 8))
    err = gpg_error_from_syserror ();
  if (!err)
    {
      r_l->dev = st.st_dev;
      r_l->ino = st.st_ino;
    }

 leave:
  if (err)
    {
      if (r_l->fd >= 0)
        close (r_l->fd);
      if (r_l->lockfd >= 0)
        close (r_l->lockfd);
      r_l->fd = r_l->lockfd = -1;
    }
  return err;
}

void
ks_helper_unlisten (const char *name, ks_helper_listen_t *l)
{
  struct stat st;

  if (l->fd < 0)
    return;
  /* Still holding the lock, so no other helper is between the check
   * and the unlink.  */
  if (!lstat (name, &st) && S_ISSOCK (st.st_mode)
      && st.st_dev == l->dev && st.st_ino == l->ino)
    unlink (name);
  close (l->fd);
  close (l->lockfd);
  l->fd = l->lockfd = -1;
}
