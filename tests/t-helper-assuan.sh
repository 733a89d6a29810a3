#!/bin/bash
# t-helper-assuan.sh - keysafe-helper --server under gpg-connect-agent
# SPDX-License-Identifier: GPL-3.0-or-later
#
# The real gpg-connect-agent runs keysafe-helper --server (--exec) against
# three real keysafe-server processes: GETINFO, a BACKUP of a real key
# and RESTOREs (import and --stdout) with the INQUIREs answered from the
# script (/definqfile), progress status lines, a RESTORE whose password
# comes from the real gpg-agent's pinentry (our fake pinentry), a
# cancelled pinentry and a wrong password.

. "${srcdir:-.}/t-helper-lib.sh"

servers 3
gpg_home
printf '%s' "$PW" >"$T_WORK/pw"
printf '%s' "helper item 1" >"$T_WORK/name"
printf '%s' "not the password 0815" >"$T_WORK/badpw"
VERSION=$(sed -n 's/^AC_INIT(\[keysafe\], *\[\([^]]*\)\].*$/\1/p' \
          "$top_srcdir/configure.ac")

# GETINFO
gca_pipe info <<EOF
GETINFO version
GETINFO pid
GETINFO profiles
NOP
EOF
eq "GETINFO version" "$(sed -n 1p "$T_WORK/info.out")" "D $VERSION"
grep_in "GETINFO pid is a number" '^D [0-9][0-9]*$' "$T_WORK/info.out"
grep_in "GETINFO profiles lists test" '^D .*test name=' "$T_WORK/info.out"
eq "four OKs" "$(grep -c '^OK' "$T_WORK/info.out")" 4

# BACKUP with name and password by INQUIRE
gca_pipe backup <<EOF
$(session_head)
BACKUP $FPR
EOF
eq "BACKUP succeeds" "$(last_reply "$T_WORK/backup.out")" "OK"
grep_in "BACKUP inquired the name" '^INQUIRE NAME' "$T_WORK/backup.out"
grep_in "BACKUP inquired the password" '^INQUIRE PASSWORD' "$T_WORK/backup.out"
grep_in "progress lines in gpg's format" \
  '^S PROGRESS [a-z_]* ? [0-9][0-9]* [0-9][0-9]*$' "$T_WORK/backup.out"
grep_in "a progress step reaches its total" \
  '^S PROGRESS [a-z_]* ? \([1-9][0-9]*\) \1$' "$T_WORK/backup.out"
for i in 1 2 3; do
  ok "server $i holds shards" test "$(shard_files $i | wc -l)" -ge 1
  grep_in "BACKUP_SERVER $i says stored" "^S BACKUP_SERVER $i stored http" \
    "$T_WORK/backup.out"
done
grep_in "BACKUP_RESULT: test profile, 3 of 3, k 2, none queued" \
  '^S BACKUP_RESULT test 3 3 2 0 restorable$' "$T_WORK/backup.out"

# RESTORE into GnuPG after the secret key is gone
"$GPG" --batch --yes --delete-secret-keys "$FPR" 2>>"$T_WORK/gpg.log"
fails "the secret key is gone" \
  sh -c "'$GPG' --batch --list-secret-keys '$FPR' >/dev/null 2>&1"
gca_pipe restore <<EOF
$(session_head)
RESTORE
EOF
eq "RESTORE succeeds" "$(last_reply "$T_WORK/restore.out")" "OK"
ok "the secret key is back" \
  sh -c "'$GPG' --batch --list-secret-keys '$FPR' >/dev/null 2>&1"
grep_in "RESTORE shows progress" '^S PROGRESS ' "$T_WORK/restore.out"
grep_in "RESTORE_RESULT: ok with the test profile" \
  '^S RESTORE_RESULT ok test [0-9]' "$T_WORK/restore.out"
# Found, needed and objects; no byte count, which would tell the key
# type to whoever logs these lines.
grep_in "RESTORE_RESULT: three numbers, no length" \
  '^S RESTORE_RESULT ok test [0-9][0-9]* [0-9][0-9]* [0-9][0-9]*$' \
  "$T_WORK/restore.out"
grep_in "IMPORTED names the key" "^S IMPORTED $FPR\$" "$T_WORK/restore.out"
grep_in "LOCATION: server 1 answered" '^S LOCATION 1 answered http' \
  "$T_WORK/restore.out"

# RESTORE --stdout: D lines, written to a file by gpg-connect-agent;
# the name this time by OPTION (percent-escaped).
gca_pipe stdout <<EOF
/definqfile PASSWORD $T_WORK/pw
/datafile $T_WORK/restored.gpg
OPTION profile=test
$(server_options 3)
OPTION name=helper%20item%201
RESTORE --stdout
EOF
eq "RESTORE --stdout succeeds" "$(last_reply "$T_WORK/stdout.out")" "OK"
eq "the D lines carry the key" "$(fpr_of "$T_WORK/restored.gpg")" "$FPR"
fails "OPTION name= replaces INQUIRE NAME" \
  grep -q '^INQUIRE NAME' "$T_WORK/stdout.out"

# RESTORE in pinentry mode: the real gpg-agent asks our pinentry
pinentry_setup "$PW"
gca_pipe pin <<EOF
/definqfile NAME $T_WORK/name
/datafile $T_WORK/restored-pin.gpg
OPTION profile=test
OPTION password-mode=pinentry
$(server_options 3)
RESTORE --stdout
EOF
eq "RESTORE with pinentry succeeds" "$(last_reply "$T_WORK/pin.out")" "OK"
eq "pinentry restore gives the key" \
  "$(fpr_of "$T_WORK/restored-pin.gpg")" "$FPR"
grep_in "gpg-agent ran our pinentry" '^GETPIN' "$T_WORK/pinentry.log"
fails "no INQUIRE PASSWORD in pinentry mode" \
  grep -q '^INQUIRE PASSWORD' "$T_WORK/pin.out"

# A cancelled pinentry is an error, and the helper goes on
pinentry_setup cancel
gca_pipe pincancel <<EOF
/definqfile NAME $T_WORK/name
OPTION profile=test
OPTION password-mode=pinentry
$(server_options 3)
RESTORE --stdout
NOP
EOF
grep_in "cancel is reported" '^ERR [0-9]* .*[Cc]ancel' "$T_WORK/pincancel.out"
eq "NOP after cancel" "$(last_reply "$T_WORK/pincancel.out")" "OK"

# A wrong password fails with a gpg-error code and text; NOP still works
gca_pipe wrong <<EOF
/definqfile NAME $T_WORK/name
/definqfile PASSWORD $T_WORK/badpw
OPTION profile=test
$(server_options 3)
RESTORE --stdout
NOP
EOF
grep_in "wrong password: ERR code text <source>" \
  '^ERR [0-9][0-9]* .* <[^>]*>' "$T_WORK/wrong.out"
grep_in "wrong password: RESTORE_RESULT says bad-password" \
  '^S RESTORE_RESULT bad-password test ' "$T_WORK/wrong.out"
eq "NOP after the failure" "$(last_reply "$T_WORK/wrong.out")" "OK"

# UPLOAD_QUEUED: the queue's result as status lines.  A backup with
# server 3 down leaves its shards queued; they stay while it is down and
# go out once it is back.
gca_pipe uq0 <<EOF
$(session_head)
UPLOAD_QUEUED
EOF
eq "UPLOAD_QUEUED of an empty queue succeeds" \
  "$(last_reply "$T_WORK/uq0.out")" "OK"
grep_in "UPLOAD_QUEUED: the queue is empty" '^S QUEUE_RESULT empty 0 0 0 0$' \
  "$T_WORK/uq0.out"
srv_stop 3
gca_pipe uq1 <<EOF
/definqfile PASSWORD $T_WORK/pw
OPTION profile=test
$(server_options 3)
OPTION name=helper%20queued
BACKUP $FPR
UPLOAD_QUEUED
EOF
grep_in "UPLOAD_QUEUED fails while server 3 is down" '^ERR ' "$T_WORK/uq1.out"
grep_in "UPLOAD_QUEUED: server 3 failed, its shards left" \
  '^S QUEUE_LOCATION 1 failed [^ ]* 0 [1-9][0-9]* 0 0 ' "$T_WORK/uq1.out"
grep_in "UPLOAD_QUEUED: QUEUE_RESULT left" \
  '^S QUEUE_RESULT left 0 [1-9][0-9]* 0 0$' "$T_WORK/uq1.out"
srv_start 3
gca_pipe uq2 <<EOF
$(session_head)
UPLOAD_QUEUED
EOF
eq "UPLOAD_QUEUED with server 3 back succeeds" \
  "$(last_reply "$T_WORK/uq2.out")" "OK"
grep_in "UPLOAD_QUEUED: QUEUE_RESULT ok, nothing left" \
  '^S QUEUE_RESULT ok [1-9][0-9]* 0 0 0$' "$T_WORK/uq2.out"

t_done
