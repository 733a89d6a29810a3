#!/bin/bash
# t-server-install.sh - make install puts the systemd unit in place,
# its ExecStart naming the installed keysafe-server of the configured
# sbindir
# SPDX-License-Identifier: GPL-3.0-or-later
. "${srcdir:-.}/t-lib.sh"

# The build's own values, as configure set them.
vars=$(unset MAKEFLAGS MFLAGS MAKELEVEL
       make -s -C "$top_builddir/server" \
            --eval 'ks-print-dirs: ; @echo $(sbindir) $(systemdunitdir)' \
            ks-print-dirs) \
  || { echo "ERROR: cannot read the build's directories" >&2; exit 99; }
read -r SBINDIR UNITDIR <<<"$vars"
[ -n "$SBINDIR" ] && [ -n "$UNITDIR" ] \
  || { echo "ERROR: no sbindir or unit directory in '$vars'" >&2; exit 99; }

D="$T_WORK/dest"
( unset MAKEFLAGS MFLAGS MAKELEVEL
  make -C "$top_builddir/server" install DESTDIR="$D" ) >"$T_WORK/install.log" 2>&1 \
  || { echo "ERROR: make install failed:" >&2; tail -30 "$T_WORK/install.log" >&2;
       exit 99; }

UNIT="$D$UNITDIR/keysafe-server.service"
ok "unit installed in $UNITDIR" test -f "$UNIT"
ok "server installed in $SBINDIR" test -x "$D$SBINDIR/keysafe-server"
exec_line=$(grep '^ExecStart=' "$UNIT" || true)
eq "ExecStart names the installed server" \
   "${exec_line%% *}" "ExecStart=$SBINDIR/keysafe-server"
eq "no placeholder left" "$(grep -c '@[a-z_]*@' "$UNIT" || true)" 0
# The options of ExecStart are ones the installed server takes.
opts=${exec_line#* }
ok "the installed server accepts the unit's options" \
   bash -c '"$1" --help >/dev/null && for o in $2; do case $o in --*) "$1" --help | grep -q -- "${o%%=*}" || exit 1;; esac; done' \
   _ "$D$SBINDIR/keysafe-server" "$opts"
if command -v systemd-analyze >/dev/null 2>&1; then
  # systemd checks the unit (its binary the DESTDIR one; man pages are
  # not installed here).
  sed "s|^ExecStart=$SBINDIR|ExecStart=$D$SBINDIR|" "$UNIT" >"$T_WORK/keysafe-server.service"
  ok "systemd-analyze verify accepts the unit" \
     systemd-analyze verify --man=no "$T_WORK/keysafe-server.service"
fi

t_done
