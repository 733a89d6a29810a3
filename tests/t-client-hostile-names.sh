#!/bin/bash
# t-client-hostile-names.sh - a hostile server learns no other server's names
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Two real keysafe-servers and t-hostile-server in record mode (an
# honest store that logs every name it is asked) share a backup.  Then
# a restore runs with one honest server down (fewer than k shards from
# the first round, so the client searches further) and another with a
# wrong password.  Shard names are bound to the location that stores
# them (protocol.md sections 5 and 9): the hostile server must never
# have been asked for a name that the honest servers store.

. "${srcdir:-.}/t-client-hostile-lib.sh"

hostile_backup leak

# The names the honest servers hold.
{ shard_files 1; shard_files 2; } | sed 's|.*/||' | sort -u >"$T_WORK/honest"
n=$(wc -l <"$T_WORK/honest")
ok "the honest servers hold shards ($n)" test "$n" -ge 2

# no_leak WHAT: no name the hostile server was asked is an honest one.
no_leak ()
{
  awk '$2 == "GET" { print $3 }' "$HOSTILE_LOG" | sort -u >"$T_WORK/asked"
  local both
  both=$(comm -12 "$T_WORK/honest" "$T_WORK/asked" | wc -l)
  eq "$1: the hostile server was asked for no honest name" "$both" 0
}

srv_stop 1
: >"$HOSTILE_LOG"
ok "restore with server 1 down" ks restore --stdout --name leak \
   --password-fd 3 $ALL
eq "the key comes back" "$(fpr_of "$T_WORK/ks.out")" "$FPR"
n=$(grep -c ' GET ' "$HOSTILE_LOG" || true)
ok "the hostile server was asked ($n requests)" test "$n" -ge 1
no_leak "one server down"

srv_start 1
: >"$HOSTILE_LOG"
PW="not the password" fails "a wrong password fails" ks restore --stdout \
   --name leak --password-fd 3 $ALL
no_leak "wrong password"

# The same check must be able to fail: a name of server 2 sent to the
# hostile server by hand is seen.
name=$(head -n 1 "$T_WORK/honest")
curl -s -o /dev/null "$HOSTILE_URL/v1/shard/$name"
awk '$2 == "GET" { print $3 }' "$HOSTILE_LOG" | sort -u >"$T_WORK/asked"
both=$(comm -12 "$T_WORK/honest" "$T_WORK/asked" | wc -l)
eq "the check sees a leaked name" "$both" 1

t_done
