/* slots.c - connection slots: deadlines, and room kept for real requests
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/socket.h>
#include "slots.h"

typedef enum { SLOT_NEW, SLOT_BUSY, SLOT_IDLE } slot_state_t;

struct ks_slot
{
  ks_slot_t *next, *prev;   /* list of all slots, oldest wait first */
  int fd;
  int cut;
  slot_state_t state;
  uint64_t since;           /* start of the state */
};

struct ks_slots
{
  pthread_mutex_t lock;
  unsigned int max_waiting;
  unsigned int head_timeout;
  unsigned int idle_timeout;
  unsigned int request_timeout;
  unsigned int waiting;     /* slots in SLOT_NEW or SLOT_IDLE, not cut */
  ks_slot_t *head, *tail;   /* head: the longest wait */
};

gpg_error_t
ks_slots_new (unsigned int max_waiting, unsigned int head_timeout,
              unsigned int idle_timeout, unsigned int request_timeout,
              ks_slots_t **r_slots)
{
  ks_slots_t *slots;

  *r_slots = NULL;
  slots = calloc (1, sizeof *slots);
  if (!slots)
    return gpg_error_from_syserror ();
  pthread_mutex_init (&slots->lock, NULL);
  slots->max_waiting = max_waiting ? max_waiting : 1;
  slots->head_timeout = head_timeout;
  slots->idle_timeout = idle_timeout;
  slots->request_timeout = request_timeout;
  *r_slots = slots;
  return 0;
}

void
ks_slots_free (ks_slots_t *slots)
{
  ks_slot_t *s;

  if (!slots)
    return;
  while ((s = slots->head))
    {
      slots->head = s->next;
      free (s);
    }
  pthread_mutex_destroy (&slots->lock);
  free (slots);
}

static void
unlink_slot (ks_slots_t *slots, ks_slot_t *s)
{
  if (s->prev)
    s->prev->next = s->next;
  else
    slots->head = s->next;
  if (s->next)
    s->next->prev = s->prev;
  else
    slots->tail = s->prev;
  s->next = s->prev = NULL;
}

static void
append_slot (ks_slots_t *slots, ks_slot_t *s)
{
  s->prev = slots->tail;
  s->next = NULL;
  if (slots->tail)
    slots->tail->next = s;
  else
    slots->head = s;
  slots->tail = s;
}

static int
is_waiting (const ks_slot_t *s)
{
  return !s->cut && s->state != SLOT_BUSY;
}

static void
cut (ks_slots_t *slots, ks_slot_t *s)
{
  if (is_waiting (s))
    slots->waiting--;
  if (s->fd >= 0)
    shutdown (s->fd, SHUT_RDWR);
  s->cut = 1;
}

ks_slot_t *
ks_slots_open (ks_slots_t *slots, int fd, uint64_t now)
{
  ks_slot_t *s, *old;

  s = calloc (1, sizeof *s);
  if (!s)
    return NULL;
  s->fd = fd;
  s->state = SLOT_NEW;
  s->since = now;
  pthread_mutex_lock (&slots->lock);
  /* The list is in order of the start of each wait (a slot moves to
   * the tail whenever it changes state), so the first waiting slot from
   * the head has waited longest.  */
  if (slots->waiting >= slots->max_waiting)
    for (old = slots->head; old; old = old->next)
      if (is_waiting (old))
        {
          cut (slots, old);
          break;
        }
  append_slot (slots, s);
  slots->waiting++;
  pthread_mutex_unlock (&slots->lock);
  return s;
}

void
ks_slots_close (ks_slots_t *slots, ks_slot_t *s)
{
  if (!s)
    return;
  pthread_mutex_lock (&slots->lock);
  if (is_waiting (s))
    slots->waiting--;
  unlink_slot (slots, s);
  pthread_mutex_unlock (&slots->lock);
  free (s);
}

static void
set_state (ks_slots_t *slots, ks_slot_t *s, slot_state_t state,
           uint64_t now)
{
  if (!s)
    return;
  pthread_mutex_lock (&slots->lock);
  if (!s->cut)
    {
      slots->waiting -= is_waiting (s);
      s->state = state;
      slots->waiting += is_waiting (s);
    }
  s->since = now;
  unlink_slot (slots, s);
  append_slot (slots, s);
  pthread_mutex_unlock (&slots->lock);
}

void
ks_slots_busy (ks_slots_t *slots, ks_slot_t *s, uint64_t now)
{
  if (s && s->state != SLOT_BUSY)
    set_state (slots, s, SLOT_BUSY, now);
}

void
ks_slots_idle (ks_slots_t *slots, ks_slot_t *s, uint64_t now)
{
  set_state (slots, s, SLOT_IDLE, now);
}

void
ks_slots_sweep (ks_slots_t *slots, uint64_t now)
{
  ks_slot_t *s;
  unsigned int limit;

  pthread_mutex_lock (&slots->lock);
  for (s = slots->head; s; s = s->next)
    {
      if (s->cut || now < s->since)
        continue;
      /* A keep-alive that trickles the head of its next request gets
       * no more than the idle timeout, moving bytes or not.  */
      limit = s->state == SLOT_NEW ? slots->head_timeout
              : s->state == SLOT_IDLE ? slots->idle_timeout
              : slots->request_timeout;
      if (limit && now - s->since >= limit)
        cut (slots, s);
    }
  pthread_mutex_unlock (&slots->lock);
}
