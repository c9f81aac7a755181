#!/usr/bin/env bash
# kernel_exec_gate.sh — seccomp's exec gate (escape finding 1, the part Landlock cannot do): without
# code:exec the filter routes execve/execveat to the supervisor, which lets the stage's own execve
# of the command continue and refuses every later one with EACCES + seccomp.deny. This also closes
# the loader hole Landlock leaves (`ld.so PROGRAM` through the granted dynamic loader).
. "$(dirname "$0")/../lib.sh"

ATT=$SBX_PROGS/k_attack_static
[ -x "$ATT" ] || { t_fail kernel_exec_gate_setup "missing $ATT (make progs)"; exit 0; }
need_root kernel_exec_gate || exit 0

WS=$T_TMP/ws
CODE=$T_TMP/code
mkdir -p "$WS" "$CODE"
cp "$ATT" "$CODE/k_attack_static"
ATT=$CODE/k_attack_static
LDSO=$(readlink -f /lib64/ld-linux-x86-64.so.2 2>/dev/null || true)
[ -n "$LDSO" ] && [ -e "$LDSO" ] || LDSO=/lib64/ld-linux-x86-64.so.2

mf() { cat >"$1" <<JSON
{"sbxsup": 1, "name": "k-gate", "code_path": "$CODE", "capabilities": $2}
JSON
}
MF_NO=$T_TMP/noexec.json; mf "$MF_NO" '[]'
MF_EX=$T_TMP/exec.json;   mf "$MF_EX" '["code:exec"]'

krun() { # krun MANIFEST LAYERS AUDIT OUT -- COMMAND...
	local mf=$1 layers=$2 audit=$3 out=$4; shift 5
	(cd "$WS" && "$SBXSUP" run -m "$mf" -w "$WS" -a "$audit" --layers "$layers" --require "$layers" \
		-- "$@") >"$out" 2>"$out.err" </dev/null
	RC=$?
}
why() { echo "rc=$RC out=[$(tr '\n' ';' <"$1")] err=[$(head -c 400 "$1.err" | tr '\n' ';')]"; }

# --- seccomp alone: a static binary's raw execve, and the loader run as a program ------------------
A=$T_TMP/g1.jsonl; O=$T_TMP/g1
krun "$MF_NO" seccomp "$A" "$O" -- "$ATT" exec /bin/true exec "$LDSO"
if [ $RC = 0 ] && [ "$(grep -c '^exec: blocked EACCES$' "$O")" = 2 ] \
   && audit_has "$A" seccomp.deny syscall=execve "action=errno EACCES" src=kernel pid? \
   && [ "$(audit_count "$A" seccomp.deny)" = 2 ]; then
	t_pass kernel_exec_gate_seccomp_alone_raw_execve_reported
else
	t_fail kernel_exec_gate_seccomp_alone_raw_execve_reported "$(why "$O")"
fi

# --- the loader hole: Landlock grants ld.so EXECUTE for a dynamic command; the gate refuses it -----
A=$T_TMP/g2.jsonl; O=$T_TMP/g2
krun "$MF_NO" seccomp,landlock "$A" "$O" -- /bin/sh -c "'$LDSO' /usr/bin/id; echo rc=\$?"
if grep -qx 'rc=126' "$O" && ! grep -q uid= "$O" && audit_has "$A" seccomp.deny syscall=execve "action=errno EACCES"; then
	t_pass kernel_exec_gate_ldso_program_refused
else
	t_fail kernel_exec_gate_ldso_program_refused "$(why "$O")"
fi

# --- control: with code:exec the gate is not in the filter ---------------------------------------------
A=$T_TMP/g3.jsonl; O=$T_TMP/g3
krun "$MF_EX" seccomp "$A" "$O" -- "$ATT" exec /bin/true
if [ $RC = 1 ] && grep -qx 'exec: SUCCEEDED' "$O" && [ "$(audit_count "$A" seccomp.deny)" = 0 ]; then
	t_pass kernel_exec_gate_codeexec_control
else
	t_fail kernel_exec_gate_codeexec_control "$(why "$O")"
fi

# --- bwrap mode: the stage inside bwrap installs the same filter ----------------------------------------
if command -v bwrap >/dev/null 2>&1; then
	A=$T_TMP/g4.jsonl; O=$T_TMP/g4
	krun "$MF_NO" bwrap,seccomp "$A" "$O" -- "$ATT" exec /bin/true
	if [ $RC = 0 ] && grep -qx 'exec: blocked EACCES' "$O" && audit_has "$A" seccomp.deny syscall=execve; then
		t_pass kernel_exec_gate_bwrap
	else
		t_fail kernel_exec_gate_bwrap "$(why "$O")"
	fi
else
	t_fail kernel_exec_gate_bwrap "bwrap missing (installed on this host by the deps)"
fi
