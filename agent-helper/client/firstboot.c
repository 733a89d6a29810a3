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
 * The files are written by fbstate.c; none holds a secret.  The outcome
 * goes back as a ks_firstboot_result_t for the face to phrase; only the
 * steps before long work are told as they start.
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
 * entry, or "<login@host>" when the GECOS name is empty or unusable
 * (ks_malloc'd).  */
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
    *r_uid = ks_strdup_gpgrt (gpgrt_bsprintf ("%s <%s@%s>", gecos,
                                              pw->pw_name, host));
  else
    *r_uid = ks_strdup_gpgrt (gpgrt_bsprintf ("<%s@%s>", pw->pw_name,
                                              host));
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


/* Note in R why the run failed; returns ERR.  */
static gpg_error_t
fail (ks_firstboot_result_t *r, ks_firstboot_failure_t why, gpg_error_t err,
      const char *file)
{
  r->outcome = KS_FIRSTBOOT_FAILED;
  r->failure = why;
  r->detail = err;
  r->file = file;
  return err;
}

/* Write the marker: the run is done.  */
static gpg_error_t
done (ks_firstboot_result_t *r, const char *fpr, const char *profile,
      size_t queued)
{
  gpg_error_t err = ks_fbstate_write_marker (r->home, fpr, profile, queued);

  if (err)
    return fail (r, KS_FIRSTBOOT_MARKER, err, KS_FBSTATE_MARKER);
  r->outcome = KS_FIRSTBOOT_DONE;
  r->file = KS_FBSTATE_MARKER;
  return 0;
}

/* Finish the backup an earlier run left pending in PATH.  *R_FRESH is
 * set when its key is gone and a new start is needed.  */
static gpg_error_t
resume (const ks_options_t *opt, const ks_ui_t *ui, const char *path,
        ks_firstboot_result_t *r, int *r_fresh)
{
  gpg_error_t err;
  ks_fbpending_t pd;
  struct fb_keys keys;

  *r_fresh = 0;
  err = ks_fbstate_read_pending (path, &pd);
  if (err)
    return fail (r, KS_FIRSTBOOT_PENDING_READ, err, KS_FBSTATE_PENDING);
  memset (&keys, 0, sizeof keys);
  keys.want = pd.fpr;
  err = ks_gpg_list_secret (opt->homedir, fb_collect_key, &keys);
  if (err)
    {
      fail (r, KS_FIRSTBOOT_LIST_KEYS, err, NULL);
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

  r->resumed = 1;
  snprintf (r->fpr, sizeof r->fpr, "%s", pd.fpr);
  snprintf (r->profile, sizeof r->profile, "%s", pd.profile);
  r->n = pd.n;
  r->k = pd.k;
  ks_ui_infof (ui, _("an earlier run backed up key %s but stored too few"
                     " shards; sending the shards that wait in the upload"
                     " queue"), pd.fpr);
  err = ks_queue_send (opt, ui, &r->queue);
  if (err && gpg_err_code (err) != GPG_ERR_TRY_LATER)
    {
      fail (r, r->queue.failure == KS_QUEUE_UNREADABLE
            ? KS_FIRSTBOOT_QUEUE : KS_FIRSTBOOT_BACKUP, err, NULL);
      goto leave;
    }
  err = ks_fbstate_servers_holding (opt->homedir, &pd.names, pd.n,
                                    (const char (*)[KS_NAME_HEX_LEN + 1])
                                    r->queue.sent, r->queue.nsent,
                                    &r->holding, &r->queued);
  if (err)
    fail (r, KS_FIRSTBOOT_QUEUE, err, NULL);
  else if (r->holding < pd.k)
    err = fail (r, KS_FIRSTBOOT_NOT_RESTORABLE,
                gpg_error (GPG_ERR_TRY_LATER), NULL);
  else if (!(err = done (r, pd.fpr, pd.profile, r->queued)))
    unlink (path);

 leave:
  ks_fbstate_names_release (&pd.names);
  return err;
}


/* The key to back up into R->fpr: --gpgkeyid, else the first secret
 * key, else a new one (R->created set).  */
static gpg_error_t
pick_key (const ks_options_t *opt, const ks_ui_t *ui,
          ks_firstboot_result_t *r)
{
  gpg_error_t err = 0;
  struct fb_keys keys;

  memset (&keys, 0, sizeof keys);
  if (opt->gpgkeyid)
    {
      err = ks_gpg_resolve_secret (opt->homedir, opt->gpgkeyid, r->fpr,
                                   sizeof r->fpr);
      if (err)
        {
          r->keyid = opt->gpgkeyid;
          return fail (r, KS_FIRSTBOOT_NO_KEY, err, NULL);
        }
      ks_ui_infof (ui, _("backing up the secret key %s (--gpgkeyid)"),
                   r->fpr);
      return 0;
    }
  err = ks_gpg_list_secret (opt->homedir, fb_collect_key, &keys);
  if (err)
    return fail (r, KS_FIRSTBOOT_LIST_KEYS, err, NULL);
  if (keys.count)
    {
      snprintf (r->fpr, sizeof r->fpr, "%s", keys.first);
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
      r->userid = ks_strdup (opt->userid);
      if (!r->userid)
        return gpg_error_from_syserror ();
    }
  else if ((err = default_userid (&r->userid)))
    return fail (r, KS_FIRSTBOOT_USERID, err, NULL);
  ks_ui_infof (ui, _("no secret key yet: creating one for '%s' with"
                     " GnuPG's default algorithm%s..."), r->userid,
               opt->no_protection ? _(", without a passphrase") : "");
  err = ks_gpg_create_key (opt->homedir, r->userid, opt->no_protection,
                           r->fpr, sizeof r->fpr);
  if (err)
    return fail (r, KS_FIRSTBOOT_CREATE_KEY, err, NULL);
  r->created = 1;
  ks_ui_infof (ui, _("created key %s"), r->fpr);
  return 0;
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

/* Back up the key R->fpr with the face MYUI; write the marker, or the
 * pending file when too few servers took their shards.  The backup's
 * own result lands in R->backup.  */
static gpg_error_t
back_up (const ks_options_t *opt, const ks_ui_t *myui,
         const ks_profile_t *profile, ks_firstboot_result_t *r)
{
  gpg_error_t err, err2;
  ks_options_t o;
  ks_fbnames_t newq;

  o = *opt;
  o.gpgkeyid = r->fpr;
  err = ks_flow_backup (&o, myui, NULL, 0, &r->backup);
  snprintf (r->profile, sizeof r->profile, "%s", profile->name);
  r->n = r->backup.n;
  r->k = r->backup.k;
  r->holding = r->backup.nstored;
  /* What this run queued, as the backup tells it.  */
  newq.name = r->backup.queued;
  newq.count = r->backup.nqueued;
  r->queued = newq.count;

  if (!err)
    return done (r, r->fpr, profile->name, newq.count);
  if (gpg_err_code (err) != GPG_ERR_TRY_LATER || !newq.count)
    return fail (r, KS_FIRSTBOOT_BACKUP, err, NULL);

  /* Only the servers that stored or queued their shards can hold them
   * later; a refusing one, or one whose shards the queue could not
   * keep, never does.  */
  err2 = ks_fbstate_write_pending (r->home, r->fpr, profile->name,
                                   reachable (&r->backup), r->k, &newq);
  if (err2)
    fail (r, KS_FIRSTBOOT_PENDING_WRITE, err2, KS_FBSTATE_PENDING);
  else
    r->outcome = KS_FIRSTBOOT_PENDING;
  return err;
}

/* The GnuPG home (made if missing) and the run's lock.  *R_LOCKFD stays
 * -1 when another run holds it (not an error: nothing to do).  */
static gpg_error_t
lock_home (ks_firstboot_result_t *r, int *r_lockfd)
{
  gpg_error_t err;

  *r_lockfd = -1;
  /* gpg makes the home itself, but the marker needs it too.  */
  if (mkdir (r->home, 0700) && errno != EEXIST)
    return fail (r, KS_FIRSTBOOT_NO_HOME, gpg_error_from_syserror (), NULL);
  err = ks_fbstate_lock (r->home, r_lockfd);
  if (gpg_err_code (err) == GPG_ERR_LOCKED)
    {
      r->outcome = KS_FIRSTBOOT_BUSY;
      r->file = KS_FBSTATE_LOCK;
      *r_lockfd = -1;
      return 0;
    }
  if (err)
    fail (r, KS_FIRSTBOOT_LOCK, err, KS_FBSTATE_LOCK);
  return err;
}

/* Is the marker there?  */
static int
is_done (ks_firstboot_result_t *r, const char *marker)
{
  if (!ks_fbstate_exists (marker))
    return 0;
  r->outcome = KS_FIRSTBOOT_ALREADY;
  r->file = KS_FBSTATE_MARKER;
  return 1;
}

void
ks_firstboot_result_release (ks_firstboot_result_t *r)
{
  if (!r)
    return;
  ks_free (r->home);
  ks_free (r->userid);
  ks_backup_result_release (&r->backup);
  ks_queue_result_release (&r->queue);
  memset (r, 0, sizeof *r);
}

gpg_error_t
ks_flow_firstboot (const ks_options_t *opt, const ks_ui_t *ui,
                   ks_firstboot_result_t *r)
{
  gpg_error_t err;
  char *marker = NULL, *pending = NULL;
  const ks_profile_t *profile;
  struct fb_face fb = { opt, ui };
  ks_ui_t myui = { .arg = &fb, .progress = fb_progress, .info = fb_info,
                   .error = fb_error, .get_name = fb_get_name,
                   .get_password = fb_get_password };
  int fresh, lockfd = -1;
  ks_op_t op;

  opt = ks_op_begin (&op, opt);
  memset (r, 0, sizeof *r);

  err = ks_gpg_homedir (opt->homedir, &r->home);
  if (err)
    {
      fail (r, KS_FIRSTBOOT_NO_HOME, err, NULL);
      goto leave;
    }
  err = ks_fbstate_path (r->home, KS_FBSTATE_MARKER, &marker);
  if (!err)
    err = ks_fbstate_path (r->home, KS_FBSTATE_PENDING, &pending);
  if (err || is_done (r, marker))
    goto leave;
  err = lock_home (r, &lockfd);
  /* The run that held the lock may have just finished.  */
  if (err || lockfd < 0 || is_done (r, marker))
    goto leave;
  err = ks_flow_profile (opt, ui, &profile);
  if (err)
    goto leave;

  if (ks_fbstate_exists (pending))
    {
      err = resume (opt, &myui, pending, r, &fresh);
      if (err || !fresh)
        goto leave;
    }
  err = pick_key (opt, ui, r);
  if (!err)
    err = back_up (opt, &myui, profile, r);

 leave:
  if (lockfd >= 0)
    close (lockfd);   /* releases the lock */
  ks_free (marker);
  ks_free (pending);
  ks_op_end (&op);
  return err;
}
