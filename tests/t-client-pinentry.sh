#!/bin/bash
# t-client-pinentry.sh - without --password-fd keysafe asks gpg-agent
# SPDX-License-Identifier: GPL-3.0-or-later
#
# The real gpg-agent of a temporary GNUPGHOME runs a pinentry of our own
# (a small script speaking the pinentry protocol, configured with
# pinentry-program), which answers a known password and logs what it was
# asked.  keysafe backup (asked twice) and restore (once)
# get their password that way.

. "${srcdir:-.}/t-client-lib.sh"

servers 3
gpg_home
PIN="$T_WORK/pinentry"
cat >"$PIN" <<PEOF
#!/bin/sh
# A pinentry that answers "$PW" and logs its commands.
echo "OK Pleased to meet you"
rep=
while read -r cmd rest; do
  echo "\$cmd \$rest" >>"$T_WORK/pinentry.log"
  case "\$cmd" in
    SETREPEAT) rep=1; echo OK ;;
    GETPIN) [ -n "\$rep" ] && echo "S PIN_REPEATED"
            echo "D $PW"; echo OK; rep= ;;
    BYE) echo OK; exit 0 ;;
    *) echo OK ;;
  esac
done
PEOF
chmod +x "$PIN"
echo "pinentry-program $PIN" >"$GNUPGHOME/gpg-agent.conf"
gpgconf --kill gpg-agent 2>/dev/null || true

# No --batch, no --password-fd: the agent asks through our pinentry.
# stdin is not a terminal and there is no /dev/tty use for the password.
ok "backup with the password from pinentry" sh -c "'$KEYSAFE' --profile test \
   backup --gpgkeyid '$FPR' --name pin $SERVERS </dev/null 2>'$T_WORK/e'"
sed 's/^/  | /' "$T_WORK/e"
grep_in "pinentry was asked" "GETPIN" "$T_WORK/pinentry.log"
# gpg-agent 2.2 asks the repetition in a second pinentry session.
grep_in "pinentry was asked to repeat on backup" \
  "SETREPEAT\|re-enter" "$T_WORK/pinentry.log"
: >"$T_WORK/pinentry.log"
ok "restore with the password from pinentry" sh -c "'$KEYSAFE' --profile test \
   restore --stdout --name pin $SERVERS </dev/null >'$T_WORK/out' 2>'$T_WORK/e'"
eq "the key comes back" "$(fpr_of "$T_WORK/out")" "$FPR"
grep_in "pinentry was asked on restore" "GETPIN" "$T_WORK/pinentry.log"
ok "restore asks once" sh -c "! grep -q 'SETREPEAT\|re-enter' '$T_WORK/pinentry.log'"

# --batch never prompts: without --password-fd it fails at once.
fails "--batch without --password-fd fails" sh -c "'$KEYSAFE' --batch \
   --profile test restore --stdout --name pin $SERVERS </dev/null 2>'$T_WORK/e'"
grep_in "says there is no password" "no password" "$T_WORK/e"

t_done
