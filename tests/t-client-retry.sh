#!/bin/bash
# t-client-retry.sh - a wrong password is asked again (Assuan: another
# INQUIRE PASSWORD, with OPTION password-tries) and tried on the same
# shards: no request goes to any location after the first password.
# SPDX-License-Identifier: GPL-3.0-or-later
. "${srcdir:-.}/t-client-hostile-lib.sh"
HELPER="$top_builddir/agent-helper/helper/keysafe-helper"
[ -x "$HELPER" ] || { echo "ERROR: no $HELPER"; exit 99; }

hostile_backup retry

# drive TRIES ANSWER...: one RESTORE through keysafe-helper on a pipe;
# INQUIRE NAME is answered "retry", the Nth INQUIRE PASSWORD with the
# Nth ANSWER.  The hostile server's request count when the second
# password was asked goes to $T_WORK/at-second, the transcript to
# $T_WORK/session.
drive ()
{
  local tries="$1"
  shift
  python3 - "$HELPER" "$HOSTILE_LOG" "$T_WORK/at-second" "$tries" \
      "$URL_1" "$URL_2" "$HOSTILE_URL" "$@" >"$T_WORK/session" 2>&1 <<'PY' || true
import subprocess, sys
helper, log, at_second, tries = sys.argv[1:5]
urls, answers = sys.argv[5:8], sys.argv[8:]
p = subprocess.Popen([helper, "--server"], stdin=subprocess.PIPE,
                     stdout=subprocess.PIPE, encoding="latin-1")
def send(line):
    print(">", line); p.stdin.write(line + "\n"); p.stdin.flush()
def answer(text):
    send("D " + text.replace("%", "%25").replace("\r", "%0D")
                    .replace("\n", "%0A")); send("END")
cmds = ["OPTION profile=test"] + ["OPTION server=" + u for u in urls]
if tries != "-":
    cmds.append("OPTION password-tries=" + tries)
cmds.append("RESTORE --stdout")
for c in cmds:
    send(c)
ends, asked, result = -1, 0, "none"   # -1: the greeting's OK comes first
for _ in range(2000):                 # bounded: a session is short
    line = p.stdout.readline()
    if not line:
        break
    line = line.rstrip("\n")
    print("<", line[:100])
    if line.startswith("INQUIRE NAME"):
        answer("retry")
    elif line.startswith("INQUIRE PASSWORD"):
        if asked == 1:
            with open(log) as f:
                open(at_second, "w").write(str(sum(1 for _ in f)))
        answer(answers[asked] if asked < len(answers) else "")
        asked += 1
    elif line.startswith(("OK", "ERR")):
        ends += 1
        if ends == len(cmds):
            result = "OK" if line.startswith("OK") else "ERR"
            break
send("BYE")
p.stdin.close(); p.wait(timeout=60)
print("password inquiries:", asked)
print("result:", result)
PY
  grep -v "^< S PROGRESS" "$T_WORK/session" | sed "s/^/  | /" >&2
}

rm -f "$T_WORK/at-second"
drive 1 "not the password" "$PW"
ok "a wrong, then the right password over Assuan restores" \
   grep -q "^result: OK" "$T_WORK/session"
ok "the password was asked twice" grep -q "^password inquiries: 2" "$T_WORK/session"
ok "the restored key came out" grep -q "^< D " "$T_WORK/session"
eq "no request to any location after the first password" \
   "$(cat "$T_WORK/at-second" 2>/dev/null)" "$(wc -l <"$HOSTILE_LOG")"

# Without OPTION password-tries a program's INQUIRE is asked once: a
# script would answer the same wrong password again, for a whole puzzle.
drive - "not the password" "$PW"
ok "by default over INQUIRE a wrong password ends the restore" \
   grep -q "^result: ERR" "$T_WORK/session"
ok "and the password was asked once" \
   grep -q "^password inquiries: 1" "$T_WORK/session"

drive 1 "not the password" "still not it"
ok "two wrong passwords end it" grep -q "^result: ERR" "$T_WORK/session"
ok "after two inquiries" grep -q "^password inquiries: 2" "$T_WORK/session"
# An inquired password is its first line without a CR, as the command
# line reads --passphrase-file: a CRLF file with more lines gives the
# same password through both.
drive 0 "$PW"$'\r\n'"a second line"
ok "an inquired password is its first line, CR dropped" \
   grep -q "^result: OK" "$T_WORK/session"
printf '%s\r\nsecond line\n' "$PW" >"$T_WORK/pwfile"
ok "the command line reads the same file the same way" ks restore --stdout \
   --name retry --passphrase-file "$T_WORK/pwfile" $ALL
printf 'a\0b\n' >"$T_WORK/nulfile"
fails "a NUL in a password file is refused, not cut" ks restore --stdout \
   --name retry --passphrase-file "$T_WORK/nulfile" $ALL
ok "the helper checks GNUPGHOME before the long work" sh -c \
  "printf 'RESTORE --stdout\nBYE\n' | GNUPGHOME='$T_WORK/no-home' '$HELPER' --server | grep -q '^ERR .*GnuPG home directory'"
ok "OPTION password-tries takes a digit" sh -c \
  "printf 'OPTION password-tries=x\nBYE\n' | '$HELPER' --server | grep -q '^ERR .*password-tries'"
t_done
