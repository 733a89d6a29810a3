#!/bin/bash
# t-client-bigsecret.sh - the largest secret fits the fixed secure pool
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Secure memory does not grow (common/init.c): a backup and a restore
# of a secret of KS_MAX_SECRET bytes (256 KiB) must still fit the pool.

. "${srcdir:-.}/t-client-lib.sh"

servers 3
gpg_home
head -c 262144 /dev/urandom >"$T_WORK/big"
printf '%s\n' "$PW" >"$T_WORK/pw"
ok "backup of 256 KiB" "$KEYSAFE" --batch --profile test --timeout 60 \
  backup --stdin --name big --password-fd 3 $SERVERS \
  <"$T_WORK/big" 3<"$T_WORK/pw" 2>"$T_WORK/b.err"
sed 's/^/  | /' "$T_WORK/b.err"
ok "restore of 256 KiB" ks restore --stdout --name big --password-fd 3 \
   $SERVERS
ok "the same bytes" cmp -s "$T_WORK/big" "$T_WORK/ks.out"
fails "no insecure memory was used" grep -q "insecure memory" \
  "$T_WORK/ks.err" "$T_WORK/b.err"
t_done
