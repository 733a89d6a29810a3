/* reply.h - the answers of keysafe-server (libmicrohttpd responses)
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * One table maps every status to its body (doc/protocol.md §12); every
 * answer carries Cache-Control: no-store.  The bodies are protocol text
 * for programs, hence not translated.
 */
#ifndef KS_SERVER_REPLY_H
#define KS_SERVER_REPLY_H

#include <microhttpd.h>
#include "keysafe.h"
#include "store.h"

/* STATUS with TEXT as its body and, when HDR is not NULL, the header
 * HDR: HDRVAL.  */
enum MHD_Result ks_reply_text (struct MHD_Connection *conn,
                               unsigned int status, const char *text,
                               const char *hdr, const char *hdrval);

/* STATUS with the body of the status table.  */
enum MHD_Result ks_reply_status (struct MHD_Connection *conn,
                                 unsigned int status);

/* 405 with the methods the path has: GET for /v1/info, GET and PUT for
 * shards.  */
enum MHD_Result ks_reply_not_allowed (struct MHD_Connection *conn,
                                      int is_info);

/* GET /v1/info: the limits a client needs: the NSIZES object sizes in
 * SIZES (smallest first), the difficulty of a GET now and the bits a
 * PUT pays on top of it.  */
enum MHD_Result ks_reply_info (struct MHD_Connection *conn,
                               const size_t *sizes, unsigned int nsizes,
                               unsigned int difficulty,
                               unsigned int put_bits);

/* GET of the shard NAME from STORE: 200 with its bytes, or 404.  */
enum MHD_Result ks_reply_shard (struct MHD_Connection *conn,
                                ks_store_t *store, const char *name);

/* Refuse a body while it is still streaming in; the caller then returns
 * MHD_NO so that MHD closes the connection.  True if the answer went
 * out whole (then a lingering close is worth it).  */
int ks_reply_cut (struct MHD_Connection *conn, unsigned int status);

/* The status for a store error (0 is 201 Created).  */
unsigned int ks_reply_status_of_error (gpg_error_t err);

#endif /* KS_SERVER_REPLY_H */
