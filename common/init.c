/* init.c - process start-up for programs handling secrets
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include "init.h"

#define KS_NEED_LIBGCRYPT "1.10.1"

gpg_error_t
ks_init (void)
{
  struct rlimit rl = { 0, 0 };

  /* No core file may ever hold a password or a key.  */
  if (setrlimit (RLIMIT_CORE, &rl))
    return gpg_error_from_syserror ();
  if (prctl (PR_SET_DUMPABLE, 0, 0, 0, 0))
    return gpg_error_from_syserror ();

  if (!gcry_check_version (KS_NEED_LIBGCRYPT))
    return gpg_error (GPG_ERR_NOT_SUPPORTED);

  /* Secure memory: mlocked, wiped on free.  It grows on demand, because
   * a restore of a large secret holds several chunks at once.  The
   * warning about insecure memory is suppressed only while the pool is
   * set up (an unprivileged mlock limit is common and not fatal).  */
  gcry_control (GCRYCTL_SUSPEND_SECMEM_WARN);
  gcry_control (GCRYCTL_INIT_SECMEM, KS_SECMEM_SIZE, 0);
  gcry_control (GCRYCTL_AUTO_EXPAND_SECMEM, KS_SECMEM_SIZE, 0);
  gcry_control (GCRYCTL_RESUME_SECMEM_WARN);
  gcry_control (GCRYCTL_INITIALIZATION_FINISHED, 0);
  return 0;
}
