/* iomon.c - refuse D lines with a cut or invalid %-escape
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * libassuan 2.5.5 spins forever in assuan_inquire on a D line that
 * ends inside a %-escape ("D abc%", "D %4"), and turns "%zz" into a
 * garbage byte.  Its io monitor sees each line before it is parsed:
 * such a line is dropped there (libassuan then waits for the next one)
 * and the session remembers it, so the inquiry ends with an ERR.
 */
#include <config.h>
#include "helper.h"

static int
is_hex (int c)
{
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')
    || (c >= 'A' && c <= 'F');
}

/* True when the LEN bytes of a D line hold an escape libassuan
 * mishandles.  */
static int
has_bad_escape (const char *line, size_t len)
{
  size_t i;

  while (len && (line[len - 1] == '\n' || line[len - 1] == '\r'))
    len--;
  for (i = 2; i < len; i++)
    if (line[i] == '%')
      {
        if (i + 2 >= len || !is_hex (line[i + 1]) || !is_hex (line[i + 2]))
          return 1;
        i += 2;
      }
  return 0;
}

static unsigned int
monitor (assuan_context_t ctx, void *hook, int direction,
         const char *line, size_t len)
{
  ks_session_t *s = hook;

  (void)ctx;
  if (direction || len < 2 || line[0] != 'D' || line[1] != ' '
      || !has_bad_escape (line, len))
    return 0;
  s->bad_escape = 1;
  return ASSUAN_IO_MONITOR_IGNORE | ASSUAN_IO_MONITOR_NOLOG;
}

void
ks_helper_iomon_install (ks_session_t *s)
{
  assuan_set_io_monitor (s->ctx, monitor, s);
}

gpg_error_t
ks_helper_iomon_check (ks_session_t *s, gpg_error_t err)
{
  if (!s->bad_escape)
    return err;
  s->bad_escape = 0;
  return assuan_set_error (s->ctx, gpg_error (GPG_ERR_ASS_PARAMETER),
                           _("a D line ends inside a percent escape or holds an"
                             " invalid one"));
}
