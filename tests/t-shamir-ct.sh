#!/bin/sh
# t-shamir-ct.sh - the Shamir code has no secret-dependent branch or index
# SPDX-License-Identifier: GPL-3.0-or-later
#
# Runs t-shamir-ct under valgrind memcheck, where secrets, coefficients
# and shares are marked undefined; any "Conditional jump or move depends
# on uninitialised value" or "Use of uninitialised value" is a failure.
# First proves the harness can fail: a deliberate secret-indexed lookup
# must be reported.  Skips (77) without valgrind or in a sanitizer build.
set -e

VALGRIND=${VALGRIND:-no}
if [ "$KS_SANITIZERS" = yes ]; then
  echo "SKIP: sanitizer build (valgrind and ASan do not mix)"
  exit 77
fi
if [ "$VALGRIND" = no ] || [ ! -x "$VALGRIND" ]; then
  echo "SKIP: valgrind not found (Debian package valgrind)"
  exit 77
fi
PROG=./t-shamir-ct
[ -x "$PROG" ] || { echo "ERROR: $PROG missing"; exit 99; }

tmp=$(mktemp -d /tmp/ksXXXXXX)
trap 'rm -rf "$tmp"' EXIT INT TERM

vg () {
  log=$1; shift
  "$VALGRIND" -q --error-exitcode=1 --track-origins=yes \
    --log-file="$log" "$PROG" "$@"
}

pattern='Conditional jump or move depends on uninitialised value|Use of uninitialised value'

# 1. The harness detects a secret-indexed table lookup.
if vg "$tmp/leak.log" leak; then
  cat "$tmp/leak.log"
  echo "FAIL: valgrind did not report the deliberate leak"
  exit 1
fi
if ! grep -Eq "$pattern" "$tmp/leak.log"; then
  cat "$tmp/leak.log"
  echo "FAIL: the deliberate leak was not reported as expected"
  exit 1
fi
echo "ok: deliberate secret-dependent lookup detected"

# 2. The real code is silent.
rc=0
vg "$tmp/ct.log" || rc=$?
if [ "$rc" -ne 0 ] || grep -Eq "$pattern" "$tmp/ct.log"; then
  cat "$tmp/ct.log"
  echo "FAIL: valgrind reported secret-dependent behaviour (rc=$rc)"
  exit 1
fi
echo "ok: GF(2^8) mul/inv, split and combine constant time under memcheck"
exit 0
