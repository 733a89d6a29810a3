#!/bin/sh
# fake-pinentry.sh - a pinentry for the tests: speaks the pinentry
# protocol to gpg-agent, answers every GETPIN with a known password and
# logs the commands it was sent.
# SPDX-License-Identifier: GPL-3.0-or-later
#
# gpg-agent starts the program named by pinentry-program without
# arguments and with a reduced environment, so a test writes a two-line
# wrapper that runs:  fake-pinentry.sh PASSWORD-FILE LOG-FILE
# PASSWORD-FILE holds the password on its first line; a file that holds
# the single word "cancel" makes GETPIN answer as if Cancel was pressed.
# As in GnuPG's tests/fake-pinentries, the real agent stays in the loop.

pwfile="$1"
log="${2:-/dev/null}"
pw=$(head -n 1 "$pwfile")
repeat=

echo "OK Pleased to meet you, keysafe test pinentry"
while IFS= read -r line; do
  cmd=${line%% *}
  echo "$line" >>"$log"
  case "$cmd" in
    SETREPEAT)
      repeat=1
      echo OK ;;
    GETPIN)
      if [ "$pw" = cancel ]; then
        echo "ERR 83886179 Operation cancelled <Pinentry>"
      else
        # The password is escaped as the Assuan protocol wants.
        esc=$(printf '%s' "$pw" | sed -e 's/%/%25/g')
        [ -n "$repeat" ] && echo "S PIN_REPEATED"
        echo "D $esc"
        echo OK
      fi
      repeat= ;;
    BYE)
      echo OK
      exit 0 ;;
    *)
      echo OK ;;
  esac
done
exit 0
