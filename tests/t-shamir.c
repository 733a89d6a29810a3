/* t-shamir.c - tests of Shamir k-of-n over GF(2^8)
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Field arithmetic against a slow reference, the randomness order against
 * known answers made by an independent generator, every k-subset of n
 * recombining, sizes 0..64 KiB, refused parameters, and a statistical
 * check that fewer than k shares say nothing about the secret.
 */
#include <config.h>
#include "t-support.h"

/* A small seeded PRNG for the test's own choices (sizes, subsets), so a
 * failure can be replayed with KS_TEST_SEED.  */
static uint64_t prng_state;

static uint32_t
prng (void)
{
  uint64_t x = prng_state;

  x ^= x << 13;
  x ^= x >> 7;
  x ^= x << 17;
  prng_state = x;
  return (uint32_t)(x >> 32);
}

static uint32_t
prng_below (uint32_t n)
{
  return prng () % n;
}

/* Russian-peasant product with explicit reduction by 0x11d: slow, plain,
 * branchy, obviously right.  */
static uint8_t
ref_mul (uint8_t a, uint8_t b)
{
  unsigned int x = a, r = 0;

  while (b)
    {
      if (b & 1)
        r ^= x;
      x <<= 1;
      if (x & 0x100)
        x ^= 0x11d;
      b >>= 1;
    }
  return (uint8_t)r;
}

static void
test_field (void)
{
  unsigned int a, b, bad = 0;

  for (a = 0; a < 256; a++)
    for (b = 0; b < 256; b++)
      if (ks_gf256_mul (a, b) != ref_mul (a, b))
        bad++;
  T_CHECK (bad == 0);

  bad = 0;
  for (a = 1; a < 256; a++)
    if (ks_gf256_mul (a, ks_gf256_inv (a)) != 1)
      bad++;
  T_CHECK (bad == 0);
  T_CHECK (ks_gf256_inv (0) == 0);
  /* The generator of libgfshare's tables: 2 has order 255.  */
  T_CHECK (ref_mul (0x80, 2) == 0x1d);
}


/* Allocate N shares of LEN bytes (at least 1 byte, so len 0 has valid
 * pointers too).  */
static uint8_t **
alloc_shares (unsigned int n, size_t len)
{
  uint8_t **sh = calloc (n, sizeof *sh);
  unsigned int i;

  if (!sh)
    T_DIE ("out of memory");
  for (i = 0; i < n; i++)
    if (!(sh[i] = malloc (len + 1)))
      T_DIE ("out of memory");
  return sh;
}

static void
free_shares (uint8_t **sh, unsigned int n)
{
  unsigned int i;

  for (i = 0; i < n; i++)
    free (sh[i]);
  free (sh);
}

static void
fill_random (uint8_t *p, size_t len)
{
  size_t i;

  for (i = 0; i < len; i++)
    p[i] = (uint8_t)prng ();
}

/* Combine the shares picked by the COUNT indices IDX (0-based) and
 * compare with SECRET.  Returns 1 on a match.  */
static int
combine_matches (uint8_t **sh, const unsigned int *idx, unsigned int count,
                 const uint8_t *secret, size_t len)
{
  const uint8_t *pick[KS_SHAMIR_MAX_SHARES];
  uint8_t xs[KS_SHAMIR_MAX_SHARES];
  uint8_t *out = malloc (len + 1);
  unsigned int c;
  int ok;

  if (!out)
    T_DIE ("out of memory");
  for (c = 0; c < count; c++)
    {
      pick[c] = sh[idx[c]];
      xs[c] = (uint8_t)(idx[c] + 1);
    }
  ok = !ks_shamir_combine (pick, xs, count, len, out)
       && !memcmp (out, secret, len);
  free (out);
  return ok;
}

/* Every subset of size >= k of n shares recombines, for all 2 <= k <= n
 * <= 6.  Each subset is also tried in reverse order.  */
static void
test_all_subsets (void)
{
  const size_t len = 37;   /* four full lanes and a tail */
  uint8_t secret[37];
  unsigned int k, n, mask, b, cnt, subsets = 0, bad = 0;
  unsigned int idx[6], rev[6];

  for (n = 2; n <= 6; n++)
    for (k = 2; k <= n; k++)
      {
        uint8_t **sh = alloc_shares (n, len);

        fill_random (secret, len);
        T_OK (ks_shamir_split (secret, len, k, n, sh));
        for (mask = 1; mask < (1u << n); mask++)
          {
            for (b = 0, cnt = 0; b < n; b++)
              if (mask & (1u << b))
                idx[cnt++] = b;
            if (cnt < 2)
              continue;
            for (b = 0; b < cnt; b++)
              rev[b] = idx[cnt - 1 - b];
            subsets++;
            if (cnt >= k)
              {
                if (!combine_matches (sh, idx, cnt, secret, len)
                    || !combine_matches (sh, rev, cnt, secret, len))
                  {
                    fprintf (stderr, "k=%u n=%u mask=%#x does not combine\n",
                             k, n, mask);
                    bad++;
                  }
              }
            else if (combine_matches (sh, idx, cnt, secret, len))
              {
                /* 37 bytes all right by chance: 2^-296.  */
                fprintf (stderr, "k=%u n=%u mask=%#x: %u < k shares gave"
                         " the secret\n", k, n, mask, cnt);
                bad++;
              }
          }
        free_shares (sh, n);
      }
  T_CHECK (bad == 0);
  T_CHECK (subsets > 100);
}

/* Pick COUNT distinct indices below N.  */
static void
pick_subset (unsigned int *idx, unsigned int count, unsigned int n)
{
  unsigned char used[KS_SHAMIR_MAX_SHARES];
  unsigned int c, v;

  memset (used, 0, sizeof used);
  for (c = 0; c < count; c++)
    {
      do
        v = prng_below (n);
      while (used[v]);
      used[v] = 1;
      idx[c] = v;
    }
}

static void
test_large_n (void)
{
  static const struct { unsigned int k, n, trials; size_t len; } t[] = {
    { 2, 255, 200, 19 }, { 3, 255, 100, 19 }, { 17, 200, 20, 9 },
    { 128, 255, 4, 9 }, { 255, 255, 2, 10 }
  };
  unsigned int idx[KS_SHAMIR_MAX_SHARES];
  uint8_t secret[19];
  unsigned int i, j, bad = 0;

  for (i = 0; i < KS_DIM (t); i++)
    {
      uint8_t **sh = alloc_shares (t[i].n, t[i].len);

      fill_random (secret, t[i].len);
      T_OK (ks_shamir_split (secret, t[i].len, t[i].k, t[i].n, sh));
      for (j = 0; j < t[i].trials; j++)
        {
          pick_subset (idx, t[i].k, t[i].n);
          if (!combine_matches (sh, idx, t[i].k, secret, t[i].len))
            bad++;
        }
      /* Shares 254 and 255 (the largest x) explicitly.  */
      if (t[i].k == 2 && t[i].n == 255)
        {
          idx[0] = 253;
          idx[1] = 254;
          if (!combine_matches (sh, idx, 2, secret, t[i].len))
            bad++;
        }
      free_shares (sh, t[i].n);
    }
  T_CHECK (bad == 0);
}

static void
test_sizes (void)
{
  static const size_t fixed[] = { 0, 1, 7, 8, 9, 15, 16, 17, 65535, 65536 };
  unsigned int round, bad = 0;

  for (round = 0; round < KS_DIM (fixed) + 30; round++)
    {
      size_t len = (round < KS_DIM (fixed) ? fixed[round]
                    : prng_below (65536 + 1));
      unsigned int n = 2 + prng_below (4);
      unsigned int k = 2 + prng_below (n - 1);
      uint8_t *secret = gcry_malloc_secure (len + 1);
      uint8_t **sh = alloc_shares (n, len);
      unsigned int idx[5];

      if (!secret)
        T_DIE ("out of secure memory");
      fill_random (secret, len);
      T_OK (ks_shamir_split (secret, len, k, n, sh));
      pick_subset (idx, k, n);
      if (!combine_matches (sh, idx, k, secret, len))
        {
          fprintf (stderr, "len=%zu k=%u n=%u does not round-trip\n",
                   len, k, n);
          bad++;
        }
      ks_free_secret (secret, len + 1);
      free_shares (sh, n);
    }
  T_CHECK (bad == 0);

  /* len 0 with NULL buffers is fine too.  */
  {
    uint8_t *none[3] = { NULL, NULL, NULL };
    const uint8_t *cnone[2] = { NULL, NULL };
    uint8_t xs[2] = { 1, 2 };

    T_OK (ks_shamir_split (NULL, 0, 2, 3, none));
    T_OK (ks_shamir_combine (cnone, xs, 2, 0, NULL));
  }
}

static void
test_bad_params (void)
{
  uint8_t secret[4] = { 1, 2, 3, 4 }, out[4];
  uint8_t **sh = alloc_shares (KS_SHAMIR_MAX_SHARES + 1, sizeof secret);
  const uint8_t *pick[3];
  uint8_t xs[3];

  T_CHECK_ERR (ks_shamir_split (secret, 4, 0, 3, sh), GPG_ERR_INV_ARG);
  T_CHECK_ERR (ks_shamir_split (secret, 4, 1, 3, sh), GPG_ERR_INV_ARG);
  T_CHECK_ERR (ks_shamir_split (secret, 4, 4, 3, sh), GPG_ERR_INV_ARG);
  T_CHECK_ERR (ks_shamir_split (secret, 4, 2, 256, sh), GPG_ERR_INV_ARG);
  T_CHECK_ERR (ks_shamir_split (secret, 4, 2, 0, sh), GPG_ERR_INV_ARG);
  T_CHECK_ERR (ks_shamir_split (secret, 4, 2, 1, sh), GPG_ERR_INV_ARG);
  T_CHECK_ERR (ks_shamir_split (secret, 4, 2, 3, NULL), GPG_ERR_INV_ARG);
  T_CHECK_ERR (ks_shamir_split (NULL, 4, 2, 3, sh), GPG_ERR_INV_ARG);
  T_CHECK_ERR (ks_shamir_split (secret, 0, 1, 3, sh), GPG_ERR_INV_ARG);
  T_OK (ks_shamir_split (secret, 4, 255, 255, sh));
  T_OK (ks_shamir_split (secret, 4, 2, 3, sh));

  pick[0] = sh[0]; pick[1] = sh[1]; pick[2] = sh[2];
  xs[0] = 1; xs[1] = 2; xs[2] = 3;
  T_OK (ks_shamir_combine (pick, xs, 3, 4, out));
  T_CHECK (!memcmp (out, secret, 4));
  T_CHECK_ERR (ks_shamir_combine (pick, xs, 0, 4, out), GPG_ERR_INV_ARG);
  T_CHECK_ERR (ks_shamir_combine (pick, xs, 1, 4, out), GPG_ERR_INV_ARG);
  T_CHECK_ERR (ks_shamir_combine (pick, xs, 256, 4, out), GPG_ERR_INV_ARG);
  T_CHECK_ERR (ks_shamir_combine (NULL, xs, 2, 4, out), GPG_ERR_INV_ARG);
  T_CHECK_ERR (ks_shamir_combine (pick, NULL, 2, 4, out), GPG_ERR_INV_ARG);
  T_CHECK_ERR (ks_shamir_combine (pick, xs, 2, 4, NULL), GPG_ERR_INV_ARG);
  xs[1] = 1;   /* duplicate */
  T_CHECK_ERR (ks_shamir_combine (pick, xs, 3, 4, out), GPG_ERR_INV_ARG);
  xs[1] = 0;   /* zero */
  T_CHECK_ERR (ks_shamir_combine (pick, xs, 3, 4, out), GPG_ERR_INV_ARG);
  xs[1] = 2;
  xs[2] = 2;   /* duplicate at the end */
  T_CHECK_ERR (ks_shamir_combine (pick, xs, 3, 4, out), GPG_ERR_INV_ARG);

  free_shares (sh, KS_SHAMIR_MAX_SHARES + 1);
}


/* Known answers from tests/data/shamir/kat.txt (made by gen-kat.py, an
 * independent implementation): they pin the randomness consumption order
 * of doc/protocol.md.  */
static int
parse_line (char **pp, char *line, size_t size)
{
  char *p = *pp, *nl;
  size_t n;

  if (!*p)
    return 0;
  nl = strchr (p, '\n');
  n = nl ? (size_t)(nl - p) : strlen (p);
  if (n >= size)
    T_DIE ("kat.txt: line too long");
  memcpy (line, p, n);
  line[n] = 0;
  *pp = nl ? nl + 1 : p + n;
  return 1;
}

static void
test_kat (void)
{
  const char *srcdir = getenv ("srcdir");
  char path[4096], *text, *p, *line;
  size_t textlen, seedlen = 0, secretlen = 0, sl;
  uint8_t *seed = NULL, *secret = NULL, *want, **sh = NULL;
  unsigned int k = 0, n = 0, x, blocks = 0, bad = 0, shares_seen = 0;
  const size_t linesize = 4096;

  snprintf (path, sizeof path, "%s/data/shamir/kat.txt",
            srcdir ? srcdir : ".");
  text = t_read_file (path, &textlen);
  line = malloc (linesize);
  if (!line)
    T_DIE ("out of memory");
  for (p = text; parse_line (&p, line, linesize); )
    {
      if (!*line || *line == '#')
        continue;
      if (!strncmp (line, "seed ", 5))
        {
          free (seed);
          seed = t_unhex (line + 5, &seedlen);
        }
      else if (!strncmp (line, "k ", 2))
        k = atoi (line + 2);
      else if (!strncmp (line, "n ", 2))
        n = atoi (line + 2);
      else if (!strncmp (line, "secret ", 7))
        {
          free (secret);
          secret = t_unhex (line + 7, &secretlen);
          sh = alloc_shares (n, secretlen);
          ks_random_set_test_seed (seed, seedlen);
          T_OK (ks_shamir_split (secret, secretlen, k, n, sh));
          ks_random_set_test_seed (NULL, 0);
          shares_seen = 0;
        }
      else if (!strncmp (line, "share ", 6) && sh)
        {
          char *sp = strchr (line + 6, ' ');

          x = atoi (line + 6);
          if (!sp || x < 1 || x > n)
            T_DIE ("kat.txt: bad share line");
          want = t_unhex (sp + 1, &sl);
          if (sl != secretlen || memcmp (want, sh[x - 1], sl))
            {
              fprintf (stderr, "kat block %u share %u differs\n", blocks, x);
              bad++;
            }
          shares_seen++;
          free (want);
        }
      else if (!strcmp (line, "end") && sh)
        {
          T_CHECK (shares_seen == n);
          free_shares (sh, n);
          sh = NULL;
          blocks++;
        }
      else
        T_DIE ("kat.txt: unknown line");
    }
  T_CHECK (blocks == 4);
  T_CHECK (bad == 0);
  free (seed);
  free (secret);
  free (line);
  free (text);
}

/* The same order checked directly: draw the coefficients from the seeded
 * stream and evaluate with the reference product.  20000 bytes cross the
 * split's internal chunking.  */
static void
check_random_order (unsigned int k, unsigned int n, size_t len)
{
  static const uint8_t seed[] = "t-shamir order";
  uint8_t *secret = malloc (len), *coef = malloc ((k - 1) * len);
  uint8_t **sh = alloc_shares (n, len);
  unsigned int x, c, bad = 0;
  size_t b;

  if (!secret || !coef)
    T_DIE ("out of memory");
  fill_random (secret, len);
  ks_random_set_test_seed (seed, sizeof seed);
  T_OK (ks_shamir_split (secret, len, k, n, sh));
  ks_random_set_test_seed (seed, sizeof seed);
  ks_random (coef, (k - 1) * len);
  ks_random_set_test_seed (NULL, 0);
  for (x = 1; x <= n; x++)
    for (b = 0; b < len; b++)
      {
        uint8_t y = secret[b], pw = 1;

        for (c = 1; c < k; c++)
          {
            pw = ref_mul (pw, x);
            y ^= ref_mul (coef[(c - 1) * len + b], pw);
          }
        if (sh[x - 1][b] != y)
          bad++;
      }
  if (bad)
    fprintf (stderr, "k=%u n=%u len=%zu: %u bytes differ from the"
             " reference\n", k, n, len, bad);
  T_CHECK (bad == 0);
  free_shares (sh, n);
  free (coef);
  free (secret);
}

static void
test_random_order (void)
{
  check_random_order (4, 6, 23);
  check_random_order (3, 4, 20000);
  check_random_order (2, 255, 8193);
  check_random_order (255, 255, 5);
}


/* Pearson's chi-square of COUNTS (NBINS bins, TOTAL samples) against
 * the uniform distribution.  */
static double
chi_square (const uint32_t *counts, size_t nbins, double total)
{
  double e = total / nbins, s = 0;
  size_t i;

  for (i = 0; i < nbins; i++)
    s += (counts[i] - e) * (counts[i] - e) / e;
  return s;
}

/* Upper bounds for chi-square with 255 and 65535 degrees of freedom at
 * z = 7 (Wilson-Hilferty; p about 1e-12): a correct split stays below
 * with overwhelming probability.  */
#define CHI2_MAX_255   447.0
#define CHI2_MAX_65535 68101.0

#define STAT_LEN 65536

/* Fewer than k shares reveal nothing: for the fixed secrets 00..00 and
 * ff..ff, the bytes of one share of a 2-of-3 split are uniform over 256
 * values, and the byte pairs of two shares of a 3-of-4 split are uniform
 * over 65536 values.  Also: the test itself rejects share == secret and
 * a split whose higher coefficients are zero.  */
static void
test_statistics (void)
{
  static const uint8_t fill[2] = { 0x00, 0xff };
  uint32_t *c1 = calloc (256 * 3, sizeof *c1);
  uint32_t *c2 = calloc (65536 * 2, sizeof *c2);
  uint8_t *secret = malloc (STAT_LEN);
  uint8_t **sh = alloc_shares (4, STAT_LEN);
  unsigned int f, i, round, equal;
  size_t b;
  double chi;

  if (!c1 || !c2 || !secret)
    T_DIE ("out of memory");
  for (f = 0; f < 2; f++)
    {
      memset (secret, fill[f], STAT_LEN);

      /* 2-of-3: each single share, 4 splits = 262144 samples.  */
      memset (c1, 0, 256 * 3 * sizeof *c1);
      for (round = 0; round < 4; round++)
        {
          T_OK (ks_shamir_split (secret, STAT_LEN, 2, 3, sh));
          for (i = 0; i < 3; i++)
            for (b = 0; b < STAT_LEN; b++)
              c1[i * 256 + sh[i][b]]++;
        }
      for (i = 0; i < 3; i++)
        {
          chi = chi_square (c1 + i * 256, 256, 4.0 * STAT_LEN);
          if (chi >= CHI2_MAX_255)
            fprintf (stderr, "secret %02x: share %u of 2-of-3 has chi2"
                     " %.1f\n", fill[f], i + 1, chi);
          T_CHECK (chi < CHI2_MAX_255);
        }

      /* 3-of-4: pairs (1,2) and (3,4), 16 splits = 1 Mi samples, 16
       * per cell.  Also: two shares of a 3-of-4 do not combine to the
       * secret more often than chance (1/256 per byte).  */
      memset (c2, 0, 65536 * 2 * sizeof *c2);
      equal = 0;
      for (round = 0; round < 16; round++)
        {
          T_OK (ks_shamir_split (secret, STAT_LEN, 3, 4, sh));
          for (b = 0; b < STAT_LEN; b++)
            {
              c2[(sh[0][b] << 8) | sh[1][b]]++;
              c2[65536 + ((sh[2][b] << 8) | sh[3][b])]++;
            }
          if (!round)
            {
              const uint8_t *pick[2] = { sh[0], sh[1] };
              uint8_t xs[2] = { 1, 2 }, *out = malloc (STAT_LEN);

              if (!out)
                T_DIE ("out of memory");
              T_OK (ks_shamir_combine (pick, xs, 2, STAT_LEN, out));
              for (b = 0; b < STAT_LEN; b++)
                equal += out[b] == secret[b];
              free (out);
            }
        }
      for (i = 0; i < 2; i++)
        {
          chi = chi_square (c2 + i * 65536, 65536, 16.0 * STAT_LEN);
          if (chi >= CHI2_MAX_65535)
            fprintf (stderr, "secret %02x: share pair %u of 3-of-4 has"
                     " chi2 %.1f\n", fill[f], i, chi);
          T_CHECK (chi < CHI2_MAX_65535);
        }
      /* Binomial (65536, 1/256): mean 256, sd 16; allow 8 sd.  */
      T_CHECK (equal < 256 + 8 * 16);
    }

  /* Power: the same statistics reject broken splits.  share == secret: */
  memset (c1, 0, 256 * sizeof *c1);
  for (b = 0; b < STAT_LEN; b++)
    c1[fill[b & 1]]++;
  T_CHECK (chi_square (c1, 256, STAT_LEN) > CHI2_MAX_255);
  /* 3-of-4 with coefficient 2 always zero: share x = s + a x, so two
   * shares fall on 256 of the 65536 cells.  */
  memset (c2, 0, 65536 * sizeof *c2);
  for (round = 0; round < 16; round++)
    for (b = 0; b < STAT_LEN; b++)
      {
        uint8_t a = (uint8_t)prng ();

        c2[((0xff ^ a) << 8) | (0xff ^ ref_mul (a, 2))]++;
      }
  T_CHECK (chi_square (c2, 65536, 16.0 * STAT_LEN) > CHI2_MAX_65535);

  free_shares (sh, 4);
  free (secret);
  free (c1);
  free (c2);
}


int
main (void)
{
  const char *s = getenv ("KS_TEST_SEED");

  t_init ();
  prng_state = s ? strtoull (s, NULL, 0) : 0;
  if (!prng_state)
    gcry_create_nonce (&prng_state, sizeof prng_state);
  if (!prng_state)
    prng_state = 1;
  fprintf (stderr, "KS_TEST_SEED=%llu\n", (unsigned long long)prng_state);

  test_field ();
  test_kat ();
  test_random_order ();
  test_all_subsets ();
  test_large_n ();
  test_sizes ();
  test_bad_params ();
  test_statistics ();
  return t_done ();
}
