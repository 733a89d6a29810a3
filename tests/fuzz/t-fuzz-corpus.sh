#!/bin/sh
# t-fuzz-corpus.sh - every fuzz harness over its seed corpus
# SPDX-License-Identifier: GPL-3.0-or-later
set -eu
: "${srcdir:=.}"
ran=0
for h in fuzz/fuzz-*; do
  [ -x "$h" ] || continue
  name=${h#fuzz/fuzz-}
  corpus="$srcdir/fuzz/corpus/$name"
  [ -d "$corpus" ] || { echo "FAIL: no corpus for $h"; exit 1; }
  if [ -n "${KS_FUZZING:-}" ]; then
    "$h" -runs=0 "$corpus"
  else
    "$h" "$corpus"
  fi
  ran=$((ran + 1))
done
[ "$ran" -gt 0 ] || { echo "FAIL: no harness found"; exit 1; }
echo "$ran harnesses ran"
