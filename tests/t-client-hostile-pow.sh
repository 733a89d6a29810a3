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
# name the greedy server and its difficulty.  Then the user's cap
# (--pow-cap) and the budget of one operation: with a cap of 12 bits a
# location is paid at most 2^15 hashes in one operation plus 2^10 for
# every request that gets a challenge: a greedy server asking 12 bits
# for every request (and never accepting the proof) gets eight proofs
# and a few more as requests come, not three for every request.

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

# The user's cap: 16 bits asked, 12 allowed.
hostile_stop
hostile_start greedy --listen "127.0.0.1:$H_PORT" --difficulty 16
ok "restore with --pow-cap 12 beside a 16-bit server" ks --pow-cap 12 \
   restore --stdout --name greedy --password-fd 3 $ALL
eq "the key comes back" "$(fpr_of "$T_WORK/ks.out")" "$FPR"
grep_in "the user's cap is named" \
  "the server asks too much proof of work (difficulty 16, the limit is 12)" \
  "$T_WORK/ks.err"

# The budget: 12 bits asked for every request.  A backup's probe asks
# the greedy server for all three share names of chunk 0, three rounds
# each: nine challenges, the ninth past the budget; the uploads then get
# one proof more between them.
hostile_stop
hostile_start greedy --listen "127.0.0.1:$H_PORT" --difficulty 12
ok "backup with --pow-cap 12 beside a 12-bit server that never accepts" \
   ks --pow-cap 12 backup --gpgkeyid "$FPR" --name budget --password-fd 3 \
   $ALL
grep_in "the budget is named" \
  "asks more proof of work than one operation allows" "$T_WORK/ks.err"
# Every 403 is a challenge: three first asks of the probe, then one
# more after each proof paid; without the budget there would be
# 3 + 9 = 12.
n=$(grep -c ' GET .* 403$' "$HOSTILE_LOG" || true)
eq "eight proofs were paid, the ninth refused ($n challenges)" "$n" 11
# The uploads: each new request adds a quarter of a cap (2^10) to the
# budget, so of the PUTs one proof is paid and no more: one challenge
# per PUT and one after the paid proof.
puts=$(grep ' PUT ' "$HOSTILE_LOG" | awk '{print $3}' | sort -u | wc -l)
n=$(grep -c ' PUT .* 403$' "$HOSTILE_LOG" || true)
eq "one proof paid for $puts uploads ($n challenges)" "$n" $((puts + 1))
fails "--pow-cap 41 is refused" ks --pow-cap 41 restore --stdout \
   --name greedy --password-fd 3 $ALL
grep_in "it says why" "pow-cap takes 1 to 40 bits" "$T_WORK/ks.err"

t_done
