/* record.c - a record of each backup in the GnuPG home
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * See record.h for the format and the contract.
 */
#include <config.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include "record.h"
#include "file.h"
#include "gpg.h"

void
ks_record_release (ks_record_t *rec)
{
  unsigned int i;

  if (!rec)
    return;
  for (i = 0; i < rec->nlocations; i++)
    gpgrt_free (rec->locations[i]);
  memset (rec, 0, sizeof *rec);
}

static int
profile_is_valid (const char *s)
{
  size_t i, n = strlen (s);

  if (!n || n >= sizeof ((ks_record_t *)0)->profile)
    return 0;
  for (i = 0; i < n; i++)
    if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9')
          || s[i] == '-'))
      return 0;
  return 1;
}

static int
fpr_is_valid (const char *s)
{
  size_t i, n = strlen (s);

  if (n != 40 && n != 64)
    return 0;
  for (i = 0; i < n; i++)
    if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'A' && s[i] <= 'F')))
      return 0;
  return 1;
}

/* An URL with a scheme, printable ASCII without spaces.  */
static int
url_is_valid (const char *s)
{
  size_t i, n = strlen (s);
  const char *colon = strstr (s, "://");

  if (!n || n > KS_RECORD_MAX_URL || !colon || colon == s)
    return 0;
  for (i = 0; i < n; i++)
    if (s[i] <= 0x20 || s[i] >= 0x7f)
      return 0;
  for (i = 0; s + i < colon; i++)
    if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9')
          || s[i] == '+' || s[i] == '-' || s[i] == '.'))
      return 0;
  return 1;
}

/* Decimal digits only, no sign, no leading zero, at most MAX.  */
static gpg_error_t
parse_number (const char *s, uint64_t max, uint64_t *r_v)
{
  uint64_t v = 0;

  if (!*s || (s[0] == '0' && s[1]))
    return gpg_error (GPG_ERR_INV_VALUE);
  for (; *s; s++)
    {
      if (*s < '0' || *s > '9' || v > (max - (uint64_t)(*s - '0')) / 10)
        return gpg_error (GPG_ERR_INV_VALUE);
      v = v * 10 + (uint64_t)(*s - '0');
    }
  *r_v = v;
  return 0;
}

static int
record_is_valid (const ks_record_t *rec)
{
  unsigned int i;

  if (!profile_is_valid (rec->profile)
      || (rec->fpr[0] && !fpr_is_valid (rec->fpr))
      || rec->shares < 1 || rec->shares > 255
      || rec->threshold < 1 || rec->threshold > rec->shares
      || !rec->nlocations || rec->nlocations > KS_RECORD_MAX_LOCATIONS)
    return 0;
  for (i = 0; i < rec->nlocations; i++)
    if (!rec->locations[i] || !url_is_valid (rec->locations[i]))
      return 0;
  return 1;
}

/* One "keyword value" line into REC; SEEN keeps the keywords had.  */
static gpg_error_t
parse_line (char *line, ks_record_t *rec, unsigned int *seen)
{
  static const char *const words[] =
    { "time", "profile", "fingerprint", "shares", "threshold" };
  gpg_error_t err = 0;
  char *value = strchr (line, ' ');
  uint64_t v = 0;
  unsigned int w;

  if (!value || value == line)
    return gpg_error (GPG_ERR_INV_DATA);
  *value++ = 0;
  if (!strcmp (line, "location"))
    {
      if (rec->nlocations == KS_RECORD_MAX_LOCATIONS)
        return gpg_error (GPG_ERR_TOO_MANY);
      if (!url_is_valid (value))
        return gpg_error (GPG_ERR_INV_URI);
      rec->locations[rec->nlocations] = gpgrt_strdup (value);
      if (!rec->locations[rec->nlocations])
        return gpg_error_from_syserror ();
      rec->nlocations++;
      return 0;
    }
  for (w = 0; w < KS_DIM (words) && strcmp (line, words[w]); w++)
    ;
  if (w == KS_DIM (words))
    return 0;  /* a newer writer's keyword */
  if (*seen & (1u << w))
    return gpg_error (GPG_ERR_DUP_KEY);
  *seen |= 1u << w;
  switch (w)
    {
    case 0: err = parse_number (value, UINT64_MAX, &rec->time); break;
    case 1:
      if (!profile_is_valid (value))
        return gpg_error (GPG_ERR_INV_DATA);
      strcpy (rec->profile, value);
      break;
    case 2:
      if (!fpr_is_valid (value))
        return gpg_error (GPG_ERR_INV_DATA);
      strcpy (rec->fpr, value);
      break;
    default:
      err = parse_number (value, 255, &v);
      if (!err && w == 3)
        rec->shares = (unsigned int)v;
      else if (!err)
        rec->threshold = (unsigned int)v;
      break;
    }
  return err;
}

gpg_error_t
ks_record_parse (const void *data, size_t len, ks_record_t *rec)
{
  gpg_error_t err;
  ks_buf_t in;
  char line[KS_RECORD_MAX_LINE + 1];
  unsigned int seen = 0;

  memset (rec, 0, sizeof *rec);
  if (len > KS_RECORD_MAX_FILE)
    return gpg_error (GPG_ERR_TOO_LARGE);
  ks_buf_view (&in, data, len);
  err = ks_buf_get_line (&in, line, sizeof line);
  if (!err && strcmp (line, KS_RECORD_MAGIC))
    err = gpg_error (GPG_ERR_INV_DATA);
  while (!err)
    {
      err = ks_buf_get_line (&in, line, sizeof line);
      if (gpg_err_code (err) == GPG_ERR_EOF)
        {
          err = 0;
          break;
        }
      if (!err)
        err = parse_line (line, rec, &seen);
    }
  /* time, profile, shares and threshold are required.  */
  if (!err && ((seen & 0x1b) != 0x1b || !record_is_valid (rec)))
    err = gpg_error (GPG_ERR_INV_DATA);
  return err;
}

gpg_error_t
ks_record_format (const ks_record_t *rec, char **r_text)
{
  gpg_error_t err = 0;
  gpgrt_stream_t mem;
  unsigned int i;
  void *text = NULL;
  size_t len = 0;

  *r_text = NULL;
  if (!record_is_valid (rec))
    return gpg_error (GPG_ERR_INV_VALUE);
  mem = gpgrt_fopenmem (KS_RECORD_MAX_FILE, "w+");
  if (!mem)
    return gpg_error_from_syserror ();
  gpgrt_fprintf (mem, "%s\ntime %llu\nprofile %s\n", KS_RECORD_MAGIC,
              (unsigned long long)rec->time, rec->profile);
  if (rec->fpr[0])
    gpgrt_fprintf (mem, "fingerprint %s\n", rec->fpr);
  gpgrt_fprintf (mem, "shares %u\nthreshold %u\n", rec->shares, rec->threshold);
  for (i = 0; i < rec->nlocations; i++)
    gpgrt_fprintf (mem, "location %s\n", rec->locations[i]);
  gpgrt_fputc (0, mem);
  if (gpgrt_ferror (mem) || gpgrt_fclose_snatch (mem, &text, &len))
    {
      err = gpg_error_from_syserror ();
      if (!err)
        err = gpg_error (GPG_ERR_TOO_LARGE);
      gpgrt_fclose (mem);
    }
  else
    *r_text = text;
  return err;
}

/* $GNUPGHOME/keysafe/records (gpgrt_malloc'd), made when MAKE.  */
static gpg_error_t
records_dir (const char *homedir, int make, char **r_dir)
{
  gpg_error_t err;
  char *home = NULL, *top = NULL, *dir = NULL;

  *r_dir = NULL;
  err = ks_gpg_homedir (homedir, &home);
  if (err)
    return err;
  top = gpgrt_bsprintf ("%s/keysafe", home);
  dir = gpgrt_bsprintf ("%s/keysafe/records", home);
  if (!top || !dir)
    err = gpg_error_from_syserror ();
  else if (make && ((mkdir (top, 0700) && errno != EEXIST)
                    || (mkdir (dir, 0700) && errno != EEXIST)))
    err = gpg_error_from_syserror ();
  if (!err)
    {
      *r_dir = dir;
      dir = NULL;
    }
  gpgrt_free (top);
  gpgrt_free (dir);
  ks_free (home);
  return err;
}

gpg_error_t
ks_record_add (const char *homedir, const ks_record_t *rec, char **r_path)
{
  gpg_error_t err;
  char *dir = NULL, *text = NULL, *path = NULL;
  char stamp[32], hex[17];
  uint8_t rnd[8];
  struct iovec iov;
  time_t t = (time_t)rec->time;
  struct tm tm;

  if (r_path)
    *r_path = NULL;
  err = ks_record_format (rec, &text);
  if (err)
    goto leave;
  err = records_dir (homedir, 1, &dir);
  if (err)
    goto leave;
  /* The time first, so a listing sorts by it; random bits so two
   * backups in one second get two files.  */
  if (!gmtime_r (&t, &tm) || !strftime (stamp, sizeof stamp,
                                        "%Y%m%dT%H%M%SZ", &tm))
    {
      err = gpg_error (GPG_ERR_INV_TIME);
      goto leave;
    }
  gcry_create_nonce (rnd, sizeof rnd);
  ks_hex_encode (rnd, sizeof rnd, hex);
  path = gpgrt_bsprintf ("%s/%s-%s.rec", dir, stamp, hex);
  if (!path)
    {
      err = gpg_error_from_syserror ();
      goto leave;
    }
  iov.iov_base = text;
  iov.iov_len = strlen (text);
  err = ks_file_write_atomic (path, &iov, 1);
  if (!err && r_path)
    {
      *r_path = path;
      path = NULL;
    }

 leave:
  gpgrt_free (dir);
  gpgrt_free (text);
  gpgrt_free (path);
  return err;
}

/* Read and parse the record file NAME in the directory DIR.  */
static gpg_error_t
read_one (const char *dir, const char *name, ks_record_t *rec)
{
  gpg_error_t err;
  char path[4096];
  uint8_t *data = NULL;
  size_t len;

  memset (rec, 0, sizeof *rec);
  if (snprintf (path, sizeof path, "%s/%s", dir, name) >= (int)sizeof path)
    return gpg_error (GPG_ERR_TOO_LARGE);
  err = ks_file_read_at (AT_FDCWD, path, KS_RECORD_MAX_FILE, 0, &data, &len);
  if (!err)
    err = ks_record_parse (data, len, rec);
  ks_free (data);
  return err;
}

static int
cmp_time (const void *a, const void *b)
{
  const ks_record_t *x = a, *y = b;

  return x->time < y->time ? -1 : x->time > y->time;
}

static int
is_record_file (const char *name)
{
  size_t n = strlen (name);

  return name[0] != '.' && n > 4 && !strcmp (name + n - 4, ".rec");
}

gpg_error_t
ks_record_list (const char *homedir, ks_record_t **r_recs, size_t *r_n,
                unsigned int *r_bad)
{
  gpg_error_t err;
  char *dir = NULL, **names = NULL;
  ks_record_t *recs = NULL;
  size_t nnames = 0, n = 0, i;
  unsigned int bad = 0;

  *r_recs = NULL;
  *r_n = 0;
  if (r_bad)
    *r_bad = 0;
  err = records_dir (homedir, 0, &dir);
  if (!err)
    err = ks_dir_list (dir, is_record_file, KS_RECORD_MAX_FILES, &names,
                       &nnames);
  if (err || !nnames)
    goto leave;
  recs = ks_calloc (nnames, sizeof *recs);
  if (!recs)
    {
      err = gpg_error_from_syserror ();
      goto leave;
    }
  for (i = 0; i < nnames; i++)
    if (read_one (dir, names[i], recs + n))
      {
        ks_record_release (recs + n);
        bad++;
      }
    else
      n++;
  if (n > 1)
    qsort (recs, n, sizeof *recs, cmp_time);
  *r_recs = recs;
  *r_n = n;
  recs = NULL;
  n = 0;
  if (r_bad)
    *r_bad = bad;

 leave:
  ks_record_free_list (recs, n);
  ks_dir_list_free (names, nnames);
  gpgrt_free (dir);
  return err;
}

void
ks_record_free_list (ks_record_t *recs, size_t n)
{
  size_t i;

  for (i = 0; i < n; i++)
    ks_record_release (recs + i);
  ks_free (recs);
}
