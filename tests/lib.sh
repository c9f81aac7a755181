# tests/lib.sh — helpers for integration tests (source it). Every test prints exactly one of
#   PASS: <name>        FAIL: <name>: <why>        SKIP: <name>: <reason>
# Attack tests assert both that the attack failed and which audit event reported it (audit_has).
set -u
: "${SBXSUP:?}" "${SBX_ROOT:?}"
SBX_PROGS=${SBX_PROGS:-$SBX_ROOT/build/tests/progs}
T_TMP=$(mktemp -d /tmp/sbxsup-it.XXXXXX)
chmod 755 "$T_TMP"
trap 't_cleanup' EXIT
T_CLEANUPS=()
t_cleanup() { local c; for c in "${T_CLEANUPS[@]+"${T_CLEANUPS[@]}"}"; do eval "$c" || true; done; rm -rf "$T_TMP"; }
t_on_exit() { T_CLEANUPS+=("$1"); }

t_pass() { echo "PASS: $1"; }
t_fail() { echo "FAIL: $1: ${2:-}"; }
t_skip() { echo "SKIP: $1: $2"; }
# t_check NAME CMD... : PASS if CMD succeeds, FAIL otherwise
t_check() { local n=$1; shift; if "$@"; then t_pass "$n"; else t_fail "$n" "$*"; fi; }

# audit_has FILE EVENT [key=value|key~substring|key? ...]  — true if some line of FILE is that event
# and matches every condition (dotted keys reach into objects: layers.bwrap=true).
audit_has() {
	python3 - "$@" <<'PY'
import json, os, sys
f, ev, conds = sys.argv[1], sys.argv[2], sys.argv[3:]
def get(o, k):
    for p in k.split('.'):
        if not isinstance(o, dict) or p not in o: return None
        o = o[p]
    return o
def norm(v):
    if isinstance(v, bool): return 'true' if v else 'false'
    return str(v)
try: lines = open(f, encoding='utf-8').read().splitlines()
except OSError: sys.exit(1)
# every line of the stream must match the contract (docs/audit-schema.json), whatever is asked
sys.path.insert(0, os.path.join(os.environ['SBX_ROOT'], 'tests', 'lib'))
import audit_schema
probs = audit_schema.check_file(f, skip_non_json=True)
if probs:
    print('# audit line(s) not matching docs/audit-schema.json:', *probs[:5], sep='\n# ', file=sys.stderr)
    sys.exit(1)
for l in lines:
    try: o = json.loads(l)
    except ValueError: continue
    if o.get('event') != ev: continue
    ok = True
    for c in conds:
        if c.endswith('?'):
            ok = get(o, c[:-1]) is not None
        elif '~' in c and ('=' not in c or c.index('~') < c.index('=')):
            k, v = c.split('~', 1); ok = v in norm(get(o, k))
        else:
            k, v = c.split('=', 1); ok = norm(get(o, k)) == v
        if not ok: break
    if ok: sys.exit(0)
sys.exit(1)
PY
}
# audit_count FILE EVENT : number of lines with that event
audit_count() { python3 -c 'import json,sys
n=0
for l in open(sys.argv[1]):
    try: n += json.loads(l).get("event")==sys.argv[2]
    except ValueError: pass
print(n)' "$1" "$2"; }

# need_root / need_cmd: print SKIP and return 1 when missing
need_root() { [ "$(id -u)" = 0 ] || { t_skip "$1" "needs root"; return 1; }; }
need_cmd() { command -v "$2" >/dev/null 2>&1 || { t_skip "$1" "needs $2"; return 1; }; }
