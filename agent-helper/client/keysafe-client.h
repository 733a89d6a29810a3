/* keysafe-client.h - the client library's one public header
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * agent-helper/client/ is the library behind both faces: the flows
 * (backup, restore, check, upload queue, first boot) and what they stand
 * on (transport, server list, GnuPG, gpg-agent, queue, strength).  The
 * command line (agent-helper/cli/) and the Assuan server
 * (agent-helper/helper/) include this header and nothing else from the
 * library; the library includes neither face (the build's include paths
 * enforce it, tests/t-layout.sh checks it).
 *
 * A face supplies a ks_ui_t for everything that talks to the user; the
 * flows never print, prompt or exit themselves.
 */
#ifndef KS_CLIENT_H
#define KS_CLIENT_H

#include "keysafe.h"

/* What the user chose; filled by option parsing or Assuan OPTION.  */
/* The largest cap a user may set on the proof of work of one request
 * (about a day of one core).  */
#define KS_POW_CAP_MAX 40

typedef struct ks_options
{
  const char *homedir;          /* GnuPG home; NULL = GPGME's default */
  const char *profile;          /* NULL = default (backup) / all (restore) */
  const char *gpgkeyid;         /* key to back up / restore into */
  int bind_keyid;               /* bind the shard names to the key id */
  unsigned int shares;          /* 0 = profile default */
  unsigned int threshold;       /* 0 = profile default */
  const char **servers;         /* --server URL..., NULL-terminated, or NULL */
  const char *servers_file;     /* --servers-file, NULL = shipped list */
  const char *tor_socks;        /* host:port, NULL = 127.0.0.1:9050 */
  int no_tor;                   /* connect directly even to non-loopback */
  int batch;                    /* never prompt */
  int force;                    /* accept a weak password */
  int verbose;
  unsigned int threads;         /* puzzle threads, 0 = all CPUs */
  /* Zero means "default" for every field below.  Initialise the struct
   * with memset or "= { 0 }" so fields added later stay zero.  */
  const char *name;             /* item name; NULL = ask through ui */
  unsigned int timeout;         /* seconds per HTTP request, 0 = 60 */
  unsigned int connect_timeout; /* seconds to connect, 0 = 30 */
  /* restore: after a wrong password ask again this many times, with the
   * same N and shards (no new search).  A face sets it only where a
   * person answers: a script would answer the same wrong password, and
   * every try costs a whole puzzle.  0 = never.  */
  unsigned int password_tries;
  /* firstboot only.  */
  const char *userid;           /* firstboot: user ID of a new key */
  int no_protection;            /* firstboot: new key without passphrase */
  int no_records;               /* restore/check: ignore the backup
                                   records (locations given explicitly) */
  /* The most proof-of-work bits paid for one request (protocol.md
   * section 12, "Cap"); 0 = 26 for an upload, 24 for a download.  */
  unsigned int pow_cap;          /* at most KS_POW_CAP_MAX */
  /* Set by the flows for one operation (section 12, "Budget"); a face
   * leaves it NULL.  */
  struct ks_pow_budget *pow_budget;
} ks_options_t;

/* What became of one location (a server of the list) in a flow.  */
typedef enum ks_loc_state
  {
    KS_LOC_NOT_ASKED = 0,       /* not asked */
    KS_LOC_ANSWERED,            /* answered, with the shard or without */
    KS_LOC_FAILED               /* unreachable, or an error answer */
  } ks_loc_state_t;

/* The face.  Every callback may be NULL where it makes sense.  Texts
 * handed to the callbacks are already translated.  */
typedef struct ks_ui
{
  void *arg;
  /* Progress of the KDF/puzzle/transfer step WHAT ("name", "key",
   * "puzzle", "upload", "download").  */
  void (*progress) (void *arg, const char *what, uint64_t done,
                    uint64_t total);
  /* A line of information for the user.  */
  void (*info) (void *arg, const char *text);
  /* Ask for the item name.  PROMPT says why (e.g. the last one was
   * taken).  *R_NAME is ks_malloc'd; GPG_ERR_CANCELED if refused.  */
  gpg_error_t (*get_name) (void *arg, const char *prompt, char **r_name);
  /* Ask for the password; CONFIRM asks twice.  *R_PW is NUL-terminated
   * in secure memory (free with ks_free_secret).  */
  gpg_error_t (*get_password) (void *arg, const char *prompt, int confirm,
                               char **r_pw);
  /* Hand out restored secret bytes (restore --stdout).  */
  gpg_error_t (*put_secret) (void *arg, const uint8_t *data, size_t len);
  /* The one clear line that explains why a flow failed, told once just
   * before the flow returns its error (may be NULL: then info).  */
  void (*error) (void *arg, const char *text);
} ks_ui_t;

/* Tell the user a formatted line through UI->info (no-op without).  */
void ks_ui_infof (const ks_ui_t *ui, const char *fmt, ...)
  GPGRT_ATTR_PRINTF (2, 3);
/* The one line that explains a failure, through UI->error or info.  */
void ks_ui_errorf (const ks_ui_t *ui, const char *fmt, ...)
  GPGRT_ATTR_PRINTF (2, 3);

/* One location (a server) as a flow's result tells it.  */
typedef struct ks_location
{
  char *url;                    /* ks_malloc'd */
  ks_loc_state_t state;
  int has_shard;                /* check: its own share is there */
  char why[160];                /* KS_LOC_FAILED: the reason */
  const char *reason;           /* the same as a keyword for status
                                   lines (static; NULL: none) */
} ks_location_t;

/* What a backup did.  UPLOADED once the shards were sent and the
 * missing ones queued; before that only the error explains the
 * failure.  */
typedef enum ks_backup_outcome
  {
    KS_BACKUP_STORED = 0,       /* the server took all its shards */
    KS_BACKUP_QUEUED,           /* it failed: its shards wait in the queue */
    KS_BACKUP_LOST,             /* it failed, and the queue may not keep
                                   its shards (it holds at most K-1 of an
                                   object) */
    KS_BACKUP_REFUSED,          /* it answers 409 but does not hold the
                                   shard: it refuses the name */
    KS_BACKUP_UNSENT            /* not sent: the backup could not be
                                   restorable, so nothing more went out */
  } ks_backup_outcome_t;

typedef struct ks_backup_result
{
  int uploaded;
  const char *profile;          /* the profile's name (static) */
  char *name;                   /* the item name (ks_malloc'd) */
  unsigned int n, k;            /* shares, threshold */
  unsigned int nchunks;         /* objects per share */
  unsigned int nstored;         /* servers that took all their shards */
  int restorable;               /* every object has K shards stored */
  int later;                    /* ... once the queued shards are sent */
  ks_location_t loc[KS_SHAMIR_MAX_SHARES];   /* server I holds share I+1 */
  ks_backup_outcome_t outcome[KS_SHAMIR_MAX_SHARES];
  size_t nqueued;               /* shards queued */
  char (*queued)[KS_NAME_HEX_LEN + 1];       /* their names */
  char *queue_dir;              /* where they wait */
} ks_backup_result_t;

/* Back up SECRET (or, when SECRET is NULL, the key OPT->gpgkeyid
 * exported with GPGME, minimal, secret).  Names/password through UI.
 * GPG_ERR_TRY_LATER when the backup is not restorable yet (R tells
 * why).  R is filled as far as the flow got; release it with
 * ks_backup_result_release.  */
gpg_error_t ks_flow_backup (const ks_options_t *opt, const ks_ui_t *ui,
                            const uint8_t *secret, size_t secretlen,
                            ks_backup_result_t *r);
void ks_backup_result_release (ks_backup_result_t *r);

/* Why a restore or a check failed, for the face to phrase.  */
typedef enum ks_fetch_failure
  {
    KS_FETCH_OK = 0,
    KS_FETCH_NOT_FOUND,         /* no shard under any profile tried */
    KS_FETCH_UNREACHABLE,       /* no server answered at all */
    KS_FETCH_TOO_FEW,           /* fewer shards than the threshold */
    KS_FETCH_BAD_PASSWORD,      /* enough shards; the password fails */
    KS_FETCH_CORRUPT,           /* it opens, but objects do not combine */
    KS_FETCH_NOT_OPENED,        /* check: the shards do not open */
    KS_FETCH_MISSING            /* check: some shards are missing */
  } ks_fetch_failure_t;

/* What a restore or a check found.  */
typedef struct ks_fetch_result
{
  int decided;                  /* the flow got to its verdict: the rest
                                   is worth telling */
  ks_fetch_failure_t failure;
  const char *profile;          /* the profile whose shards were found
                                   (static; restore: the one that
                                   opened, if any), or NULL */
  char *name;                   /* the item name (ks_malloc'd) */
  char tried[256];              /* the profiles tried, "a, b" */
  unsigned int found;           /* shards of the first object held */
  unsigned int needed;          /* the threshold */
  unsigned int present;         /* check: servers holding their share */
  unsigned int nshares;         /* check: the shares looked for */
  int restorable;               /* check */
  int opened;                   /* the password opened it */
  unsigned int nchunks;         /* objects, once opened */
  unsigned int missing_later;   /* check: shards of later objects missing */
  size_t secretlen;             /* restore: bytes restored */
  char *fpr;                    /* restore: the imported key, or NULL */
  gpg_error_t detail;           /* NOT_OPENED/CORRUPT: the error */
  unsigned int nloc;            /* the servers of the list */
  ks_location_t *loc;
} ks_fetch_result_t;

/* Restore; with TO_UI the secret goes to ui->put_secret, otherwise it is
 * imported into GnuPG.  R as for ks_flow_backup.  */
gpg_error_t ks_flow_restore (const ks_options_t *opt, const ks_ui_t *ui,
                             int to_ui, ks_fetch_result_t *r);

/* Are the shards still stored?  */
gpg_error_t ks_flow_check (const ks_options_t *opt, const ks_ui_t *ui,
                           ks_fetch_result_t *r);
void ks_fetch_result_release (ks_fetch_result_t *r);

/* What became of the queued shards of one location in upload-queued.  */
typedef struct ks_queue_location
{
  char *url;                    /* ks_malloc'd */
  ks_loc_state_t state;         /* KS_LOC_FAILED: a shard was not taken */
  char why[160];                /* KS_LOC_FAILED: the reason, for a person */
  const char *reason;           /* KS_LOC_FAILED: the reason as a status
                                   keyword (ks_xfer_reason), static */
  size_t sent;                  /* the server holds them now */
  size_t left;                  /* they stay queued */
  size_t dropped;               /* their backup can no longer be restored */
  size_t refused;               /* dropped: it answers that the name is
                                   taken but does not hold the shard */
} ks_queue_location_t;

/* How upload-queued ended.  */
typedef enum ks_queue_failure
  {
    KS_QUEUE_OK = 0,            /* every shard looked at is sent or dropped */
    KS_QUEUE_EMPTY,             /* nothing waited */
    KS_QUEUE_UNREADABLE,        /* the queue could not be read (detail) */
    KS_QUEUE_TRANSFER,          /* the requests could not run (detail) */
    KS_QUEUE_LEFT               /* shards stay queued: run it again later */
  } ks_queue_failure_t;

typedef struct ks_queue_result
{
  ks_queue_failure_t failure;
  gpg_error_t detail;
  size_t nsent, nleft, ndropped, nrefused;   /* the sums of LOC */
  unsigned int nloc;
  ks_queue_location_t *loc;
  char (*sent)[KS_NAME_HEX_LEN + 1];         /* the NSENT names sent */
} ks_queue_result_t;

/* Send shards that waited in the upload queue.  GPG_ERR_TRY_LATER when
 * some stay queued.  R tells what became of them; release it with
 * ks_queue_result_release.  */
gpg_error_t ks_flow_upload_queued (const ks_options_t *opt,
                                   const ks_ui_t *ui, ks_queue_result_t *r);
void ks_queue_result_release (ks_queue_result_t *r);

/* keysafe firstboot (firstboot.c): unless the marker
 * keysafe-firstboot.done in the GnuPG home says it is done, make a key
 * with GPGME when there is no secret key, back it up, and write the
 * marker once at least K shards are stored.  Name and password are
 * asked through gpg-agent's pinentry.  */
typedef enum ks_firstboot_outcome
  {
    KS_FIRSTBOOT_FAILED = 0,    /* FAILURE says why; the next run retries */
    KS_FIRSTBOOT_DONE,          /* this run wrote the marker */
    KS_FIRSTBOOT_ALREADY,       /* the marker was there: nothing to do */
    KS_FIRSTBOOT_BUSY,          /* another run holds the lock */
    KS_FIRSTBOOT_PENDING        /* fewer than K servers hold their shards;
                                   the next run sends the queued ones */
  } ks_firstboot_outcome_t;

typedef enum ks_firstboot_failure
  {
    KS_FIRSTBOOT_OK = 0,
    KS_FIRSTBOOT_NO_HOME,       /* the GnuPG home is not found or made */
    KS_FIRSTBOOT_LOCK,          /* FILE cannot be locked */
    KS_FIRSTBOOT_PENDING_READ,  /* FILE (pending) cannot be read */
    KS_FIRSTBOOT_PENDING_WRITE, /* FILE (pending) cannot be written */
    KS_FIRSTBOOT_LIST_KEYS,     /* the secret keys cannot be listed */
    KS_FIRSTBOOT_NO_KEY,        /* --gpgkeyid names no secret key */
    KS_FIRSTBOOT_USERID,        /* no user ID from the passwd entry */
    KS_FIRSTBOOT_CREATE_KEY,    /* the new key cannot be made */
    KS_FIRSTBOOT_QUEUE,         /* the upload queue cannot be read */
    KS_FIRSTBOOT_BACKUP,        /* the backup failed (BACKUP tells) */
    KS_FIRSTBOOT_NOT_RESTORABLE, /* resumed: still fewer than K servers */
    KS_FIRSTBOOT_MARKER         /* FILE (the marker) cannot be written */
  } ks_firstboot_failure_t;

typedef struct ks_firstboot_result
{
  ks_firstboot_outcome_t outcome;
  ks_firstboot_failure_t failure;
  gpg_error_t detail;           /* the error behind FAILURE */
  char *home;                   /* the GnuPG home (ks_malloc'd) or NULL */
  const char *file;             /* the state file concerned (static) */
  char fpr[65];                 /* the key backed up (v4: 40, v5: 64 hex
                                   digits), or "" */
  const char *keyid;            /* NO_KEY: what --gpgkeyid named */
  char *userid;                 /* USERID/CREATE_KEY: the new key's
                                   user ID (ks_malloc'd) or NULL */
  int created;                  /* this run made the key */
  int resumed;                  /* an earlier run's backup was carried on */
  char profile[64];
  unsigned int holding, n, k;   /* servers holding all their shards, of N;
                                   K needed */
  size_t queued;                /* shards still waiting in the queue */
  ks_backup_result_t backup;    /* the backup of this run (uploaded tells
                                   whether one ran) */
  ks_queue_result_t queue;      /* resumed: the queued shards sent */
} ks_firstboot_result_t;
gpg_error_t ks_flow_firstboot (const ks_options_t *opt, const ks_ui_t *ui,
                               ks_firstboot_result_t *r);
void ks_firstboot_result_release (ks_firstboot_result_t *r);

/* The results as keyword status lines (status.c lists them), for
 * --status-fd and Assuan status lines alike: CB gets the keyword and
 * the rest of the line, unescaped.  */
typedef void (*ks_status_cb_t) (void *arg, const char *keyword,
                                const char *text);
void ks_status_backup (const ks_backup_result_t *r, ks_status_cb_t cb,
                       void *arg);
void ks_status_restore (const ks_fetch_result_t *r, ks_status_cb_t cb,
                        void *arg);
void ks_status_check (const ks_fetch_result_t *r, ks_status_cb_t cb,
                      void *arg);
void ks_status_queue (const ks_queue_result_t *r, ks_status_cb_t cb,
                      void *arg);
void ks_status_firstboot (const ks_firstboot_result_t *r, ks_status_cb_t cb,
                          void *arg);

/* keysafe queue: one line per location of the upload queue (through
 * ui->info), or, with DROP, remove what waits for the location DROP.  */
gpg_error_t ks_flow_queue (const ks_options_t *opt, const ks_ui_t *ui,
                           const char *drop);
/* Tell (ui->info) the locations that are not there while shards wait
 * for them, with the age of the oldest; for every run of a face.  */
void ks_flow_queue_notice (const ks_options_t *opt, const ks_ui_t *ui);

/* Point libgpg-error's argparser at the GnuPG home HOMEDIR (NULL:
 * $GNUPGHOME or ~/.gnupg) for keysafe.conf.  0 when there is none.  */
#define KS_SETTINGS_FILE "keysafe.conf"
int ks_settings_set_confdir (const char *homedir);

/* Tell the backup records through ui->info: per backup a line
 * "backup <time> <profile> <fingerprint|-> <k> <n>", then one
 * "  location <i> <url>" line per location.  */
gpg_error_t ks_flow_list (const ks_options_t *opt, const ks_ui_t *ui);

/* Tell the server list through ui->info, one line per server:
 * "<category> <url> [placeholder] [label]".  */
gpg_error_t ks_flow_servers (const ks_options_t *opt, const ks_ui_t *ui);


/* The GnuPG side a face needs of its own (gpg.c, agent.c).  */

/* Initialise GPGME once (version check, locale).  */
gpg_error_t ks_gpg_init (void);

/* Call CB for every secret key: its fingerprint and first user id.  */
gpg_error_t ks_gpg_list_secret (const char *homedir,
                                void (*cb) (void *arg, const char *fpr,
                                            const char *uid),
                                void *arg);

/* Ask gpg-agent's pinentry for a password (agent.h has the contract).  */
#define KS_AGENT_MAX_PW 1024
gpg_error_t ks_agent_get_passphrase (const char *homedir, const char *desc,
                                     const char *prompt, int repeat,
                                     char **r_pw);

/* The path gpgconf --list-dirs WHAT names for HOMEDIR (NULL = default),
 * gpgrt_malloc'd, in *R_PATH: "agent-socket" or "socketdir".  */
gpg_error_t ks_agent_gpgconf_dir (const char *homedir, const char *what,
                                  char **r_path);

#endif /* KS_CLIENT_H */
