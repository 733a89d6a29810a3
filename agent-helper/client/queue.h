/* queue.h - shards waiting for a server that was down at backup
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * GNUPGHOME/keysafe-queue/<shard name> (directory 0700, files 0600)
 * holds one line "keysafe-queue-1 <server URL>\n" and then the shard
 * bytes; or "keysafe-queue-2 <server URL>\n", "k <threshold>\n", one
 * "sib <URL> <name>\n" per other shard of the same object, "end\n"
 * and the shard bytes.  The siblings let `upload-queued` send a shard
 * only when the object can still reach K shards: a backup killed
 * before its other shards got out leaves no lone shard on a server.  Only shards are queued, never the secret; one shard alone
 * reveals nothing.  A file appears whole or not at all (temp file,
 * fsync, rename).
 */
#ifndef KS_QUEUE_H
#define KS_QUEUE_H

#include "keysafe-client.h"

/* Another shard of the same object: where it goes, its name.  */
typedef struct ks_queue_sib
{
  const char *url;
  char name[KS_NAME_HEX_LEN + 1];
} ks_queue_sib_t;

typedef struct ks_queue_entry
{
  char *path;                   /* file of the entry */
  char *url;                    /* server base URL */
  char name[KS_NAME_HEX_LEN + 1];
  uint8_t *data;
  size_t len;
  unsigned int k;               /* threshold; 0: no siblings known */
  unsigned int nsib;
  ks_queue_sib_t *sib;          /* urls malloc'd */
} ks_queue_entry_t;

/* The queue directory for HOMEDIR (NULL = GnuPG's default).  */
gpg_error_t ks_queue_dir (const char *homedir, char **r_dir);

/* Queue shard NAME with DATA for server URL; the object needs K
 * shards, its others are the NSIB of SIB.  */
gpg_error_t ks_queue_add (const char *homedir, const char *url,
                          const char *name, const uint8_t *data, size_t len,
                          unsigned int k, const ks_queue_sib_t *sib,
                          unsigned int nsib);

/* Parse the LEN bytes of a queue file into E (url, data; not path or
 * name, which come from the file's place).  GPG_ERR_INV_DATA when they
 * are not a queue entry.  */
gpg_error_t ks_queue_parse_entry (const uint8_t *bytes, size_t len,
                                  ks_queue_entry_t *e);
/* Free what an entry holds (url, path, data, siblings) and zero it.  */
void ks_queue_entry_release (ks_queue_entry_t *e);

/* All entries (at most KS_QUEUE_MAX), in directory order.  */
#define KS_QUEUE_MAX 100000
/* Entries one `upload-queued` run looks at.  */
#define KS_QUEUE_CHECK_MAX 4096
gpg_error_t ks_queue_list (const char *homedir, ks_queue_entry_t **r_list,
                           size_t *r_count);
void ks_queue_list_free (ks_queue_entry_t *list, size_t count);

/* Remove the entry of shard NAME, if there is one.  */
gpg_error_t ks_queue_drop (const char *homedir, const char *name);

/* `upload-queued` (queue-send.c) within an operation the caller has
 * begun; R as for ks_flow_upload_queued.  */
gpg_error_t ks_queue_send (const ks_options_t *opt, const ks_ui_t *ui,
                           ks_queue_result_t *r);

/* Remove the file of entry E.  */
gpg_error_t ks_queue_remove (const ks_queue_entry_t *e);

#endif /* KS_QUEUE_H */
