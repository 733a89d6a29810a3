#!/bin/bash
# t-client-hostile-pow.sh - a server asking too much proof of work
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Two honest keysafe-servers hold shards 1 and 2; the third location is
# t-hostile-server, first honest (it takes shard 3), then restarted on
# the same port (so the same identity) in greedy mode: every request
# gets a difficulty-32 challenge.  protocol.md section 12 caps what a
# client pays (24 bits for a GET): the restore must refuse the challenge
# without solving it, succeed on the honest pair well within 15 s, and
# name the greedy server and its difficulty.

. "${srcdir:-.}/t-client-hostile-lib.sh"

hostile_backup greedy
H_PORT=$HOSTILE_PORT
n=$(grep -c ' PUT .* 201$' "$HOSTILE_LOG" || true)
ok "the hostile server took its shard ($n)" test "$n" -ge 1

hostile_stop
hostile_start greedy --listen "127.0.0.1:$H_PORT" --difficulty 32
eq "the greedy server has the same address" "$HOSTILE_PORT" "$H_PORT"

t0=$(date +%s%N)
KS_TIMEOUT=20 ok "restore succeeds beside a greedy server" ks restore \
   --stdout --name greedy --password-fd 3 $ALL
t1=$(date +%s%N)
ms=$(( (t1 - t0) / 1000000 ))
eq "the key comes back" "$(fpr_of "$T_WORK/ks.out")" "$FPR"
ok "the restore took ${ms} ms, under 15 s" test "$ms" -lt 15000
grep_in "the greedy server is named" \
  "$HOSTILE_URL did not help: the server asks too much proof of work (difficulty 32" \
  "$T_WORK/ks.err"
n=$(grep -c ' 403$' "$HOSTILE_LOG" || true)
ok "the greedy server was asked at most once per name ($n)" test "$n" -le 3

t_done
