/* t-dirstore-tool.c - drive a directory location from t-dirstore.sh
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 *   put URL NAME FILE   PUT FILE's bytes; prints "status N" or "error: ..."
 *   get URL NAME FILE   GET into FILE; prints "status N" or "error: ..."
 *   loop URL COUNT SIZE put COUNT test shards of SIZE bytes, one by one
 *   fill URL SIZE       put test shards until the disk is full
 *   verify DIR SIZE     every shard in the tree is a whole test shard
 *   present URL         prints "present" or the error
 *
 * A test shard's name is SHA-256 ("t" || be32 i) and its bytes are
 * SHA-256 (name) repeated, so verify can tell a whole shard from a torn
 * one without a list of what was written.
 */
#include <config.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include "keysafe.h"
#include "t-support.h"
#include "dirstore.h"

#define MAX_SHARD (1024 * 1024)

static void
test_name (uint32_t i, char *name)
{
  uint8_t in[5] = { 't' }, md[32];

  ks_put_be32 (in + 1, i);
  gcry_md_hash_buffer (GCRY_MD_SHA256, md, in, sizeof in);
  ks_hex_encode (md, sizeof md, name);
}

static uint8_t *
test_bytes (const char *name, size_t size)
{
  uint8_t md[32], *p = malloc (size ? size : 1);
  size_t i;

  if (!p)
    T_DIE ("out of memory");
  gcry_md_hash_buffer (GCRY_MD_SHA256, md, name, KS_NAME_HEX_LEN);
  for (i = 0; i < size; i++)
    p[i] = md[i % sizeof md];
  return p;
}

static int
report (ks_xfer_t *x)
{
  if (x->status)
    printf ("status %ld\n", x->status);
  else
    printf ("error: %s (%s)\n", x->errtext, gpg_strerror (x->err));
  return x->status ? 0 : 1;
}

static int
cmd_xfer (int put, char **argv)
{
  ks_xfer_t x;
  size_t len = 0;
  uint8_t *body = NULL;
  FILE *fp;
  int rc;

  memset (&x, 0, sizeof x);
  x.base = argv[0];
  x.method = put ? KS_HTTP_PUT : KS_HTTP_GET;
  snprintf (x.name, sizeof x.name, "%s", argv[1]);
  x.maxresp = MAX_SHARD;
  if (put)
    {
      body = (uint8_t *)t_read_file (argv[2], &len);
      x.body = body;
      x.bodylen = len;
    }
  ks_dirstore_xfer (&x);
  rc = report (&x);
  if (!put && x.status == 200)
    {
      fp = fopen (argv[2], "wb");
      if (!fp || fwrite (x.resp->data, 1, x.resp->len, fp) != x.resp->len
          || fclose (fp))
        T_DIE ("write failed");
    }
  ks_buf_free (x.resp);
  free (body);
  return rc;
}

/* Put test shards from number 0 up to COUNT (0: until an error).  */
static int
cmd_loop (const char *url, unsigned long count, size_t size, int until_full)
{
  gpg_error_t err;
  char name[KS_NAME_HEX_LEN + 1];
  unsigned long i;

  for (i = 0; !count || i < count; i++)
    {
      uint8_t *p;

      test_name (i, name);
      p = test_bytes (name, size);
      err = ks_dirstore_put (url, name, p, size);
      free (p);
      if (err)
        {
          printf ("stored %lu, then: %s\n", i, gpg_strerror (err));
          return until_full && gpg_err_code (err) == GPG_ERR_ENOSPC ? 0 : 1;
        }
    }
  printf ("stored %lu\n", i);
  return 0;
}

/* Walk DIR/ab/cd/: whole test shards and temp files only.  */
static int
cmd_verify (const char *dir, size_t size)
{
  char path[4096];
  DIR *d1, *d2, *d3;
  struct dirent *e1, *e2, *e3;
  unsigned long shards = 0, temps = 0, bad = 0;

  if (!(d1 = opendir (dir)))
    T_DIE ("cannot open the directory");
  while ((e1 = readdir (d1)))
    {
      if (e1->d_name[0] == '.')
        continue;
      snprintf (path, sizeof path, "%s/%s", dir, e1->d_name);
      if (!(d2 = opendir (path)))
        T_DIE ("not a directory at the first level");
      while ((e2 = readdir (d2)))
        {
          if (e2->d_name[0] == '.')
            continue;
          snprintf (path, sizeof path, "%s/%s/%s", dir, e1->d_name,
                    e2->d_name);
          if (!(d3 = opendir (path)))
            T_DIE ("not a directory at the second level");
          while ((e3 = readdir (d3)))
            {
              size_t len;
              char *data;
              uint8_t *want;

              if (e3->d_name[0] == '.')
                continue;
              if (!strncmp (e3->d_name, "tmp.", 4))
                {
                  temps++;
                  continue;
                }
              snprintf (path, sizeof path, "%s/%s/%s/%s", dir, e1->d_name,
                        e2->d_name, e3->d_name);
              data = t_read_file (path, &len);
              want = test_bytes (e3->d_name, size);
              if (!ks_name_is_valid (e3->d_name, strlen (e3->d_name))
                  || strncmp (e3->d_name, e1->d_name, 2)
                  || strncmp (e3->d_name + 2, e2->d_name, 2)
                  || len != size || memcmp (data, want, size))
                {
                  fprintf (stderr, "bad shard: %s\n", path);
                  bad++;
                }
              else
                shards++;
              free (want);
              free (data);
            }
          closedir (d3);
        }
      closedir (d2);
    }
  closedir (d1);
  printf ("shards %lu temps %lu bad %lu\n", shards, temps, bad);
  return bad ? 1 : 0;
}

int
main (int argc, char **argv)
{
  gpg_error_t err;

  t_init ();
  if (argc == 5 && !strcmp (argv[1], "put"))
    return cmd_xfer (1, argv + 2);
  if (argc == 5 && !strcmp (argv[1], "get"))
    return cmd_xfer (0, argv + 2);
  if (argc == 5 && !strcmp (argv[1], "loop"))
    return cmd_loop (argv[2], strtoul (argv[3], NULL, 10),
                     strtoul (argv[4], NULL, 10), 0);
  if (argc == 4 && !strcmp (argv[1], "fill"))
    return cmd_loop (argv[2], 0, strtoul (argv[3], NULL, 10), 1);
  if (argc == 4 && !strcmp (argv[1], "verify"))
    return cmd_verify (argv[2], strtoul (argv[3], NULL, 10));
  if (argc == 3 && !strcmp (argv[1], "present"))
    {
      err = ks_dirstore_is_present (argv[2]);
      printf ("%s\n", err ? gpg_strerror (err) : "present");
      return !!err;
    }
  if (argc == 3 && !strcmp (argv[1], "create"))
    {
      err = ks_dirstore_create (argv[2]);
      printf ("%s\n", err ? gpg_strerror (err) : "created");
      return !!err;
    }
  fprintf (stderr, "usage: t-dirstore-tool put|get|loop|fill|verify|present|create ...\n");
  return 99;
}
