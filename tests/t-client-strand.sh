#!/bin/bash
# t-client-strand.sh - backups that never strand
# SPDX-License-Identifier: GPL-3.0-or-later
#
# A server that answers 409 to every PUT and holds nothing, and one that
# claims every name: the backup ends on the others, restorable, and says
# which server refused; a name is taken only when two locations hold it.  Two
# of three servers down: the upload queue keeps at most k-1 shards of
# an object (one server's), and the backup says it is not restorable.
# A backup killed (SIGKILL) at many moments: `upload-queued` finishes
# it and it restores, or fewer than k shards of its chunk 0 are on the
# servers (the name is not taken).

. "${srcdir:-.}/t-client-lib.sh"
HOSTILE="$top_builddir/tests/t-hostile-server"
[ -x "$HOSTILE" ] || { echo "ERROR: no $HOSTILE"; exit 99; }

servers 3
gpg_home
QDIR="$GNUPGHOME/keysafe-queue"

# liar N [MODE]: start a lying t-hostile-server (MODE conflict unless
# given), its URL in HURL_N (two are told apart: protocol 2 binds names
# to distinct locations).
liar ()
{
  "$HOSTILE" --mode "${2:-conflict}" --port-file "$T_WORK/port.h$1" \
    --log "$T_WORK/server-h.log" 2>>"$T_WORK/server-h.log" &
  local pid=$!
  T_PIDS="$T_PIDS $pid"
  t_wait_for "$pid" test -s "$T_WORK/port.h$1" \
    || { echo "ERROR: no hostile server"; exit 99; }
  eval "HURL_$1=http://127.0.0.1:$(cat "$T_WORK/port.h$1")"
}
liar 1
liar 2
HURL=$HURL_1

qcount () { find "$QDIR" -type f 2>/dev/null | wc -l; }

# 1. The lying server last and first in the list.
for pos in 3 1; do
  if [ $pos = 3 ]; then
    LIST="--server $URL_1 --server $URL_2 --server $HURL"
  else
    LIST="--server $HURL --server $URL_1 --server $URL_2"
  fi
  ok "backup with a server answering 409 at $pos" ks backup \
     --gpgkeyid "$FPR" --name "liar$pos" --password-fd 3 $LIST
  grep_in "names the refusing server" "server $pos .*refused" \
     "$T_WORK/ks.err"
  grep_in "says it is restorable" "restorable now" "$T_WORK/ks.err"
  eq "nothing stays queued for the liar" "$(qcount)" 0
  ok "it restores" ks restore --stdout --name "liar$pos" --password-fd 3 \
     $LIST
  eq "the key comes back" "$(fpr_of "$T_WORK/ks.out")" "$FPR"
done

# Two liars of three: not restorable, and it says so.
fails "backup with two liars fails" ks backup --gpgkeyid "$FPR" \
   --name liar12 --password-fd 3 --server "$HURL_1" --server "$HURL_2" \
   --server "$URL_1"
grep_in "says it failed" "FAILED" "$T_WORK/ks.err"
eq "nothing queued" "$(qcount)" 0

# A server that claims every name (200 to every GET, 409 to every PUT)
# cannot make a name look taken on its own: one of three holding
# locations is fewer than k.  The backup ends on the other two.
liar 3 claim
ok "backup with a server claiming every name" ks backup \
   --gpgkeyid "$FPR" --name claimed --password-fd 3 \
   --server "$URL_1" --server "$HURL_3" --server "$URL_2"
grep_in "names the claiming server" "server 2 .*refused" "$T_WORK/ks.err"
grep_in "says it is restorable" "restorable now" "$T_WORK/ks.err"
ok "it restores past the claimed junk" ks restore --stdout --name claimed \
   --password-fd 3 --server "$URL_1" --server "$HURL_3" --server "$URL_2"
eq "the key comes back" "$(fpr_of "$T_WORK/ks.out")" "$FPR"
# A name that the locations hold is taken, in whatever order they are
# listed: the probe asks every location for every share of chunk 0.
ok "a backup on 1, 2, 3" ks backup --gpgkeyid "$FPR" --name ordered \
   --password-fd 3 --server "$URL_1" --server "$URL_2" --server "$URL_3"
fails "the same name on 3, 1, 2 is taken" ks backup --gpgkeyid "$FPR" \
   --name ordered --password-fd 3 --server "$URL_3" --server "$URL_1" \
   --server "$URL_2"
grep_in "it says taken" "is taken: a backup under it exists" "$T_WORK/ks.err"
# Two holding locations are enough, whatever n and k the old backup had:
# a 2-of-2 backup on servers 1 and 2 takes the name for a 2-of-3 one.
ok "a 2-of-2 backup on 1, 2" ks backup --gpgkeyid "$FPR" --name twoof2 \
   --password-fd 3 --shares 2 --threshold 2 --server "$URL_1" \
   --server "$URL_2"
fails "the same name on 1, 2, 3 is taken" ks backup --gpgkeyid "$FPR" \
   --name twoof2 --password-fd 3 --server "$URL_1" --server "$URL_2" \
   --server "$URL_3"
grep_in "it says taken" "is taken: a backup under it exists" "$T_WORK/ks.err"

# 2. Two of three servers down: at most k-1 = 1 shard of an object.
srv_stop 2
srv_stop 3
fails "backup with two servers down fails" ks backup --gpgkeyid "$FPR" \
   --name twodown --password-fd 3 $SERVERS
grep_in "says it is not restorable" "NOT restorable" "$T_WORK/ks.err"
grep_in "says why shards are not kept" "holds at most 1 shard of" \
   "$T_WORK/ks.err"
QURLS=$(for f in "$QDIR"/*; do head -n 1 "$f"; done | sort -u | wc -l)
eq "the queue holds one server's shards only" "$QURLS" 1
NQ=$(qcount)
ok "the queue holds some" test "$NQ" -ge 1
srv_start 2
srv_start 3
ok "upload-queued" ks upload-queued $SERVERS
eq "the queue is empty" "$(qcount)" 0
ok "the backup restores now" ks restore --stdout --name twodown \
   --password-fd 3 $SERVERS
eq "the key comes back" "$(fpr_of "$T_WORK/ks.out")" "$FPR"

# 3. SIGKILL at many moments of a backup: after upload-queued it
# restores, or fewer than k shards of its chunk 0 are on the servers
# (t-client-killed.sh does the same for a secret of two objects).
# The moments: fractions of one whole backup's wall time here.
t0=$(date +%s%N)
ok "a backup to time" ks backup --gpgkeyid "$FPR" --name timed \
   --password-fd 3 $SERVERS
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
for f in 2 4 6 7 8 9 10 11 12 13 14 15 16 18; do
  d=$(printf '%d.%03d' $((ms * f / 16 / 1000)) $((ms * f / 16 % 1000)))
  "$KEYSAFE" --batch --profile test --timeout 20 --connect-timeout 10 \
    backup --gpgkeyid "$FPR" --name "kill $d" --password-fd 3 $SERVERS \
    3<<<"$PW" >/dev/null 2>"$T_WORK/kill.err" &
  kpid=$!
  sleep "$d"
  kill -KILL "$kpid" 2>/dev/null && how=killed || how=finished
  wait "$kpid" 2>/dev/null || true
  ks upload-queued $SERVERS || true
  eq "killed at $d s ($how): the queue is empty after upload-queued" \
     "$(qcount)" 0
  if ks restore --stdout --name "kill $d" --password-fd 3 $SERVERS; then
    eq "killed at $d s ($how): upload-queued finished a backup that restores" \
       "$(fpr_of "$T_WORK/ks.out")" "$FPR"
  else
    ok "killed at $d s ($how): it does not restore, and chunk 0 is below k" \
       test "$(chunk_on_servers "kill $d" 0)" -lt 2
  fi
done

# 4. A refusal that leaves an object short of k drops the whole backup,
# chunk 0 with it: a later upload-queued must not send chunk 0 alone
# and make the name look taken for a backup that never restores.  A
# two-object secret, servers 2 and 3 down; then server 2 holds other
# bytes under the name of its chunk-1 shard (as a lying or stale
# location would) and answers 409 to it.
head -c 600 /dev/urandom >"$T_WORK/two"
srv_stop 2
srv_stop 3
fails "a two-object backup with two servers down" ks backup --stdin \
   --name refused --password-fd 3 $SERVERS <"$T_WORK/two"
srv_start 2
srv_start 3
C1=$("$top_builddir/tests/t-shardnames" refused 1 3 "$URL_2" | sed -n 2p)
mkdir -p "$T_WORK/store2/${C1:0:2}/${C1:2:2}"
head -c 512 /dev/urandom >"$T_WORK/store2/${C1:0:2}/${C1:2:2}/$C1"
ks upload-queued $SERVERS || true
grep_in "the refusal is named" "taken but does not hold" "$T_WORK/ks.err"
eq "nothing of the backup stays queued" "$(qcount)" 0
ks upload-queued $SERVERS || true
ok "chunk 0 is on fewer than two servers" \
   test "$(chunk_on_servers refused 0)" -lt 2
fails "so nothing restores" ks restore --stdout --name refused \
   --password-fd 3 $SERVERS
grep_in "it says why" "only 1 shard of 'refused' found" "$T_WORK/ks.err"
# The probe does not call the name taken (the locations that hold old
# shards under it still refuse those names: servers cannot delete).
ks backup --stdin --name refused --password-fd 3 $SERVERS \
   <"$T_WORK/two" || true
ok "a new backup under the name is not called taken" \
   test -z "$(grep 'is taken: a backup under it exists' "$T_WORK/ks.err")"

# 5. A FIFO planted in the queue directory under an entry's name does
# not hang upload-queued (it reads as an empty, broken entry).
mkdir -p "$QDIR"
FIFO="$QDIR/$(printf 'f%.0s' $(seq 64))"
mkfifo "$FIFO"
timeout 30 "$KEYSAFE" --batch --profile test upload-queued $SERVERS \
  >/dev/null 2>"$T_WORK/fifo.err"
rc=$?
ok "a FIFO in the queue does not hang upload-queued (exit $rc)" \
   test "$rc" -ne 124
rm -f "$FIFO"

# 6. A link planted in the GnuPG home as the queue directory is not
# followed: no shard lands where it points.
rm -rf "$QDIR"
mkdir "$T_WORK/elsewhere"
ln -s "$T_WORK/elsewhere" "$QDIR"
srv_stop 3
ks backup --stdin --name linked --password-fd 3 $SERVERS <"$T_WORK/two" \
  || true
eq "nothing was written where the link points" \
   "$(find "$T_WORK/elsewhere" -type f | wc -l)" 0
srv_start 3
rm -f "$QDIR"

t_done
