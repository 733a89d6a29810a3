/* serverlist.h - the list of shard servers
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The shipped list (PKGDATADIR/servers.list, format in doc/servers.md)
 * or the user's own (--servers-file, or --server URL... which replaces
 * any list).  Backup uses the first N recommended servers, in order:
 * shard I goes to server I.  Restore asks them first, then the
 * alternates, then the untrusted ones.
 */
#ifndef KS_SERVERLIST_H
#define KS_SERVERLIST_H

#include "keysafe.h"

typedef enum
  {
    KS_SERVER_RECOMMENDED = 0,
    KS_SERVER_ALTERNATE = 1,
    KS_SERVER_UNTRUSTED = 2,
    KS_SERVER_USER = 3          /* given with --server */
  } ks_server_category_t;

typedef struct ks_server
{
  char *url;                    /* base URL without trailing slash */
  char *id;                     /* identity the shard names are bound to:
                                   the list's id=, else the canonical URL
                                   (protocol.md section 5) */
  char *label;                  /* operator, may be NULL */
  ks_server_category_t category;
  int placeholder;              /* listed to show the format; never used */
} ks_server_t;

typedef struct ks_serverlist
{
  unsigned int count;
  ks_server_t *server;
} ks_serverlist_t;

/* Build the list from URLS (NULL-terminated; replaces any file), or
 * FILE, or the shipped list.  The result is in restore order.  On error
 * ERRTEXT (ERRLEN bytes) gets a translated line for the user.  */
gpg_error_t ks_serverlist_load (const char **urls, const char *file,
                                ks_serverlist_t **r_list,
                                char *errtext, size_t errlen);
void ks_serverlist_free (ks_serverlist_t *list);

/* Parse the text of a list file (for tests and the loader).  */
gpg_error_t ks_serverlist_parse (const char *text, const char *fname,
                                 ks_serverlist_t *list,
                                 char *errtext, size_t errlen);

/* Name of a category, translated.  */
const char *ks_server_category_name (ks_server_category_t cat);

/* The path of the shipped list.  */
const char *ks_serverlist_default_file (void);

#endif /* KS_SERVERLIST_H */
