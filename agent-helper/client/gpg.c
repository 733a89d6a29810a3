/* gpg.c - the GnuPG side: export, import and key listing via GPGME
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The exported secret never passes through GPGME's own memory buffers:
 * a callback data object writes it straight into a secure ks_buf.
 */
#include <config.h>
#include <stdlib.h>
#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <gpgme.h>
#include "gpg.h"

static pthread_once_t gpgme_once = PTHREAD_ONCE_INIT;
static int gpgme_ok;

static void
do_gpgme_init (void)
{
  if (gpgme_check_version ("1.18.0"))
    {
      gpgme_set_locale (NULL, LC_CTYPE, setlocale (LC_CTYPE, NULL));
      gpgme_ok = 1;
    }
}

gpg_error_t
ks_gpg_init (void)
{
  pthread_once (&gpgme_once, do_gpgme_init);
  return gpgme_ok ? 0 : gpg_error (GPG_ERR_NOT_SUPPORTED);
}

static gpg_error_t
new_ctx (const char *homedir, gpgme_ctx_t *r_ctx)
{
  gpg_error_t err;
  gpgme_ctx_t ctx = NULL;

  *r_ctx = NULL;
  err = ks_gpg_init ();
  if (err)
    return err;
  err = gpgme_new (&ctx);
  if (err)
    return err;
  gpgme_set_protocol (ctx, GPGME_PROTOCOL_OpenPGP);
  if (homedir)
    {
      err = gpgme_ctx_set_engine_info (ctx, GPGME_PROTOCOL_OpenPGP,
                                       NULL, homedir);
      if (err)
        {
          gpgme_release (ctx);
          return err;
        }
    }
  *r_ctx = ctx;
  return 0;
}

static ssize_t
secbuf_write (void *handle, const void *buffer, size_t size)
{
  ks_buf_t *buf = handle;

  if (ks_buf_append (buf, buffer, size))
    {
      gpg_err_set_errno (EFBIG);
      return -1;
    }
  return size;
}

gpg_error_t
ks_gpg_export_secret (const char *homedir, const char *keyid,
                      uint8_t **r_data, size_t *r_len, char **r_fpr)
{
  gpg_error_t err;
  gpgme_ctx_t ctx = NULL;
  gpgme_data_t out = NULL;
  gpgme_key_t key = NULL;
  ks_buf_t *buf = NULL;
  struct gpgme_data_cbs cbs = { NULL, secbuf_write, NULL, NULL };

  *r_data = NULL;
  *r_len = 0;
  if (r_fpr)
    *r_fpr = NULL;

  err = new_ctx (homedir, &ctx);
  if (err)
    goto leave;
  /* Resolve KEYID to exactly one secret key first: an export pattern
   * could match several keys, and the user must know which one.  */
  err = gpgme_get_key (ctx, keyid, &key, 1);
  if (gpg_err_code (err) == GPG_ERR_EOF || (!err && !key))
    err = gpg_error (GPG_ERR_NO_SECKEY);
  if (err)
    goto leave;

  err = ks_buf_new (KS_MAX_SECRET, 1, &buf);
  if (err)
    goto leave;
  err = gpgme_data_new_from_cbs (&out, &cbs, buf);
  if (!err)
    err = gpgme_data_set_flag (out, "sensitive", "1");
  if (err)
    goto leave;
  err = gpgme_op_export (ctx, key->fpr,
                         GPGME_EXPORT_MODE_SECRET | GPGME_EXPORT_MODE_MINIMAL,
                         out);
  if (err)
    goto leave;
  if (!buf->len)
    {
      err = gpg_error (GPG_ERR_NO_SECKEY);
      goto leave;
    }
  *r_data = ks_malloc_secure (buf->len);
  if (!*r_data)
    {
      err = gpg_error_from_syserror ();
      goto leave;
    }
  memcpy (*r_data, buf->data, buf->len);
  *r_len = buf->len;
  if (r_fpr)
    {
      *r_fpr = ks_strdup (key->fpr);
      if (!*r_fpr)
        {
          err = gpg_error_from_syserror ();
          ks_free_secret (*r_data, *r_len);
          *r_data = NULL;
          *r_len = 0;
        }
    }

 leave:
  gpgme_data_release (out);
  ks_buf_free (buf);
  gpgme_key_unref (key);
  gpgme_release (ctx);
  return err;
}

gpg_error_t
ks_gpg_import (const char *homedir, const uint8_t *data, size_t len,
               char **r_fpr)
{
  gpg_error_t err;
  gpgme_ctx_t ctx = NULL;
  gpgme_data_t in = NULL;
  gpgme_import_result_t res;
  gpgme_import_status_t st;

  *r_fpr = NULL;
  err = new_ctx (homedir, &ctx);
  if (err)
    goto leave;
  /* No copy: GPGME reads the secret where it is.  */
  err = gpgme_data_new_from_mem (&in, (const char *)data, len, 0);
  /* Key material: GPGME wipes what it copies of it.  */
  if (!err)
    err = gpgme_data_set_flag (in, "sensitive", "1");
  if (err)
    goto leave;
  err = gpgme_op_import (ctx, in);
  if (err)
    goto leave;
  res = gpgme_op_import_result (ctx);
  if (!res || (!res->secret_imported && !res->secret_unchanged))
    {
      err = gpg_error (GPG_ERR_NO_SECKEY);
      goto leave;
    }
  for (st = res->imports; st; st = st->next)
    if (!st->result && st->fpr)
      {
        *r_fpr = ks_strdup (st->fpr);
        if (!*r_fpr)
          err = gpg_error_from_syserror ();
        break;
      }

 leave:
  gpgme_data_release (in);
  gpgme_release (ctx);
  return err;
}

gpg_error_t
ks_gpg_list_secret (const char *homedir,
                    void (*cb) (void *arg, const char *fpr, const char *uid),
                    void *arg)
{
  gpg_error_t err;
  gpgme_ctx_t ctx = NULL;
  gpgme_key_t key;

  err = new_ctx (homedir, &ctx);
  if (err)
    goto leave;
  err = gpgme_op_keylist_start (ctx, NULL, 1);
  /* Bounded by the keyring: keylist_next ends with EOF.  */
  while (!err)
    {
      err = gpgme_op_keylist_next (ctx, &key);
      if (err)
        break;
      if (key->fpr && key->secret)
        cb (arg, key->fpr, key->uids && key->uids->uid ? key->uids->uid : "");
      gpgme_key_unref (key);
    }
  if (gpg_err_code (err) == GPG_ERR_EOF)
    err = 0;

 leave:
  gpgme_release (ctx);
  return err;
}

/* The fingerprint of the one secret key KEYID names, into FPR.  */
gpg_error_t
ks_gpg_resolve_secret (const char *homedir, const char *keyid, char *fpr,
                       size_t fprsize)
{
  gpg_error_t err;
  gpgme_ctx_t ctx = NULL;
  gpgme_key_t key = NULL;

  *fpr = 0;
  err = new_ctx (homedir, &ctx);
  if (err)
    goto leave;
  err = gpgme_get_key (ctx, keyid, &key, 1);
  if (gpg_err_code (err) == GPG_ERR_EOF || (!err && (!key || !key->fpr)))
    err = gpg_error (GPG_ERR_NO_SECKEY);
  if (!err && strlen (key->fpr) >= fprsize)
    err = gpg_error (GPG_ERR_INV_DATA);
  if (!err)
    snprintf (fpr, fprsize, "%s", key->fpr);

 leave:
  gpgme_key_unref (key);
  gpgme_release (ctx);
  return err;
}

/* Make a key for USERID with GnuPG's default algorithm; its
 * fingerprint goes to FPR.  gpg-agent protects it in the normal way
 * (it asks for a passphrase through pinentry) unless NO_PROTECTION.  */
gpg_error_t
ks_gpg_create_key (const char *homedir, const char *userid,
                   int no_protection, char *fpr, size_t fprsize)
{
  gpg_error_t err;
  gpgme_ctx_t ctx = NULL;
  gpgme_genkey_result_t res;

  *fpr = 0;
  err = new_ctx (homedir, &ctx);
  if (err)
    goto leave;
  /* ALGO NULL is "default": primary key and encryption subkey as the
   * installed GnuPG makes them; EXPIRES 0 is GnuPG's default too.  */
  err = gpgme_op_createkey (ctx, userid, NULL, 0, 0, NULL,
                            no_protection ? GPGME_CREATE_NOPASSWD : 0);
  if (err)
    goto leave;
  res = gpgme_op_genkey_result (ctx);
  if (!res || !res->fpr || strlen (res->fpr) >= fprsize)
    {
      err = gpg_error (GPG_ERR_GENERAL);
      goto leave;
    }
  /* Copied: the next operation on CTX frees the result.  */
  snprintf (fpr, fprsize, "%s", res->fpr);

 leave:
  gpgme_release (ctx);
  return err;
}

gpg_error_t
ks_gpg_homedir (const char *homedir, char **r_dir)
{
  gpg_error_t err;
  const char *s;

  *r_dir = NULL;
  if (!homedir || !*homedir)
    homedir = getenv ("GNUPGHOME");
  if (homedir && *homedir)
    s = homedir;
  else
    {
      err = ks_gpg_init ();
      if (err)
        return err;
      s = gpgme_get_dirinfo ("homedir");
      if (!s)
        return gpg_error (GPG_ERR_NOT_FOUND);
    }
  *r_dir = ks_strdup (s);
  return *r_dir ? 0 : gpg_error_from_syserror ();
}

gpg_error_t
ks_gpg_canon_keyid (const char *homedir, const char *keyid, char *out)
{
  gpg_error_t err;
  gpgme_ctx_t ctx = NULL;
  gpgme_key_t key = NULL;
  size_t n, i;
  const char *p = keyid;

  *out = 0;
  if (!p)
    return gpg_error (GPG_ERR_INV_USER_ID);
  if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
    p += 2;
  n = strlen (p);
  for (i = 0; i < n; i++)
    if (!isxdigit ((unsigned char)p[i]))
      return gpg_error (GPG_ERR_INV_USER_ID);
  if (n == 40 || n == 64)
    {
      for (i = 0; i < n; i++)
        out[i] = toupper ((unsigned char)p[i]);
      out[n] = 0;
      return 0;
    }
  if (n != 16)
    return gpg_error (GPG_ERR_INV_USER_ID);

  /* A long key id names the fingerprint of the one key (public or
   * secret) GnuPG has for it; protocol 2 binds to the fingerprint.  */
  err = new_ctx (homedir, &ctx);
  if (!err)
    err = gpgme_get_key (ctx, keyid, &key, 0);
  if (gpg_err_code (err) == GPG_ERR_EOF || (!err && (!key || !key->fpr)))
    err = gpg_error (GPG_ERR_NO_PUBKEY);
  if (!err && (strlen (key->fpr) != 40 && strlen (key->fpr) != 64))
    err = gpg_error (GPG_ERR_INV_DATA);
  if (!err)
    for (i = 0; key->fpr[i]; i++)
      out[i] = toupper ((unsigned char)key->fpr[i]);
  if (!err)
    out[i] = 0;
  gpgme_key_unref (key);
  gpgme_release (ctx);
  return err ? gpg_error (GPG_ERR_NO_PUBKEY) : 0;
}
