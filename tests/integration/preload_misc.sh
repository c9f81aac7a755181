#!/usr/bin/env bash
# preload_misc.sh — libsbxpreload.so outside a run: it fails CLOSED without a valid sealed policy
# (one "sbxsup-preload:" message, every decision denied), it is passive in the stage
# (`sbxsup __stage`), and common/elfcheck.c tells which commands the preload cannot see
# (static, non-glibc loader, not ELF; scripts followed to their interpreter).
# "Passive in the stage" needs the stage binary's identity from the sealed policy (pol_stage_exe).
source "$(dirname "$0")/../lib.sh"
LIB=${SBXSUP_PRELOAD_LIB:?}
P=$SBX_PROGS

# no policy at all: denied, one message
out=$(LD_PRELOAD=$LIB cat /etc/passwd 2>&1); rc=$?
if [ $rc -ne 0 ] && grep -q '^sbxsup-preload: policy unavailable' <<<"$out" && ! grep -q '^root:' <<<"$out" &&
   [ "$(grep -c 'policy unavailable' <<<"$out")" = 1 ]; then
	t_pass preload_fail_closed_no_policy
else t_fail preload_fail_closed_no_policy "rc=$rc: $out"; fi

# a policy fd that is a plain (unsealed) file: refused, still closed
echo junk > "$T_TMP/fake.pol"
out=$(SBXSUP_POLICY_FD=7 LD_PRELOAD=$LIB cat /etc/passwd 2>&1 7<"$T_TMP/fake.pol"); rc=$?
if [ $rc -ne 0 ] && grep -q 'not sealed' <<<"$out" && ! grep -q '^root:' <<<"$out"; then
	t_pass preload_fail_closed_unsealed
else t_fail preload_fail_closed_unsealed "rc=$rc: $out"; fi

# a sealed memfd with garbage: pol_open refuses it, still closed
out=$(LD_PRELOAD= /usr/bin/python3 - "$LIB" <<'PY' 2>&1
import os, sys, fcntl, subprocess
fd = os.memfd_create("pol", os.MFD_ALLOW_SEALING)
os.write(fd, b"\0" * 4096)
fcntl.fcntl(fd, fcntl.F_ADD_SEALS, fcntl.F_SEAL_WRITE | fcntl.F_SEAL_SHRINK | fcntl.F_SEAL_GROW | fcntl.F_SEAL_SEAL)
env = dict(os.environ, LD_PRELOAD=sys.argv[1], SBXSUP_POLICY_FD=str(fd))
r = subprocess.run(["cat", "/etc/passwd"], env=env, pass_fds=[fd], capture_output=True, text=True)
print("rc", r.returncode); print(r.stderr)
PY
)
if grep -q "^rc 1" <<<"$out" && grep -q 'sbxsup-preload: policy unavailable' <<<"$out"; then
	t_pass preload_fail_closed_garbage_policy
else t_fail preload_fail_closed_garbage_policy "$out"; fi

# passive in the stage only when the binary is the one the supervisor recorded in the sealed policy:
# sbxsup's own binary run as "__stage" with no policy (nothing recorded) fails closed like any
# program (issue 15: the name proves nothing; tests/escape fo_fake_stage runs a renamed copy
# inside a run); every bwrap-mode run exercises the real, recorded stage
# (an ASan build of sbxsup wants its runtime first among the preloaded libraries: tell it not to mind)
out=$(LD_PRELOAD=$LIB ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0 "$SBXSUP" __stage --no-such-option 2>&1); rc=$?
if grep -q 'sbxsup-preload: policy unavailable' <<<"$out"; then
	t_pass preload_passive_in_stage
else t_fail preload_passive_in_stage "rc=$rc: $out"; fi
# ... but a program merely called with __stage is not passive
out=$(LD_PRELOAD=$LIB cat __stage 2>&1)
if grep -q 'sbxsup-preload' <<<"$out"; then
	t_pass preload_not_passive_elsewhere
else t_fail preload_not_passive_elsewhere "$out"; fi

# elfcheck
printf '#!%s\n' "$P/pl_hello_static" > "$T_TMP/static-script"; chmod +x "$T_TMP/static-script"
printf '#!/usr/bin/env sh\necho 1\n' > "$T_TMP/py-script"; chmod +x "$T_TMP/py-script"
ok=1; msg=""
chk() { local want=$1 cmd=$2 out; out=$("$P/pl_elfcheck" "$cmd" 2>&1); grep -q -- "$want" <<<"$out" || { ok=0; msg="$msg [$cmd: $out]"; }; }
chk 'preload_ok=1 static=0 elf=1 script=0 glibc=1' true
chk 'preload_ok=0 static=1 elf=1' "$P/pl_hello_static"
chk 'why=static binary' "$P/pl_hello_static"
chk 'preload_ok=0 static=1 elf=1 script=1' "$T_TMP/static-script"
chk 'preload_ok=1 static=0 elf=1 script=1 glibc=1' "$T_TMP/py-script"
chk 'preload_ok=0 static=0 elf=0' /etc/passwd
chk 'error errno=2' no-such-command-xyz
if [ $ok = 1 ]; then t_pass preload_elfcheck; else t_fail preload_elfcheck "$msg"; fi

# SBXSUP_REPORT_ADDR: records still arrive when the inherited report fd was closed with a raw
# close (the library reconnects to the supervisor's address); the denial is still enforced.
out=$(LD_PRELOAD= /usr/bin/python3 - "$LIB" "$P/pl_rawclose" "$T_TMP/rep.sock" <<'PY' 2>&1
import os, sys, socket, subprocess, struct
lib, prog, path = sys.argv[1:4]
srv = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM); srv.bind(path)
a, b = socket.socketpair(socket.AF_UNIX, socket.SOCK_DGRAM)
env = dict(os.environ, LD_PRELOAD=lib, SBXSUP_REPORT_FD=str(b.fileno()), SBXSUP_REPORT_ADDR=path)
env.pop("SBXSUP_POLICY_FD", None)
r = subprocess.run([prog, "/etc/passwd"], env=env, pass_fds=[b.fileno()], capture_output=True, text=True)
print("rc", r.returncode, r.stdout.strip())
kinds = []   # every record was queued before the child exited: read without waiting
srv.setblocking(False)
try:
    while True:
        d = srv.recv(8192)
        if d[:4] == b"SBXR": kinds.append(struct.unpack_from("<H", d, 6)[0])
except BlockingIOError: pass
a.setblocking(False)
first = []
try:
    while True:
        d = a.recv(8192); first.append(struct.unpack_from("<H", d, 6)[0])
except BlockingIOError: pass
print("via-fd", first, "via-addr", kinds)
PY
)
# type 1 = ack (sent on the inherited fd at load), type 2 = deny (after the raw close: via the address)
if grep -q "rc 1 open refused" <<<"$out" && grep -q "via-fd \[1\]" <<<"$out" && grep -q "via-addr \[2\]" <<<"$out"; then
	t_pass preload_report_reconnect
else t_fail preload_report_reconnect "$out"; fi
