/* run-corpus.c - run a fuzz harness over files, without libFuzzer
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Usage: fuzz-X FILE-OR-DIR...  Each file is one input.
 */
#include <config.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "fuzz.h"

static int
run_file (const char *path)
{
  FILE *fp = fopen (path, "rb");
  uint8_t *buf;
  size_t len;
  long n;

  if (!fp)
    {
      perror (path);
      return 99;
    }
  fseek (fp, 0, SEEK_END);
  n = ftell (fp);
  rewind (fp);
  buf = malloc (n > 0 ? (size_t)n : 1);
  if (!buf)
    return 99;
  len = fread (buf, 1, n > 0 ? (size_t)n : 0, fp);
  fclose (fp);
  LLVMFuzzerTestOneInput (buf, len);
  free (buf);
  return 0;
}

int
main (int argc, char **argv)
{
  int i, count = 0;

  for (i = 1; i < argc; i++)
    {
      struct stat st;
      DIR *dir;
      struct dirent *de;
      char path[4096];

      if (stat (argv[i], &st))
        {
          perror (argv[i]);
          return 99;
        }
      if (!S_ISDIR (st.st_mode))
        {
          if (run_file (argv[i]))
            return 99;
          count++;
          continue;
        }
      dir = opendir (argv[i]);
      if (!dir)
        return 99;
      while ((de = readdir (dir)))
        {
          if (de->d_name[0] == '.')
            continue;
          snprintf (path, sizeof path, "%s/%s", argv[i], de->d_name);
          if (run_file (path))
            return 99;
          count++;
        }
      closedir (dir);
    }
  fprintf (stderr, "%d inputs ran\n", count);
  return count ? 0 : 99;
}
