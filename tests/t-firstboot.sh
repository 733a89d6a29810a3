#!/bin/bash
# t-firstboot.sh - keysafe firstboot on an empty GnuPG home, run twice
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Real keysafe-server processes on 127.0.0.1, a real gpg and gpg-agent
# in a short temporary GNUPGHOME whose pinentry is ours, the test
# profile.  Checked:
#  1. Name, password and the new key's passphrase all come through the
#     real gpg-agent and a pinentry: two runs make one key and one
#     backup (the second run leaves the server stores as they were), and
#     the backup restores the same fingerprint after the key is deleted.
#  2. One server down: 2 of 3 servers hold their shards, first boot is
#     done, the rest waits in the upload queue (fake-pinentry.sh answers
#     the password, --name gives the name, --no-protection).
#  3. Two servers down, --userid: non-zero, a clear message, no marker;
#     with the servers back the next run finishes the same backup, no
#     second key, and it restores.
#  4. Several secret keys, --batch: the first is backed up and named;
#     while another run holds the lock, a run does nothing.

. "${srcdir:-.}/t-helper-lib.sh"

MARKER=keysafe-firstboot.done
NAME_ANSWER="first boot item 0815"

# fresh_home: a new, empty GNUPGHOME (the last one is shut down first).
fresh_home ()
{
  if [ -n "$T_GNUPGHOME" ]; then
    GNUPGHOME="$T_GNUPGHOME" gpgconf --kill all 2>/dev/null || true
    rm -rf "$T_GNUPGHOME"
  fi
  T_GNUPGHOME=$(mktemp -d /tmp/ksXXXXXX)
  export GNUPGHOME="$T_GNUPGHOME"
  chmod 700 "$GNUPGHOME"
}

# dialog_pinentry: a pinentry that answers $NAME_ANSWER to the name
# dialog of keysafe firstboot and $PW to every other one.  gpg-agent 2.2
# asks the repetition of GET_PASSPHRASE --repeat in a pinentry session
# of its own, so the answer of a "re-enter" dialog is the last one given.
dialog_pinentry ()
{
  cat >"$T_WORK/pinentry" <<PEOF
#!/bin/sh
echo "OK Pleased to meet you, keysafe firstboot test pinentry"
what=pw
[ -f "$T_WORK/pin.last" ] && what=\$(cat "$T_WORK/pin.last")
while IFS= read -r line; do
  echo "\$line" >>"$T_WORK/pinentry.log"
  case "\$line" in
    "SETDESC "*"first boot"*)
      what=name ;;
    SETDESC*re-enter*) ;;
    SETDESC*) what=pw ;;
  esac
  case "\$line" in
    SETREPEAT*) rep=1; echo OK ;;
    GETPIN*)
      echo "\$what" >"$T_WORK/pin.last"
      [ -n "\$rep" ] && echo "S PIN_REPEATED"
      if [ "\$what" = name ]; then echo "D $NAME_ANSWER"; else echo "D $PW"; fi
      echo OK; rep= ;;
    BYE*) echo OK; exit 0 ;;
    *) echo OK ;;
  esac
done
PEOF
  chmod +x "$T_WORK/pinentry"
  echo "pinentry-program $T_WORK/pinentry" >"$GNUPGHOME/gpg-agent.conf"
  : >"$T_WORK/pinentry.log"
  rm -f "$T_WORK/pin.last"
  gpgconf --kill gpg-agent 2>/dev/null || true
}

# fb NAME ARGS...: keysafe --profile test firstboot ARGS with the
# servers in $SERVERS, not batch (prompts go to gpg-agent), stdin not a
# terminal; output in $T_WORK/NAME.err.  A generous time bound.
fb ()
{
  local out="$1" rc=0
  shift
  timeout 600 "$KEYSAFE" --profile test --timeout 30 --connect-timeout 10 \
    --status-fd 4 firstboot "$@" $SERVERS </dev/null >"$T_WORK/$out.out" \
    2>"$T_WORK/$out.err" 4>"$T_WORK/$out.status" || rc=$?
  sed 's/^/  | /' "$T_WORK/$out.err"
  return $rc
}

seckeys ()
{
  "$GPG" --batch --with-colons --list-secret-keys 2>/dev/null \
    | grep -c '^sec:' || true
}

first_fpr ()
{
  "$GPG" --batch --with-colons --list-secret-keys 2>/dev/null \
    | awk -F: '/^fpr:/ { print $10; exit }'
}

# store_state: the sorted shard file names and sizes of all three stores.
store_state ()
{
  local i
  for i in 1 2 3; do
    shard_files "$i" | sort | while read -r f; do
      echo "$i $(basename "$f") $(wc -c <"$f")"
    done
  done
}

count () { shard_files "$1" | wc -l; }

servers 3

# --- 1. everything through gpg-agent and the pinentry ----------------
fresh_home
dialog_pinentry
eq "the new home has no secret key" "$(seckeys)" 0
ok "first run" fb run1
grep_in "a key is created" "creating one for" "$T_WORK/run1.err"
grep_in "the backup is stored on 3 servers" "3 of 3 servers" "$T_WORK/run1.err"
grep_in "first boot is done" "first boot is done" "$T_WORK/run1.err"
FPR=$(first_fpr)
grep_in "status: done, 3 of 3 hold their shards, none queued" \
  "^\[KEYSAFE:\] FIRSTBOOT_RESULT done ok $FPR test 3 3 2 0\$" \
  "$T_WORK/run1.status"
ok "the marker is there" test -f "$GNUPGHOME/$MARKER"
eq "one secret key" "$(seckeys)" 1
"$GPG" --batch --with-colons --list-secret-keys >"$T_WORK/uids" 2>/dev/null
grep_in "the user ID is login@host from the passwd entry" \
  "^uid:.*<$(id -un)@$(hostname)>" "$T_WORK/uids"
grep_in "the marker names the key" "^fingerprint $FPR\$" "$GNUPGHOME/$MARKER"
grep_in "the marker names the profile" "^profile test\$" "$GNUPGHOME/$MARKER"
grep_in "the marker has a date" "^date 20[0-9-]*T[0-9:]*Z\$" "$GNUPGHOME/$MARKER"
ok "the marker holds no password or name" \
  sh -c "! grep -F -e '$PW' -e '$NAME_ANSWER' '$GNUPGHOME/$MARKER'"
ok "the marker is not world readable" \
  sh -c "[ \"\$(stat -c %a '$GNUPGHOME/$MARKER')\" = 600 ]"
grep_in "the name was asked through the agent" "SETDESC.*first boot" \
  "$T_WORK/pinentry.log"
grep_in "the password was asked through the agent" \
  "SETDESC Password for this backup" "$T_WORK/pinentry.log"
grep_in "the key's passphrase was asked through the agent" \
  "protect your new key" "$T_WORK/pinentry.log"
N1=$(count 1)
ok "server 1 holds shards" test "$N1" -gt 0
eq "server 2 holds as many" "$(count 2)" "$N1"
eq "server 3 holds as many" "$(count 3)" "$N1"
store_state >"$T_WORK/state1"
: >"$T_WORK/pinentry.log"

ok "second run" fb run2
grep_in "the second run does nothing" "done already" "$T_WORK/run2.err"
grep_in "status: already done" \
  '^\[KEYSAFE:\] FIRSTBOOT_RESULT already ok - - 0 0 0 0$' \
  "$T_WORK/run2.status"
ok "the second run asks nothing" sh -c "! grep -q GETPIN '$T_WORK/pinentry.log'"
store_state >"$T_WORK/state2"
ok "the second run stores no backup" cmp -s "$T_WORK/state1" "$T_WORK/state2"
eq "still one secret key" "$(seckeys)" 1
eq "still the same key" "$(first_fpr)" "$FPR"

# The backup restores: delete the key, restore with name and password.
"$GPG" --batch --yes --delete-secret-and-public-key "$FPR" 2>/dev/null
eq "the key is gone" "$(seckeys)" 0
ok "restore" ks restore --name "$NAME_ANSWER" --password-fd 3 $SERVERS
eq "restore brings back the same key" "$(first_fpr)" "$FPR"

# --- 2. one server down: restorable, done, the rest queued -----------
fresh_home
pinentry_setup "$PW"
B1=$(count 1); B2=$(count 2); B3=$(count 3)
srv_stop 3
ok "run with server 3 down" fb down1 --name "fb one down" --no-protection
grep_in "says the backup is restorable" "restorable now" "$T_WORK/down1.err"
grep_in "says the shards are queued" "upload-queued" "$T_WORK/down1.err"
grep_in "first boot counts as done" "first boot is done" "$T_WORK/down1.err"
grep_in "status: done with 2 of 3, shards queued" \
  '^\[KEYSAFE:\] FIRSTBOOT_RESULT done ok [0-9A-F]* test 2 3 2 [1-9][0-9]*$' \
  "$T_WORK/down1.status"
ok "the marker is there" test -f "$GNUPGHOME/$MARKER"
ok "the marker counts queued shards" \
  grep -q '^queued [1-9][0-9]*$' "$GNUPGHOME/$MARKER"
ok "server 1 got shards" test "$(count 1)" -gt "$B1"
ok "server 2 got shards" test "$(count 2)" -gt "$B2"
eq "server 3 got nothing" "$(count 3)" "$B3"
ok "the queue holds shards" test -n "$(ls "$GNUPGHOME/keysafe-queue")"
grep_in "the password came from fake-pinentry.sh" "GETPIN" "$T_WORK/pinentry.log"
ok "no passphrase was asked for the new key" \
  sh -c "! grep -q 'protect your new key' '$T_WORK/pinentry.log'"
eq "one secret key" "$(seckeys)" 1
ok "a second run" fb down2 --name "fb one down"
grep_in "the second run does nothing" "done already" "$T_WORK/down2.err"
eq "still one secret key" "$(seckeys)" 1
srv_start 3

# --- 3. two servers down: not done; later the same backup finishes ---
fresh_home
pinentry_setup "$PW"
srv_stop 2
srv_stop 3
B1=$(count 1)
fails "run with servers 2 and 3 down fails" fb two1 --name "fb two down" \
  --userid "Fb Tester <fb@example.org>"
grep_in "says why" "NOT restorable" "$T_WORK/two1.err"
grep_in "says first boot is not done" "first boot is not done" \
  "$T_WORK/two1.err"
grep_in "says the key stays" "stays" "$T_WORK/two1.err"
grep_in "status: pending, 1 of 3 hold their shards" \
  '^\[KEYSAFE:\] FIRSTBOOT_RESULT pending ok [0-9A-F]* test 1 3 2 [1-9][0-9]*$' \
  "$T_WORK/two1.status"
grep_in "says why server 3's shards are not kept" "holds at most 1 shard of" \
  "$T_WORK/two1.err"
ok "no marker" test ! -e "$GNUPGHOME/$MARKER"
eq "one secret key" "$(seckeys)" 1
FPR3=$(first_fpr)
"$GPG" --batch --with-colons --list-secret-keys >"$T_WORK/uids" 2>/dev/null
grep_in "the key has the --userid" "^uid:.*Fb Tester <fb@example.org>" \
  "$T_WORK/uids"
ok "server 1 got its shards" test "$(count 1)" -gt "$B1"
srv_start 2
srv_start 3
B2=$(count 2); B3=$(count 3)
ok "with the servers back it succeeds" fb two2 --name "fb two down"
grep_in "it finishes the earlier backup" "earlier run" "$T_WORK/two2.err"
grep_in "status: the queued shards were sent" \
  '^\[KEYSAFE:\] QUEUE_RESULT ok [1-9][0-9]* 0 0 0$' "$T_WORK/two2.status"
grep_in "status: the resumed backup is done" \
  '^\[KEYSAFE:\] FIRSTBOOT_RESULT done ok [0-9A-F]* test 2 2 2 0$' \
  "$T_WORK/two2.status"
grep_in "first boot is done" "first boot is done" "$T_WORK/two2.err"
ok "the marker is there" test -f "$GNUPGHOME/$MARKER"
grep_in "the marker names the key" "^fingerprint $FPR3\$" \
  "$GNUPGHOME/$MARKER"
eq "still one secret key" "$(seckeys)" 1
eq "the same key" "$(first_fpr)" "$FPR3"
ok "server 2 got its shards now" test "$(count 2)" -gt "$B2"
# The queue held server 2's shards only (at most k-1 of an object).
eq "server 3 got nothing" "$(count 3)" "$B3"
"$GPG" --batch --yes --delete-secret-and-public-key "$FPR3" 2>/dev/null
ok "restore of the finished backup" \
  ks restore --name "fb two down" --password-fd 3 $SERVERS
eq "restore brings back the same key" "$(first_fpr)" "$FPR3"

# --- 4. several keys, batch ------------------------------------------
fresh_home
for u in "One <one@example.org>" "Two <two@example.org>"; do
  "$GPG" --batch --quiet --passphrase '' --quick-generate-key "$u" \
         future-default default never 2>>"$T_WORK/gpg.log"
done
FIRST=$(first_fpr)
if command -v flock >/dev/null; then
  # Another run holds the lock: this one does nothing, and says so.
  ok "a run while another holds the lock" flock \
    "$GNUPGHOME/keysafe-firstboot.lock" "$KEYSAFE" --batch --profile test \
    firstboot --name "fb locked" --password-fd 0 $SERVERS \
    <<<"$PW" 2>"$T_WORK/lock.err"
  grep_in "says another one runs" "another keysafe firstboot" \
    "$T_WORK/lock.err"
  ok "no marker after the locked run" test ! -e "$GNUPGHOME/$MARKER"
fi
ok "batch run with two keys" ks firstboot --name "fb two keys" \
  --password-fd 3 $SERVERS
grep_in "says which key" "there are 2 secret keys.*$FIRST" "$T_WORK/ks.err"
grep_in "the marker names the first key" "^fingerprint $FIRST\$" \
  "$GNUPGHOME/$MARKER"
eq "no key was created" "$(seckeys)" 2

# --- 5. a server that lies (409 to every PUT, holds nothing), one down -
# The liar never counts as holding shards: with server 2 down the
# backup is not restorable, on the first run and on the next.
fresh_home
pinentry_setup "$PW"
"$top_builddir/tests/t-hostile-server" --mode conflict \
  --port-file "$T_WORK/port.fbh" --log "$T_WORK/server-h.log" \
  2>>"$T_WORK/server-h.log" &
LPID=$!
T_PIDS="$T_PIDS $LPID"
t_wait_for "$LPID" test -s "$T_WORK/port.fbh" || { echo "ERROR: no liar"; exit 99; }
SAVED="$SERVERS"
SERVERS="--server $URL_1 --server $URL_2 --server http://127.0.0.1:$(cat "$T_WORK/port.fbh")"
srv_stop 2
fails "a liar and a server down: first boot is not done" fb liar1 \
  --name "fb liar"
grep_in "names the liar" "server 3 .*refused" "$T_WORK/liar1.err"
ok "no marker" test ! -e "$GNUPGHOME/$MARKER"
fails "the next run with server 2 still down is not done either" fb liar2 \
  --name "fb liar"
grep_in "says it is still not restorable" "still not restorable" \
  "$T_WORK/liar2.err"
grep_in "status: failed, not restorable" \
  '^\[KEYSAFE:\] FIRSTBOOT_RESULT failed not-restorable [0-9A-F]* test 1 ' \
  "$T_WORK/liar2.status"
ok "still no marker" test ! -e "$GNUPGHOME/$MARKER"
srv_start 2
ok "with server 2 back first boot is done" fb liar3 --name "fb liar"
ok "the marker is there now" test -f "$GNUPGHOME/$MARKER"
SERVERS="$SAVED"

t_done
