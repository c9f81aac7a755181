#!/usr/bin/env bash
# run_layers_warn.sh — every layer that is off is said, once, with what protection is lost (SPEC v2);
# a layer off because the policy gives it nothing to enforce is not; and the retry without bwrap
# keeps the kernel layers (netfilter, probes) running on the re-planned policy.
. "$(dirname "$0")/../lib.sh"

WS=$T_TMP/ws; mkdir -p "$WS"
A=$T_TMP/audit

# 1. a static command cannot load the preload: one line, "preload off: <what is lost>".
cp "$SBX_PROGS/pl_hello_static" "$WS/"
(cd "$WS" && "$SBXSUP" run -a "$A.1" -- ./pl_hello_static >"$T_TMP/o1" 2>"$T_TMP/e1"); rc=$?
if assert_exit $rc 0 && assert_audit "$A.1" run.start layers.preload=false "why.preload?" \
   && assert_file_has "$T_TMP/e1" "sbxsup: warning: preload off: no libc-level filter" \
   && assert_exit "$(grep -c '^sbxsup: warning: preload off' "$T_TMP/e1")" 1; then
	t_pass run_warn_preload_off
else t_fail run_warn_preload_off "see above"; fi

# 2. autonomy "full" leaves the network unrestricted: netfilter is off with nothing lost, and silent.
cat >"$T_TMP/full.json" <<'JSON'
{"sbxsup": 1, "name": "full-net", "autonomy": "full"}
JSON
(cd "$WS" && "$SBXSUP" run -m "$T_TMP/full.json" -a "$A.2" -- true 2>"$T_TMP/e2"); rc=$?
if assert_exit $rc 0 && assert_audit "$A.2" run.start layers.netfilter=false "why.netfilter?" \
   && assert_not_file_has "$T_TMP/e2" "netfilter off"; then
	t_pass run_warn_silent_when_not_needed
else t_fail run_warn_silent_when_not_needed "see above"; fi

# 3. bwrap's set-up fails: the retry without it still has netfilter and probes (kept, not restarted),
#    on the re-planned policy: a raw send outside the run is refused by netfilter and observed by the
#    probes (the run's loopback is its own).
if need_root run_retry_keeps_kernel_layers; then
	BROKEN=$T_TMP/broken; mkdir -p "$BROKEN"
	printf '#!/bin/sh\necho "bwrap: Creating new namespace failed: Operation not permitted" >&2\nexit 1\n' >"$BROKEN/bwrap"
	chmod 755 "$BROKEN/bwrap"
	(cd "$WS" && PATH=$BROKEN:/usr/bin:/bin "$SBXSUP" run -a "$A.3" -- "$SBX_PROGS/k_attack_static" udp 10.255.255.1 9 \
		>"$T_TMP/o3" 2>"$T_TMP/e3"); rc=$?
	if assert_file_has "$T_TMP/o3" "udp: blocked" \
	   && assert_audit "$A.3" run.start layers.bwrap=false "why.bwrap~setup failed" layers.netfilter=true layers.probes=true \
	   && assert_audit "$A.3" netfilter.deny port=9 \
	   && assert_audit "$A.3" kernel.violation port=9 \
	   && assert_file_has "$T_TMP/e3" "sbxsup: warning: running without bwrap"; then
		t_pass run_retry_keeps_kernel_layers
	else t_fail run_retry_keeps_kernel_layers "rc=$rc $(cat "$T_TMP/e3")"; fi
fi

# A static command without bwrap: the preload goes off with its report socket (which the plan named
# only for it) — the run neither fails nor names a socket it never made.
out=$(cd "$T_TMP" && "$SBXSUP" run --layers preload,seccomp,landlock,limits -- "$SBX_PROGS/pl_hello_static" 2>&1); rc=$?
if [ $rc -eq 0 ] && ! grep -q 'run setup\|report socket' <<<"$out" && grep -q 'preload off' <<<"$out"; then
	t_pass warn_static_nobwrap_runs
else t_fail warn_static_nobwrap_runs "rc=$rc out=$out"; fi

# 5. issue 13: `--layers preload,seccomp,landlock` as a normal user (uid 65534 when run as root) says
#    one line per layer left out or missing — bwrap, netfilter, probes — each once, none for the
#    selected ones (limits is always on).
pre=(); [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null && pre=(setpriv --reuid=65534 --regid=65534 --clear-groups)
mkdir -p "$T_TMP/w5"; chmod 777 "$T_TMP/w5"
(cd "$T_TMP/w5" && "${pre[@]+"${pre[@]}"}" "$SBXSUP" run --layers preload,seccomp,landlock -- true) >"$T_TMP/o5" 2>"$T_TMP/e5"; rc=$?
ok=1
for l in "running without bwrap" "netfilter off" "probes off"; do
	[ "$(grep -c "^sbxsup: warning: $l" "$T_TMP/e5")" = 1 ] || ok=
done
grep -qE '^sbxsup: warning: (preload|seccomp|landlock|limits) off' "$T_TMP/e5" && ok=
if [ "$rc" = 0 ] && [ -n "$ok" ] && [ "$(grep -c '^sbxsup: warning:' "$T_TMP/e5")" = 3 ]; then
	t_pass run_warn_one_per_missing_layer
else t_fail run_warn_one_per_missing_layer "rc=$rc $(cat "$T_TMP/e5")"; fi
