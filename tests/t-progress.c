/* t-progress.c - the progress line fits narrow terminals and wide text
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Widths are measured here with mbstowcs/wcswidth in a UTF-8 locale,
 * the way a terminal counts columns.
 */
#include <config.h>
#include <fcntl.h>
#include <locale.h>
#include <pty.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <wchar.h>
#include "t-support.h"
#include "progress.h"

/* German, with a two-byte ü; Japanese, three bytes and two columns a
 * character.  */
static const char de_label[] = "Schl\xc3\xbcssel ableiten";
static const char ja_label[] = "\xe9\x8d\xb5\xe3\x82\x92\xe5\xb0\x8e"
  "\xe5\x87\xba\xe3\x81\x97\xe3\x81\xa6\xe3\x81\x84\xe3\x81\xbe\xe3\x81\x99";

/* Display columns of S, or -1 when it is not valid text.  */
static int
columns_of (const char *s)
{
  wchar_t w[1024];
  size_t n = mbstowcs (w, s, KS_DIM (w));

  if (n == (size_t)-1 || n == KS_DIM (w))
    return -1;
  return wcswidth (w, n);
}

static void
test_widths (void)
{
  T_CHECK (ks_progress_text_width ("abc") == 3);
  T_CHECK (ks_progress_text_width (de_label) == 18);   /* 19 bytes */
  T_CHECK (ks_progress_text_width (ja_label) == 18);   /* 27 bytes */
  T_CHECK (ks_progress_text_width ("a\xff") == 2);     /* not UTF-8 */
}

/* At every width from 1 to 120 the line is valid text, one line, and at
 * most COLUMNS - 1 columns; it is never empty from 6 columns up.  */
static void
test_fits (const char *label)
{
  char buf[2048];
  unsigned int c;
  int w;

  for (c = 1; c <= 120; c++)
    {
      ks_progress_format_width (label, 37, 100, 12.0, c, buf, sizeof buf);
      w = columns_of (buf);
      t_checks++;
      if (w < 0 || w > (int)c - 1 || strchr (buf, '\n')
          || (c >= 6 && !*buf))
        {
          t_errors++;
          fprintf (stderr, "FAIL: %u columns: '%s' (%d)\n", c, buf, w);
        }
      /* The percentage survives every degradation.  */
      T_CHECK (c < 6 || strstr (buf, " 37%"));
    }
}

static void
test_degrade (void)
{
  char buf[2048], full[2048];

  /* Wide: the full bar; the label takes 22 columns whatever its bytes, so
   * the bar starts in the same column for ASCII and for German.  */
  ks_progress_format_width ("abcdefghijklmnop", 50, 100, 30.0, 80,
                            full, sizeof full);
  ks_progress_format_width (de_label, 50, 100, 30.0, 80, buf, sizeof buf);
  T_CHECK (strstr (full, "[###############...............]"));
  T_CHECK (strstr (buf, "[###############...............]"));
  T_CHECK (columns_of (buf) == columns_of (full));
  T_CHECK (strstr (buf, "ETA 0m30s"));

  /* Narrower: a shorter bar.  */
  ks_progress_format_width (de_label, 50, 100, 30.0, 60, buf, sizeof buf);
  T_CHECK (strstr (buf, "    [#########.........]  50%  ETA 0m30s"));
  T_CHECK (columns_of (buf) <= 59);
  /* No room for a bar: name, percentage, time left.  */
  ks_progress_format_width (de_label, 50, 100, 30.0, 35, buf, sizeof buf);
  T_CHECK (!strchr (buf, '['));
  T_CHECK (!strcmp (buf, "Schl\xc3\xbcssel ableiten  50% ETA 0m30s"));
  /* Then the name is cut at a character, never inside one.  */
  ks_progress_format_width (ja_label, 50, 100, 30.0, 15, buf, sizeof buf);
  T_CHECK (columns_of (buf) == 13);
  T_CHECK (!strncmp (buf, ja_label, 4 * 3) && !strcmp (buf + 12, "  50%"));
  ks_progress_format_width (ja_label, 50, 100, 30.0, 10, buf, sizeof buf);
  T_CHECK (columns_of (buf) > 0 && columns_of (buf) <= 9);
  ks_progress_format_width (ja_label, 50, 100, 30.0, 5, buf, sizeof buf);
  T_CHECK (!strcmp (buf, " 50%"));
  ks_progress_format_width (ja_label, 50, 100, 30.0, 4, buf, sizeof buf);
  T_CHECK (!*buf);
}

/* The terminal's width comes from the terminal, then $COLUMNS.  */
static void
test_columns (void)
{
  struct winsize ws = { 24, 33, 0, 0 };
  int master, slave, saved;

  setenv ("COLUMNS", "47", 1);
  saved = dup (2);
  if (saved < 0)
    T_DIE ("dup");
  if (!openpty (&master, &slave, NULL, NULL, &ws))
    {
      dup2 (slave, 2);
      T_CHECK (ks_progress_columns () == 33);
      ws.ws_col = 120;
      ioctl (master, TIOCSWINSZ, &ws);
      T_CHECK (ks_progress_columns () == 120);   /* a resized window */
      dup2 (saved, 2);
      close (slave);
      close (master);
    }
  else
    fprintf (stderr, "note: no pty, TIOCGWINSZ not checked\n");
  /* stderr to a file: no terminal width.  */
  slave = open ("/dev/null", O_WRONLY);
  dup2 (slave, 2);
  close (slave);
  T_CHECK (ks_progress_columns () == 47);
  setenv ("COLUMNS", "wide", 1);
  T_CHECK (ks_progress_columns () == 80);
  unsetenv ("COLUMNS");
  T_CHECK (ks_progress_columns () == 80);
  dup2 (saved, 2);
  close (saved);
}

int
main (void)
{
  t_init ();
  if (!setlocale (LC_ALL, "C.UTF-8"))
    T_SKIP ("no C.UTF-8 locale");
  test_widths ();
  test_fits ("abcdefghijklmnopqrstuvwxyz");
  test_fits (de_label);
  test_fits (ja_label);
  test_degrade ();
  test_columns ();
  return t_done ();
}
