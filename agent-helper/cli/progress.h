/* progress.h - a progress bar with the time left, on a terminal
 * SPDX-License-Identifier: GPL-3.0-or-later
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

/* The text of the bar (for tests): "name [#####.....]  50%  ETA 1m05s".  */
void ks_progress_format (const char *what, uint64_t done, uint64_t total,
                         double elapsed, char *buf, size_t size);

#endif /* KS_PROGRESS_H */
