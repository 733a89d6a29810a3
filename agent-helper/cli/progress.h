/* progress.h - a progress bar with the time left, on a terminal
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The line always fits the terminal: it is redrawn with a carriage
 * return, and a line that wrapped would scroll a new copy on every
 * redraw.  Widths are display columns of the locale's text (a translated
 * step name may hold multibyte and double-width characters), never
 * bytes.  On a narrow terminal the line degrades step by step: a shorter
 * bar, no bar, no time left, a shortened step name, the percentage
 * alone.
 */
#ifndef KS_PROGRESS_H
#define KS_PROGRESS_H

#include "keysafe.h"

typedef struct ks_progress
{
  int enabled;                  /* stderr is a tty and not --batch */
  int drawn;                    /* a bar is on the current line */
  char what[16];
  uint64_t start_ms;            /* when this step began */
  uint64_t last_ms;             /* last redraw */
} ks_progress_t;

/* ENABLED is usually isatty (2) && !batch.  */
void ks_progress_init (ks_progress_t *p, int enabled);
/* DONE of TOTAL units of step WHAT; redrawn at most 10 times a second
 * and always at the end of a step.  */
void ks_progress_update (ks_progress_t *p, const char *what,
                         uint64_t done, uint64_t total);
/* End the bar's line before other output.  */
void ks_progress_break (ks_progress_t *p);

/* The width of the terminal on stderr (TIOCGWINSZ), else $COLUMNS,
 * else 80.  */
unsigned int ks_progress_columns (void);

/* Display columns of the text S in the locale's encoding (wcswidth);
 * a byte that is no character counts one.  */
size_t ks_progress_text_width (const char *s);

/* The text of the bar for a terminal of COLUMNS columns: at most
 * COLUMNS - 1 display columns (writing the last column makes some
 * terminals wrap), e.g. "name [#####.....]  50%  ETA 1m05s".  */
void ks_progress_format_width (const char *what, uint64_t done,
                               uint64_t total, double elapsed,
                               unsigned int columns, char *buf, size_t size);
/* The same for 80 columns.  */
void ks_progress_format (const char *what, uint64_t done, uint64_t total,
                         double elapsed, char *buf, size_t size);

#endif /* KS_PROGRESS_H */
