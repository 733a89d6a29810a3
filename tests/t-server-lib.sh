# t-server-lib.sh - shared by the t-server-*.sh tests (sourced, bash)
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Starts real keysafe-server processes on 127.0.0.1 with port 0 (the
# kernel picks a free port, the server writes it to --port-file), counts
# checks, and cleans up on every exit.  Every wait is bounded.

set -e
: "${top_builddir:=..}"
: "${srcdir:=.}"
SERVER="$top_builddir/server/keysafe-server"
CLIENT="$top_builddir/tests/t-srvclient"
[ -x "$SERVER" ] || { echo "SKIP: no $SERVER"; exit 77; }
[ -x "$CLIENT" ] || { echo "ERROR: no $CLIENT"; exit 99; }
command -v curl >/dev/null || { echo "SKIP: curl(1) missing (Debian package curl)"; exit 77; }

# ASan makes everything slower; the timeouts below are generous anyway.
T_WORK=$(mktemp -d /tmp/ksXXXXXX)
T_PIDS=""
T_CHECKS=0
T_FAILS=0

t_cleanup ()
{
  local p
  for p in $T_PIDS; do
    kill -TERM "$p" 2>/dev/null || true
  done
  for p in $T_PIDS; do
    wait "$p" 2>/dev/null || true
  done
  if [ -n "$T_GNUPGHOME" ]; then
    GNUPGHOME="$T_GNUPGHOME" gpgconf --kill all 2>/dev/null || true
  fi
  grep -q " $T_WORK/" /proc/mounts 2>/dev/null && umount "$T_WORK"/* 2>/dev/null || true
  # T_KEEP=FILE keeps the servers' stderr for a post-mortem.
  if [ -n "$T_KEEP" ] && [ -f "$T_WORK/server.log" ]; then
    cp "$T_WORK/server.log" "$T_KEEP"
  fi
  rm -rf "$T_WORK"
}
trap t_cleanup EXIT

# ok DESCRIPTION COMMAND... : one check.
ok ()
{
  local what="$1"
  shift
  T_CHECKS=$((T_CHECKS + 1))
  if "$@"; then
    :
  else
    T_FAILS=$((T_FAILS + 1))
    echo "FAIL: $what" >&2
  fi
}

# eq DESCRIPTION GOT WANT
eq ()
{
  T_CHECKS=$((T_CHECKS + 1))
  if [ "$2" != "$3" ]; then
    T_FAILS=$((T_FAILS + 1))
    echo "FAIL: $1: got '$2', want '$3'" >&2
  fi
}

t_done ()
{
  if [ -f "$T_WORK/server.log" ] \
     && grep -E "AddressSanitizer|LeakSanitizer|runtime error" "$T_WORK/server.log" >&2; then
    T_FAILS=$((T_FAILS + 1))
    echo "FAIL: sanitizer report in the server log" >&2
  fi
  T_CHECKS=$((T_CHECKS + 1))
  echo "$T_CHECKS checks, $T_FAILS failed"
  [ "$T_FAILS" -eq 0 ]
}

# srv_start STORE [OPTIONS...]: start a server; sets SRV_PID and PORT.
srv_start ()
{
  local store="$1" pf i
  shift
  pf="$T_WORK/port.$$.$RANDOM"
  rm -f "$pf"
  "$SERVER" --foreground --store "$store" --listen 127.0.0.1:0 \
            --port-file "$pf" "$@" 2>>"$T_WORK/server.log" &
  SRV_PID=$!
  T_PIDS="$T_PIDS $SRV_PID"
  for i in $(seq 1 300); do
    [ -s "$pf" ] && break
    kill -0 "$SRV_PID" 2>/dev/null || { echo "ERROR: server died" >&2; cat "$T_WORK/server.log" >&2; exit 99; }
    sleep 0.1
  done
  [ -s "$pf" ] || { echo "ERROR: server did not start" >&2; exit 99; }
  PORT=$(cat "$pf")
  BASE="http://127.0.0.1:$PORT"
}

# srv_stop: SIGTERM the last server and wait for it.
srv_stop ()
{
  local rc=0
  kill -TERM "$SRV_PID" 2>/dev/null || true
  wait "$SRV_PID" 2>/dev/null || rc=$?
  # A clean stop exits 0; under ASan a leak or memory error would not.
  eq "server $SRV_PID stopped cleanly" "$rc" 0
}

srv_alive ()
{
  kill -0 "$SRV_PID" 2>/dev/null \
    && [ "$(curl -s -m 20 -o /dev/null -w '%{http_code}' "$BASE/v1/info")" = 200 ]
}

# code METHOD PATH [curl options...]: the status of one request.
code ()
{
  local m="$1" p="$2"
  shift 2
  curl -s -m 30 -o /dev/null -w '%{http_code}' -X "$m" "$@" "$BASE$p"
}

# put NAME FILE [curl options...]
put ()
{
  local n="$1" f="$2"
  shift 2
  curl -s -m 30 -o /dev/null -w '%{http_code}' -T "$f" "$@" "$BASE/v1/shard/$n"
}

randname ()
{
  od -An -N32 -tx1 /dev/urandom | tr -d ' \n'
}
