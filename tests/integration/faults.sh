#!/usr/bin/env bash
# tests/integration/faults.sh — fault injection against `sbxsup run`:
#   1. SIGKILL of the supervisor at random points of a run: no process of the run survives (marker
#      in argv, pgrep -f), no cgroup is left under the run-cgroup parents, no BPF link is left;
#   2. 50 concurrent runs appending to one audit file: every line is valid JSON, every run has its
#      run.start and run.end, and `sbxsup audit verify` passes;
#   3. the audit destination failing (/dev/full, a closed fd:N, a read-only fd:N): exit 125 and the
#      command did NOT run (marker file absent);
#   4. the executor closing or flooding SBXSUP_REPORT_FD (garbage and forged records): the run ends
#      normally with the executor's status (not 124), and the supervisor's peak RSS stays within
#      32 MiB of a quiet run's.
# Waits are bounded polls for a state to be reached (never "sleep then assert").
. "$(dirname "$0")/../lib.sh"
need_root faults || exit 0
TREE=$SBX_PROGS/esc_tree
FLOOD=$SBX_PROGS/esc_flood
for p in "$TREE" "$FLOOD"; do
	[ -x "$p" ] || { t_fail faults "$p not built (make progs)"; exit 0; }
done
WS=$T_TMP/ws
mkdir -p "$WS"
MF=$T_TMP/m.json
printf '{"sbxsup": 1, "name": "faults", "code_path": "%s", "limits": {"wall_s": 60}}\n' "$FLOOD" >"$MF"

# wait_until SECONDS CMD... : poll CMD every 0.1 s until it succeeds or SECONDS pass
wait_until() {
	local end=$((SECONDS + $1)); shift
	while ! "$@"; do
		[ $SECONDS -ge $end ] && return 1
		sleep 0.1
	done
}
no_marker() { ! pgrep -f "$1" >/dev/null; }

# The killed runs get parent cgroups of their own (v2 and every v1 hierarchy this shell is in), so
# "nothing left behind" can be checked without seeing other people's concurrent runs.
cgroup_parents() {
	python3 - "$1" <<'PY'
import os, sys
name = sys.argv[1]
mounts = {}
for l in open('/proc/self/mountinfo'):
    a = l.split()
    sep = a.index('-')
    fstype = a[sep + 1]
    if fstype == 'cgroup2':
        mounts.setdefault('', a[4])
    elif fstype == 'cgroup':
        for o in a[sep + 3].split(','):
            mounts.setdefault(o, a[4])
seen = set()
for l in open('/proc/self/cgroup'):
    hid, ctrls, path = l.rstrip('\n').split(':', 2)
    # the hierarchies sbxsup uses: v2, and the v1 memory/pids/cpu controllers
    keys = [''] if hid == '0' else [c for c in ctrls.split(',') if c in ('memory', 'pids', 'cpu')]
    for k in keys:
        m = mounts.get(k)
        if m and m not in seen:
            seen.add(m)
            print(os.path.join(m, path.lstrip('/'), name))
            break
PY
}
CG_PARENTS=$(cgroup_parents "sbxfault-$$")
for d in $CG_PARENTS; do mkdir -p "$d" || t_fail faults/cgroup-setup "mkdir $d"; done
t_on_exit 'for d in $CG_PARENTS; do find "$d" -mindepth 1 -depth -type d -exec rmdir {} \; 2>/dev/null; rmdir "$d" 2>/dev/null; done'
cgroup_dirs() { local d; for d in $CG_PARENTS; do find "$d" -mindepth 1 -type d 2>/dev/null; done | sort; }
# in_cgroups CMD... : exec CMD inside the test's parent cgroups (same pid: call it in a subshell / with &)
in_cgroups() { CGS="$CG_PARENTS" exec sh -c 'for d in $CGS; do echo $$ > "$d/cgroup.procs" || exit 125; done; exec "$@"' sh "$@"; }
# BPF links that no process holds (by fd) and so outlive their creator: a leak (others' live links
# are held by their processes' fds and do not count).
orphan_links() {
	local held
	held=$(cat /proc/[0-9]*/fdinfo/* 2>/dev/null | awk '/^link_id:/{print $2}' | sort -u)
	bpftool link show 2>/dev/null | awk -F: '/^[0-9]+:/{print $1}' | sort -u | comm -23 - <(echo "$held") | wc -l
}

# ---- 1. SIGKILL of the supervisor at random points -----------------------------------------------
cg_before=$(cgroup_dirs)
links_before=$(orphan_links)
TMF=$T_TMP/tree.json
printf '{"sbxsup": 1, "name": "faults-tree", "code_path": "%s", "limits": {"wall_s": 60}}\n' "$TREE" >"$TMF"
survivors=0 cgleft="" linkleft="" started=0
for i in 1 2 3 4 5 6 7 8; do
	mark="SBXFAULT_$$_${RANDOM}_$i"
	in_cgroups "$SBXSUP" run -m "$TMF" -w "$WS" -a "$T_TMP/kill.jsonl" -- "$TREE" "$mark" 60 >"$T_TMP/tree.out" 2>&1 &
	sup=$!
	# random point: from "immediately" (set-up: cgroup, BPF, bwrap) to "the tree is running"
	case $((i % 4)) in
	0) ;;
	1) sleep "0.0$((RANDOM % 10))" ;;
	2) sleep "0.$((RANDOM % 6))" ;;
	3) wait_until 20 grep -q ready "$T_TMP/tree.out" && started=$((started + 1)) || echo "# tree not started: $(head -c 300 "$T_TMP/tree.out")" ;;
	esac
	kill -KILL "$sup" 2>/dev/null
	wait "$sup" 2>/dev/null
	if ! wait_until 10 no_marker "$mark"; then
		survivors=$((survivors + $(pgrep -f "$mark" | wc -l)))
		echo "# kill point $((i % 4)): survivors: $(pgrep -af "$mark" | head -3 | cut -c1-120 | tr '\n' ';')"
		pkill -KILL -f "$mark" 2>/dev/null # ours: started by this test
	fi
done
if [ $survivors -eq 0 ]; then t_pass faults/sigkill-no-survivors
else t_fail faults/sigkill-no-survivors "$survivors process(es) of killed runs survived the supervisor"; fi
[ $started -gt 0 ] || t_fail faults/sigkill-tree-started "the process tree never started in a run (cannot judge)"
same_cgroups() { [ "$(cgroup_dirs)" = "$cg_before" ]; }
if wait_until 10 same_cgroups; then t_pass faults/sigkill-no-cgroup-left
else t_fail faults/sigkill-no-cgroup-left "left behind: $(comm -13 <(echo "$cg_before") <(cgroup_dirs) | head -5 | tr '\n' ' ')"; fi
same_links() { [ "$(orphan_links)" -le "$links_before" ]; }
if wait_until 10 same_links; then t_pass faults/sigkill-no-bpf-link-left
else t_fail faults/sigkill-no-bpf-link-left "BPF links held by no process: $links_before before, $(orphan_links) after"; fi

# ---- 2. 50 concurrent runs, one audit file -------------------------------------------------------
SHARED=$T_TMP/shared.jsonl
pids=()
for i in $(seq 1 50); do
	"$SBXSUP" run -m "$MF" -w "$WS" -a "$SHARED" --timeout 120 -- /bin/true >/dev/null 2>"$T_TMP/c$i.err" &
	pids+=($!)
done
bad=0
for p in "${pids[@]}"; do wait "$p" || bad=$((bad + 1)); done
check=$(python3 - "$SHARED" <<'PY'
import json, sys
runs, bad = {}, 0
for n, l in enumerate(open(sys.argv[1], 'rb'), 1):
    try:
        o = json.loads(l.decode('utf-8'))
        runs.setdefault(o['run'], []).append(o['event'])
    except Exception:
        bad += 1
starts = sum(1 for e in runs.values() if 'run.start' in e)
ends = sum(1 for e in runs.values() if 'run.end' in e)
print('%d %d %d %d' % (bad, len(runs), starts, ends))
PY
)
read -r badlines nruns nstart nend <<<"$check"
if [ "$bad" -eq 0 ] && [ "$badlines" = 0 ] && [ "$nruns" = 50 ] && [ "$nstart" = 50 ] && [ "$nend" = 50 ]; then
	t_pass faults/concurrent-50-lines-valid
else
	t_fail faults/concurrent-50-lines-valid "$bad runs failed ($(cat "$T_TMP"/c*.err | sort | uniq -c | sort -rn | head -2 | tr '\n' ' ')); $badlines invalid lines; runs=$nruns starts=$nstart ends=$nend"
fi
out=$("$SBXSUP" audit verify "$SHARED" 2>&1); rc=$?
if [ $rc -eq 0 ]; then t_pass faults/concurrent-50-verify
else t_fail faults/concurrent-50-verify "audit verify exit $rc: $(head -c 300 <<<"$out" | tr '\n' ' ')"; fi

# ---- 3. the audit destination failing ------------------------------------------------------------
fail_closed() { # name, then sbxsup run arguments before "--"
	local name=$1; shift
	rm -f "$WS/ran.marker"
	local out rc
	out=$("$@" -m "$MF" -w "$WS" -- /usr/bin/touch "$WS/ran.marker" 2>&1); rc=$?
	if [ $rc -eq 125 ] && [ ! -e "$WS/ran.marker" ] && grep -q '^sbxsup: ' <<<"$out"; then t_pass "$name"
	else t_fail "$name" "exit $rc, ran=$([ -e "$WS/ran.marker" ] && echo yes || echo no), output: $(head -c 200 <<<"$out" | tr '\n' ' ')"; fi
}
fail_closed faults/audit-dev-full "$SBXSUP" run -a /dev/full
exec 99>&-
fail_closed faults/audit-closed-fd "$SBXSUP" run -a fd:99
fail_closed faults/audit-readonly-fd bash -c 'exec 98</dev/null; exec "$0" "$@"' "$SBXSUP" run -a fd:98
# a pipe whose reader is gone
fail_closed faults/audit-broken-pipe bash -c 'exec 97> >(exit 0); sleep 0.2; exec "$0" "$@"' "$SBXSUP" run -a fd:97

# ---- 4. the executor closing or flooding the report descriptor -----------------------------------
# maxrss_run OUTFILE ARGS... : runs sbxsup ARGS, prints "exit maxrss_kib" (wait4 rusage of sbxsup)
maxrss_run() {
	python3 - "$@" <<'PY'
import os, sys, subprocess
out = open(sys.argv[1], 'w')
p = subprocess.Popen(sys.argv[2:], stdout=out, stderr=subprocess.STDOUT)
_, st, ru = os.wait4(p.pid, 0)
print(os.waitstatus_to_exitcode(st), ru.ru_maxrss)
PY
}
read -r base_rc base_rss < <(maxrss_run "$T_TMP/base.out" "$SBXSUP" run -m "$MF" -w "$WS" --timeout 60 -- "$FLOOD" garbage 0)
for mode in "close 2000" "garbage 200000" "forged 200000"; do
	set -- $mode
	read -r rc rss < <(maxrss_run "$T_TMP/flood.out" "$SBXSUP" run -m "$MF" -w "$WS" -a "$T_TMP/flood-$1.jsonl" --timeout 60 -- "$FLOOD" "$1" "$2")
	if [ "$rc" = 0 ] && [ "$rss" -le $((base_rss + 32768)) ]; then
		t_pass "faults/report-fd-$1"
		echo "# report-fd-$1: $(grep -v '^sbxsup' "$T_TMP/flood.out" | head -1); sbxsup maxrss ${rss} KiB (quiet run ${base_rss} KiB); preload.deny lines: $(audit_count "$T_TMP/flood-$1.jsonl" preload.deny)"
	else
		t_fail "faults/report-fd-$1" "exit $rc (want 0), sbxsup maxrss ${rss} KiB vs ${base_rss} KiB quiet; $(tail -c 300 "$T_TMP/flood.out" | tr '\n' ' ')"
	fi
	if out=$("$SBXSUP" audit verify "$T_TMP/flood-$1.jsonl" 2>&1); then t_pass "faults/report-fd-$1-verify"
	else t_fail "faults/report-fd-$1-verify" "$(head -c 200 <<<"$out" | tr '\n' ' ')"; fi
done
