# tests/lib/audit.sh — reading the audit stream in integration tests (sourced by tests/lib.sh).
#
# audit_has FILE EVENT [key=value|key~substring|key? ...]  — true if some line of FILE is that event
#   and matches every condition (dotted keys reach into objects: layers.bwrap=true), and every JSON
#   line of FILE matches docs/audit-schema.json (tests/lib/audit_schema.py; else false, and why).
# audit_count FILE EVENT                                    — number of events (a coalesced line: its count)
# audit_explain FILE EVENT [cond ...]                       — why audit_has is false: which condition
#   failed on the closest line, and the lines of that event (or the events the file has), as "# " lines
_audit_py() {
	python3 - "$@" <<'PY'
import json, os, sys
mode, f, ev, conds = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
def get(o, k):
    for p in k.split('.'):
        if not isinstance(o, dict) or p not in o: return None
        o = o[p]
    return o
def norm(v):
    if isinstance(v, bool): return 'true' if v else 'false'
    return str(v)
def check(o, c):
    if c.endswith('?'):
        return get(o, c[:-1]) is not None, c[:-1], "present", get(o, c[:-1])
    if '~' in c and ('=' not in c or c.index('~') < c.index('=')):
        k, v = c.split('~', 1); g = get(o, k); return v in norm(g), k, "contains %r" % v, g
    k, v = c.split('=', 1); g = get(o, k); return norm(g) == v, k, "= %r" % v, g
try: raw = open(f, encoding='utf-8').read().splitlines()
except OSError as e:
    if mode == "explain": print("# audit: cannot read %s: %s" % (f, e))
    sys.exit(1)
# every line of the stream must match the contract (docs/audit-schema.json), whatever is asked
sys.path.insert(0, os.path.join(os.environ['SBX_ROOT'], 'tests', 'lib'))
import audit_schema
probs = audit_schema.check_file(f, skip_non_json=True)
if probs:
    print('# audit line(s) not matching docs/audit-schema.json:', *probs[:5], sep='\n# ',
          file=sys.stderr if mode == "has" else sys.stdout)
    sys.exit(1)
objs = []
for l in raw:
    try: objs.append((json.loads(l), l))
    except ValueError: pass
same = [(o, l) for o, l in objs if o.get('event') == ev]
if mode == "has":
    sys.exit(0 if any(all(check(o, c)[0] for c in conds) for o, _ in same) else 1)
if not same:
    seen = {}
    for o, _ in objs: seen[o.get('event')] = seen.get(o.get('event'), 0) + 1
    print("# audit: no '%s' line in %s (events: %s)" % (ev, f, ", ".join("%s x%d" % kv for kv in sorted(seen.items(), key=str)) or "none"))
    sys.exit(1)
best = max(same, key=lambda ol: sum(check(ol[0], c)[0] for c in conds))
for c in conds:
    ok, k, want, got = check(best[0], c)
    if not ok:
        print("# audit: %d '%s' line(s), none with every condition; closest fails %s: want %s, got %r" % (len(same), ev, k, want, got))
        break
for _, l in same[:3]:
    print("#   " + (l if len(l) < 400 else l[:400] + "..."))
sys.exit(1)
PY
}
audit_has() { _audit_py has "$@"; }
audit_explain() { _audit_py explain "$@"; }
audit_count() { python3 -c 'import json,sys
n=0
for l in open(sys.argv[1]):
    try: o=json.loads(l)
    except ValueError: continue
    if o.get("event")==sys.argv[2]: n += o.get("count",1)  # a coalesced line stands for "count" events
print(n)' "$1" "$2"; }
