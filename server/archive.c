/* archive.c - the store-backup archive ("KSSTORE1"): its parser
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>
#include <stdlib.h>
#include "archive.h"
#include "buffer.h"

typedef enum { AR_MAGIC, AR_RECORDS, AR_DONE } ar_state_t;

struct ks_archive
{
  size_t max_shard;
  const size_t *sizes;      /* NULL: any size up to max_shard */
  unsigned int nsizes;
  uint64_t bad_index;       /* the record a length error is about */
  size_t bad_len;
  ks_archive_cb_t cb;
  void *opaque;
  ar_state_t state;
  uint64_t seen;
  gpg_error_t err;          /* sticky */
  uint8_t *pend;            /* bytes of the record not yet whole */
  size_t plen, psize;
};

gpg_error_t
ks_archive_new (size_t max_shard, ks_archive_cb_t cb, void *opaque,
                ks_archive_t **r_archive)
{
  ks_archive_t *a;

  *r_archive = NULL;
  if (!max_shard || max_shard > UINT32_MAX)
    return gpg_error (GPG_ERR_INV_ARG);
  a = calloc (1, sizeof *a);
  if (!a)
    return gpg_error_from_syserror ();
  a->max_shard = max_shard;
  a->cb = cb;
  a->opaque = opaque;
  /* The largest record, and room for the magic before the first.  */
  a->psize = 1 + KS_ARCHIVE_NAME_LEN + 4 + max_shard;
  a->pend = malloc (a->psize);
  if (!a->pend)
    {
      free (a);
      return gpg_error_from_syserror ();
    }
  *r_archive = a;
  return 0;
}

void
ks_archive_only_sizes (ks_archive_t *a, const size_t *sizes,
                       unsigned int nsizes)
{
  a->sizes = sizes;
  a->nsizes = nsizes;
}

/* True if a shard of LEN bytes may be in the archive.  */
static int
size_is_allowed (const ks_archive_t *a, uint32_t len)
{
  unsigned int i;

  if (!len || len > a->max_shard)
    return 0;
  if (!a->sizes)
    return 1;
  for (i = 0; i < a->nsizes; i++)
    if (a->sizes[i] == len)
      return 1;
  return 0;
}

void
ks_archive_free (ks_archive_t *a)
{
  if (!a)
    return;
  free (a->pend);
  free (a);
}

/* One shard record after its 'S'.  GPG_ERR_TOO_SHORT: not whole yet.  */
static gpg_error_t
parse_shard (ks_archive_t *a, ks_buf_t *in)
{
  uint8_t raw[KS_ARCHIVE_NAME_LEN];
  char name[KS_NAME_HEX_LEN + 1];
  uint32_t len;
  gpg_error_t err;

  err = ks_buf_get_bytes (in, raw, sizeof raw);
  if (!err)
    err = ks_buf_get_be32 (in, &len);
  if (err)
    return err;
  if (!size_is_allowed (a, len))
    {
      a->bad_index = a->seen;
      a->bad_len = len;
      return gpg_error (GPG_ERR_INV_LENGTH);
    }
  if (ks_buf_left (in) < len)
    return gpg_error (GPG_ERR_TOO_SHORT);
  ks_hex_encode (raw, sizeof raw, name);
  err = a->cb ? a->cb (a->opaque, name, ks_buf_ptr (in), len) : 0;
  if (!err)
    err = ks_buf_skip (in, len);
  if (!err)
    a->seen++;
  return err;
}

/* One record (or the magic) from IN.  GPG_ERR_TOO_SHORT when it is not
 * whole yet; nothing is changed then.  */
static gpg_error_t
parse_one (ks_archive_t *a, ks_buf_t *in)
{
  uint8_t buf[KS_ARCHIVE_MAGIC_LEN];
  gpg_error_t err;

  switch (a->state)
    {
    case AR_MAGIC:
      err = ks_buf_get_bytes (in, buf, KS_ARCHIVE_MAGIC_LEN);
      if (!err && memcmp (buf, KS_ARCHIVE_MAGIC, KS_ARCHIVE_MAGIC_LEN))
        err = gpg_error (GPG_ERR_INV_DATA);
      if (!err)
        a->state = AR_RECORDS;
      return err;
    case AR_RECORDS:
      err = ks_buf_get_bytes (in, buf, 1);
      if (err)
        return err;
      if (*buf == 'S')
        return parse_shard (a, in);
      if (*buf != 'E')
        return gpg_error (GPG_ERR_INV_DATA);
      err = ks_buf_get_bytes (in, buf, 8);
      if (err)
        return err;
      if (ks_get_be64 (buf) != a->seen)
        return gpg_error (GPG_ERR_TRUNCATED);
      a->state = AR_DONE;
      return 0;
    default:
      return gpg_error (GPG_ERR_INV_DATA);  /* trailing bytes */
    }
}

gpg_error_t
ks_archive_feed (ks_archive_t *a, const void *data, size_t len)
{
  const uint8_t *p = data;
  ks_buf_t in, rec;
  size_t take, done;
  gpg_error_t err;

  while (!a->err && len)
    {
      take = a->psize - a->plen;
      if (take > len)
        take = len;
      memcpy (a->pend + a->plen, p, take);
      a->plen += take;
      p += take;
      len -= take;

      /* Each record is parsed from its own view, so one that is not
       * whole yet consumes nothing.  */
      ks_buf_view (&in, a->pend, a->plen);
      while (ks_buf_left (&in))
        {
          ks_buf_view (&rec, ks_buf_ptr (&in), ks_buf_left (&in));
          err = parse_one (a, &rec);
          if (gpg_err_code (err) == GPG_ERR_TOO_SHORT)
            break;
          if (err)
            {
              a->err = err;
              break;
            }
          ks_buf_skip (&in, ks_buf_left (&in) - ks_buf_left (&rec));
        }
      /* Keep what is not yet a whole record at the front.  */
      done = a->plen - ks_buf_left (&in);
      memmove (a->pend, a->pend + done, a->plen - done);
      a->plen -= done;
    }
  return a->err;
}

void
ks_archive_bad_record (const ks_archive_t *a, uint64_t *r_index,
                       size_t *r_len)
{
  *r_index = a->bad_index;
  *r_len = a->bad_len;
}

gpg_error_t
ks_archive_finish (ks_archive_t *a, uint64_t *r_count)
{
  *r_count = 0;
  if (a->err)
    return a->err;
  if (a->state != AR_DONE || a->plen)
    return gpg_error (GPG_ERR_TRUNCATED);
  *r_count = a->seen;
  return 0;
}
