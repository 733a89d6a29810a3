/* archive.h - the store-backup archive ("KSSTORE1"): its parser
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The archive is the plaintext of a store backup (doc/server-operator.md):
 *
 *   "KSSTORE1"                                    8 bytes
 *   per shard: 'S' || name (32 raw bytes) || be32 length || bytes
 *   end:       'E' || be64 number of shards
 *
 * The parser takes the archive in pieces of any size as they stream out
 * of the decryption and calls back once per whole shard record.  It
 * reads through ks_buf's read half, so no record can make it read past
 * what it holds, and it holds at most one record.  Only an archive that
 * ends with its end record, whose count matches, with nothing after it,
 * is complete.
 */
#ifndef KS_SERVER_ARCHIVE_H
#define KS_SERVER_ARCHIVE_H

#include <stdint.h>
#include "keysafe.h"

#define KS_ARCHIVE_MAGIC "KSSTORE1"
#define KS_ARCHIVE_MAGIC_LEN 8
#define KS_ARCHIVE_NAME_LEN (KS_NAME_HEX_LEN / 2)

/* Called for each shard: NAME (64 lowercase hex) and its LEN bytes.  A
 * non-zero return stops the parse and is returned by ks_archive_feed.  */
typedef gpg_error_t (*ks_archive_cb_t) (void *opaque, const char *name,
                                        const uint8_t *data, size_t len);

typedef struct ks_archive ks_archive_t;

/* A parser for shards of 1 to MAX_SHARD bytes, calling CB (may be NULL:
 * only check the form).  */
gpg_error_t ks_archive_new (size_t max_shard, ks_archive_cb_t cb,
                            void *opaque, ks_archive_t **r_archive);
void ks_archive_free (ks_archive_t *archive);
/* Accept only shards whose length is one of the NSIZES in SIZES (kept,
 * not copied): the object sizes a server stores.  */
void ks_archive_only_sizes (ks_archive_t *archive, const size_t *sizes,
                            unsigned int nsizes);
/* The next LEN bytes of the archive.  GPG_ERR_INV_DATA for a malformed
 * archive, GPG_ERR_INV_LENGTH for a shard of a length not accepted
 * (empty, too large, or not one of the sizes), GPG_ERR_TRUNCATED for an end record whose count is wrong.
 * After an error every later call fails the same way.  */
gpg_error_t ks_archive_feed (ks_archive_t *archive, const void *data,
                             size_t len);
/* After GPG_ERR_INV_LENGTH: the shard record's number (from 0) and the
 * length it claimed, for a message that says which one.  */
void ks_archive_bad_record (const ks_archive_t *archive, uint64_t *r_index,
                            size_t *r_len);
/* The archive has ended: 0 and the number of shards in *R_COUNT if it
 * was complete, else GPG_ERR_TRUNCATED (or the earlier error).  */
gpg_error_t ks_archive_finish (ks_archive_t *archive, uint64_t *r_count);

#endif /* KS_SERVER_ARCHIVE_H */
