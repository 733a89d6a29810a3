/* progress.c - a progress bar with the time left, on a terminal
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The time left is the plain linear estimate elapsed * (total - done) /
 * done: the Argon2 segments and the puzzle's tries all cost the same.
 */
#include <config.h>
#include <stdio.h>
#include <time.h>
#include "progress.h"

#define BAR_WIDTH 30

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

void
ks_progress_format (const char *what, uint64_t done, uint64_t total,
                    double elapsed, char *buf, size_t size)
{
  char bar[BAR_WIDTH + 1];
  unsigned int i, fill;
  double frac = total ? (double)done / (double)total : 0;
  char eta[32];

  if (frac > 1)
    frac = 1;
  fill = (unsigned int)(frac * BAR_WIDTH + 0.5);
  for (i = 0; i < BAR_WIDTH; i++)
    bar[i] = i < fill ? '#' : '.';
  bar[BAR_WIDTH] = 0;
  if (done && done < total)
    {
      double left = elapsed * (double)(total - done) / (double)done;
      unsigned long s = (unsigned long)(left + 0.5);

      if (s >= 3600)
        snprintf (eta, sizeof eta, "%luh%02lum", s / 3600, (s / 60) % 60);
      else
        snprintf (eta, sizeof eta, "%lum%02lus", s / 60, s % 60);
    }
  else if (done >= total)
    snprintf (eta, sizeof eta, "%s", _("done"));
  else
    snprintf (eta, sizeof eta, "?");
  snprintf (buf, size, "%-22s [%s] %3u%%  %s %s", step_label (what), bar,
            (unsigned int)(frac * 100), done >= total ? "" : _("ETA"), eta);
}

void
ks_progress_update (ks_progress_t *p, const char *what,
                    uint64_t done, uint64_t total)
{
  uint64_t now;
  char line[160];

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
  ks_progress_format (what, done, total, (now - p->start_ms) / 1000.0,
                      line, sizeof line);
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
