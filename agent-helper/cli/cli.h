/* cli.h - the command line face's state, shared by its files
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef KS_CLI_H
#define KS_CLI_H

#include "keysafe.h"
#include "keysafe-client.h"
#include "progress.h"

#define KS_MAX_SERVERS_OPT 64

/* --pinentry-mode, as gpg spells it.  */
typedef enum
  {
    KS_PINENTRY_ASK = 0,        /* "ask", "default": gpg-agent's pinentry */
    KS_PINENTRY_LOOPBACK,       /* the descriptor or the terminal */
    KS_PINENTRY_CANCEL,         /* asking is cancelled */
    KS_PINENTRY_ERROR           /* asking is an error */
  } ks_pinentry_mode_t;

/* The face's state.  */
struct face
{
  const ks_options_t *opt;
  int password_fd;              /* --passphrase-fd, -1 none */
  int name_fd;                  /* --name-fd: the name, kept off argv */
  const char *password_file;    /* --passphrase-file */
  ks_pinentry_mode_t pinentry_mode;
  int status_fd;                /* --status-fd, -1 none */
  int quiet;
  int use_stdin;                /* backup --stdin */
  int use_stdout;               /* restore --stdout */
  const char *drop;             /* queue --drop LOCATION */
  char status_what[16];         /* the last PROGRESS status line: */
  unsigned int status_pct;      /* its step and percent */
  ks_progress_t progress;
};

/* The settings file read (keysafe.conf), or NULL.  */
extern const char *ks_cli_conf_file;

/* The usage texts of keysafe (gpgrt_set_strusage).  */
const char *ks_cli_strusage (int level);

/* The options of keysafe.conf in the GnuPG home, then the command line,
 * into OPT and FACE; --server/--location URLs into SERVERS (room for
 * KS_MAX_SERVERS_OPT + 1), the command into *R_CMD.  Returns the exit
 * status 2 on a usage error, else 0.  */
int ks_cli_parse_args (int *argc, char ***argv, ks_options_t *opt,
                       struct face *face, const char **servers,
                       const char **r_cmd);

/* Write "[KEYSAFE:] KEYWORD TEXT" to FACE's --status-fd, if any.  */
void ks_cli_status (void *face, const char *keyword, const char *text);

#endif /* KS_CLI_H */
