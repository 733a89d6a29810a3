/* init.h - process start-up for programs handling secrets
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#ifndef KS_INIT_H
#define KS_INIT_H

#include "util.h"

/* Check the libgcrypt version, set up KS_SECMEM_SIZE bytes of secure
 * memory (mlocked, never growing into unlocked memory), and disable core dumps (RLIMIT_CORE = 0 and
 * PR_SET_DUMPABLE = 0) so a crash never writes a secret to disk.  Call it
 * once, first thing in main, before any thread is started.  */
#define KS_SECMEM_SIZE (2 * 1024 * 1024)
gpg_error_t ks_init (void);

#endif /* KS_INIT_H */
