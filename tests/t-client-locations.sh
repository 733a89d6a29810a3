#!/bin/bash
# t-client-locations.sh - directory locations named in keysafe.conf, no server
# SPDX-License-Identifier: GPL-3.0-or-later
#
# With no keysafe server running, a key is backed
# up to three directories named in $GNUPGHOME/keysafe.conf, one directory
# is deleted, and the key comes back, from commands with no location
# options.  Then: the backup record (keysafe list, and a restore that
# finds the shards through the record alone), --status-fd lines, a
# password file written with echo, a location that is not there (the
# queue, `keysafe queue`, the notice with its age, --drop), a missing
# GNUPGHOME and --pinentry-mode cancel.

. "${srcdir:-.}/t-client-lib.sh"

gpg_home
L="$T_WORK/loc"
mkdir -p "$L/1" "$L/2" "$L/3"
cat >"$GNUPGHOME/keysafe.conf" <<EOF
# as a user writes it: long options without the dashes
profile test
location file://$L/1
server file://$L/2
location file://$L/3
timeout 20
EOF
# The shipped list is not consulted: make it unusable.
export KEYSAFE_SERVERS_FILE="$T_WORK/no-such-list"
echo "$PW" >"$T_WORK/pw"            # with the newline echo adds
NAME="directory item 1"

# kso ARGS...: keysafe with no location and no profile option; status
# lines in $T_WORK/status, the rest in ks.out/ks.err.
kso ()
{
  "$KEYSAFE" --batch --status-fd 4 "$@" >"$T_WORK/ks.out" \
             2>"$T_WORK/ks.err" 4>"$T_WORK/status"
  local rc=$?
  sed 's/^/  | /' "$T_WORK/ks.err"
  return $rc
}

ok "backup to the three directories of keysafe.conf" \
   kso backup --gpgkeyid "$FPR" --name "$NAME" --passphrase-file "$T_WORK/pw"
grep_in "status: PROGRESS lines in gpg's format" \
        '^\[KEYSAFE:\] PROGRESS [a-z]* ? [0-9]* [0-9]*$' "$T_WORK/status"
grep_in "status: all three stored" \
        '^\[KEYSAFE:\] BACKUP_RESULT test 3 3 2 0 restorable$' "$T_WORK/status"
for i in 1 2 3; do
  grep_in "status: location $i stored" \
          "^\[KEYSAFE:\] BACKUP_SERVER $i stored file://$L/$i\$" \
          "$T_WORK/status"
  ok "directory $i holds shards" [ -n "$(find "$L/$i" -type f)" ]
  eq "directory $i: only shards, in the server's store layout" \
     "$(find "$L/$i" -type f | grep -cvE '/([0-9a-f]{2})/([0-9a-f]{2})/\1\2[0-9a-f]{60}$')" 0
done

ok "keysafe list" kso list
grep_in "list: the backup, its key and 2 of 3" \
        "^backup [0-9TZ:-]* test $FPR 2 3\$" "$T_WORK/ks.out"
grep_in "list: location 2" "^  location 2 file://$L/2\$" "$T_WORK/ks.out"
fails "the record does not hold the item name" \
      grep -rqF "$NAME" "$GNUPGHOME/keysafe"

rm -rf "$L/2"
"$GPG" --batch --yes --delete-secret-and-public-key "$FPR" 2>/dev/null
fails "the key is gone from GnuPG" "$GPG" --batch --list-secret-keys "$FPR"
ok "restore with one directory deleted, no location options" \
   kso restore --name "$NAME" --passphrase-file "$T_WORK/pw"
grep_in "status: the deleted one failed" \
        "^\[KEYSAFE:\] LOCATION 2 failed file://$L/2 " "$T_WORK/status"
grep_in "status: imported" "^\[KEYSAFE:\] IMPORTED $FPR\$" "$T_WORK/status"
ok "the key is back in GnuPG" "$GPG" --batch --list-secret-keys "$FPR"

# The record alone says where to look: keysafe.conf without locations.
sed -i '/^location\|^server/d' "$GNUPGHOME/keysafe.conf"
"$GPG" --batch --yes --delete-secret-and-public-key "$FPR" 2>/dev/null
ok "restore through the backup record alone" \
   kso restore --name "$NAME" --passphrase-fd 3 3<"$T_WORK/pw"
grep_in "status: imported through the record" \
        "^\[KEYSAFE:\] IMPORTED $FPR\$" "$T_WORK/status"

# The settings move to new folders and a second backup is made there:
# the first backup is still found, through its own (older) record.
mkdir -p "$L/7" "$L/8" "$L/9"
printf 'location file://%s/%s\n' "$L" 7 "$L" 8 "$L" 9 >>"$GNUPGHOME/keysafe.conf"
ok "a second backup to other folders" \
   kso backup --gpgkeyid "$FPR" --name "second item" --passphrase-file "$T_WORK/pw"
sed -i '/^location\|^server/d' "$GNUPGHOME/keysafe.conf"
"$GPG" --batch --yes --delete-secret-and-public-key "$FPR" 2>/dev/null
ok "the first backup restores through the older record" \
   kso restore --name "$NAME" --passphrase-file "$T_WORK/pw"
grep_in "status: imported through the older record" \
        "^\[KEYSAFE:\] IMPORTED $FPR\$" "$T_WORK/status"
fails "a wrong password fails" \
      kso check --name "$NAME" --passphrase-file /dev/null
grep_in "status: FAILURE line" '^\[KEYSAFE:\] FAILURE check ' "$T_WORK/status"

# A location that is not there now (a stick not plugged in): its shard
# is queued, and every run says so until it is sent or dropped.
GONE="file://$T_WORK/stick/keysafe"
mkdir -p "$L/4" "$L/5"
ok "backup with one location not there" \
   kso backup --stdin --name "item 2" --passphrase-file "$T_WORK/pw" \
       --location "file://$L/4" --location "$GONE" --location "file://$L/5" \
       <"$T_WORK/pw"
grep_in "status: location 2 queued" "^\[KEYSAFE:\] BACKUP_SERVER 2 queued $GONE " \
        "$T_WORK/status"
grep_in "the user is told why" "not there" "$T_WORK/ks.err"
ok "keysafe queue" kso queue
grep_in "queue: one shard for the stick" "^$GONE: 1 shard waits" "$T_WORK/ks.out"
grep_in "queue: the stick is not there" "not there now" "$T_WORK/ks.out"
ok "another run" kso list
# check says "missing" (the stick holds nothing): its status is not the
# point here, the notice is.
kso check --name "item 2" --passphrase-file "$T_WORK/pw" \
    --location "file://$L/4" --location "$GONE" --location "file://$L/5" \
  || true
grep_in "the notice names the location and the age" \
        "1 shard has waited less than a day for $GONE" "$T_WORK/ks.err"
# --drop names a location as the identities do: the case of the scheme
# and a trailing slash do not matter.
DROP="FILE://${GONE#file://}/"
ok "keysafe queue --drop, spelt another way" kso queue --drop "$DROP"
grep_in "dropped" "dropped 1 shard queued for $DROP" "$T_WORK/ks.err"
ok "the queue is empty now" kso queue
grep_in "empty queue" "the upload queue is empty" "$T_WORK/ks.err"
fails "dropping an unknown location fails" kso queue --drop "file:///nowhere"

# keysafe-helper reads the same keysafe.conf (profile and locations; no
# record this time), and an inquired password loses its one newline.
HELPER="$top_builddir/agent-helper/helper/keysafe-helper"
if command -v gpg-connect-agent >/dev/null; then
  printf 'location file://%s/1\nlocation file://%s/3\n' "$L" "$L" \
    >>"$GNUPGHOME/keysafe.conf"
  rm -rf "$GNUPGHOME/keysafe/records"
  "$GPG" --batch --yes --delete-secret-and-public-key "$FPR" 2>/dev/null
  timeout 120 gpg-connect-agent --exec "$HELPER" --server \
    >"$T_WORK/helper.out" 2>&1 <<EOF || true
OPTION name=directory%20item%201
/definqfile PASSWORD $T_WORK/pw
RESTORE
EOF
  grep_in "helper: imported with keysafe.conf's profile and locations" \
          "^S IMPORTED $FPR\$" "$T_WORK/helper.out"
  grep_in "helper: the locations of keysafe.conf" \
          "^S LOCATION 1 answered file://$L/1\$" "$T_WORK/helper.out"
else
  echo "skipped: the helper part (no gpg-connect-agent)"
fi

# GnuPG habits at the start.
SECONDS=0
fails "a missing GNUPGHOME fails" \
      env GNUPGHOME="$T_WORK/nohome" "$KEYSAFE" --batch restore --name x
ok "... at once" [ "$SECONDS" -lt 5 ]
fails "--pinentry-mode cancel: no password, no restore" \
      kso restore --name "$NAME" --pinentry-mode cancel
grep_in "cancelled" "[Cc]ancel" "$T_WORK/ks.err"

t_done
