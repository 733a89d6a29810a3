/* t-kdf.c - known answers, progress and argument checks of ks_argon2id,
 * and the single-lane instances of ks_kdf_argon2id_many
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The known answers live in data/kdf/argon2id.vec: the RFC 9106 vector
 * (with secret and associated data) and the reference implementation's
 * Argon2id vectors.  The comparison against libargon2 on many random
 * parameter sets is t-argon2-oracle.
 */
#include <config.h>
#include <pthread.h>
#include "t-support.h"

/* One record of the vector file.  */
struct vec
{
  char name[128];
  ks_argon2_params_t params;
  uint8_t *pass, *salt, *secret, *ad, *tag;
  size_t passlen, saltlen, secretlen, adlen, taglen;
};

static void
vec_release (struct vec *v)
{
  free (v->pass);
  free (v->salt);
  free (v->secret);
  free (v->ad);
  free (v->tag);
  memset (v, 0, sizeof *v);
}

static int vectors_run;

static void
run_vector (struct vec *v)
{
  uint8_t out[256];
  gpg_error_t err;

  if (!v->tag || !v->pass || !v->salt || !v->params.t_cost
      || v->taglen > sizeof out)
    T_DIE ("incomplete record in argon2id.vec");
  err = ks_argon2id (&v->params, v->pass, v->passlen, v->salt, v->saltlen,
                     v->secret, v->secretlen, v->ad, v->adlen,
                     out, v->taglen, NULL, NULL, "test");
  T_OK (err);
  T_CHECK (!memcmp (out, v->tag, v->taglen));
  if (err || memcmp (out, v->tag, v->taglen))
    fprintf (stderr, "  vector: %s\n", v->name);
  vectors_run++;
}

/* Parse "field = value" records separated by blank lines.  */
static void
check_vector_file (void)
{
  const char *srcdir = getenv ("srcdir");
  char path[4096];
  char *text, *line, *next;
  size_t len;
  struct vec v;

  snprintf (path, sizeof path, "%s/data/kdf/argon2id.vec",
            srcdir ? srcdir : ".");
  text = t_read_file (path, &len);
  memset (&v, 0, sizeof v);
  for (line = text; line; line = next)
    {
      char *eq, *key, *val, *end;

      next = strchr (line, '\n');
      if (next)
        *next++ = 0;
      if (*line == '#')
        continue;
      if (!*line)
        {
          if (v.tag)
            run_vector (&v);
          vec_release (&v);
          continue;
        }
      eq = strchr (line, '=');
      if (!eq)
        T_DIE ("argon2id.vec: line without '='");
      key = line;
      for (end = eq; end > key && end[-1] == ' '; end--)
        ;
      *end = 0;
      for (val = eq + 1; *val == ' '; val++)
        ;
      if (!strcmp (key, "name"))
        snprintf (v.name, sizeof v.name, "%s", val);
      else if (!strcmp (key, "t"))
        v.params.t_cost = strtoul (val, NULL, 10);
      else if (!strcmp (key, "m"))
        v.params.m_cost = strtoul (val, NULL, 10);
      else if (!strcmp (key, "p"))
        v.params.lanes = strtoul (val, NULL, 10);
      else if (!strcmp (key, "pass"))
        v.pass = t_unhex (val, &v.passlen);
      else if (!strcmp (key, "salt"))
        v.salt = t_unhex (val, &v.saltlen);
      else if (!strcmp (key, "secret"))
        v.secret = t_unhex (val, &v.secretlen);
      else if (!strcmp (key, "ad"))
        v.ad = t_unhex (val, &v.adlen);
      else if (!strcmp (key, "tag"))
        v.tag = t_unhex (val, &v.taglen);
      else
        T_DIE ("argon2id.vec: unknown field");
    }
  if (v.tag)
    run_vector (&v);
  vec_release (&v);
  free (text);
  /* A file that silently lost its records must not pass.  */
  T_CHECK (vectors_run == 9);
}


struct progress_log
{
  unsigned int calls;
  uint64_t last_done;
  uint64_t total;
  int monotone;
  int what_ok;
  const char *want_what;
};

static void
progress_cb (void *arg, const char *what, uint64_t done, uint64_t total)
{
  struct progress_log *log = arg;

  if (done != log->last_done + 1 || done > total)
    log->monotone = 0;
  if (log->calls && total != log->total)
    log->monotone = 0;
  if (!what || strcmp (what, log->want_what))
    log->what_ok = 0;
  log->calls++;
  log->last_done = done;
  log->total = total;
}

static void
check_progress (void)
{
  static const ks_argon2_params_t cases[] =
    { { 1, 64, 1 }, { 3, 256, 2 }, { 5, 128, 4 } };
  uint8_t out[32];
  unsigned int i;

  for (i = 0; i < KS_DIM (cases); i++)
    {
      struct progress_log log = { 0, 0, 0, 1, 1, "key" };

      T_OK (ks_argon2id (&cases[i], "pw", 2, "saltsalt", 8, NULL, 0,
                         NULL, 0, out, sizeof out, progress_cb, &log, "key"));
      T_CHECK (log.calls == cases[i].t_cost * 4);
      T_CHECK (log.monotone);
      T_CHECK (log.what_ok);
      T_CHECK (log.total == (uint64_t)cases[i].t_cost * 4);
      T_CHECK (log.last_done == log.total);
    }

  /* WHAT defaults to "kdf".  */
  {
    struct progress_log log = { 0, 0, 0, 1, 1, "kdf" };

    T_OK (ks_argon2id (&cases[0], "pw", 2, "saltsalt", 8, NULL, 0, NULL, 0,
                       out, sizeof out, progress_cb, &log, NULL));
    T_CHECK (log.calls == 4 && log.what_ok && log.monotone);
  }
}


/* A call that must fail with GPG_ERR_INV_ARG and leave OUT wiped.  */
static void
expect_inv_arg (const ks_argon2_params_t *p,
                const void *pass, size_t passlen,
                const void *salt, size_t saltlen,
                const void *key, size_t keylen,
                const void *ad, size_t adlen,
                size_t outlen, int line)
{
  uint8_t out[64];
  gpg_error_t err;
  size_t i;
  int wiped = 1;

  memset (out, 0xa5, sizeof out);
  err = ks_argon2id (p, pass, passlen, salt, saltlen, key, keylen,
                     ad, adlen, out, outlen, NULL, NULL, NULL);
  t_checks++;
  if (gpg_err_code (err) != GPG_ERR_INV_ARG)
    {
      t_errors++;
      fprintf (stderr, "t-kdf.c:%d: FAIL: got %s, want Invalid argument\n",
               line, gpg_strerror (err));
    }
  for (i = 0; i < outlen && i < sizeof out; i++)
    if (out[i] == 0xa5)
      wiped = 0;
  /* Too short an output is refused before OUT is touched.  */
  if (outlen >= KS_ARGON2_MIN_OUT)
    T_CHECK (wiped);
}

#define BAD(p, pw, pwl, s, sl, k, kl, a, al, ol) \
  expect_inv_arg ((p), (pw), (pwl), (s), (sl), (k), (kl), (a), (al), (ol), \
                  __LINE__)

static void
check_bad_params (void)
{
  static const uint8_t salt[16] = "0123456789abcdef";
  static const uint8_t key[8] = "secret!";
  const ks_argon2_params_t ok = { 1, 32, 4 };
  const ks_argon2_params_t t0 = { 0, 64, 1 };
  const ks_argon2_params_t l0 = { 1, 64, 0 };
  const ks_argon2_params_t lmany = { 1, 8 * (KS_ARGON2_MAX_LANES + 1),
                                     KS_ARGON2_MAX_LANES + 1 };
  const ks_argon2_params_t msmall = { 1, 31, 4 };
  const ks_argon2_params_t msmall1 = { 1, 7, 1 };
  const ks_argon2_params_t mhuge = { 1, KS_ARGON2_MAX_M_COST + 1, 1 };
  const ks_argon2_params_t mmax32 = { 1, 0xffffffff, 1 };
  uint8_t out[32];

  BAD (&t0, "pw", 2, salt, 16, NULL, 0, NULL, 0, 32);
  BAD (&l0, "pw", 2, salt, 16, NULL, 0, NULL, 0, 32);
  BAD (&lmany, "pw", 2, salt, 16, NULL, 0, NULL, 0, 32);
  BAD (&msmall, "pw", 2, salt, 16, NULL, 0, NULL, 0, 32);
  BAD (&msmall1, "pw", 2, salt, 16, NULL, 0, NULL, 0, 32);
  BAD (&mhuge, "pw", 2, salt, 16, NULL, 0, NULL, 0, 32);
  BAD (&mmax32, "pw", 2, salt, 16, NULL, 0, NULL, 0, 32);
  BAD (NULL, "pw", 2, salt, 16, NULL, 0, NULL, 0, 32);
  /* Short salt, no salt.  */
  BAD (&ok, "pw", 2, salt, 7, NULL, 0, NULL, 0, 32);
  BAD (&ok, "pw", 2, salt, 0, NULL, 0, NULL, 0, 32);
  BAD (&ok, "pw", 2, NULL, 16, NULL, 0, NULL, 0, 32);
  /* Empty or missing password.  */
  BAD (&ok, "", 0, salt, 16, NULL, 0, NULL, 0, 32);
  BAD (&ok, NULL, 2, salt, 16, NULL, 0, NULL, 0, 32);
  /* A length without its bytes.  */
  BAD (&ok, "pw", 2, salt, 16, NULL, 8, NULL, 0, 32);
  BAD (&ok, "pw", 2, salt, 16, key, 8, NULL, 4, 32);
  /* Output too short.  */
  BAD (&ok, "pw", 2, salt, 16, NULL, 0, NULL, 0, 3);
  BAD (&ok, "pw", 2, salt, 16, NULL, 0, NULL, 0, 0);
  T_CHECK_ERR (ks_argon2id (&ok, "pw", 2, salt, 16, NULL, 0, NULL, 0,
                            NULL, 32, NULL, NULL, NULL), GPG_ERR_INV_ARG);

  /* The limits themselves are accepted.  */
  T_OK (ks_argon2id (&ok, "p", 1, salt, KS_ARGON2_MIN_SALT, NULL, 0,
                     NULL, 0, out, KS_ARGON2_MIN_OUT, NULL, NULL, NULL));
  {
    const ks_argon2_params_t m8 = { 1, 8, 1 };

    T_OK (ks_argon2id (&m8, "p", 1, salt, 16, NULL, 0, NULL, 0,
                       out, sizeof out, NULL, NULL, NULL));
  }

  T_OK (ks_kdf_check_params (&ok));
  T_CHECK_ERR (ks_kdf_check_params (&t0), GPG_ERR_INV_ARG);
  T_CHECK_ERR (ks_kdf_check_params (&l0), GPG_ERR_INV_ARG);
  T_CHECK_ERR (ks_kdf_check_params (&lmany), GPG_ERR_INV_ARG);
  T_CHECK_ERR (ks_kdf_check_params (&msmall), GPG_ERR_INV_ARG);
  T_CHECK_ERR (ks_kdf_check_params (&mhuge), GPG_ERR_INV_ARG);
  T_CHECK_ERR (ks_kdf_check_params (NULL), GPG_ERR_INV_ARG);
}


/* A NULL secret or AD of length 0 equals a non-NULL one of length 0,
 * and each input changes the output.  */
static void
check_inputs_matter (void)
{
  const ks_argon2_params_t p = { 1, 64, 2 };
  uint8_t base[32], o[32];

  T_OK (ks_argon2id (&p, "pw", 2, "saltsalt", 8, NULL, 0, NULL, 0,
                     base, 32, NULL, NULL, NULL));
  T_OK (ks_argon2id (&p, "pw", 2, "saltsalt", 8, "", 0, "", 0,
                     o, 32, NULL, NULL, NULL));
  T_CHECK (!memcmp (base, o, 32));
  T_OK (ks_argon2id (&p, "pX", 2, "saltsalt", 8, NULL, 0, NULL, 0,
                     o, 32, NULL, NULL, NULL));
  T_CHECK (memcmp (base, o, 32));
  T_OK (ks_argon2id (&p, "pw", 2, "saltsalX", 8, NULL, 0, NULL, 0,
                     o, 32, NULL, NULL, NULL));
  T_CHECK (memcmp (base, o, 32));
  T_OK (ks_argon2id (&p, "pw", 2, "saltsalt", 8, "k", 1, NULL, 0,
                     o, 32, NULL, NULL, NULL));
  T_CHECK (memcmp (base, o, 32));
  T_OK (ks_argon2id (&p, "pw", 2, "saltsalt", 8, NULL, 0, "a", 1,
                     o, 32, NULL, NULL, NULL));
  T_CHECK (memcmp (base, o, 32));
  {
    const ks_argon2_params_t p1 = { 1, 64, 1 };

    T_OK (ks_argon2id (&p1, "pw", 2, "saltsalt", 8, NULL, 0, NULL, 0,
                       o, 32, NULL, NULL, NULL));
    T_CHECK (memcmp (base, o, 32));
  }
}


/* ks_argon2id is reentrant: four threads at once, each with four lanes
 * of its own, give the sequential answers.  */
struct par
{
  ks_argon2_params_t params;
  uint8_t salt[8];
  uint8_t out[32];
  gpg_error_t err;
};

static void *
par_thread (void *arg)
{
  struct par *p = arg;

  p->err = ks_argon2id (&p->params, "password", 8, p->salt, 8, NULL, 0,
                        NULL, 0, p->out, 32, NULL, NULL, NULL);
  return NULL;
}

static void
check_reentrant (void)
{
  struct par par[4];
  pthread_t tid[4];
  uint8_t want[32];
  unsigned int i;

  for (i = 0; i < 4; i++)
    {
      par[i].params.t_cost = 2;
      par[i].params.m_cost = 512 + 64 * i;
      par[i].params.lanes = 4;
      memcpy (par[i].salt, "salt0000", 8);
      par[i].salt[7] = (uint8_t)('0' + i);
      par[i].err = gpg_error (GPG_ERR_GENERAL);
    }
  for (i = 0; i < 4; i++)
    if (pthread_create (&tid[i], NULL, par_thread, &par[i]))
      T_DIE ("pthread_create");
  for (i = 0; i < 4; i++)
    pthread_join (tid[i], NULL);
  for (i = 0; i < 4; i++)
    {
      T_OK (par[i].err);
      T_OK (ks_argon2id (&par[i].params, "password", 8, par[i].salt, 8,
                         NULL, 0, NULL, 0, want, 32, NULL, NULL, NULL));
      T_CHECK (!memcmp (want, par[i].out, 32));
    }
}


/* Every profile's costs are within the limits ks_argon2id enforces, so
 * no profile can fail at derivation time with GPG_ERR_INV_ARG.  */
static void
check_profiles (void)
{
  unsigned int i;

  T_CHECK (ks_profile_count () >= 2);
  for (i = 0; i < ks_profile_count (); i++)
    {
      const ks_profile_t *prof = ks_profile_nth (i);

      T_OK (ks_kdf_check_params (&prof->name_cost));
      T_OK (ks_kdf_check_params (&prof->key_cost));
      T_OK (ks_kdf_check_params (&prof->puzzle_cost));
    }
}


/* Progress of ks_kdf_argon2id_many: strictly increasing, from the
 * calling thread, ending at exactly the total.  */
struct many_log
{
  pthread_t caller;
  unsigned int calls;
  uint64_t last, total;
  int ok;
};

static void
many_cb (void *arg, const char *what, uint64_t done, uint64_t total)
{
  struct many_log *log = arg;

  if (!pthread_equal (pthread_self (), log->caller) || done <= log->last
      || done > total || (log->calls && total != log->total)
      || !what || strcmp (what, "name"))
    log->ok = 0;
  log->calls++;
  log->last = done;
  log->total = total;
}

/* INSTANCES computations at once equal the same ones one by one, with
 * any number of threads, with and without progress.  */
static void
check_many (void)
{
  enum { N = 5 };
  uint8_t salts[N * KS_KDF_SALT_LEN], want[N * KS_KDF_OUT_LEN];
  uint8_t got[N * KS_KDF_OUT_LEN];
  unsigned int i, threads;

  for (i = 0; i < sizeof salts; i++)
    salts[i] = (uint8_t)(i * 7 + 1);
  for (i = 0; i < N; i++)
    T_OK (ks_kdf_argon2id ("pw", 2, salts + i * KS_KDF_SALT_LEN, 2, 256,
                           want + i * KS_KDF_OUT_LEN, NULL, NULL, NULL));
  /* Distinct salts give distinct outputs.  */
  T_CHECK (memcmp (want, want + KS_KDF_OUT_LEN, KS_KDF_OUT_LEN));
  for (threads = 0; threads <= 3; threads++)
    {
      struct many_log log = { pthread_self (), 0, 0, 0, 1 };

      memset (got, 0, sizeof got);
      T_OK (ks_kdf_argon2id_many ("pw", 2, salts, N, 2, 256, got, threads,
                                  NULL, NULL, NULL));
      T_CHECK (!memcmp (got, want, sizeof want));
      memset (got, 0, sizeof got);
      T_OK (ks_kdf_argon2id_many ("pw", 2, salts, N, 2, 256, got, threads,
                                  many_cb, &log, "name"));
      T_CHECK (!memcmp (got, want, sizeof want));
      T_CHECK (log.ok && log.calls >= 1);
      T_CHECK (log.total == (uint64_t)N * 2 * 4 && log.last == log.total);
    }
}

/* A computation long enough for several progress ticks reports
 * between start and end, not only the end.  */
static void
check_many_progress (void)
{
  enum { N = 3 };
  uint8_t salts[N * KS_KDF_SALT_LEN], got[N * KS_KDF_OUT_LEN];
  struct many_log log = { pthread_self (), 0, 0, 0, 1 };

  memset (salts, 0x11, sizeof salts);
  salts[KS_KDF_SALT_LEN] = 2;
  salts[2 * KS_KDF_SALT_LEN] = 3;
  T_OK (ks_kdf_argon2id_many ("pw", 2, salts, N, 4, 65536, got, 0,
                              many_cb, &log, "name"));
  T_CHECK (log.ok && log.last == log.total && log.total == N * 4 * 4);
  T_CHECK (log.calls >= 2);
  fprintf (stderr, "3 x 64 MiB x 4 passes: %u progress calls\n", log.calls);
}

static void
check_many_bad (void)
{
  uint8_t salt[KS_KDF_SALT_LEN] = { 0 }, out[2 * KS_KDF_OUT_LEN];
  unsigned int i;
  int wiped = 1;

#define MANY_BAD(pw, pl, n, t, m) do {                                  \
    size_t outlen_ = (size_t)(n) * KS_KDF_OUT_LEN;                     \
    memset (out, 0xa5, sizeof out);                                    \
    T_CHECK_ERR (ks_kdf_argon2id_many ((pw), (pl), salt, (n), (t), (m), \
                                       out, 0, NULL, NULL, NULL),       \
                 GPG_ERR_INV_ARG);                                      \
    for (i = 0; i < outlen_ && i < sizeof out; i++)                    \
      if (out[i] == 0xa5)                                               \
        wiped = 0;                                                      \
  } while (0)

  MANY_BAD ("pw", 2, 1, 0, 64);
  MANY_BAD ("pw", 2, 1, 1, KS_KDF_MIN_M_KIB - 1);
  MANY_BAD ("pw", 2, 1, 1, KS_ARGON2_MAX_M_COST + 1);
  MANY_BAD ("", 0, 1, 1, 64);
  MANY_BAD (NULL, 2, 1, 1, 64);
  MANY_BAD ("pw", 2, 0, 1, 64);
#undef MANY_BAD
  T_CHECK (wiped);
  T_CHECK_ERR (ks_kdf_argon2id_many ("pw", 2, salt, KS_KDF_MAX_INSTANCES + 1,
                                     1, 64, out, 0, NULL, NULL, NULL),
               GPG_ERR_INV_ARG);
  T_CHECK_ERR (ks_kdf_argon2id ("pw", 2, NULL, 1, 64, out, NULL, NULL, NULL),
               GPG_ERR_INV_ARG);
  /* The smallest memory both backends take.  */
  T_OK (ks_kdf_argon2id ("p", 1, salt, 1, KS_KDF_MIN_M_KIB, out,
                         NULL, NULL, NULL));
}

int
main (void)
{
  t_init ();
  printf ("argon2 backend: %s\n", ks_kdf_backend ());
  check_vector_file ();
  check_progress ();
  check_bad_params ();
  check_inputs_matter ();
  check_reentrant ();
  check_profiles ();
  check_many ();
  check_many_progress ();
  check_many_bad ();
  return t_done ();
}
