# t-lib.sh - the core of every shell test (sourced, bash)
# SPDX-License-Identifier: GPL-3.0-or-later
#
# A work folder, check counting, clean-up on every exit (servers stopped,
# gpg-agent killed, folders removed), and the start of a real
# keysafe-server on 127.0.0.1 with port 0: the kernel picks a free port
# and the server writes it to --port-file.  Every wait is bounded.
# t-server-lib.sh and t-client-lib.sh build on it.

set -e
: "${top_builddir:=..}"
: "${srcdir:=.}"
SERVER="$top_builddir/server/keysafe-server"
[ -x "$SERVER" ] || { echo "SKIP: no $SERVER"; exit 77; }
command -v curl >/dev/null \
  || { echo "SKIP: curl(1) missing (Debian package curl)"; exit 77; }

T_WORK=$(mktemp -d /tmp/ksXXXXXX)
T_PIDS=""
T_CHECKS=0
T_FAILS=0
T_GNUPGHOME=""

t_cleanup ()
{
  local p
  # A stopped (SIGSTOP) server gets SIGCONT, or it would never see TERM.
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
  grep -q " $T_WORK/" /proc/mounts 2>/dev/null \
    && umount "$T_WORK"/* 2>/dev/null || true
  # T_KEEP=FILE keeps the servers' stderr for a post-mortem.
  if [ -n "$T_KEEP" ]; then
    cat "$T_WORK"/server*.log >"$T_KEEP" 2>/dev/null || true
  fi
  rm -rf "$T_WORK"
}
trap t_cleanup EXIT

# ok DESCRIPTION COMMAND...: the command must succeed.
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

# eq DESCRIPTION GOT WANT
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

# t_done: a sanitizer report in a server's log fails the test; then the
# count, and the exit status.
t_done ()
{
  T_CHECKS=$((T_CHECKS + 1))
  if cat "$T_WORK"/server*.log 2>/dev/null \
     | grep -E "AddressSanitizer|LeakSanitizer|runtime error" >&2; then
    T_FAILS=$((T_FAILS + 1))
    echo "FAIL: sanitizer report in a server log" >&2
  fi
  echo "$T_CHECKS checks, $T_FAILS failed"
  [ "$T_FAILS" -eq 0 ]
}

# t_wait_for PID COMMAND...: wait, 30 s at most, until COMMAND succeeds;
# give up early when process PID is gone.
t_wait_for ()
{
  local pid="$1" i
  shift
  for i in $(seq 1 300); do
    "$@" && return 0
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  "$@"
}

# srv_launch PORTFILE LOG OPTIONS...: start keysafe-server --foreground
# with OPTIONS, stderr appended to LOG, and wait (30 s at most) until it
# listens.  Sets SRV_PID and SRV_PORT; a server that does not come up
# ends the test (exit 99) with its log.
srv_launch ()
{
  local pf="$1" log="$2"
  shift 2
  rm -f "$pf"
  "$SERVER" --foreground --port-file "$pf" "$@" 2>>"$log" &
  SRV_PID=$!
  T_PIDS="$T_PIDS $SRV_PID"
  t_wait_for "$SRV_PID" test -s "$pf" \
    || { echo "ERROR: the server did not start:" >&2; cat "$log" >&2;
         exit 99; }
  SRV_PORT=$(cat "$pf")
}
