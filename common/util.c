/* util.c - small helpers shared by all of keysafe
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>
#include <errno.h>
#include <time.h>
#include <unistd.h>
#include "util.h"

void *
ks_malloc (size_t n)
{
  return gcry_malloc (n);
}

void *
ks_calloc (size_t n, size_t m)
{
  return gcry_calloc (n, m);
}

void *
ks_malloc_secure (size_t n)
{
  return gcry_malloc_secure (n);
}

void *
ks_realloc (void *p, size_t n)
{
  return gcry_realloc (p, n);
}

char *
ks_strdup (const char *s)
{
  return gcry_strdup (s);
}

char *
ks_strdup_gpgrt (char *s)
{
  char *copy;

  if (!s)
    return NULL;
  copy = gcry_strdup (s);
  gpgrt_free (s);
  return copy;
}

void
ks_free (void *p)
{
  gcry_free (p);
}

void
ks_free_secret (void *p, size_t n)
{
  if (!p)
    return;
  ks_wipe (p, n);
  gcry_free (p);
}

int
ks_memeq (const void *a, const void *b, size_t n)
{
  const volatile uint8_t *x = a;
  const volatile uint8_t *y = b;
  uint8_t d = 0;
  size_t i;

  for (i = 0; i < n; i++)
    d |= x[i] ^ y[i];
  /* (d - 1) >> 8 is 0xff..ff only for d == 0, without a branch.  */
  return (int)((((unsigned int)d - 1) >> 8) & 1);
}

void
ks_put_be32 (uint8_t *p, uint32_t v)
{
  p[0] = v >> 24; p[1] = v >> 16; p[2] = v >> 8; p[3] = v;
}

uint32_t
ks_get_be32 (const uint8_t *p)
{
  return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16)
         | ((uint32_t)p[2] << 8) | p[3];
}

void
ks_put_be64 (uint8_t *p, uint64_t v)
{
  ks_put_be32 (p, (uint32_t)(v >> 32));
  ks_put_be32 (p + 4, (uint32_t)v);
}

uint64_t
ks_get_be64 (const uint8_t *p)
{
  return ((uint64_t)ks_get_be32 (p) << 32) | ks_get_be32 (p + 4);
}

void
ks_hex_encode (const uint8_t *in, size_t len, char *out)
{
  static const char digits[] = "0123456789abcdef";
  size_t i;

  for (i = 0; i < len; i++)
    {
      out[2 * i] = digits[in[i] >> 4];
      out[2 * i + 1] = digits[in[i] & 15];
    }
  out[2 * len] = 0;
}

int
ks_hex_value (int c)
{
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  return -1;
}

gpg_error_t
ks_hex_decode (const char *hex, uint8_t *out, size_t len)
{
  size_t i;

  if (strlen (hex) != 2 * len)
    return gpg_error (GPG_ERR_INV_VALUE);
  for (i = 0; i < len; i++)
    {
      int hi = ks_hex_value (hex[2 * i]);
      int lo = ks_hex_value (hex[2 * i + 1]);

      if (hi < 0 || lo < 0)
        return gpg_error (GPG_ERR_INV_VALUE);
      out[i] = (uint8_t)(hi << 4 | lo);
    }
  return 0;
}

uint64_t
ks_now_ms (void)
{
  struct timespec ts;

  clock_gettime (CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

unsigned int
ks_ncpus (void)
{
  long n = sysconf (_SC_NPROCESSORS_ONLN);

  return n > 0 ? (unsigned int)n : 1;
}

gpg_error_t
ks_write_all (int fd, const void *buf, size_t len)
{
  const uint8_t *p = buf;
  ssize_t n;

  while (len)
    {
      n = write (fd, p, len);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        return gpg_error_from_syserror ();
      p += n;
      len -= n;
    }
  return 0;
}

int
ks_hex_is_lower (const char *s, size_t len)
{
  size_t i;

  for (i = 0; i < len; i++)
    if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
      return 0;
  return 1;
}
