# t-helper-lib.sh - shared by the t-helper-*.sh tests (sourced, bash)
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Builds on t-client-lib.sh (real keysafe-server processes on 127.0.0.1,
# a real gpg in a short temporary GNUPGHOME, bounded waits, clean-up on
# exit) and adds keysafe-helper driven by the real gpg-connect-agent.
# Every session uses OPTION profile=test (the default profile takes
# many minutes).

. "${srcdir:-.}/t-client-lib.sh"

HELPER="$top_builddir/agent-helper/helper/keysafe-helper"
[ -x "$HELPER" ] || { echo "ERROR: no $HELPER"; exit 99; }
command -v gpg-connect-agent >/dev/null \
  || { echo "SKIP: gpg-connect-agent missing"; exit 77; }
command -v timeout >/dev/null || { echo "SKIP: timeout(1) missing"; exit 77; }
# A generous bound for one whole session on a loaded 2-core machine.
GCA_TIMEOUT=${GCA_TIMEOUT:-300}

# server_options: OPTION server=... lines for servers 1..N ($1).
server_options ()
{
  local i u
  for i in $(seq 1 "$1"); do
    eval "u=\$URL_$i"
    echo "OPTION server=$u"
  done
}

# session_head: the lines a session starts with: name and password
# answered from $T_WORK/name and $T_WORK/pw, the test profile, servers
# 1..3.
session_head ()
{
  echo "/definqfile NAME $T_WORK/name"
  echo "/definqfile PASSWORD $T_WORK/pw"
  echo "OPTION profile=test"
  server_options 3
}

# gca_pipe NAME: run the commands on stdin through
#   gpg-connect-agent --exec keysafe-helper --server
# into $T_WORK/NAME.out (stderr in NAME.err).  Returns the exit status
# of gpg-connect-agent.
gca_pipe ()
{
  local rc=0
  timeout "$GCA_TIMEOUT" gpg-connect-agent --exec "$HELPER" --server \
    >"$T_WORK/$1.out" 2>"$T_WORK/$1.err" || rc=$?
  sed 's/^/  > /' "$T_WORK/$1.out" | grep -v '^  > S PROGRESS' || true
  grep -v "is not considered an option" "$T_WORK/$1.err" \
    | sed 's/^/  ! /' || true
  return $rc
}

# gca_socket SOCKET NAME: the same through a socket (-S).
gca_socket ()
{
  local rc=0
  timeout "$GCA_TIMEOUT" gpg-connect-agent -S "$1" \
    >"$T_WORK/$2.out" 2>"$T_WORK/$2.err" || rc=$?
  sed 's/^/  > /' "$T_WORK/$2.out" | grep -v '^  > S PROGRESS' || true
  sed 's/^/  ! /' "$T_WORK/$2.err" || true
  return $rc
}

# last_reply FILE: the last OK/ERR line of a session transcript.
last_reply ()
{
  grep -E '^(OK|ERR)' "$1" | tail -n 1
}

# nth_reply FILE N: the Nth OK/ERR line.
nth_reply ()
{
  grep -E '^(OK|ERR)' "$1" | sed -n "${2}p"
}

# pinentry_setup PASSWORD: make gpg-agent of $GNUPGHOME use
# tests/fake-pinentry.sh answering PASSWORD; it logs to
# $T_WORK/pinentry.log.
pinentry_setup ()
{
  printf '%s\n' "$1" >"$T_WORK/pinentry.pw"
  cat >"$T_WORK/pinentry" <<PEOF
#!/bin/sh
exec /bin/sh "$srcdir/fake-pinentry.sh" "$T_WORK/pinentry.pw" "$T_WORK/pinentry.log"
PEOF
  chmod +x "$T_WORK/pinentry"
  echo "pinentry-program $T_WORK/pinentry" >"$GNUPGHOME/gpg-agent.conf"
  : >"$T_WORK/pinentry.log"
  gpgconf --kill gpg-agent 2>/dev/null || true
}
