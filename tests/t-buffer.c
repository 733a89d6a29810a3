/* t-buffer.c - ks_buf's read half, detach, unescape; common/file.c
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>
#include <stdio.h>
#include <stdint.h>
#include <unistd.h>
#include <sys/uio.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <signal.h>
#include "t-support.h"

#define NAME "c71524b7154f4a5bc1b997833d7842bef41ec7a548bd6ddd10b4f777817b347e"

/* Every getter at its boundary: exactly enough succeeds, one short fails
 * with TOO_SHORT and consumes nothing.  */
static void
check_getters (void)
{
  static const uint8_t data[] = { 1, 2, 3, 4, 5, 6, 7 };
  ks_buf_t v;
  uint32_t u = 99;
  uint8_t out[8];

  ks_buf_view (&v, data, sizeof data);
  T_CHECK (v.view && ks_buf_left (&v) == 7 && ks_buf_ptr (&v) == data);
  T_OK (ks_buf_get_be32 (&v, &u));
  T_CHECK (u == 0x01020304 && ks_buf_left (&v) == 3);
  T_CHECK_ERR (ks_buf_get_be32 (&v, &u), GPG_ERR_TOO_SHORT);
  T_CHECK (u == 0 && ks_buf_left (&v) == 3);
  T_CHECK_ERR (ks_buf_get_bytes (&v, out, 4), GPG_ERR_TOO_SHORT);
  T_CHECK_ERR (ks_buf_skip (&v, 4), GPG_ERR_TOO_SHORT);
  T_CHECK (ks_buf_left (&v) == 3);
  T_OK (ks_buf_get_bytes (&v, out, 0));
  T_OK (ks_buf_skip (&v, 1));
  T_OK (ks_buf_get_bytes (&v, out, 2));
  T_CHECK (out[0] == 6 && out[1] == 7 && !ks_buf_left (&v));
  T_CHECK_ERR (ks_buf_get_bytes (&v, out, 1), GPG_ERR_TOO_SHORT);
  T_OK (ks_buf_skip (&v, 0));

  /* Empty view.  */
  ks_buf_view (&v, NULL, 0);
  T_CHECK (!ks_buf_left (&v));
  T_CHECK_ERR (ks_buf_get_be32 (&v, &u), GPG_ERR_TOO_SHORT);
  T_CHECK_ERR (ks_buf_skip (&v, 1), GPG_ERR_TOO_SHORT);

  /* A view is never written, grown or handed over.  */
  {
    uint8_t *p = (uint8_t *)"x";
    size_t n = 5;

    ks_buf_view (&v, data, sizeof data);
    T_CHECK_ERR (ks_buf_append (&v, "a", 1), GPG_ERR_INV_OP);
    T_CHECK_ERR (ks_buf_reserve (&v, 1, &p), GPG_ERR_INV_OP);
    T_CHECK (p == NULL);
    T_CHECK_ERR (ks_buf_detach (&v, &p, &n), GPG_ERR_INV_OP);
    T_CHECK (p == NULL && n == 0 && v.len == sizeof data);
    ks_buf_free (&v);   /* a no-op on a view */
  }
}

static void
check_name (void)
{
  char text[] = NAME "x";
  char out[KS_NAME_HEXLEN + 1];
  ks_buf_t v;

  ks_buf_view (&v, text, KS_NAME_HEXLEN + 1);
  T_OK (ks_buf_get_name (&v, out));
  T_CHECK (!strcmp (out, NAME) && ks_buf_left (&v) == 1);
  /* 63 bytes: too short, nothing consumed.  */
  ks_buf_view (&v, text, KS_NAME_HEXLEN - 1);
  T_CHECK_ERR (ks_buf_get_name (&v, out), GPG_ERR_TOO_SHORT);
  T_CHECK (ks_buf_left (&v) == KS_NAME_HEXLEN - 1 && !*out);
  /* Uppercase, or a non-hex byte at either end: INV_NAME.  */
  text[0] = 'C';
  ks_buf_view (&v, text, KS_NAME_HEXLEN);
  T_CHECK_ERR (ks_buf_get_name (&v, out), GPG_ERR_INV_NAME);
  T_CHECK (ks_buf_left (&v) == KS_NAME_HEXLEN);
  text[0] = 'c';
  text[KS_NAME_HEXLEN - 1] = 'g';
  ks_buf_view (&v, text, KS_NAME_HEXLEN);
  T_CHECK_ERR (ks_buf_get_name (&v, out), GPG_ERR_INV_NAME);
  text[KS_NAME_HEXLEN - 1] = 0;
  ks_buf_view (&v, text, KS_NAME_HEXLEN);
  T_CHECK_ERR (ks_buf_get_name (&v, out), GPG_ERR_INV_NAME);
}

static void
check_lines (void)
{
  static const char text[] = "one\r\ntwo\n\nthree\rx\nlast";
  static const char nul[] = "a\0b\nc";
  char out[8];
  ks_buf_t v;
  size_t left;

  ks_buf_view (&v, text, sizeof text - 1);
  T_OK (ks_buf_get_line (&v, out, sizeof out));
  T_CHECK (!strcmp (out, "one"));       /* CR before LF dropped */
  T_OK (ks_buf_get_line (&v, out, sizeof out));
  T_CHECK (!strcmp (out, "two"));
  T_OK (ks_buf_get_line (&v, out, sizeof out));
  T_CHECK (!strcmp (out, ""));          /* an empty line */
  T_OK (ks_buf_get_line (&v, out, sizeof out));
  T_CHECK (!strcmp (out, "three\rx"));  /* a CR inside stays */
  T_OK (ks_buf_get_line (&v, out, sizeof out));
  T_CHECK (!strcmp (out, "last"));      /* no LF at the end */
  T_CHECK_ERR (ks_buf_get_line (&v, out, sizeof out), GPG_ERR_EOF);
  T_CHECK (!*out);

  /* Exactly OUTSIZE - 1 bytes fit; one more is TOO_LARGE, consuming
   * nothing, with or without a LF after it.  */
  ks_buf_view (&v, "1234567\n12345678\n12345678", 25);
  T_OK (ks_buf_get_line (&v, out, sizeof out));
  T_CHECK (!strcmp (out, "1234567"));
  left = ks_buf_left (&v);
  T_CHECK_ERR (ks_buf_get_line (&v, out, sizeof out), GPG_ERR_TOO_LARGE);
  T_CHECK (ks_buf_left (&v) == left);
  T_OK (ks_buf_skip (&v, 9));
  T_CHECK_ERR (ks_buf_get_line (&v, out, sizeof out), GPG_ERR_TOO_LARGE);
  T_CHECK_ERR (ks_buf_get_line (&v, out, 0), GPG_ERR_TOO_LARGE);
  /* "x\r\n" needs only 2 bytes: the CR is not part of the line.  */
  ks_buf_view (&v, "x\r\n", 3);
  T_OK (ks_buf_get_line (&v, out, 2));
  T_CHECK (!strcmp (out, "x") && !ks_buf_left (&v));

  /* A NUL in the line: INV_VALUE, nothing consumed.  A NUL after the
   * LF belongs to the next line.  */
  ks_buf_view (&v, nul, sizeof nul - 1);
  T_CHECK_ERR (ks_buf_get_line (&v, out, sizeof out), GPG_ERR_INV_VALUE);
  T_CHECK (ks_buf_left (&v) == sizeof nul - 1);
  ks_buf_view (&v, "ab\n\0", 4);
  T_OK (ks_buf_get_line (&v, out, sizeof out));
  T_CHECK_ERR (ks_buf_get_line (&v, out, sizeof out), GPG_ERR_INV_VALUE);
  T_CHECK (ks_buf_left (&v) == 1);
}

/* Reserve, then detach: the memory is handed over, secure stays secure,
 * the buffer is empty and usable again.  */
static void
check_detach (void)
{
  ks_buf_t *buf = NULL;
  uint8_t *p, *data = NULL;
  size_t len = 7;

  T_OK (ks_buf_new (16, 1, &buf));
  T_OK (ks_buf_detach (buf, &data, &len));
  T_CHECK (data == NULL && len == 0);   /* nothing in it */
  T_OK (ks_buf_reserve (buf, 0, &p));
  T_OK (ks_buf_reserve (buf, 10, &p));
  T_CHECK (p != NULL && buf->len == 10);
  memcpy (p, "secret-one", 10);
  T_CHECK_ERR (ks_buf_reserve (buf, 7, &p), GPG_ERR_TOO_LARGE);
  T_CHECK (p == NULL && buf->len == 10);
  T_OK (ks_buf_reserve (buf, 6, &p));
  memcpy (p, "-and-6", 6);
  T_OK (ks_buf_detach (buf, &data, &len));
  T_CHECK (len == 16 && !memcmp (data, "secret-one-and-6", 16));
  T_CHECK (gcry_is_secure (data));
  T_CHECK (buf->len == 0 && buf->off == 0 && buf->data == NULL);
  ks_free_secret (data, len);
  /* Reused after the detach; the cursor restarts.  */
  T_OK (ks_buf_append (buf, "abcd", 4));
  T_OK (ks_buf_skip (buf, 2));
  T_OK (ks_buf_detach (buf, &data, &len));
  T_CHECK (len == 4 && !memcmp (data, "abcd", 4) && !ks_buf_left (buf));
  ks_free_secret (data, len);
  KS_BUF_FREE (buf);

  T_OK (ks_buf_new (16, 0, &buf));
  T_OK (ks_buf_append (buf, "x", 1));
  T_OK (ks_buf_detach (buf, &data, &len));
  T_CHECK (len == 1 && !gcry_is_secure (data));
  ks_free (data);
  KS_BUF_FREE (buf);
}

static void
check_unescape (void)
{
  char *out = NULL;

  T_OK (ks_buf_unescape ("a%20b%2Fc%2f", 1, &out));
  T_CHECK (out && !strcmp (out, "a b/c/") && gcry_is_secure (out));
  ks_free_secret (out, strlen (out) + 1);
  /* Incomplete or invalid escapes stay as they are.  */
  T_OK (ks_buf_unescape ("%zz%4%", 0, &out));
  T_CHECK (out && !strcmp (out, "%zz%4%"));
  ks_free (out);
  T_OK (ks_buf_unescape ("", 0, &out));
  T_CHECK (out && !*out);
  ks_free (out);
  T_CHECK_ERR (ks_buf_unescape ("a%00b", 1, &out), GPG_ERR_INV_VALUE);
  T_CHECK (out == NULL);
}

static void
check_file (void)
{
  char dir[] = "/tmp/ks-t-buffer-XXXXXX";
  char path[64], link[64];
  struct iovec iov[2];
  uint8_t *data = NULL;
  size_t len = 0;

  if (!mkdtemp (dir))
    T_DIE ("mkdtemp");
  snprintf (path, sizeof path, "%s/f", dir);
  snprintf (link, sizeof link, "%s/l", dir);
  iov[0].iov_base = (void *)"hello ";
  iov[0].iov_len = 6;
  iov[1].iov_base = (void *)"world";
  iov[1].iov_len = 5;
  T_OK (ks_file_write_atomic (path, iov, 2));
  T_OK (ks_file_read (path, 11, 0, &data, &len));
  T_CHECK (len == 11 && !memcmp (data, "hello world", 12));   /* NUL */
  ks_free (data);
  T_OK (ks_file_read (path, 100, 1, &data, &len));
  T_CHECK (len == 11 && gcry_is_secure (data));
  ks_free_secret (data, len);
  /* One byte over the bound is refused, nothing handed out.  */
  data = (uint8_t *)"x";
  T_CHECK_ERR (ks_file_read (path, 10, 0, &data, &len), GPG_ERR_TOO_LARGE);
  T_CHECK (data == NULL && len == 0);
  /* A symlink is not followed.  */
  if (symlink (path, link))
    T_DIE ("symlink");
  T_CHECK_ERR (ks_file_read (link, 100, 0, &data, &len), GPG_ERR_ELOOP);
  /* Written again: replaced whole, no temp file left.  */
  T_OK (ks_file_write_atomic (path, iov, 1));
  T_OK (ks_file_read (path, 100, 0, &data, &len));
  T_CHECK (len == 6 && !memcmp (data, "hello ", 6));
  ks_free (data);
  T_CHECK (access (path, F_OK) == 0);
  snprintf (link + strlen (dir), 8, "/f.tmp");
  T_CHECK (access (link, F_OK) != 0);
  /* An empty file.  */
  T_OK (ks_file_write_atomic (path, iov, 0));
  T_OK (ks_file_read (path, 0, 0, &data, &len));
  T_CHECK (len == 0 && data && !*data);
  ks_free (data);
  T_CHECK_ERR (ks_file_read (dir, 10, 0, &data, &len), GPG_ERR_EISDIR);
  snprintf (link, sizeof link, "%s/l", dir);
  unlink (link);
  unlink (path);
  rmdir (dir);
}

/* A writer killed while it writes leaves no file at all: neither a
 * partial PATH nor a partial PATH.tmp (O_TMPFILE).  When the machine
 * is fast enough to finish first, the whole file is there instead.  */
static void
check_file_killed (void)
{
  char dir[] = "/tmp/ks-t-buffer-XXXXXX";
  char path[64], tmp[64];
  static uint8_t block[1 << 16];
  struct iovec iov[512];
  struct stat st;
  unsigned int i, round, partial = 0, killed = 0;
  pid_t pid;

  if (!mkdtemp (dir))
    T_DIE ("mkdtemp");
  snprintf (path, sizeof path, "%s/f", dir);
  snprintf (tmp, sizeof tmp, "%s/f.tmp", dir);
  memset (block, 'k', sizeof block);
  for (i = 0; i < KS_DIM (iov); i++)
    {
      iov[i].iov_base = block;
      iov[i].iov_len = sizeof block;
    }
  for (round = 0; round < 8; round++)
    {
      unlink (path);
      pid = fork ();
      if (pid < 0)
        T_DIE ("fork");
      if (!pid)
        _exit (ks_file_write_atomic (path, iov, KS_DIM (iov)) ? 1 : 0);
      usleep (1000 + 2000 * round);
      killed += !kill (pid, SIGKILL);
      waitpid (pid, NULL, 0);
      if (!stat (path, &st) && st.st_size != (off_t)sizeof block * KS_DIM (iov))
        partial++;
      if (!stat (tmp, &st) && st.st_size != (off_t)sizeof block * KS_DIM (iov))
        partial++;
      unlink (tmp);
    }
  T_CHECK (partial == 0);
  printf ("# killed writers: %u of 8 rounds, partial files: %u\n", killed,
          partial);
  unlink (path);
  rmdir (dir);
}

int
main (void)
{
  t_init ();
  check_getters ();
  check_name ();
  check_lines ();
  check_detach ();
  check_unescape ();
  check_file ();
  check_file_killed ();
  return t_done ();
}
