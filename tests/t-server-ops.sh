#!/bin/bash
# t-server-ops.sh - the operator tools: --check-store, --count-store,
# --backup-store / --restore-store round trip with a real gpg key in a
# temporary GNUPGHOME, keeping the last 7 backups, restore never
# overwriting
# SPDX-License-Identifier: GPL-3.0-or-later
. "${srcdir:-.}/t-server-lib.sh"

: "${GPG:=gpg}"
S="$T_WORK/store"
srv_start "$S" --pow-difficulty 0
for i in $(seq 1 30); do
  n=$(randname)
  head -c 512 /dev/urandom > "$T_WORK/body"
  eq "fill $i" "$(put "$n" "$T_WORK/body")" 201
done
srv_stop

# --check-store and --count-store.
out=$("$SERVER" --check-store "$S")
ok "check: clean store exits 0" test $? = 0
ok "check: counts shards" sh -c "echo '$out' | grep -q 'shards: 30'"
eq "count" "$("$SERVER" --count-store "$S")" 30
cp -a "$S" "$T_WORK/damaged"
d=$(find "$T_WORK/damaged" -mindepth 2 -maxdepth 2 -type d | head -1)
echo junk > "$d/not-a-shard"
echo tmp > "$d/tmp.0123456789"
mkdir "$T_WORK/damaged/zz"
: > "$d/$(basename "$(dirname "$d")")$(basename "$d")$(randname | cut -c5-)"
rc=0
out=$("$SERVER" --check-store "$T_WORK/damaged" 2>"$T_WORK/check.err") || rc=$?
eq "check: damage exits non-zero" "$rc" 1
ok "check: reports the wrong name" grep -q "not-a-shard" "$T_WORK/check.err"
ok "check: reports the temp file" sh -c "echo '$out' | grep -q 'temp files: 1'"
ok "check: reports misplaced" sh -c "echo '$out' | grep -q 'out of place: 2'"
ok "check: reports the empty shard" sh -c "echo '$out' | grep -q 'empty shards: 1'"

# Backup and restore need gpg.
if ! command -v "$GPG" >/dev/null; then
  echo "SKIP: no gpg for the backup round trip"
  t_done
  exit $?
fi
T_GNUPGHOME=$(mktemp -d /tmp/ksgXXXXXX)
export GNUPGHOME="$T_GNUPGHOME"
# T_GNUPGHOME is removed by t_cleanup after gpgconf --kill.
"$GPG" --batch --quiet --pinentry-mode loopback --passphrase '' \
       --quick-gen-key 'keysafe operator <op@example.invalid>' ed25519 cert,sign never 2>/dev/null
fpr=$("$GPG" --batch --with-colons --list-keys op@example.invalid 2>/dev/null | awk -F: '/^fpr/ {print $10; exit}')
"$GPG" --batch --quiet --pinentry-mode loopback --passphrase '' \
       --quick-add-key "$fpr" cv25519 encr never 2>/dev/null
ok "operator key made" test -n "$fpr"

B="$T_WORK/backups/store.gpg"
mkdir "$T_WORK/backups"
out=$("$SERVER" --backup-store "$S" --to "$B" --recipient "$fpr")
ok "backup written" test -s "$B"
ok "backup counted 30" sh -c "echo '$out' | grep -q '30 shards'"
ok "backup is OpenPGP, not a plain archive" sh -c "! grep -q KSSTORE1 '$B'"
ok "backup decrypts" sh -c "'$GPG' --batch --quiet --decrypt '$B' 2>/dev/null | head -c 8 | grep -q KSSTORE1"

# Restore into an empty store: byte-identical.
out=$("$SERVER" --restore-store "$T_WORK/restored" --from "$B" --signer "$fpr")
ok "restore reports 30 added" sh -c "echo '$out' | grep -q '30 shards added, 0 already'"
ok "restored tree identical" diff -r "$S" "$T_WORK/restored"
eq "restored store clean" "$("$SERVER" --count-store "$T_WORK/restored")" 30

# Restore never overwrites: change one shard, restore again.
f=$(find "$T_WORK/restored" -type f | head -1)
echo "operator's own bytes" > "$f"
out=$("$SERVER" --restore-store "$T_WORK/restored" --from "$B" --signer "$fpr")
ok "second restore adds nothing" sh -c "echo '$out' | grep -q '0 shards added, 30 already'"
eq "existing shard not overwritten" "$(cat "$f")" "operator's own bytes"

# A damaged or foreign file restores nothing and fails.
head -c 100 "$B" > "$T_WORK/cut.gpg"
rc=0
"$SERVER" --restore-store "$T_WORK/r2" --from "$T_WORK/cut.gpg" --signer "$fpr" >/dev/null 2>&1 || rc=$?
ok "truncated backup refused" test "$rc" != 0
echo hello | "$GPG" --batch --quiet --encrypt --recipient "$fpr" --trust-model always > "$T_WORK/foreign.gpg"
rc=0
"$SERVER" --restore-store "$T_WORK/r3" --from "$T_WORK/foreign.gpg" --signer "$fpr" >/dev/null 2>&1 || rc=$?
ok "foreign archive refused" test "$rc" != 0

# The archive is checked whole before anything is stored: a complete
# archive that is not signed, one signed by another key, and a signed
# one cut short (no end record, or cut inside a shard) each restore
# nothing at all.
"$GPG" --batch --quiet --decrypt "$B" > "$T_WORK/plain" 2>/dev/null
ok "backup is signed" sh -c "'$GPG' --batch --decrypt '$B' 2>&1 >/dev/null | grep -q 'Good signature'"
"$GPG" --batch --quiet --pinentry-mode loopback --passphrase '' \
       --quick-gen-key 'someone else <x@example.invalid>' ed25519 sign never 2>/dev/null
sz=$(stat -c %s "$T_WORK/plain")
head -c $((sz - 9)) "$T_WORK/plain" > "$T_WORK/noend"
head -c $((sz / 2)) "$T_WORK/plain" > "$T_WORK/half"
enc () { "$GPG" --batch --quiet --trust-model always --recipient "$fpr" "$@"; }
enc --encrypt < "$T_WORK/plain" > "$T_WORK/unsigned.gpg"
enc --sign --local-user x@example.invalid --encrypt < "$T_WORK/plain" > "$T_WORK/other.gpg"
enc --sign --local-user "$fpr" --encrypt < "$T_WORK/noend" > "$T_WORK/noend.gpg"
enc --sign --local-user "$fpr" --encrypt < "$T_WORK/half" > "$T_WORK/half.gpg"
enc --sign --local-user "$fpr" --encrypt < "$T_WORK/plain" > "$T_WORK/good.gpg"
for f in unsigned other noend half; do
  rc=0
  out=$("$SERVER" --restore-store "$T_WORK/r-$f" --from "$T_WORK/$f.gpg" --signer "$fpr" 2>/dev/null) || rc=$?
  ok "$f archive refused" test "$rc" != 0
  eq "$f archive: nothing stored" "$(find "$T_WORK/r-$f" -type f | wc -l)" 0
done
out=$("$SERVER" --restore-store "$T_WORK/r-good" --from "$T_WORK/good.gpg" --signer "$fpr")
ok "the same archive, signed and whole, restores" sh -c "echo '$out' | grep -q '30 shards added'"

# A shard record of a size no PUT could have (empty, one byte off an
# object, beyond --max-shard-bytes) is refused with a message that
# names it, and nothing of the archive is stored, not even the good
# shards before it.
be32 () { printf "\\x%02x\\x%02x\\x%02x\\x%02x" $(($1 >> 24 & 255)) \
            $(($1 >> 16 & 255)) $(($1 >> 8 & 255)) $(($1 & 255)); }
# shard_rec LEN [BODYLEN]: one record with a random name and BODYLEN
# (default LEN) random bytes.
shard_rec () {
  printf S; head -c 32 /dev/urandom; printf "$(be32 "$1")"
  head -c "${2:-$1}" /dev/urandom
}
for bad in 0 511 513 16777217; do
  body=$bad; [ "$bad" -gt 1024 ] && body=0
  { printf KSSTORE1; shard_rec 512; shard_rec 512
    shard_rec "$bad" "$body"; printf 'E'; printf '\x00\x00\x00\x00'
    printf "$(be32 3)"; } > "$T_WORK/bad-$bad"
  enc --sign --local-user "$fpr" --encrypt < "$T_WORK/bad-$bad" > "$T_WORK/bad-$bad.gpg"
  rc=0
  "$SERVER" --restore-store "$T_WORK/r-bad-$bad" --from "$T_WORK/bad-$bad.gpg" \
            --signer "$fpr" >/dev/null 2>"$T_WORK/bad-$bad.err" || rc=$?
  ok "shard of $bad bytes refused" test "$rc" != 0
  grep_in "shard of $bad bytes: the message names it" \
          "shard 3 of the archive has $bad bytes" "$T_WORK/bad-$bad.err"
  eq "shard of $bad bytes: nothing stored" \
     "$(find "$T_WORK/r-bad-$bad" -type f | wc -l)" 0
done
# The same archive with the third shard of the right size restores.
{ printf KSSTORE1; shard_rec 512; shard_rec 512; shard_rec 512
  printf 'E'; printf '\x00\x00\x00\x00'; printf "$(be32 3)"; } > "$T_WORK/ok3"
enc --sign --local-user "$fpr" --encrypt < "$T_WORK/ok3" > "$T_WORK/ok3.gpg"
out=$("$SERVER" --restore-store "$T_WORK/r-ok3" --from "$T_WORK/ok3.gpg" --signer "$fpr")
ok "three shards of an object's size restore" sh -c "echo '$out' | grep -q '3 shards added'"

# Keep the last 7: nine backups leave store.gpg and store.gpg.1 .. .6.
for i in $(seq 2 9); do
  "$SERVER" --backup-store "$S" --to "$B" --recipient "$fpr" >/dev/null
done
eq "seven backups kept" "$(ls "$T_WORK/backups" | sort | tr '\n' ' ')" \
   "store.gpg store.gpg.1 store.gpg.2 store.gpg.3 store.gpg.4 store.gpg.5 store.gpg.6 "
out=$("$SERVER" --restore-store "$T_WORK/r4" --from "$B.6" --signer "$fpr")
ok "the oldest kept backup restores" sh -c "echo '$out' | grep -q '30 shards added'"

# An unknown recipient fails and leaves the backups alone.
rc=0
"$SERVER" --backup-store "$S" --to "$B" --recipient 0000000000000000DEADBEEF >/dev/null 2>&1 || rc=$?
ok "unknown recipient fails" test "$rc" != 0
ok "no temp backup left" test ! -e "$B.tmp"

t_done
