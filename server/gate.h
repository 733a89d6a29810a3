/* gate.h - the cheap checks of a request, before any work is done for it
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * doc/protocol.md section 12 is normative.  Everything here looks only at
 * bytes the client sent (the raw request target, the version, the
 * headers) and costs no more than a pass over them.  Untrusted strings
 * are read through ks_buf's read half, so no check can read past them.
 */
#ifndef KS_SERVER_GATE_H
#define KS_SERVER_GATE_H

#include <stdint.h>
#include <microhttpd.h>
#include "keysafe.h"

#define KS_GATE_PATH_SHARD "/v1/shard/"
#define KS_GATE_PATH_INFO "/v1/info"

/* True if the raw request target URI, as the client sent it (before
 * libmicrohttpd decodes it), is one a client of this protocol sends:
 * no '%' escape, no '?' query, no '#', no space or control byte.
 * SEPARATOR is the byte libmicrohttpd left just before URI in its read
 * buffer: a NUL where it cut the request line at the one space after the
 * method; anything else means more spaces were skipped there.  */
int ks_gate_raw_uri_is_clean (const char *uri, char separator);

/* 0 if VERSION is HTTP/1.0 or HTTP/1.1, else the status to answer:
 * 505 for another HTTP/x.y, 400 for anything else.  */
unsigned int ks_gate_version (const char *version);

/* The shard name of the decoded URL: "/v1/shard/" followed by exactly
 * 64 lowercase hex characters and nothing else, into NAME (65 bytes).
 * GPG_ERR_INV_NAME otherwise.  */
gpg_error_t ks_gate_shard_name (const char *url, char *name);

/* The headers that say how long a body is.  Two lengths, or a length
 * with a coding, are how requests get smuggled past proxies.  */
typedef struct ks_gate_body
{
  unsigned int lengths;          /* Content-Length headers */
  unsigned int codings;          /* Transfer-Encoding headers */
  unsigned int unknown_coding;   /* codings other than "chunked" */
  int has_length;                /* one valid Content-Length */
  uint64_t length;               /* its value */
} ks_gate_body_t;

/* Read the body headers of CONN into R_BODY.  GPG_ERR_INV_VALUE when
 * they contradict each other or a length is malformed.  */
gpg_error_t ks_gate_body (struct MHD_Connection *conn,
                          ks_gate_body_t *r_body);

/* True if LEN is one of the NSIZES object sizes in SIZES.  */
int ks_gate_size_is_known (const size_t *sizes, unsigned int nsizes,
                           uint64_t len);

/* The object sizes of the known profiles (common/profile.c) up to MAX,
 * smallest first, into SIZES (room for MAXN) and their number into
 * *R_N: the only sizes a PUT may have.  GPG_ERR_INV_VALUE when none is
 * left.  */
gpg_error_t ks_gate_profile_sizes (size_t max, size_t *sizes,
                                   unsigned int maxn, unsigned int *r_n);

#endif /* KS_SERVER_GATE_H */
