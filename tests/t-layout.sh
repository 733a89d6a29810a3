#!/bin/sh
# t-layout.sh - the include direction of the rooms, and unique file names
# SPDX-License-Identifier: GPL-3.0-or-later
#
# The build's include paths already keep a face's headers out of the
# library's reach; this catches what include paths cannot: a quoted
# include with a relative path ("../cli/progress.h") and a face that
# reaches past keysafe-client.h into the library's inner headers.  The
# rules (doc/HACKING.md):
#   - agent-helper/client/ includes no header by a path, and no header of
#     agent-helper/cli/ or agent-helper/helper/;
#   - a face (cli/, helper/) includes no header by a path, nothing of the
#     other face, and of the library only keysafe-client.h;
#   - common/ includes nothing of agent-helper/ or server/, and no header
#     by a path;
#   - no two .c/.h files of common/, agent-helper/ and server/ share a
#     base name (tests/ and bench/ name theirs after what they test).
# To show that the check can fail, it is then run on copies of the tree,
# each with one bad include added, and must refuse every one.

: "${top_srcdir:=..}"

# The quoted includes of the .c/.h files directly in DIR, as "file header".
includes ()
{
  for f in "$1"/*.[ch]; do
    [ -f "$f" ] || continue
    sed -n 's/^[ 	]*#[ 	]*include[ 	]*"\([^"]*\)".*/\1/p' "$f" \
      | while read -r h; do echo "$f $h"; done
  done
}

# Is header H a file of directory DIR?
is_in () { [ -f "$2/$1" ]; }

# check ROOT: print one line per violation; exit status 1 when any.
check ()
{
  root=$1
  ah=$root/agent-helper
  bad=$(
    includes "$ah/client" | while read -r f h; do
      case $h in */*) echo "$f: includes \"$h\" by a path";; esac
      if is_in "$h" "$ah/cli" || is_in "$h" "$ah/helper"; then
        is_in "$h" "$ah/client" || echo "$f: the library includes a face's $h"
      fi
    done
    for face in cli helper; do
      other=helper
      [ $face = helper ] && other=cli
      includes "$ah/$face" | while read -r f h; do
        case $h in */*) echo "$f: includes \"$h\" by a path"; continue;; esac
        if is_in "$h" "$ah/$other" && ! is_in "$h" "$ah/$face"; then
          echo "$f: the $face face includes the $other face's $h"
        fi
        if is_in "$h" "$ah/client" && [ "$h" != keysafe-client.h ]; then
          echo "$f: a face includes the library-internal $h"
        fi
      done
    done
    includes "$root/common" | while read -r f h; do
      case $h in */*) echo "$f: includes \"$h\" by a path"; continue;; esac
      is_in "$h" "$root/common" && continue
      for d in "$ah"/* "$root/server"; do
        is_in "$h" "$d" && echo "$f: common/ includes $h of ${d#$root/}"
      done
    done
  )
  # A base name counts once per folder (x.c and x.h are one module).
  dups=$(
    for d in "$root/common" "$ah"/* "$root/server"; do
      [ -d "$d" ] || continue
      ls "$d"/*.[ch] 2>/dev/null | sed 's|.*/||; s|\.[ch]$||' | sort -u
    done | sort | uniq -d
  )
  for b in $dups; do
    bad="$bad
two folders have a source file named $b"
  done
  bad=$(echo "$bad" | grep -v '^$')
  [ -z "$bad" ] && return 0
  echo "$bad"
  return 1
}

fails=0
if ! check "$top_srcdir"; then
  echo "FAIL: the source tree breaks the layout rules (above)"
  fails=1
else
  echo "ok: the source tree keeps the layout rules"
fi

# The negative cases: a copy of the four folders, one bad line each.
work=$(mktemp -d /tmp/kslayXXXXXX)
trap 'rm -rf "$work"' EXIT INT TERM
n=0
for bad in \
  'agent-helper/client/fetch.c:#include "progress.h"' \
  'agent-helper/client/fetch.c:#include "../helper/helper.h"' \
  'agent-helper/cli/password.c:#include "transport.h"' \
  'agent-helper/cli/password.c:#include "helper.h"' \
  'agent-helper/helper/assuan-options.c:#include "progress.h"' \
  'agent-helper/helper/assuan-options.c:#include "../client/queue.h"' \
  'common/buffer.c:#include "keysafe-client.h"' \
  'common/buffer.c:#include "store.h"' \
  'server/store.c:' \
  ; do
  n=$((n + 1))
  rm -rf "$work/t"
  mkdir -p "$work/t/agent-helper"
  for d in common server; do
    mkdir "$work/t/$d"
    cp "$top_srcdir/$d"/*.[ch] "$work/t/$d/"
  done
  for d in client cli helper; do
    mkdir "$work/t/agent-helper/$d"
    cp "$top_srcdir/agent-helper/$d"/*.[ch] "$work/t/agent-helper/$d/"
  done
  file=${bad%%:*}
  line=${bad#*:}
  if [ -n "$line" ]; then
    echo "$line" >> "$work/t/$file"
  else
    # An empty line: a second file named like one in another folder.
    cp "$work/t/$file" "$work/t/common/${file##*/}"
  fi
  # The copy must show one violation more than the tree itself.
  if [ "$(check "$work/t" | wc -l)" -le "$(check "$top_srcdir" | wc -l)" ]; then
    echo "FAIL: case $n ($file: ${line:-duplicate name}) was not caught"
    fails=1
  else
    echo "ok: case $n ($file: ${line:-duplicate name}) is refused"
  fi
done

# doc/HACKING.md names every source file, so the map cannot drift.
for f in "$top_srcdir"/common/*.[ch] "$top_srcdir"/server/*.[ch] \
         "$top_srcdir"/agent-helper/*/*.[ch] "$top_srcdir"/tests/*.[ch] \
         "$top_srcdir"/tests/*.sh "$top_srcdir"/tests/fuzz/*.[ch] \
         "$top_srcdir"/bench/*.[ch]; do
  [ -f "$f" ] || continue
  b=${f##*/}
  if ! grep -qwF -- "$b" "$top_srcdir/doc/HACKING.md"; then
    echo "FAIL: doc/HACKING.md does not name ${f#$top_srcdir/}"
    fails=1
  fi
done
exit $fails
