/* flowutil.h - pieces shared by the flows (backup, restore, check, queue)
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Internal to agent-helper/: the faces use flow.h only.
 */
#ifndef KS_FLOWUTIL_H
#define KS_FLOWUTIL_H

#include "keysafe-client.h"
#include "serverlist.h"
#include "transport.h"

/* Tell the user a formatted line through UI->info (no-op without).  */
void ks_ui_infof (const ks_ui_t *ui, const char *fmt, ...)
  GPGRT_ATTR_PRINTF (2, 3);
/* The one line that explains a failure, through UI->error or info.  */
void ks_ui_errorf (const ks_ui_t *ui, const char *fmt, ...)
  GPGRT_ATTR_PRINTF (2, 3);

/* A progress callback for common/ that forwards to UI->progress.  */
void ks_ui_progress_cb (void *arg, const char *what, uint64_t done,
                        uint64_t total);

/* Transport settings from OPT; PROGRESS forwarded from UI.  */
void ks_flow_transport_cfg (const ks_options_t *opt, const ks_ui_t *ui,
                            ks_transport_cfg_t *cfg);

/* The server list for OPT, with placeholder entries removed; fails
 * with a message to UI when no usable server is left.  */
gpg_error_t ks_flow_load_servers (const ks_options_t *opt, const ks_ui_t *ui,
                                  ks_serverlist_t **r_list);

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

/* The common start of restore and check: the pinned profile (NULL:
 * try all), the server list, the canonical key id (*R_KEYID points into
 * KEYIDBUF, or is NULL without OPT->gpgkeyid) and the item name, asked
 * with PROMPT.  What was obtained is handed out even on error, so the
 * caller's one leave: label frees it.  */
gpg_error_t ks_flow_begin_item (const ks_options_t *opt, const ks_ui_t *ui,
                                const char *prompt,
                                const ks_profile_t **r_pinned,
                                ks_serverlist_t **r_list,
                                char *keyidbuf, const char **r_keyid,
                                char **r_name);

/* Short display name of a server URL for messages.  */
const char *ks_flow_server_label (const ks_server_t *s);

/* What fetching the shards of one backup found (fetch.c).  */
typedef struct ks_fetch
{
  ks_recover_t *rec;
  const ks_serverlist_t *list;
  unsigned int nfirst;          /* servers asked in the first round */
  unsigned int maxshare;        /* shares 1..maxshare were looked for */
  int more_done;                /* the second round ran */
  int share_server[KS_SHAMIR_MAX_SHARES + 1]; /* share -> server, -1 */
  unsigned int found;           /* shards of chunk 0 held */
  unsigned int junk;            /* answers of the wrong size */
  /* Per server: 0 not asked, 1 answered, 2 unreachable/failed.  */
  unsigned char state[256];
  char why[256][160];            /* the reason of a failed server */
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

/* After unlock: fetch chunks 1.. from the servers that gave chunk 0.  */
gpg_error_t ks_fetch_rest (const ks_options_t *opt, const ks_ui_t *ui,
                           ks_fetch_t *f);

/* Number of servers that answered at all.  */
unsigned int ks_fetch_answered (const ks_fetch_t *f);

/* "server A (reason), server B (reason)" of the failed servers.  */
const char *ks_fetch_failures (const ks_fetch_t *f, char *buf, size_t size);

#endif /* KS_FLOWUTIL_H */
