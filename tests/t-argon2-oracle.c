/* t-argon2-oracle.c - libgcrypt, libsodium and libargon2 agree
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * libargon2 is the reference implementation of Argon2, written
 * independently of libgcrypt's.  Both must give the same bytes on every
 * parameter set: passes, memory (including sizes that are not a
 * multiple of 4 * lanes), 1..8 lanes, output lengths around the 32/64
 * byte boundaries of H', short and long passwords and salts, and with
 * and without secret and associated data.  libargon2's *_hash_raw has
 * no secret/AD inputs, so the oracle is argon2_ctx.
 *
 * The parameter sets come from a fixed-seed generator so a failure can
 * be reproduced; KS_TEST_SEED=N in the environment picks another seed.
 * Costs are kept small: the whole test takes well under two seconds.
 *
 * The single-lane sets of protocol 2 (16-byte salt, 32-byte output, no
 * secret or AD) are computed four ways: ks_kdf_argon2id (the backend
 * configure chose), ks_argon2id (libgcrypt), libsodium's
 * crypto_pwhash_argon2id called directly (when built with it) and
 * libargon2's argon2id_hash_raw; all four must agree.
 */
#include <config.h>
#include <argon2.h>
#ifdef KS_ARGON2_LIBSODIUM
#include <sodium.h>
#define SODIUM_DIRECT "libsodium direct, "
#else
#define SODIUM_DIRECT ""
#endif
#include "t-support.h"

#define MAX_IN  300
#define MAX_OUT 1100

static uint64_t rng_state;

/* splitmix64: a small, well-mixed, reproducible generator.  */
static uint64_t
rng (void)
{
  uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);

  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

static uint32_t
rng_range (uint32_t lo, uint32_t hi)
{
  return lo + (uint32_t)(rng () % ((uint64_t)hi - lo + 1));
}

static void
rng_fill (uint8_t *p, size_t n)
{
  size_t i;

  for (i = 0; i < n; i++)
    p[i] = (uint8_t)rng ();
}

struct tcase
{
  ks_argon2_params_t params;
  uint8_t pass[MAX_IN], salt[MAX_IN], secret[MAX_IN], ad[MAX_IN];
  size_t passlen, saltlen, secretlen, adlen, outlen;
  int with_secret, with_ad;
};

static unsigned int cases_run;
static unsigned int cases_secret;
static unsigned int cases_ad;
static unsigned int max_lanes_seen;

static void
run_case (struct tcase *tc, const char *label)
{
  uint8_t ours[MAX_OUT], ref[MAX_OUT];
  argon2_context ctx;
  gpg_error_t err;
  int rc;

  memset (ours, 0, sizeof ours);
  memset (ref, 0xff, sizeof ref);
  err = ks_argon2id (&tc->params, tc->pass, tc->passlen,
                     tc->salt, tc->saltlen,
                     tc->with_secret ? tc->secret : NULL, tc->secretlen,
                     tc->with_ad ? tc->ad : NULL, tc->adlen,
                     ours, tc->outlen, NULL, NULL, "oracle");

  memset (&ctx, 0, sizeof ctx);
  ctx.out = ref;
  ctx.outlen = (uint32_t)tc->outlen;
  ctx.pwd = tc->pass;
  ctx.pwdlen = (uint32_t)tc->passlen;
  ctx.salt = tc->salt;
  ctx.saltlen = (uint32_t)tc->saltlen;
  ctx.secret = tc->with_secret ? tc->secret : NULL;
  ctx.secretlen = (uint32_t)tc->secretlen;
  ctx.ad = tc->with_ad ? tc->ad : NULL;
  ctx.adlen = (uint32_t)tc->adlen;
  ctx.t_cost = tc->params.t_cost;
  ctx.m_cost = tc->params.m_cost;
  ctx.lanes = tc->params.lanes;
  ctx.threads = tc->params.lanes;
  ctx.version = ARGON2_VERSION_13;
  ctx.flags = ARGON2_DEFAULT_FLAGS;
  rc = argon2_ctx (&ctx, Argon2_id);
  if (rc != ARGON2_OK)
    {
      fprintf (stderr, "argon2_ctx: %s\n", argon2_error_message (rc));
      T_DIE ("the oracle refused a parameter set we consider valid");
    }

  T_OK (err);
  T_CHECK (!memcmp (ours, ref, tc->outlen));
  if (err || memcmp (ours, ref, tc->outlen))
    fprintf (stderr, "  case %s: t=%u m=%u p=%u out=%zu pass=%zu salt=%zu"
             " secret=%zu%s ad=%zu%s\n", label,
             tc->params.t_cost, tc->params.m_cost, tc->params.lanes,
             tc->outlen, tc->passlen, tc->saltlen,
             tc->secretlen, tc->with_secret ? "" : "(NULL)",
             tc->adlen, tc->with_ad ? "" : "(NULL)");
  cases_run++;
  if (tc->secretlen)
    cases_secret++;
  if (tc->adlen)
    cases_ad++;
  if (tc->params.lanes > max_lanes_seen)
    max_lanes_seen = tc->params.lanes;
}

/* Output lengths worth hitting: the minimum, H' boundaries at 32, 64
 * and the 32-byte steps beyond, and a block-sized output.  */
static const size_t out_lens[] =
  { 4, 5, 16, 20, 31, 32, 33, 48, 63, 64, 65, 95, 96, 97, 100, 127, 128,
    129, 255, 256, 1024, MAX_OUT };

static void
random_case (struct tcase *tc)
{
  uint32_t lanes;

  memset (tc, 0, sizeof *tc);
  lanes = rng_range (1, 8);
  tc->params.lanes = lanes;
  tc->params.t_cost = rng_range (1, 4);
  /* Mostly small memory, sometimes not a multiple of 4 * lanes.  */
  tc->params.m_cost = rng_range (8 * lanes, 8 * lanes + 600);
  tc->outlen = (rng () & 1) ? out_lens[rng () % KS_DIM (out_lens)]
                            : rng_range (4, 200);
  tc->passlen = (rng () & 3) ? rng_range (1, 64) : rng_range (1, MAX_IN);
  tc->saltlen = (rng () & 3) ? rng_range (8, 32) : rng_range (8, MAX_IN);
  rng_fill (tc->pass, tc->passlen);
  rng_fill (tc->salt, tc->saltlen);
  switch (rng () % 4)
    {
    case 0:  /* neither */
      break;
    case 1:
      tc->with_secret = 1;
      tc->secretlen = rng_range (0, 64);
      break;
    case 2:
      tc->with_ad = 1;
      tc->adlen = rng_range (0, MAX_IN);
      break;
    default:
      tc->with_secret = tc->with_ad = 1;
      tc->secretlen = rng_range (1, 64);
      tc->adlen = rng_range (1, 64);
      break;
    }
  rng_fill (tc->secret, tc->secretlen);
  rng_fill (tc->ad, tc->adlen);
}

static void
check_fixed_cases (void)
{
  /* Larger memory and the lane counts of real profiles, where a wrong
   * reference-index computation across lanes would show.  */
  static const ks_argon2_params_t big[] =
    { { 1, 8192, 1 }, { 1, 8192, 2 }, { 2, 4096, 3 }, { 1, 16384, 4 },
      { 3, 2048, 2 }, { 1, 4099, 4 }, { 1, 1000, 16 } };
  struct tcase *tc = calloc (1, sizeof *tc);
  unsigned int i;

  if (!tc)
    T_DIE ("out of memory");
  for (i = 0; i < KS_DIM (big); i++)
    {
      memset (tc, 0, sizeof *tc);
      tc->params = big[i];
      tc->outlen = 32;
      tc->passlen = 32;
      tc->saltlen = 16;
      rng_fill (tc->pass, tc->passlen);
      rng_fill (tc->salt, tc->saltlen);
      tc->with_secret = tc->with_ad = (i & 1);
      tc->secretlen = tc->with_secret ? 32 : 0;
      tc->adlen = tc->with_ad ? 20 : 0;
      rng_fill (tc->secret, tc->secretlen);
      rng_fill (tc->ad, tc->adlen);
      run_case (tc, "fixed");
    }

  /* Every output length of the table at the smallest memory.  */
  for (i = 0; i < KS_DIM (out_lens); i++)
    {
      memset (tc, 0, sizeof *tc);
      tc->params.t_cost = 1;
      tc->params.m_cost = 16;
      tc->params.lanes = 2;
      tc->outlen = out_lens[i];
      tc->passlen = 8;
      tc->saltlen = 8;
      rng_fill (tc->pass, 8);
      rng_fill (tc->salt, 8);
      run_case (tc, "outlen");
    }
  free (tc);
}

static unsigned int lane_cases;

static void
run_lane_case (uint32_t t, uint32_t m, const uint8_t *pass, size_t passlen,
               const uint8_t *salt)
{
  uint8_t ours[32], gc[32], ref[32];
  ks_argon2_params_t p = { t, m, 1 };
  int rc;

  memset (ours, 0, 32);
  memset (gc, 0x55, 32);
  T_OK (ks_kdf_argon2id (pass, passlen, salt, t, m, ours, NULL, NULL, NULL));
  T_OK (ks_argon2id (&p, pass, passlen, salt, 16, NULL, 0, NULL, 0,
                     gc, 32, NULL, NULL, NULL));
  rc = argon2id_hash_raw (t, m, 1, pass, passlen, salt, 16, ref, 32);
  if (rc != ARGON2_OK)
    T_DIE ("argon2id_hash_raw refused a single-lane set");
  T_CHECK (!memcmp (ours, ref, 32));
  T_CHECK (!memcmp (gc, ref, 32));
#ifdef KS_ARGON2_LIBSODIUM
  {
    uint8_t na[32];

    memset (na, 0xaa, 32);
    T_CHECK (!crypto_pwhash_argon2id (na, 32, (const char *)pass, passlen,
                                      salt, t, (size_t)m * 1024,
                                      crypto_pwhash_ALG_ARGON2ID13));
    T_CHECK (!memcmp (na, ref, 32));
  }
#endif
  if (memcmp (ours, ref, 32) || memcmp (gc, ref, 32))
    fprintf (stderr, "  single lane: t=%u m=%u pass=%zu\n", t, m, passlen);
  lane_cases++;
}

static void
check_single_lane (void)
{
  static const uint32_t big[][2] =
    { { 1, 8 }, { 1, 9 }, { 2, 4099 }, { 1, 16384 }, { 3, 8190 },
      { 1, 32768 } };
  uint8_t pass[MAX_IN], salt[16];
  size_t passlen;
  unsigned int i;

#ifdef KS_ARGON2_LIBSODIUM
  if (sodium_init () < 0)
    T_DIE ("sodium_init");
#endif
  for (i = 0; i < KS_DIM (big) + 200; i++)
    {
      uint32_t t, m;

      passlen = (rng () & 3) ? rng_range (1, 64) : rng_range (1, MAX_IN);
      rng_fill (pass, passlen);
      rng_fill (salt, 16);
      if (i < KS_DIM (big))
        {
          t = big[i][0];
          m = big[i][1];
        }
      else
        {
          t = rng_range (1, 5);
          m = rng_range (8, 700);
        }
      run_lane_case (t, m, pass, passlen, salt);
    }
  T_CHECK (lane_cases == KS_DIM (big) + 200);
}

int
main (void)
{
  const char *s = getenv ("KS_TEST_SEED");
  struct tcase *tc;
  unsigned int i;

  t_init ();
  rng_state = s ? strtoull (s, NULL, 0) : 20260103;
  fprintf (stderr, "seed %llu\n", (unsigned long long)rng_state);
  printf ("argon2 backend: %s\n", ks_kdf_backend ());

  check_fixed_cases ();

  tc = calloc (1, sizeof *tc);
  if (!tc)
    T_DIE ("out of memory");
  for (i = 0; i < 300; i++)
    {
      random_case (tc);
      run_case (tc, "random");
    }
  free (tc);

  fprintf (stderr, "%u parameter sets (%u with secret, %u with AD, "
           "up to %u lanes)\n", cases_run, cases_secret, cases_ad,
           max_lanes_seen);
  T_CHECK (cases_run == 300 + 7 + KS_DIM (out_lens));

  check_single_lane ();
  fprintf (stderr, "%u single-lane sets: %s, libgcrypt, %slibargon2\n",
           lane_cases, ks_kdf_backend (), SODIUM_DIRECT);
  return t_done ();
}
