#!/bin/bash
# t-server-store.sh - racing PUTs of one name, kill -9 during 200
# concurrent PUTs, the reserve (507, no partial file), timestamps, the
# store holding nothing but shards
# SPDX-License-Identifier: GPL-3.0-or-later
. "${srcdir:-.}/t-server-lib.sh"

only_shards ()
{
  find "$1" -type f | grep -Ev '/[0-9a-f]{2}/[0-9a-f]{2}/[0-9a-f]{64}$' || true
}

S="$T_WORK/store"
srv_start "$S" --pow-difficulty 0 --max-uploads 256

# Racing PUTs of one name: exactly one 201, the rest 409, one whole body.
for round in 1 2 3; do
  r=$("$CLIENT" race "$PORT" "$(randname)" 20 8192)
  eq "race round $round" "$r" "created=1 conflict=19 other=0 whole=1"
done

# kill -9 while 200 uploads are in flight, then a restart.
mkdir "$T_WORK/crash"
r=$("$CLIENT" crash "$PORT" "$SRV_PID" 200 8192 "$T_WORK/crash")
wait "$SRV_PID" 2>/dev/null || true
echo "crash: $r"
acked=$(wc -l < "$T_WORK/crash/acked")
ok "some uploads acknowledged before the kill ($acked)" test "$acked" -ge 100
ok "some uploads cut by the kill" test "$acked" -lt 200
srv_start "$S" --pow-difficulty 0
r=$("$CLIENT" verify "$PORT" "$T_WORK/crash")
echo "verify: $r"
ok "every acknowledged shard intact, nothing partial served" \
   sh -c "echo '$r' | grep -q 'bad=0'"
ok "verify saw every acknowledged shard" \
   sh -c "echo '$r' | grep -q 'intact=$acked '"
# The GETs of verify read every acknowledged shard: their access times
# stay at the epoch too (O_NOATIME), so nothing tells when a shard was
# last fetched.  Checked before anything else here reads the files.
eq "reads leave access times at the epoch" \
   "$(find "$S" -type f -printf '%A@\n' | sed 's/\..*//' | sort -u)" 0
eq "no temp file after the restart" "$(find "$S" -name 'tmp.*')" ""
eq "only shards in the store" "$(only_shards "$S")" ""
# Every stored file is a whole body.
bad=0
for f in $(find "$S" -type f); do
  n=$(basename "$f")
  [ -f "$T_WORK/crash/$n" ] || continue
  cmp -s "$f" "$T_WORK/crash/$n" || bad=$((bad + 1))
done
eq "stored files are whole bodies" "$bad" 0

# Timestamps: every shard and directory carries the epoch.
eq "epoch times" "$(find "$S" -mindepth 1 -printf '%T@\n' | sed 's/\..*//' | sort -u)" 0
srv_stop

# A leftover temp file (as a crash leaves it) is removed at start and
# never served.
mkdir -p "$S/ab/cd"
n="abcd$(randname | cut -c5-)"
echo partial > "$S/ab/cd/tmp.deadbeef00"
srv_start "$S" --pow-difficulty 0
ok "temp file removed at start" test ! -e "$S/ab/cd/tmp.deadbeef00"
eq "temp name not served" "$(code GET "/v1/shard/tmp.deadbeef00")" 400
eq "shard of that dir absent" "$(code GET "/v1/shard/$n")" 404
srv_stop

# The reserve: a small filesystem that fills up.
SMALL="$T_WORK/small"
mkdir "$SMALL"
if mount -t tmpfs -o size=2m tmpfs "$SMALL" 2>/dev/null; then
  echo "507 on a 2 MiB tmpfs"
  srv_start "$SMALL/store" --pow-difficulty 0 --reserve-bytes 524288
  mkdir "$T_WORK/sent"
  got507=0
  for i in $(seq 1 400); do
    n=$(randname)
    head -c 8192 /dev/urandom > "$T_WORK/sent/$n"
    c=$(put "$n" "$T_WORK/sent/$n")
    if [ "$c" = 507 ]; then got507=1; rm "$T_WORK/sent/$n"; break; fi
    [ "$c" = 201 ] || { echo "unexpected $c" >&2; break; }
  done
  eq "store at its reserve gives 507" "$got507" 1
  free=$(df -B1 --output=avail "$SMALL" | tail -1 | tr -d ' ')
  ok "the reserve is kept ($free bytes free)" test "$free" -ge $((524288 - 8192))
  head -c 8192 /dev/urandom > "$T_WORK/b"
  eq "still 507" "$(put "$(randname)" "$T_WORK/b")" 507
  eq "no temp file after 507" "$(find "$SMALL/store" -name 'tmp.*')" ""
  eq "only shards after 507" "$(only_shards "$SMALL/store")" ""
  bad=0
  for f in $(find "$SMALL/store" -type f); do
    cmp -s "$f" "$T_WORK/sent/$(basename "$f")" || bad=$((bad + 1))
  done
  eq "every stored shard whole" "$bad" 0
  eq "stored count equals 201 count" "$(find "$SMALL/store" -type f | wc -l)" "$(ls "$T_WORK/sent" | wc -l)"
  srv_stop
  # With no reserve the disk itself fills: still 507 and nothing partial.
  srv_start "$SMALL/store" --pow-difficulty 0 --reserve-bytes 0
  got507=0
  for i in $(seq 1 400); do
    n=$(randname)
    head -c 8192 /dev/urandom > "$T_WORK/sent/$n"
    c=$(put "$n" "$T_WORK/sent/$n")
    if [ "$c" = 507 ]; then got507=1; rm "$T_WORK/sent/$n"; break; fi
  done
  eq "a full disk gives 507" "$got507" 1
  eq "no temp file on a full disk" "$(find "$SMALL/store" -name 'tmp.*')" ""
  bad=0
  for f in $(find "$SMALL/store" -type f); do
    cmp -s "$f" "$T_WORK/sent/$(basename "$f")" || bad=$((bad + 1))
  done
  eq "every stored shard whole on a full disk" "$bad" 0
  srv_stop
  umount "$SMALL"
else
  # No tmpfs (not root): a reserve just above the free space.
  echo "507 with a reserve above the free space (no tmpfs)"
  free=$(df -B1 --output=avail "$T_WORK" | tail -1 | tr -d ' ')
  srv_start "$T_WORK/store3" --pow-difficulty 0 --reserve-bytes $((free + 1073741824))
  head -c 8192 /dev/urandom > "$T_WORK/b"
  eq "store at its reserve gives 507" "$(put "$(randname)" "$T_WORK/b")" 507
  eq "nothing written" "$(find "$T_WORK/store3" -type f)" ""
  srv_stop
fi

t_done
