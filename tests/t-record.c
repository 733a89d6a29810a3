/* t-record.c - the backup record: format, parser limits, files
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/stat.h>
#include "t-support.h"
#include "record.h"

#define FPR "0123456789ABCDEF0123456789ABCDEF01234567"

static void
fill (ks_record_t *rec, uint64_t time, unsigned int nloc)
{
  unsigned int i;

  memset (rec, 0, sizeof *rec);
  rec->time = time;
  strcpy (rec->profile, "test");
  strcpy (rec->fpr, FPR);
  rec->shares = nloc;
  rec->threshold = nloc > 1 ? 2 : 1;
  for (i = 0; i < nloc; i++)
    {
      rec->locations[i] = gpgrt_bsprintf (i % 2 ? "file:///media/usb%u/ks"
                                          : "http://s%u.example.onion", i);
      if (!rec->locations[i])
        T_DIE ("out of memory");
      rec->nlocations++;
    }
}

static gpg_error_t
parse_text (const char *text)
{
  ks_record_t rec;
  gpg_error_t err = ks_record_parse (text, strlen (text), &rec);

  ks_record_release (&rec);
  return err;
}

#define HEAD "keysafe-record-1\ntime 1764787200\nprofile default\n"
#define TAIL "shares 3\nthreshold 2\nlocation http://a.onion\n"

static void
test_parse (void)
{
  ks_record_t rec;
  const char *good = HEAD "fingerprint " FPR "\n" TAIL
    "location file:///media/usb/ks\r\nlocation https://c.onion:8080\n";
  char *big;
  size_t i;

  T_OK (ks_record_parse (good, strlen (good), &rec));
  T_CHECK (rec.time == 1764787200);
  T_CHECK (!strcmp (rec.profile, "default"));
  T_CHECK (!strcmp (rec.fpr, FPR));
  T_CHECK (rec.shares == 3 && rec.threshold == 2);
  T_CHECK (rec.nlocations == 3);
  T_CHECK (!strcmp (rec.locations[1], "file:///media/usb/ks"));
  ks_record_release (&rec);

  T_OK (parse_text (HEAD TAIL));
  T_OK (parse_text (HEAD "newer-keyword whatever it says\n" TAIL));
  T_OK (parse_text (HEAD TAIL "no-final-newline 1"));
  T_CHECK (parse_text ("keysafe-record-2\ntime 1\nprofile x\n" TAIL));
  T_CHECK (parse_text (""));
  T_CHECK (parse_text (HEAD "shares 3\nthreshold 2\n"));      /* no location */
  T_CHECK (parse_text (HEAD "shares 2\nthreshold 3\nlocation http://a\n"));
  T_CHECK (parse_text (HEAD "shares 0\nthreshold 0\nlocation http://a\n"));
  T_CHECK (parse_text (HEAD "shares 256\nthreshold 2\nlocation http://a\n"));
  T_CHECK (parse_text (HEAD "shares 03\nthreshold 2\nlocation http://a\n"));
  T_CHECK (parse_text (HEAD "shares +3\nthreshold 2\nlocation http://a\n"));
  T_CHECK (parse_text (HEAD TAIL "time 5\n"));                 /* twice */
  T_CHECK (parse_text ("keysafe-record-1\ntime 18446744073709551616\n"
                       "profile x\n" TAIL));                 /* 2^64 */
  T_OK (parse_text ("keysafe-record-1\ntime 18446744073709551615\n"
                    "profile x\n" TAIL));
  T_CHECK (parse_text (HEAD "fingerprint " FPR "0\n" TAIL));
  T_CHECK (parse_text (HEAD "fingerprint 0123456789abcdef0123456789abcdef"
                       "01234567\n" TAIL));                  /* lowercase */
  T_CHECK (parse_text ("keysafe-record-1\ntime 1\nprofile Default\n" TAIL));
  T_CHECK (parse_text (HEAD TAIL "location no-scheme\n"));
  T_CHECK (parse_text (HEAD TAIL "location http://a b\n"));
  T_CHECK (parse_text (HEAD TAIL "location \n"));
  T_CHECK (parse_text (HEAD TAIL "location http://\xc3\xa4\n"));
  T_CHECK (parse_text (HEAD TAIL "justakeyword\n"));
  T_CHECK (parse_text (HEAD TAIL " location http://b\n"));
  {
    static const char nul[] = HEAD TAIL "location http://x\0y\n";

    T_CHECK (ks_record_parse (nul, sizeof nul - 1, &rec));
    ks_record_release (&rec);
  }

  /* Too many locations, an overlong line, a too large file.  */
  big = malloc (KS_RECORD_MAX_FILE + 100);
  if (!big)
    T_DIE ("out of memory");
  strcpy (big, HEAD TAIL);
  for (i = 1; i < KS_RECORD_MAX_LOCATIONS; i++)
    strcat (big, "location http://a.onion\n");
  T_OK (parse_text (big));
  strcat (big, "location http://a.onion\n");
  T_CHECK_ERR (parse_text (big), GPG_ERR_TOO_MANY);
  strcpy (big, HEAD TAIL "location http://");
  for (i = 0; i < KS_RECORD_MAX_LINE; i++)
    strcat (big, "a");
  T_CHECK_ERR (parse_text (big), GPG_ERR_TOO_LARGE);
  memset (big, '\n', KS_RECORD_MAX_FILE + 1);
  memcpy (big, HEAD TAIL, strlen (HEAD TAIL));
  T_CHECK_ERR (ks_record_parse (big, KS_RECORD_MAX_FILE + 1, &rec),
               GPG_ERR_TOO_LARGE);
  ks_record_release (&rec);
  free (big);
}

static void
test_format (void)
{
  ks_record_t rec, back;
  char *text = NULL;

  /* The largest record there can be still fits the file limit.  */
  fill (&rec, 1, KS_RECORD_MAX_LOCATIONS);
  for (unsigned int i = 0; i < rec.nlocations; i++)
    {
      gpgrt_free (rec.locations[i]);
      rec.locations[i] = malloc (KS_RECORD_MAX_URL + 1);
      memset (rec.locations[i], 'a', KS_RECORD_MAX_URL);
      memcpy (rec.locations[i], "http://", 7);
      rec.locations[i][KS_RECORD_MAX_URL] = 0;
    }
  memcpy (rec.fpr, FPR FPR, 64);
  rec.fpr[64] = 0;
  T_OK (ks_record_format (&rec, &text));
  T_OK (ks_record_parse (text, text ? strlen (text) : 0, &back));
  T_CHECK (back.nlocations == KS_RECORD_MAX_LOCATIONS);
  ks_record_release (&back);
  gpgrt_free (text);
  for (unsigned int i = 0; i < rec.nlocations; i++)
    {
      free (rec.locations[i]);
      rec.locations[i] = NULL;
    }
  rec.nlocations = 0;

  /* What the parser refuses is not written.  */
  fill (&rec, 1, 3);
  rec.threshold = 4;
  T_CHECK_ERR (ks_record_format (&rec, &text), GPG_ERR_INV_VALUE);
  rec.threshold = 2;
  strcpy (rec.profile, "no spaces");
  T_CHECK_ERR (ks_record_format (&rec, &text), GPG_ERR_INV_VALUE);
  ks_record_release (&rec);
}

static void
test_files (void)
{
  char home[] = "/tmp/ksrecXXXXXX";
  char *path = NULL, *cmd;
  ks_record_t rec, *list = NULL;
  size_t n = 0, len;
  unsigned int bad = 0;
  struct stat st;
  char *text;
  FILE *fp;

  if (!mkdtemp (home))
    T_DIE ("mkdtemp");
  T_OK (ks_record_list (home, &list, &n, &bad));
  T_CHECK (n == 0 && !list && !bad);

  fill (&rec, 1764787200, 3);
  T_OK (ks_record_add (home, &rec, &path));
  T_CHECK (path && strstr (path, "/keysafe/records/20251203T184000Z-"));
  T_CHECK (path && !stat (path, &st) && (st.st_mode & 0777) == 0600);
  text = path ? t_read_file (path, &len) : NULL;
  T_CHECK (text && !strncmp (text, KS_RECORD_MAGIC "\n", 17)
           && strstr (text, "\nlocation file:///media/usb1/ks\n"));
  free (text);
  gpgrt_free (path);
  ks_record_release (&rec);
  fill (&rec, 1000, 2);
  T_OK (ks_record_add (home, &rec, NULL));
  T_OK (ks_record_add (home, &rec, NULL));    /* same second: two files */
  ks_record_release (&rec);

  /* A stray file and a torn one are skipped; the torn one is counted.  */
  cmd = gpgrt_bsprintf ("%s/keysafe/records/junk.rec", home);
  fp = fopen (cmd, "w");
  T_CHECK (fp && fputs ("keysafe-record-1\ntime 5\n", fp) >= 0 && !fclose (fp));
  gpgrt_free (cmd);
  cmd = gpgrt_bsprintf ("%s/keysafe/records/notes.txt", home);
  fp = fopen (cmd, "w");
  T_CHECK (fp && !fclose (fp));
  gpgrt_free (cmd);

  T_OK (ks_record_list (home, &list, &n, &bad));
  T_CHECK (n == 3 && bad == 1);
  T_CHECK (n == 3 && list[0].time == 1000 && list[1].time == 1000
           && list[2].time == 1764787200 && list[2].nlocations == 3);
  ks_record_free_list (list, n);

  T_CHECK (!stat (home, &st));
  cmd = gpgrt_bsprintf ("rm -rf '%s'", home);
  T_CHECK (!system (cmd));
  gpgrt_free (cmd);
}

int
main (void)
{
  t_init ();
  test_parse ();
  test_format ();
  test_files ();
  return t_done ();
}
