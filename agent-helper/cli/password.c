/* password.c - reading a password from a descriptor or the terminal
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Bytes are read one at a time straight into secure memory, so no part
 * of the password sits in a stdio buffer.
 */
#include <config.h>
#include <stdio.h>
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <termios.h>
#include "password.h"

/* Read a line from FD into a secure buffer; the newline is dropped.  */
static gpg_error_t
read_line_secure (int fd, char **r_pw)
{
  char *pw;
  size_t len = 0;
  char c;
  ssize_t n;

  *r_pw = NULL;
  pw = ks_malloc_secure (KS_PASSWORD_MAX + 1);
  if (!pw)
    return gpg_error_from_syserror ();
  for (;;)
    {
      n = read (fd, &c, 1);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        {
          gpg_error_t err = gpg_error_from_syserror ();
          ks_free_secret (pw, KS_PASSWORD_MAX + 1);
          return err;
        }
      if (!n || c == '\n')
        break;
      if (!c)
        {
          /* A NUL would silently cut the password short; the helper
           * refuses it too.  */
          ks_free_secret (pw, KS_PASSWORD_MAX + 1);
          return gpg_error (GPG_ERR_INV_VALUE);
        }
      if (len >= KS_PASSWORD_MAX)
        {
          ks_free_secret (pw, KS_PASSWORD_MAX + 1);
          return gpg_error (GPG_ERR_TOO_LARGE);
        }
      pw[len++] = c;
    }
  c = 0;
  if (len && pw[len - 1] == '\r')
    len--;
  pw[len] = 0;
  *r_pw = pw;
  return 0;
}

gpg_error_t
ks_password_from_fd (int fd, char **r_pw)
{
  gpg_error_t err = read_line_secure (fd, r_pw);

  if (!err && !**r_pw)
    {
      ks_free_secret (*r_pw, KS_PASSWORD_MAX + 1);
      *r_pw = NULL;
      err = gpg_error (GPG_ERR_NO_PASSPHRASE);
    }
  return err;
}

static gpg_error_t
ask_noecho (int fd, const char *prompt, char **r_pw)
{
  gpg_error_t err;
  struct termios old, quiet;
  int restore = 0;

  /* Echo goes off before the prompt shows: TCSAFLUSH drops what was
   * typed so far, and after the prompt that would be the password.  */
  if (!tcgetattr (fd, &old))
    {
      quiet = old;
      quiet.c_lflag &= ~(ECHO | ECHONL);
      quiet.c_lflag |= ICANON;
      if (!tcsetattr (fd, TCSAFLUSH, &quiet))
        restore = 1;
    }
  if (write (fd, prompt, strlen (prompt)) < 0 || write (fd, " ", 1) < 0)
    err = gpg_error_from_syserror ();
  else
    err = read_line_secure (fd, r_pw);
  if (restore)
    tcsetattr (fd, TCSAFLUSH, &old);
  if (write (fd, "\n", 1) < 0)
    {
      /* Nothing to be done about a lost newline.  */
    }
  return err;
}

gpg_error_t
ks_password_from_tty (const char *prompt, int confirm, char **r_pw)
{
  gpg_error_t err;
  int fd;
  char *pw = NULL, *again = NULL;

  *r_pw = NULL;
  fd = open ("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC);
  if (fd < 0)
    return gpg_error (GPG_ERR_ENOTTY);
  err = ask_noecho (fd, prompt, &pw);
  if (!err && !*pw)
    err = gpg_error (GPG_ERR_NO_PASSPHRASE);
  if (!err && confirm)
    {
      err = ask_noecho (fd, _("Repeat the password:"), &again);
      if (!err && strcmp (pw, again))
        err = gpg_error (GPG_ERR_BAD_PASSPHRASE);
    }
  close (fd);
  if (again)
    ks_free_secret (again, KS_PASSWORD_MAX + 1);
  if (err)
    {
      if (pw)
        ks_free_secret (pw, KS_PASSWORD_MAX + 1);
      return err;
    }
  *r_pw = pw;
  return 0;
}

gpg_error_t
ks_password_read_line_tty (const char *prompt, char **r_line)
{
  gpg_error_t err;
  int fd;
  char *line = NULL;

  *r_line = NULL;
  fd = open ("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC);
  if (fd < 0)
    return gpg_error (GPG_ERR_ENOTTY);
  if (write (fd, prompt, strlen (prompt)) < 0 || write (fd, ": ", 2) < 0)
    err = gpg_error_from_syserror ();
  else
    err = read_line_secure (fd, &line);
  close (fd);
  if (err)
    return err;
  *r_line = ks_strdup (line);
  ks_free_secret (line, KS_PASSWORD_MAX + 1);
  return *r_line ? 0 : gpg_error_from_syserror ();
}
