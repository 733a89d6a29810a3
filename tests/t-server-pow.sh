#!/bin/bash
# t-server-pow.sh - proof of work against a real server: missing, wrong,
# replayed, bound to another request, stale; a right one accepted; the
# difficulty rising with paid load only, and PUTs paying more, more so
# while the store grows fast
# SPDX-License-Identifier: GPL-3.0-or-later
. "${srcdir:-.}/t-server-lib.sh"

# challenge METHOD NAME [curl options]: the Keysafe-Challenge of a 403.
challenge ()
{
  local m="$1" n="$2"
  shift 2
  curl -s -m 30 -o /dev/null -D - -X "$m" "$@" "$BASE/v1/shard/$n" \
    | tr -d '\r' | sed -n 's/^[Kk]eysafe-[Cc]hallenge: //p'
}

solve ()
{
  "$CLIENT" solve "$1" "$2" "$3"
}

S="$T_WORK/store"
srv_start "$S" --pow-difficulty 8 --pow-load-rps 1000
head -c 512 /dev/urandom > "$T_WORK/b"
N=$(randname)
M=$(randname)

eq "info shows difficulty" \
   "$(curl -s -m 30 "$BASE/v1/info" | sed -n 's/.*"pow_difficulty":\([0-9]*\).*/\1/p')" 8

# Missing: 403 with a challenge of the right form.
eq "GET without proof" "$(code GET "/v1/shard/$N")" 403
eq "PUT without proof" "$(put "$N" "$T_WORK/b")" 403
c=$(challenge GET "$N")
ok "challenge is 82 lowercase hex" sh -c "echo '$c' | grep -Eqx '[0-9a-f]{82}'"
eq "challenge difficulty byte" "${c:16:2}" 08
# A PUT pays --pow-put-extra-bits (default 6) more.
c=$(challenge PUT "$N" -T "$T_WORK/b")
eq "PUT challenge: 8 + 6 bits" "${c:16:2}" 0e
eq "info shows the PUT's extra bits" \
   "$(curl -s -m 30 "$BASE/v1/info" | sed -n 's/.*"pow_put_extra_bits":\([0-9]*\).*/\1/p')" 6
# A proof of a GET's difficulty does not buy a PUT.
g=$(solve "$(challenge GET "$N")" GET "$N")
forged="${g%%.*}"
eq "GET-difficulty proof for a PUT" "$(put "$N" "$T_WORK/b" -H "Keysafe-PoW: $g")" 403
c=$(challenge GET "$N")

# Right: accepted (404: not stored yet; then a PUT 201 and a GET 200).
p=$(solve "$c" GET "$N")
eq "GET with proof" "$(code GET "/v1/shard/$N" -H "Keysafe-PoW: $p")" 404
# Replayed: the same proof again.
eq "replayed proof" "$(code GET "/v1/shard/$N" -H "Keysafe-PoW: $p")" 403
body=$(curl -s -m 30 "$BASE/v1/shard/$N" -H "Keysafe-PoW: $p")
eq "replay says so" "$body" "proof of work already used"

c=$(challenge PUT "$N" -T "$T_WORK/b")
p=$(solve "$c" PUT "$N")
eq "PUT with proof" "$(put "$N" "$T_WORK/b" -H "Keysafe-PoW: $p")" 201
eq "PUT replayed" "$(put "$N" "$T_WORK/b" -H "Keysafe-PoW: $p")" 403
c=$(challenge GET "$N")
p=$(solve "$c" GET "$N")
eq "GET stored with proof" \
   "$(curl -s -m 30 -o "$T_WORK/got" -w '%{http_code}' -H "Keysafe-PoW: $p" "$BASE/v1/shard/$N")" 200
ok "round trip under PoW" cmp -s "$T_WORK/b" "$T_WORK/got"

# Bound to the request: a GET proof for PUT, a proof for another name.
c=$(challenge GET "$M")
p=$(solve "$c" GET "$M")
eq "GET proof used for PUT" "$(put "$M" "$T_WORK/b" -H "Keysafe-PoW: $p")" 403
eq "proof for another name" "$(code GET "/v1/shard/$N" -H "Keysafe-PoW: $p")" 403
# A refused proof is not spent: it still buys its own GET (404: the
# refused PUT stored nothing).
eq "nothing stored by refused PUT" "$(code GET "/v1/shard/$M" -H "Keysafe-PoW: $p")" 404

# Wrong: a nonce that misses the target, a forged challenge, garbage.
c=$(challenge GET "$M")
p=$(solve "$c" GET "$M")
# The solver counts from nonce 0 and stops at the first hit, so nonce 0
# misses unless it is the hit (1 in 256).
wrong="${c}.0000000000000000"
if [ "${p#*.}" != 0000000000000000 ]; then
  eq "nonce missing the target" "$(code GET "/v1/shard/$M" -H "Keysafe-PoW: $wrong")" 403
  eq "miss says invalid" "$(curl -s -m 30 -H "Keysafe-PoW: $wrong" "$BASE/v1/shard/$M")" "proof of work invalid"
fi
forged="0000000000000000${c:16:66}.${p#*.}"
eq "forged time" "$(code GET "/v1/shard/$M" -H "Keysafe-PoW: $forged")" 403
eq "garbage proof" "$(code GET "/v1/shard/$M" -H "Keysafe-PoW: hello")" 403
eq "the right one still works" "$(code GET "/v1/shard/$M" -H "Keysafe-PoW: $p")" 404
srv_stop

# Another server start means another key: old proofs are worthless.
srv_start "$S" --pow-difficulty 8
c=$(challenge GET "$N")
p=$(solve "$c" GET "$N")
srv_stop
srv_start "$S" --pow-difficulty 8
eq "proof from before a restart" "$(code GET "/v1/shard/$N" -H "Keysafe-PoW: $p")" 403
srv_stop

# Stale: this server back-dates its challenges by 400 s (a hidden test
# option), so every proof it gets is past the 300 s window.
srv_start "$S" --pow-difficulty 8 --test-challenge-age 400
c=$(challenge GET "$N")
p=$(solve "$c" GET "$N")
eq "stale proof" "$(code GET "/v1/shard/$N" -H "Keysafe-PoW: $p")" 403
eq "stale says so" "$(curl -s -m 30 -H "Keysafe-PoW: $p" "$BASE/v1/shard/$N")" "proof of work stale"
srv_stop

# Load: 1 request/s is the threshold here.  First 200 requests without
# a proof, 20/s over the 10 s window: they paid nothing, so they do not
# count and the difficulty stays.
srv_start "$S" --pow-difficulty 4 --pow-load-rps 1
for i in $(seq 1 200); do echo "url = \"$BASE/v1/shard/$N\""; echo "output = /dev/null"; done > "$T_WORK/urls"
curl -s -m 60 -K "$T_WORK/urls"
for i in $(seq 1 100); do echo "url = \"$BASE/v1/shard/$N\""; echo "output = /dev/null"; echo "header = \"Keysafe-PoW: $forged.0000000000000000\""; [ "$i" = 100 ] || echo next; done > "$T_WORK/urls"
curl -s -m 60 -K "$T_WORK/urls"
d=$(curl -s -m 30 "$BASE/v1/info" | sed -n 's/.*"pow_difficulty":\([0-9]*\).*/\1/p')
eq "an unpaid flood leaves the difficulty" "$d" 4
# Then 30 paid requests: the proofs are made first (a challenge is good
# for 300 s), then all are sent at once, 3/s over the window, more than
# 2x the threshold, so the difficulty rises.
: > "$T_WORK/paid"
for i in $(seq 1 30); do
  n=$(randname)
  c=$(challenge GET "$n")
  { echo "url = \"$BASE/v1/shard/$n\""; echo "output = /dev/null"
    echo 'write-out = "%{http_code}\n"'
    echo "header = \"Keysafe-PoW: $(solve "$c" GET "$n")\""
    [ "$i" = 30 ] || echo next; } >> "$T_WORK/paid"
done
curl -s -m 60 -K "$T_WORK/paid" > "$T_WORK/paid.codes"
eq "30 paid requests got their 404" "$(grep -c '^404$' "$T_WORK/paid.codes")" 30
d=$(curl -s -m 30 "$BASE/v1/info" | sed -n 's/.*"pow_difficulty":\([0-9]*\).*/\1/p')
ok "paid load raised the difficulty ($d > 4)" test "$d" -gt 4
c=$(challenge GET "$N")
ok "challenges carry the raised difficulty" test "$((16#${c:16:2}))" -gt 4
p=$(solve "$c" GET "$N")
eq "raised proof accepted" "$(code GET "/v1/shard/$N" -H "Keysafe-PoW: $p")" 200
srv_stop

# Growth: --fill-months chosen so that the budget is about one default
# object (8192 bytes) an hour on this disk.  Eight PUTs of 8192 bytes
# are 8x that: the PUT difficulty rises by about 3 bits, a GET's not.
free=$(df -P -B1 "$T_WORK" | awk 'NR == 2 { print $4 }')
months=$(( free / 2 / 8192 / 720 ))
[ "$months" -ge 1 ] || months=1
srv_start "$S.g" --pow-difficulty 1 --pow-put-extra-bits 0 --fill-months "$months"
head -c 8192 /dev/urandom > "$T_WORK/b8k"
c=$(challenge PUT "$M" -T "$T_WORK/b8k")
eq "PUT difficulty before growth" "${c:16:2}" 01
for i in $(seq 1 8); do
  n=$(randname)
  c=$(challenge PUT "$n" -T "$T_WORK/b8k")
  eq "growth PUT $i" "$(put "$n" "$T_WORK/b8k" -H "Keysafe-PoW: $(solve "$c" PUT "$n")")" 201
done
c=$(challenge PUT "$M" -T "$T_WORK/b8k")
ok "PUT difficulty rose with the growth ($((16#${c:16:2})) >= 3)" test "$((16#${c:16:2}))" -ge 3
c=$(challenge GET "$M")
eq "GET difficulty did not" "${c:16:2}" 01
srv_stop

t_done
