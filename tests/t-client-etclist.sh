#!/bin/bash
# t-client-etclist.sh - a server list under SYSCONFDIR/keysafe overrides
# the shipped one (and KEYSAFE_SERVERS_FILE overrides both)
# SPDX-License-Identifier: GPL-3.0-or-later
#
# The compiled-in SYSCONFDIR is the machine's own folder, which a test
# must not touch: the list is written to a tmpfs mounted over it in a
# mount namespace of this test's own, so nothing outside sees it.
. "${srcdir:-.}/t-lib.sh"
KEYSAFE="$top_builddir/agent-helper/cli/keysafe"

[ "$(id -u)" = 0 ] || { echo "SKIP: needs root for a mount namespace"; exit 77; }
command -v unshare >/dev/null || { echo "SKIP: no unshare"; exit 77; }
unshare -m true 2>/dev/null || { echo "SKIP: no mount namespace here"; exit 77; }

vars=$(unset MAKEFLAGS MFLAGS MAKELEVEL
       make -s -C "$top_builddir/agent-helper/client" \
            --eval 'ks-print-dirs: ; @echo $(sysconfdir) $(pkgdatadir)' \
            ks-print-dirs) \
  || { echo "ERROR: cannot read the build's directories" >&2; exit 99; }
read -r ETC SHARE <<<"$vars"
[ -n "$ETC" ] || { echo "ERROR: no sysconfdir in '$vars'" >&2; exit 99; }
# A mount needs the folder; creating it would change the machine.
[ -d "$ETC" ] || { echo "SKIP: $ETC does not exist"; exit 77; }

cat >"$T_WORK/etc.list" <<'LIST'
# the system's list
recommended http://etc-one.example.onion id=etc-one Operator from /etc
alternate http://etc-two.example.onion
LIST
cat >"$T_WORK/env.list" <<'LIST'
recommended http://env-one.example.onion
LIST

# Runs keysafe servers with the list at $ETC/keysafe/servers.list (when
# $1 is "with") in a namespace of its own; the rest of the machine sees
# nothing of it.
run_servers () {
  unshare -m bash -c '
    set -e
    mount -t tmpfs tmpfs "$2"
    if [ "$1" = with ]; then
      mkdir "$2/keysafe"; cp "$3" "$2/keysafe/servers.list"
    fi
    shift 3
    exec "$@"' _ "$1" "$ETC" "$T_WORK/etc.list" "${@:2}"
}

out=$(run_servers with env -u KEYSAFE_SERVERS_FILE "$KEYSAFE" servers 2>&1)
rc=$?
eq "keysafe servers with a list under $ETC/keysafe" "$rc" 0
case $out in
  *etc-one.example.onion*etc-two.example.onion*) ok "the /etc list is used" true ;;
  *) ok "the /etc list is used (got: $out)" false ;;
esac
case $out in
  *placeholder*) ok "the shipped list is not used beside it" false ;;
  *) ok "the shipped list is not used beside it" true ;;
esac
out=$(run_servers with env KEYSAFE_SERVERS_FILE="$T_WORK/env.list" \
      "$KEYSAFE" servers 2>&1)
case $out in
  *env-one.example.onion*) ok "KEYSAFE_SERVERS_FILE still wins over /etc" true ;;
  *) ok "KEYSAFE_SERVERS_FILE still wins over /etc (got: $out)" false ;;
esac
# Without the /etc list the shipped one is asked for (not installed in
# the build tree: its path in the message is enough).
out=$(run_servers without env -u KEYSAFE_SERVERS_FILE "$KEYSAFE" servers 2>&1 || true)
case $out in
  *"$SHARE/servers.list"*|*placeholder*) ok "without it, the shipped list" true ;;
  *) ok "without it, the shipped list (got: $out)" false ;;
esac
t_done
