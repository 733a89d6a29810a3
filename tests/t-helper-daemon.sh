#!/bin/bash
# t-helper-daemon.sh - keysafe-helper --daemon on S.keysafe
# SPDX-License-Identifier: GPL-3.0-or-later
#
# The daemon listens on S.keysafe in GnuPG's socket directory (gpgconf
# --list-dirs socketdir); the real gpg-connect-agent -S talks to it:
# GETINFO pid, BACKUP and RESTORE --stdout with INQUIREs answered from
# the script, bad input followed by NOP, a second client refused while
# one is connected (then served once the first has gone), a second
# daemon refused on a live socket, and SIGTERM removing the socket.

. "${srcdir:-.}/t-helper-lib.sh"

servers 3
gpg_home
printf '%s' "$PW" >"$T_WORK/pw"
printf '%s' "daemon item" >"$T_WORK/name"

SOCKDIR=$(gpgconf --list-dirs socketdir)
SOCK="$SOCKDIR/S.keysafe"
"$HELPER" --daemon --verbose 2>"$T_WORK/daemon.log" &
DPID=$!
T_PIDS="$T_PIDS $DPID"
t_wait_for "$DPID" test -S "$SOCK" \
  || { echo "ERROR: no socket $SOCK" >&2; cat "$T_WORK/daemon.log" >&2;
       exit 99; }
echo "daemon $DPID on $SOCK"

printf '%s\n' "GETINFO pid" | gca_socket "$SOCK" pid
eq "GETINFO pid is the daemon's" "$(sed -n 1p "$T_WORK/pid.out")" "D $DPID"

gca_socket "$SOCK" backup <<EOF
$(session_head)
BACKUP $FPR
EOF
eq "BACKUP over the socket" "$(last_reply "$T_WORK/backup.out")" OK
grep_in "progress over the socket" '^S PROGRESS ' "$T_WORK/backup.out"

gca_socket "$SOCK" restore <<EOF
$(session_head)
/datafile $T_WORK/restored.gpg
RESTORE --stdout
EOF
eq "RESTORE --stdout over the socket" "$(last_reply "$T_WORK/restore.out")" OK
eq "the key comes back" "$(fpr_of "$T_WORK/restored.gpg")" "$FPR"

# A new connection starts with fresh options: no servers and no profile
# from the previous client.
printf '%s\n' "FROBNICATE" "BACKUP" "NOP" | gca_socket "$SOCK" bad
eq "unknown command over the socket" \
  "$(nth_reply "$T_WORK/bad.out" 1 | cut -d' ' -f1-2)" "ERR 536871187"
grep_in "missing argument over the socket" 'KEYID expected' "$T_WORK/bad.out"
eq "NOP after bad input" "$(nth_reply "$T_WORK/bad.out" 3)" OK

# One client at a time: A stays connected (its stdin is a FIFO we hold
# open), B is refused at once, C is served after A has left.
mkfifo "$T_WORK/a.fifo"
# Count the connections before A starts: A may be in at once.
nconn=$(grep -c 'client connected' "$T_WORK/daemon.log" || true)
timeout "$GCA_TIMEOUT" gpg-connect-agent -S "$SOCK" <"$T_WORK/a.fifo" \
  >"$T_WORK/a.out" 2>"$T_WORK/a.err" &
APID=$!
exec 7>"$T_WORK/a.fifo"
echo NOP >&7
# gpg-connect-agent buffers its output in a pipe: the daemon's verbose
# log tells when A is in.
for i in $(seq 1 100); do
  [ "$(grep -c 'client connected' "$T_WORK/daemon.log")" -gt "$nconn" ] && break
  sleep 0.1
done
nconn=$((nconn + 1))
eq "client A is connected" "$(grep -c 'client connected' "$T_WORK/daemon.log")" "$nconn"
printf '%s\n' NOP | gca_socket "$SOCK" b || true
fails "client B gets no OK while A is connected" grep -q '^OK' "$T_WORK/b.out"
grep_in "client B cannot connect" "can't connect" "$T_WORK/b.err"
grep_in "the daemon refused B as busy" 'busy: refused' "$T_WORK/daemon.log"
echo "GETINFO version" >&7
echo BYE >&7
exec 7>&-
wait "$APID" || true
grep_in "client A is still served after B was refused" '^D ' "$T_WORK/a.out"
eq "client A got OKs for NOP, GETINFO and BYE" "$(grep -c '^OK' "$T_WORK/a.out")" 3
printf '%s\n' NOP | gca_socket "$SOCK" c
eq "client C is served after A left" "$(nth_reply "$T_WORK/c.out" 1)" OK

# A second daemon must not take over a live socket.
fails "a second daemon is refused" \
  timeout 60 "$HELPER" --daemon 2>"$T_WORK/daemon2.log"
grep_in "it says why" 'another keysafe-helper' "$T_WORK/daemon2.log"
printf '%s\n' NOP | gca_socket "$SOCK" d
eq "the first daemon still answers" "$(nth_reply "$T_WORK/d.out" 1)" OK

# SIGTERM ends the daemon and removes its socket.
kill -TERM "$DPID"
rc=0
timeout 30 tail --pid="$DPID" -f /dev/null || rc=$?
eq "the daemon ended on SIGTERM" "$rc" 0
fails "its socket is gone" test -e "$SOCK"

t_done
