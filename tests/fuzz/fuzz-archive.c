/* fuzz-archive.c - the store-backup archive parser (server/archive.c)
 * SPDX-License-Identifier: GPL-3.0-or-later
 *
 * The input is the archive.  It is parsed twice: whole, and in pieces
 * whose sizes come from the input itself, as the decryption hands them
 * out.  Both parses must see the same shards and end the same way, and
 * every shard handed out must have a well-formed name and a size within
 * the limit.
 */
#include <config.h>
#include <stdlib.h>
#include "keysafe.h"
#include "archive.h"
#include "fuzz.h"

#define MAX_SHARD 1024

typedef struct seen
{
  uint64_t count;
  uint32_t sum;       /* a cheap digest of every name and body */
} seen_t;

static gpg_error_t
on_shard (void *opaque, const char *name, const uint8_t *data, size_t len)
{
  seen_t *s = opaque;
  size_t i;

  if (!ks_name_is_valid (name, KS_NAME_HEX_LEN) || name[KS_NAME_HEX_LEN]
      || !len || len > MAX_SHARD)
    abort ();
  for (i = 0; i < KS_NAME_HEX_LEN; i++)
    s->sum = s->sum * 31 + (uint8_t)name[i];
  for (i = 0; i < len; i++)
    s->sum = s->sum * 31 + data[i];
  s->count++;
  return 0;
}

static gpg_error_t
parse (const uint8_t *data, size_t size, size_t step, seen_t *s,
       uint64_t *r_count)
{
  ks_archive_t *a;
  gpg_error_t err, ferr;
  size_t off, n;

  *r_count = 0;
  if (ks_archive_new (MAX_SHARD, on_shard, s, &a))
    abort ();
  for (off = 0, err = 0; off < size; off += n)
    {
      n = size - off < step ? size - off : step;
      err = ks_archive_feed (a, data + off, n);
      if (err)
        break;
    }
  ferr = ks_archive_finish (a, r_count);
  if (err && gpg_err_code (ferr) != gpg_err_code (err))
    abort ();   /* an error must stick */
  ks_archive_free (a);
  return ferr;
}

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  seen_t whole = { 0, 0 }, parts = { 0, 0 };
  uint64_t c1, c2;
  gpg_error_t e1, e2;
  size_t step = size ? (size_t)data[0] % 97 + 1 : 1;

  e1 = parse (data, size, size ? size : 1, &whole, &c1);
  e2 = parse (data, size, step, &parts, &c2);
  if (gpg_err_code (e1) != gpg_err_code (e2) || c1 != c2
      || whole.count != parts.count || whole.sum != parts.sum)
    abort ();
  if (!e1 && c1 != whole.count)
    abort ();
  return 0;
}
