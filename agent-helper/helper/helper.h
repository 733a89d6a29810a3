/* helper.h - keysafe-helper's session and its Assuan commands
 * Copyright (C) 2026 The keysafe authors
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * keysafe-helper.c runs the server loops (pipe and socket); assuan-cmds.c
 * holds the commands; assuan-face.c the face (ks_ui_t) that turns the
 * flows' callbacks into INQUIREs, status lines and D lines; results.c
 * the flows' results as status lines.  One session lives
 * for one Assuan connection.
 */
#ifndef KS_HELPER_H
#define KS_HELPER_H

#include <sys/types.h>
#include <assuan.h>
#include "keysafe.h"
#include "keysafe-client.h"

/* The largest answer accepted for INQUIRE NAME and INQUIRE PASSWORD.  A
 * larger one is refused with GPG_ERR_TOO_LARGE; libassuan reads and
 * drops the rest of it up to the END, so the connection stays in step.  */
#define KS_HELPER_MAX_NAME 1024
#define KS_HELPER_MAX_PASSWORD 1024
/* At most this many OPTION server=URL per session.  */
#define KS_HELPER_MAX_SERVERS 64

/* The settings given on the command line: the defaults of a session,
 * restored by RESET.  OPT holds what the flows take (homedir, profile,
 * servers, timeouts, ...); a session overrides name, profile, servers
 * and batch.  */
typedef struct ks_helper_defaults
{
  ks_options_t opt;
  int pinentry;                 /* password-mode=pinentry */
} ks_helper_defaults_t;

typedef struct ks_session
{
  assuan_context_t ctx;
  const ks_helper_defaults_t *defaults;
  /* Options of this session (OPTION ...).  */
  char *name;                   /* secure memory, or NULL */
  char *profile;                /* gpgrt_malloc'd, or NULL = default */
  char **servers;               /* gpgrt_malloc'd URLs, NULL-terminated */
  unsigned int nservers;
  int servers_set;              /* OPTION server= seen: replace defaults */
  int pinentry;
  int batch;
  unsigned int password_tries;  /* OPTION password-tries */
  int password_tries_set;
  /* State of the running command.  */
  int busy;
  unsigned int name_asks;       /* get_name calls of this command */
  char *errtext;                /* the flow's clear line on failure */
  unsigned int progress_count;  /* status lines sent for this command */
  char last_what[16];
  uint64_t last_done;
  uint64_t last_ms;
  /* The daemon's listening socket, watched during long work so that a
   * second client is refused at once; -1 in pipe mode.  */
  int listen_fd;
  int bad_escape;               /* the io monitor dropped a D line */
} ks_session_t;

/* Watch the D lines of S's context (iomon.c).  */
void ks_helper_iomon_install (ks_session_t *s);
/* ERR after an inquiry when the monitor dropped a line of it, else
 * ERR.  */
gpg_error_t ks_helper_iomon_check (ks_session_t *s, gpg_error_t err);

/* Register every command of the table and the option handler with CTX
 * and bind SESSION to it.  */
gpg_error_t ks_helper_register (assuan_context_t ctx, ks_session_t *session);

/* Forget all OPTIONs of SESSION (back to the defaults) and wipe the
 * stored name.  Also used at the end of a connection.  */
void ks_helper_session_reset (ks_session_t *session);

/* The daemon's listening socket (listen.c): its descriptor, the lock
 * that gives the right to its name, and what was bound there.  */
typedef struct ks_helper_listen
{
  int fd;
  int lockfd;
  dev_t dev;
  ino_t ino;
} ks_helper_listen_t;

/* Listen on the socket NAME, replacing one left there only when no
 * other helper can be using it.  GPG_ERR_EADDRINUSE when another helper
 * serves NAME; the reason is logged.  */
gpg_error_t ks_helper_listen (const char *name, ks_helper_listen_t *r_l);
/* Close L and remove NAME if it is still the socket L bound.  */
void ks_helper_unlisten (const char *name, ks_helper_listen_t *l);

/* Answer a connection on FD that cannot be served now with an ERR
 * greeting and close it.  */
void ks_helper_refuse (int fd);

/* The face of a session (assuan-face.c): UI for a flow, OPT from the
 * defaults and the session's OPTIONs.  */
void ks_helper_make_ui (ks_session_t *session, ks_ui_t *ui);
void ks_helper_make_options (ks_session_t *session, ks_options_t *opt);
/* The flow's clear line on failure (a ks_ui_t error callback).  */
void ks_helper_ui_error (void *session, const char *text);
/* Begin a command (one at a time; GPG_ERR_ASS_NESTED_COMMANDS when one
 * runs) and end it with ERR, which gets the flow's clear line.  */
gpg_error_t ks_helper_begin_command (ks_session_t *session);
gpg_error_t ks_helper_end_command (ks_session_t *session, gpg_error_t err);

/* Malloc hooks that put Assuan contexts in libgcrypt secure memory: the
 * context holds the last line read, which may carry a password.  */
extern struct assuan_malloc_hooks ks_helper_secure_hooks;

/* Status KEYWORD with the formatted text, escaped and cut to one
 * Assuan line (results.c).  */
void ks_helper_status (assuan_context_t ctx, const char *keyword,
                       const char *fmt, ...) GPGRT_ATTR_PRINTF (3, 4);

/* The flows' results as status lines (results.c has the format).  */
void ks_helper_status_backup (ks_session_t *s, const ks_backup_result_t *r);
void ks_helper_status_restore (ks_session_t *s, const ks_fetch_result_t *r);
void ks_helper_status_check (ks_session_t *s, const ks_fetch_result_t *r);
void ks_helper_status_queue (ks_session_t *s, const ks_queue_result_t *r);

/* Read keysafe.conf of the GnuPG home into D where the command line
 * left a setting unset (conf.c); its locations go to SERVERS (room for
 * KS_HELPER_MAX_SERVERS + 1) unless *NSERVERS already counts some.  */
void ks_helper_read_conf (ks_helper_defaults_t *d, const char **servers,
                          unsigned int *nservers);

/* OPTION and RESET (assuan-options.c).  */
gpg_error_t ks_helper_option_handler (assuan_context_t ctx, const char *key,
                                      const char *value);
gpg_error_t ks_helper_reset_notify (assuan_context_t ctx, char *line);

#endif /* KS_HELPER_H */
