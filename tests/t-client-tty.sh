#!/bin/bash
# t-client-tty.sh - the interactive name prompts of keysafe backup
# SPDX-License-Identifier: GPL-3.0-or-later
#
# keysafe asks the item name on the terminal (/dev/tty).  t-pty runs it on
# a real pseudo-terminal and types the answers: the first name, and after
# a 409 from the servers (a taken name) another one.  The password comes
# by --password-fd so that only the name is asked.  Three real servers on
# loopback, a real gpg in a temporary GNUPGHOME.

. "${srcdir:-.}/t-client-lib.sh"

PTY=./t-pty
servers 3
gpg_home

# on_tty SCRIPT-NAME ARGS...: keysafe ARGS on a pty (not --batch, so it
# may ask), following the script on stdin; transcript in SCRIPT-NAME.out.
on_tty ()
{
  local name="$1" rc=0
  shift
  cat >"$T_WORK/$name.script"
  "$PTY" --timeout 120 "$T_WORK/$name.script" "$KEYSAFE" --profile test \
    --timeout 20 --connect-timeout 10 "$@" $SERVERS \
    3<<EOF >"$T_WORK/$name.out" 2>"$T_WORK/$name.err" || rc=$?
$PW
EOF
  tr '\r' '\n' <"$T_WORK/$name.out" | grep -v '^ *$' | sed 's/^/  | /' \
    | grep -v '%' || true
  sed 's/^/  ! /' "$T_WORK/$name.err"
  return $rc
}

# A first backup takes the name "laptop key".
ok "a first backup under 'laptop key'" ks backup --gpgkeyid "$FPR" \
   --name "laptop key" --password-fd 3 $SERVERS

# 1. Asked for a name, the user types the taken one; asked again, another.
ok "interactive backup: taken name, then another" on_tty retry \
   backup --gpgkeyid "$FPR" --password-fd 3 <<'EOF'
expect Name of this backup
send laptop key
expect The name 'laptop key' is taken; choose another name
send laptop key 2
expect stored
EOF
grep_in "the first question was asked" "Name of this backup" \
  "$T_WORK/retry.out"
grep_in "the taken name was said" "is taken; choose another name" \
  "$T_WORK/retry.out"
grep_in "all shards stored under the new name" "3 of 3 servers" \
  "$T_WORK/retry.out"
for i in 1 2 3; do
  eq "server $i: the shards of both backups" "$(shard_files $i | wc -l)" 4
done

# The new name restores the key; the old name still restores it too.
ok "restore under the second name" ks restore --stdout --name "laptop key 2" \
   --password-fd 3 $SERVERS
eq "the second name gives the key" "$(fpr_of "$T_WORK/ks.out")" "$FPR"
ok "restore under the first name" ks restore --stdout --name "laptop key" \
   --password-fd 3 $SERVERS
eq "the first backup is untouched" "$(fpr_of "$T_WORK/ks.out")" "$FPR"

# 2. Asked for another name, the user gives none: a clear error, non-zero,
#    and nothing new stored.
before=$(for i in 1 2 3; do shard_files $i; done | sort | md5sum)
fails "an empty answer to the retry fails" on_tty empty \
  backup --gpgkeyid "$FPR" --name "laptop key" --password-fd 3 <<'EOF'
expect is taken; choose another name
send
EOF
grep_in "no other name is said" "no other name given" "$T_WORK/empty.out"
after=$(for i in 1 2 3; do shard_files $i; done | sort | md5sum)
eq "nothing new stored" "$after" "$before"

# 3. --batch never asks: a taken name fails at once, saying how to go on.
fails "a taken name in --batch fails" ks backup --gpgkeyid "$FPR" \
  --name "laptop key" --password-fd 3 $SERVERS
grep_in "batch points at --name" "choose another name (--name)" \
  "$T_WORK/ks.err"

t_done
