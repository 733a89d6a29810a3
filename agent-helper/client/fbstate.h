/* fbstate.h - the files of keysafe firstboot in the GnuPG home
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Internal to agent-helper/ (used by firstboot.c).  Three files, none
 * holding a secret, all mode 0600:
 *
 *   keysafe-firstboot.done     the marker: first boot is done.  Lines
 *                              "date <UTC ISO 8601>", "fingerprint <FPR>",
 *                              "profile <NAME>", "queued <N>" after a
 *                              comment line.
 *   keysafe-firstboot.pending  a backup stored its shards on fewer than
 *                              K servers: "keysafe-firstboot-pending-1",
 *                              then "fingerprint", "profile", "shares",
 *                              "threshold" and one "shard <NAME>" line per
 *                              shard of it that waits in the upload queue.
 *   keysafe-firstboot.lock     flock'd by the run in progress.
 *
 * Shard names are not secret here: they are the queue's file names too.
 */
#ifndef KS_FBSTATE_H
#define KS_FBSTATE_H

#include "keysafe.h"

#define KS_FBSTATE_MARKER "keysafe-firstboot.done"
#define KS_FBSTATE_PENDING "keysafe-firstboot.pending"
#define KS_FBSTATE_LOCK "keysafe-firstboot.lock"
/* A fingerprint (v4: 40, v5: 64 hex digits) and its NUL.  */
#define KS_FBSTATE_FPR_SIZE 65
/* A pending file lists at most this many shard names (the chunks times
 * the shares of one backup are far fewer).  */
#define KS_FBSTATE_MAX_PENDING 4096

/* A sorted set of shard names.  */
typedef struct ks_fbnames
{
  char (*name)[KS_NAME_HEX_LEN + 1];
  size_t count;
} ks_fbnames_t;

/* What a pending file says.  */
typedef struct ks_fbpending
{
  char fpr[KS_FBSTATE_FPR_SIZE];
  char profile[64];
  unsigned int n, k;
  ks_fbnames_t names;
} ks_fbpending_t;

/* HOME/FILE into *R_PATH (ks_malloc'd).  */
gpg_error_t ks_fbstate_path (const char *home, const char *file,
                             char **r_path);

/* Whether PATH exists (as anything, a dangling symlink too).  */
int ks_fbstate_exists (const char *path);

/* Lock HOME/keysafe-firstboot.lock (flock, not waiting) for this run:
 * *R_FD is the descriptor to close at the end.  GPG_ERR_LOCKED when
 * another run holds it.  */
gpg_error_t ks_fbstate_lock (const char *home, int *r_fd);

int ks_fbstate_names_have (const ks_fbnames_t *s, const char *name);
void ks_fbstate_names_release (ks_fbnames_t *s);

/* How many of the N servers of a backup hold all their shards, when N
 * counts those that stored or queued their shards and the shards of
 * PENDING are the missing ones: a server is short while any of its
 * shards waits, and a pending shard neither queued nor among the NSENT
 * of SENT (a server holds it) was dropped, so it counts as one short
 * server.  *R_LEFT gets the number of shards still waiting.  */
gpg_error_t ks_fbstate_servers_holding (const char *homedir,
                                        const ks_fbnames_t *pending,
                                        unsigned int n,
                                        const char (*sent)[KS_NAME_HEX_LEN + 1],
                                        size_t nsent, unsigned int *r_nok,
                                        size_t *r_left);

/* Write the marker: now, FPR, PROFILE, QUEUED shards still waiting.  */
gpg_error_t ks_fbstate_write_marker (const char *home, const char *fpr,
                                     const char *profile, size_t queued);

/* Write the pending file of the backup of FPR (N shares, K needed) whose
 * shards NAMES wait in the queue.  */
gpg_error_t ks_fbstate_write_pending (const char *home, const char *fpr,
                                      const char *profile, unsigned int n,
                                      unsigned int k,
                                      const ks_fbnames_t *names);

/* Parse the LEN bytes of a pending file into PD; GPG_ERR_INV_DATA when
 * they are not one.  */
gpg_error_t ks_fbstate_parse_pending (const uint8_t *bytes, size_t len,
                                      ks_fbpending_t *pd);
/* Read the pending file PATH; GPG_ERR_INV_DATA when it is not one.  */
gpg_error_t ks_fbstate_read_pending (const char *path, ks_fbpending_t *pd);

/* Remove the queued shards of PENDING from the queue of HOMEDIR, and the
 * pending file PATH: the backup is abandoned.  */
void ks_fbstate_drop_pending (const char *homedir, const char *path,
                              const ks_fbnames_t *pending);

#endif /* KS_FBSTATE_H */
