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
  /* Fields added by the client work; zero means "default".  Initialise
   * the struct with memset or "= { 0 }" so new fields stay zero.  */
  const char *name;             /* item name; NULL = ask through ui */
  unsigned int timeout;         /* seconds per HTTP request, 0 = 60 */
  unsigned int connect_timeout; /* seconds to connect, 0 = 30 */
  /* Fields added by the first-boot work.  */
  const char *userid;           /* firstboot: user ID of a new key */
  int no_protection;            /* firstboot: new key without passphrase */
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
   * taken).  *R_NAME is gcry_malloc'd; GPG_ERR_CANCELED if refused.  */
  gpg_error_t (*get_name) (void *arg, const char *prompt, char **r_name);
  /* Ask for the password; CONFIRM asks twice.  *R_PW is NUL-terminated
   * in secure memory (free with ks_free_secret).  */
  gpg_error_t (*get_password) (void *arg, const char *prompt, int confirm,
                               char **r_pw);
  /* Hand out restored secret bytes (restore --stdout).  */
  gpg_error_t (*put_secret) (void *arg, const uint8_t *data, size_t len);
  /* Added by the client work (may be NULL; then info is used): the one
   * clear line that explains why a flow failed, told once just before
   * the flow returns its error.  */
  void (*error) (void *arg, const char *text);
} ks_ui_t;

/* Back up SECRET (or, when SECRET is NULL, the key OPT->gpgkeyid
 * exported with GPGME, minimal, secret).  Names/password through UI.  */
gpg_error_t ks_flow_backup (const ks_options_t *opt, const ks_ui_t *ui,
                            const uint8_t *secret, size_t secretlen);

/* Restore; with TO_UI the secret goes to ui->put_secret, otherwise it is
 * imported into GnuPG and its fingerprint told through ui->info.  */
gpg_error_t ks_flow_restore (const ks_options_t *opt, const ks_ui_t *ui,
                             int to_ui);

/* Are the shards still stored?  */
gpg_error_t ks_flow_check (const ks_options_t *opt, const ks_ui_t *ui);

/* Send shards that waited in the upload queue.  */
gpg_error_t ks_flow_upload_queued (const ks_options_t *opt,
                                   const ks_ui_t *ui);

/* keysafe firstboot (firstboot.c): unless the marker
 * keysafe-firstboot.done in the GnuPG home says it is done, make a key
 * with GPGME when there is no secret key, back it up, and write the
 * marker once at least K shards are stored.  Name and password are
 * asked through gpg-agent's pinentry.  */
gpg_error_t ks_flow_firstboot (const ks_options_t *opt, const ks_ui_t *ui);

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
