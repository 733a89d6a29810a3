/* flowutil.h - pieces shared by the flows (backup, restore, check, queue)
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Internal to the library: the faces use keysafe-client.h only.
 */
#ifndef KS_FLOWUTIL_H
#define KS_FLOWUTIL_H

#include "keysafe-client.h"
#include "serverlist.h"
#include "transport.h"
#include "gpg.h"

/* A progress callback for common/ that forwards to UI->progress.  */
void ks_ui_progress_cb (void *arg, const char *what, uint64_t done,
                        uint64_t total);

/* One operation (a backup, restore, check or upload of the queue): the
 * caller's options with a proof-of-work budget of the operation's own
 * (protocol.md section 12, "Budget").  A flow starts with
 *   opt = ks_op_begin (&op, opt);
 * and ends with ks_op_end (&op); a flow inside another keeps the outer
 * budget.  */
typedef struct ks_op
{
  ks_options_t opt;
  ks_pow_budget_t budget;
} ks_op_t;

const ks_options_t *ks_op_begin (ks_op_t *op, const ks_options_t *opt);
void ks_op_end (ks_op_t *op);

/* Transport settings from OPT; PROGRESS forwarded from UI.  */
void ks_flow_transport_cfg (const ks_options_t *opt, const ks_ui_t *ui,
                            ks_transport_cfg_t *cfg);

/* The server list for OPT, with placeholder entries removed; fails
 * with a message to UI when no usable server is left.  */
gpg_error_t ks_flow_load_servers (const ks_options_t *opt, const ks_ui_t *ui,
                                  ks_serverlist_t **r_list);

/* The server list of a restore or check: as ks_flow_load_servers, with
 * the locations of the backup record of OPT->gpgkeyid (else the newest
 * record) moved first, in share order, unless OPT->no_records.  */
gpg_error_t ks_flow_load_item_servers (const ks_options_t *opt,
                                       const ks_ui_t *ui,
                                       ks_serverlist_t **r_list);

/* Write the record of the backup R (of the key FPR, may be NULL) into
 * the GnuPG home; a failure is only a warning to UI.  */
void ks_flow_record_backup (const ks_options_t *opt, const ks_ui_t *ui,
                            const ks_backup_result_t *r, const char *fpr);

/* Warn about --no-tor and about servers that will go through the SOCKS
 * proxy, once per flow.  */
void ks_flow_warn_tor (const ks_options_t *opt, const ks_ui_t *ui,
                       const ks_serverlist_t *list, unsigned int count);

/* The profile of OPT (pinned or the default).  */
gpg_error_t ks_flow_profile (const ks_options_t *opt, const ks_ui_t *ui,
                             const ks_profile_t **r_profile);

/* The item name: OPT->name or asked through UI.  *R_NAME is gcry
 * malloc'd.  */
gpg_error_t ks_flow_get_name (const ks_options_t *opt, const ks_ui_t *ui,
                              const char *prompt, char **r_name);

/* The password through UI (secure memory, NUL-terminated).  */
gpg_error_t ks_flow_get_password (const ks_options_t *opt, const ks_ui_t *ui,
                                  const char *prompt, int confirm,
                                  char **r_pw);

/* The fingerprint KEYID names into OUT (KS_KEYID_BUFSIZE bytes),
 * with a message to UI when KEYID is not a key id or fingerprint.  */
gpg_error_t ks_flow_keyid (const ks_options_t *opt, const ks_ui_t *ui,
                           const char *keyid, char *out);

/* Short display name of a server URL for messages.  */
const char *ks_flow_server_label (const ks_server_t *s);

/* The most servers of a list a fetch asks.  */
#define KS_FETCH_MAX_SERVERS 256

/* A location that gave a shard of chunk 0: which share, and the last
 * chunk it gave since.  */
typedef struct ks_fetch_pair
{
  unsigned int server;
  unsigned int share;
  uint32_t upto;
} ks_fetch_pair_t;

/* What fetching the shards of one backup found (fetch.c).  */
typedef struct ks_fetch
{
  ks_recover_t *rec;
  const ks_serverlist_t *list;
  unsigned int nfirst;          /* servers asked in the first round */
  unsigned int maxshare;        /* shares 1..maxshare were looked for */
  int more_done;                /* the second round ran */
  int rest_done;                /* chunks 1.. were fetched */
  ks_fetch_pair_t *pairs;       /* who gave chunk 0 (ks_malloc'd) */
  unsigned int npairs;
  int share_server[KS_SHAMIR_MAX_SHARES + 1]; /* share -> server, -1 */
  unsigned int found;           /* shards of chunk 0 held */
  unsigned int junk;            /* answers of the wrong size */
  ks_loc_state_t state[KS_FETCH_MAX_SERVERS];  /* per server of LIST */
  char why[KS_FETCH_MAX_SERVERS][160];  /* the reason of a failed one */
  const char *reason[KS_FETCH_MAX_SERVERS];  /* the same as a keyword */
} ks_fetch_t;

/* Ask server I for share I of chunk 0 (I = 1..N, N the backup's
 * number of shares), then, while fewer than K shards are in hand, the
 * rest (ks_fetch_more).  Adds every good shard to REC.  */
gpg_error_t ks_fetch_chunk0 (const ks_options_t *opt, const ks_ui_t *ui,
                             ks_recover_t *rec, const ks_serverlist_t *list,
                             unsigned int k, ks_fetch_t *f);

/* The second round: the missing shares from all other servers that
 * did not fail (once; later calls do nothing).  *R_NEW (may be NULL)
 * gets the number of shards it added.  */
gpg_error_t ks_fetch_more (const ks_options_t *opt, const ks_ui_t *ui,
                           ks_fetch_t *f, unsigned int *r_new);

/* Before unlock (protocol.md section 9, step 3): from every location
 * and share that gave chunk 0, chunks 1, 2, ... until a 404, never past
 * the profile's most chunks; once, so that nothing goes over the
 * network once the puzzle starts.  */
gpg_error_t ks_fetch_rest (const ks_options_t *opt, const ks_ui_t *ui,
                           ks_fetch_t *f);

/* The locate-and-fetch engine of restore and check: for the pinned
 * profile, or every profile newest first, derive the names of NAME
 * (bound to KEYID or not) into a fresh F->rec, fetch chunk 0 (K =
 * OPT->threshold or the profile's with FOR_RESTORE, else 0: only share
 * I from server I) and call TRY.  TRY sets *R_STOP to end the search.
 * R->tried lists the profiles tried, R->needed is the threshold of the
 * last one.  F->rec stays for the caller to free.  */
typedef gpg_error_t (*ks_fetch_try_t) (void *arg, const ks_profile_t *profile,
                                       ks_fetch_t *f, int *r_stop);
gpg_error_t ks_fetch_locate (const ks_options_t *opt, const ks_ui_t *ui,
                             const ks_profile_t *pinned, const char *name,
                             const char *keyid, const ks_serverlist_t *list,
                             int for_restore, ks_fetch_t *f,
                             ks_fetch_result_t *r, ks_fetch_try_t try,
                             void *arg);

/* What restore and check hold while they look for an item.  */
typedef struct ks_item
{
  const ks_profile_t *pinned;   /* NULL: try all profiles */
  ks_serverlist_t *list;
  char keyidbuf[KS_KEYID_BUFSIZE];
  const char *keyid;            /* into KEYIDBUF, or NULL */
  ks_fetch_t *f;
} ks_item_t;

/* The common start of restore and check: the pinned profile, the
 * server list, the canonical key id of OPT->gpgkeyid, the item name
 * (asked with PROMPT) into R->name and R's locations.  ITEM holds what
 * was obtained even on error; ks_flow_end_item frees it.  */
gpg_error_t ks_flow_begin_item (const ks_options_t *opt, const ks_ui_t *ui,
                                const char *prompt, ks_item_t *item,
                                ks_fetch_result_t *r);
void ks_flow_end_item (ks_item_t *item);

/* A result R for the servers of LIST (URLs copied, nothing asked).  */
gpg_error_t ks_fetch_result_init (const ks_serverlist_t *list,
                                  ks_fetch_result_t *r);

/* Copy what F found of every server into R->loc.  */
void ks_fetch_snapshot (const ks_fetch_t *f, ks_fetch_result_t *r);

/* Number of servers that answered at all.  */
unsigned int ks_fetch_answered (const ks_fetch_t *f);


#endif /* KS_FLOWUTIL_H */
