# t-client-hostile-lib.sh - a hostile server next to real ones (sourced, bash)
# SPDX-License-Identifier: GPL-3.0-or-later
#
# On top of t-client-lib.sh.  hostile_start MODE [OPTIONS...] starts
# tests/t-hostile-server (modes in its first comment) on 127.0.0.1 and
# sets HOSTILE_PORT, HOSTILE_URL, HOSTILE_PID and HOSTILE_LOG (one line
# per shard request: MS METHOD NAME STATUS).

. "${srcdir:-.}/t-client-lib.sh"
HOSTILE="$top_builddir/tests/t-hostile-server"
[ -x "$HOSTILE" ] || { echo "ERROR: no $HOSTILE"; exit 99; }

hostile_start ()
{
  local mode="$1" pf="$T_WORK/port.hostile"
  shift
  HOSTILE_LOG="$T_WORK/hostile.log"
  : >"$HOSTILE_LOG"
  rm -f "$pf"
  "$HOSTILE" --mode "$mode" --port-file "$pf" --log "$HOSTILE_LOG" "$@" \
    2>>"$T_WORK/hostile.err" &
  HOSTILE_PID=$!
  T_PIDS="$T_PIDS $HOSTILE_PID"
  t_wait_for "$HOSTILE_PID" test -s "$pf" \
    || { echo "ERROR: t-hostile-server did not start" >&2;
         cat "$T_WORK/hostile.err" >&2; exit 99; }
  HOSTILE_PORT=$(cat "$pf")
  HOSTILE_URL="http://127.0.0.1:$HOSTILE_PORT"
}

hostile_stop ()
{
  kill -TERM "$HOSTILE_PID" 2>/dev/null || true
  wait "$HOSTILE_PID" 2>/dev/null || true
}

# hostile_backup NAME: servers 1 and 2 and a hostile server in record
# mode, a fresh GNUPGHOME, and a backup NAME of its key on the three;
# sets ALL to the --server options (the hostile one last).
hostile_backup ()
{
  srv_start 1
  srv_start 2
  hostile_start record
  ALL="--server $URL_1 --server $URL_2 --server $HOSTILE_URL"
  gpg_home
  ok "backup on two servers and the hostile one" ks backup \
     --gpgkeyid "$FPR" --name "$1" --password-fd 3 $ALL
}
