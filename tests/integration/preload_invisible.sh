#!/usr/bin/env bash
# preload_invisible.sh — the preload stays invisible where the run has a mount tree of its own
# (bwrap, or no-bwrap with a mount namespace): its policy is /run/sbxsup/policy (read-only), its
# reports go to /run/sbxsup/report from a socket it opens and closes per record, /etc/ld.so.preload
# loads it. So a child started with `env -i`, or by subprocess with pass_fds/close_fds, sees no
# descriptor of sbxsup's and no SBXSUP_*/LD_PRELOAD variable — and is still under the policy (a
# secret read is refused and reported). A program that closes every descriptor (close_range(3, ~0))
# and then opens files gets its reports delivered, never written into its own files.
source "$(dirname "$0")/../lib.sh"
S=$SBXSUP
need_cmd preload_invisible python3 || exit 0
H=$T_TMP/home; WS=$T_TMP/ws
mkdir -p "$H/.ssh" "$WS"; echo FAKE-KEY > "$H/.ssh/id_rsa"; chmod 755 "$T_TMP" "$WS"
export HOME=$H
SECRET=$H/.ssh/id_rsa
cd "$WS" || exit 1
cat > "$T_TMP/m.json" <<EOF2
{"sbxsup": 1, "name": "invisible", "capabilities": ["code:exec"], "limits": {"wall_s": 60}}
EOF2

# what a process sees of sbxsup: its descriptors (readlink) and variables
cat > "$WS/look.py" <<'EOF2'
import os, sys
fds = {}
for f in os.listdir('/proc/self/fd'):
    try:
        fds[f] = os.readlink('/proc/self/fd/' + f)
    except OSError:
        pass
ours = [f + '->' + t for f, t in fds.items() if 'sbxsup' in t or 'socket:' in t or 'memfd' in t]
env = [k for k in os.environ if k.startswith('SBXSUP') or k.startswith('LD_')]
try:
    open(sys.argv[1]).read()
    sec = 'READ'
except OSError as e:
    sec = 'refused ' + str(e.errno)
print('LOOK', sys.argv[2], 'fds=%s env=%s secret=%s' % (ours, env, sec))
EOF2
cat > "$WS/spawn.py" <<'EOF2'
import os, subprocess, sys
r, w = os.pipe()
subprocess.run([sys.executable, 'look.py', sys.argv[1], 'pass_fds'], pass_fds=[w], close_fds=True)
subprocess.run([sys.executable, 'look.py', sys.argv[1], 'inherit'], close_fds=False)
EOF2
# close_range(3, ~0) through libc, then files; a denial in between; the files hold only our bytes
cat > "$WS/closeall.py" <<'EOF2'
import ctypes, os, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.close_range(3, 0xffffffff, 0)
fds = [os.open('f%d' % i, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600) for i in range(6)]
for k in range(3):
    try:
        open(sys.argv[1]).read()
        print('SECRET READ')
    except OSError:
        pass
for i, fd in enumerate(fds):
    os.write(fd, b'mine%d\n' % i)
    os.close(fd)
print('CLOSEALL fds', fds)
EOF2

declare -A LAYERS=([full]="" [no-bwrap]="--layers preload,seccomp,landlock,netfilter,probes")
run() { local n=$1 mode=$2; shift 2; # shellcheck disable=SC2086
	"$S" run -m "$T_TMP/m.json" -w "$WS" -a "$T_TMP/$n.audit" ${LAYERS[$mode]} -- "$@"; }
# the channel this mode got: fixed (nothing in the environment) or the environment
fixed_mode() { [ -z "$(run "probe-$1" "$1" /bin/sh -c 'printf %s "${SBXSUP_POLICY_FD:-}"' 2>/dev/null)" ]; }

for mode in full no-bwrap; do
	run "bw-$mode" "$mode" true >/dev/null 2>&1
	if ! audit_has "$T_TMP/bw-$mode.audit" run.start layers.preload=true; then
		t_skip "preload_invisible_$mode" "no preload run in this mode here"; continue
	fi
	if [ "$mode" = full ] && ! audit_has "$T_TMP/bw-$mode.audit" run.start layers.bwrap=true; then
		t_skip "preload_invisible_$mode" "bwrap is not usable here"; continue
	fi
	if ! fixed_mode "$mode"; then
		t_skip "preload_invisible_$mode" "no mount namespace here: the environment is the channel (README Known gaps)"
		continue
	fi
	# 1. env -i child and subprocess children: nothing of ours, still under the policy
	n=look-$mode
	out=$(run "$n" "$mode" /bin/sh -c "env -i /usr/bin/python3 look.py '$SECRET' env-i; python3 spawn.py '$SECRET'" 2>&1); rc=$?
	good=$(grep -cE "fds=\[\] env=\[\] secret=refused (2|13)$" <<<"$out")
	if [ $rc -eq 0 ] && [ "$good" = 3 ] && ! grep -q FAKE-KEY <<<"$out" &&
	   audit_has "$T_TMP/$n.audit" preload.deny op=open path="$SECRET" comm=python3 &&
	   ! audit_has "$T_TMP/$n.audit" kernel.violation path~/run/sbxsup; then
		t_pass "preload_invisible_children_$mode"
	else
		t_fail "preload_invisible_children_$mode" "rc=$rc good=$good: $out $(grep -o '"event":"[^"]*"[^}]*"path":"[^"]*"' "$T_TMP/$n.audit" | tr '\n' ' ')"
	fi
	# 2. close_range(3, ~0) then files: reports arrive, the files hold only the program's bytes
	n=closeall-$mode
	rm -f "$WS"/f?
	out=$(run "$n" "$mode" python3 closeall.py "$SECRET" 2>&1); rc=$?
	clean=1
	for i in 0 1 2 3 4 5; do [ "$(cat "$WS/f$i" 2>/dev/null)" = "mine$i" ] || clean=0; done
	if [ $rc -eq 0 ] && [ $clean = 1 ] && grep -q 'CLOSEALL fds \[3, 4, 5, 6, 7, 8\]' <<<"$out" &&
	   ! grep -q 'SECRET READ' <<<"$out" &&
	   audit_has "$T_TMP/$n.audit" preload.deny op=open path="$SECRET" comm=python3; then
		t_pass "preload_invisible_closeall_$mode"
	else
		t_fail "preload_invisible_closeall_$mode" "rc=$rc clean=$clean: $out $(head -c 300 "$WS"/f? 2>/dev/null | od -c | head -5)"
	fi
	# 3. the policy at the fixed path is read-only: no write, unlink or rename (libc, and the
	#    kernel below it), and is unchanged afterwards
	n=ro-$mode
	out=$(run "$n" "$mode" python3 -c '
import hashlib, os
p = "/run/sbxsup/policy"
h = hashlib.sha256(open(p, "rb").read()).hexdigest()
res = []
for f in (lambda: open(p, "r+b"), lambda: os.unlink(p), lambda: os.rename(p, "/run/sbxsup/x"),
          lambda: os.rename("/run/sbxsup", "/run/x"), lambda: os.rename("/etc", "/etc2"),
          lambda: os.unlink("/etc/ld.so.preload")):
    try:
        f(); res.append("DONE")
    except OSError as e:
        res.append(e.errno)
print("RO", res, hashlib.sha256(open(p, "rb").read()).hexdigest() == h)
' 2>&1); rc=$?
	if [ $rc -eq 0 ] && grep -q "^RO " <<<"$out" && ! grep -q DONE <<<"$out" && grep -q "True$" <<<"$out"; then
		t_pass "preload_invisible_policy_readonly_$mode"
	else
		t_fail "preload_invisible_policy_readonly_$mode" "rc=$rc: $out"
	fi
done
