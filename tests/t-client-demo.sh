#!/bin/bash
# t-client-demo.sh - the README's demo.sh runs and cleans up after itself
# SPDX-License-Identifier: GPL-3.0-or-later
set -e
: "${top_builddir:=..}"
: "${top_srcdir:=..}"
[ -x "$top_builddir/server/keysafe-server" ] || { echo "SKIP: no server"; exit 77; }
command -v gpg >/dev/null || { echo "SKIP: gpg missing"; exit 77; }
out=$(mktemp /tmp/ksdemoutXXXXXX)
trap 'rm -f "$out"' EXIT
rc=0
BUILDDIR="$top_builddir" "$top_srcdir/demo.sh" >"$out" 2>&1 || rc=$?
cat "$out"
work=$(sed -n 's/^Cleaning up \(\/tmp\/ksdemo[^ ]*\) .*/\1/p' "$out")
fail=0
[ "$rc" -eq 0 ] || { echo "FAIL: demo.sh exited $rc"; fail=1; }
grep -q "demo OK" "$out" || { echo "FAIL: no 'demo OK'"; fail=1; }
grep -q "imported secret key" "$out" || { echo "FAIL: no import"; fail=1; }
grep -q "survived the loss of its key" "$out" || { echo "FAIL: no plaintext"; fail=1; }
[ -n "$work" ] || { echo "FAIL: demo.sh did not name its work dir"; fail=1; }
[ -n "$work" ] && [ -e "$work" ] && { echo "FAIL: demo.sh left $work"; fail=1; }
# A failing step must make it exit non-zero: no servers binary.
mkdir -p "$out.d/server" "$out.d/agent-helper/cli"
printf '#!/bin/sh\nexit 1\n' >"$out.d/server/keysafe-server"
chmod +x "$out.d/server/keysafe-server"
cp "$top_builddir/agent-helper/cli/keysafe" "$out.d/agent-helper/cli/"
if BUILDDIR="$out.d" "$top_srcdir/demo.sh" >/dev/null 2>&1; then
  echo "FAIL: demo.sh succeeded with a broken server"; fail=1
fi
rm -rf "$out.d"
echo "demo checks: $((fail == 0 ? 6 : 0)) passed, $fail failed"
exit $fail
