#!/bin/sh
# t-gfshare.sh - interop of ks_shamir_* with libgfshare (gfsplit/gfcombine)
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Shares we make are combined by gfcombine into the same bytes, and
# shares gfsplit makes (random x values) are combined by ours.  Share
# files are raw bytes named STEM.NNN (x in decimal), as libgfshare
# writes them.  Skips (77) without libgfshare-bin.
set -e

GFSPLIT=${GFSPLIT:-no}
GFCOMBINE=${GFCOMBINE:-no}
if [ "$GFSPLIT" = no ] || [ "$GFCOMBINE" = no ] \
   || [ ! -x "$GFSPLIT" ] || [ ! -x "$GFCOMBINE" ]; then
  echo "SKIP: gfsplit/gfcombine not found (Debian package libgfshare-bin)"
  exit 77
fi
TOOL=./t-shamir-tool
[ -x "$TOOL" ] || { echo "ERROR: $TOOL missing"; exit 99; }

tmp=$(mktemp -d /tmp/ksXXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM
pass=0

fail () { echo "FAIL: $*"; exit 1; }
ok () { pass=$((pass + 1)); }

# Sizes: one byte, an odd size, a page, 64 KiB + 3.
for size in 1 17 4096 65539; do
  head -c "$size" /dev/urandom > "$tmp/in"

  # Ours -> gfcombine.  2-of-3, every pair.
  rm -f "$tmp"/ks.*
  $TOOL split 2 3 "$tmp/in" "$tmp/ks" || fail "our split"
  for f in 001 002 003; do
    [ -f "$tmp/ks.$f" ] || fail "no share ks.$f"
    [ "$(wc -c < "$tmp/ks.$f")" -eq "$size" ] || fail "ks.$f has wrong size"
  done
  for pair in "001 002" "001 003" "002 003" "003 001"; do
    set -- $pair
    rm -f "$tmp/out"
    "$GFCOMBINE" -o "$tmp/out" "$tmp/ks.$1" "$tmp/ks.$2" \
      || fail "gfcombine ks.$1 ks.$2"
    cmp -s "$tmp/in" "$tmp/out" || fail "gfcombine of our $1,$2 (size $size)"
    ok
  done

  # Ours -> gfcombine, 3-of-5 and 2-of-255 (largest x values).
  rm -f "$tmp"/ks.*
  $TOOL split 3 5 "$tmp/in" "$tmp/ks" || fail "our split 3-of-5"
  rm -f "$tmp/out"
  "$GFCOMBINE" -o "$tmp/out" "$tmp/ks.005" "$tmp/ks.002" "$tmp/ks.004"
  cmp -s "$tmp/in" "$tmp/out" || fail "gfcombine of our 3-of-5 (size $size)"
  ok
  if [ "$size" -le 4096 ]; then
    rm -f "$tmp"/ks.*
    $TOOL split 2 255 "$tmp/in" "$tmp/ks" || fail "our split 2-of-255"
    rm -f "$tmp/out"
    "$GFCOMBINE" -o "$tmp/out" "$tmp/ks.254" "$tmp/ks.255"
    cmp -s "$tmp/in" "$tmp/out" || fail "gfcombine of our 254,255 (size $size)"
    ok
  fi

  # gfsplit -> ours.  2-of-3, every pair; 3-of-5, one triple.
  rm -f "$tmp"/gf.*
  "$GFSPLIT" -n 2 -m 3 "$tmp/in" "$tmp/gf" || fail "gfsplit"
  set -- "$tmp"/gf.*
  [ $# -eq 3 ] || fail "gfsplit made $# files"
  for pair in "$1 $2" "$1 $3" "$2 $3" "$3 $1"; do
    rm -f "$tmp/out"
    $TOOL combine "$tmp/out" $pair || fail "our combine of $pair"
    cmp -s "$tmp/in" "$tmp/out" || fail "our combine of gfsplit (size $size)"
    ok
  done
  rm -f "$tmp"/gf.*
  "$GFSPLIT" -n 3 -m 5 "$tmp/in" "$tmp/gf" || fail "gfsplit 3-of-5"
  set -- "$tmp"/gf.*
  [ $# -eq 5 ] || fail "gfsplit made $# files"
  rm -f "$tmp/out"
  $TOOL combine "$tmp/out" "$5" "$1" "$3" || fail "our combine 3-of-5"
  cmp -s "$tmp/in" "$tmp/out" || fail "our combine of gfsplit 3-of-5"
  ok
  # Two of a 3-of-5 must not give the secret (the check can fail).
  rm -f "$tmp/out"
  $TOOL combine "$tmp/out" "$1" "$2" || fail "our combine of 2"
  if [ "$size" -ge 17 ] && cmp -s "$tmp/in" "$tmp/out"; then
    fail "two shares of a 3-of-5 gave the secret"
  fi
  ok
done

# A changed share byte changes the result: the comparisons above are
# not vacuous.
head -c 64 /dev/urandom > "$tmp/in"
rm -f "$tmp"/ks.*
$TOOL split 2 3 "$tmp/in" "$tmp/ks"
cmp -s "$tmp/in" "$tmp/ks.001" && fail "share equals secret"
printf '\001' | dd of="$tmp/ks.001" bs=1 seek=10 conv=notrunc 2>/dev/null
printf '\002' | dd of="$tmp/ks.001" bs=1 seek=11 conv=notrunc 2>/dev/null
rm -f "$tmp/out"
"$GFCOMBINE" -o "$tmp/out" "$tmp/ks.001" "$tmp/ks.002"
cmp -s "$tmp/in" "$tmp/out" && fail "corrupted share still combined"
ok

# Bad names are refused by our tool.
cp "$tmp/ks.002" "$tmp/ks.000"
$TOOL combine "$tmp/out" "$tmp/ks.000" "$tmp/ks.003" 2>/dev/null \
  && fail "x = 0 accepted"
$TOOL combine "$tmp/out" "$tmp/ks.002" "$tmp/ks.002" 2>/dev/null \
  && fail "duplicate x accepted"
ok

echo "PASS: $pass interop checks"
exit 0
