# t-client-lib.sh - shared by the t-client-*.sh tests (sourced, bash)
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Real keysafe-server processes on 127.0.0.1 (port 0: the kernel picks a
# free port, the server writes it to --port-file), proof of work on at a
# low difficulty, a real gpg in a short temporary GNUPGHOME, and the real
# keysafe.  Every wait is bounded; everything is cleaned up on exit.
# All runs use --profile test (the default profile takes many minutes).

. "${srcdir:-.}/t-lib.sh"
KEYSAFE="$top_builddir/agent-helper/cli/keysafe"
[ -x "$KEYSAFE" ] || { echo "ERROR: no $KEYSAFE"; exit 99; }
: "${GPG:=gpg}"
[ "$GPG" != no ] && command -v "$GPG" >/dev/null \
  || { echo "SKIP: gpg missing"; exit 77; }

PW="correct horse battery staple 4711"
POW=${POW:-4}

# srv_start IDX [LISTEN]: start server IDX (store $T_WORK/storeIDX);
# sets PORT_IDX, URL_IDX, PID_IDX.  LISTEN defaults to 127.0.0.1:0 (or
# the server's old port when it is restarted).
srv_start ()
{
  local idx="$1" listen="${2:-}" port
  mkdir -p "$T_WORK/store$idx"
  if [ -z "$listen" ]; then
    eval "port=\${PORT_$idx:-0}"
    listen="127.0.0.1:$port"
  fi
  srv_launch "$T_WORK/port.$idx" "$T_WORK/server$idx.log" \
             --store "$T_WORK/store$idx" --listen "$listen" \
             --pow-difficulty "$POW"
  eval "PORT_$idx=$SRV_PORT; PID_$idx=$SRV_PID"
  eval "URL_$idx=http://127.0.0.1:$SRV_PORT"
}

srv_stop ()
{
  local pid
  eval "pid=\$PID_$1"
  kill -TERM "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
}

# servers N: start servers 1..N and set SERVERS to the --server options.
servers ()
{
  local i u
  SERVERS=""
  for i in $(seq 1 "$1"); do
    srv_start "$i"
    eval "u=\$URL_$i"
    SERVERS="$SERVERS --server $u"
  done
}

# gpg_home: a fresh GNUPGHOME with one key (ed25519 + cv25519, no
# passphrase); sets GNUPGHOME, FPR.
gpg_home ()
{
  T_GNUPGHOME=$(mktemp -d /tmp/ksXXXXXX)
  export GNUPGHOME="$T_GNUPGHOME"
  chmod 700 "$GNUPGHOME"
  "$GPG" --batch --quiet --passphrase '' \
         --quick-generate-key "Keysafe Test <test@example.org>" \
         future-default default never 2>"$T_WORK/gpg.log"
  FPR=$("$GPG" --batch --with-colons --list-secret-keys 2>/dev/null \
        | awk -F: '/^fpr:/ { print $10; exit }')
  [ -n "$FPR" ] || { echo "ERROR: no key made" >&2; exit 99; }
}

# ks ARGS...: keysafe with the test profile, batch, short timeouts;
# the password comes on fd 3 from $PW.  Output in $T_WORK/ks.out/err.
ks ()
{
  "$KEYSAFE" --batch --profile test --timeout "${KS_TIMEOUT:-20}" \
             --connect-timeout 10 "$@" 3<<EOF >"$T_WORK/ks.out" 2>"$T_WORK/ks.err"
$PW
EOF
  local rc=$?
  sed 's/^/  | /' "$T_WORK/ks.err"
  return $rc
}

# fpr_of FILE: the fingerprint of the first key in FILE.
fpr_of ()
{
  "$GPG" --batch --with-colons --show-keys "$1" 2>/dev/null \
    | awk -F: '/^fpr:/ { print $10; exit }'
}

# shard_files IDX: the shard files in server IDX's store.
shard_files ()
{
  find "$T_WORK/store$1" -type f -name '[0-9a-f]*' | grep -E '/[0-9a-f]{64}$' || true
}

# chunk_on_servers ITEM CHUNK: how many shards of chunk CHUNK of the
# backup ITEM (no key id bound) the stores of servers 1..3 hold; their
# names come from t-shardnames.
chunk_on_servers ()
{
  "$top_builddir/tests/t-shardnames" "$1" "$2" 3 "$URL_1" "$URL_2" \
    "$URL_3" >"$T_WORK/names" 2>>"$T_WORK/names.err" \
    || { echo "ERROR: t-shardnames failed" >&2; exit 99; }
  find "$T_WORK"/store[123] -type f -printf '%f\n' 2>/dev/null \
    | grep -cFx -f "$T_WORK/names" || true
}
