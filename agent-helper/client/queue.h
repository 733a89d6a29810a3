/* queue.h - shards waiting for a server that was down at backup
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * GNUPGHOME/keysafe-queue/<shard name> (directory 0700, files 0600)
 * holds "keysafe-queue-3 <server URL>\n", "k <threshold>\n",
 * "backup <id> <chunk> <chunks>\n", one "sib <URL> <name>\n" per
 * other shard of the same object, "end\n" and the shard bytes.  The
 * backup line lets `upload-queued` decide per backup, not per object:
 * a shard goes out only when every object of its backup can reach K,
 * and chunk 0 only after the other objects are stored, so a backup
 * killed part-way never leaves a name that looks taken but does not
 * restore (protocol.md section 8 step 5).  Entries of the older forms
 * are still read: "keysafe-queue-2" (no backup line; judged as a
 * backup of one object) and "keysafe-queue-1" (URL and bytes only;
 * sent as they are).  Only shards are queued, never the secret; one
 * shard alone reveals nothing.  A file appears whole or not at all
 * (common/file.c: an unnamed file linked once complete).
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

/* Which backup and object an entry belongs to.  The id is SHA-256 of
 * the backup's first shard in hex: random per backup, kept locally.  */
typedef struct ks_queue_obj
{
  char backup[KS_NAME_HEX_LEN + 1];
  uint32_t chunk;
  uint32_t nchunks;
} ks_queue_obj_t;

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
  int has_obj;                  /* OBJ is known (version 3) */
  ks_queue_obj_t obj;
} ks_queue_entry_t;

/* The queue directory for HOMEDIR (NULL = GnuPG's default).  */
gpg_error_t ks_queue_dir (const char *homedir, char **r_dir);

/* Queue shard NAME with DATA for server URL; it is part of OBJ, which
 * needs K shards, its others are the NSIB of SIB.  */
gpg_error_t ks_queue_add (const char *homedir, const char *url,
                          const char *name, const uint8_t *data, size_t len,
                          const ks_queue_obj_t *obj, unsigned int k,
                          const ks_queue_sib_t *sib, unsigned int nsib);

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
