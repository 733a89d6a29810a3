#!/bin/bash
# t-helper-errors.sh - bad input gets an Assuan error; the helper goes on
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Each bad input is sent in its own session followed by NOP: the first
# reply must be an ERR with a gpg-error code, its text and source, the
# second the OK of NOP.  Unknown commands, missing and wrong arguments,
# bad OPTIONs, oversized inquiries and an over-long line go through the
# real gpg-connect-agent; a command sent while an INQUIRE is pending (a
# second command while one runs) is written raw to keysafe-helper
# --server, since gpg-connect-agent never does that.

. "${srcdir:-.}/t-helper-lib.sh"

servers 3
gpg_home
printf '%s' "$PW" >"$T_WORK/pw"
printf '%s' "helper errors" >"$T_WORK/name"
head -c 5000 /dev/zero | tr '\0' 'p' >"$T_WORK/bigpw"
head -c 3000 /dev/zero | tr '\0' 'n' >"$T_WORK/bigname"
: >"$T_WORK/empty"

# bad NAME PATTERN COMMAND-LINES...: a session of the lines then NOP.
bad ()
{
  local name="$1" pat="$2"
  shift 2
  printf '%s\n' "$@" NOP | gca_pipe "$name" || true
  # The replies to setup lines (/definq and OPTION server=) come first.
  local n
  n=$(printf '%s\n' "$@" | grep -c -v '^/' || true)
  grep '^ERR' "$T_WORK/$name.out" | head -n 1 >"$T_WORK/$name.err1" || true
  grep_in "$name: ERR <code> <text> <source>" '^ERR [0-9][0-9]* .* <[^>]*>' \
    "$T_WORK/$name.err1"
  grep_in "$name: the ERR says why" "$pat" "$T_WORK/$name.err1"
  eq "$name: NOP still answered" "$(nth_reply "$T_WORK/$name.out" $((n + 1)))" OK
}

bad unknown-command "Unknown IPC command" "FROBNICATE now"
bad backup-no-keyid "KEYID expected" "BACKUP"
bad backup-two-keyids "one KEYID" "BACKUP AAAA BBBB"
bad backup-bad-option "Unknown option" "BACKUP --frobnicate $FPR"
bad restore-bad-option "Unknown option" "RESTORE --nosuch"
bad getinfo-missing "GETINFO needs an argument" "GETINFO"
bad getinfo-unknown "unknown value" "GETINFO colour"
bad servers-arg "no argument" "SERVERS now"
bad option-unknown "Unknown option" "OPTION colour=blue"
bad option-profile "Unknown name" "OPTION profile=nosuch"
bad option-mode "Invalid value" "OPTION password-mode=telepathy"
bad option-server "URI" "OPTION server=ftp://127.0.0.1:1"

# Oversized and empty inquiries (the name by OPTION, the rest by INQUIRE)
bad big-password "too large" \
  "/definqfile PASSWORD $T_WORK/bigpw" "OPTION profile=test" \
  "OPTION server=$URL_1" "OPTION server=$URL_2" "OPTION server=$URL_3" \
  "OPTION name=helper%20errors" "RESTORE --stdout"
bad big-name "too large" \
  "/definqfile NAME $T_WORK/bigname" "/definqfile PASSWORD $T_WORK/pw" \
  "OPTION profile=test" "OPTION server=$URL_1" "OPTION server=$URL_2" \
  "OPTION server=$URL_3" "RESTORE --stdout"
bad empty-password "passphrase" \
  "/definqfile PASSWORD $T_WORK/empty" "OPTION profile=test" \
  "OPTION server=$URL_1" "OPTION server=$URL_2" "OPTION server=$URL_3" \
  "OPTION name=helper%20errors" "RESTORE --stdout"
head -c $((1024 * 1024 + 10)) /dev/urandom >"$T_WORK/huge"
bad big-secret "too large" \
  "/definqfile NAME $T_WORK/name" "/definqfile PASSWORD $T_WORK/pw" \
  "/definqfile SECRET $T_WORK/huge" "OPTION profile=test" \
  "OPTION server=$URL_1" "OPTION server=$URL_2" "OPTION server=$URL_3" \
  "BACKUP --inquire"

# A second command while one runs: NOP sent while INQUIRE NAME is
# pending.  The running RESTORE ends with ERR, the next NOP gets OK.
printf '%s\n' "OPTION profile=test" "$(server_options 3)" "RESTORE --stdout" \
  "NOP" "NOP" "NOP $(head -c 1500 /dev/zero | tr '\0' x)" "NOP" "BYE" \
  | timeout "$GCA_TIMEOUT" "$HELPER" --server >"$T_WORK/raw.out" \
    2>"$T_WORK/raw.err" || true
sed 's/^/  > /' "$T_WORK/raw.out"
eq "raw: greeting" "$(nth_reply "$T_WORK/raw.out" 1)" \
  "OK keysafe-helper $(sed -n 's/^AC_INIT(\[keysafe\], *\[\([^]]*\)\].*$/\1/p' "$top_srcdir/configure.ac") at your service"
grep_in "raw: the running command was inquiring" '^INQUIRE NAME' \
  "$T_WORK/raw.out"
grep_in "raw: a command during the inquiry is an error" \
  '^ERR [0-9]* Unexpected IPC command <' "$T_WORK/raw.out"
# Replies: greeting, 4 OPTIONs, RESTORE's ERR, NOP, long line, NOP, BYE.
eq "raw: the next NOP is answered" "$(nth_reply "$T_WORK/raw.out" 7)" OK
grep_in "raw: an over-long line is an error" \
  '^ERR [0-9]* Line passed to IPC too long <' "$T_WORK/raw.out"
eq "raw: NOP after the long line" "$(nth_reply "$T_WORK/raw.out" 9)" OK
eq "raw: BYE is answered" "$(nth_reply "$T_WORK/raw.out" 10)" \
  "OK closing connection"

# The helper survives a client that goes away in the middle of an inquiry.
printf '%s\n' "OPTION profile=test" "RESTORE --stdout" \
  | timeout "$GCA_TIMEOUT" "$HELPER" --server >"$T_WORK/eof.out" \
    2>"$T_WORK/eof.err"
eq "EOF during an inquiry ends the helper cleanly" "$?" 0

# After all this a full round trip still works in one session.
gca_pipe after <<EOF
/definqfile NAME $T_WORK/name
/definqfile PASSWORD $T_WORK/pw
FROBNICATE
OPTION profile=test
$(server_options 3)
BACKUP $FPR
NOP
EOF
eq "backup after bad input" "$(last_reply "$T_WORK/after.out")" OK
eq "exactly one ERR" "$(grep -c '^ERR' "$T_WORK/after.out")" 1

# The helper takes the transfer time limits too: with server 1 stopped
# (it accepts and never answers), CHECK with --timeout 3 ends within
# seconds; without it the default of 60 s would pass the bound.
kill -STOP "$PID_1"
start=$(date +%s)
session_head >"$T_WORK/hang.in"
echo "CHECK" >>"$T_WORK/hang.in"
timeout "$GCA_TIMEOUT" gpg-connect-agent --exec "$HELPER" --server \
  --timeout 3 --connect-timeout 3 <"$T_WORK/hang.in" \
  >"$T_WORK/hang.out" 2>"$T_WORK/hang.err" || true
took=$(( $(date +%s) - start ))
kill -CONT "$PID_1"
grep_in "hang: server 1 is told unreachable" \
  '^S LOCATION 1 unreachable ' "$T_WORK/hang.out"
# Status lines are for programs: the reason is one keyword, not a
# sentence in the user's language.
grep_in "hang: CHECK's reason is the keyword timeout" \
  '^S LOCATION 1 unreachable http://[^ ]* timeout$' "$T_WORK/hang.out"
ok "hang: --timeout 3 bounds the stopped server ($took s)" \
   test "$took" -ge 2 -a "$took" -le 30

# A BACKUP beside the stopped server queues its shards; BACKUP_SERVER
# gives the reason as the same keyword.
printf '%s' "helper errors 2" >"$T_WORK/name2"
{ echo "/definqfile NAME $T_WORK/name2"
  echo "/definqfile PASSWORD $T_WORK/pw"
  echo "OPTION profile=test"
  server_options 3
  echo "BACKUP $FPR"; } >"$T_WORK/hang2.in"
kill -STOP "$PID_1"
timeout "$GCA_TIMEOUT" gpg-connect-agent --exec "$HELPER" --server \
  --timeout 3 --connect-timeout 3 <"$T_WORK/hang2.in" \
  >"$T_WORK/hang2.out" 2>"$T_WORK/hang2.err" || true
kill -CONT "$PID_1"
grep_in "hang: BACKUP queues server 1's shards, reason timeout" \
  '^S BACKUP_SERVER 1 queued http://[^ ]* timeout$' "$T_WORK/hang2.out"

t_done
