/* t-util.c - common/util.c and common/buffer.c
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>
#include <stdint.h>
#include <time.h>
#include "t-support.h"

static void
check_memeq (void)
{
  uint8_t a[64], b[64];
  size_t i;
  unsigned int bit;

  for (i = 0; i < sizeof a; i++)
    a[i] = b[i] = (uint8_t)(i * 7 + 1);
  T_CHECK (ks_memeq (a, b, sizeof a) == 1);
  T_CHECK (ks_memeq (a, b, 0) == 1);
  T_CHECK (ks_memeq (a, a, sizeof a) == 1);
  /* Every single-bit difference at every position is seen, and the
   * answer is exactly 0 or 1 (callers may compare with == 1).  */
  for (i = 0; i < sizeof a; i++)
    for (bit = 0; bit < 8; bit++)
      {
        b[i] ^= (uint8_t)(1u << bit);
        T_CHECK (ks_memeq (a, b, sizeof a) == 0);
        T_CHECK (ks_memeq (a, b, i) == 1);
        b[i] ^= (uint8_t)(1u << bit);
      }
  memset (a, 0, sizeof a);
  memset (b, 0xff, sizeof b);
  T_CHECK (ks_memeq (a, b, sizeof a) == 0);
}

static void
check_hex (void)
{
  static const uint8_t bytes[] = { 0x00, 0x01, 0x7f, 0x80, 0xab, 0xcd,
                                   0xef, 0xff, 0x10, 0x9a };
  char hex[2 * sizeof bytes + 1];
  uint8_t out[sizeof bytes + 4];
  unsigned int c;

  memset (hex, 'x', sizeof hex);
  ks_hex_encode (bytes, sizeof bytes, hex);
  T_CHECK (!strcmp (hex, "00017f80abcdefff109a"));
  ks_hex_encode (bytes, 0, hex);
  T_CHECK (hex[0] == 0);

  T_OK (ks_hex_decode ("00017f80abcdefff109a", out, sizeof bytes));
  T_CHECK (!memcmp (out, bytes, sizeof bytes));
  T_OK (ks_hex_decode ("00017F80ABCDEFFF109A", out, sizeof bytes));
  T_CHECK (!memcmp (out, bytes, sizeof bytes));
  T_OK (ks_hex_decode ("", out, 0));

  /* Wrong lengths: odd, short, long.  */
  T_CHECK_ERR (ks_hex_decode ("0", out, 1), GPG_ERR_INV_VALUE);
  T_CHECK_ERR (ks_hex_decode ("000", out, 2), GPG_ERR_INV_VALUE);
  T_CHECK_ERR (ks_hex_decode ("0000", out, 1), GPG_ERR_INV_VALUE);
  T_CHECK_ERR (ks_hex_decode ("00", out, 2), GPG_ERR_INV_VALUE);
  T_CHECK_ERR (ks_hex_decode ("", out, 1), GPG_ERR_INV_VALUE);

  /* Every byte value that is not a hex digit is refused in either
   * position.  */
  for (c = 1; c < 256; c++)
    {
      char bad[3];
      int is_hex = ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')
                    || (c >= 'A' && c <= 'F'));

      if (is_hex)
        continue;
      bad[0] = (char)c; bad[1] = '0'; bad[2] = 0;
      T_CHECK_ERR (ks_hex_decode (bad, out, 1), GPG_ERR_INV_VALUE);
      bad[0] = '0'; bad[1] = (char)c;
      T_CHECK_ERR (ks_hex_decode (bad, out, 1), GPG_ERR_INV_VALUE);
    }
  T_CHECK_ERR (ks_hex_decode (" 0a", out, 1), GPG_ERR_INV_VALUE);
  T_CHECK_ERR (ks_hex_decode ("0x", out, 1), GPG_ERR_INV_VALUE);

  /* Round trip of every byte value.  */
  {
    uint8_t all[256], back[256];
    char allhex[513];

    for (c = 0; c < 256; c++)
      all[c] = (uint8_t)c;
    ks_hex_encode (all, 256, allhex);
    T_CHECK (strlen (allhex) == 512);
    T_OK (ks_hex_decode (allhex, back, 256));
    T_CHECK (!memcmp (all, back, 256));
  }
}

static void
check_be (void)
{
  uint8_t p[9];

  memset (p, 0xee, sizeof p);
  ks_put_be32 (p, 0x01020304u);
  T_CHECK (p[0] == 1 && p[1] == 2 && p[2] == 3 && p[3] == 4 && p[4] == 0xee);
  T_CHECK (ks_get_be32 (p) == 0x01020304u);
  ks_put_be32 (p, 0xfffffffeu);
  T_CHECK (p[0] == 0xff && p[3] == 0xfe);
  T_CHECK (ks_get_be32 (p) == 0xfffffffeu);

  memset (p, 0xee, sizeof p);
  ks_put_be64 (p, 0x0102030405060708ull);
  T_CHECK (p[0] == 1 && p[3] == 4 && p[4] == 5 && p[7] == 8 && p[8] == 0xee);
  T_CHECK (ks_get_be64 (p) == 0x0102030405060708ull);
  ks_put_be64 (p, 0xfedcba9876543210ull);
  T_CHECK (p[0] == 0xfe && p[7] == 0x10);
  T_CHECK (ks_get_be64 (p) == 0xfedcba9876543210ull);
  ks_put_be64 (p, 0);
  T_CHECK (ks_get_be64 (p) == 0);
  ks_put_be64 (p, UINT64_MAX);
  T_CHECK (ks_get_be64 (p) == UINT64_MAX);
  /* Unaligned access is fine.  */
  ks_put_be32 (p + 1, 0xa1b2c3d4u);
  T_CHECK (ks_get_be32 (p + 1) == 0xa1b2c3d4u && p[1] == 0xa1);
}

static void
check_misc (void)
{
  uint8_t *s;

  T_CHECK (ks_ncpus () >= 1);
  ks_free_secret (NULL, 10);
  s = ks_malloc_secure (32);
  T_CHECK (s != NULL && gcry_is_secure (s));
  if (s)
    {
      memset (s, 0x5a, 32);
      ks_free_secret (s, 32);
    }
}

/* The allocator family, and gpgrt results taken over at the boundary.  */
static void
check_alloc (void)
{
  char *p, *q;
  uint32_t *z;
  uint64_t t0, t1;
  struct timespec pause = { 0, 20 * 1000 * 1000 };

  p = ks_strdup ("abc");
  T_CHECK (p && !strcmp (p, "abc") && !gcry_is_secure (p));
  q = ks_realloc (p, 100);
  T_CHECK (q && !strcmp (q, "abc"));
  ks_free (q);
  z = ks_calloc (4, sizeof *z);
  T_CHECK (z && !z[0] && !z[3]);
  ks_free (z);
  ks_free (NULL);
  T_CHECK (ks_strdup_gpgrt (NULL) == NULL);
  p = ks_strdup_gpgrt (gpgrt_bsprintf ("%s-%d", "x", 42));
  T_CHECK (p && !strcmp (p, "x-42"));
  ks_free (p);

  /* The monotonic clock moves forward, in milliseconds.  */
  t0 = ks_now_ms ();
  nanosleep (&pause, NULL);
  t1 = ks_now_ms ();
  T_CHECK (t1 >= t0 + 20 && t1 < t0 + 20000);
}

static void
check_buffer (void)
{
  ks_buf_t *buf = NULL;
  uint8_t data[1000];
  uint8_t *snapshot;
  size_t i;

  for (i = 0; i < sizeof data; i++)
    data[i] = (uint8_t)(i * 13 + 5);

  /* The maximum is a hard limit.  */
  T_OK (ks_buf_new (100, 0, &buf));
  if (!buf)
    T_DIE ("ks_buf_new");
  T_CHECK (buf->len == 0 && buf->max == 100 && !buf->secure);
  T_OK (ks_buf_append (buf, data, 60));
  T_CHECK (buf->len == 60 && !memcmp (buf->data, data, 60));
  snapshot = malloc (60);
  if (!snapshot)
    T_DIE ("out of memory");
  memcpy (snapshot, buf->data, 60);
  T_CHECK_ERR (ks_buf_append (buf, data + 60, 41), GPG_ERR_TOO_LARGE);
  T_CHECK (buf->len == 60 && !memcmp (buf->data, snapshot, 60));
  T_CHECK_ERR (ks_buf_append (buf, data, SIZE_MAX), GPG_ERR_TOO_LARGE);
  T_CHECK_ERR (ks_buf_append (buf, data, SIZE_MAX - 30), GPG_ERR_TOO_LARGE);
  T_CHECK (buf->len == 60 && !memcmp (buf->data, snapshot, 60));
  T_OK (ks_buf_append (buf, data + 60, 40));
  T_CHECK (buf->len == 100 && !memcmp (buf->data, data, 100));
  T_OK (ks_buf_append (buf, data, 0));
  T_CHECK (buf->len == 100);
  T_CHECK_ERR (ks_buf_append (buf, data, 1), GPG_ERR_TOO_LARGE);
  T_CHECK (buf->len == 100 && !memcmp (buf->data, data, 100));
  free (snapshot);

  /* Clear wipes and empties but keeps the buffer usable.  */
  ks_buf_clear (buf);
  T_CHECK (buf->len == 0);
  for (i = 0; i < buf->alloc; i++)
    if (buf->data[i])
      break;
  T_CHECK (i == buf->alloc);
  T_OK (ks_buf_append (buf, "abc", 3));
  T_CHECK (buf->len == 3 && !memcmp (buf->data, "abc", 3));
  KS_BUF_FREE (buf);
  T_CHECK (buf == NULL);
  ks_buf_free (NULL);

  /* A zero maximum takes nothing.  */
  T_OK (ks_buf_new (0, 0, &buf));
  T_OK (ks_buf_append (buf, data, 0));
  T_CHECK_ERR (ks_buf_append (buf, data, 1), GPG_ERR_TOO_LARGE);
  T_CHECK (buf->len == 0);
  KS_BUF_FREE (buf);

  /* Growth over many appends keeps every byte, up to the maximum.  */
  T_OK (ks_buf_new (100000, 0, &buf));
  for (i = 0; i < 100; i++)
    T_OK (ks_buf_append (buf, data, sizeof data));
  T_CHECK (buf->len == 100000);
  T_CHECK (buf->alloc >= buf->len && buf->alloc <= buf->max);
  for (i = 0; i < 100; i++)
    if (memcmp (buf->data + i * sizeof data, data, sizeof data))
      break;
  T_CHECK (i == 100);
  T_CHECK_ERR (ks_buf_append (buf, data, 1), GPG_ERR_TOO_LARGE);
  T_CHECK (buf->len == 100000);
  KS_BUF_FREE (buf);

  /* The secure flag puts the bytes in libgcrypt's secure memory, also
   * after the buffer has grown; without it they are not.  */
  T_OK (ks_buf_new (64 * 1024, 1, &buf));
  T_CHECK (buf->secure == 1);
  T_OK (ks_buf_append (buf, "secret", 6));
  T_CHECK (gcry_is_secure (buf->data));
  for (i = 0; i < 20; i++)
    T_OK (ks_buf_append (buf, data, sizeof data));
  T_CHECK (buf->len == 6 + 20 * sizeof data);
  T_CHECK (gcry_is_secure (buf->data));
  T_CHECK (!memcmp (buf->data, "secret", 6));
  T_CHECK (!memcmp (buf->data + 6 + 19 * sizeof data, data, sizeof data));
  KS_BUF_FREE (buf);

  T_OK (ks_buf_new (64, 0, &buf));
  T_OK (ks_buf_append (buf, "x", 1));
  T_CHECK (!gcry_is_secure (buf->data));
  KS_BUF_FREE (buf);

  /* Any non-zero secure argument means secure.  */
  T_OK (ks_buf_new (64, 42, &buf));
  T_CHECK (buf->secure == 1);
  KS_BUF_FREE (buf);
}

int
main (void)
{
  t_init ();
  check_memeq ();
  check_hex ();
  check_be ();
  check_misc ();
  check_alloc ();
  check_buffer ();
  return t_done ();
}
