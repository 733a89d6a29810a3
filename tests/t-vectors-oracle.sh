#!/bin/sh
# t-vectors-oracle.sh - check data/vectors.txt with independent tools
# SPDX-License-Identifier: GPL-3.0-or-later
#
# t-vectors checks our code against the vector file; this checks the
# file against other implementations: the reference argon2 CLI for the
# Argon2id values (one lane, -l 32, the 16-byte salt as its argument),
# sha256sum for the salts, N, the shard names and the randomness
# stream, and libgfshare's gfcombine for the Shamir shards.  So the
# vectors in doc/protocol.md do not merely restate what our code
# computes.  A salt with a zero byte cannot be a command-line argument:
# that one goes to the same reference library (libargon2) through
# python3's ctypes.
set -eu
: "${srcdir:=.}"
vec="$srcdir/data/vectors.txt"
ARGON2_CLI=${ARGON2_CLI:-argon2}
GFCOMBINE=${GFCOMBINE:-gfcombine}
for tool in "$ARGON2_CLI" "$GFCOMBINE" sha256sum perl python3; do
  command -v "$tool" >/dev/null 2>&1 || { echo "SKIP: $tool missing"; exit 77; }
done

tmp=$(mktemp -d /tmp/ksvXXXXXX)
trap 'rm -rf "$tmp"' EXIT
fails=0
checks=0
TAG=keysafe-2-test

get () { sed -n "s/^$1\.$2 = //p" "$vec"; }
unhex () { perl -e 'print pack("H*", $ARGV[0])' "$1"; }
tohex () { perl -e 'local $/; print unpack("H*", <STDIN>)'; }
sha () { sha256sum | cut -c1-64; }
same () {
  checks=$((checks + 1))
  if [ "$2" != "$3" ]; then
    echo "FAIL: $1"; echo "  want $2"; echo "  got  $3"; fails=$((fails + 1))
  fi
}

# argon2id SALTHEX T KIB: Argon2id of stdin, one lane, 32 bytes, hex.
argon2id () {
  case "$(echo "$1" | perl -ne 'print((grep { $_ eq "00" } unpack("(A2)*", $_)) ? "nul" : "ok")')" in
    ok)
      echo >> "$tmp/cli"
      perl -e 'my $s = pack("H*", shift); exec shift, $s, @ARGV' "$1" \
        "$ARGON2_CLI" -id -t "$2" -k "$3" -p 1 -l 32 -r ;;
    *)
      echo >> "$tmp/lib"
      python3 -c '
import ctypes, sys
lib = ctypes.CDLL("libargon2.so.1")
pw = sys.stdin.buffer.read(); salt = bytes.fromhex(sys.argv[1])
out = ctypes.create_string_buffer(32)
rc = lib.argon2id_hash_raw(int(sys.argv[2]), int(sys.argv[3]), 1, pw, len(pw),
                           salt, len(salt), out, 32)
sys.exit(rc) if rc else print(out.raw.hex())' "$1" "$2" "$3" ;;
  esac
}

for v in v1 v2 v3 v4 v5; do
  name=$(get $v name); keyid=$(get $v keyid); pw=$(get $v password)
  [ "$(get $v profile)" = test ] || { echo "ERROR: unexpected profile"; exit 99; }
  set -- $(get $v "n k"); n=$1; k=$2
  # Test profile costs (doc/protocol.md, "Profiles"): name 1 x 64 KiB,
  # two instances; key 1 x 64 KiB; puzzle 1 x 32 KiB; 4 bits.
  parts=
  for q in 1 2; do
    s=$( { printf '%s/name/' $TAG; unhex "$(printf '%02x' $q)"; printf '%s' "$keyid"; } | sha | cut -c1-32)
    same "$v salt.name.$q" "$(get $v salt.name.$q)" "$s"
    parts="$parts$(printf '%s' "$name" | argon2id "$s" 1 64)"
  done
  nseed=$( { printf '%s/name/' $TAG; unhex "$parts"; } | sha)
  same "$v N" "$(get $v N)" "$nseed"
  s=$( { printf '%s/key/' $TAG; unhex "$nseed"; } | sha | cut -c1-32)
  same "$v salt.key" "$(get $v salt.key)" "$s"
  k_=$(printf '%s' "$pw" | argon2id "$s" 1 64)
  same "$v K" "$(get $v K)" "$k_"

  # Randomness block 0 = SHA-256 (seed || be64 0): R, then the IV.
  seed=$(get $v randomness)
  blk=$( { printf '%s' "$seed"; unhex 0000000000000000; } | sha)
  r=$(( 0x$(echo "$blk" | cut -c1-8) & 15 ))
  same "$v R" "$(get $v R)" "$r"
  obj=$(get $v object.0)
  same "$v IV" "$(echo "$blk" | cut -c9-32)" "$(echo "$obj" | cut -c1-24)"

  s=$( { printf '%s/puzzle/' $TAG; unhex "$nseed"; } | sha | cut -c1-32)
  same "$v salt.puzzle" "$(get $v salt.puzzle)" "$s"
  e=$( { unhex "$k_"; unhex "$(printf '%08x' "$r")"; } | argon2id "$s" 1 32)
  same "$v E" "$(get $v E)" "$e"

  # Location-bound names, and the shards combine with gfcombine.
  chunks=$(get $v chunks)
  j=0
  while [ $j -lt "$chunks" ]; do
    i=1
    while [ $i -le "$n" ]; do
      loc=$(get $v location.$i)
      nm=$( { printf '%s/shard/' $TAG; unhex "$nseed"; unhex "$(printf '%08x' ${#loc})";
              printf '%s' "$loc"; unhex "$(printf '%02x%08x' $i $j)"; } | sha)
      same "$v name.$i.$j" "$(get $v name.$i.$j)" "$nm"
      unhex "$(get $v shard.$i.$j)" > "$tmp/s$j.00$i"
      i=$((i + 1))
    done
    j=$((j + 1))
  done
  loc=$(get $v moved)
  nm=$( { printf '%s/shard/' $TAG; unhex "$nseed"; unhex "$(printf '%08x' ${#loc})";
          printf '%s' "$loc"; unhex 0100000000; } | sha)
  same "$v moved.name.1.0" "$(get $v moved.name.1.0)" "$nm"
  if [ "$k" -eq 2 ]; then subsets="1,2 1,3 2,3"; else subsets="1,2,3"; fi
  for sub in $subsets; do
    files=$(echo "$sub" | sed "s|\([0-9]\)|$tmp/s0.00\1|g; s|,| |g")
    "$GFCOMBINE" -o "$tmp/obj" $files
    same "$v object.0 from shards $sub" "$obj" "$(tohex < "$tmp/obj")"
  done
  if [ "$k" -eq 3 ]; then
    # Two shards of a 3-of-3 backup give something else.
    "$GFCOMBINE" -o "$tmp/obj" "$tmp/s0.001" "$tmp/s0.002"
    checks=$((checks + 1))
    [ "$(tohex < "$tmp/obj")" != "$obj" ] || { echo "FAIL: $v 2 of 3-of-3"; fails=$((fails + 1)); }
  fi
done

# The values printed in doc/protocol.md must be these.
proto="$srcdir/../doc/protocol.md"
if [ -f "$proto" ]; then
  for key in v1.N v1.K v1.E v1.name.1.0 v1.name.2.0 v1.name.3.0 v1.name.1.1 \
             v1.moved.name.1.0 v2.N v2.name.1.0 v3.name.1.0 v4.name.1.1 v5.N; do
    checks=$((checks + 1))
    grep -q "$(get ${key%%.*} ${key#*.})" "$proto" || { echo "FAIL: $key not in protocol.md"; fails=$((fails + 1)); }
  done
fi

touch "$tmp/cli" "$tmp/lib"
echo "Argon2id: $(wc -l < "$tmp/cli") by the argon2 CLI, $(wc -l < "$tmp/lib") by libargon2 (salt with a zero byte)"
[ "$(wc -l < "$tmp/cli")" -gt 0 ] || { echo "FAIL: the argon2 CLI checked nothing"; fails=$((fails + 1)); }
echo "$checks checks, $fails failed"
[ "$fails" -eq 0 ]
