# t-server-lib.sh - shared by the t-server-*.sh tests (sourced, bash)
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Builds on t-lib.sh (work folder, checks, clean-up, server start) and
# adds one-request helpers over curl.

. "${srcdir:-.}/t-lib.sh"
CLIENT="$top_builddir/tests/t-srvclient"
[ -x "$CLIENT" ] || { echo "ERROR: no $CLIENT"; exit 99; }

# srv_start STORE [OPTIONS...]: start a server; sets SRV_PID and PORT.
srv_start ()
{
  local store="$1"
  shift
  srv_launch "$T_WORK/port.$$.$RANDOM" "$T_WORK/server.log" \
             --store "$store" --listen 127.0.0.1:0 "$@"
  PORT=$SRV_PORT
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
