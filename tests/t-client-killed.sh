#!/bin/bash
# t-client-killed.sh - a backup of two objects killed part-way never strands
# SPDX-License-Identifier: GPL-3.0-or-later
#
# A secret over one chunk is two objects per share.  A backup killed
# (SIGKILL) at any moment, between its objects too, must after
# `upload-queued` either restore or leave fewer than k = 2 shards of
# chunk 0 on the servers: chunk 0 is what makes a name taken and where
# a restore starts, so more of it would be a name that looks taken
# while nothing restores.  The kills come at fractions of a whole
# backup's wall time, and right after the stores got their first,
# second, ... shard of the backup (they are watched), which catches the
# moments between objects.  Proof of work at difficulty 12 spreads the
# PUTs apart so that those moments are wide enough to hit.  The shards
# of a chunk are counted in the stores (chunk_on_servers).

POW=${POW:-12}
. "${srcdir:-.}/t-client-lib.sh"

servers 3
gpg_home
QDIR="$GNUPGHOME/keysafe-queue"
# 600 bytes: the test profile's chunk holds 484, so two objects.
head -c 600 /dev/urandom >"$T_WORK/secret"
printf '%s\n' "$PW" >"$T_WORK/pw"

qcount () { find "$QDIR" -type f 2>/dev/null | wc -l; }
stored () { find "$T_WORK"/store[123] -type f 2>/dev/null | wc -l; }
# backup_bg ITEM: a backup of the secret in the background, pid in KPID.
backup_bg ()
{
  "$KEYSAFE" --batch --profile test --timeout 20 --connect-timeout 10 \
    backup --stdin --name "$1" --password-fd 3 $SERVERS \
    <"$T_WORK/secret" 3<"$T_WORK/pw" >/dev/null 2>"$T_WORK/kill.err" &
  KPID=$!
}
# judge ITEM HOW: finish with upload-queued, then it restores the same
# bytes or fewer than k shards of chunk 0 are on the servers.
judge ()
{
  ks upload-queued $SERVERS || true
  eq "$2: the queue is empty after upload-queued" "$(qcount)" 0
  if ks restore --stdout --name "$1" --password-fd 3 $SERVERS; then
    ok "$2: it restores the secret" cmp -s "$T_WORK/ks.out" "$T_WORK/secret"
  else
    ok "$2: it does not restore, and chunk 0 is below k on the servers" \
       test "$(chunk_on_servers "$1" 0)" -lt 2
  fi
}

# A whole backup: two objects, both on all three servers.
t0=$(date +%s%N)
ok "a whole backup of a two-object secret" ks backup --stdin --name whole \
   --password-fd 3 $SERVERS <"$T_WORK/secret"
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
eq "chunk 0 is on three servers" "$(chunk_on_servers whole 0)" 3
eq "chunk 1 is on three servers" "$(chunk_on_servers whole 1)" 3
eq "there is no chunk 2" "$(chunk_on_servers whole 2)" 0
ok "it restores" ks restore --stdout --name whole --password-fd 3 $SERVERS
ok "the same bytes" cmp -s "$T_WORK/ks.out" "$T_WORK/secret"

# Killed right after the stores got their Nth new shard of the backup.
for n in 1 2 3 4 5; do
  before=$(stored)
  backup_bg "shard $n"
  i=0
  while [ $i -lt 20000 ] && kill -0 "$KPID" 2>/dev/null \
        && [ "$(stored)" -lt $((before + n)) ]; do
    i=$((i + 1))
  done
  kill -KILL "$KPID" 2>/dev/null && how=killed || how=finished
  wait "$KPID" 2>/dev/null || true
  judge "shard $n" "after $n stored shard(s) ($how)"
done

# Killed at fractions of a whole backup's wall time.
for f in 2 4 6 8 9 10 11 12 13 14 15 16 18; do
  d=$(printf '%d.%03d' $((ms * f / 16 / 1000)) $((ms * f / 16 % 1000)))
  backup_bg "kill $d"
  sleep "$d"
  kill -KILL "$KPID" 2>/dev/null && how=killed || how=finished
  wait "$KPID" 2>/dev/null || true
  judge "kill $d" "killed at $d s ($how)"
done

t_done
