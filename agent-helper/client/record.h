/* record.h - a record of each backup in the GnuPG home
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * After a backup the client writes one small text file into
 * $GNUPGHOME/keysafe/records/ telling when it was made, with which
 * profile, of which key (when the key is known), to which locations, and
 * the share count and threshold.  check and restore read the records to
 * know where to look, `keysafe list` shows them.  A record never holds
 * the item name or anything derived from it: whoever reads the GnuPG
 * home learns where shards are, not how to name them.
 *
 * One file per backup, written whole or not at all (common/file.h), so
 * records are only ever added and a crash leaves no torn one.  The
 * format, one "keyword value" line each, after a first line that is the
 * magic:
 *
 *   keysafe-record-1
 *   time 1764787200                 seconds since the epoch (UTC)
 *   profile default                 [a-z0-9-], at most 31 characters
 *   fingerprint 0123...CDEF         optional: 40 or 64 uppercase hex
 *   shares 3                        n, 1..255
 *   threshold 2                     k, 1..n
 *   location https://a.onion        once per location, in share order:
 *   location file:///media/usb/ks   an URL, printable ASCII, no spaces
 *
 * Each keyword but "location" at most once; keywords this version does
 * not know are skipped, so a newer writer's records stay readable.
 */
#ifndef KS_RECORD_H
#define KS_RECORD_H

#include "keysafe.h"

#define KS_RECORD_MAGIC "keysafe-record-1"
#define KS_RECORD_MAX_FILE 20480
#define KS_RECORD_MAX_LINE 600
#define KS_RECORD_MAX_URL 512
#define KS_RECORD_MAX_LOCATIONS 32
/* At most this many records are read from one GnuPG home.  */
#define KS_RECORD_MAX_FILES 4096

typedef struct ks_record
{
  uint64_t time;
  char profile[32];
  char fpr[65];                 /* "" when not known */
  unsigned int shares;
  unsigned int threshold;
  unsigned int nlocations;
  char *locations[KS_RECORD_MAX_LOCATIONS];   /* gpgrt_malloc'd */
} ks_record_t;

/* Free what REC holds (not REC itself); it is zeroed.  */
void ks_record_release (ks_record_t *rec);

/* Parse the LEN bytes of DATA (untrusted) into *REC (zeroed first;
 * release it also on error).  GPG_ERR_INV_DATA or a more precise code
 * for anything out of the format.  */
gpg_error_t ks_record_parse (const void *data, size_t len, ks_record_t *rec);

/* The text of REC (gpgrt_malloc'd, NUL-terminated) into *R_TEXT.  A
 * record the parser would refuse is refused here too.  */
gpg_error_t ks_record_format (const ks_record_t *rec, char **r_text);

/* Write REC as a new record of the GnuPG home HOMEDIR (NULL: the default
 * one), creating keysafe/records/ (mode 0700) as needed.  R_PATH (may be
 * NULL) gets the file's path (gpgrt_malloc'd).  */
gpg_error_t ks_record_add (const char *homedir, const ks_record_t *rec,
                           char **r_path);

/* Read all records of HOMEDIR, oldest first, into *R_RECS (an array of
 * *R_N, free with ks_record_free_list).  Files that are not well-formed
 * records are skipped and counted in *R_BAD (may be NULL).  No records
 * directory means no records.  */
gpg_error_t ks_record_list (const char *homedir, ks_record_t **r_recs,
                            size_t *r_n, unsigned int *r_bad);
void ks_record_free_list (ks_record_t *recs, size_t n);

#endif /* KS_RECORD_H */
