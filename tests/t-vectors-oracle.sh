#!/bin/sh
# t-vectors-oracle.sh - check data/vectors.txt with independent tools
# SPDX-License-Identifier: GPL-3.0-or-later
#
# t-vectors checks our code against the vector file; this checks the
# file against other implementations: the reference argon2 CLI for N, K
# and E, sha256sum for the shard names and the randomness stream, and
# libgfshare's gfcombine for the Shamir shards.  So the vectors in
# doc/protocol.md do not merely restate what our code computes.
set -eu
: "${srcdir:=.}"
vec="$srcdir/data/vectors.txt"
ARGON2_CLI=${ARGON2_CLI:-argon2}
GFCOMBINE=${GFCOMBINE:-gfcombine}
for tool in "$ARGON2_CLI" "$GFCOMBINE" sha256sum perl; do
  command -v "$tool" >/dev/null 2>&1 || { echo "SKIP: $tool missing"; exit 77; }
done

tmp=$(mktemp -d /tmp/ksvXXXXXX)
trap 'rm -rf "$tmp"' EXIT
fails=0
checks=0

get () { sed -n "s/^$1\.$2 = //p" "$vec"; }
unhex () { perl -e 'print pack("H*", $ARGV[0])' "$1"; }
same () {
  checks=$((checks + 1))
  if [ "$2" != "$3" ]; then
    echo "FAIL: $1"; echo "  want $2"; echo "  got  $3"; fails=$((fails + 1))
  fi
}

for v in v1 v2; do
  name=$(get $v name); keyid=$(get $v keyid); pw=$(get $v password)
  [ "$(get $v profile)" = test ] || { echo "ERROR: unexpected profile"; exit 99; }
  # Test profile costs (doc/protocol.md, "Profiles").
  n=$(printf '%s' "$name" | "$ARGON2_CLI" "keysafe-1-test/name/$keyid" -id -t 1 -k 64 -p 1 -l 32 -r)
  same "$v N" "$(get $v N)" "$n"
  k=$(printf '%s' "$pw" | "$ARGON2_CLI" "keysafe-1-test/key/$name" -id -t 1 -k 64 -p 2 -l 32 -r)
  same "$v K" "$(get $v K)" "$k"

  # Randomness block 0 = SHA-256 (seed || be64 0): R, then the IV.
  seed=$(get $v randomness)
  blk=$( { printf '%s' "$seed"; unhex 0000000000000000; } | sha256sum | cut -c1-64)
  r=$(( 0x$(echo "$blk" | cut -c1-8) & 15 ))
  same "$v R" "$(get $v R)" "$r"
  obj=$(get $v object.0)
  same "$v IV" "$(echo "$blk" | cut -c9-32)" "$(echo "$obj" | cut -c1-24)"

  e=$( { unhex "$k"; unhex "$(printf '%08x' "$r")"; } | \
       "$ARGON2_CLI" "keysafe-1-test/puzzle/$name" -id -t 1 -k 32 -p 1 -l 32 -r)
  same "$v E" "$(get $v E)" "$e"

  for j in 0 1; do
    for i in 1 2 3; do
      nm=$( { unhex "$n"; unhex "$(printf '%02x%08x' $i $j)"; } | sha256sum | cut -c1-64)
      same "$v name.$i.$j" "$(get $v name.$i.$j)" "$nm"
      unhex "$(get $v shard.$i.$j)" > "$tmp/s$j.00$i"
    done
  done
  for pair in "1 2" "1 3" "2 3"; do
    set -- $pair
    "$GFCOMBINE" -o "$tmp/obj" "$tmp/s0.00$1" "$tmp/s0.00$2"
    got=$(perl -e 'local $/; open F, "<", $ARGV[0] or die; print unpack("H*", <F>)' "$tmp/obj")
    same "$v object.0 from shards $1,$2" "$obj" "$got"
  done
done

# The values printed in doc/protocol.md must be these.
proto="$srcdir/../doc/protocol.md"
if [ -f "$proto" ]; then
  for key in N K E name.1.0 name.2.0 name.3.0 name.1.1; do
    checks=$((checks + 1))
    grep -q "$(get v1 $key)" "$proto" || { echo "FAIL: v1.$key not in protocol.md"; fails=$((fails + 1)); }
  done
fi

echo "$checks checks, $fails failed"
[ "$fails" -eq 0 ]
