#!/bin/bash
# t-client-ttypw.sh - a wrong password typed at the terminal is asked again
# SPDX-License-Identifier: GPL-3.0-or-later
#
# keysafe restore on a real pseudo-terminal (t-pty), the password read
# from /dev/tty (--pinentry-mode loopback: no gpg-agent pinentry), the
# key imported into GnuPG (it is deleted before each restore).  A
# wrong password, then the right one: the key comes back, and the
# locations got exactly the requests of a restore with the right
# password at once (the shards and N are reused, nothing is searched
# again).  The requests are counted in the log of a t-hostile-server in
# record mode, one of the three locations.  Only wrong passwords: it
# fails with a clear message and non-zero after the allowed retries.

. "${srcdir:-.}/t-client-hostile-lib.sh"
PTY=./t-pty
[ -x "$PTY" ] || { echo "ERROR: no $PTY"; exit 99; }

hostile_backup ttypw

# on_tty NAME: keysafe restore on a pty following the script on stdin;
# transcript in NAME.out.
on_tty ()
{
  local name="$1" rc=0
  cat >"$T_WORK/$name.script"
  "$GPG" --batch --yes --delete-secret-and-public-key "$FPR" \
    2>>"$T_WORK/gpg.log" || { echo "ERROR: gpg cannot delete" >&2; exit 99; }
  "$PTY" --timeout 60 "$T_WORK/$name.script" "$KEYSAFE" --profile test \
    --timeout 20 --connect-timeout 10 --pinentry-mode loopback \
    restore --name ttypw $ALL \
    >"$T_WORK/$name.out" 2>"$T_WORK/$name.err" || rc=$?
  tr '\r' '\n' <"$T_WORK/$name.out" | grep -v '^ *$' | grep -v '%' \
    | sed 's/^/  | /' || true
  sed 's/^/  ! /' "$T_WORK/$name.err"
  return $rc
}
requests () { wc -l <"$HOSTILE_LOG"; }
has_key () { "$GPG" --batch --list-secret-keys "$FPR" >/dev/null 2>&1; }

# The reference: the right password at once.
r0=$(requests)
ok "restore on a terminal with the right password" on_tty right <<END
expect Password of the backup
send $PW
END
ok "the key comes back" has_key
once=$(( $(requests) - r0 ))
ok "the locations were asked" test "$once" -gt 0

# A wrong password, then the right one.
r0=$(requests)
ok "a wrong, then the right password on a terminal" on_tty again <<END
expect Password of the backup
send not the password
expect Wrong password. Password of the backup
send $PW
END
grep_in "it says it tries the same shards" \
  "trying the new password on the same shards" "$T_WORK/again.out"
ok "the key comes back" has_key
eq "the locations were asked as often as with one password" \
   "$(( $(requests) - r0 ))" "$once"
eq "the password was asked twice" \
   "$(grep -c 'Password of the backup' "$T_WORK/again.out")" 2

# Only wrong passwords: a clear message, non-zero, no key.
r0=$(requests)
fails "wrong passwords only on a terminal" on_tty wrong <<END
expect Password of the backup
send not the password
expect Wrong password. Password of the backup
send still not it
expect Wrong password. Password of the backup
send nor this
END
grep_in "it names the wrong password" "wrong password for 'ttypw'" \
  "$T_WORK/wrong.out"
eq "the password was asked three times (two retries)" \
   "$(grep -c 'Password of the backup' "$T_WORK/wrong.out")" 3
fails "no key came back" has_key
eq "the locations were asked as often as with one password" \
   "$(( $(requests) - r0 ))" "$once"

t_done
