#!/bin/sh
# t-i18n.sh - the programs speak German with LANGUAGE=de
# SPDX-License-Identifier: GPL-3.0-or-later
#
# The uninstalled programs are pointed at the build tree's catalogue with
# KEYSAFE_LOCALEDIR (common/i18n.c): po/de.po is compiled with msgfmt -c
# into DIR/de/LC_MESSAGES/keysafe.mo (or the built po/de.gmo is copied
# there when msgfmt is missing).  Then keysafe --help, keysafe-server
# --help, keysafe-helper --help and an error message of keysafe must show
# known German lines with LANGUAGE=de, and the English ones without it;
# each run must exit with its usual status.  Last, every source file that
# marks strings for translation must be listed in po/POTFILES.in.
#
# gettext ignores LANGUAGE while the locale is "C" or "POSIX", so the
# programs need some other locale.  C.UTF-8 is enough: glibc 2.35 and
# later (Debian 12 has 2.36) ship it in libc-bin, so no "locales" package
# and no generated de_DE.UTF-8 is needed.  Should it be missing, the
# test tries de_DE.UTF-8 and en_US.UTF-8, and skips (77) with the reason
# only when none of them exists.

set -e

: "${top_builddir:=..}"
: "${top_srcdir:=..}"
KEYSAFE=$top_builddir/agent-helper/cli/keysafe
SERVER=$top_builddir/server/keysafe-server
HELPER=$top_builddir/agent-helper/helper/keysafe-helper

npass=0
nfail=0
tmp=$(mktemp -d /tmp/ksXXXXXX)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 99' INT TERM HUP

pass () { npass=$((npass + 1)); echo "ok: $1"; }
fail () { nfail=$((nfail + 1)); echo "FAIL: $1"; }

# has WHAT FILE TEXT: FILE holds the line TEXT (fixed string).
has ()
{
  if grep -qxF -- "$3" "$2"; then
    pass "$1"
  else
    fail "$1: no line '$3' in:"
    sed 's/^/    | /' "$2"
  fi
}

# like WHAT FILE RE: FILE has a line that matches the basic regex RE.
like ()
{
  if grep -qx -- "$3" "$2"; then
    pass "$1"
  else
    fail "$1: no line matching '$3' in:"
    sed 's/^/    | /' "$2"
  fi
}

# lacks WHAT FILE TEXT: no line of FILE contains TEXT.
lacks ()
{
  if grep -qF -- "$3" "$2"; then
    fail "$1: '$3' should not be there:"
    sed 's/^/    | /' "$2"
  else
    pass "$1"
  fi
}

# run WHAT STATUS OUT PROG ARGS...: PROG exits with STATUS (a crash or a
# sanitizer report would change it), its stdout and stderr go to OUT.
run ()
{
  what=$1 want=$2 out=$3
  shift 3
  st=0
  "$@" >"$out" 2>&1 || st=$?
  if [ "$st" -eq "$want" ]; then
    pass "$what exits with $want"
  else
    fail "$what exits with $st, not $want:"
    sed 's/^/    | /' "$out"
  fi
}

for p in "$KEYSAFE" "$SERVER" "$HELPER"; do
  if [ ! -x "$p" ]; then
    echo "t-i18n: $p is not built" >&2
    exit 99
  fi
done

# A locale other than C that this machine has.
loc=
for l in C.UTF-8 de_DE.UTF-8 en_US.UTF-8; do
  if [ -z "$(LC_ALL=$l locale 2>&1 >/dev/null)" ]; then
    loc=$l
    break
  fi
done
if [ -z "$loc" ]; then
  echo "t-i18n: SKIP: no C.UTF-8, de_DE.UTF-8 or en_US.UTF-8 locale;" \
       "gettext ignores LANGUAGE in the C locale" >&2
  exit 77
fi
echo "t-i18n: using the locale $loc"

# The catalogue, as make install would place it.
mkdir -p "$tmp/locale/de/LC_MESSAGES"
mo=$tmp/locale/de/LC_MESSAGES/keysafe.mo
if command -v "${MSGFMT:-msgfmt}" >/dev/null 2>&1; then
  # -c checks the format strings against the msgids.
  "${MSGFMT:-msgfmt}" -c -o "$mo" "$top_srcdir/po/de.po"
  echo "t-i18n: compiled $top_srcdir/po/de.po"
else
  for g in "$top_builddir/po/de.gmo" "$top_srcdir/po/de.gmo"; do
    if [ -f "$g" ]; then
      cp "$g" "$mo"
      echo "t-i18n: copied $g"
      break
    fi
  done
fi
if [ ! -s "$mo" ]; then
  echo "t-i18n: no msgfmt and no built po/de.gmo" >&2
  exit 99
fi

KEYSAFE_LOCALEDIR=$tmp/locale
LC_ALL=$loc
export KEYSAFE_LOCALEDIR LC_ALL
unset LANG LC_MESSAGES LANGUAGE || :

# German.  Lines with umlauts show the text arrives as UTF-8.
run "keysafe --help" 0 "$tmp/de.out" env LANGUAGE=de "$KEYSAFE" --help
has "keysafe --help: German synopsis" "$tmp/de.out" \
  "Syntax: keysafe BEFEHL [Optionen]"
has "keysafe --help: German command list" "$tmp/de.out" \
  " backup          einen geheimen Schlüssel sichern"
# The column depends on the longest option, so any padding.
like "keysafe --help: German option text" "$tmp/de.out" \
  "     --force  *ein schwaches Passwort annehmen"
like "keysafe --help: German bug report line" "$tmp/de.out" \
  "Fehlerberichte bitte an <[^ ]*@[^ ]*>\\."
lacks "keysafe --help: no English synopsis" "$tmp/de.out" \
  "Syntax: keysafe COMMAND [options]"

# A usage error: exit status 2.
run "keysafe frobnicate" 2 "$tmp/de-err.out" \
  env LANGUAGE=de "$KEYSAFE" frobnicate
has "keysafe: German error message" "$tmp/de-err.out" \
  "keysafe: unbekannter Befehl 'frobnicate'"

run "keysafe-server --help" 0 "$tmp/de-srv.out" \
  env LANGUAGE=de "$SERVER" --help
has "keysafe-server --help: German group" "$tmp/de-srv.out" \
  "Befehle (Standard: Dienst anbieten):"
has "keysafe-server --help: German option text" "$tmp/de-srv.out" \
  "     --foreground                      nicht in den Hintergrund gehen"

run "keysafe-helper --help" 0 "$tmp/de-hlp.out" \
  env LANGUAGE=de "$HELPER" --help
daemon_de="als Assuan-Server auf dem Socket S.keysafe laufen"
has "keysafe-helper --help: German option text" "$tmp/de-hlp.out" \
  "     --daemon                $daemon_de"

# English without LANGUAGE, with the same locale and catalogue.
run "keysafe --help" 0 "$tmp/en.out" "$KEYSAFE" --help
has "keysafe --help: English synopsis" "$tmp/en.out" \
  "Syntax: keysafe COMMAND [options]"
# The column depends on the longest option, so any padding.
like "keysafe --help: English option text" "$tmp/en.out" \
  "     --force  *accept a weak password"
like "keysafe --help: English bug report line" "$tmp/en.out" \
  "Please report bugs to <[^ ]*@[^ ]*>\\."
lacks "keysafe --help: no German synopsis" "$tmp/en.out" "BEFEHL"

run "keysafe frobnicate" 2 "$tmp/en-err.out" "$KEYSAFE" frobnicate
has "keysafe: English error message" "$tmp/en-err.out" \
  "keysafe: unknown command 'frobnicate'"

# Every source file with _("...") or N_("...") is in po/POTFILES.in,
# or its messages would never reach the catalogue.
missing=
for f in "$top_srcdir"/agent-helper/*/*.c "$top_srcdir"/server/*.c \
         "$top_srcdir"/common/*.c; do
  rel=${f#"$top_srcdir"/}
  if grep -qE '(^|[^A-Za-z0-9_])N?_ ?\("' "$f" \
     && ! grep -qxF "$rel" "$top_srcdir/po/POTFILES.in"; then
    missing="$missing $rel"
  fi
done
if [ -z "$missing" ]; then
  pass "every file with translatable strings is in po/POTFILES.in"
else
  fail "not in po/POTFILES.in:$missing"
fi

echo "$npass passed, $nfail failed"
[ "$nfail" -eq 0 ]
