/* storebackup.c - the operator's encrypted backup of a store (GPGME)
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>
#include <unistd.h>
#include <locale.h>
#include <gpgme.h>
#include "storebackup.h"
#include "archive.h"
#include "gate.h"
#include "store.h"

#define NAME_RAW_LEN KS_ARCHIVE_NAME_LEN

static gpg_error_t
gpgme_setup (gpgme_ctx_t *r_ctx)
{
  gpg_error_t err;

  *r_ctx = NULL;
  gpgme_check_version (NULL);
  gpgme_set_locale (NULL, LC_CTYPE, setlocale (LC_CTYPE, NULL));
  err = gpgme_new (r_ctx);
  if (!err)
    err = gpgme_set_protocol (*r_ctx, GPGME_PROTOCOL_OpenPGP);
  if (!err)
    gpgme_set_armor (*r_ctx, 0);
  return err;
}


/* Backup: a thread walks the store and writes the archive into a pipe,
 * which GPGME reads and encrypts; the store is never held in memory.  */

typedef struct producer
{
  const char *dir;
  int fd;                /* write end of the pipe */
  unsigned long count;
  gpg_error_t err;
  uint8_t buf[65536];
} producer_t;

static gpg_error_t
produce_one (void *opaque, const char *name, int fd, uint64_t size)
{
  producer_t *pr = opaque;
  uint8_t head[1 + NAME_RAW_LEN + 4];
  gpg_error_t err;
  uint64_t left = size;
  ssize_t n;

  if (size > UINT32_MAX)
    return gpg_error (GPG_ERR_TOO_LARGE);
  head[0] = 'S';
  err = ks_hex_decode (name, head + 1, NAME_RAW_LEN);
  if (err)
    return err;
  ks_put_be32 (head + 1 + NAME_RAW_LEN, (uint32_t)size);
  err = ks_write_all (pr->fd, head, sizeof head);
  while (!err && left)
    {
      n = read (fd, pr->buf, left < sizeof pr->buf ? left : sizeof pr->buf);
      if (n < 0 && errno == EINTR)
        continue;
      if (n <= 0)
        return n ? gpg_error_from_syserror () : gpg_error (GPG_ERR_TRUNCATED);
      err = ks_write_all (pr->fd, pr->buf, n);
      left -= n;
    }
  if (!err)
    pr->count++;
  return err;
}

static void *
producer_thread (void *arg)
{
  producer_t *pr = arg;
  uint8_t tail[9];

  pr->err = ks_write_all (pr->fd, KS_ARCHIVE_MAGIC, KS_ARCHIVE_MAGIC_LEN);
  if (!pr->err)
    pr->err = ks_store_walk (pr->dir, produce_one, pr);
  if (!pr->err)
    {
      tail[0] = 'E';
      ks_put_be64 (tail + 1, pr->count);
      pr->err = ks_write_all (pr->fd, tail, sizeof tail);
    }
  /* Closing the pipe ends GPGME's input; after an error the archive
   * lacks its end record, and the caller throws the output away.  */
  close (pr->fd);
  pr->fd = -1;
  return NULL;
}

/* FILE.N into BUF.  */
static gpg_error_t
numbered (char *buf, size_t size, const char *file, int n)
{
  int len = n ? snprintf (buf, size, "%s.%d", file, n)
              : snprintf (buf, size, "%s", file);

  if (len < 0 || (size_t)len >= size)
    return gpg_error (GPG_ERR_TOO_LARGE);
  return 0;
}

/* FILE.5 -> FILE.6, ..., FILE -> FILE.1, then NEWFILE -> FILE.  */
static gpg_error_t
rotate (const char *file, const char *newfile)
{
  char from[4096], to[4096];
  gpg_error_t err;
  int n;

  for (n = KS_BACKUP_KEEP - 1; n > 0; n--)
    {
      err = numbered (from, sizeof from, file, n - 1);
      if (!err)
        err = numbered (to, sizeof to, file, n);
      if (err)
        return err;
      if (rename (from, to) && errno != ENOENT)
        return gpg_error_from_syserror ();
    }
  if (rename (newfile, file))
    return gpg_error_from_syserror ();
  return 0;
}

gpg_error_t
ks_backup_store (const char *dir, const char *file, const char *recipient,
                 const char *signer, unsigned long *r_count)
{
  gpg_error_t err;
  gpgme_ctx_t ctx = NULL;
  gpgme_key_t key = NULL, skey = NULL;
  gpgme_key_t keys[2] = { NULL, NULL };
  gpgme_data_t in = NULL, out = NULL;
  producer_t *pr = NULL;
  pthread_t thread;
  int pipefd[2] = { -1, -1 }, outfd = -1;
  char tmpname[4096];

  *r_count = 0;
  if (snprintf (tmpname, sizeof tmpname, "%s.tmp", file)
      >= (int)sizeof tmpname)
    return gpg_error (GPG_ERR_TOO_LARGE);

  err = gpgme_setup (&ctx);
  if (err)
    goto leave;
  err = gpgme_get_key (ctx, recipient, &key, 0);
  if (!err)
    err = gpgme_get_key (ctx, signer, &skey, 1);
  if (!err)
    err = gpgme_signers_add (ctx, skey);
  if (err)
    goto leave;
  keys[0] = key;

  pr = calloc (1, sizeof *pr);
  if (!pr)
    {
      err = gpg_error_from_syserror ();
      goto leave;
    }
  pr->dir = dir;
  if (pipe (pipefd))
    {
      err = gpg_error_from_syserror ();
      goto leave;
    }
  outfd = open (tmpname, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW,
                0600);
  if (outfd < 0)
    {
      err = gpg_error_from_syserror ();
      goto leave;
    }
  err = gpgme_data_new_from_fd (&in, pipefd[0]);
  if (!err)
    err = gpgme_data_new_from_fd (&out, outfd);
  if (err)
    goto leave;

  pr->fd = pipefd[1];
  pipefd[1] = -1;
  if (pthread_create (&thread, NULL, producer_thread, pr))
    {
      err = gpg_error_from_syserror ();
      close (pr->fd);
      goto leave;
    }
  err = gpgme_op_encrypt_sign (ctx, keys, GPGME_ENCRYPT_ALWAYS_TRUST, in,
                               out);
  if (err)
    {
      /* Unblock the producer if GPGME stopped reading.  */
      close (pipefd[0]);
      pipefd[0] = -1;
    }
  pthread_join (thread, NULL);
  if (!err)
    err = pr->err;
  if (!err)
    {
      gpgme_encrypt_result_t res = gpgme_op_encrypt_result (ctx);
      if (res && res->invalid_recipients)
        err = gpg_error (GPG_ERR_UNUSABLE_PUBKEY);
    }
  if (!err && fsync (outfd))
    err = gpg_error_from_syserror ();
  if (!err && close (outfd))
    err = gpg_error_from_syserror ();
  outfd = -1;
  if (!err)
    err = rotate (file, tmpname);
  if (!err)
    *r_count = pr->count;

 leave:
  gpgme_data_release (in);
  gpgme_data_release (out);
  if (outfd >= 0)
    close (outfd);
  if (err)
    unlink (tmpname);
  if (pipefd[0] >= 0)
    close (pipefd[0]);
  if (pipefd[1] >= 0)
    close (pipefd[1]);
  free (pr);
  gpgme_key_unref (key);
  gpgme_key_unref (skey);
  gpgme_release (ctx);
  return err;
}


/* Restore, in two passes, so that nothing is stored from an archive
 * that is not whole and signed: GPGME decrypts and verifies the file
 * into an unnamed temp file in the store's filesystem while the parser
 * checks the archive's form; only when the archive is complete and the
 * signature is the operator's is the temp file read back and stored.  */

typedef struct spool
{
  ks_archive_t *check;    /* parser without a callback */
  int fd;
  gpg_error_t err;
} spool_t;

static ssize_t
spool_write (void *handle, const void *buffer, size_t size)
{
  spool_t *sp = handle;

  if (!sp->err)
    sp->err = ks_archive_feed (sp->check, buffer, size);
  if (!sp->err)
    sp->err = ks_write_all (sp->fd, buffer, size);
  if (sp->err)
    {
      errno = EIO;
      return -1;
    }
  return size;
}

/* An unnamed file in DIR, gone with its last descriptor.  */
static int
open_spool (const char *dir)
{
  char tmpl[4096];
  int fd;

  fd = open (dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
  if (fd >= 0 || (errno != EOPNOTSUPP && errno != EISDIR))
    return fd;
  if (snprintf (tmpl, sizeof tmpl, "%s/%sXXXXXX", dir, KS_SHARDSTORE_TMP_PREFIX)
      >= (int)sizeof tmpl)
    {
      errno = ENAMETOOLONG;
      return -1;
    }
  fd = mkostemp (tmpl, O_CLOEXEC);
  if (fd >= 0)
    unlink (tmpl);
  return fd;
}

/* Good when one valid signature was made by SIGNER's key.  */
static gpg_error_t
check_signer (gpgme_ctx_t ctx, const char *signer)
{
  gpgme_verify_result_t vr = gpgme_op_verify_result (ctx);
  gpgme_signature_t sig;
  gpgme_subkey_t sub;
  gpgme_key_t key = NULL;
  gpg_error_t err;

  err = gpgme_get_key (ctx, signer, &key, 0);
  if (err)
    return err;
  err = gpg_error (GPG_ERR_BAD_SIGNATURE);
  for (sig = vr ? vr->signatures : NULL; sig && err; sig = sig->next)
    for (sub = key->subkeys; sub && err; sub = sub->next)
      if (!sig->status && sig->fpr && sub->fpr
          && !strcasecmp (sig->fpr, sub->fpr))
        err = 0;
  gpgme_key_unref (key);
  return err;
}

/* Pass 1: decrypt and verify FILE into SP->fd, checking the form.  */
static gpg_error_t
decrypt_to_spool (const char *file, const char *signer, spool_t *sp)
{
  gpg_error_t err;
  gpgme_ctx_t ctx = NULL;
  gpgme_data_t in = NULL, out = NULL;
  struct gpgme_data_cbs cbs = { NULL, spool_write, NULL, NULL };
  uint64_t count;
  int infd;

  infd = open (file, O_RDONLY | O_CLOEXEC);
  if (infd < 0)
    return gpg_error_from_syserror ();
  err = gpgme_setup (&ctx);
  if (!err)
    err = gpgme_data_new_from_fd (&in, infd);
  if (!err)
    err = gpgme_data_new_from_cbs (&out, &cbs, sp);
  if (!err)
    err = gpgme_op_decrypt_verify (ctx, in, out);
  if (sp->err)
    err = sp->err;
  if (!err)
    err = ks_archive_finish (sp->check, &count);
  if (!err)
    err = check_signer (ctx, signer);
  gpgme_data_release (in);
  gpgme_data_release (out);
  gpgme_release (ctx);
  close (infd);
  return err;
}

typedef struct storer
{
  ks_store_t *store;
  unsigned long added, skipped;
} storer_t;

static gpg_error_t
store_one (void *opaque, const char *name, const uint8_t *data, size_t len)
{
  storer_t *st = opaque;
  gpg_error_t err = ks_store_put (st->store, name, data, len, 0);

  if (gpg_err_code (err) == GPG_ERR_EEXIST)
    st->skipped++;
  else if (err)
    return err;
  else
    st->added++;
  return 0;
}

/* Pass 2: the checked archive in FD into the store.  */
static gpg_error_t
store_spool (int fd, size_t max_shard, const size_t *sizes,
             unsigned int nsizes, storer_t *st)
{
  gpg_error_t err;
  ks_archive_t *ar = NULL;
  uint8_t buf[65536];
  uint64_t count;
  ssize_t n;

  if (lseek (fd, 0, SEEK_SET))
    return gpg_error_from_syserror ();
  err = ks_archive_new (max_shard, store_one, st, &ar);
  if (!err)
    ks_archive_only_sizes (ar, sizes, nsizes);
  while (!err)
    {
      n = read (fd, buf, sizeof buf);
      if (n < 0 && errno == EINTR)
        continue;
      if (n < 0)
        err = gpg_error_from_syserror ();
      if (n <= 0)
        break;
      err = ks_archive_feed (ar, buf, n);
    }
  if (!err)
    err = ks_archive_finish (ar, &count);
  ks_archive_free (ar);
  return err;
}

gpg_error_t
ks_restore_store (const char *dir, const char *file, const char *signer,
                  size_t max_shard, unsigned long *r_added,
                  unsigned long *r_skipped)
{
  gpg_error_t err;
  spool_t sp = { NULL, -1, 0 };
  storer_t st = { NULL, 0, 0 };
  size_t sizes[8];
  unsigned int nsizes;
  uint64_t bad_index;
  size_t bad_len;

  *r_added = *r_skipped = 0;
  /* Only the sizes a PUT may have: a shard of any other size is not one
   * this server could have stored, and no client would ever fetch it.  */
  err = ks_gate_profile_sizes (max_shard, sizes, KS_DIM (sizes), &nsizes);
  if (!err)
    err = ks_store_open (dir, &st.store, NULL);
  if (!err)
    err = ks_archive_new (max_shard, NULL, NULL, &sp.check);
  if (err)
    goto leave;
  ks_archive_only_sizes (sp.check, sizes, nsizes);
  sp.fd = open_spool (dir);
  if (sp.fd < 0)
    {
      err = gpg_error_from_syserror ();
      goto leave;
    }
  err = decrypt_to_spool (file, signer, &sp);
  if (gpg_err_code (err) == GPG_ERR_INV_LENGTH)
    {
      ks_archive_bad_record (sp.check, &bad_index, &bad_len);
      gpgrt_log_error (_("shard %llu of the archive has %zu bytes, "
                         "not the size of an object: nothing restored\n"),
                       (unsigned long long)bad_index + 1, bad_len);
    }
  if (!err)
    err = store_spool (sp.fd, max_shard, sizes, nsizes, &st);
  *r_added = st.added;
  *r_skipped = st.skipped;

 leave:
  if (sp.fd >= 0)
    close (sp.fd);
  ks_archive_free (sp.check);
  ks_store_close (st.store);
  return err;
}
