# t-client-lib.sh - shared by the t-client-*.sh tests (sourced, bash)
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Real keysafe-server processes on 127.0.0.1 (port 0: the kernel picks a
# free port, the server writes it to --port-file), proof of work on at a
# low difficulty, a real gpg in a short temporary GNUPGHOME, and the real
# keysafe.  Every wait is bounded; everything is cleaned up on exit.
# All runs use --profile test (the default profile takes many minutes).

set -e
: "${top_builddir:=..}"
: "${srcdir:=.}"
SERVER="$top_builddir/server/keysafe-server"
KEYSAFE="$top_builddir/agent-helper/keysafe"
[ -x "$SERVER" ] || { echo "SKIP: no $SERVER"; exit 77; }
[ -x "$KEYSAFE" ] || { echo "ERROR: no $KEYSAFE"; exit 99; }
: "${GPG:=gpg}"
[ "$GPG" != no ] && command -v "$GPG" >/dev/null \
  || { echo "SKIP: gpg missing"; exit 77; }
command -v curl >/dev/null || { echo "SKIP: curl(1) missing"; exit 77; }

T_WORK=$(mktemp -d /tmp/ksXXXXXX)
T_PIDS=""
T_CHECKS=0
T_FAILS=0
T_GNUPGHOME=""
PW="correct horse battery staple 4711"
POW=${POW:-4}

t_cleanup ()
{
  local p
  for p in $T_PIDS; do
    kill -CONT "$p" 2>/dev/null || true
    kill -TERM "$p" 2>/dev/null || true
  done
  for p in $T_PIDS; do
    wait "$p" 2>/dev/null || true
  done
  if [ -n "$T_GNUPGHOME" ]; then
    GNUPGHOME="$T_GNUPGHOME" gpgconf --kill all 2>/dev/null || true
    rm -rf "$T_GNUPGHOME"
  fi
  rm -rf "$T_WORK"
}
trap t_cleanup EXIT

ok ()
{
  local what="$1"
  shift
  T_CHECKS=$((T_CHECKS + 1))
  if "$@"; then
    echo "ok: $what"
  else
    T_FAILS=$((T_FAILS + 1))
    echo "FAIL: $what" >&2
  fi
}

# fails DESCRIPTION COMMAND...: the command must fail.
fails ()
{
  local what="$1"
  shift
  T_CHECKS=$((T_CHECKS + 1))
  if "$@"; then
    T_FAILS=$((T_FAILS + 1))
    echo "FAIL (succeeded): $what" >&2
  else
    echo "ok: $what"
  fi
}

eq ()
{
  T_CHECKS=$((T_CHECKS + 1))
  if [ "$2" != "$3" ]; then
    T_FAILS=$((T_FAILS + 1))
    echo "FAIL: $1: got '$2', want '$3'" >&2
  else
    echo "ok: $1"
  fi
}

# grep_in DESCRIPTION PATTERN FILE
grep_in ()
{
  T_CHECKS=$((T_CHECKS + 1))
  if grep -q -e "$2" "$3"; then
    echo "ok: $1"
  else
    T_FAILS=$((T_FAILS + 1))
    echo "FAIL: $1: no '$2' in $3:" >&2
    sed 's/^/  | /' "$3" >&2
  fi
}

t_done ()
{
  echo "$T_CHECKS checks, $T_FAILS failed"
  [ "$T_FAILS" -eq 0 ]
}

# srv_start IDX [LISTEN]: start server IDX (store $T_WORK/storeIDX);
# sets PORT_IDX, URL_IDX, PID_IDX.  LISTEN defaults to 127.0.0.1:0 (or
# the server's old port when it is restarted).
srv_start ()
{
  local idx="$1" listen="${2:-}" pf i port pid
  pf="$T_WORK/port.$idx"
  rm -f "$pf"
  mkdir -p "$T_WORK/store$idx"
  if [ -z "$listen" ]; then
    eval "port=\${PORT_$idx:-0}"
    listen="127.0.0.1:$port"
  fi
  "$SERVER" --foreground --store "$T_WORK/store$idx" --listen "$listen" \
            --port-file "$pf" --pow-difficulty "$POW" \
            2>>"$T_WORK/server$idx.log" &
  pid=$!
  T_PIDS="$T_PIDS $pid"
  for i in $(seq 1 100); do
    [ -s "$pf" ] && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  [ -s "$pf" ] || { echo "ERROR: server $idx did not start" >&2;
                    cat "$T_WORK/server$idx.log" >&2; exit 99; }
  port=$(cat "$pf")
  eval "PORT_$idx=$port; PID_$idx=$pid; URL_$idx=http://127.0.0.1:$port"
}

srv_stop ()
{
  local pid
  eval "pid=\$PID_$1"
  kill -TERM "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
}

# servers N: start servers 1..N and set SERVERS to the --server options.
servers ()
{
  local i u
  SERVERS=""
  for i in $(seq 1 "$1"); do
    srv_start "$i"
    eval "u=\$URL_$i"
    SERVERS="$SERVERS --server $u"
  done
}

# gpg_home: a fresh GNUPGHOME with one key (ed25519 + cv25519, no
# passphrase); sets GNUPGHOME, FPR.
gpg_home ()
{
  T_GNUPGHOME=$(mktemp -d /tmp/ksXXXXXX)
  export GNUPGHOME="$T_GNUPGHOME"
  chmod 700 "$GNUPGHOME"
  "$GPG" --batch --quiet --passphrase '' \
         --quick-generate-key "Keysafe Test <test@example.org>" \
         future-default default never 2>"$T_WORK/gpg.log"
  FPR=$("$GPG" --batch --with-colons --list-secret-keys 2>/dev/null \
        | awk -F: '/^fpr:/ { print $10; exit }')
  [ -n "$FPR" ] || { echo "ERROR: no key made" >&2; exit 99; }
}

# ks ARGS...: keysafe with the test profile, batch, short timeouts;
# the password comes on fd 3 from $PW.  Output in $T_WORK/ks.out/err.
ks ()
{
  "$KEYSAFE" --batch --profile test --timeout "${KS_TIMEOUT:-20}" \
             --connect-timeout 10 "$@" 3<<EOF >"$T_WORK/ks.out" 2>"$T_WORK/ks.err"
$PW
EOF
  local rc=$?
  sed 's/^/  | /' "$T_WORK/ks.err"
  return $rc
}

# fpr_of FILE: the fingerprint of the first key in FILE.
fpr_of ()
{
  "$GPG" --batch --with-colons --show-keys "$1" 2>/dev/null \
    | awk -F: '/^fpr:/ { print $10; exit }'
}

# shard_files IDX: the shard files in server IDX's store.
shard_files ()
{
  find "$T_WORK/store$1" -type f -name '[0-9a-f]*' | grep -E '/[0-9a-f]{64}$' || true
}
