/* reaper.c - the lingering close after a refused streaming body
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include "reaper.h"

typedef struct held
{
  int fd;               /* -1: free */
  uint64_t deadline;    /* monotonic ms */
  size_t drained;
} held_t;

struct ks_reaper
{
  pthread_mutex_t lock;
  pthread_t thread;
  int wake[2];          /* a byte in wake[1] wakes the thread */
  int stop;
  held_t held[KS_REAPER_SLOTS];
};

/* A full pipe means the thread is awake anyway.  */
static void
wake (ks_reaper_t *r)
{
  ssize_t n = write (r->wake[1], "", 1);

  (void)n;
}

static void
release (held_t *h)
{
  close (h->fd);
  h->fd = -1;
}

/* One bounded step on a socket that poll found readable: read and drop
 * at most one buffer.  True when the socket is done with (end of the
 * stream, an error, or past its byte budget).  Runs without the lock:
 * only this thread reads, closes or clears a slot that holds a socket,
 * and *DRAINED is the slot's own count.  */
static int
drain_step (int fd, size_t *drained)
{
  char buf[16384];
  ssize_t n;

  n = recv (fd, buf, sizeof buf, MSG_DONTWAIT);
  if (n < 0 && (errno == EINTR || errno == EAGAIN))
    return 0;
  return n <= 0 || (*drained += (size_t)n) >= KS_REAPER_BYTES;
}

static void *
reaper_thread (void *arg)
{
  ks_reaper_t *r = arg;
  struct pollfd pfd[KS_REAPER_SLOTS + 1];
  held_t *which[KS_REAPER_SLOTS + 1];
  int done[KS_REAPER_SLOTS + 1];
  uint64_t now, next;
  unsigned int i, n;
  char junk[64];
  int any;

  for (;;)
    {
      any = 0;
      pthread_mutex_lock (&r->lock);
      if (r->stop)
        {
          pthread_mutex_unlock (&r->lock);
          return NULL;
        }
      now = ks_now_ms ();
      next = now + 60000;
      pfd[0].fd = r->wake[0];
      pfd[0].events = POLLIN;
      for (i = 0, n = 1; i < KS_REAPER_SLOTS; i++)
        {
          held_t *h = &r->held[i];

          if (h->fd >= 0 && now >= h->deadline)
            release (h);
          if (h->fd < 0)
            continue;
          if (h->deadline < next)
            next = h->deadline;
          pfd[n].fd = h->fd;
          pfd[n].events = POLLIN;
          which[n++] = h;
        }
      pthread_mutex_unlock (&r->lock);

      if (poll (pfd, n, (int)(next - now)) <= 0)
        continue;
      if (pfd[0].revents)
        while (read (r->wake[0], junk, sizeof junk) > 0)
          ;
      /* The reading is done outside the lock, one buffer per socket a
       * round, so ks_reaper_take never waits for a drain; poll comes
       * back at once for a socket that has more.  */
      for (i = 1; i < n; i++)
        {
          done[i] = pfd[i].revents
                    && drain_step (pfd[i].fd, &which[i]->drained);
          any |= done[i];
        }
      if (!any)
        continue;
      pthread_mutex_lock (&r->lock);
      for (i = 1; i < n; i++)
        if (done[i])
          release (which[i]);
      pthread_mutex_unlock (&r->lock);
    }
}

gpg_error_t
ks_reaper_new (ks_reaper_t **r_reaper)
{
  ks_reaper_t *r;
  unsigned int i;

  *r_reaper = NULL;
  r = calloc (1, sizeof *r);
  if (!r)
    return gpg_error_from_syserror ();
  for (i = 0; i < KS_REAPER_SLOTS; i++)
    r->held[i].fd = -1;
  if (pipe2 (r->wake, O_CLOEXEC | O_NONBLOCK))
    {
      free (r);
      return gpg_error_from_syserror ();
    }
  pthread_mutex_init (&r->lock, NULL);
  if (pthread_create (&r->thread, NULL, reaper_thread, r))
    {
      gpg_error_t err = gpg_error_from_syserror ();

      pthread_mutex_destroy (&r->lock);
      close (r->wake[0]);
      close (r->wake[1]);
      free (r);
      return err;
    }
  *r_reaper = r;
  return 0;
}

void
ks_reaper_free (ks_reaper_t *r)
{
  unsigned int i;

  if (!r)
    return;
  pthread_mutex_lock (&r->lock);
  r->stop = 1;
  pthread_mutex_unlock (&r->lock);
  wake (r);
  pthread_join (r->thread, NULL);
  for (i = 0; i < KS_REAPER_SLOTS; i++)
    if (r->held[i].fd >= 0)
      release (&r->held[i]);
  close (r->wake[0]);
  close (r->wake[1]);
  pthread_mutex_destroy (&r->lock);
  free (r);
}

void
ks_reaper_take (ks_reaper_t *r, int fd)
{
  held_t *h = NULL;
  unsigned int i;
  int dup_fd;

  if (shutdown (fd, SHUT_WR))
    return;
  pthread_mutex_lock (&r->lock);
  for (i = 0; i < KS_REAPER_SLOTS && !h; i++)
    if (r->held[i].fd < 0)
      h = &r->held[i];
  if (h && (dup_fd = fcntl (fd, F_DUPFD_CLOEXEC, 0)) >= 0)
    {
      h->fd = dup_fd;
      h->deadline = ks_now_ms () + KS_REAPER_MS;
      h->drained = 0;
    }
  pthread_mutex_unlock (&r->lock);
  if (h)
    wake (r);
}
