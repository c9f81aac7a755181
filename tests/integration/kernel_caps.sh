#!/usr/bin/env bash
# kernel_caps.sh — the executor is powerless even as root without bwrap (escape finding 7): the
# stage calls sbx_caps_drop() just before exec in every mode, so the command starts with
# no_new_privs and empty capability sets (bounding set included) while staying uid 0. Attacks from
# a static binary making raw system calls: open_by_handle_at (CAP_DAC_READ_SEARCH) and raising the
# hard RLIMIT_NOFILE (CAP_SYS_RESOURCE) fail with EPERM. Capabilities are not a layer and have no
# audit event of their own: the assertion is on the executor's own /proc/self/status (the kernel's
# record) plus run.start; in seccomp mode open_by_handle_at is also reported as seccomp.deny.
. "$(dirname "$0")/../lib.sh"

ATT=$SBX_PROGS/k_attack_static
[ -x "$ATT" ] || { t_fail kernel_caps_setup "missing $ATT (make progs)"; exit 0; }
need_root kernel_caps || exit 0

WS=$T_TMP/ws
CODE=$T_TMP/code
mkdir -p "$WS" "$CODE"
cp "$ATT" "$CODE/k_attack_static"
ATT=$CODE/k_attack_static
echo "handle target" >"$CODE/target"
MF=$T_TMP/caps.json
cat >"$MF" <<JSON
{"sbxsup": 1, "name": "k-caps", "code_path": "$CODE", "capabilities": ["code:exec"]}
JSON

# krun LAYERS AUDIT OUT -- COMMAND...   (exit status of sbxsup in $RC)
krun() {
	local layers=$1 audit=$2 out=$3; shift 4
	local req=(); [ "$layers" = none ] || req=(--require "$layers")
	(cd "$WS" && "$SBXSUP" run -m "$MF" -w "$WS" -a "$audit" --layers "$layers" "${req[@]}" \
		-- "$@") >"$out" 2>"$out.err" </dev/null
	RC=$?
}
has() { grep -qx -- "$2" "$1"; }
why() { echo "rc=$RC out=[$(tr '\n' ';' <"$1")] err=[$(head -c 400 "$1.err" | tr '\n' ';')]"; }
zero_caps() { # FILE: the grep output of /proc/self/status
	local f
	for f in CapInh CapPrm CapEff CapBnd CapAmb; do
		grep -qx "$f:	0000000000000000" "$1" || return 1
	done
	# contract v2: never the host's uid 0 — a non-zero uid inside its own user namespace (nobwrap)
	grep -qx "NoNewPrivs:	1" "$1" && grep -q "^Uid:	[1-9]" "$1"
}

# --- each no-bwrap mode: the command itself starts with no capability ---------------------------
for layers in none landlock seccomp,landlock,netfilter; do
	A=$T_TMP/s.$layers.jsonl; O=$T_TMP/s.$layers.out
	krun "$layers" "$A" "$O" -- /usr/bin/grep -E '^(Cap|NoNewPrivs|Uid)' /proc/self/status
	if [ $RC = 0 ] && zero_caps "$O" && audit_has "$A" run.start layers.bwrap=false; then
		t_pass "kernel_caps_dropped_root_no_bwrap_${layers//,/_}"
	else
		t_fail "kernel_caps_dropped_root_no_bwrap_${layers//,/_}" "$(why "$O")"
	fi
done

# --- the attacks of finding 7, as root without bwrap and without seccomp ------------------------------
A=$T_TMP/att.jsonl; O=$T_TMP/att.out
krun landlock "$A" "$O" -- "$ATT" handle "$CODE/target" rlimit
if [ $RC = 0 ] && has "$O" "handle: blocked EPERM" && has "$O" "rlimit: blocked EPERM" \
   && audit_has "$A" run.start layers.landlock=true layers.bwrap=false; then
	t_pass kernel_caps_open_by_handle_and_rlimit_refused
else
	t_fail kernel_caps_open_by_handle_and_rlimit_refused "$(why "$O")"
fi
# with seccomp too: refused and reported (name_to_handle_at is on seccomp's list)
A=$T_TMP/att2.jsonl; O=$T_TMP/att2.out
krun seccomp "$A" "$O" -- "$ATT" handle "$CODE/target"
if [ $RC = 0 ] && has "$O" "handle: blocked EPERM" && audit_has "$A" seccomp.deny syscall=name_to_handle_at; then
	t_pass kernel_caps_open_by_handle_seccomp_reported
else
	t_fail kernel_caps_open_by_handle_seccomp_reported "$(why "$O")"
fi

# --- bwrap mode: the same (bwrap already drops them; the stage's drop is a no-op there) ------------
if command -v bwrap >/dev/null 2>&1; then
	A=$T_TMP/bw.jsonl; O=$T_TMP/bw.out
	krun bwrap,landlock "$A" "$O" -- /usr/bin/grep -E '^(Cap|NoNewPrivs|Uid)' /proc/self/status
	if [ $RC = 0 ] && zero_caps "$O" && audit_has "$A" run.start layers.bwrap=true; then
		t_pass kernel_caps_dropped_bwrap
	else
		t_fail kernel_caps_dropped_bwrap "$(why "$O")"
	fi
else
	t_fail kernel_caps_dropped_bwrap "bwrap missing (installed on this host by the deps)"
fi
