#!/bin/bash
# t-client-socks.sh - servers that are not on loopback go through SOCKS5h
# SPDX-License-Identifier: GPL-3.0-or-later
#
# A real SOCKS5 proxy (Debian's microsocks) on 127.0.0.1 stands in for
# Tor.  The servers are given by this machine's host name, which keysafe
# cannot tell is local, so it must send them through the proxy and let
# the proxy resolve the name (socks5h).  Proof that it did: microsocks
# logs every connection it makes ("connected to HOST:PORT"), and with
# microsocks stopped the same restore fails with a proxy error while a
# loopback server keeps working without it.

. "${srcdir:-.}/t-client-lib.sh"

command -v microsocks >/dev/null \
  || { echo "SKIP: microsocks missing (Debian package microsocks)"; exit 77; }

HOST=$(hostname)
ADDR=$(getent hosts "$HOST" | awk '{ print $1; exit }')
case "$ADDR" in
  127.*) ;;
  *) echo "SKIP: host name '$HOST' does not resolve to loopback ($ADDR)"
     exit 77 ;;
esac

# Servers listen on the address the host name resolves to.
for i in 1 2 3; do srv_start $i "$ADDR:0"; done
RSERVERS="--server http://$HOST:$PORT_1 --server http://$HOST:$PORT_2 --server http://$HOST:$PORT_3"

# microsocks on a free port (it cannot report one: try a few).
MS_PID=
for try in $(seq 1 20); do
  MS_PORT=$(( 20000 + RANDOM % 30000 ))
  microsocks -i 127.0.0.1 -p "$MS_PORT" >"$T_WORK/ms.log" 2>&1 &
  MS_PID=$!
  T_PIDS="$T_PIDS $MS_PID"
  ok_up=
  for i in $(seq 1 20); do
    if ! kill -0 "$MS_PID" 2>/dev/null; then break; fi
    if (exec 9<>"/dev/tcp/127.0.0.1/$MS_PORT") 2>/dev/null; then
      ok_up=1; break
    fi
    sleep 0.1
  done
  [ -n "$ok_up" ] && break
  kill "$MS_PID" 2>/dev/null || true
  MS_PID=
done
[ -n "$MS_PID" ] || { echo "ERROR: microsocks did not start"; exit 99; }
SOCKS="--tor-socks 127.0.0.1:$MS_PORT"

gpg_home
: >"$T_WORK/ms.log"
ok "backup through the SOCKS5 proxy" ks backup --gpgkeyid "$FPR" \
   --name socks --password-fd 3 $SOCKS $RSERVERS
for i in 1 2 3; do
  eval "p=\$PORT_$i"
  grep_in "proxy connected to server $i" "connected to $HOST:$p" \
    "$T_WORK/ms.log"
done
n=$(grep -c "connected to $HOST:" "$T_WORK/ms.log" || true)
ok "every upload went through the proxy ($n connections)" test "$n" -ge 3

: >"$T_WORK/ms.log"
ok "restore through the SOCKS5 proxy" ks restore --stdout --name socks \
   --password-fd 3 $SOCKS $RSERVERS
eq "the key comes back through the proxy" "$(fpr_of "$T_WORK/ks.out")" "$FPR"
n=$(grep -c "connected to $HOST:" "$T_WORK/ms.log" || true)
ok "the downloads went through the proxy ($n connections)" test "$n" -ge 2

# no_proxy/NO_PROXY='*' would make libcurl connect directly (around
# Tor) unless keysafe sets CURLOPT_NOPROXY "": the proxy must still see
# every connection.
: >"$T_WORK/ms.log"
no_proxy='*' NO_PROXY='*' ok "restore with no_proxy='*' set" ks restore \
   --stdout --name socks --password-fd 3 $SOCKS $RSERVERS
n=$(grep -c "connected to $HOST:" "$T_WORK/ms.log" || true)
ok "no_proxy='*' still goes through the proxy ($n connections)" \
   test "$n" -ge 2

# Without the proxy the same servers cannot be reached ...
kill "$MS_PID"; wait "$MS_PID" 2>/dev/null || true
fails "restore fails with the proxy stopped" ks restore --stdout \
  --name socks --password-fd 3 $SOCKS $RSERVERS
grep_in "the error names the proxy" "SOCKS" "$T_WORK/ks.err"

# ... unless --no-tor is given, which warns.
ok "restore with --no-tor connects directly" ks restore --stdout \
   --name socks --password-fd 3 --no-tor $RSERVERS
grep_in "--no-tor warns" "WARNING: --no-tor" "$T_WORK/ks.err"

# Loopback servers go direct even with a dead proxy configured.
LSERVERS="--server http://$ADDR:$PORT_1 --server http://$ADDR:$PORT_2 --server http://$ADDR:$PORT_3"
# Shard names are bound to the location's identity (its URL here), so
# the same servers under their address hold another backup.
ok "loopback backup goes direct" ks backup --gpgkeyid "$FPR" \
   --name socks-lo --password-fd 3 $SOCKS $LSERVERS
ok "loopback servers go direct" ks restore --stdout --name socks-lo \
   --password-fd 3 $SOCKS $LSERVERS

t_done
