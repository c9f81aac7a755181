# tests/lib/flood.sh — the buried-evidence flood (issue 27), shared by tests/integration/evidence.sh
# (on the host) and container.sh's `race` group (in a container). The attack is
# tests/progs/ev_attack (`flood N DIR REAL libc|raw`: N distinct decoy names under DIR, then the
# real read of REAL); the manifest denies the tree that holds both.
#
# shellcheck shell=bash
# flood_manifest FILE DIR   — writes the manifest: DIR/** readable, DIR/sec/s/** denied (the decoys
#                             live in DIR/sec/s/decoys, the real secret is DIR/sec/s/key)
# flood_tree HOSTDIR        — makes that tree on the host (HOSTDIR/sec/s/key holding a canary,
#                             HOSTDIR/sec/a/key harmless, the decoy directory empty), world-readable
# flood_check NAME AUDIT RESULT EVENT OUT SECDIR N
#   PASS/FAIL NAME: every decoy (SECDIR/decoys/*) and the real attempt (SECDIR/key) are lines of their
#   own of EVENT (kernel.violation or preload.deny; no summary, no `unsummarised`), the attack's own
#   output OUT says it made N decoys, all failed; run.end, the result record RESULT and
#   `sbxsup audit summary` agree on the verdict and the critical count. SECDIR is the secret's
#   directory as the run saw it (the audit's paths).
flood_manifest() {
	printf '{"sbxsup": 1, "name": "evidence", "capabilities": [{"cap": "fs:read", "hints": ["%s/**"]}], "deny": ["%s/sec/s/**"], "limits": {"wall_s": 120}}\n' \
		"$2" "$2" > "$1"
	chmod 644 "$1"
}
flood_tree() {
	mkdir -p "$1/sec/s/decoys" "$1/sec/a"
	echo "SECRET-$$-CANARY" > "$1/sec/s/key"
	echo "harmless" > "$1/sec/a/key"
	chmod -R a+rX "$1"
}
flood_check() {
	local name=$1 a=$2 r=$3 event=$4 out=$5 sec=$6 n=$7
	local why
	"$SBXSUP" audit summary --json "$a" >"$a.summary" 2>&1
	why=$(python3 - "$a" "$r" "$sec" "$n" "$event" "$a.summary" <<'PY' || echo "the check failed"
import json, sys
a, r, d, n, event, summ = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5], open(sys.argv[6]).read()
decoys, real, why, end, breach_lines = {}, [], [], None, 0
for l in open(a):
    o = json.loads(l)
    if o['event'] == 'run.end':
        end = o
    if o.get('outcome') == 'breach':
        breach_lines += o.get('count', 1)
    if o['event'] != event:
        continue
    p = o.get('path', '')
    if p.startswith(d + '/decoys/'):
        decoys[p] = decoys.get(p, 0) + 1
        if o.get('summary') or o.get('count', 1) != 1:
            why.append('decoy summarised: ' + p)
    elif p == d + '/key':
        real.append(o)
if len(decoys) != n:
    why.append('%d distinct decoys named, want %d' % (len(decoys), n))
if not real or any(o.get('summary') for o in real):
    why.append('the real attempt is not a line of its own: %r' % real)
elif any(o.get('sev') != 'critical' for o in real):
    why.append('real attempt not critical')
if end is None:
    why.append('no run.end')
else:
    au = end.get('audit', {})
    for c in ('kernel', 'preload'):
        if au.get(c, {}).get('unsummarised') or au.get(c, {}).get('urgent_suppressed'):
            why.append('%s: something unsummarised/suppressed: %r' % (c, au.get(c)))
    if au.get('breaches') != breach_lines:
        why.append('run.end breaches %r, breach lines %d' % (au.get('breaches'), breach_lines))
    res = json.load(open(r))
    if res['counts']['critical'] != end['severity']['critical']:
        why.append('result critical %r != run.end %r' % (res['counts']['critical'], end['severity']['critical']))
    want = 'breach' if breach_lines else 'contained'
    if res['verdict'] != want:
        why.append('result verdict %s, want %s' % (res['verdict'], want))
    run = json.loads(summ)['runs'][0]
    if (run['verdict'] == 'breach') != (want == 'breach'):
        why.append('summary verdict %s, result %s' % (run['verdict'], res['verdict']))
    if run['counts']['severity']['critical'] != end['severity']['critical']:
        why.append('summary critical %r != run.end %r' % (run['counts']['severity']['critical'], end['severity']['critical']))
print('; '.join(why))
PY
)
	audit_has "$a" run.end || why="$why; a line does not match docs/audit-schema.json or no run.end"
	if [ -z "$why" ] && grep -q "^decoys $n failed $n" <<<"$out"; then t_pass "$name"
	else t_fail "$name" "$why out=$(head -c 300 <<<"$out")"; fi
}
