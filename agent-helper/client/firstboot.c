/* firstboot.c - keysafe firstboot: a key for a new user, backed up once
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * Meant for a distribution's first-login hook (doc/firstboot/).  The
 * steps:
 *
 *   1. The marker GNUPGHOME/keysafe-firstboot.done exists: nothing to do.
 *   2. An earlier run left GNUPGHOME/keysafe-firstboot.pending: its
 *      backup stored fewer than K shards and the others wait in the
 *      upload queue.  A new backup under the same name would find its
 *      own first shards ("name taken"), so the queued shards are sent
 *      instead, and the run is done when K servers hold theirs.
 *   3. Otherwise the key: --gpgkeyid, else the first secret key, else a
 *      new one made with GPGME (GnuPG's default algorithm).
 *   4. ks_flow_backup, with the item name and the password asked through
 *      gpg-agent's pinentry (--name and --password-fd override).
 *   5. The marker, written only when K shards are stored.  Shards short
 *      of N wait in the upload queue; the backup is restorable already.
 *
 * One run at a time: a second one (the systemd unit and the autostart
 * entry both installed, say) finds GNUPGHOME/keysafe-firstboot.lock
 * locked (flock) and does nothing, so it cannot make a second key.
 *
 * The files are written by fbstate.c; none holds a secret.
 */
#include <config.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>
#include <errno.h>
#include <pwd.h>
#include <unistd.h>
#include <sys/stat.h>
#include "flowutil.h"
#include "agent.h"
#include "gpg.h"
#include "fbstate.h"
#include "queue.h"


/* The face the flows see during firstboot: the caller's face, except
 * that the item name is asked through gpg-agent's pinentry too.  */
struct fb_face
{
  const ks_options_t *opt;
  const ks_ui_t *face;
};

static void
fb_progress (void *arg, const char *what, uint64_t done, uint64_t total)
{
  struct fb_face *fb = arg;

  if (fb->face->progress)
    fb->face->progress (fb->face->arg, what, done, total);
}

static void
fb_info (void *arg, const char *text)
{
  struct fb_face *fb = arg;

  if (fb->face->info)
    fb->face->info (fb->face->arg, text);
}

static void
fb_error (void *arg, const char *text)
{
  struct fb_face *fb = arg;

  if (fb->face->error)
    fb->face->error (fb->face->arg, text);
  else if (fb->face->info)
    fb->face->info (fb->face->arg, text);
}

static gpg_error_t
fb_get_password (void *arg, const char *prompt, int confirm, char **r_pw)
{
  struct fb_face *fb = arg;

  *r_pw = NULL;
  if (!fb->face->get_password)
    return gpg_error (GPG_ERR_NO_PASSPHRASE);
  return fb->face->get_password (fb->face->arg, prompt, confirm, r_pw);
}

/* The name through the agent (GET_PASSPHRASE with a prompt of its own,
 * asked twice so that a typo does not lose the backup); the caller's
 * own way only when there is no agent or no pinentry.  The name lands
 * in secure memory, which ks_free wipes: it is half of what opens the
 * backup.  */
static gpg_error_t
fb_get_name (void *arg, const char *prompt, char **r_name)
{
  struct fb_face *fb = arg;
  gpg_error_t err;
  char *desc;

  *r_name = NULL;
  if (fb->opt->batch)
    return gpg_error (GPG_ERR_MISSING_VALUE);
  desc = gpgrt_bsprintf ("%s\n\n%s", prompt,
                         _("keysafe first boot: your new key is backed up"
                           " under this name.  The name is not secret,"
                           " but you need it to restore."));
  if (!desc)
    return gpg_error_from_syserror ();
  err = ks_agent_get_passphrase (fb->opt->homedir, desc, _("Name:"), 1,
                                 r_name);
  gpgrt_free (desc);
  if ((gpg_err_code (err) == GPG_ERR_NO_AGENT
       || gpg_err_code (err) == GPG_ERR_NO_PIN_ENTRY)
      && fb->face->get_name)
    err = fb->face->get_name (fb->face->arg, prompt, r_name);
  return err;
}


/* The user ID of a new key: "GECOS name <login@host>" from the passwd
 * entry, or "<login@host>" when the GECOS name is empty or unusable.  */
static gpg_error_t
default_userid (char **r_uid)
{
  struct passwd *pw;
  char host[256], gecos[256];
  const char *s;
  size_t i;

  *r_uid = NULL;
  errno = 0;
  pw = getpwuid (getuid ());
  if (!pw || !pw->pw_name || !*pw->pw_name)
    return errno ? gpg_error_from_syserror () : gpg_error (GPG_ERR_NOT_FOUND);
  if (gethostname (host, sizeof host))
    return gpg_error_from_syserror ();
  host[sizeof host - 1] = 0;
  if (!*host)
    snprintf (host, sizeof host, "localhost");

  /* The GECOS field is "Full Name,Room,Phone,...": the name only, and
   * nothing that would break the "Name <mail>" form.  */
  s = pw->pw_gecos ? pw->pw_gecos : "";
  for (i = 0; s[i] && s[i] != ',' && i + 1 < sizeof gecos; i++)
    {
      unsigned char c = s[i];

      if (c < 0x20 || c == 0x7f || c == '<' || c == '>')
        {
          i = 0;
          break;
        }
      gecos[i] = c;
    }
  gecos[i] = 0;
  while (i && gecos[i - 1] == ' ')
    gecos[--i] = 0;

  if (*gecos)
    *r_uid = gpgrt_bsprintf ("%s <%s@%s>", gecos, pw->pw_name, host);
  else
    *r_uid = gpgrt_bsprintf ("<%s@%s>", pw->pw_name, host);
  return *r_uid ? 0 : gpg_error_from_syserror ();
}

/* The secret keys: how many, the first one, and whether WANT is one.  */
struct fb_keys
{
  unsigned int count;
  char first[KS_FBSTATE_FPR_SIZE];
  char first_uid[256];
  const char *want;
  int found;
};

static void
fb_collect_key (void *arg, const char *fpr, const char *uid)
{
  struct fb_keys *k = arg;

  if (!k->count)
    {
      snprintf (k->first, sizeof k->first, "%s", fpr);
      snprintf (k->first_uid, sizeof k->first_uid, "%s", uid);
    }
  if (k->want && !strcasecmp (k->want, fpr))
    k->found = 1;
  k->count++;
}


/* Write the marker and tell it.  */
static gpg_error_t
done (const ks_ui_t *ui, const char *home, const char *fpr,
      const char *profile, size_t queued)
{
  gpg_error_t err = ks_fbstate_write_marker (home, fpr, profile, queued);

  if (err)
    ks_ui_errorf (ui, _("can't write the first-boot marker %s/%s: %s"),
                  home, KS_FBSTATE_MARKER, gpg_strerror (err));
  else
    ks_ui_infof (ui, _("first boot is done: key %s is backed up (profile"
                       " '%s'); marker %s/%s"), fpr, profile, home,
                 KS_FBSTATE_MARKER);
  return err;
}

/* Finish the backup an earlier run left pending.  *R_FRESH is set when
 * its key is gone and a new start is needed.  */
static gpg_error_t
resume (const ks_options_t *opt, const ks_ui_t *ui, const char *home,
        const char *path, int *r_fresh)
{
  gpg_error_t err;
  ks_fbpending_t pd;
  struct fb_keys keys;
  unsigned int nok;
  size_t left, nsent = 0;
  char (*sent)[KS_NAME_HEX_LEN + 1] = NULL;

  *r_fresh = 0;
  err = ks_fbstate_read_pending (path, &pd);
  if (err)
    {
      ks_ui_errorf (ui, _("can't read %s: %s; delete it to start over"),
                    path, gpg_strerror (err));
      return err;
    }
  memset (&keys, 0, sizeof keys);
  keys.want = pd.fpr;
  err = ks_gpg_list_secret (opt->homedir, fb_collect_key, &keys);
  if (err)
    {
      ks_ui_errorf (ui, _("can't list the secret keys: %s"),
                    gpg_strerror (err));
      goto leave;
    }
  if (!keys.found)
    {
      ks_ui_infof (ui, _("the key %s of the unfinished backup is gone;"
                         " starting over"), pd.fpr);
      ks_fbstate_drop_pending (opt->homedir, path, &pd.names);
      *r_fresh = 1;
      goto leave;
    }

  ks_ui_infof (ui, _("an earlier run backed up key %s but stored too few"
                     " shards; sending the shards that wait in the upload"
                     " queue"), pd.fpr);
  err = ks_queue_send (opt, ui, &sent, &nsent);
  if (err && gpg_err_code (err) != GPG_ERR_TRY_LATER)
    goto leave;
  err = ks_fbstate_servers_holding (opt->homedir, &pd.names, pd.n,
                                    (const char (*)[KS_NAME_HEX_LEN + 1])sent,
                                    nsent, &nok, &left);
  if (err)
    {
      ks_ui_errorf (ui, _("can't read the upload queue: %s"),
                    gpg_strerror (err));
      goto leave;
    }
  if (nok < pd.k)
    {
      ks_ui_errorf (ui, _("first boot is not done: the backup of %s is"
                          " still not restorable (%u of %u servers hold"
                          " their shards, %u needed); the next run tries"
                          " again"), pd.fpr, nok, pd.n, pd.k);
      err = gpg_error (GPG_ERR_TRY_LATER);
      goto leave;
    }
  if (left)
    ks_ui_infof (ui, _("the backup is restorable: %u of %u servers hold"
                       " their shards; %zu shards wait in the upload queue"
                       " for 'keysafe upload-queued'"), nok, pd.n, left);
  err = done (ui, home, pd.fpr, pd.profile, left);
  if (!err)
    unlink (path);

 leave:
  ks_free (sent);
  ks_fbstate_names_release (&pd.names);
  return err;
}


/* The key to back up into FPR: --gpgkeyid, else the first secret key,
 * else a new one (*R_CREATED set).  */
static gpg_error_t
pick_key (const ks_options_t *opt, const ks_ui_t *ui, char *fpr,
          size_t fprsize, int *r_created)
{
  gpg_error_t err = 0;
  struct fb_keys keys;
  char *userid = NULL;

  *r_created = 0;
  memset (&keys, 0, sizeof keys);
  if (opt->gpgkeyid)
    {
      err = ks_gpg_resolve_secret (opt->homedir, opt->gpgkeyid, fpr, fprsize);
      if (err)
        ks_ui_errorf (ui, _("no secret key '%s': %s"), opt->gpgkeyid,
                      gpg_strerror (err));
      else
        ks_ui_infof (ui, _("backing up the secret key %s (--gpgkeyid)"),
                     fpr);
      return err;
    }
  err = ks_gpg_list_secret (opt->homedir, fb_collect_key, &keys);
  if (err)
    {
      ks_ui_errorf (ui, _("can't list the secret keys: %s"),
                    gpg_strerror (err));
      return err;
    }
  if (keys.count)
    {
      snprintf (fpr, fprsize, "%s", keys.first);
      if (keys.count > 1)
        ks_ui_infof (ui, _("there are %u secret keys; backing up the first,"
                           " %s %s (choose another with --gpgkeyid)"),
                     keys.count, keys.first, keys.first_uid);
      else
        ks_ui_infof (ui, _("backing up the secret key %s %s"),
                     keys.first, keys.first_uid);
      return 0;
    }

  if (opt->userid && *opt->userid)
    {
      userid = gpgrt_strdup (opt->userid);
      if (!userid)
        err = gpg_error_from_syserror ();
    }
  else
    {
      err = default_userid (&userid);
      if (err)
        ks_ui_errorf (ui, _("can't make a user ID from the passwd"
                            " entry (%s); give --userid"),
                      gpg_strerror (err));
    }
  if (err)
    goto leave;
  ks_ui_infof (ui, _("no secret key yet: creating one for '%s' with"
                     " GnuPG's default algorithm%s..."), userid,
               opt->no_protection ? _(", without a passphrase") : "");
  err = ks_gpg_create_key (opt->homedir, userid, opt->no_protection,
                           fpr, fprsize);
  if (err)
    {
      ks_ui_errorf (ui, _("can't create a key for '%s': %s"), userid,
                    gpg_strerror (err));
      goto leave;
    }
  *r_created = 1;
  ks_ui_infof (ui, _("created key %s"), fpr);

 leave:
  gpgrt_free (userid);
  return err;
}

/* The servers of R that hold or will hold their shards.  */
static unsigned int
reachable (const ks_backup_result_t *r)
{
  unsigned int i, m = 0;

  for (i = 0; i < r->n; i++)
    m += r->outcome[i] == KS_BACKUP_STORED
         || r->outcome[i] == KS_BACKUP_QUEUED;
  return m;
}

/* Back up the key FPR with the face MYUI; write the marker, or the
 * pending file when too few servers took their shards.  The backup's
 * own result lands in R for the caller's face.  */
static gpg_error_t
back_up (const ks_options_t *opt, const ks_ui_t *ui, const ks_ui_t *myui,
         const char *home, const char *pending, const ks_profile_t *profile,
         const char *fpr, ks_backup_result_t *r)
{
  gpg_error_t err;
  ks_options_t o;
  ks_fbnames_t newq;

  o = *opt;
  o.gpgkeyid = fpr;
  err = ks_flow_backup (&o, myui, NULL, 0, r);
  /* What this run queued, as the backup tells it.  */
  newq.name = r->queued;
  newq.count = r->nqueued;

  if (!err)
    {
      if (newq.count)
        ks_ui_infof (ui, _("the backup counts as done: it is restorable"
                           " now; the %zu queued shards follow with"
                           " 'keysafe upload-queued'"), newq.count);
      err = done (ui, home, fpr, profile->name, newq.count);
    }
  else if (gpg_err_code (err) == GPG_ERR_TRY_LATER && newq.count)
    {
      /* Only the servers that stored or queued their shards can hold
       * them later; a refusing one, or one whose shards the queue could
       * not keep, never does.  */
      gpg_error_t err2 = ks_fbstate_write_pending (home, fpr, profile->name,
                                                   reachable (r), r->k,
                                                   &newq);
      if (err2)
        ks_ui_errorf (ui, _("can't write %s: %s"), pending,
                      gpg_strerror (err2));
      ks_ui_errorf (ui, _("first boot is not done: fewer than %u servers"
                          " hold their shards of the backup of %s; the"
                          " next run sends the queued ones"), r->k, fpr);
    }
  else
    ks_ui_errorf (ui, _("first boot is not done: the backup of %s failed"
                        " (%s); the next run tries again"), fpr,
                  gpg_strerror (err));
  return err;
}

/* Is the marker there?  Then say so.  */
static int
is_done (const ks_ui_t *ui, const char *marker)
{
  if (!ks_fbstate_exists (marker))
    return 0;
  ks_ui_infof (ui, _("first boot is done already (%s); nothing to do"),
               marker);
  return 1;
}

/* The GnuPG home (made if missing) and the run's lock.  *R_LOCKFD stays
 * -1 when another run holds it (not an error: nothing to do).  */
static gpg_error_t
lock_home (const ks_ui_t *ui, const char *home, int *r_lockfd)
{
  gpg_error_t err;

  *r_lockfd = -1;
  /* gpg makes the home itself, but the marker needs it too.  */
  if (mkdir (home, 0700) && errno != EEXIST)
    {
      err = gpg_error_from_syserror ();
      ks_ui_errorf (ui, _("can't create the GnuPG home %s: %s"), home,
                    gpg_strerror (err));
      return err;
    }
  err = ks_fbstate_lock (home, r_lockfd);
  if (gpg_err_code (err) == GPG_ERR_LOCKED)
    {
      ks_ui_infof (ui, _("another keysafe firstboot is running (%s/%s);"
                         " nothing to do"), home, KS_FBSTATE_LOCK);
      *r_lockfd = -1;
      return 0;
    }
  if (err)
    ks_ui_errorf (ui, _("can't lock %s/%s: %s"), home, KS_FBSTATE_LOCK,
                  gpg_strerror (err));
  return err;
}

gpg_error_t
ks_flow_firstboot (const ks_options_t *opt, const ks_ui_t *ui,
                   ks_firstboot_result_t *r)
{
  gpg_error_t err;
  char *home = NULL, *marker = NULL, *pending = NULL;
  const ks_profile_t *profile;
  struct fb_face fb = { opt, ui };
  ks_ui_t myui = { .arg = &fb, .progress = fb_progress, .info = fb_info,
                   .error = fb_error, .get_name = fb_get_name,
                   .get_password = fb_get_password };
  char fpr[KS_FBSTATE_FPR_SIZE];
  int created = 0, fresh, lockfd = -1;
  ks_op_t op;

  opt = ks_op_begin (&op, opt);
  memset (r, 0, sizeof *r);

  err = ks_gpg_homedir (opt->homedir, &home);
  if (err)
    {
      ks_ui_errorf (ui, _("can't find the GnuPG home: %s"),
                    gpg_strerror (err));
      goto leave;
    }
  err = ks_fbstate_path (home, KS_FBSTATE_MARKER, &marker);
  if (!err)
    err = ks_fbstate_path (home, KS_FBSTATE_PENDING, &pending);
  if (err || is_done (ui, marker))
    goto leave;
  err = lock_home (ui, home, &lockfd);
  /* The run that held the lock may have just finished.  */
  if (err || lockfd < 0 || is_done (ui, marker))
    goto leave;
  err = ks_flow_profile (opt, ui, &profile);
  if (err)
    goto leave;

  if (ks_fbstate_exists (pending))
    {
      err = resume (opt, &myui, home, pending, &fresh);
      if (err || !fresh)
        goto leave;
    }
  err = pick_key (opt, ui, fpr, sizeof fpr, &created);
  if (err)
    goto leave;
  err = back_up (opt, ui, &myui, home, pending, profile, fpr, &r->backup);
  if (err && created)
    ks_ui_infof (ui, _("the new key %s stays in the keyring"), fpr);

 leave:
  if (lockfd >= 0)
    close (lockfd);   /* releases the lock */
  ks_free (home);
  ks_free (marker);
  ks_free (pending);
  ks_op_end (&op);
  return err;
}
