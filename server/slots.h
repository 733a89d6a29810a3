/* slots.h - connection slots: deadlines, and room kept for real requests
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Behind Tor every client is 127.0.0.1, so a per-address limit cannot
 * stop one client from taking every connection slot with idle TCP
 * connections that pay nothing.  So a connection that is waiting (it has
 * not sent a whole request head yet, or it is an idle keep-alive between
 * requests) may hold only MAX_WAITING of the slots: when one more comes,
 * the waiting connection that has waited longest is cut, and the rest of
 * the slots stay for connections with a request in progress.  A new
 * connection must send its first head within HEAD_TIMEOUT seconds, a
 * keep-alive its next one within IDLE_TIMEOUT, and a request may take
 * REQUEST_TIMEOUT seconds in all, however slowly bytes still come; the
 * sweep cuts the connections past their deadline (0: none).
 *
 * Cutting is shutdown(2) of the socket: libmicrohttpd then sees the end
 * of the stream and closes the connection the usual way.  A track is
 * removed under the lock before libmicrohttpd closes its socket, so a
 * descriptor cut here is always still that connection's.
 */
#ifndef KS_SERVER_SLOTS_H
#define KS_SERVER_SLOTS_H

#include <stdint.h>
#include "keysafe.h"

typedef struct ks_slots ks_slots_t;
typedef struct ks_slot ks_slot_t;

gpg_error_t ks_slots_new (unsigned int max_waiting, unsigned int head_timeout,
                          unsigned int idle_timeout,
                          unsigned int request_timeout, ks_slots_t **r_slots);
/* Free the table (after the daemon has stopped).  Accepts NULL.  */
void ks_slots_free (ks_slots_t *slots);

/* A new connection on socket FD at NOW: its slot (NULL when out of
 * memory: then only the idle timeout applies to it).  */
ks_slot_t *ks_slots_open (ks_slots_t *slots, int fd, uint64_t now);
/* The connection is closing.  Accepts NULL.  */
void ks_slots_close (ks_slots_t *slots, ks_slot_t *slot);
/* A request head arrived on SLOT at NOW; accepts NULL.  */
void ks_slots_busy (ks_slots_t *slots, ks_slot_t *slot, uint64_t now);
/* Its request is done: the connection waits again; accepts NULL.  */
void ks_slots_idle (ks_slots_t *slots, ks_slot_t *slot, uint64_t now);
/* Cut the connections past their deadline at NOW; about once a second.  */
void ks_slots_sweep (ks_slots_t *slots, uint64_t now);

#endif /* KS_SERVER_SLOTS_H */
