/* assuan-options.c - OPTION and RESET of keysafe-helper's sessions
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The session's settings: what OPTION sets (name, password mode,
 * servers, profile, batch) and what RESET puts back to the command
 * line's defaults.  The commands that use them are in assuan-cmds.c.
 */
#include <config.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include "helper.h"

static void
free_servers (ks_session_t *s)
{
  unsigned int i;

  for (i = 0; s->servers && i < s->nservers; i++)
    gpgrt_free (s->servers[i]);
  gpgrt_free (s->servers);
  s->servers = NULL;
  s->nservers = 0;
  s->servers_set = 0;
}


void
ks_helper_session_reset (ks_session_t *s)
{
  if (s->name)
    ks_free_secret (s->name, strlen (s->name) + 1);
  s->name = NULL;
  gpgrt_free (s->profile);
  s->profile = NULL;
  free_servers (s);
  s->pinentry = s->defaults->pinentry;
  s->batch = s->defaults->opt.batch;
  s->password_tries = 0;
  s->password_tries_set = 0;
  gpgrt_free (s->errtext);
  s->errtext = NULL;
}


gpg_error_t
ks_helper_reset_notify (assuan_context_t ctx, char *line)
{
  ks_session_t *s = assuan_get_pointer (ctx);

  (void)line;
  ks_helper_session_reset (s);
  return 0;
}


gpg_error_t
ks_helper_option_handler (assuan_context_t ctx, const char *key, const char *value)
{
  ks_session_t *s = assuan_get_pointer (ctx);
  gpg_error_t err = 0;

  if (s->busy)
    return gpg_error (GPG_ERR_ASS_NESTED_COMMANDS);
  if (!strcmp (key, "name"))
    {
      char *name = NULL;

      if (strlen (value) > 3 * KS_HELPER_MAX_NAME)
        return gpg_error (GPG_ERR_TOO_LARGE);
      if (*value)
        {
          err = ks_buf_unescape (value, 1, &name);
          if (err)
            return err;
        }
      if (s->name)
        ks_free_secret (s->name, strlen (s->name) + 1);
      s->name = name;
    }
  else if (!strcmp (key, "password-mode"))
    {
      if (!strcmp (value, "inquire"))
        s->pinentry = 0;
      else if (!strcmp (value, "pinentry"))
        s->pinentry = 1;
      else
        err = assuan_set_error (ctx, gpg_error (GPG_ERR_INV_VALUE),
                                _("password-mode is inquire or pinentry"));
    }
  else if (!strcmp (key, "server"))
    {
      char **tmp;

      if (!*value)
        {
          /* "server=" forgets the servers given so far.  */
          free_servers (s);
          return 0;
        }
      if (strncmp (value, "http://", 7) && strncmp (value, "https://", 8))
        return assuan_set_error (ctx, gpg_error (GPG_ERR_INV_URI),
                                 _("a server URL starts with http:// or https://"));
      if (s->nservers >= KS_HELPER_MAX_SERVERS)
        return gpg_error (GPG_ERR_TOO_MANY);
      tmp = gpgrt_reallocarray (s->servers, s->nservers + 1,
                                s->nservers + 2, sizeof *tmp);
      if (!tmp)
        return gpg_error_from_syserror ();
      s->servers = tmp;
      s->servers[s->nservers] = gpgrt_strdup (value);
      if (!s->servers[s->nservers])
        return gpg_error_from_syserror ();
      s->servers[++s->nservers] = NULL;
      s->servers_set = 1;
    }
  else if (!strcmp (key, "profile"))
    {
      char *p;

      if (*value && !ks_profile_find (value))
        return assuan_set_error (ctx, gpg_error (GPG_ERR_UNKNOWN_NAME),
                                 _("no such profile"));
      p = *value ? gpgrt_strdup (value) : NULL;
      if (*value && !p)
        return gpg_error_from_syserror ();
      gpgrt_free (s->profile);
      s->profile = p;
    }
  else if (!strcmp (key, "batch"))
    s->batch = !*value || strcmp (value, "0");
  else if (!strcmp (key, "password-tries"))
    {
      if (!*value || strspn (value, "0123456789") != strlen (value)
          || strlen (value) > 1)
        return assuan_set_error (ctx, gpg_error (GPG_ERR_INV_VALUE),
                                 _("password-tries is a number, 0 to 9"));
      s->password_tries = (unsigned int)(*value - '0');
      s->password_tries_set = 1;
    }
  else
    err = assuan_set_error (ctx, gpg_error (GPG_ERR_UNKNOWN_OPTION),
                            _("options: name, password-mode, server,"
                              " profile, batch, password-tries"));
  return err;
}
