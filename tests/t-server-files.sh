#!/bin/bash
# t-server-files.sh - the files the daemons make are made safely: the
# server's --port-file never writes through a link planted next to it,
# and keysafe-helper's --socket never removes anything but a stale
# socket of its own
# SPDX-License-Identifier: GPL-3.0-or-later
. "${srcdir:-.}/t-server-lib.sh"

# A symlink at FILE.tmp (the old temp name) and at FILE itself, both
# pointing at a file that must not change.
echo "precious" > "$T_WORK/victim"
ln -s "$T_WORK/victim" "$T_WORK/pf.tmp"
PF="$T_WORK/pf"
"$SERVER" --foreground --store "$T_WORK/store" --listen 127.0.0.1:0 \
          --pow-difficulty 0 --port-file "$PF" 2>>"$T_WORK/server.log" &
SRV_PID=$!
T_PIDS="$T_PIDS $SRV_PID"
t_wait_for "$SRV_PID" test -f "$PF" -a ! -L "$PF"
eq "victim behind pf.tmp untouched" "$(cat "$T_WORK/victim")" precious
ok "the port file is a plain file" test -f "$PF" -a ! -L "$PF"
PORT=$(cat "$PF")
BASE="http://127.0.0.1:$PORT"
ok "the port in it is served" srv_alive
eq "no temp file left" "$(ls "$T_WORK" | grep -c '^pf\.')" 1
srv_stop
# A symlink at the port file's own name is replaced, not written through.
ln -sf "$T_WORK/victim" "$PF"
"$SERVER" --foreground --store "$T_WORK/store" --listen 127.0.0.1:0 \
          --pow-difficulty 0 --port-file "$PF" 2>>"$T_WORK/server.log" &
SRV_PID=$!
T_PIDS="$T_PIDS $SRV_PID"
t_wait_for "$SRV_PID" test -f "$PF" -a ! -L "$PF"
ok "the link at the port file's name was replaced" test -f "$PF" -a ! -L "$PF"
srv_stop
eq "victim behind the port file's own name untouched" "$(cat "$T_WORK/victim")" precious

# keysafe-helper --daemon --socket PATH: a regular file, a symlink or a
# directory at PATH is refused and left as it is; a stale socket (no one
# listens) is replaced; a live helper's name is never taken.
HELPER="$top_builddir/agent-helper/helper/keysafe-helper"
[ -x "$HELPER" ] || { echo "ERROR: no $HELPER"; exit 99; }
T_GNUPGHOME=$(mktemp -d /tmp/ksfXXXXXX)
export GNUPGHOME="$T_GNUPGHOME"
SOCK="$T_GNUPGHOME/S.test"
echo "precious" > "$SOCK"
rc=0
timeout 20 "$HELPER" --daemon --socket "$SOCK" 2>"$T_WORK/h1.log" || rc=$?
ok "helper refuses a regular file at the socket path (rc $rc)" test "$rc" != 0 -a "$rc" != 124
eq "the file is left" "$(cat "$SOCK")" precious
ok "and says why" grep -q "not a socket of ours" "$T_WORK/h1.log"
rm -f "$SOCK"
ln -s "$T_WORK/victim" "$SOCK"
rc=0
timeout 20 "$HELPER" --daemon --socket "$SOCK" 2>"$T_WORK/h2.log" || rc=$?
ok "helper refuses a symlink at the socket path (rc $rc)" test "$rc" != 0 -a "$rc" != 124
ok "the symlink is left" test -L "$SOCK"
eq "its target is left" "$(cat "$T_WORK/victim")" precious
rm -f "$SOCK"
# A stale socket: bound, then its owner gone.
stale_socket () {
  python3 -c "import socket,sys; s=socket.socket(socket.AF_UNIX); s.bind(sys.argv[1])" "$SOCK"
}
stale_socket
ok "stale socket made" test -S "$SOCK"
"$HELPER" --daemon --socket "$SOCK" 2>"$T_WORK/h3.log" &
HP=$!
T_PIDS="$T_PIDS $HP"
t_wait_for "$HP" sh -c "printf 'GETINFO version\nBYE\n' | timeout 5 gpg-connect-agent -S '$SOCK' 2>/dev/null | grep -q '^OK'"
ok "a stale socket of ours is replaced and served" kill -0 "$HP"
kill "$HP" 2>/dev/null || true
wait "$HP" 2>/dev/null || true

# The right to the name is a lock held for the helper's life, so a probe
# and an unlink can never race another helper: with a live helper's
# socket removed from under it, a second helper still does not start,
# and at exit a helper removes only the socket it bound itself.
serves () {
  sh -c "printf 'NOP\nBYE\n' | timeout 5 gpg-connect-agent -S '$SOCK' 2>/dev/null | grep -q '^OK'"
}
# start_helper LOG: a helper on $SOCK in the background (its pid in HP),
# once it serves.
start_helper () {
  "$HELPER" --daemon --socket "$SOCK" 2>"$T_WORK/$1" &
  HP=$!
  T_PIDS="$T_PIDS $HP"
  t_wait_for "$HP" serves
}
start_helper h4.log
ok "helper A serves" serves
rm -f "$SOCK"
rc=0
timeout 20 "$HELPER" --daemon --socket "$SOCK" 2>"$T_WORK/h5.log" || rc=$?
ok "helper B is refused while A lives, its socket gone (rc $rc)" \
   test "$rc" != 0 -a "$rc" != 124
grep_in "B says why" "another keysafe-helper" "$T_WORK/h5.log"
stale_socket
kill -TERM "$HP"
wait "$HP" 2>/dev/null || true
ok "A at exit leaves a socket it did not bind" test -S "$SOCK"
rm -f "$SOCK"

# A helper killed outright leaves its socket and its lock file; the next
# one replaces the socket.
start_helper h6.log
kill -KILL "$HP"
wait "$HP" 2>/dev/null || true
ok "a killed helper leaves its socket" test -S "$SOCK"
start_helper h7.log
ok "the next helper replaces it and serves" serves
kill -TERM "$HP"
wait "$HP" 2>/dev/null || true
fails "its socket is gone at exit" test -e "$SOCK"

# A directory others can write is refused: there the socket could be
# swapped between any check and its use.
mkdir -m 0777 "$T_GNUPGHOME/open"
chmod 0777 "$T_GNUPGHOME/open"
rc=0
timeout 20 "$HELPER" --daemon --socket "$T_GNUPGHOME/open/S.test" \
  2>"$T_WORK/h8.log" || rc=$?
ok "a socket in a directory others can write is refused (rc $rc)" \
   test "$rc" != 0 -a "$rc" != 124
grep_in "and it says why" "others can write" "$T_WORK/h8.log"

t_done
