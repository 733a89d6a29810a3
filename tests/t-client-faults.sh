#!/bin/bash
# t-client-faults.sh - keysafe when servers fail, lie or hang
# SPDX-License-Identifier: GPL-3.0-or-later
#
# One server stopped before restore; one server's shards replaced by
# random bytes; two servers down; a server down during backup, its
# shards queued and sent by upload-queued (twice: idempotent); a server
# that accepts connections and never answers (SIGSTOP: the kernel still
# completes the TCP handshake) costs no more than the timeout.

. "${srcdir:-.}/t-client-lib.sh"

servers 3
gpg_home
"$GPG" --batch --export-secret-keys "$FPR" >"$T_WORK/exported"

ok "backup" ks backup --gpgkeyid "$FPR" --name faults --password-fd 3 \
   $SERVERS

# 1. One server stopped before restore.
srv_stop 1
ok "restore with server 1 down" ks restore --stdout --name faults \
   --password-fd 3 $SERVERS
eq "the key comes back" "$(fpr_of "$T_WORK/ks.out")" "$FPR"
srv_start 1

# 2. One server's shards replaced by random bytes of the same size: the
#    other subsets are tried.
for f in $(shard_files 2); do
  head -c 512 /dev/urandom >"$f"
done
ok "restore with server 2 lying" ks restore --stdout --name faults \
   --password-fd 3 $SERVERS
eq "the key comes back despite the lie" "$(fpr_of "$T_WORK/ks.out")" "$FPR"
# A shard of the wrong size is ignored as junk.
for f in $(shard_files 1); do
  head -c 100 /dev/urandom >"$f"
done
fails "restore with one lying and one junk server fails" ks restore \
  --stdout --name faults --password-fd 3 $SERVERS
eq "nothing is written then" "$(wc -c <"$T_WORK/ks.out")" 0

# 3. Two servers down: a clear error, non-zero.
ok "backup 2" ks backup --gpgkeyid "$FPR" --name twodown --password-fd 3 \
   $SERVERS
srv_stop 1
srv_stop 2
fails "restore with two servers down fails" ks restore --stdout \
  --name twodown --password-fd 3 $SERVERS
grep_in "the error says how many shards" \
  "only 1 shard of 'twodown' found, at least 2 are needed" "$T_WORK/ks.err"
grep_in "the error names the unreachable servers" \
  "unreachable: $URL_1 (" "$T_WORK/ks.err"
eq "one line of error" "$(grep -c 'only 1 shard of' "$T_WORK/ks.err")" 1
srv_start 1
srv_start 2

# 4. A server down during backup: the backup is restorable, the missing
#    shards are queued, upload-queued sends them when it is back.
srv_stop 3
ok "backup with server 3 down still succeeds" ks backup --gpgkeyid "$FPR" \
   --name queued --password-fd 3 $SERVERS
grep_in "the failed server is named" "server 3 ($URL_3) failed" \
  "$T_WORK/ks.err"
grep_in "restorable now is said" "restorable now: 2 of 3" "$T_WORK/ks.err"
Q="$GNUPGHOME/keysafe-queue"
eq "two shards (two objects) queued" "$(ls "$Q" | wc -l)" 2
eq "the queue is private" "$(stat -c %a "$Q")" 700
mkdir "$T_WORK/qcopy"
cp "$Q"/* "$T_WORK/qcopy/"
fails "upload-queued fails while the server is down" ks --status-fd 4 \
  upload-queued 4>"$T_WORK/status"
eq "still queued" "$(ls "$Q" | wc -l)" 2
grep_in "the down server is named with its count" \
  ": .*; 2 shards stay queued" "$T_WORK/ks.err"
grep_in "status: the location failed, 2 shards left" \
  '^\[KEYSAFE:\] QUEUE_LOCATION 1 failed [^ ]* 0 2 0 0 [a-z-]*$' "$T_WORK/status"
grep_in "status: the result says shards are left" \
  '^\[KEYSAFE:\] QUEUE_RESULT left 0 2 0 0$' "$T_WORK/status"
fails "check says a shard is missing" ks check --name queued --password-fd 3 \
  $SERVERS
grep_in "check names the unreachable server" "server 3 ($URL_3): unreachable" \
  "$T_WORK/ks.err"
srv_start 3
ok "upload-queued sends them" ks --status-fd 4 upload-queued \
  4>"$T_WORK/status"
grep_in "sent" "2 queued shards sent, 0 left" "$T_WORK/ks.err"
grep_in "status: the location took both" \
  '^\[KEYSAFE:\] QUEUE_LOCATION 1 answered [^ ]* 2 0 0 0$' "$T_WORK/status"
grep_in "status: the result is ok" \
  '^\[KEYSAFE:\] QUEUE_RESULT ok 2 0 0 0$' "$T_WORK/status"
eq "the queue is empty" "$(ls "$Q" | wc -l)" 0
eq "server 3 holds them now" "$(shard_files 3 | wc -l)" 6
ok "upload-queued again: nothing to do" ks upload-queued
# The same shards queued once more (as after a crash before the queue
# was cleared): a 409 with equal bytes counts as done.
cp "$T_WORK/qcopy"/* "$Q/"
ok "upload-queued of shards already stored" ks upload-queued
grep_in "counted as sent" "2 queued shards sent, 0 left" "$T_WORK/ks.err"
eq "the queue is empty again" "$(ls "$Q" | wc -l)" 0
ok "check: all stored" ks check --name queued --password-fd 3 $SERVERS
srv_stop 1
ok "restore from servers 2 and 3 after the queue was sent" ks restore \
   --stdout --name queued --password-fd 3 $SERVERS
eq "the key comes back (queued)" "$(fpr_of "$T_WORK/ks.out")" "$FPR"
srv_start 1

# A list in another order: share I is not on server I any more; the
# other servers are asked for the missing shares.
ok "restore with the server list reordered" ks restore --stdout \
   --name queued --password-fd 3 --server "$URL_3" --server "$URL_1" \
   --server "$URL_2"
eq "the key comes back (reordered)" "$(fpr_of "$T_WORK/ks.out")" "$FPR"

# 5. A server that accepts and never answers: restore still finishes,
#    within the timeout (5 s here) plus a margin.
kill -STOP "$PID_1"
start=$(date +%s)
KS_TIMEOUT=5 ok "restore with server 1 hanging" ks restore --stdout \
   --name queued --password-fd 3 $SERVERS
took=$(( $(date +%s) - start ))
kill -CONT "$PID_1"
eq "the key comes back (hang)" "$(fpr_of "$T_WORK/ks.out")" "$FPR"
ok "the hanging server cost about the timeout ($took s)" \
   test "$took" -ge 4 -a "$took" -le 30

t_done
