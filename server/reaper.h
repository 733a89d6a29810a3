/* reaper.h - the lingering close after a refused streaming body
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A close with unread data in the receive queue sends a reset, and a
 * reset can make the client's TCP stack drop our answer before the
 * client has read it (a client still sending its body reads late).  So,
 * as web servers do, the socket is half-closed and what still comes is
 * read and dropped, for a bounded time and amount, until the client
 * closes its side.  That wait must not hold a worker thread: a few
 * oversized PUTs a second would stall every other request.  The reaper
 * is one thread holding at most a fixed number of such sockets (its own
 * duplicates of the descriptors); when it is full, a socket is simply
 * closed at once.  The thread reads without holding its lock, one
 * buffer per socket a round, so a worker handing over a socket never
 * waits for a drain.
 */
#ifndef KS_SERVER_REAPER_H
#define KS_SERVER_REAPER_H

#include "keysafe.h"

/* Sockets the reaper holds at most.  */
#define KS_REAPER_SLOTS 64
/* How long and how much it drains one socket at most.  */
#define KS_REAPER_MS 500
#define KS_REAPER_BYTES (1024 * 1024)

typedef struct ks_reaper ks_reaper_t;

gpg_error_t ks_reaper_new (ks_reaper_t **r_reaper);
/* Stop the thread and close what it holds.  Accepts NULL.  */
void ks_reaper_free (ks_reaper_t *reaper);
/* Half-close the socket FD and hand a duplicate of it to the reaper;
 * the caller's FD stays open and the caller closes it as usual.  Never
 * blocks.  */
void ks_reaper_take (ks_reaper_t *reaper, int fd);

#endif /* KS_SERVER_REAPER_H */
