/* storebackup.c - the operator's encrypted backup of a store (GPGME)
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <locale.h>
#include <gpgme.h>
#include "storebackup.h"
#include "store.h"
#include "io.h"

#define ARCHIVE_MAGIC "KSSTORE1"
#define ARCHIVE_MAGIC_LEN 8
#define NAME_RAW_LEN (KS_NAME_HEX_LEN / 2)

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

  pr->err = ks_write_all (pr->fd, ARCHIVE_MAGIC, ARCHIVE_MAGIC_LEN);
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
                 unsigned long *r_count)
{
  gpg_error_t err;
  gpgme_ctx_t ctx = NULL;
  gpgme_key_t key = NULL;
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
  err = gpgme_op_encrypt (ctx, keys, GPGME_ENCRYPT_ALWAYS_TRUST, in, out);
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
  gpgme_release (ctx);
  return err;
}


/* Restore: GPGME writes the plaintext into a callback that parses the
 * archive as it streams and stores each shard.  */

typedef enum { ST_MAGIC, ST_TYPE, ST_HEAD, ST_BODY, ST_TAIL, ST_DONE } pstate_t;

typedef struct consumer
{
  ks_store_t *store;
  size_t max_shard;
  pstate_t state;
  uint8_t small[ARCHIVE_MAGIC_LEN + NAME_RAW_LEN + 4];
  size_t have;            /* bytes in SMALL or BODY */
  uint8_t *body;
  size_t bodylen;
  char name[KS_NAME_HEX_LEN + 1];
  unsigned long added, skipped, seen;
  gpg_error_t err;
} consumer_t;

/* Collect up to NEED bytes into C->small.  Returns 1 when complete.  */
static int
collect (consumer_t *c, const uint8_t **p, size_t *len, size_t need)
{
  size_t take = need - c->have;

  if (take > *len)
    take = *len;
  memcpy (c->small + c->have, *p, take);
  c->have += take;
  *p += take;
  *len -= take;
  return c->have == need;
}

static gpg_error_t
consume (consumer_t *c, const uint8_t *p, size_t len)
{
  gpg_error_t err;
  size_t take;

  while (len)
    switch (c->state)
      {
      case ST_MAGIC:
        if (collect (c, &p, &len, ARCHIVE_MAGIC_LEN))
          {
            if (memcmp (c->small, ARCHIVE_MAGIC, ARCHIVE_MAGIC_LEN))
              return gpg_error (GPG_ERR_INV_DATA);
            c->have = 0;
            c->state = ST_TYPE;
          }
        break;
      case ST_TYPE:
        if (*p == 'S')
          c->state = ST_HEAD;
        else if (*p == 'E')
          c->state = ST_TAIL;
        else
          return gpg_error (GPG_ERR_INV_DATA);
        p++, len--;
        break;
      case ST_HEAD:
        if (collect (c, &p, &len, NAME_RAW_LEN + 4))
          {
            ks_hex_encode (c->small, NAME_RAW_LEN, c->name);
            c->bodylen = ks_get_be32 (c->small + NAME_RAW_LEN);
            if (!c->bodylen || c->bodylen > c->max_shard)
              return gpg_error (GPG_ERR_INV_DATA);
            c->have = 0;
            c->state = ST_BODY;
          }
        break;
      case ST_BODY:
        take = c->bodylen - c->have;
        if (take > len)
          take = len;
        memcpy (c->body + c->have, p, take);
        c->have += take;
        p += take;
        len -= take;
        if (c->have == c->bodylen)
          {
            err = ks_store_put (c->store, c->name, c->body, c->bodylen, 0);
            if (gpg_err_code (err) == GPG_ERR_EEXIST)
              c->skipped++;
            else if (err)
              return err;
            else
              c->added++;
            c->seen++;
            c->have = 0;
            c->state = ST_TYPE;
          }
        break;
      case ST_TAIL:
        if (collect (c, &p, &len, 8))
          {
            if (ks_get_be64 (c->small) != c->seen)
              return gpg_error (GPG_ERR_TRUNCATED);
            c->state = ST_DONE;
          }
        break;
      case ST_DONE:
        return gpg_error (GPG_ERR_INV_DATA);  /* trailing garbage */
      }
  return 0;
}

static ssize_t
consumer_write (void *handle, const void *buffer, size_t size)
{
  consumer_t *c = handle;

  if (c->err)
    {
      errno = EIO;
      return -1;
    }
  c->err = consume (c, buffer, size);
  if (c->err)
    {
      errno = EIO;
      return -1;
    }
  return size;
}

gpg_error_t
ks_restore_store (const char *dir, const char *file, size_t max_shard,
                  unsigned long *r_added, unsigned long *r_skipped)
{
  gpg_error_t err;
  gpgme_ctx_t ctx = NULL;
  gpgme_data_t in = NULL, out = NULL;
  struct gpgme_data_cbs cbs = { NULL, consumer_write, NULL, NULL };
  consumer_t c;
  int infd = -1;

  *r_added = *r_skipped = 0;
  memset (&c, 0, sizeof c);
  c.max_shard = max_shard;
  c.body = malloc (max_shard ? max_shard : 1);
  if (!c.body)
    return gpg_error_from_syserror ();
  err = ks_store_open (dir, &c.store, NULL);
  if (err)
    goto leave;

  err = gpgme_setup (&ctx);
  if (err)
    goto leave;
  infd = open (file, O_RDONLY | O_CLOEXEC);
  if (infd < 0)
    {
      err = gpg_error_from_syserror ();
      goto leave;
    }
  err = gpgme_data_new_from_fd (&in, infd);
  if (!err)
    err = gpgme_data_new_from_cbs (&out, &cbs, &c);
  if (err)
    goto leave;
  err = gpgme_op_decrypt (ctx, in, out);
  if (c.err)
    err = c.err;
  if (!err && c.state != ST_DONE)
    err = gpg_error (GPG_ERR_TRUNCATED);
  *r_added = c.added;
  *r_skipped = c.skipped;

 leave:
  gpgme_data_release (in);
  gpgme_data_release (out);
  if (infd >= 0)
    close (infd);
  gpgme_release (ctx);
  ks_store_close (c.store);
  free (c.body);
  return err;
}
