#!/bin/bash
# t-client-namefd.sh - the item name from a descriptor (--name-fd)
# SPDX-License-Identifier: GPL-3.0-or-later
#
# The name is half of what opens a backup, so it can stay off the
# command line: a backup named through --name-fd restores with --name,
# and the other way round; a name line ends at LF (a CR before it goes).

. "${srcdir:-.}/t-client-lib.sh"

servers 3
gpg_home
ok "backup, the name from fd 4" ks backup --gpgkeyid "$FPR" \
   --name-fd 4 --password-fd 3 $SERVERS 4<<<"name from a descriptor"
ok "restore with --name" ks restore --stdout \
   --name "name from a descriptor" --password-fd 3 $SERVERS
eq "the key comes back" "$(fpr_of "$T_WORK/ks.out")" "$FPR"
ok "restore, the name from fd 4 (CR LF)" ks restore --stdout --name-fd 4 \
   --password-fd 3 $SERVERS 4< <(printf 'name from a descriptor\r\n')
eq "the key comes back again" "$(fpr_of "$T_WORK/ks.out")" "$FPR"
fails "an empty name line is refused" ks restore --stdout --name-fd 4 \
   --password-fd 3 $SERVERS 4</dev/null
t_done
