/* progress.c - a progress bar with the time left, on a terminal
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The time left is the plain linear estimate elapsed * (total - done) /
 * done: the Argon2 segments and the puzzle's tries all cost the same.
 */
#include <config.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <wchar.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include "progress.h"

#define BAR_WIDTH 30
#define BAR_MIN 10
#define LABEL_WIDTH 22
/* The longest line drawn; a wider terminal gets this.  */
#define LINE_MAX 400

static const char *
step_label (const char *what)
{
  if (!strcmp (what, "name"))
    return _("deriving the names");
  if (!strcmp (what, "key"))
    return _("deriving the key");
  if (!strcmp (what, "puzzle"))
    return _("solving the puzzle");
  if (!strcmp (what, "transfer"))
    return _("talking to the servers");
  return what;
}

void
ks_progress_init (ks_progress_t *p, int enabled)
{
  memset (p, 0, sizeof *p);
  p->enabled = enabled;
}

unsigned int
ks_progress_columns (void)
{
  struct winsize ws;
  const char *s;
  char *end;
  unsigned long n;

  if (!ioctl (2, TIOCGWINSZ, &ws) && ws.ws_col)
    return ws.ws_col;
  s = getenv ("COLUMNS");
  if (s && *s)
    {
      n = strtoul (s, &end, 10);
      if (!*end && n > 0 && n < 10000)
        return (unsigned int)n;
    }
  return 80;
}

/* The bytes of S that fit in MAXW display columns; *R_W gets their
 * width.  A character is never cut in the middle.  */
static size_t
fit_prefix (const char *s, size_t maxw, size_t *r_w)
{
  mbstate_t st;
  size_t off = 0, w = 0, len = strlen (s);

  memset (&st, 0, sizeof st);
  while (off < len)
    {
      wchar_t wc;
      size_t n = mbrtowc (&wc, s + off, len - off, &st);
      int cw;

      if (n == (size_t)-1 || n == (size_t)-2 || !n)
        {
          /* Not a character here: count the byte as one column.  */
          memset (&st, 0, sizeof st);
          n = 1;
          cw = 1;
        }
      else
        cw = wcwidth (wc) < 0 ? 1 : wcwidth (wc);
      if (w + cw > maxw)
        break;
      w += cw;
      off += n;
    }
  *r_w = w;
  return off;
}

size_t
ks_progress_text_width (const char *s)
{
  wchar_t wbuf[LINE_MAX];
  size_t n = mbstowcs (wbuf, s, KS_DIM (wbuf));
  int w;

  if (n != (size_t)-1 && n < KS_DIM (wbuf))
    {
      w = wcswidth (wbuf, n);
      if (w >= 0)
        return (size_t)w;
    }
  /* Not valid in this locale, or a control character in it.  */
  fit_prefix (s, (size_t)-1, &n);
  return n;
}

/* "ETA 1m05s", "done" or "ETA ?" into ETA.  */
static void
format_eta (uint64_t done, uint64_t total, double elapsed,
            char *eta, size_t size)
{
  if (done && done < total)
    {
      double left = elapsed * (double)(total - done) / (double)done;
      unsigned long s = (unsigned long)(left + 0.5);

      if (s >= 3600)
        snprintf (eta, size, "%s %luh%02lum", _("ETA"), s / 3600,
                  (s / 60) % 60);
      else
        snprintf (eta, size, "%s %lum%02lus", _("ETA"), s / 60, s % 60);
    }
  else if (done >= total)
    snprintf (eta, size, "%s", _("done"));
  else
    snprintf (eta, size, "%s ?", _("ETA"));
}

void
ks_progress_format_width (const char *what, uint64_t done, uint64_t total,
                          double elapsed, unsigned int columns,
                          char *buf, size_t size)
{
  const char *label = step_label (what);
  char bar[BAR_WIDTH + 1], eta[64], pct[8];
  double frac = total ? (double)done / (double)total : 0;
  size_t avail, lw, ew, pw, cut, fixed, barw, pad;
  unsigned int i, fill;

  if (!size)
    return;
  *buf = 0;
  if (columns > LINE_MAX)
    columns = LINE_MAX;
  avail = columns ? columns - 1 : 0;
  if (frac > 1)
    frac = 1;
  format_eta (done, total, elapsed, eta, sizeof eta);
  snprintf (pct, sizeof pct, "%3u%%", (unsigned int)(frac * 100));
  lw = ks_progress_text_width (label);
  ew = ks_progress_text_width (eta);
  pw = strlen (pct);
  pad = lw < LABEL_WIDTH ? LABEL_WIDTH - lw : 0;

  /* label(padded) " [" bar "] " pct "  " eta */
  fixed = lw + pad + 2 + 2 + pw + 2 + ew;
  barw = avail > fixed ? avail - fixed : 0;
  if (barw > BAR_WIDTH)
    barw = BAR_WIDTH;
  if (barw >= BAR_MIN)
    {
      fill = (unsigned int)(frac * barw + 0.5);
      for (i = 0; i < barw; i++)
        bar[i] = i < fill ? '#' : '.';
      bar[barw] = 0;
      snprintf (buf, size, "%s%*s [%s] %s  %s", label, (int)pad, "", bar,
                pct, eta);
    }
  else if (lw + 1 + pw + 1 + ew <= avail)
    snprintf (buf, size, "%s %s %s", label, pct, eta);
  else if (pw + 1 < avail)
    {
      /* The step name, as much of it as fits, and the percentage.  */
      cut = fit_prefix (label, avail - pw - 1, &lw);
      snprintf (buf, size, "%.*s %s", (int)cut, label, pct);
    }
  else if (pw <= avail)
    snprintf (buf, size, "%s", pct);
}

void
ks_progress_format (const char *what, uint64_t done, uint64_t total,
                    double elapsed, char *buf, size_t size)
{
  ks_progress_format_width (what, done, total, elapsed, 80, buf, size);
}

void
ks_progress_update (ks_progress_t *p, const char *what,
                    uint64_t done, uint64_t total)
{
  uint64_t now;
  char line[4 * LINE_MAX];

  if (!p->enabled || !what)
    return;
  now = ks_now_ms ();
  if (strncmp (p->what, what, sizeof p->what - 1))
    {
      ks_progress_break (p);
      snprintf (p->what, sizeof p->what, "%s", what);
      p->start_ms = now;
      p->last_ms = 0;
    }
  if (done < total && p->last_ms && now - p->last_ms < 100)
    return;
  p->last_ms = now;
  /* Asked on every redraw, so a resized window is followed.  */
  ks_progress_format_width (what, done, total, (now - p->start_ms) / 1000.0,
                            ks_progress_columns (), line, sizeof line);
  fprintf (stderr, "\r%s\033[K", line);
  fflush (stderr);
  p->drawn = 1;
  if (done >= total)
    {
      ks_progress_break (p);
      p->what[0] = 0;
    }
}

void
ks_progress_break (ks_progress_t *p)
{
  if (p->drawn)
    {
      fputc ('\n', stderr);
      p->drawn = 0;
    }
}
