#!/bin/bash
# bench/server.sh - keysafe-server against nginx on loopback, with wrk
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Run by hand from the build tree:  cd build/bench && ../../bench/server.sh [BIG]
#   BIG   shards in the large store (default 1000000; 100000 is quicker)
#   DUR   seconds per wrk run (default 10)
# Needs the Debian packages wrk and nginx-light (or nginx).
#
# Figures printed:
#   GET req/s of keysafe-server and of nginx serving the same hashed tree
#   as static files (target: keysafe >= 0.7x nginx; medians of three
#   alternating rounds, with each server's CPU time per request), PUT req/s of both
#   (keysafe fsyncs file and directory per PUT, nginx's WebDAV PUT does
#   not: the ratio is shown for information), the server's RSS (target
#   < 32 MiB), GET latency with 1,000 vs BIG stored shards on one
#   connection (target: ratio <= 1.2), for keysafe-server and, as the
#   same-run reference for what the file system costs, for nginx.
set -e
top_builddir=${top_builddir:-..}
SERVER="$top_builddir/server/keysafe-server"
FILL="$top_builddir/bench/bench-server-fill"
BIG=${1:-1000000}
DUR=${DUR:-10}
SIZE=${SIZE:-8192}
BIGSIZE=${BIGSIZE:-512}
for p in wrk nginx; do
  command -v $p >/dev/null || { echo "needs $p (Debian package $p)"; exit 77; }
done
[ -x "$SERVER" ] && [ -x "$FILL" ] || { echo "build first (make)"; exit 2; }

W=$(mktemp -d /tmp/ksbXXXXXX)
PIDS=""
cleanup ()
{
  for p in $PIDS; do kill -TERM "$p" 2>/dev/null || true; done
  for p in $PIDS; do wait "$p" 2>/dev/null || true; done
  rm -rf "$W"
}
trap cleanup EXIT

ks_start ()   # STORE -> KS_PID KS_PORT
{
  rm -f "$W/ks.port"
  "$SERVER" --foreground --store "$1" --listen 127.0.0.1:0 \
            --port-file "$W/ks.port" --pow-difficulty 0 \
            --max-connections 2000 2>>"$W/ks.log" &
  KS_PID=$!
  PIDS="$PIDS $KS_PID"
  for i in $(seq 1 100); do [ -s "$W/ks.port" ] && break; sleep 0.1; done
  KS_PORT=$(cat "$W/ks.port")
}

ks_stop ()
{
  kill -TERM "$KS_PID"; wait "$KS_PID" 2>/dev/null || true
}

nginx_start ()   # STORE [WORKERS [PIN]] -> NG_PID NG_PORT
{
  local port try workers=${2:-2} pin=$3
  mkdir -p "$W/ng" "$W/dav"
  for try in $(seq 1 20); do
    port=$((20000 + RANDOM % 40000))
    cat > "$W/ng/nginx.conf" <<EOF
user root;
worker_processes $workers;
daemon off;
pid $W/ng/nginx.pid;
error_log $W/ng/error.log;
events { worker_connections 2048; }
http {
  access_log off;
  sendfile on;
  tcp_nopush on;
  keepalive_requests 100000000;
  client_body_temp_path $W/ng/body;
  proxy_temp_path $W/ng/proxy;
  fastcgi_temp_path $W/ng/fastcgi;
  uwsgi_temp_path $W/ng/uwsgi;
  scgi_temp_path $W/ng/scgi;
  server {
    listen 127.0.0.1:$port;
    location ~ "^/v1/shard/([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{60})\$" {
      default_type application/octet-stream;
      alias $1/\$1/\$2/\$1\$2\$3;
    }
    location /put/ {
      root $W/dav;
      dav_methods PUT;
      create_full_put_path on;
      client_max_body_size 64k;
    }
  }
}
EOF
    $pin nginx -p "$W/ng" -c "$W/ng/nginx.conf" 2>>"$W/ng/start.log" &
    NG_PID=$!
    sleep 0.5
    if kill -0 "$NG_PID" 2>/dev/null; then
      NG_PORT=$port
      PIDS="$PIDS $NG_PID"
      return 0
    fi
  done
  echo "nginx did not start"; cat "$W/ng/start.log" "$W/ng/error.log"; exit 1
}

nginx_stop ()
{
  kill -TERM "$NG_PID"; wait "$NG_PID" 2>/dev/null || true
}

# wrk's math.random starts from the same seed in every run: without a
# seed of its own, every run (and the warm-up before it) would ask for
# the same names in the same order, and a run after another on the same
# store would find those shards' dentries, inodes and pages just touched.
cat > "$W/get.lua" <<'EOF'
math.randomseed(tonumber(os.getenv("SEED")) or os.time())
local names = {}
for line in io.lines(os.getenv("NAMES")) do names[#names + 1] = line end
request = function()
  return wrk.format("GET", "/v1/shard/" .. names[math.random(#names)])
end
EOF
cat > "$W/put.lua" <<'EOF'
local body = string.rep("k", tonumber(os.getenv("SIZE")))
local prefix = os.getenv("PREFIX")
local hex = "0123456789abcdef"
local n = 0
function setup(thread) n = n + 1; thread:set("tid", n) end
function init(args) math.randomseed(os.time() * 100 + (tid or 0)) end
request = function()
  local t = {}
  for i = 1, 64 do local r = math.random(16); t[i] = hex:sub(r, r) end
  return wrk.format("PUT", prefix .. table.concat(t), nil, body)
end
EOF

# rps OUTPUT: Requests/sec from wrk output
rps () { awk '/^Requests\/sec:/ {printf "%d", $2}' "$1"; }
# non2xx OUTPUT
non2xx () { awk '/Non-2xx/ {print $NF}' "$1"; }
# lat OUTPUT FIELD: average ("avg") or a percentile ("50%", "99%") in us
lat ()
{
  awk -v f="$2" '
    function us(v) { if (v ~ /us$/) return v + 0; if (v ~ /ms$/) return v * 1000;
                     if (v ~ /s$/) return v * 1000000; return v }
    f == "avg" && $1 == "Latency" && !done { print us($2); done = 1 }
    f != "avg" && $1 == f { print us($2) }' "$1"
}

# cpu PID...: user+system CPU time of the processes (and, for nginx's
# master, of its workers), in clock ticks
cpu ()
{
  local p
  for p in "$@" $(for p in "$@"; do pgrep -P "$p"; done); do
    awk '{print $14 + $15}' "/proc/$p/stat" 2>/dev/null
  done | awk '{s += $1} END {print s + 0}'
}
# cpureq TICKS OUTPUT: CPU microseconds per request
cpureq ()
{
  awk -v t="$1" -v hz="$(getconf CLK_TCK)" '/requests in/ {n = $1}
    END {if (n) printf "%.1f", t * 1000000 / hz / n}' "$2"
}

# The machine may be shared: every section prints the load average.
load () { echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"; }

load
echo "== filling a store of 1000 shards of $SIZE bytes"
"$FILL" "$W/small" 1000 "$SIZE" > "$W/small.names"

ks_start "$W/small"
nginx_start "$W/small"
NG_C=$(cpu "$NG_PID")
# Both servers get the same two CPUs and two workers (threads for
# keysafe-server, processes for nginx), and wrk floats on the same CPUs;
# nothing is pinned, for either.  Three rounds alternate the servers so
# a change in the machine's load hits both; the medians are the figures.
# The CPU time each server spent per request is printed too: it depends
# much less on the other load of the machine than req/s does.
echo "== GET throughput (wrk -t1 -c64, ${DUR}s, 1000 shards of $SIZE bytes, 3 rounds, same 2 CPUs and 2 workers each)"
median3 () { printf '%s\n' "$@" | sort -g | sed -n 2p; }
for round in 1 2 3; do
  c0=$(cpu "$KS_PID")
  SEED=$RANDOM$RANDOM NAMES="$W/small.names" wrk -t1 -c64 -d"${DUR}s" -s "$W/get.lua" "http://127.0.0.1:$KS_PORT" > "$W/ks-get.$round.out"
  c1=$(cpu "$KS_PID")
  SEED=$RANDOM$RANDOM NAMES="$W/small.names" wrk -t1 -c64 -d"${DUR}s" -s "$W/get.lua" "http://127.0.0.1:$NG_PORT" > "$W/ng-get.$round.out"
  c2=$(cpu "$NG_PID")
  eval "KS_GET_$round=$(rps "$W/ks-get.$round.out") NG_GET_$round=$(rps "$W/ng-get.$round.out")"
  eval "KS_CPU_$round=$(cpureq $((c1 - c0)) "$W/ks-get.$round.out")"
  eval "NG_CPU_$round=$(cpureq $((c2 - NG_C)) "$W/ng-get.$round.out")"
  NG_C=$c2
  eval "echo \"  round $round: \$(load); keysafe-server \$KS_GET_$round req/s, \$KS_CPU_$round us CPU/req (non-2xx: $(non2xx "$W/ks-get.$round.out")); nginx \$NG_GET_$round req/s, \$NG_CPU_$round us CPU/req (non-2xx: $(non2xx "$W/ng-get.$round.out"))\""
done
KS_GET=$(median3 $KS_GET_1 $KS_GET_2 $KS_GET_3); NG_GET=$(median3 $NG_GET_1 $NG_GET_2 $NG_GET_3)
echo "keysafe-server GET: median $KS_GET req/s, $(median3 $KS_CPU_1 $KS_CPU_2 $KS_CPU_3) us CPU/req"
echo "nginx          GET: median $NG_GET req/s, $(median3 $NG_CPU_1 $NG_CPU_2 $NG_CPU_3) us CPU/req"
echo "GET ratio keysafe/nginx: $(awk -v a="$KS_GET" -v b="$NG_GET" 'BEGIN {printf "%.2f", a / b}') (median of 3 rounds; per round: $(for r in 1 2 3; do eval "awk -v a=\$KS_GET_$r -v b=\$NG_GET_$r 'BEGIN {printf \"%.2f \", a / b}'"; done)) (target >= 0.70)"

echo "== PUT throughput (wrk -t1 -c16, ${DUR}s, $SIZE-byte bodies, fresh names)"
SIZE=$SIZE PREFIX=/v1/shard/ wrk -t1 -c16 -d"${DUR}s" -s "$W/put.lua" "http://127.0.0.1:$KS_PORT" > "$W/ks-put.out"
SIZE=$SIZE PREFIX=/put/ wrk -t1 -c16 -d"${DUR}s" -s "$W/put.lua" "http://127.0.0.1:$NG_PORT" > "$W/ng-put.out"
KS_PUT=$(rps "$W/ks-put.out"); NG_PUT=$(rps "$W/ng-put.out")
echo "keysafe-server PUT: $KS_PUT req/s (non-2xx: $(non2xx "$W/ks-put.out"); fsync of file and directory each)"
echo "nginx dav      PUT: $NG_PUT req/s (non-2xx: $(non2xx "$W/ng-put.out"); no fsync)"
echo "PUT ratio keysafe/nginx: $(awk -v a="$KS_PUT" -v b="$NG_PUT" 'BEGIN {printf "%.2f", a / b}')"
nginx_stop
ks_stop

load
echo "== filling a store of $BIG shards of $BIGSIZE bytes (no fsync)"
t0=$(date +%s)
"$FILL" "$W/big" "$BIG" "$BIGSIZE" > "$W/big.names"
echo "filled in $(( $(date +%s) - t0 )) s"
"$FILL" "$W/small2" 1000 "$BIGSIZE" > "$W/small2.names"
# The fill leaves gigabytes dirty; let them reach the disk first, or the
# latency runs measure the kernel's writeback of the fill (a real store
# is written over months) instead of the server.
t0=$(date +%s)
sync
echo "synced in $(( $(date +%s) - t0 )) s"

shuf -n 1000 "$W/big.names" > "$W/bigsample.names"

# Latency on one connection: wrk and the server pinned to different CPUs
# (when there are two) so the scheduler adds less noise.  Three rounds,
# alternating stores; the median of each figure is reported.
#   small2:    1,000 shards, random names among them
#   bigsample: BIG shards, random names among a fixed 1,000 of them
#              (same working set as small2: the cost of the store's size)
#   big:       BIG shards, random names among all of them (the working
#              set grows too: caches miss more, in wrk's name table as well)
PIN_SRV=""; PIN_WRK=""
if command -v taskset >/dev/null && [ "$(nproc)" -ge 2 ]; then
  PIN_SRV="taskset -c 0"; PIN_WRK="taskset -c 1"
fi
echo "== GET latency, one connection (wrk -t1 -c1 --latency, ${DUR}s each, 3 rounds${PIN_SRV:+, pinned}; keysafe-server with 1 thread, then nginx with 1 worker)"
for round in 1 2 3; do
  echo "round $round: $(load)"
  for s in small2 bigsample big; do
    case $s in bigsample) store=big ;; *) store=$s ;; esac
    rm -f "$W/ks.port"
    $PIN_SRV "$SERVER" --foreground --store "$W/$store" --listen 127.0.0.1:0 \
              --port-file "$W/ks.port" --pow-difficulty 0 --threads 1 2>>"$W/ks.log" &
    KS_PID=$!
    PIDS="$PIDS $KS_PID"
    for i in $(seq 1 100); do [ -s "$W/ks.port" ] && break; sleep 0.1; done
    KS_PORT=$(cat "$W/ks.port")
    SEED=$RANDOM$RANDOM NAMES="$W/$s.names" $PIN_WRK wrk -t1 -c1 -d2s -s "$W/get.lua" "http://127.0.0.1:$KS_PORT" > /dev/null
    SEED=$RANDOM$RANDOM NAMES="$W/$s.names" $PIN_WRK wrk -t1 -c1 -d"${DUR}s" --latency -s "$W/get.lua" "http://127.0.0.1:$KS_PORT" > "$W/lat-$s.$round.out"
    if [ "$s" = big ]; then
      RSS=$(awk '/^VmRSS/ {print $2}' /proc/$KS_PID/status)
      HWM=$(awk '/^VmHWM/ {print $2}' /proc/$KS_PID/status)
    fi
    ks_stop
    echo "  $s: avg $(lat "$W/lat-$s.$round.out" avg) us, p50 $(lat "$W/lat-$s.$round.out" 50%) us, p99 $(lat "$W/lat-$s.$round.out" 99%) us"
    # nginx as the same-run reference: one worker on the server's CPU,
    # the same store and names.
    nginx_start "$W/$store" 1 "$PIN_SRV"
    SEED=$RANDOM$RANDOM NAMES="$W/$s.names" $PIN_WRK wrk -t1 -c1 -d2s -s "$W/get.lua" "http://127.0.0.1:$NG_PORT" > /dev/null
    SEED=$RANDOM$RANDOM NAMES="$W/$s.names" $PIN_WRK wrk -t1 -c1 -d"${DUR}s" --latency -s "$W/get.lua" "http://127.0.0.1:$NG_PORT" > "$W/lat-ng-$s.$round.out"
    nginx_stop
    echo "  nginx $s: avg $(lat "$W/lat-ng-$s.$round.out" avg) us, p50 $(lat "$W/lat-ng-$s.$round.out" 50%) us, p99 $(lat "$W/lat-ng-$s.$round.out" 99%) us"
  done
done
load
for s in small2 bigsample big; do
  eval "AVG_$s=\$(median3 $(for r in 1 2 3; do lat "$W/lat-$s.$r.out" avg; done | tr '\n' ' '))"
  eval "P50_$s=\$(median3 $(for r in 1 2 3; do lat "$W/lat-$s.$r.out" 50%; done | tr '\n' ' '))"
  eval "P99_$s=\$(median3 $(for r in 1 2 3; do lat "$W/lat-$s.$r.out" 99%; done | tr '\n' ' '))"
  eval "echo \"$s: median avg \$AVG_$s us, p50 \$P50_$s us, p99 \$P99_$s us\""
  eval "NAVG_$s=\$(median3 $(for r in 1 2 3; do lat "$W/lat-ng-$s.$r.out" avg; done | tr '\n' ' '))"
  eval "NP50_$s=\$(median3 $(for r in 1 2 3; do lat "$W/lat-ng-$s.$r.out" 50%; done | tr '\n' ' '))"
  eval "NP99_$s=\$(median3 $(for r in 1 2 3; do lat "$W/lat-ng-$s.$r.out" 99%; done | tr '\n' ' '))"
  eval "echo \"nginx $s: median avg \$NAVG_$s us, p50 \$NP50_$s us, p99 \$NP99_$s us\""
done
ratio () { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a / b}'; }
echo "latency ratio $BIG/1000 shards, same 1000-name working set: avg $(ratio "$AVG_bigsample" "$AVG_small2"), p50 $(ratio "$P50_bigsample" "$P50_small2") (target <= 1.2)"
echo "latency ratio $BIG/1000 shards, names over the whole store:  avg $(ratio "$AVG_big" "$AVG_small2"), p50 $(ratio "$P50_big" "$P50_small2")"
echo "nginx, same stores and names: same working set avg $(ratio "$NAVG_bigsample" "$NAVG_small2"), p50 $(ratio "$NP50_bigsample" "$NP50_small2"); whole store avg $(ratio "$NAVG_big" "$NAVG_small2"), p50 $(ratio "$NP50_big" "$NP50_small2")"
echo "keysafe-server/nginx latency, same store and names: small2 avg $(ratio "$AVG_small2" "$NAVG_small2"), bigsample avg $(ratio "$AVG_bigsample" "$NAVG_bigsample"), big avg $(ratio "$AVG_big" "$NAVG_big")"
echo "== server memory with $BIG shards after the runs: VmRSS $RSS KiB, peak VmHWM $HWM KiB (target < 32768 KiB)"
