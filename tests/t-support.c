/* t-support.c - tiny helpers for the C tests
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>
#include "t-support.h"

int t_errors;
int t_checks;

void
t_init (void)
{
  gpg_error_t err = ks_init ();

  if (err)
    {
      fprintf (stderr, "ks_init: %s\n", gpg_strerror (err));
      exit (99);
    }
}

int
t_done (void)
{
  fprintf (stderr, "%d checks, %d failed\n", t_checks, t_errors);
  return t_errors ? 1 : 0;
}

uint8_t *
t_unhex (const char *hex, size_t *r_len)
{
  size_t len = strlen (hex) / 2;
  uint8_t *buf = malloc (len + 1);

  if (!buf || strlen (hex) % 2 || ks_hex_decode (hex, buf, len))
    T_DIE ("bad hex in test data");
  *r_len = len;
  return buf;
}

char *
t_read_file (const char *path, size_t *r_len)
{
  FILE *fp = fopen (path, "rb");
  char *buf = NULL;
  size_t len = 0, alloc = 0, n;

  if (!fp)
    {
      perror (path);
      exit (99);
    }
  for (;;)
    {
      if (alloc - len < 4096)
        {
          alloc = alloc * 2 + 4096;
          buf = realloc (buf, alloc + 1);
          if (!buf)
            T_DIE ("out of memory");
        }
      n = fread (buf + len, 1, alloc - len, fp);
      len += n;
      if (!n)
        break;
    }
  fclose (fp);
  buf[len] = 0;
  *r_len = len;
  return buf;
}
