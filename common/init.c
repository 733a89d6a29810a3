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

  /* Secure memory: one mlocked pool, sized for the worst case (a
   * 256 KiB secret with its copies, chunks and keys).  It does not grow:
   * libgcrypt's extra pools (GCRYCTL_AUTO_EXPAND_SECMEM) are not locked,
   * so growing would put secrets in swappable memory without a word; a
   * full pool is an allocation error instead.  The lock limit is raised
   * to what the pool needs when the hard limit allows; where it does not,
   * libgcrypt warns that it uses insecure memory.  */
  if (!getrlimit (RLIMIT_MEMLOCK, &rl) && rl.rlim_cur != RLIM_INFINITY
      && rl.rlim_cur < KS_SECMEM_SIZE + 65536)
    {
      rl.rlim_cur = KS_SECMEM_SIZE + 65536;
      if (rl.rlim_max != RLIM_INFINITY && rl.rlim_cur > rl.rlim_max)
        rl.rlim_cur = rl.rlim_max;
      setrlimit (RLIMIT_MEMLOCK, &rl);
    }
  gcry_control (GCRYCTL_INIT_SECMEM, KS_SECMEM_SIZE, 0);
  gcry_control (GCRYCTL_INITIALIZATION_FINISHED, 0);
  return 0;
}
