#!/bin/bash
# t-dirstore.sh - a directory as a shard location (file:///path)
# SPDX-License-Identifier: GPL-3.0-or-later
#
# The client's directory store and keysafe-server's store are one layout:
# shards the client puts into a directory are served byte-identical by a
# real keysafe-server started on it, and shards PUT through the server
# are read back by the client.  Also the never-replace rule, a missing
# disk, a writer killed mid-loop and a full disk.

. "${srcdir:-.}/t-server-lib.sh"
TOOL="$top_builddir/tests/t-dirstore-tool"
[ -x "$TOOL" ] || { echo "ERROR: no $TOOL"; exit 99; }

D="$T_WORK/stick/keysafe"
mkdir -p "$D"
URL="file://$D"
N1=$(randname); N2=$(randname); N3=$(randname)
head -c 700 /dev/urandom >"$T_WORK/s1"
head -c 700 /dev/urandom >"$T_WORK/s1b"

echo "put, the same bytes again, other bytes"
eq "put stores" "$("$TOOL" put "$URL" "$N1" "$T_WORK/s1")" "status 201"
eq "same bytes count as stored" "$("$TOOL" put "$URL" "$N1" "$T_WORK/s1")" \
   "status 201"
eq "other bytes: exists" "$("$TOOL" put "$URL" "$N1" "$T_WORK/s1b")" \
   "status 409"
F="$D/${N1:0:2}/${N1:2:2}/$N1"
ok "server layout ab/cd/NAME" cmp "$F" "$T_WORK/s1"
eq "first writer kept" "$(cmp "$F" "$T_WORK/s1b" >/dev/null; echo $?)" 1
eq "shard time is the epoch" "$(stat -c %Y "$F")" 0
eq "directory times are the epoch" \
   "$(stat -c %Y "$D/${N1:0:2}" "$D/${N1:0:2}/${N1:2:2}" | sort -u)" 0
eq "mode 0600" "$(stat -c %a "$F")" 600
eq "get" "$("$TOOL" get "$URL" "$N1" "$T_WORK/g1")" "status 200"
ok "get gives the bytes" cmp "$T_WORK/g1" "$T_WORK/s1"
eq "get of an absent name" "$("$TOOL" get "$URL" "$N2" "$T_WORK/g2")" \
   "status 404"
fails "a bad name is refused" "$TOOL" put "$URL" "${N2^^}" "$T_WORK/s1"

echo "a location that is not there"
GONE="file://$T_WORK/mnt/usb/keysafe"
mkdir -p "$T_WORK/mnt/usb"
out=$("$TOOL" put "$GONE" "$N2" "$T_WORK/s1") || true
eq "put to a missing directory: a clear error" "$out" \
   "error: the directory is not there (a disk not mounted?) (No such device)"
out=$("$TOOL" get "$GONE" "$N2" "$T_WORK/g2") || true
eq "get from it too" "$out" \
   "error: the directory is not there (a disk not mounted?) (No such device)"
fails "not present" "$TOOL" present "$GONE"
eq "the top directory was not made up" "$(ls -A "$T_WORK/mnt/usb")" ""
: >"$T_WORK/afile"
fails "a file is no location" "$TOOL" present "file://$T_WORK/afile"
fails "a relative path is no location" "$TOOL" present "file://stick"
ok "present" "$TOOL" present "$URL"
ok "present with %-escapes and localhost" \
   "$TOOL" present "file://localhost${D/stick/%73tick}"
fails "an escaped NUL is no location" "$TOOL" present "file://$D%00"
fails "a cut escape is no location" "$TOOL" present "file://$D%4"
fails "create needs the parent" "$TOOL" create "file://$T_WORK/no/such"
ok "create on request" "$TOOL" create "$GONE"
eq "then put works" "$("$TOOL" put "$GONE" "$N2" "$T_WORK/s1")" "status 201"

echo "an fstab mount point with nothing mounted on it"
# In a mount namespace of its own, so the system's fstab stays untouched.
MP="$T_WORK/mnt/stick"
mkdir -p "$MP"
printf 'UUID=0000-0000 %s vfat noauto,user 0 0\n' "$MP" >"$T_WORK/fstab"
if unshare -m true 2>/dev/null; then
  out=$(unshare -m sh -c "mount --bind '$T_WORK/fstab' /etc/fstab \
    && '$TOOL' present 'file://$MP'; '$TOOL' present 'file://$MP/'; \
    '$TOOL' put 'file://$MP' '$N1' '$T_WORK/s1'; ls -A '$MP'; \
    mount -t tmpfs -o size=1m tmpfs '$MP' && '$TOOL' present 'file://$MP'" \
    2>&1) || true
  eq "not mounted: no location; mounted: present" "$out" "No such device
No such device
error: the directory is not there (a disk not mounted?) (No such device)
present"
else
  echo "note: no mount namespace (not root): the fstab part is not run"
fi

echo "a real keysafe-server serves the directory unchanged"
for i in 1 2 3 4 5; do
  n=$(randname)
  head -c $((i * 300)) /dev/urandom >"$T_WORK/c.$n"
  "$TOOL" put "$URL" "$n" "$T_WORK/c.$n" >/dev/null
done
ok "the server's check finds the store clean" \
   sh -c "'$SERVER' --check-store '$D' | grep -q '^store is clean'"
srv_start "$D" --pow-difficulty 0
for f in "$T_WORK"/c.* "$T_WORK/s1"; do
  n=${f##*/c.}
  [ "$f" = "$T_WORK/s1" ] && n=$N1
  curl -s -m 30 -o "$T_WORK/h.$n" "$BASE/v1/shard/$n"
  ok "server serves the client's shard ${n:0:8} byte-identical" \
     cmp "$T_WORK/h.$n" "$f"
done
# A PUT through the server must have a profile's object size (512: test).
head -c 512 /dev/urandom >"$T_WORK/s3"
eq "PUT through the server" "$(put "$N3" "$T_WORK/s3")" 201
head -c 512 /dev/urandom >"$T_WORK/s1c"
eq "server refuses the client's name" "$(put "$N1" "$T_WORK/s1c")" 409
srv_stop
eq "the client reads the server's shard" \
   "$("$TOOL" get "$URL" "$N3" "$T_WORK/g3")" "status 200"
ok "byte-identical" cmp "$T_WORK/g3" "$T_WORK/s3"
eq "the client sees the server's shard as taken" \
   "$("$TOOL" put "$URL" "$N3" "$T_WORK/s1")" "status 409"

echo "a writer killed with SIGKILL leaves whole shards or none"
K="$T_WORK/killed"
mkdir "$K"
# Big shards make the write and its fsync the longest part of a put, so
# most kills land inside one; rounds go on (20 at most) until one did.
for round in $(seq 1 20); do
  "$TOOL" loop "file://$K" 100000 200000 >/dev/null &
  w=$!
  t_wait_for "$w" sh -c "find '$K' -type f -name '[0-9a-f]*' | grep -q ."
  sleep 0.$((RANDOM % 5 + 1))
  kill -9 "$w" 2>/dev/null || true
  wait "$w" 2>/dev/null || true
  "$TOOL" verify "$K" 200000 | grep -q 'temps 0 ' || break
done
out=$("$TOOL" verify "$K" 200000)
echo "after $round rounds: $out"
ok "only whole shards under shard names" "$TOOL" verify "$K" 200000
ok "shards were written" test "$(echo "$out" | cut -d' ' -f2)" -gt 0
srv_start "$K" --pow-difficulty 0
srv_stop
eq "the server's start sweeps the temp files" \
   "$("$TOOL" verify "$K" 200000 | cut -d' ' -f4)" 0

echo "a full disk"
SMALL="$T_WORK/small"
mkdir "$SMALL"
if mount -t tmpfs -o size=256k tmpfs "$SMALL" 2>/dev/null; then
  mkdir "$SMALL/ks"
  out=$("$TOOL" fill "file://$SMALL/ks" 3000)
  ok "the fill ended on a full disk ($out)" \
     sh -c "echo '$out' | grep -q 'No space left on device'"
  eq "nothing half-written, no temp left" \
     "$("$TOOL" verify "$SMALL/ks" 3000 | sed 's/shards [0-9]* //')" \
     "temps 0 bad 0"
  n=$(randname)
  out=$("$TOOL" put "file://$SMALL/ks" "$n" "$T_WORK/s3") || true
  eq "a put on the full disk: 507 like a server" "$out" "status 507"
  ok "and no file under its name" test ! -e "$SMALL/ks/${n:0:2}/${n:2:2}/$n"
  umount "$SMALL"
else
  echo "note: no tmpfs (not root): the full-disk part is not run"
fi

echo "a link planted in the store does not lead out of it"
DL="$T_WORK/linked"; OUT="$T_WORK/outside"
mkdir -p "$DL" "$OUT/cd"
ln -s "$OUT" "$DL/ab"
NL="abcd$(randname | cut -c5-)"
head -c 512 /dev/urandom >"$T_WORK/sl"
st=$("$TOOL" put "file://$DL" "$NL" "$T_WORK/sl" || true)
ok "a put through a linked ab/ is refused (got '$st')" test "$st" != "status 201"
eq "nothing was written outside the store" "$(find "$OUT" -type f | wc -l)" 0
cp "$T_WORK/sl" "$OUT/cd/$NL"
st=$("$TOOL" get "file://$DL" "$NL" "$T_WORK/gl" || true)
ok "a get through a linked ab/ finds nothing (got '$st')" test "$st" != "status 200"
t_done
