#!/bin/bash
# t-server-http.sh - every status code, byte-exact round trips, a corpus
# of malformed requests, the config file
# SPDX-License-Identifier: GPL-3.0-or-later
. "${srcdir:-.}/t-server-lib.sh"

S="$T_WORK/store"
srv_start "$S" --pow-difficulty 0 --max-uploads 1

N1=$(randname)
N2=$(randname)
head -c 512 /dev/urandom > "$T_WORK/b512"
head -c 8192 /dev/urandom > "$T_WORK/b8192"
# The largest object size of the known profiles is the limit.
cp "$T_WORK/b8192" "$T_WORK/bmax"
head -c 8193 /dev/urandom > "$T_WORK/bover"
head -c 512 /dev/urandom > "$T_WORK/other"
: > "$T_WORK/empty"

# 201 and byte-exact round trips at the object sizes of the profiles.
for f in b512 b8192; do
  n=$(randname)
  eq "PUT $f" "$(put "$n" "$T_WORK/$f")" 201
  eq "GET $f" "$(curl -s -m 30 -o "$T_WORK/got" -w '%{http_code}' "$BASE/v1/shard/$n")" 200
  ok "$f byte-exact" cmp -s "$T_WORK/$f" "$T_WORK/got"
done

# 409: the name is taken and the stored bytes stay.
eq "PUT first" "$(put "$N1" "$T_WORK/b512")" 201
eq "PUT again" "$(put "$N1" "$T_WORK/other")" 409
curl -s -m 30 -o "$T_WORK/got" "$BASE/v1/shard/$N1"
ok "409 left the shard untouched" cmp -s "$T_WORK/b512" "$T_WORK/got"

# 404 for unknown names and paths; 405 for other methods.
eq "GET unknown" "$(code GET "/v1/shard/$N2")" 404
eq "unknown path" "$(code GET /v1/shards)" 404
eq "root" "$(code GET /)" 404
eq "DELETE" "$(code DELETE "/v1/shard/$N1")" 405
eq "POST" "$(code POST "/v1/shard/$N1" -d x)" 405
eq "HEAD" "$(curl -s -m 30 -o /dev/null -w '%{http_code}' -I "$BASE/v1/shard/$N1")" 405
eq "PUT info" "$(code PUT /v1/info -d x)" 405

# 400: malformed names, a query, an empty body.
eq "uppercase name" "$(code GET "/v1/shard/$(echo "$N1" | tr a-f A-F)")" 400
eq "short name" "$(code GET "/v1/shard/${N1:1}")" 400
eq "long name" "$(code GET "/v1/shard/${N1}0")" 400
eq "query" "$(code GET "/v1/shard/$N1?x=1")" 400
eq "empty body" "$(put "$N2" "$T_WORK/empty")" 400
eq "empty body stored nothing" "$(code GET "/v1/shard/$N2")" 404

# 400: a body of a size no profile has, declared or chunked, however
# small; nothing is stored.
for sz in 1 511 513 1000 8191; do
  head -c "$sz" /dev/urandom > "$T_WORK/bodd"
  eq "PUT of $sz bytes (no profile's size)" "$(put "$N2" "$T_WORK/bodd")" 400
  eq "chunked PUT of $sz bytes" \
     "$(put "$N2" "$T_WORK/bodd" -H 'Transfer-Encoding: chunked')" 400
done
eq "odd sizes stored nothing" "$(code GET "/v1/shard/$N2")" 404

# The raw request target is checked before libmicrohttpd decodes it:
# no %-escape, no query (not even an empty one).  (curl never sends a
# fragment; the corpus below sends one raw.)
for t in "$N2%00junk" "$N2?" "$N2?x=1" "%30${N2:1}"; do
  eq "PUT target $t" "$(put "$t" "$T_WORK/b512")" 400
  eq "GET target $t" "$(code GET "/v1/shard/$t")" 400
done
eq "escaped info path" "$(code GET "/v1/inf%6f")" 400
eq "bad targets stored nothing" "$(code GET "/v1/shard/$N2")" 404

# 413: declared too large (before any body) and chunked too large, at
# 1.5, 3 and 20 times the limit: every one gets its 413 with
# "Connection: close" (a chunked one as soon as it passes the limit;
# the rest is not read), nothing is stored or removed, and the next
# request on a new connection is served.
store_state ()
{
  find "$S" -type f -printf '%P %s\n' | sort
  find "$S" -type f -exec sha256sum {} + | sort
}
before=$(store_state)
eq "declared too large" "$(put "$N2" "$T_WORK/bover")" 413
eq "chunked just over" "$(put "$N2" "$T_WORK/bover" -H 'Transfer-Encoding: chunked')" 413
for x in 1.5:12288 3:24576 20:163840; do
  f="$T_WORK/b${x%%:*}x"
  head -c "${x#*:}" /dev/urandom > "$f"
  for te in "" "Transfer-Encoding: chunked"; do
    what="${x%%:*}x the limit${te:+, chunked}"
    for n in "$N2" "$N1"; do
      rm -f "$T_WORK/hdr"
      st=$(put "$n" "$f" ${te:+-H "$te"} -D "$T_WORK/hdr") || true
      if [ "$n" = "$N1" ] && [ -n "$te" ]; then
        eq "$what, name taken" "$st" 409
      else
        eq "$what" "$st" 413
        ok "$what: Connection: close" grep -qi '^Connection: close' "$T_WORK/hdr"
      fi
    done
    eq "$what: next request served" "$(code GET /v1/info)" 200
  done
  # The same with a raw client that sends all of its body before it
  # reads a byte: the answer must be there all the same.
  { printf 'PUT /v1/shard/%s HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n' "$N2"
    for i in $(seq 1 $((${x#*:} / 4096))); do printf '1000\r\n'; head -c 4096 /dev/zero; printf '\r\n'; done
    printf '0\r\n\r\n'; } > "$T_WORK/rawover"
  eq "${x%%:*}x the limit, chunked, raw client" "$("$CLIENT" raw "$PORT" "$T_WORK/rawover")" 413
  eq "${x%%:*}x the limit, raw: next request served" "$(code GET /v1/info)" 200
done
eq "oversized PUTs left the store as it was" "$(store_state)" "$before"
eq "no shard under the refused name" "$(code GET "/v1/shard/$N2")" 404
curl -s -m 30 -o "$T_WORK/got" "$BASE/v1/shard/$N1"
ok "oversized PUTs left the taken name's shard" cmp -s "$T_WORK/b512" "$T_WORK/got"
# At the limit exactly it is stored, one byte over it is not.
eq "chunked at the limit" "$(put "$(randname)" "$T_WORK/bmax" -H 'Transfer-Encoding: chunked')" 201
eq "chunked within the limit" "$(put "$N2" "$T_WORK/b512" -H 'Transfer-Encoding: chunked')" 201

# 429: the one upload slot (--max-uploads 1) is held by a half-sent PUT.
exec 3<>"/dev/tcp/127.0.0.1/$PORT"
printf 'PUT /v1/shard/%s HTTP/1.1\r\nHost: x\r\nContent-Length: 512\r\n\r\nabc' "$(randname)" >&3
sleep 0.5
eq "uploads full" "$(put "$(randname)" "$T_WORK/b512")" 429
exec 3>&-
for i in $(seq 1 50); do
  c=$(put "$(randname)" "$T_WORK/b512")
  [ "$c" = 201 ] && break
  sleep 0.1
done
eq "slot free again" "$c" 201

# /v1/info
info=$(curl -s -m 30 "$BASE/v1/info")
eq "info" "$info" '{"software":"keysafe-server","version":"0.1.0","max_shard_bytes":8192,"object_sizes":[8192,512],"pow_difficulty":0,"pow_put_extra_bits":0}'
eq "info type" "$(curl -s -m 30 -o /dev/null -w '%{content_type}' "$BASE/v1/info")" application/json

# The corpus of malformed requests: each gets a 4xx, the server lives.
C="$T_WORK/corpus"
mkdir "$C"
name=$(randname)
crlf=$'\r\n'
printf 'BREW /v1/shard/%s HTTP/1.1\r\nHost: x\r\n\r\n' "$name" > "$C/bad-method"
# A method and no target: libmicrohttpd hands the URI log callback NULL.
printf 'GET \r\n\r\n' > "$C/no-target"
printf 'PUT  \r\n\r\n' > "$C/no-target-two-spaces"
printf 'get /v1/shard/%s HTTP/1.1\r\nHost: x\r\n\r\n' "$name" > "$C/lowercase-method"
printf 'GET /v1/shard/../../../etc/passwd HTTP/1.1\r\nHost: x\r\n\r\n' > "$C/dotdot"
printf 'GET /v1/shard/%%2e%%2e%%2f%%2e%%2e%%2fetc%%2fpasswd HTTP/1.1\r\nHost: x\r\n\r\n' > "$C/dotdot-escaped"
printf 'GET /v1/shard/%s/../%s HTTP/1.1\r\nHost: x\r\n\r\n' "$name" "$name" > "$C/dotdot-inside"
printf 'GET /../v1/info HTTP/1.1\r\nHost: x\r\n\r\n' > "$C/dotdot-root"
printf 'GET /v1/shard/%s%%00 HTTP/1.1\r\nHost: x\r\n\r\n' "$name" > "$C/nul-escaped"
printf 'GET /v1/shard/%s%%20 HTTP/1.1\r\nHost: x\r\n\r\n' "${name:2}zz" > "$C/bad-hex"
printf 'GET //v1/shard/%s HTTP/1.1\r\nHost: x\r\n\r\n' "$name" > "$C/double-slash"
printf 'GARBAGE\r\n\r\n' > "$C/garbage"
printf 'GET /v1/info HTTP/1.1\r\n\r\n' > "$C/no-host"
printf 'GET /v1/info HTTP/1.1\r\nHost: x\r\nNoColonHere\r\n\r\n' > "$C/header-no-colon"
{ printf 'GET /v1/info HTTP/1.1\r\nHost: x\r\nX-Big: '; head -c 100000 /dev/zero | tr '\0' a; printf '\r\n\r\n'; } > "$C/huge-header"
{ printf 'GET /v1/info HTTP/1.1\r\nHost: x\r\n'; for i in $(seq 1 3000); do printf 'X-H%d: v\r\n' "$i"; done; printf '\r\n'; } > "$C/many-headers"
{ printf 'GET /v1/shard/'; head -c 100000 /dev/zero | tr '\0' a; printf ' HTTP/1.1\r\nHost: x\r\n\r\n'; } > "$C/huge-url"
printf 'PUT /v1/shard/%s HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n' "$name" > "$C/negative-length"
printf 'PUT /v1/shard/%s HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999999999999999999\r\n\r\n' "$name" > "$C/overflow-length"
printf 'PUT /v1/shard/%s HTTP/1.1\r\nHost: x\r\nContent-Length: 70000\r\n\r\nabc' "$name" > "$C/declared-over"
{ printf 'PUT /v1/shard/%s HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n' "$name"; for i in $(seq 1 20); do printf '1000\r\n'; head -c 4096 /dev/zero; printf '\r\n'; done; printf '0\r\n\r\n'; } > "$C/chunked-over"
{ printf 'PUT /v1/shard/%s HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n' "$name"; printf 'ffffffffffffffffff\r\nabc\r\n0\r\n\r\n'; } > "$C/chunked-huge-size"
printf 'PUT /v1/shard/%s HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n0\r\n\r\n' "$name" > "$C/chunked-bad-size"
printf 'PUT /v1/shard/%s HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n' "$name" > "$C/zero-length"
printf 'PUT /v1/shard/%s HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nContent-Length: 5\r\n\r\nabcde' "$name" > "$C/two-lengths"
printf 'PUT /v1/shard/%s HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\nabc' "$name" > "$C/unknown-coding"
printf 'GET /v1/shard/%s?a=b&c=d HTTP/1.1\r\nHost: x\r\n\r\n' "$name" > "$C/query"
printf 'GET /v1/shard/%s#frag HTTP/1.1\r\nHost: x\r\n\r\n' "$name" > "$C/fragment"
printf 'GET v1/info HTTP/1.1\r\nHost: x\r\n\r\n' > "$C/relative"
printf 'DELETE /v1/shard/%s HTTP/1.1\r\nHost: x\r\n\r\n' "$N1" > "$C/delete"
printf 'OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n' > "$C/options-star"
printf 'PATCH /v1/shard/%s HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc' "$N1" > "$C/patch"
printf 'GET /v1/shard/%s HTTP/1.1\r\nHost: x\r\n\r\n' "$(echo "$N1" | tr a-f A-F)" > "$C/upper"
for f in "$C"/*; do
  st=$("$CLIENT" raw "$PORT" "$f")
  case "$(basename "$f"):$st" in
    *:4??) T_CHECKS=$((T_CHECKS + 1)) ;;
    # libmicrohttpd 0.9.75 closes a connection whose request line has no
    # URI without sending a status; the request is refused all the same.
    garbage:000|no-target*:000) T_CHECKS=$((T_CHECKS + 1)) ;;
    *) T_CHECKS=$((T_CHECKS + 1)); T_FAILS=$((T_FAILS + 1))
       echo "FAIL: corpus $(basename "$f"): status $st" >&2 ;;
  esac
  ok "server alive after $(basename "$f")" srv_alive
done
eq "nothing stored by the corpus" "$(code GET "/v1/shard/$name")" 404

# Bad request lines, each with the exact answer keysafe-server.8 lists
# under STATUS CODES.  A line without a space (no URI) reaches no
# callback of libmicrohttpd 0.9.75: it closes the connection without a
# status (000 here), and the application cannot change that.  A bad or
# unsupported version is MHD's 400 or 505; a bad method on a good line
# is ours (405, or 404 on an unknown path).
bad_line ()
{
  local want="$1" what="$2" st
  shift 2
  printf "$@" > "$T_WORK/line"
  st=$("$CLIENT" raw "$PORT" "$T_WORK/line")
  eq "request line: $what" "$st" "$want"
  ok "server alive after request line: $what" srv_alive
}
bad_line 000 "GARBAGE" 'GARBAGE\r\n\r\n'
bad_line 000 "GARBAGE, LF only" 'GARBAGE\n\n'
bad_line 000 "method alone" 'GET\r\n\r\n'
bad_line 000 "binary" '\001\002\003\377\r\n\r\n'
bad_line 400 "HTTP/0.9" 'GET /v1/info\r\n\r\n'
bad_line 400 "four words" 'A B C D\r\nHost: x\r\n\r\n'
bad_line 400 "no URI between spaces" 'GET  HTTP/1.1\r\nHost: x\r\n\r\n'
bad_line 400 "version not HTTP" 'GET /v1/info FOO/1.1\r\nHost: x\r\n\r\n'
bad_line 400 "version with junk" 'GET /v1/info HTTP/1.1x\r\nHost: x\r\n\r\n'
bad_line 505 "version 9.9" 'GET /v1/info HTTP/9.9\r\nHost: x\r\n\r\n'
bad_line 505 "version 2.0" 'GET /v1/info HTTP/2.0\r\nHost: x\r\n\r\n'
bad_line 405 "bad method, info" 'BREW /v1/info HTTP/1.1\r\nHost: x\r\n\r\n'
bad_line 405 "bad method, shard" "BREW /v1/shard/$name HTTP/1.1\r\nHost: x\r\n\r\n"
bad_line 404 "bad method, unknown path" 'BREW /nowhere HTTP/1.1\r\nHost: x\r\n\r\n'
bad_line 200 "HTTP/1.0 is served" 'GET /v1/info HTTP/1.0\r\n\r\n'
bad_line 505 "version 1.2" 'GET /v1/info HTTP/1.2\r\nHost: x\r\n\r\n'
bad_line 505 "version 1.9" 'GET /v1/info HTTP/1.9\r\nHost: x\r\n\r\n'
bad_line 400 "two spaces after the method" 'GET  /v1/info HTTP/1.1\r\nHost: x\r\n\r\n'
bad_line 400 "two spaces, PUT" "PUT  /v1/shard/$name HTTP/1.1\r\nHost: x\r\nContent-Length: 512\r\n\r\n"
# Two spaces before the version leave a space in the target, which
# libmicrohttpd refuses itself: a 400 or a close without a status.
for l in 'GET /v1/info  HTTP/1.1' 'GET /v1/info x HTTP/1.1'; do
  printf '%s\r\nHost: x\r\n\r\n' "$l" > "$T_WORK/line"
  st=$("$CLIENT" raw "$PORT" "$T_WORK/line")
  ok "request line '$l' refused ($st)" test "$st" = 400 -o "$st" = 000
done

# Header limits (section 12): a head of up to 32000 bytes is served,
# one over 32 KiB gets 431, a request line over 32 KiB 414.
big_head ()
{
  { printf 'GET /v1/info HTTP/1.1\r\nHost: x\r\nX-Big: '
    head -c "$1" /dev/zero | tr '\0' a; printf '\r\n\r\n'; } > "$T_WORK/line"
  "$CLIENT" raw "$PORT" "$T_WORK/line"
}
eq "head of 16000 bytes" "$(big_head 16000)" 200
eq "head of 32000 bytes" "$(big_head 31950)" 200
eq "head over 32 KiB" "$(big_head 32800)" 431
{ printf 'GET /v1/'; head -c 32800 /dev/zero | tr '\0' a; printf ' HTTP/1.1\r\nHost: x\r\n\r\n'; } > "$T_WORK/line"
eq "request line over 32 KiB" "$("$CLIENT" raw "$PORT" "$T_WORK/line")" 414
rm -f "$T_WORK/hdr"
eq "405 names the methods" \
   "$(curl -s -m 30 -o /dev/null -D "$T_WORK/hdr" -w '%{http_code}' -X BREW "$BASE/v1/shard/$name")" 405
ok "405 Allow header" grep -qi '^Allow: GET, PUT' "$T_WORK/hdr"
eq "PUT unknown path" "$(code PUT /v1/shard -d x)" 404
curl -s -m 30 -o "$T_WORK/got" "$BASE/v1/shard/$N1"
ok "DELETE/PATCH left the shard" cmp -s "$T_WORK/b512" "$T_WORK/got"

# The store holds shards and nothing else (no log, no index).
others=$(find "$S" -type f | grep -Ev '/[0-9a-f]{2}/[0-9a-f]{2}/[0-9a-f]{64}$' || true)
eq "only shards in the store" "$others" ""
srv_stop

# The config file gives the same options.
cat > "$T_WORK/server.conf" <<EOF
# keysafe-server options, one per line without the dashes
store $T_WORK/store2
pow-difficulty 0
max-shard-bytes 1024
EOF
"$SERVER" --config "$T_WORK/server.conf" --foreground --listen 127.0.0.1:0 \
          --port-file "$T_WORK/pf2" 2>>"$T_WORK/server.log" &
SRV_PID=$!
T_PIDS="$T_PIDS $SRV_PID"
for i in $(seq 1 300); do [ -s "$T_WORK/pf2" ] && break; sleep 0.1; done
PORT=$(cat "$T_WORK/pf2")
BASE="http://127.0.0.1:$PORT"
eq "config: limit" "$(put "$(randname)" "$T_WORK/b8192")" 413
eq "config: store" "$(put "$(randname)" "$T_WORK/b512")" 201
ok "config: store dir used" test -d "$T_WORK/store2"
srv_stop
ok "warning about PoW off" grep -q "proof of work is OFF" "$T_WORK/server.log"

# A limit below every profile's object size leaves nothing to accept:
# the server refuses to start.
ok "no profile size under --max-shard-bytes: no start" \
   sh -c "! '$SERVER' --store '$T_WORK/store4' --listen 127.0.0.1:0 --foreground --max-shard-bytes 100 2>/dev/null"
"$SERVER" --version | grep -q "keysafe-server 0.1.0"
ok "--version" test $? = 0
ok "--help" sh -c "'$SERVER' --help | grep -q -- --max-shard-bytes"

t_done
