#!/usr/bin/env bash
# kernel_exec.sh — exec without code:exec is contained by Landlock (escape finding 1), through
# `sbxsup run`. The attacker is a static binary making a raw execve ($SBX_PROGS/k_attack_static
# exec PATH), so neither the preload nor a libc wrapper is involved. Without code:exec Landlock
# grants EXECUTE only to the command's own exec chain (the command, its ELF interpreter, a script's
# interpreter): the raw execve of /bin/true fails with EACCES. Controls: with code:exec it runs;
# the initial command still starts (dynamic, static, a #! script, a #!/usr/bin/env script), also
# in bwrap mode. Landlock has no sbxsup event of its own (its denials go to the kernel audit log),
# so the run.start record must show the layer active.
. "$(dirname "$0")/../lib.sh"

ATT=$SBX_PROGS/k_attack_static
[ -x "$ATT" ] || { t_fail kernel_exec_setup "missing $ATT (make progs)"; exit 0; }
need_root kernel_exec || exit 0

WS=$T_TMP/ws
CODE=$T_TMP/code
mkdir -p "$WS" "$CODE"
cp "$ATT" "$CODE/k_attack_static"
ATT=$CODE/k_attack_static
printf '#!/bin/sh\n/usr/bin/id >/dev/null 2>&1 && exit 1\nexit 7\n' >"$CODE/script.sh"
printf '#!/usr/bin/env sh\n/usr/bin/id >/dev/null 2>&1 && exit 1\nexit 5\n' >"$CODE/envscript.sh"
chmod 755 "$CODE/script.sh" "$CODE/envscript.sh"

mf() { # mf FILE CAPS_JSON
	cat >"$1" <<JSON
{"sbxsup": 1, "name": "k-exec", "code_path": "$CODE", "capabilities": $2}
JSON
}
MF_NO=$T_TMP/noexec.json; mf "$MF_NO" '[]'
MF_EX=$T_TMP/exec.json;   mf "$MF_EX" '["code:exec"]'

# krun MANIFEST LAYERS AUDIT OUT -- COMMAND...   (exit status of sbxsup in $RC)
krun() {
	local mf=$1 layers=$2 audit=$3 out=$4; shift 5
	(cd "$WS" && "$SBXSUP" run -m "$mf" -w "$WS" -a "$audit" --layers "$layers" --require "$layers" \
		-- "$@") >"$out" 2>"$out.err" </dev/null
	RC=$?
}
has() { grep -qx -- "$2" "$1"; }
why() { echo "rc=$RC out=[$(tr '\n' ';' <"$1")] err=[$(head -c 400 "$1.err" | tr '\n' ';')]"; }

# --- the finding: raw execve of /bin/true without code:exec -------------------------------------
A=$T_TMP/a1.jsonl; O=$T_TMP/o1
krun "$MF_NO" landlock "$A" "$O" -- "$ATT" exec /bin/true exec /usr/bin/env
if [ $RC = 0 ] && [ "$(grep -c '^exec: blocked EACCES$' "$O")" = 2 ] \
   && audit_has "$A" run.start layers.landlock=true; then
	t_pass kernel_exec_raw_static_no_codeexec_blocked
else
	t_fail kernel_exec_raw_static_no_codeexec_blocked "$(why "$O")"
fi

# --- control: with code:exec the same execs run ----------------------------------------------------
A=$T_TMP/a2.jsonl; O=$T_TMP/o2
krun "$MF_EX" landlock "$A" "$O" -- "$ATT" exec /bin/true exec /usr/bin/env
if [ $RC = 2 ] && [ "$(grep -c '^exec: SUCCEEDED$' "$O")" = 2 ] && audit_has "$A" run.start layers.landlock=true; then
	t_pass kernel_exec_raw_static_codeexec_runs
else
	t_fail kernel_exec_raw_static_codeexec_runs "$(why "$O")"
fi

# --- the initial command still starts without code:exec ------------------------------------------
A=$T_TMP/a3.jsonl; O=$T_TMP/o3
krun "$MF_NO" landlock "$A" "$O" -- /usr/bin/true
t_check kernel_exec_initial_dynamic_starts [ "$RC" = 0 ]
A=$T_TMP/a4.jsonl; O=$T_TMP/o4
krun "$MF_NO" landlock "$A" "$O" -- "$ATT"
t_check kernel_exec_initial_static_starts [ "$RC" = 0 ]
# a dynamic command found on PATH (resolved by the stage)
A=$T_TMP/a5.jsonl; O=$T_TMP/o5
krun "$MF_NO" landlock "$A" "$O" -- env
t_check kernel_exec_initial_path_lookup_starts [ "$RC" = 0 ]
# scripts: they start (exit 7 / 5), and what they exec is refused (else they exit 1)
A=$T_TMP/a6.jsonl; O=$T_TMP/o6
krun "$MF_NO" landlock "$A" "$O" -- "$CODE/script.sh"
if [ "$RC" = 7 ]; then t_pass kernel_exec_initial_script_starts_child_exec_refused
else t_fail kernel_exec_initial_script_starts_child_exec_refused "$(why "$O")"; fi
A=$T_TMP/a7.jsonl; O=$T_TMP/o7
krun "$MF_NO" landlock "$A" "$O" -- "$CODE/envscript.sh"
if [ "$RC" = 5 ]; then t_pass kernel_exec_initial_env_script_starts_child_exec_refused
else t_fail kernel_exec_initial_env_script_starts_child_exec_refused "$(why "$O")"; fi
# control: with code:exec the script's exec works (exit 1)
A=$T_TMP/a8.jsonl; O=$T_TMP/o8
krun "$MF_EX" landlock "$A" "$O" -- "$CODE/script.sh"
t_check kernel_exec_script_codeexec_child_exec_runs [ "$RC" = 1 ]

# --- bwrap mode: the stage inside the sandbox applies the same rule -------------------------------
if command -v bwrap >/dev/null 2>&1; then
	A=$T_TMP/a9.jsonl; O=$T_TMP/o9
	krun "$MF_NO" bwrap,landlock "$A" "$O" -- "$ATT" exec /bin/true
	if [ $RC = 0 ] && has "$O" "exec: blocked EACCES" && audit_has "$A" run.start layers.landlock=true layers.bwrap=true; then
		t_pass kernel_exec_raw_static_no_codeexec_bwrap_blocked
	else
		t_fail kernel_exec_raw_static_no_codeexec_bwrap_blocked "$(why "$O")"
	fi
else
	t_fail kernel_exec_raw_static_no_codeexec_bwrap_blocked "bwrap missing (installed on this host by the deps)"
fi
