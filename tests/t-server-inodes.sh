#!/bin/bash
# t-server-inodes.sh - the store keeps its inode reserve on a small
# filesystem: PUTs get 507 while the filesystem still has the reserve
# SPDX-License-Identifier: GPL-3.0-or-later
#
# A tmpfs with a tiny inode table (nr_inodes) fills its inodes long
# before its blocks; mounting one needs root, so others skip (77).
. "${srcdir:-.}/t-server-lib.sh"

[ "$(id -u)" = 0 ] || { echo "SKIP: mounting a tmpfs needs root"; exit 77; }
SMALL="$T_WORK/small"
mkdir "$SMALL"
# KS_STORE_RESERVE_FILES (server/store.h) plus room for a few dozen shards.
RESERVE=1024
mount -t tmpfs -o size=64m,nr_inodes=$((RESERVE + 120)) tmpfs "$SMALL" \
  || { echo "SKIP: no tmpfs with nr_inodes here"; exit 77; }

# The free inodes of the filesystem (t_cleanup unmounts it).
free_inodes () { stat -f -c %d "$SMALL"; }

srv_start "$SMALL/store" --pow-difficulty 0 --reserve-bytes 0
head -c 512 /dev/urandom > "$T_WORK/b"
stored=0 got507=0
for i in $(seq 1 200); do
  c=$(put "$(randname)" "$T_WORK/b")
  case "$c" in
    201) stored=$((stored + 1)) ;;
    507) got507=1; break ;;
    *) echo "unexpected status $c" >&2; break ;;
  esac
done
left=$(free_inodes)
echo "# $stored shards stored, $left inodes free at the first 507"
eq "the inode reserve gives 507" "$got507" 1
ok "shards were stored before it ($stored)" test "$stored" -ge 10
ok "the reserve is kept ($left inodes free, reserve $RESERVE)" \
   test "$left" -ge "$RESERVE"
ok "and refused no sooner than needed" test "$left" -lt $((RESERVE + 3 + 3))
eq "still 507" "$(put "$(randname)" "$T_WORK/b")" 507
eq "no temp file left" "$(find "$SMALL/store" -name 'tmp.*')" ""
ok "server alive" srv_alive
srv_stop

t_done
