/* t-pty.c - run a program on a pseudo-terminal and talk to it
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The interactive paths of keysafe read from /dev/tty, which a test can
 * only reach through a real terminal.  This runs PROG on a new pty (its
 * controlling terminal, and its stdin, stdout and stderr) and follows a
 * script read from SCRIPT, one step a line:
 *
 *   expect TEXT   wait until TEXT appears in the output after the last match
 *   send TEXT     type TEXT and Return ("send" alone: just Return)
 *   # ...         a comment
 *
 * After the script it reads to the end of the output.  Every step is
 * bounded by --timeout seconds (default 120).  The whole transcript goes
 * to stdout.  Exit status: that of PROG, or 99 when an expect timed out,
 * PROG ended before a match, or the script is bad.  Descriptors other than
 * 0-2 stay open in PROG, so a test can pass one with --password-fd.
 *
 *   t-pty [--timeout SEC] SCRIPT PROG [ARGS...]
 */
#include <config.h>
#include <errno.h>
#include <poll.h>
#include <pty.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>

#define OUT_MAX 65536

static char out[OUT_MAX + 1];   /* output since the last match */
static size_t outlen;
static int master = -1;
static int eof;
static unsigned int timeout_s = 120;

static void fail (const char *fmt, ...)
  __attribute__ ((format (printf, 1, 2), noreturn));

static void
fail (const char *fmt, ...)
{
  va_list ap;

  fflush (stdout);
  fprintf (stderr, "t-pty: ");
  va_start (ap, fmt);
  vfprintf (stderr, fmt, ap);
  va_end (ap);
  fputc ('\n', stderr);
  exit (99);
}

/* Read what is there within DEADLINE; 0 on data, -1 on timeout.  */
static int
pump (time_t deadline)
{
  struct pollfd pfd;
  char buf[4096];
  ssize_t n;
  time_t now = time (NULL);
  int rc;

  if (eof)
    return -1;
  if (now >= deadline)
    return -1;
  pfd.fd = master;
  pfd.events = POLLIN;
  rc = poll (&pfd, 1, (int)(deadline - now) * 1000);
  if (rc < 0 && errno == EINTR)
    return 0;
  if (rc <= 0)
    return -1;
  n = read (master, buf, sizeof buf);
  if (n < 0 && errno == EINTR)
    return 0;
  if (n <= 0)
    {
      /* EIO: every slave side is closed, PROG is gone.  */
      eof = 1;
      return -1;
    }
  fwrite (buf, 1, (size_t)n, stdout);
  fflush (stdout);
  if (outlen + (size_t)n > OUT_MAX)
    {
      /* Keep the newest half; a prompt is short.  */
      memmove (out, out + outlen - OUT_MAX / 2, OUT_MAX / 2);
      outlen = OUT_MAX / 2;
    }
  memcpy (out + outlen, buf, (size_t)n);
  outlen += (size_t)n;
  out[outlen] = 0;
  return 0;
}

static void
expect (const char *text)
{
  time_t deadline = time (NULL) + timeout_s;
  char *hit;

  for (;;)
    {
      hit = strstr (out, text);
      if (hit)
        {
          size_t rest = outlen - (size_t)(hit + strlen (text) - out);

          memmove (out, hit + strlen (text), rest + 1);
          outlen = rest;
          return;
        }
      if (pump (deadline))
        {
          if (eof)
            fail ("the program ended before \"%s\"", text);
          fail ("timed out waiting for \"%s\"", text);
        }
    }
}

static void
send_line (const char *text)
{
  size_t len = strlen (text);

  if (write (master, text, len) != (ssize_t)len
      || write (master, "\r", 1) != 1)
    fail ("can't write to the terminal: %s", strerror (errno));
}

int
main (int argc, char **argv)
{
  FILE *script;
  char line[1024];
  pid_t pid;
  int status, i = 1;
  time_t deadline;

  if (argc > 2 && !strcmp (argv[1], "--timeout"))
    {
      timeout_s = (unsigned int)atoi (argv[2]);
      i = 3;
    }
  if (argc - i < 2)
    {
      fprintf (stderr, "usage: t-pty [--timeout SEC] SCRIPT PROG [ARGS...]\n");
      return 99;
    }
  script = fopen (argv[i], "r");
  if (!script)
    fail ("can't open the script: %s", strerror (errno));

  fflush (stdout);
  pid = forkpty (&master, NULL, NULL, NULL);
  if (pid < 0)
    fail ("forkpty: %s", strerror (errno));
  if (!pid)
    {
      execvp (argv[i + 1], argv + i + 1);
      fprintf (stderr, "t-pty: can't run %s: %s\n", argv[i + 1],
               strerror (errno));
      _exit (127);
    }

  while (fgets (line, sizeof line, script))
    {
      line[strcspn (line, "\n")] = 0;
      if (!*line || *line == '#')
        continue;
      if (!strncmp (line, "expect ", 7))
        expect (line + 7);
      else if (!strncmp (line, "send ", 5))
        send_line (line + 5);
      else if (!strcmp (line, "send"))
        send_line ("");
      else
        fail ("bad script line: %s", line);
    }
  fclose (script);

  /* Drain to the end, within the timeout.  */
  deadline = time (NULL) + timeout_s;
  while (!eof && time (NULL) < deadline)
    pump (deadline);
  if (!eof)
    {
      kill (pid, SIGKILL);
      waitpid (pid, &status, 0);
      fail ("%s did not end", argv[i + 1]);
    }
  if (waitpid (pid, &status, 0) < 0)
    fail ("waitpid: %s", strerror (errno));
  close (master);
  if (WIFEXITED (status))
    return WEXITSTATUS (status);
  fprintf (stderr, "t-pty: %s died of signal %d\n", argv[i + 1],
           WTERMSIG (status));
  return 99;
}
