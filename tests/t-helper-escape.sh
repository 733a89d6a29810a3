#!/bin/bash
# t-helper-escape.sh - INQUIRE answers with a cut or invalid %-escape
# SPDX-License-Identifier: GPL-3.0-or-later
#
# libassuan 2.5.5 spins forever on "D abc%" or "D %4" inside an
# inquiry.  keysafe-helper (pipe mode, driven line by line over its own
# pipes) must answer ERR to such an answer and go on serving: NOP gets
# OK afterwards, a well-formed escape still works.

. "${srcdir:-.}/t-helper-lib.sh"

gpg_home
coproc HELP { exec "$HELPER" --server 2>>"$T_WORK/helper.log"; }
HPID=$HELP_PID
T_PIDS="$T_PIDS $HPID"

# expect REGEX: read lines (10 s each at most) until one matches.
expect ()
{
  local line i
  for i in $(seq 1 20); do
    IFS= read -r -t 10 line <&"${HELP[0]}" || return 1
    line=${line%$'\r'}
    echo "  < $line"
    case "$line" in $1) return 0 ;; esac
  done
  return 1
}

send () { printf '%s\n' "$@" >&"${HELP[1]}"; }

ok "the greeting" expect "OK*"
for bad in "D abc%" "D %4" "D ab%zzcd"; do
  send "BACKUP --inquire"
  ok "BACKUP inquires the secret" expect "INQUIRE SECRET*"
  send "$bad" "END"
  ok "'$bad' is answered with ERR" expect "ERR*"
  send "NOP"
  ok "the helper serves on after '$bad'" expect "OK*"
done
ok "the helper is alive" kill -0 "$HPID"
# A good escape is no error of the monitor: the secret reaches the flow,
# which then fails on its own (no servers): an ERR that is not ours.
send "OPTION server=http://127.0.0.1:1" "BACKUP --inquire"
expect "OK*" >/dev/null
ok "BACKUP inquires again" expect "INQUIRE SECRET*"
send "D abc%25%0A" "END"
expect "ERR*" >"$T_WORK/good.out" || true
cat "$T_WORK/good.out"
fails "a good escape is not refused as one" grep -q "escape" "$T_WORK/good.out"
send "BYE"
t_done
