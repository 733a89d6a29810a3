#!/bin/bash
# demo.sh - keysafe end to end, on this machine, in about a second
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Run it after the build:  ./demo.sh
# (README: sudo .ci/install-deps && autoreconf -fi && ./configure &&
#  make -j2 && ./demo.sh).  It installs and builds nothing.  It starts
# three keysafe-server processes on 127.0.0.1 (proof of work on, low
# difficulty) with their stores in a temporary folder, makes a throwaway
# GnuPG key in a temporary home, encrypts a message to it, backs the key
# up with the fast `test` profile, deletes the secret key, restores it
# from the servers and decrypts the message.  Everything it made is
# removed at the end; it exits non-zero if any step fails.
#
# BUILDDIR=DIR ./demo.sh uses the programs of an out-of-tree build.

set -eu
set -o pipefail

here=$(cd "$(dirname "$0")" && pwd)
BUILDDIR=${BUILDDIR:-$here}
SERVER="$BUILDDIR/server/keysafe-server"
KEYSAFE="$BUILDDIR/agent-helper/cli/keysafe"
GPG=${GPG:-gpg}
POW=${POW:-8}

step=0
if [ -t 1 ]; then B=$(printf '\033[1m'); N=$(printf '\033[0m'); else B=; N=; fi
say () { step=$((step + 1)); printf '\n%s[%d] %s%s\n' "$B" "$step" "$*" "$N"; }
die () { printf '\ndemo FAILED: %s\n' "$*" >&2; exit 1; }

for p in "$SERVER" "$KEYSAFE"; do
  [ -x "$p" ] || die "$p is missing: build first (./configure && make)"
done
command -v "$GPG" >/dev/null || die "gpg is missing (Debian package gnupg)"

WORK=$(mktemp -d /tmp/ksdemoXXXXXX)
export GNUPGHOME="$WORK/g"
PIDS=""
cleanup ()
{
  local p
  for p in $PIDS; do kill -TERM "$p" 2>/dev/null || true; done
  for p in $PIDS; do wait "$p" 2>/dev/null || true; done
  gpgconf --kill all 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

say "Starting three keysafe servers on 127.0.0.1 (proof of work difficulty $POW)"
SERVERS=""
for i in 1 2 3; do
  mkdir -p "$WORK/store$i"
  "$SERVER" --foreground --store "$WORK/store$i" --listen 127.0.0.1:0 \
            --port-file "$WORK/port$i" --pow-difficulty "$POW" \
            2>"$WORK/server$i.log" &
  pid=$!
  PIDS="$PIDS $pid"
  for t in $(seq 1 100); do
    [ -s "$WORK/port$i" ] && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
  done
  [ -s "$WORK/port$i" ] || { cat "$WORK/server$i.log" >&2;
                             die "server $i did not start"; }
  url="http://127.0.0.1:$(cat "$WORK/port$i")"
  SERVERS="$SERVERS --server $url"
  echo "    server $i: $url   store: $WORK/store$i"
done

say "Making a throwaway GnuPG key in $GNUPGHOME"
mkdir -m 700 "$GNUPGHOME"
"$GPG" --batch --quiet --passphrase '' \
       --quick-generate-key "Demo User <demo@example.org>" \
       future-default default never 2>"$WORK/gpg.log" \
  || { cat "$WORK/gpg.log" >&2; die "gpg could not make a key"; }
FPR=$("$GPG" --batch --with-colons --list-secret-keys 2>/dev/null \
      | awk -F: '/^fpr:/ { print $10; exit }')
[ -n "$FPR" ] || die "no key was made"
echo "    key: $FPR"

say "Encrypting a message to it"
MESSAGE="keysafe demo: this message survived the loss of its key"
echo "$MESSAGE" | "$GPG" --batch --quiet --trust-model always -e -r "$FPR" \
                         -a >"$WORK/message.asc"
echo "    $(wc -c <"$WORK/message.asc") bytes of ciphertext in message.asc"

PASSWORD="demo horse battery staple $$"
NAME="demo key $$"
say "Backing the key up: item name '$NAME', profile 'test'"
"$KEYSAFE" --batch --profile test backup --gpgkeyid "$FPR" --name "$NAME" \
           --password-fd 3 $SERVERS 3<<<"$PASSWORD" \
  || die "backup failed"
echo "    (the 'test' profile has tiny costs so that this takes a second;"
echo "     a real backup uses the default profile: about two minutes on a"
echo "     2-core machine, and a restore about a quarter of an hour)"
for i in 1 2 3; do
  n=$(find "$WORK/store$i" -type f | wc -l)
  echo "    server $i now stores $n shard files (random-looking, fixed size)"
done

say "Deleting the secret key"
"$GPG" --batch --yes --delete-secret-keys "$FPR" 2>/dev/null \
  || die "could not delete the key"
if "$GPG" --batch --quiet -d "$WORK/message.asc" >/dev/null 2>&1; then
  die "the message still decrypts: the key was not deleted"
fi
echo "    gpg can no longer decrypt the message"

say "Restoring the key from the servers with the name and the password"
"$KEYSAFE" --batch --profile test restore --name "$NAME" --password-fd 3 \
           $SERVERS 3<<<"$PASSWORD" \
  || die "restore failed"
GOT=$("$GPG" --batch --with-colons --list-secret-keys 2>/dev/null \
      | awk -F: '/^fpr:/ { print $10; exit }')
[ "$GOT" = "$FPR" ] || die "restored key $GOT is not $FPR"
echo "    secret key $GOT is back"

say "Decrypting the message with the restored key"
PLAIN=$("$GPG" --batch --quiet -d "$WORK/message.asc" 2>/dev/null) \
  || die "the restored key does not decrypt the message"
[ "$PLAIN" = "$MESSAGE" ] || die "the message came out different"
echo "    $PLAIN"

printf '\n%sdemo OK:%s backup, loss and restore of a GnuPG key through three servers.\n' "$B" "$N"
echo "Cleaning up $WORK and stopping the servers."
