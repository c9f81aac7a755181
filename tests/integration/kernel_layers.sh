#!/usr/bin/env bash
# kernel_layers.sh — seccomp, Landlock and netfilter through `sbxsup run`, each layer ALONE against
# an attack only it stops, and the three together (issue 5 "done when"). The attacker is a static
# binary making raw system calls ($SBX_PROGS/k_attack_static), so the preload never sees it.
# Every attack asserts: the call failed with the layer's errno, AND the audit stream names the layer
# (seccomp.deny / netfilter.deny; Landlock has no sbxsup event of its own — its denials go to the
# kernel audit log — so for Landlock the run.start record must show the layer active).
. "$(dirname "$0")/../lib.sh"

ATT=$SBX_PROGS/k_attack_static
[ -x "$ATT" ] || { t_fail kernel_setup "missing $ATT (make progs)"; exit 0; }
need_root kernel_layers || exit 0

# the denied file lives outside /tmp (the private /tmp is writable), outside the workspace, outside $HOME
SECRET_DIR=$(mktemp -d /var/tmp/sbxsup-kernel.XXXXXX)
t_on_exit "rm -rf '$SECRET_DIR'"
echo "top secret" > "$SECRET_DIR/secret"
WS=$T_TMP/ws
mkdir -p "$WS"

# a granted TCP listener on 127.0.0.1 (ephemeral port), started by us, killed at exit
PORTF=$T_TMP/port
python3 -c '
import socket, sys, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(64)
open(sys.argv[1] + ".tmp", "w").write(str(s.getsockname()[1])); __import__("os").rename(sys.argv[1] + ".tmp", sys.argv[1])
while True:
    c, _ = s.accept(); c.close()
' "$PORTF" &
LPID=$!
t_on_exit "kill $LPID 2>/dev/null; wait $LPID 2>/dev/null"
for _ in $(seq 1 100); do [ -s "$PORTF" ] && break; sleep 0.05; done
PORT=$(cat "$PORTF" 2>/dev/null)
[ -n "$PORT" ] || { t_fail kernel_setup "listener did not start"; exit 0; }

MF=$T_TMP/k.json
cat > "$MF" <<JSON
{"sbxsup": 1, "name": "k-attack", "code_path": "$ATT",
 "capabilities": [{"cap": "network:tcp", "hosts": ["127.0.0.1:$PORT"]}]}
JSON
# the same with code:exec, for the tests whose command is a shell that starts programs (without
# code:exec Landlock lets only the command itself be exec'd: see kernel_exec.sh)
MFX=$T_TMP/kx.json
cat > "$MFX" <<JSON
{"sbxsup": 1, "name": "k-attack", "code_path": "$ATT",
 "capabilities": ["code:exec", {"cap": "network:tcp", "hosts": ["127.0.0.1:$PORT"]}]}
JSON

# run LAYERS AUDIT OUT -- ATTACK...   (exit status of sbxsup in $RC)
krun() {
	local layers=$1 audit=$2 out=$3; shift 4
	local req=(); [ "$layers" = none ] || req=(--require "$layers")
	(cd "$WS" && "$SBXSUP" run -m "$MF" -w "$WS" -a "$audit" --layers "$layers" "${req[@]}" \
		-- "$ATT" "$@") >"$out" 2>"$out.err" </dev/null
	RC=$?
}
has() { grep -qx -- "$2" "$1"; }
why() { echo "rc=$RC out=[$(tr '\n' ';' <"$1")] err=[$(head -c 400 "$1.err" | tr '\n' ';')]"; }

# --- the issue's "done when": the three together -------------------------------------------------
A=$T_TMP/all.jsonl; O=$T_TMP/all.out
# The connect goes to a port no grant names, on an address outside: in the run's own network namespace
# Landlock handles no TCP (its loopback is the run's), the address is netfilter's to refuse. (Another
# address on the granted PORT reaches the gateway, which decides by name: netns.sh.)
krun seccomp,landlock,netfilter "$A" "$O" -- open "$SECRET_DIR/secret" connect 10.255.255.1 9 ptrace
if [ $RC = 0 ] && has "$O" "open: blocked EACCES" && has "$O" "connect: blocked EPERM" && has "$O" "ptrace: blocked EPERM" \
   && audit_has "$A" seccomp.deny syscall=ptrace "action=errno EPERM" src=kernel pid? \
   && audit_has "$A" netfilter.deny addr=10.255.255.1 port=9 proto=tcp src=kernel pid? \
   && audit_has "$A" run.start layers.seccomp=true layers.landlock=true layers.netfilter=true; then
	t_pass kernel_all_three_static_attacks
else
	t_fail kernel_all_three_static_attacks "$(why "$O")"
fi

# --- Landlock alone: a static binary reading a denied file ------------------------------------------
A=$T_TMP/ll.jsonl; O=$T_TMP/ll.out
krun landlock "$A" "$O" -- open "$SECRET_DIR/secret" open /etc/shadow
if [ $RC = 0 ] && has "$O" "open: blocked EACCES" && [ "$(grep -c 'open: blocked EACCES' "$O")" = 2 ] \
   && audit_has "$A" run.start layers.landlock=true layers.seccomp=false layers.netfilter=false; then
	t_pass kernel_landlock_alone_static_read
else
	t_fail kernel_landlock_alone_static_read "$(why "$O")"
fi

# --- Landlock scoping alone: an abstract unix socket outside the sandbox ---------------------------------
ABS=sbxsup-kernel-test-$$
python3 -c '
import socket, sys, os
s = socket.socket(socket.AF_UNIX); s.bind("\0" + sys.argv[1]); s.listen(64)
open(sys.argv[2], "w").close()
while True:
    c, _ = s.accept(); c.close()
' "$ABS" "$T_TMP/abs.ready" &
APID=$!
t_on_exit "kill $APID 2>/dev/null; wait $APID 2>/dev/null"
for _ in $(seq 1 100); do [ -e "$T_TMP/abs.ready" ] && break; sleep 0.05; done
# (an unrestricted network keeps the host's network namespace, where the name lives: otherwise the
# run's own namespace has no such name at all)
MFA=$T_TMP/kany.json
cat > "$MFA" <<JSON
{"sbxsup": 1, "name": "k-attack", "code_path": "$ATT", "capabilities": [{"cap": "network:tcp"}]}
JSON
A=$T_TMP/la.jsonl; O=$T_TMP/la.out
MF=$MFA krun landlock "$A" "$O" -- abstract "$ABS"
A2=$T_TMP/la0.jsonl; O2=$T_TMP/la0.out
MF=$MFA krun none "$A2" "$O2" -- abstract "$ABS"
if has "$O" "abstract: blocked EPERM" && has "$O2" "abstract: SUCCEEDED" \
   && audit_has "$A" run.start layers.landlock=true layers.seccomp=false; then
	t_pass kernel_landlock_scope_abstract_socket_outside
else
	t_fail kernel_landlock_scope_abstract_socket_outside "$(why "$O") control: $(tr '\n' ';' <"$O2")"
fi

# --- a signal to a process outside the sandbox ----------------------------------------------------------
# sbxsup runs the executor in its own pid namespace, so an outside pid is not even addressable (ESRCH)
# and an inherited pidfd is refused (EINVAL); Landlock's signal scoping (proved alone in
# unit/test_landlock: test_scope_signal) is the second line for hosts where the pid namespace fails.
# (started without capabilities, like the executor: sbxsup drops them before exec, and a process
# without CAP_SYS_PTRACE may not read a same-uid process's /proc/<pid>/environ that holds more —
# the /proc control below needs the victim readable by a capability-less root)
setpriv --inh-caps=-all --bounding-set=-all sleep 300 & VPID=$!
t_on_exit "kill $VPID 2>/dev/null; wait $VPID 2>/dev/null"
A=$T_TMP/ls.jsonl; O=$T_TMP/ls.out
krun landlock "$A" "$O" -- kill "$VPID"
if grep -qE '^kill: blocked (EPERM|ESRCH)$' "$O" && kill -0 "$VPID" \
   && [ "$(ps -o stat= -p "$VPID" | cut -c1)" != T ] && audit_has "$A" run.start layers.landlock=true; then
	t_pass kernel_signal_outside_blocked
else
	t_fail kernel_signal_outside_blocked "$(why "$O")"
fi

# --- Landlock and /proc: another process's /proc/<pid> is never granted (the host /proc in no-bwrap mode
# is narrowed to its top-level files + the command's own /proc/<pid>); bwrap's private /proc stays whole --
A=$T_TMP/lp.jsonl; O=$T_TMP/lp.out
# (since sandbox_direct, the no-bwrap world has its own pid namespace and procfs when the kernel
# allows: the victim is then not even there — ENOENT; Landlock's narrowing is the line behind it)
krun landlock "$A" "$O" -- open "/proc/$VPID/environ" open /proc/meminfo open /proc/self/status
O2=$O
if grep -qE '^open: blocked (EACCES|ENOENT)$' "$O" && [ "$(grep -c 'open: SUCCEEDED' "$O")" = 2 ] \
   && audit_has "$A" run.start layers.landlock=true; then
	t_pass kernel_landlock_proc_other_pid_denied
else
	t_fail kernel_landlock_proc_other_pid_denied "$(why "$O") control: $(tr '\n' ';' <"$O2")"
fi
if command -v bwrap >/dev/null 2>&1; then
	O=$T_TMP/lpb.out
	(cd "$WS" && "$SBXSUP" run -m "$MFX" -w "$WS" --layers bwrap,landlock --require bwrap,landlock \
		-- /bin/sh -c 'cat /proc/self/status >/dev/null && echo child-proc-self-ok') >"$O" 2>"$O.err" </dev/null
	RC=$?
	if [ $RC = 0 ] && has "$O" child-proc-self-ok; then
		t_pass kernel_landlock_bwrap_private_proc_whole
	else
		t_fail kernel_landlock_bwrap_private_proc_whole "$(why "$O")"
	fi
else
	t_skip kernel_landlock_bwrap_private_proc_whole "needs bwrap"
fi

# --- seccomp alone: ptrace of the parent, user-namespace unshare, foreign ABIs, io_uring ----------------
A=$T_TMP/sc.jsonl; O=$T_TMP/sc.out
krun seccomp "$A" "$O" -- ptrace unshare int80 x32 io_uring raw 127.0.0.2
if [ $RC = 0 ] && has "$O" "ptrace: blocked EPERM" && has "$O" "unshare: blocked EPERM" && has "$O" "raw: blocked EPERM" \
   && audit_has "$A" seccomp.deny syscall=socket "action=errno EPERM" \
   && has "$O" "int80: blocked EPERM" && has "$O" "x32: blocked EPERM" && has "$O" "io_uring: blocked ENOSYS" \
   && audit_has "$A" seccomp.deny syscall=ptrace "action=errno EPERM" \
   && audit_has "$A" seccomp.deny syscall=unshare "action=errno EPERM" \
   && audit_has "$A" seccomp.deny syscall=x86:getpid \
   && audit_has "$A" seccomp.deny syscall=x32:getpid \
   && audit_has "$A" seccomp.deny syscall=io_uring_setup "action=errno ENOSYS" \
   && audit_has "$A" run.start layers.seccomp=true layers.landlock=false; then
	t_pass kernel_seccomp_alone_ptrace_unshare_foreign_abi
else
	t_fail kernel_seccomp_alone_ptrace_unshare_foreign_abi "$(why "$O")"
fi

# --- netfilter alone: raw-syscall connect / sendto to non-granted addresses; the granted one works --
A=$T_TMP/nf.jsonl; O=$T_TMP/nf.out
krun netfilter "$A" "$O" -- connect 127.0.0.1 "$PORT" connect 10.255.255.2 9 connect 10.255.255.1 9 udp 10.255.255.3 9
if [ $RC = 1 ] && has "$O" "connect: SUCCEEDED" && [ "$(grep -c 'connect: blocked EPERM' "$O")" = 2 ] \
   && has "$O" "udp: blocked EPERM" \
   && audit_has "$A" netfilter.deny addr=10.255.255.2 port=9 proto=tcp \
   && audit_has "$A" netfilter.deny addr=10.255.255.1 port=9 proto=tcp \
   && audit_has "$A" netfilter.deny addr=10.255.255.3 port=9 proto=udp \
   && audit_has "$A" run.start layers.netfilter=true layers.seccomp=false; then
	t_pass kernel_netfilter_alone_raw_connect
else
	t_fail kernel_netfilter_alone_raw_connect "$(why "$O")"
fi

# --- netfilter's scope is the run cgroup: a root executor could move itself out of it; Landlock closes that --
CG2=$(awk '{for (i = 1; i <= NF; i++) if ($i == "-") { if ($(i+1) == "cgroup2") print $5; break }}' /proc/self/mountinfo | head -1)
if [ -n "$CG2" ]; then
	A=$T_TMP/esc.jsonl; O=$T_TMP/esc.out
	(cd "$WS" && "$SBXSUP" run -m "$MFX" -w "$WS" -a "$A" --layers netfilter,landlock --require netfilter,landlock \
		-- /bin/sh -c "echo \$\$ > '$CG2/cgroup.procs' && echo moved; exec '$ATT' connect 10.255.255.1 9") \
		>"$O" 2>"$O.err" </dev/null
	RC=$?
	if ! has "$O" moved && has "$O" "connect: blocked EPERM" \
	   && audit_has "$A" netfilter.deny addr=10.255.255.1 port=9; then
		t_pass kernel_netfilter_cgroup_escape_blocked_by_landlock
	else
		t_fail kernel_netfilter_cgroup_escape_blocked_by_landlock "$(why "$O")"
	fi
else
	t_fail kernel_netfilter_cgroup_escape_blocked_by_landlock "no cgroup2 mount in mountinfo"
fi

# --- bwrap mode: the stage inside bwrap applies Landlock + seccomp; netfilter on the shared network --
if command -v bwrap >/dev/null 2>&1; then
	A=$T_TMP/bw.jsonl; O=$T_TMP/bw.out
	krun bwrap,seccomp,landlock,netfilter "$A" "$O" -- ptrace x32 connect 10.255.255.1 9 connect 127.0.0.1 "$PORT"
	if [ $RC = 1 ] && has "$O" "ptrace: blocked EPERM" && has "$O" "x32: blocked EPERM" \
	   && has "$O" "connect: blocked EPERM" && has "$O" "connect: SUCCEEDED" \
	   && audit_has "$A" seccomp.deny syscall=ptrace && audit_has "$A" seccomp.deny syscall=x32:getpid \
	   && audit_has "$A" netfilter.deny addr=10.255.255.1 port=9 \
	   && audit_has "$A" run.start layers.bwrap=true layers.seccomp=true layers.landlock=true layers.netfilter=true; then
		t_pass kernel_bwrap_mode_layers
	else
		t_fail kernel_bwrap_mode_layers "$(why "$O")"
	fi
else
	t_skip kernel_bwrap_mode_layers "needs bwrap"
fi

# --- control: with no kernel layer the same static attacks go through (so the tests above prove the layers) --
A=$T_TMP/none.jsonl; O=$T_TMP/none.out
# (the file may still be out of reach: the no-bwrap world's identity and mount namespace hide it)
krun none "$A" "$O" -- open "$SECRET_DIR/secret" connect 127.0.0.1 "$PORT"
if has "$O" "connect: SUCCEEDED" && [ "$(audit_count "$A" seccomp.deny)" = 0 ]; then
	t_pass kernel_control_no_layers_static_attacks_succeed
else
	t_fail kernel_control_no_layers_static_attacks_succeed "$(why "$O")"
fi

# --- dry-run plan lists the three layers' rules --------------------------------------------------------
if (cd "$WS" && "$SBXSUP" run -m "$MF" -w "$WS" --layers seccomp,landlock,netfilter --dry-run -- "$ATT") >"$T_TMP/plan.json" 2>/dev/null \
   && python3 - "$T_TMP/plan.json" "$PORT" <<'PY'
import json, sys
s = open(sys.argv[1]).read()
assert '"ptrace"' in s, "seccomp rules"
assert 'handled_fs' in s or 'fs_rules' in s, "landlock rules"
assert '127.0.0.1/32' in s, "netfilter allowlist"
PY
then
	t_pass kernel_dry_run_plan
else
	t_fail kernel_dry_run_plan "$(head -c 300 "$T_TMP/plan.json")"
fi
