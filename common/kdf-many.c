/* kdf-many.c - single-lane Argon2id instances on all cores
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * One instance is one call of the configured backend: libsodium's
 * crypto_pwhash_argon2id (always one lane, 16-byte salt) or
 * ks_argon2id with one lane (libgcrypt).  Workers take the next
 * instance from a shared counter until none is left, so at most
 * NTHREADS work areas exist at once.  The calling thread either
 * computes too (no progress wanted) or waits on a condition variable
 * and reports progress: the callback then never runs concurrently and
 * always in the caller's thread, as kdf.h promises.
 */
#include <config.h>
#include <pthread.h>
#include <time.h>
#ifdef KS_ARGON2_LIBSODIUM
#include <sodium.h>
#endif
#include "kdf.h"

/* How often an estimated progress is refreshed.  */
#define TICK_MS 200

struct many
{
  pthread_mutex_t lock;
  pthread_cond_t cond;
  const void *pass;
  size_t passlen;
  const uint8_t *salts;
  uint8_t *outs;
  uint32_t t, m_kib;
  unsigned int instances;
  unsigned int next;        /* first instance nobody took yet */
  unsigned int workers;     /* threads still inside worker () */
  uint64_t slices;          /* libgcrypt: slices done, all instances */
  double start[KS_KDF_MAX_INSTANCES];  /* libsodium: when I started */
  uint8_t done[KS_KDF_MAX_INSTANCES];  /* libsodium: I has finished */
  gpg_error_t err;
};

static double
now (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec / 1e9;
}

const char *
ks_kdf_backend (void)
{
  return KS_ARGON2_BACKEND;
}

#ifdef KS_ARGON2_LIBSODIUM
/* Seconds per KiB and pass measured on the last finished instance;
 * 0 until one has finished.  */
static pthread_mutex_t rate_lock = PTHREAD_MUTEX_INITIALIZER;
static double rate_s_per_kib_pass;
static pthread_once_t sodium_once = PTHREAD_ONCE_INIT;
static int sodium_ok;

static void
sodium_setup (void)
{
  sodium_ok = sodium_init () >= 0;
}

static gpg_error_t
compute_one (struct many *mn, unsigned int i)
{
  double t0 = now (), secs;

  if (crypto_pwhash_argon2id (mn->outs + i * KS_KDF_OUT_LEN, KS_KDF_OUT_LEN,
                              mn->pass, mn->passlen,
                              mn->salts + i * KS_KDF_SALT_LEN,
                              mn->t, (size_t)mn->m_kib * 1024,
                              crypto_pwhash_ALG_ARGON2ID13))
    return gpg_error_from_syserror ();  /* ENOMEM: inputs were checked */
  secs = now () - t0;
  pthread_mutex_lock (&rate_lock);
  rate_s_per_kib_pass = secs / ((double)mn->t * mn->m_kib);
  pthread_mutex_unlock (&rate_lock);
  return 0;
}

/* The rate to estimate with; without one measured yet, one 8 MiB
 * pass measures it (a few milliseconds).  */
static double
current_rate (void)
{
  static const uint8_t salt[KS_KDF_SALT_LEN] = "keysafe-rate-cal";
  uint8_t out[KS_KDF_OUT_LEN];
  double rate, t0;

  pthread_mutex_lock (&rate_lock);
  rate = rate_s_per_kib_pass;
  pthread_mutex_unlock (&rate_lock);
  if (rate > 0)
    return rate;
  t0 = now ();
  if (crypto_pwhash_argon2id (out, sizeof out, "x", 1, salt, 1, 8 << 20,
                              crypto_pwhash_ALG_ARGON2ID13))
    return 1e-6;
  return (now () - t0) / 8192;
}

#else /*!KS_ARGON2_LIBSODIUM*/

/* ks_argon2id's progress hook, run in the worker: one more slice.  */
static void
slice_done (void *arg, const char *what, uint64_t done, uint64_t total)
{
  struct many *mn = arg;

  pthread_mutex_lock (&mn->lock);
  mn->slices++;
  pthread_cond_signal (&mn->cond);
  pthread_mutex_unlock (&mn->lock);
}

static gpg_error_t
compute_one (struct many *mn, unsigned int i)
{
  ks_argon2_params_t p;

  p.t_cost = mn->t;
  p.m_cost = mn->m_kib;
  p.lanes = 1;
  return ks_argon2id (&p, mn->pass, mn->passlen,
                      mn->salts + i * KS_KDF_SALT_LEN, KS_KDF_SALT_LEN,
                      NULL, 0, NULL, 0,
                      mn->outs + i * KS_KDF_OUT_LEN, KS_KDF_OUT_LEN,
                      slice_done, mn, NULL);
}
#endif /*!KS_ARGON2_LIBSODIUM*/

static void *
worker (void *arg)
{
  struct many *mn = arg;
  unsigned int i;
  gpg_error_t err;

  pthread_mutex_lock (&mn->lock);
  while (!mn->err && mn->next < mn->instances)
    {
      i = mn->next++;
      mn->start[i] = now ();
      pthread_mutex_unlock (&mn->lock);
      err = compute_one (mn, i);
      pthread_mutex_lock (&mn->lock);
      if (err && !mn->err)
        mn->err = err;
      mn->done[i] = 1;
      pthread_cond_signal (&mn->cond);
    }
  mn->workers--;
  pthread_cond_signal (&mn->cond);
  pthread_mutex_unlock (&mn->lock);
  return NULL;
}

/* Slices done so far, exact or estimated; called with the lock held.  */
static uint64_t
slices_done (struct many *mn, double rate)
{
#ifdef KS_ARGON2_LIBSODIUM
  uint64_t per = (uint64_t)mn->t * 4, done = 0, est;
  double t = now ();
  unsigned int i;

  for (i = 0; i < mn->next; i++)
    if (mn->done[i])
      done += per;
    else
      {
        est = (uint64_t)((t - mn->start[i]) / (rate * mn->t * mn->m_kib)
                         * per);
        done += est < per - 1 ? est : per - 1;
      }
  return done;
#else
  (void)rate;
  return mn->slices;
#endif
}

/* The calling thread's part when progress is wanted: wait for the
 * workers, reporting whenever the count of slices has grown.  */
static void
watch (struct many *mn, ks_progress_cb_t progress, void *progress_arg,
       const char *what)
{
  uint64_t total = (uint64_t)mn->instances * mn->t * 4;
  uint64_t last = 0, done;
  double rate = 0;
  struct timespec ts;

#ifdef KS_ARGON2_LIBSODIUM
  rate = current_rate ();
#endif
  pthread_mutex_lock (&mn->lock);
  while (mn->workers)
    {
      clock_gettime (CLOCK_REALTIME, &ts);
      ts.tv_nsec += TICK_MS * 1000000L;
      if (ts.tv_nsec >= 1000000000L)
        {
          ts.tv_sec++;
          ts.tv_nsec -= 1000000000L;
        }
      pthread_cond_timedwait (&mn->cond, &mn->lock, &ts);
      done = slices_done (mn, rate);
      if (done > last && done < total && !mn->err)
        {
          last = done;
          /* Not under the lock: the callback may be slow (a terminal).  */
          pthread_mutex_unlock (&mn->lock);
          progress (progress_arg, what, done, total);
          pthread_mutex_lock (&mn->lock);
        }
    }
  pthread_mutex_unlock (&mn->lock);
  if (!mn->err)
    progress (progress_arg, what, total, total);
}

static gpg_error_t
check_args (const void *pass, size_t passlen, const uint8_t *salts,
            unsigned int instances, uint32_t t, uint32_t m_kib,
            const uint8_t *outs)
{
  if (!pass || !passlen || (uint64_t)passlen > 0xffffffffu
      || !salts || !outs || !instances || instances > KS_KDF_MAX_INSTANCES
      || !t || m_kib < KS_KDF_MIN_M_KIB || m_kib > KS_ARGON2_MAX_M_COST)
    return gpg_error (GPG_ERR_INV_ARG);
  return 0;
}

gpg_error_t
ks_kdf_argon2id_many (const void *pass, size_t passlen,
                      const uint8_t *salts, unsigned int instances,
                      uint32_t t, uint32_t m_kib,
                      uint8_t *outs, unsigned int nthreads,
                      ks_progress_cb_t progress, void *progress_arg,
                      const char *what)
{
  gpg_error_t err;
  struct many mn;
  pthread_t tid[KS_KDF_MAX_INSTANCES];
  unsigned int n, started = 0;

  err = check_args (pass, passlen, salts, instances, t, m_kib, outs);
  if (err)
    {
      if (outs && instances <= KS_KDF_MAX_INSTANCES)
        ks_wipe (outs, (size_t)instances * KS_KDF_OUT_LEN);
      return err;
    }
#ifdef KS_ARGON2_LIBSODIUM
  pthread_once (&sodium_once, sodium_setup);
  if (!sodium_ok)
    return gpg_error (GPG_ERR_INTERNAL);
#endif
  if (!nthreads || nthreads > ks_ncpus ())
    nthreads = ks_ncpus ();
  if (nthreads > instances)
    nthreads = instances;

  memset (&mn, 0, sizeof mn);
  pthread_mutex_init (&mn.lock, NULL);
  pthread_cond_init (&mn.cond, NULL);
  mn.pass = pass;
  mn.passlen = passlen;
  mn.salts = salts;
  mn.outs = outs;
  mn.t = t;
  mn.m_kib = m_kib;
  mn.instances = instances;

  /* Without progress the calling thread is one of the workers.  A
   * worker is counted before it starts, so its end is never missed.  */
  mn.workers = progress ? 0 : 1;
  for (n = mn.workers; n < nthreads; n++)
    {
      pthread_mutex_lock (&mn.lock);
      mn.workers++;
      pthread_mutex_unlock (&mn.lock);
      if (pthread_create (&tid[started], NULL, worker, &mn))
        {
          pthread_mutex_lock (&mn.lock);
          mn.workers--;
          pthread_mutex_unlock (&mn.lock);
          break;
        }
      started++;
    }
  if (!progress)
    worker (&mn);
  else if (!started)
    {
      /* No thread at all: compute here, report only the end.  */
      mn.workers = 1;
      worker (&mn);
    }
  else
    watch (&mn, progress, progress_arg, what ? what : "kdf");
  for (n = 0; n < started; n++)
    pthread_join (tid[n], NULL);

  err = mn.err;
  pthread_cond_destroy (&mn.cond);
  pthread_mutex_destroy (&mn.lock);
  if (err)
    ks_wipe (outs, (size_t)instances * KS_KDF_OUT_LEN);
  else if (progress && !started)
    progress (progress_arg, what ? what : "kdf",
              (uint64_t)instances * t * 4, (uint64_t)instances * t * 4);
  return err;
}

gpg_error_t
ks_kdf_argon2id (const void *pass, size_t passlen, const uint8_t *salt,
                 uint32_t t, uint32_t m_kib, uint8_t *out,
                 ks_progress_cb_t progress, void *progress_arg,
                 const char *what)
{
  return ks_kdf_argon2id_many (pass, passlen, salt, 1, t, m_kib, out, 1,
                               progress, progress_arg, what);
}
