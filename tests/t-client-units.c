/* t-client-units.c - the client's small parts: server list, loopback
 * detection, key ids, password strength, progress bar, upload queue
 * SPDX-License-Identifier: GPL-3.0-or-later
 */
#include <config.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "t-support.h"
#include "serverlist.h"
#include "transport.h"
#include "gpg.h"
#include "strength.h"
#include "progress.h"
#include "queue.h"
#include "estimate.h"
#include <math.h>

static void
test_serverlist (void)
{
  ks_serverlist_t list;
  char err[256];
  static const char text[] =
    "# comment\n"
    "\n"
    "alternate   http://b.example.onion  Operator B\n"
    "recommended http://a.example.onion/ placeholder  Operator A\n"
    "untrusted   https://C.example.org:443/\n"
    "recommended http://d.example.onion\n";

  memset (&list, 0, sizeof list);
  T_OK (ks_serverlist_parse (text, "t", &list, err, sizeof err));
  T_CHECK (list.count == 4);
  if (list.count == 4)
    {
      T_CHECK (!strcmp (list.server[0].url, "http://b.example.onion"));
      T_CHECK (list.server[0].category == KS_SERVER_ALTERNATE);
      T_CHECK (list.server[0].label
               && !strcmp (list.server[0].label, "Operator B"));
      /* The trailing slash is dropped, the placeholder flag kept.  */
      T_CHECK (!strcmp (list.server[1].url, "http://a.example.onion"));
      T_CHECK (list.server[1].placeholder);
      T_CHECK (!strcmp (list.server[1].label, "Operator A"));
      T_CHECK (list.server[2].category == KS_SERVER_UNTRUSTED);
      T_CHECK (!list.server[2].label);
      T_CHECK (!list.server[3].placeholder);
      /* Without id= the identity is the canonical URL.  */
      T_CHECK (!strcmp (list.server[2].id, "https://c.example.org"));
      T_CHECK (!strcmp (list.server[3].id, "http://d.example.onion"));
    }
  {
    unsigned int i;
    for (i = 0; i < list.count; i++)
      {
        gcry_free (list.server[i].url);
        gcry_free (list.server[i].id);
        gcry_free (list.server[i].label);
      }
    gcry_free (list.server);
  }

  /* An operator who moved keeps the id: the new URL, the old identity. */
  memset (&list, 0, sizeof list);
  T_OK (ks_serverlist_parse ("recommended http://new.example.onion"
                             " id=op-a.2026 Operator A\n", "t", &list,
                             err, sizeof err));
  T_CHECK (list.count == 1);
  if (list.count == 1)
    {
      T_CHECK (!strcmp (list.server[0].url, "http://new.example.onion"));
      T_CHECK (!strcmp (list.server[0].id, "op-a.2026"));
      T_CHECK (!strcmp (list.server[0].label, "Operator A"));
      gcry_free (list.server[0].url);
      gcry_free (list.server[0].id);
      gcry_free (list.server[0].label);
    }
  gcry_free (list.server);
  memset (&list, 0, sizeof list);
  T_CHECK (ks_serverlist_parse ("recommended http://x.onion id=\001\n", "t",
                                &list, err, sizeof err) != 0);
  T_CHECK (strstr (err, "invalid server id") != NULL);
  gcry_free (list.server);

  memset (&list, 0, sizeof list);
  T_CHECK (ks_serverlist_parse ("bogus http://x\n", "t", &list,
                                err, sizeof err) != 0);
  T_CHECK (strstr (err, "t:1") != NULL);
  T_CHECK (ks_serverlist_parse ("recommended ftp://x\n", "t", &list,
                                err, sizeof err) != 0);
  gcry_free (list.server);
}

static void
test_shipped_list (void)
{
  const char *top = getenv ("top_srcdir");
  char path[4096];
  ks_serverlist_t *list = NULL;
  char err[256];
  unsigned int i, rec = 0;

  if (!top)
    return;
  snprintf (path, sizeof path, "%s/doc/servers.list", top);
  T_OK (ks_serverlist_load (NULL, path, &list, err, sizeof err));
  if (!list)
    return;
  for (i = 0; i < list->count; i++)
    {
      /* Until real operators are listed, every entry is a placeholder
       * and an onion address.  */
      T_CHECK (list->server[i].placeholder);
      T_CHECK (strstr (list->server[i].url, ".onion") != NULL);
      if (list->server[i].category == KS_SERVER_RECOMMENDED)
        rec++;
      if (i)
        T_CHECK (list->server[i - 1].category <= list->server[i].category);
    }
  T_CHECK (rec >= 3);
  ks_serverlist_free (list);
}

static void
test_loopback (void)
{
  T_CHECK (ks_transport_is_loopback ("http://127.0.0.1:4242"));
  T_CHECK (ks_transport_is_loopback ("http://127.1.2.3"));
  T_CHECK (ks_transport_is_loopback ("http://localhost:1"));
  T_CHECK (ks_transport_is_loopback ("http://foo.localhost"));
  T_CHECK (ks_transport_is_loopback ("http://[::1]:80"));
  T_CHECK (!ks_transport_is_loopback ("http://127.example.org"));
  T_CHECK (!ks_transport_is_loopback ("http://abc.onion"));
  T_CHECK (!ks_transport_is_loopback ("http://192.168.1.1"));
  T_CHECK (!ks_transport_is_loopback ("http://vm:80"));
  T_CHECK (!ks_transport_is_loopback ("http://localhost.example.org"));
}

static void
test_keyid (void)
{
  char out[KS_KEYID_BUFSIZE];

  /* Protocol 2 binds to the fingerprint.  */
  T_OK (ks_gpg_canon_keyid (NULL, "e44133f8049c78434874247c4a153f50d61f86fa",
                            out));
  T_CHECK (!strcmp (out, "E44133F8049C78434874247C4A153F50D61F86FA"));
  T_OK (ks_gpg_canon_keyid (NULL, "0x0123456789abcdef0123456789abcdef"
                            "0123456789abcdef0123456789abcdef", out));
  T_CHECK (!strcmp (out, "0123456789ABCDEF0123456789ABCDEF"
                    "0123456789ABCDEF0123456789ABCDEF"));
  /* A long key id GnuPG does not know is refused, not truncated.  */
  T_CHECK_ERR (ks_gpg_canon_keyid ("/nonexistent/keysafe-gnupg",
                                   "0x4a153f50d61f86fa", out),
               GPG_ERR_NO_PUBKEY);
  T_CHECK_ERR (ks_gpg_canon_keyid (NULL, "D61F86FA", out),
               GPG_ERR_INV_USER_ID);
  T_CHECK_ERR (ks_gpg_canon_keyid (NULL, "alice@example.org", out),
               GPG_ERR_INV_USER_ID);
}

static void
test_strength (void)
{
  ks_strength_t weak, strong, strongdef;
  const ks_profile_t *test = ks_profile_find ("test");
  char buf[64];

  ks_strength_estimate (test, "password", NULL, &weak);
  ks_strength_estimate (test, "correct horse battery staple 4711", NULL,
                        &strong);
  ks_strength_estimate (ks_profile_default (),
                        "correct horse battery staple 4711", NULL,
                        &strongdef);
  T_CHECK (weak.bits < KS_STRENGTH_MIN_BITS);
  T_CHECK (strong.bits > KS_STRENGTH_MIN_BITS);
  /* The default profile makes every guess far more expensive.  */
  T_CHECK (strongdef.sec_per_guess > 1000 * strong.sec_per_guess);
  T_CHECK (strongdef.dollars > strong.dollars);
  /* The estimate agrees with protocol.md section 10: a wrong password
   * costs at least 50 core-minutes with the default profile.  */
  T_CHECK (strongdef.sec_per_guess >= 50 * 60);
  T_CHECK (!strcmp (ks_strength_duration (90, buf, sizeof buf),
                    "90 seconds"));
  T_CHECK (!strcmp (ks_strength_duration (7200 * 3, buf, sizeof buf),
                    "6 hours"));
}

static void
test_progress (void)
{
  char buf[160];

  ks_progress_format ("puzzle", 5, 10, 30.0, buf, sizeof buf);
  T_CHECK (strstr (buf, " 50%") != NULL);
  T_CHECK (strstr (buf, "0m30s") != NULL);   /* 30 s more */
  T_CHECK (strstr (buf, "###############...............") != NULL);
  ks_progress_format ("key", 4, 4, 2.0, buf, sizeof buf);
  T_CHECK (strstr (buf, "100%") != NULL);
}

/* An entry of the older form 2 is still read (no backup known); one
 * of form 3 whose chunk is not below its chunk count is not.  SIBNAME
 * is a valid name.  */
static void
test_queue_forms (const char *sibname)
{
  ks_queue_entry_t e;
  char text[512];
  const char *b = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb";

  snprintf (text, sizeof text, "keysafe-queue-2 http://a\nk 2\n"
            "sib http://b %s\nend\nXY", sibname);
  T_OK (ks_queue_parse_entry ((const uint8_t *)text, strlen (text), &e));
  T_CHECK (!e.has_obj && e.k == 2 && e.nsib == 1 && e.len == 2);
  ks_queue_entry_release (&e);
  snprintf (text, sizeof text, "keysafe-queue-3 http://a\nk 2\n"
            "backup %s 1 2\nsib http://b %s\nend\nXY", b, sibname);
  T_OK (ks_queue_parse_entry ((const uint8_t *)text, strlen (text), &e));
  T_CHECK (e.has_obj && e.obj.chunk == 1 && e.obj.nchunks == 2
           && !strcmp (e.obj.backup, b) && e.len == 2);
  ks_queue_entry_release (&e);
  snprintf (text, sizeof text, "keysafe-queue-3 http://a\nk 2\n"
            "backup %s 2 2\nsib http://b %s\nend\nXY", b, sibname);
  T_CHECK_ERR (ks_queue_parse_entry ((const uint8_t *)text, strlen (text),
                                     &e), GPG_ERR_INV_DATA);
}

static void
test_queue (void)
{
  char tmpl[] = "/tmp/ksqXXXXXX";
  char *home = mkdtemp (tmpl);
  ks_queue_entry_t *q = NULL;
  size_t nq = 0;
  uint8_t data[100];
  ks_queue_sib_t sib[2] = { { "http://127.0.0.1:2", "" },
                            { "http://127.0.0.1:3", "" } };
  ks_queue_obj_t obj = { "", 1, 2 };
  const char *name =
    "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";
  char cmd[64];

  if (!home)
    T_DIE ("mkdtemp");
  memset (data, 0xab, sizeof data);
  T_OK (ks_queue_list (home, &q, &nq));
  T_CHECK (nq == 0);
  memset (sib[0].name, 'a', KS_NAME_HEX_LEN);
  memset (sib[1].name, '0', KS_NAME_HEX_LEN);
  memset (obj.backup, 'b', KS_NAME_HEX_LEN);
  T_OK (ks_queue_add (home, "http://127.0.0.1:1", name, data, sizeof data,
                      &obj, 2, sib, 2));
  T_CHECK (ks_queue_add (home, "http://x", "nothex", data, 1, &obj, 2,
                         sib, 2) != 0);
  sib[1].url = "http://a b";    /* a space would break the sib line */
  T_CHECK (ks_queue_add (home, "http://x", name, data, 1, &obj, 2, sib, 2)
           != 0);
  sib[1].url = "http://127.0.0.1:3";
  obj.chunk = 2;                /* past the last chunk */
  T_CHECK (ks_queue_add (home, "http://x", name, data, 1, &obj, 2, sib, 2)
           != 0);
  obj.chunk = 1;
  T_OK (ks_queue_list (home, &q, &nq));
  T_CHECK (nq == 1);
  if (nq == 1)
    {
      T_CHECK (!strcmp (q[0].url, "http://127.0.0.1:1"));
      T_CHECK (!strcmp (q[0].name, name));
      T_CHECK (q[0].len == sizeof data && !memcmp (q[0].data, data, 100));
      T_CHECK (q[0].k == 2 && q[0].nsib == 2);
      T_CHECK (q[0].has_obj && q[0].obj.chunk == 1 && q[0].obj.nchunks == 2
               && !strcmp (q[0].obj.backup, obj.backup));
      if (q[0].nsib == 2)
        T_CHECK (!strcmp (q[0].sib[1].url, "http://127.0.0.1:3")
                 && !strcmp (q[0].sib[0].name, sib[0].name));
      T_OK (ks_queue_remove (&q[0]));
    }
  ks_queue_list_free (q, nq);
  T_OK (ks_queue_list (home, &q, &nq));
  T_CHECK (nq == 0);
  test_queue_forms (sib[0].name);
  ks_queue_list_free (q, nq);
  snprintf (cmd, sizeof cmd, "rm -rf '%s'", home);
  if (system (cmd))
    fprintf (stderr, "could not remove %s\n", home);
}

/* The cost model: names run all cores at a time, the puzzle's average is
 * half its worst; a measurement gives positive, ordered figures.  */
static void
test_estimate (void)
{
  const ks_profile_t *p = ks_profile_find ("default");
  ks_estimate_t e, one;
  double inst, guess;

  T_CHECK (p != NULL);
  if (!p)
    return;
  /* 1 us per KiB and pass, no fault cost, 2 cores, 2 puzzle threads.  */
  ks_estimate_from_model (p, 2, 2, 0, 1e-6, &e);
  inst = p->name_cost.m_cost * (double)p->name_cost.t_cost * 1e-6;
  guess = p->puzzle_cost.m_cost * (double)p->puzzle_cost.t_cost * 1e-6;
  T_CHECK (fabs (e.name_s - inst * ((p->name_instances + 1) / 2)) < 1e-6);
  T_CHECK (fabs (e.guess_s - guess) < 1e-9);
  T_CHECK (fabs (e.puzzle_max_s - guess * (1u << p->puzzle_bits) / 2) < 1e-6);
  /* R is found in round 1 .. 2^bits / 2, on average the middle.  */
  T_CHECK (fabs (e.puzzle_avg_s * 2 - e.puzzle_max_s - guess) < 1e-9);
  T_CHECK (fabs (e.backup_s - (e.name_s + e.key_s + e.guess_s)) < 1e-9);
  T_CHECK (e.restore_avg_s < e.restore_max_s);
  /* One core: the name instances one after the other, the puzzle on one
   * thread whatever was asked.  */
  ks_estimate_from_model (p, 8, 1, 0, 1e-6, &one);
  T_CHECK (fabs (one.name_s - inst * p->name_instances) < 1e-6);
  T_CHECK (fabs (one.puzzle_max_s - 2 * e.puzzle_max_s) < 1e-6);
  /* Fresh memory costs once per instance, not per pass.  */
  ks_estimate_from_model (p, 2, 2, 1e-6, 0, &one);
  T_CHECK (fabs (one.key_s - p->key_cost.m_cost * 1e-6) < 1e-9);
  /* Measured here: positive and ordered.  */
  T_OK (ks_estimate_profile (p, 0, &e));
  T_CHECK (e.guess_s > 0 && e.key_s > 0 && e.name_s > 0);
  T_CHECK (e.backup_s < e.restore_avg_s && e.restore_avg_s < e.restore_max_s);
}

int
main (void)
{
  t_init ();
  test_serverlist ();
  test_shipped_list ();
  test_loopback ();
  test_keyid ();
  test_strength ();
  test_progress ();
  test_queue ();
  test_estimate ();
  return t_done ();
}
