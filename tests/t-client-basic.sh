#!/bin/bash
# t-client-basic.sh - keysafe backup/restore of a real GnuPG key
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Three real servers on loopback with proof of work on.  A key is made,
# a message encrypted to it, the key backed up and deleted, restored, and
# the message decrypted.  Then: --stdin/--stdout pipelines with gpg,
# check, a wrong password, a taken name, 3-of-5 shares, a secret of ten
# objects, a password that is too weak, the server list.

. "${srcdir:-.}/t-client-lib.sh"

servers 3
gpg_home

# Proof of work is really on: a bare GET is refused with a challenge.
code=$(curl -s -o /dev/null -D "$T_WORK/hdr" -w '%{http_code}' \
       "$URL_1/v1/shard/$(printf '%064d' 0)")
eq "server asks for proof of work" "$code" 403
grep_in "challenge header" "Keysafe-Challenge" "$T_WORK/hdr"

echo "attack at dawn" | "$GPG" --batch -q --trust-model always -e \
  -r "$FPR" -a >"$T_WORK/msg.asc"

# 1. Backup of the key by id, restore by GPGME import.
ok "backup --gpgkeyid" ks backup --gpgkeyid "$FPR" --name "my key" \
   --password-fd 3 $SERVERS
grep_in "backup tells it is stored" "3 of 3 servers" "$T_WORK/ks.err"
grep_in "strength and cost are told" "password strength: about 2^" \
  "$T_WORK/ks.err"
grep_in "the backup's time is told before it starts" \
  "on this machine this backup takes about" "$T_WORK/ks.err"
for i in 1 2 3; do
  eq "server $i holds the shards of 2 objects" "$(shard_files $i | wc -l)" 2
done
# Shards are all the same size and carry no visible structure.
sizes=$(for i in 1 2 3; do shard_files $i; done | xargs stat -c %s | sort -u)
eq "every shard has the object size of the test profile" "$sizes" 512

ok "check finds all shards" ks check --name "my key" --password-fd 3 $SERVERS
grep_in "check says all stored" "all 3 shards" "$T_WORK/ks.err"

"$GPG" --batch --yes --delete-secret-keys "$FPR" 2>/dev/null
fails "the message cannot be decrypted without the key" \
  "$GPG" --batch -q -d "$T_WORK/msg.asc"
ok "restore imports the key" ks restore --name "my key" --password-fd 3 \
   $SERVERS
grep_in "restore prints the fingerprint" "imported secret key $FPR" \
  "$T_WORK/ks.err"
grep_in "the restore's time is told before it starts" \
  "on this machine a restore with profile 'test' takes about" "$T_WORK/ks.err"
got=$("$GPG" --batch --with-colons --list-secret-keys \
      | awk -F: '/^fpr:/ { print $10; exit }')
eq "same fingerprint after restore" "$got" "$FPR"
ok "the message made before decrypts" \
   sh -c "'$GPG' --batch -q -d '$T_WORK/msg.asc' >'$T_WORK/plain'"
eq "plaintext" "$(cat "$T_WORK/plain")" "attack at dawn"

# 2. Pipelines: gpg --export-secret-keys | keysafe backup --stdin, and
#    keysafe restore --stdout | gpg --import.
"$GPG" --batch --export-secret-keys "$FPR" >"$T_WORK/exported"
ok "backup --stdin" sh -c "'$KEYSAFE' --batch --profile test backup --stdin \
   --name piped --password-fd 3 $SERVERS 3<<EOF <'$T_WORK/exported' 2>'$T_WORK/e'
$PW
EOF"
ok "restore --stdout | cmp" sh -c "'$KEYSAFE' --batch --profile test restore \
   --stdout --name piped --password-fd 3 $SERVERS 3<<EOF 2>'$T_WORK/e' \
   | cmp - '$T_WORK/exported'
$PW
EOF"
"$GPG" --batch --yes --delete-secret-and-public-keys "$FPR" 2>/dev/null
ok "restore --stdout | gpg --import" sh -c "'$KEYSAFE' --batch --profile test \
   restore --stdout --name piped --password-fd 3 $SERVERS 3<<EOF 2>'$T_WORK/e' \
   | '$GPG' --batch -q --import
$PW
EOF"
ok "the piped-back key decrypts" \
   sh -c "'$GPG' --batch -q -d '$T_WORK/msg.asc' >'$T_WORK/plain2'"
eq "plaintext (pipeline)" "$(cat "$T_WORK/plain2")" "attack at dawn"

# 3. A wrong password: a clear error, after all profiles of the run.
PW_SAVE=$PW
PW="wrong horse battery staple 1234"
fails "restore with a wrong password fails" ks restore --stdout \
  --name "my key" --password-fd 3 $SERVERS
grep_in "wrong password is said" "wrong password for 'my key'" \
  "$T_WORK/ks.err"
grep_in "after the profiles tried" "profiles tried: test" "$T_WORK/ks.err"
eq "nothing on stdout" "$(wc -c <"$T_WORK/ks.out")" 0
PW=$PW_SAVE

# An unknown name: "not found", non-zero.
fails "restore of an unknown name fails" ks restore --stdout \
  --name "no such backup" --password-fd 3 $SERVERS
grep_in "not found is said" "no backup named 'no such backup' found" \
  "$T_WORK/ks.err"

# 4. A taken name: the same name again fails in batch mode, saying so.
fails "backup under a taken name fails in batch mode" \
  ks backup --gpgkeyid "$FPR" --name "my key" --password-fd 3 $SERVERS
grep_in "taken name is said" "is taken" "$T_WORK/ks.err"
# ... and the first backup is untouched.
ok "the first backup still restores" ks restore --stdout --name "my key" \
   --password-fd 3 $SERVERS

# 5. 3-of-5 shares.
for i in 4 5; do srv_start $i; done
S5="$SERVERS --server $URL_4 --server $URL_5"
ok "backup 3-of-5" ks backup --gpgkeyid "$FPR" --name five --shares 5 \
   --threshold 3 --password-fd 3 $S5
grep_in "5 servers stored" "5 of 5 servers hold their shards; any 3" \
  "$T_WORK/ks.err"
srv_stop 1
srv_stop 4
ok "3-of-5 restores with two servers down" ks restore --stdout --name five \
   --password-fd 3 $S5
eq "3-of-5 gives the key back" "$(fpr_of "$T_WORK/ks.out")" "$FPR"
srv_stop 2
fails "3-of-5 with three servers down fails" ks restore --stdout \
  --name five --password-fd 3 $S5
grep_in "unreachable servers are named" "unreachable: $URL_1" "$T_WORK/ks.err"
fails "3-of-5 with three servers down and --threshold 3" ks restore --stdout \
  --name five --threshold 3 --password-fd 3 $S5
grep_in "too few shards is said" "only 2 shards of 'five' found, at least 3" \
  "$T_WORK/ks.err"
srv_start 1
srv_start 2
srv_start 4

# 6. A secret of ten objects (test profile: 484 bytes per object).
head -c 4700 /dev/urandom >"$T_WORK/big"
ok "backup of ten objects" sh -c "'$KEYSAFE' --batch --profile test backup \
   --stdin --name big --password-fd 3 $SERVERS 3<<EOF <'$T_WORK/big' \
   2>'$T_WORK/e'
$PW
EOF"
grep_in "ten objects" "3 shards of 10 objects" "$T_WORK/e"
ok "restore of ten objects is byte-exact" sh -c "'$KEYSAFE' --batch \
   --profile test restore --stdout --name big --password-fd 3 $SERVERS \
   3<<EOF 2>'$T_WORK/e' | cmp - '$T_WORK/big'
$PW
EOF"

# 7. A very weak password is refused unless forced.
PW=password
echo data >"$T_WORK/small"
fails "a weak password is refused" ks backup --stdin --name weak \
  --password-fd 3 $SERVERS <"$T_WORK/small"
grep_in "too weak is said" "too weak" "$T_WORK/ks.err"
ok "--force accepts it" sh -c "'$KEYSAFE' --batch --profile test backup \
   --stdin --force --name weak --password-fd 3 $SERVERS 3<<EOF \
   <'$T_WORK/small' 2>'$T_WORK/e'
$PW
EOF"
PW=$PW_SAVE

# 8. --bind-keyid: the names depend on the key id too.
ok "backup bound to the key id" ks backup --gpgkeyid "$FPR" --bind-keyid \
   --name bound --password-fd 3 $SERVERS
fails "restore without the key id finds nothing" ks restore --stdout \
  --name bound --password-fd 3 $SERVERS
ok "restore with the key id" ks restore --stdout --name bound \
   --gpgkeyid "${FPR:24}" --password-fd 3 $SERVERS

# 9. The server list: shipped placeholders are shown and never used.
ok "servers lists the shipped list" sh -c "KEYSAFE_SERVERS_FILE='$top_srcdir/doc/servers.list' \
   '$KEYSAFE' servers >'$T_WORK/list'"
grep_in "placeholders are marked" "placeholder, never contacted" \
  "$T_WORK/list"
grep_in "categories are shown" "^alternate" "$T_WORK/list"
fails "backup with only placeholders fails" sh -c "KEYSAFE_SERVERS_FILE='$top_srcdir/doc/servers.list' \
   '$KEYSAFE' --batch --profile test backup --stdin --name x --password-fd 0 \
   </dev/null 2>'$T_WORK/e'"
grep_in "no usable server is said" "no usable server" "$T_WORK/e"

# 10. backup without --gpgkeyid: the only secret key is taken; with two
#     keys --batch asks for --gpgkeyid.
ok "backup of the only key without --gpgkeyid" ks backup --name onlykey \
   --password-fd 3 $SERVERS
grep_in "the chosen key is told" "backing up $FPR" "$T_WORK/ks.err"
"$GPG" --batch --quiet --passphrase '' --quick-generate-key \
  "Second <second@example.org>" future-default default never 2>/dev/null
fails "two keys in batch mode need --gpgkeyid" ks backup --name twokeys \
  --password-fd 3 $SERVERS
grep_in "asks for --gpgkeyid" "choose one with --gpgkeyid" "$T_WORK/ks.err"

# 11. check without a password tells presence only.
ok "check by name alone" sh -c "'$KEYSAFE' --batch --profile test check \
   --name onlykey $SERVERS 2>'$T_WORK/e'"
grep_in "presence per server" "server 2 (.*): shard present" "$T_WORK/e"
fails "check of an unknown name fails" sh -c "'$KEYSAFE' --batch \
   --profile test check --name nothing-here $SERVERS 2>'$T_WORK/e'"

# 12. Usage errors.
fails "no command" "$KEYSAFE" --batch
fails "unknown command" "$KEYSAFE" frobnicate

t_done
