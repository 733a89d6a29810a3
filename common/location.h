/* location.h - the stable identity of a storage location
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Shard names are bound to the location that stores them
 * (doc/protocol.md, "Locations"), so a name handed to the wrong server
 * is worthless to it.  The identity is the `id` a server list gives a
 * location (it survives a move to a new onion address), else the
 * canonical form of its URL defined here.
 */
#ifndef KS_LOCATION_H
#define KS_LOCATION_H

#include "util.h"

/* Longest identity in bytes; longer ones are refused.  */
#define KS_LOCATION_ID_MAX 255

/* True when ID is a valid identity: 1..KS_LOCATION_ID_MAX bytes of
 * printable ASCII (0x21..0x7e).  An `id` from a server list must pass
 * this; a canonical URL always does.  */
int ks_location_id_is_valid (const char *id);

/* Canonicalise URL into *R_ID (gcry_malloc'd, free with gcry_free):
 *   http://HOST[:PORT][/PATH] and https://... : scheme and host in
 *   lowercase, the default port (80, 443) dropped, trailing slashes
 *   dropped; file:///ABSOLUTE/PATH for a directory location.
 * GPG_ERR_INV_URI for anything else: another scheme, user info, a
 * query or fragment, '%' or a byte outside 0x21..0x7e, an empty or
 * "." or ".." path segment, a port outside 1..65535.  */
gpg_error_t ks_location_canon_id (const char *url, char **r_id);

#endif /* KS_LOCATION_H */
