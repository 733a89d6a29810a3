#!/bin/bash
# t-client-hostile-timing.sh - no request after the puzzle starts
# SPDX-License-Identifier: GPL-3.0-or-later
#
# A server that sees when requests stop learns how long the puzzle took,
# and so R.  Two real keysafe-servers and
# t-hostile-server in record mode (it logs the wall-clock time of every
# request) hold a backup of two objects.  keysafe's stderr is stamped
# line by line with the wall clock; the line "solving the puzzle" is
# printed just before K is derived; the hostile server logs in ms, the
# stamps are in microseconds.  Every request the hostile server
# got, chunk 1 included, must come before that stamp.

. "${srcdir:-.}/t-client-hostile-lib.sh"

hostile_backup timing
grep_in "the backup has two objects" "of 2 objects" "$T_WORK/ks.err"

# stamped_restore: keysafe restore, stderr lines prefixed with the time
# (microseconds, bash's EPOCHREALTIME: no fork, so the stamp follows the
# line closely) they were read, into $T_WORK/stamped.
stamped_restore ()
{
  { "$KEYSAFE" --batch --profile test --timeout 20 --connect-timeout 10 \
      restore --stdout --name timing --password-fd 3 $ALL \
      3<<<"$PW" 2>&1 >"$T_WORK/ks.out"; } \
    | while IFS= read -r line; do
        printf '%s %s\n' "${EPOCHREALTIME/./}" "$line"
      done >"$T_WORK/stamped"
  sed 's/^/  | /' "$T_WORK/stamped"
}

: >"$HOSTILE_LOG"
stamped_restore
eq "the key comes back" "$(fpr_of "$T_WORK/ks.out")" "$FPR"
mark=$(awk '/solving the puzzle/ { print $1; exit }' "$T_WORK/stamped")
ok "the puzzle start is marked" test -n "$mark"
n=$(grep -c ' GET ' "$HOSTILE_LOG" || true)
ok "the hostile server was asked for chunks 0 and 1 ($n requests)" \
   test "$n" -ge 2
last=$(cut -d' ' -f1 "$HOSTILE_LOG" | sort -n | tail -n 1)000
ok "no request after the puzzle started (last $last, puzzle ${mark:-?})" \
   test "$last" -le "${mark:-0}"

t_done
