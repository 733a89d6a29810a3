#!/bin/bash
# t-doc-recipes.sh - every shell recipe of the documentation runs as printed
# SPDX-License-Identifier: GPL-3.0-or-later
#
# A recipe is a fenced ```sh block of README.md and doc/**/*.md, or a
# .nf/.fi block in the EXAMPLES section of a man page.  A recipe that
# cannot run here (installing packages, Tor, a systemd session, an
# interactive program) says so on its fence, ```sh norun: REASON, or in
# a roff comment line  .\" norun: REASON  right before the .nf; the
# reason is printed.  Every other recipe runs verbatim, in order, under
# bash -e -o pipefail, from an installed tree (make install DESTDIR=...,
# its bindir first on PATH) with, per document:
#  - three real keysafe-server processes on 127.0.0.1, named in a server
#    list that KEYSAFE_SERVERS_FILE points at (doc/servers.md), so the
#    recipes are what a user types against the shipped list;
#  - a real gpg in a short temporary GNUPGHOME holding one key,
#    alice@example.org ($FPR has its fingerprint), whose gpg-agent asks
#    passwords through tests/fake-pinentry.sh;
#  - HOME a temporary folder with ~/.private/item-name and
#    ~/.private/password, as doc/gnupg-integration.md describes them.
# The test profile: until keysafe reads $GNUPGHOME/keysafe.conf, a
# two-line script per program in a folder before the bindir on PATH
# execs the installed program with --profile test (the default profile
# takes many minutes).  A recipe fails on a non-zero exit, on an ERR line
# or a gpg-connect-agent connection error in its output, and a
# gpg-connect-agent recipe must get at least one D line or OK.

. "${srcdir:-.}/t-helper-lib.sh"

# The install.
INST="$T_WORK/inst"
( unset MAKEFLAGS MFLAGS MAKELEVEL
  make -C "$top_builddir" install DESTDIR="$INST" ) >"$T_WORK/install.log" 2>&1 \
  || { echo "ERROR: make install failed:" >&2; tail -30 "$T_WORK/install.log" >&2;
       exit 99; }
BINDIR=$(dirname "$(find "$INST" -path '*/bin/keysafe' -type f | head -n 1)")
SBINDIR=$(dirname "$(find "$INST" -path '*/sbin/keysafe-server' -type f | head -n 1)")
[ -x "$BINDIR/keysafe-helper" ] && [ -x "$SBINDIR/keysafe-server" ] \
  || { echo "ERROR: the install lacks a program" >&2; exit 99; }
SERVER="$SBINDIR/keysafe-server"
PROFILEDIR="$T_WORK/profile-test"
mkdir -p "$PROFILEDIR"
for p in keysafe keysafe-helper; do
  printf '#!/bin/sh\nexec "%s" --profile test "$@"\n' "$BINDIR/$p" >"$PROFILEDIR/$p"
  chmod +x "$PROFILEDIR/$p"
done

# extract FILE: the recipes of FILE as $T_WORK/r/N.sh, one line per
# recipe in $T_WORK/r/index: "N LINE run" or "N LINE norun: REASON".
extract ()
{
  rm -rf "$T_WORK/r" && mkdir "$T_WORK/r"
  case "$1" in
    *.md)
      awk -v dir="$T_WORK/r" '
        !inb && /^```sh( |$)/ {
          inb = 1; n++; f = dir "/" n ".sh"; printf "" >f
          how = substr($0, 7); sub(/^ +/, "", how)
          print n, NR, (how == "" ? "run" : how) >(dir "/index"); next }
        inb && /^```/ { inb = 0; close(f); next }
        inb { print >f }' "$1" ;;
    *)
      awk -v dir="$T_WORK/r" '
        /^\.SH / { ex = ($0 ~ /^\.SH "?EXAMPLES"?$/); next }
        ex && /^\.\\" norun:/ { how = substr($0, 5); next }
        ex && /^\.nf/ { inb = 1; n++; f = dir "/" n ".sh"; printf "" >f
          print n, NR, (how == "" ? "run" : how) >(dir "/index"); how = ""; next }
        inb && /^\.fi/ { inb = 0; close(f); next }
        inb { gsub(/\\-/, "-"); gsub(/\\e/, "\\"); gsub(/\\\(dq/, "\""); print >f }' "$1" ;;
  esac
  touch "$T_WORK/r/index"
}

# fixture: fresh servers, GnuPG home and HOME for one document.
fixture ()
{
  local i
  for i in 1 2 3; do srv_stop "$i" 2>/dev/null || true; done
  rm -rf "$T_WORK"/store? "$T_WORK/home"
  unset PORT_1 PORT_2 PORT_3
  echo "# keysafe servers of this test" >"$T_WORK/servers.list"
  for i in 1 2 3; do
    srv_start "$i"
    eval "echo \"recommended \$URL_$i test server $i\"" >>"$T_WORK/servers.list"
  done
  if [ -n "$T_GNUPGHOME" ]; then
    GNUPGHOME="$T_GNUPGHOME" gpgconf --kill all 2>/dev/null || true
    rm -rf "$T_GNUPGHOME"
  fi
  gpg_home
  "$GPG" --batch --quiet --quick-add-uid "$FPR" "Alice <alice@example.org>"
  pinentry_setup "$PW"
  mkdir -p -m 700 "$T_WORK/home/.private"
  printf '%s' "my helper key" >"$T_WORK/home/.private/item-name"
  printf '%s' "$PW" >"$T_WORK/home/.private/password"
}

# run_recipe FILE N LINE: run recipe N in a session of its own (what it
# leaves in the background is stopped after it), bounded in time.
run_recipe ()
{
  local doc="$1" n="$2" line="$3" rc=0 pid
  (
    cd "$T_WORK/home"
    export HOME="$T_WORK/home" FPR GNUPGHOME
    export KEYSAFE_SERVERS_FILE="$T_WORK/servers.list"
    export PATH="$PROFILEDIR:$BINDIR:$SBINDIR:$PATH"
    exec setsid timeout 300 bash -c 'set -eo pipefail; . "$1"' recipe \
      "$T_WORK/r/$n.sh" </dev/null >"$T_WORK/out" 2>&1
  ) &
  pid=$!
  wait "$pid" || rc=$?
  kill -TERM -- "-$pid" 2>/dev/null || true
  T_CHECKS=$((T_CHECKS + 1))
  if [ "$rc" -ne 0 ] || grep -qE "^ERR |can't connect|End of file" "$T_WORK/out" \
     || { grep -q gpg-connect-agent "$T_WORK/r/$n.sh" \
          && ! grep -qE '^(D |OK)' "$T_WORK/out"; }; then
    T_FAILS=$((T_FAILS + 1))
    echo "FAIL: $doc:$line (exit $rc):" >&2
    sed 's/^/  $ /' "$T_WORK/r/$n.sh" >&2
  else
    echo "ok: $doc:$line"
  fi
  sed 's/^/  | /' "$T_WORK/out" | grep -v '^  | S PROGRESS' || true
}

# Documents whose recipes are not marked yet, with the reason.
declare -A PENDING=(
)

docs="README.md $(cd "$top_srcdir" && ls doc/*.md doc/*/*.md doc/*.[18])"
for doc in $docs; do
  if [ -n "${PENDING[$doc]:-}" ]; then
    echo "not run: $doc: ${PENDING[$doc]}"
    continue
  fi
  extract "$top_srcdir/$doc"
  grep -q . "$T_WORK/r/index" || continue
  if grep -q ' run$' "$T_WORK/r/index"; then
    fixture
  fi
  while read -r n line how; do
    if [ "$how" = run ]; then
      run_recipe "$doc" "$n" "$line"
    else
      echo "not run: $doc:$line: ${how#norun: }"
      case "$how" in norun:\ ?*) ;; *)
        T_CHECKS=$((T_CHECKS + 1)); T_FAILS=$((T_FAILS + 1))
        echo "FAIL: $doc:$line: a recipe not run must say why (\`\`\`sh norun: REASON)" >&2 ;;
      esac
    fi
  done <"$T_WORK/r/index"
done

# README's test command is what .ci/run runs first.
want=$(grep -m1 'make -j2 check$' "$top_srcdir/README.md")
ok "README's test command is .ci/run's first pass" \
   grep -qxF -- "$want" "$top_srcdir/.ci/run"

t_done
