#!/usr/bin/env bash
# run_plan.sh — `--dry-run` prints exactly what the run then executes:
#   1. the bwrap argv of a real run (read from /proc/<bwrap pid>/cmdline on the host) equals the
#      dry run's bwrap.argv, element by element (the dry run's "<fd>"/"<run>" stand for the
#      attempt's descriptor numbers and run id; the private dir names are random per process);
#   2. the environment the command receives equals the dry run's env, with bwrap and without it.
# Also: planning is pure (a dry run creates nothing in /tmp).
. "$(dirname "$0")/../lib.sh"

WS=$T_TMP/ws
mkdir -p "$WS"
need_cmd run_plan_argv bwrap || exit 0

# compare.py PLAN.json KIND FILE  (KIND argv: FILE is a NUL-separated argv; env: `env -0` output)
cat >"$T_TMP/compare.py" <<'PY'
import json, re, sys
plan, kind, f = json.load(open(sys.argv[1])), sys.argv[2], sys.argv[3]
got = [x for x in open(f, "rb").read().decode().split("\0") if x != ""]
norm = lambda s: re.sub(r"/tmp/sbxsup-\d+-[A-Za-z0-9]{6}", "/tmp/sbxsup-<dir>", s)
def same(want, have):
    have = norm(have)
    pat = "^" + re.escape(norm(want)).replace(re.escape("<fd>"), r"\d+").replace(re.escape("<run>"), r"[0-9a-f]{32}") + "$"
    return re.match(pat, have) is not None
if kind == "argv":
    want = plan["bwrap"]["argv"]
else:
    env = dict(plan["env"])
    if "SBXSUP_ASAN_STAGE" in env:  # ASan builds: the stage removes these two before the exec
        env.pop("SBXSUP_ASAN_STAGE"); env.pop("ASAN_OPTIONS", None)
    want = ["%s=%s" % kv for kv in env.items()]
    # bwrap itself sets PWD to its --chdir directory (the workspace): not sbxsup's to plan
    if plan["bwrap"]["argv"] and "PWD" not in plan["env"]:
        got = [g for g in got if g != "PWD=" + plan["workspace"]]
    got = sorted(got); want = sorted(want)
if len(want) != len(got):
    print("length differs: plan %d, executed %d" % (len(want), len(got)))
for i, (w, h) in enumerate(zip(want, got)):
    if not same(w, h):
        print("element %d differs: plan %r, executed %r" % (i, w, h)); sys.exit(1)
sys.exit(0 if len(want) == len(got) else 1)
PY

# 1. bwrap argv: the command waits until the test has read bwrap's cmdline.
CMD=(sh -c 'touch "$0/ready"; i=0; while [ ! -e "$0/go" ] && [ $i -lt 100 ]; do sleep 0.05; i=$((i+1)); done' "$WS")
(cd "$WS" && "$SBXSUP" run -w "$WS" --dry-run -- "${CMD[@]}" >"$T_TMP/plan1.json" 2>"$T_TMP/e0")
(cd "$WS" && "$SBXSUP" run -w "$WS" --layers preload,seccomp,landlock,netfilter,probes --dry-run -- true >"$T_TMP/plan0.json" 2>>"$T_TMP/e0")
dirs=$(grep -ohE '/tmp/sbxsup-[0-9]+-[A-Za-z0-9]{6}' "$T_TMP/plan1.json" "$T_TMP/plan0.json" | sort -u)
made=""; for d in $dirs; do [ -e "$d" ] && made="$made $d"; done
if [ -n "$dirs" ] && [ -z "$made" ]; then t_pass run_plan_dry_run_creates_nothing
else t_fail run_plan_dry_run_creates_nothing "planned: ${dirs:-none}; created:$made"; fi
(cd "$WS" && exec "$SBXSUP" run -w "$WS" -- "${CMD[@]}" 2>"$T_TMP/e1") &
spid=$!
for _ in $(seq 100); do [ -e "$WS/ready" ] && break; sleep 0.05; done
bw=""
# (bwrap is sbxsup's child, or as root its grandchild: the init of the run's pid namespace)
for c in $(pgrep -P "$spid") $(for k in $(pgrep -P "$spid"); do pgrep -P "$k"; done); do
	if [ "$(tr '\0' '\n' <"/proc/$c/cmdline" 2>/dev/null | head -1)" = "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["bwrap"]["path"])' "$T_TMP/plan1.json")" ]; then
		bw=$c
	fi
done
[ -n "$bw" ] && cat "/proc/$bw/cmdline" >"$T_TMP/cmdline1"
touch "$WS/go"
wait "$spid"; rc=$?
if [ -n "$bw" ] && [ $rc -eq 0 ] && out=$(python3 "$T_TMP/compare.py" "$T_TMP/plan1.json" argv "$T_TMP/cmdline1"); then
	t_pass run_plan_bwrap_argv_equals_executed
else
	t_fail run_plan_bwrap_argv_equals_executed "rc=$rc bwrap=${bw:-not found} $out $(cat "$T_TMP/e1")"
fi

# 2. the environment, with bwrap and without it (direct mode)
for mode in full direct; do
	L=(); [ $mode = direct ] && L=(--layers preload,seccomp,landlock,netfilter,probes)
	(cd "$WS" && "$SBXSUP" run -w "$WS" "${L[@]}" --dry-run -- /usr/bin/env -0 >"$T_TMP/plan-$mode.json" 2>/dev/null)
	(cd "$WS" && "$SBXSUP" run -w "$WS" -a "$T_TMP/a-$mode" "${L[@]}" -- /usr/bin/env -0 >"$T_TMP/env-$mode" 2>"$T_TMP/e-$mode"); rc=$?
	want_bwrap=true; [ $mode = direct ] && want_bwrap=false
	if assert_exit $rc 0 && assert_audit "$T_TMP/a-$mode" run.start layers.bwrap=$want_bwrap layers.preload=true \
	   && python3 "$T_TMP/compare.py" "$T_TMP/plan-$mode.json" env "$T_TMP/env-$mode"; then
		t_pass "run_plan_env_equals_executed_$mode"
	else
		t_fail "run_plan_env_equals_executed_$mode" "see above; $(head -c 300 "$T_TMP/e-$mode")"
	fi
done

# 3. the preload's fixed channel (issue 17): the plan shows the sealed policy bound read-only at
#    /run/sbxsup/policy, the read-only scaffolding, and no LD_PRELOAD / SBXSUP_* in the environment
#    (the runs above executed exactly that: run_plan_env_equals_executed_*); without bwrap only where
#    a mount namespace can be made (root, or user namespaces allowed)
can_ns=1; [ "$(id -u)" = 0 ] || unshare -Ur true 2>/dev/null || can_ns=0
if python3 - "$T_TMP/plan-full.json" "$T_TMP/plan-direct.json" $can_ns <<'PY'
import json, sys
full, direct = (json.load(open(f)) for f in sys.argv[1:3])
if sys.argv[3] != '1':
    direct = {'env': {}}
a = full['bwrap']['argv']
i = a.index('/run/sbxsup/policy')
assert a[i - 2] == '--ro-bind-data' and a[i - 1] == '<fd>', a[i - 2:i + 1]
assert ['--tmpfs', '/run/sbxsup'] == a[a.index('/run/sbxsup') - 1:a.index('/run/sbxsup') + 1]
j = a.index('--remount-ro', i)
assert a[j:j + 4] == ['--remount-ro', '/run/sbxsup', '--remount-ro', '/'], a[j:j + 4]
# /etc/ld.so.preload: bound before the remounts, or in the /etc view bound at /etc
view = full['bwrap'].get('etc_view', 'binds')
assert (a.index('/etc/ld.so.preload') < j) if view == 'binds' else \
    (a[a.index(view) - 1:a.index(view) + 2] == ['--ro-bind', view, '/etc'] and '/etc/ld.so.preload' not in a), view
for plan in (full, direct):
    bad = [k for k in plan['env'] if (k.startswith('SBXSUP_') or k == 'LD_PRELOAD') and k != 'SBXSUP_ASAN_STAGE']
    assert not bad, bad
PY
then t_pass run_plan_preload_fixed_channel
else t_fail run_plan_preload_fixed_channel "$(grep -o '"/run/sbxsup[^"]*"' "$T_TMP/plan-full.json" | tr '\n' ' ')"; fi
