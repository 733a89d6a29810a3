/* kdf.c - Argon2id through libgcrypt, lanes in parallel threads
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * libgcrypt 1.10 offers Argon2 only through gcry_kdf_open/compute/final.
 * gcry_kdf_compute walks passes x 4 slices and, for each slice, hands one
 * job per lane to our dispatch function, then calls wait_all_jobs: that is
 * where the lanes run in parallel, and where progress is counted.  The
 * lanes of one slice are independent by construction of Argon2 (a block
 * never references the current slice of another lane), so running them
 * in any order or at once gives the same result.
 *
 * Threads are created per slice rather than pooled: a slice of a
 * realistic cost takes milliseconds, thread creation microseconds, and
 * the code stays free of condition variables.
 */
#include <config.h>
#include <pthread.h>
#include "kdf.h"

struct job
{
  gcry_kdf_job_fn_t fn;
  void *priv;
};

struct jobs
{
  struct job job[KS_ARGON2_MAX_LANES];
  unsigned int count;
  uint64_t slices_done;
  uint64_t slices_total;
  ks_progress_cb_t progress;
  void *progress_arg;
  const char *what;
};

static int
dispatch_job (void *ctx, gcry_kdf_job_fn_t fn, void *priv)
{
  struct jobs *jobs = ctx;

  if (jobs->count >= KS_ARGON2_MAX_LANES)
    return -1;  /* libgcrypt turns this into GPG_ERR_CANCELED.  */
  jobs->job[jobs->count].fn = fn;
  jobs->job[jobs->count].priv = priv;
  jobs->count++;
  return 0;
}

static void *
job_thread (void *arg)
{
  struct job *job = arg;

  job->fn (job->priv);
  return NULL;
}

static int
wait_all_jobs (void *ctx)
{
  struct jobs *jobs = ctx;
  pthread_t tid[KS_ARGON2_MAX_LANES];
  int started[KS_ARGON2_MAX_LANES] = { 0 };
  unsigned int i;

  /* Lanes 1.. in threads, lane 0 here; a thread that cannot be
   * created runs inline, which is slower but still correct.  */
  for (i = 1; i < jobs->count; i++)
    {
      started[i] = !pthread_create (&tid[i], NULL, job_thread, &jobs->job[i]);
      if (!started[i])
        job_thread (&jobs->job[i]);
    }
  if (jobs->count)
    job_thread (&jobs->job[0]);
  for (i = 1; i < jobs->count; i++)
    if (started[i])
      pthread_join (tid[i], NULL);
  jobs->count = 0;

  jobs->slices_done++;
  if (jobs->progress)
    jobs->progress (jobs->progress_arg, jobs->what,
                    jobs->slices_done, jobs->slices_total);
  return 0;
}

gpg_error_t
ks_kdf_check_params (const ks_argon2_params_t *params)
{
  if (!params || !params->t_cost
      || !params->lanes || params->lanes > KS_ARGON2_MAX_LANES
      || params->m_cost < 8 * params->lanes
      || params->m_cost > KS_ARGON2_MAX_M_COST)
    return gpg_error (GPG_ERR_INV_ARG);
  return 0;
}

/* True if LEN fits Argon2's 32-bit length fields.  */
static int
len_ok (size_t len)
{
  return (uint64_t)len <= 0xffffffffu;
}

gpg_error_t
ks_argon2id (const ks_argon2_params_t *params,
             const void *pass, size_t passlen,
             const void *salt, size_t saltlen,
             const void *key, size_t keylen,
             const void *ad, size_t adlen,
             void *out, size_t outlen,
             ks_progress_cb_t progress, void *progress_arg,
             const char *what)
{
  gpg_error_t err;
  gcry_kdf_hd_t hd = NULL;
  unsigned long param[4];
  struct jobs jobs;
  gcry_kdf_thread_ops_t ops;

  if (!out || outlen < KS_ARGON2_MIN_OUT || !len_ok (outlen))
    return gpg_error (GPG_ERR_INV_ARG);

  /* libgcrypt writes the length of the secret and the associated data
   * into H0 but skips their bytes when the pointer is NULL: a NULL
   * pointer with a length would silently give a wrong result.  */
  if (ks_kdf_check_params (params)
      || !pass || !passlen || !len_ok (passlen)
      || !salt || saltlen < KS_ARGON2_MIN_SALT || !len_ok (saltlen)
      || (!key && keylen) || !len_ok (keylen)
      || (!ad && adlen) || !len_ok (adlen))
    {
      err = gpg_error (GPG_ERR_INV_ARG);
      goto leave;
    }

  param[0] = outlen;
  param[1] = params->t_cost;
  param[2] = params->m_cost;
  param[3] = params->lanes;
  err = gcry_kdf_open (&hd, GCRY_KDF_ARGON2, GCRY_KDF_ARGON2ID,
                       param, 4, pass, passlen, salt, saltlen,
                       keylen ? key : NULL, keylen,
                       adlen ? ad : NULL, adlen);
  if (err)
    {
      hd = NULL;
      goto leave;
    }

  memset (&jobs, 0, sizeof jobs);
  jobs.slices_total = (uint64_t)params->t_cost * 4;
  jobs.progress = progress;
  jobs.progress_arg = progress_arg;
  jobs.what = what ? what : "kdf";
  ops.jobs_context = &jobs;
  ops.dispatch_job = dispatch_job;
  ops.wait_all_jobs = wait_all_jobs;

  err = gcry_kdf_compute (hd, &ops);
  if (err)
    goto leave;
  err = gcry_kdf_final (hd, outlen, out);

 leave:
  /* gcry_kdf_close wipes and frees libgcrypt's memory blocks (they hold
   * values derived from the password); it does not accept NULL.  */
  if (hd)
    gcry_kdf_close (hd);
  if (err)
    ks_wipe (out, outlen);
  return err;
}
