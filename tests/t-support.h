/* t-support.h - tiny helpers for the C tests
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * A failed check prints file:line and the expression and counts an
 * error; t_done() returns the exit code automake expects (0 pass,
 * 99 hard error).  T_SKIP exits 77.
 */
#ifndef KS_T_SUPPORT_H
#define KS_T_SUPPORT_H

#include <stdio.h>
#include <stdlib.h>
#include "keysafe.h"

extern int t_errors;
extern int t_checks;

#define T_CHECK(expr) \
  do { t_checks++; if (!(expr)) { t_errors++; \
    fprintf (stderr, "%s:%d: FAIL: %s\n", __FILE__, __LINE__, #expr); } \
  } while (0)
#define T_CHECK_ERR(err, code) \
  do { gpg_error_t t_e_ = (err); t_checks++; \
    if (gpg_err_code (t_e_) != (code)) { t_errors++; \
      fprintf (stderr, "%s:%d: FAIL: %s gave %s, want %s\n", __FILE__, \
               __LINE__, #err, gpg_strerror (t_e_), \
               gpg_strerror (gpg_error (code))); } } while (0)
#define T_OK(err) T_CHECK_ERR (err, GPG_ERR_NO_ERROR)
#define T_SKIP(why) do { fprintf (stderr, "SKIP: %s\n", why); exit (77); } while (0)
#define T_DIE(why) do { fprintf (stderr, "ERROR: %s\n", why); exit (99); } while (0)

/* ks_init() or exit 99.  */
void t_init (void);
/* Exit status for main.  */
int t_done (void);
/* Decode hex into a freshly malloc'd buffer; dies on bad input.  */
uint8_t *t_unhex (const char *hex, size_t *r_len);
/* Read a whole file; dies on error.  */
char *t_read_file (const char *path, size_t *r_len);

#endif /* KS_T_SUPPORT_H */
