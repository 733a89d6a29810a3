/* t-shamir-tool.c - file front end to ks_shamir_* for the gfshare test
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 *   t-shamir-tool split K N INFILE STEM     writes STEM.001 .. STEM.NNN
 *   t-shamir-tool combine OUTFILE SHARE...  x is taken from ".NNN"
 *
 * Share files are raw share bytes, named as libgfshare names them (the
 * x value in three decimal digits after the last dot).  Exit 0 on
 * success, 1 on any error.
 */
#include <config.h>
#include "t-support.h"

static int
write_file (const char *path, const uint8_t *data, size_t len)
{
  FILE *fp = fopen (path, "wb");

  if (!fp)
    {
      perror (path);
      return -1;
    }
  if ((len && fwrite (data, len, 1, fp) != 1) | fclose (fp))
    {
      perror (path);
      return -1;
    }
  return 0;
}

static int
do_split (unsigned int k, unsigned int n, const char *in, const char *stem)
{
  gpg_error_t err;
  char *data;
  size_t len;
  uint8_t *shares[KS_SHAMIR_MAX_SHARES];
  char path[4096];
  unsigned int i;
  int rc = 1;

  data = t_read_file (in, &len);
  memset (shares, 0, sizeof shares);
  for (i = 0; i < n && i < KS_SHAMIR_MAX_SHARES; i++)
    if (!(shares[i] = malloc (len + 1)))
      goto leave;
  err = ks_shamir_split ((uint8_t *)data, len, k, n, shares);
  if (err)
    {
      fprintf (stderr, "split: %s\n", gpg_strerror (err));
      goto leave;
    }
  for (i = 0; i < n; i++)
    {
      snprintf (path, sizeof path, "%s.%03u", stem, i + 1);
      if (write_file (path, shares[i], len))
        goto leave;
    }
  rc = 0;

 leave:
  for (i = 0; i < KS_SHAMIR_MAX_SHARES; i++)
    free (shares[i]);
  free (data);
  return rc;
}

static int
do_combine (const char *out, int count, char **files)
{
  gpg_error_t err;
  const uint8_t *shares[KS_SHAMIR_MAX_SHARES];
  uint8_t xs[KS_SHAMIR_MAX_SHARES];
  char *data[KS_SHAMIR_MAX_SHARES];
  uint8_t *secret = NULL;
  size_t len = 0, l;
  int c, rc = 1;

  if (count < 1 || count > KS_SHAMIR_MAX_SHARES)
    {
      fprintf (stderr, "combine: bad share count\n");
      return 1;
    }
  memset (data, 0, sizeof data);
  for (c = 0; c < count; c++)
    {
      const char *dot = strrchr (files[c], '.');
      long x;

      if (!dot || strlen (dot) != 4)
        {
          fprintf (stderr, "%s: name does not end in .NNN\n", files[c]);
          goto leave;
        }
      x = strtol (dot + 1, NULL, 10);
      if (x < 1 || x > 255)
        {
          fprintf (stderr, "%s: x out of range\n", files[c]);
          goto leave;
        }
      xs[c] = (uint8_t)x;
      data[c] = t_read_file (files[c], &l);
      if (c && l != len)
        {
          fprintf (stderr, "%s: length differs\n", files[c]);
          goto leave;
        }
      len = l;
      shares[c] = (uint8_t *)data[c];
    }
  secret = gcry_malloc_secure (len + 1);
  if (!secret)
    goto leave;
  err = ks_shamir_combine (shares, xs, count, len, secret);
  if (err)
    {
      fprintf (stderr, "combine: %s\n", gpg_strerror (err));
      goto leave;
    }
  if (write_file (out, secret, len))
    goto leave;
  rc = 0;

 leave:
  ks_free_secret (secret, len + 1);
  for (c = 0; c < count; c++)
    free (data[c]);
  return rc;
}

int
main (int argc, char **argv)
{
  t_init ();
  if (argc == 6 && !strcmp (argv[1], "split"))
    return do_split (atoi (argv[2]), atoi (argv[3]), argv[4], argv[5]);
  if (argc >= 4 && !strcmp (argv[1], "combine"))
    return do_combine (argv[2], argc - 3, argv + 3);
  fprintf (stderr, "usage: t-shamir-tool split K N INFILE STEM\n"
           "       t-shamir-tool combine OUTFILE SHARE...\n");
  return 1;
}
