#!/bin/bash
# t-server-abuse.sh - what filling a store costs at the default settings,
# and oversized chunked PUTs do not slow down everyone else
# SPDX-License-Identifier: GPL-3.0-or-later
. "${srcdir:-.}/t-server-lib.sh"
LOAD="$top_builddir/tests/t-srvload"
[ -x "$LOAD" ] || { echo "ERROR: no $LOAD"; exit 99; }

# Work per stored byte at the default settings, from a real server's own
# answers: the largest body a PUT may have and the difficulty of a PUT's
# challenge.  Before (0.1.0): a PUT paid a GET's 16 bits for any body of
# up to 65536 bytes, 2^16 / 65536 = 1 SHA-256 per byte.
srv_start "$T_WORK/store"
info=$(curl -s -m 30 "$BASE/v1/info")
max=$(echo "$info" | sed -n 's/.*"max_shard_bytes":\([0-9]*\).*/\1/p')
n=$(randname)
head -c "$max" /dev/urandom > "$T_WORK/bmax"
c=$(curl -s -m 30 -o /dev/null -D - -T "$T_WORK/bmax" "$BASE/v1/shard/$n" \
    | tr -d '\r' | sed -n 's/^[Kk]eysafe-[Cc]hallenge: //p')
d=$((16#${c:16:2}))
srv_stop
# factor = (2^d / max) / (2^16 / 65536) = 2^(d - 16) * 65536 / max
factor=$(( (1 << (d - 16)) * 65536 / max ))
echo "work per stored byte: before 1 hash/byte (16 bits for 65536 bytes);" \
     "now 2^$d / $max = $(( (1 << d) / max )) hashes/byte; factor $factor"
ok "filling a store costs >= 2^8 times more work per byte ($factor)" \
   test "$factor" -ge 256

# Latency of normal GETs, unloaded and beside 10 oversized chunked PUTs
# a second that keep streaming after their 413.  Medians of 150 requests;
# the margin allows for a shared 2-core machine (the linger in a worker
# thread, which this replaced, made it 391 ms against 0.5 ms).
srv_start "$T_WORK/store" --pow-difficulty 0
head -c 512 /dev/urandom > "$T_WORK/b"
n=$(randname)
eq "PUT" "$(put "$n" "$T_WORK/b")" 201
base=$("$LOAD" "$PORT" "/v1/shard/$n" 150 0 "$(randname)")
loaded=$("$LOAD" "$PORT" "/v1/shard/$n" 150 10 "$(randname)")
echo "unloaded: $base"
echo "10 oversized chunked PUTs/s: $loaded"
m0=$(echo "$base" | sed -n 's/.*median_us=\([0-9]*\).*/\1/p')
m1=$(echo "$loaded" | sed -n 's/.*median_us=\([0-9]*\).*/\1/p')
f=$(echo "$loaded" | sed -n 's/.*floods=\([0-9]*\).*/\1/p')
ok "the flood ran ($f oversized PUTs)" test "${f:-0}" -ge 20
# Under 2x, with 300 us of slack for scheduling noise at these scales.
ok "median latency under load $m1 us < 2 x $m0 us (+300 us)" \
   test "$m1" -lt $((2 * m0 + 300))
ok "server alive after the flood" srv_alive
eq "no shard under the flood's names" \
   "$(find "$T_WORK/store" -type f | wc -l)" 1
srv_stop

t_done
