#!/usr/bin/env bash
# include_graph.sh — the dependency rules of docs/ARCHITECTURE.md ("Which way dependencies point"),
# read from the sources' #include lines: no two modules (a .c with its .h, X_int.h counted as X's)
# include each other, directly or through others, but the two named there; no two folders include
# each other's headers, directly or through others; no folder includes a header of a folder above
# it (cli > serve, lib > run > shadow, layers, probes, net > manifest > audit > policy > common).
. "$(dirname "$0")/../lib.sh"
cd "$SBX_ROOT" || exit 1
command -v python3 >/dev/null || { t_skip include_graph "no python3"; exit 0; }

out=$(python3 - <<'PY'
import os, re, sys, collections
dirs = ['audit', 'common', 'policy', 'supervisor']
paths = [os.path.relpath(os.path.join(dp, f)) for d in dirs for dp, _, fn in os.walk(d)
         for f in fn if f.endswith(('.c', '.h'))]
base = collections.defaultdict(list)
for p in paths:
    base[os.path.basename(p)].append(p)
inc = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
def mod(p):
    d, b = os.path.split(p)
    m = os.path.splitext(b)[0]
    return d + '/' + (m[:-4] if m.endswith('_int') else m)
def resolve(h):
    c = base.get(os.path.basename(h), [])
    return c[0] if len(c) == 1 else None
g = collections.defaultdict(set)
fg = collections.defaultdict(set)   # folder -> folders whose headers it includes
order = {'supervisor/cli': 9, 'supervisor/serve': 8, 'supervisor/lib': 8, 'supervisor/run': 7,
         'supervisor/shadow': 6, 'supervisor/layers': 6, 'supervisor/probes': 6, 'supervisor/net': 6,
         'supervisor/manifest': 5, 'audit': 4, 'policy': 3, 'common': 2}
for p in paths:
    for h in inc.findall(open(p, errors='replace').read()):
        r = resolve(h)
        if not r:
            continue
        if mod(r) != mod(p):
            g[mod(p)].add(mod(r))
        a, b = os.path.dirname(p), os.path.dirname(r)
        if a != b:
            fg[a].add(b)
        if order.get(b, 0) > order.get(a, 99):
            print('up: %s includes %s' % (p, r))
# strongly connected components (Tarjan), the known ones named in docs/ARCHITECTURE.md left out
known = []
sys.setrecursionlimit(10000)
idx, low, st, on, n = {}, {}, [], set(), [0]
def sc(v):
    idx[v] = low[v] = n[0]; n[0] += 1; st.append(v); on.add(v)
    for w in sorted(g.get(v, ())):
        if w not in idx:
            sc(w); low[v] = min(low[v], low[w])
        elif w in on:
            low[v] = min(low[v], idx[w])
    if low[v] == idx[v]:
        comp = set()
        while True:
            w = st.pop(); on.discard(w); comp.add(w)
            if w == v:
                break
        if len(comp) > 1 and comp not in known:
            print('circle: ' + ' '.join(sorted(comp)))
for v in sorted(g):
    if v not in idx:
        sc(v)
# folders of one floor may include each other's headers one way only (the layer entries' folders,
# probes/ and net/, include layers/; layers/ includes neither)
def freach(a, b, seen):
    return a == b or any(freach(n, b, seen | {n}) for n in fg[a] if n not in seen)
for a in sorted(fg):
    for b in sorted(fg[a]):
        if freach(b, a, {b}):
            print('foldercircle: %s -> %s' % (a, b))
PY
)
circles=$(grep '^circle:' <<<"$out")
ups=$(grep '^up:' <<<"$out")
fcircles=$(grep '^foldercircle:' <<<"$out")
if [ -z "$circles" ]; then t_pass include_no_circles; else t_fail include_no_circles "$(tr '\n' ';' <<<"$circles")"; fi
if [ -z "$ups" ]; then t_pass include_no_folder_above; else t_fail include_no_folder_above "$(tr '\n' ';' <<<"$ups")"; fi
if [ -z "$fcircles" ]; then t_pass include_no_folder_circles; else t_fail include_no_folder_circles "$(tr '\n' ';' <<<"$fcircles")"; fi

# Nothing outside the layer table's folders includes a layer entry's header (X_layer.h): the run,
# its wrappers, the library and the command line reach a layer through layer.h's ops and walkers.
named=$(grep -rlE '#[[:space:]]*include[[:space:]]+"[a-z_]+_layer\.h"' supervisor audit policy common preload \
	--include='*.c' --include='*.h' | grep -vE '^supervisor/(layers|probes)/' || true)
if [ -z "$named" ]; then t_pass include_entries_only_in_layers
else t_fail include_entries_only_in_layers "$(tr '\n' ' ' <<<"$named")"; fi

# The preload's files share one header (pl.h), so the include graph says nothing there: read its
# calls instead — no two files call each other, directly or through others (the library's lazy
# start, which every interposer may trigger through sbx_pl_mode(), counts as a call to preload.c).
calls=$(python3 - <<'PY'
import re, glob, collections
files = sorted(glob.glob('preload/*.c'))
strip = lambda s: re.sub(r'/\*.*?\*/', '', s, flags=re.S)
defs = {}
for f in files:
    for m in re.finditer(r'^(?:SBX_EXPORT\s+)?([\w \*]+?)\b(\w+)\s*\([^;{]*\)\s*\{', strip(open(f).read()), re.M):
        if 'static' not in m.group(1):
            defs.setdefault(m.group(2), f)
g = collections.defaultdict(set)
for f in files:
    s = strip(open(f).read())
    for name, df in defs.items():
        if df != f and re.search(r'\b' + name + r'\s*\(', s):
            g[f].add(df)
    if f != 'preload/preload.c' and re.search(r'\bsbx_pl_(mode|passive)\s*\(', s):
        g[f].add('preload/preload.c')
def reach(a, b, seen):
    return a == b or any(reach(n, b, seen | {n}) for n in g[a] if n not in seen)
for a in files:
    for b in sorted(g[a]):
        if reach(b, a, {b}):
            print('%s -> %s' % (a, b))
PY
)
if [ -z "$calls" ]; then t_pass preload_no_call_circles; else t_fail preload_no_call_circles "$(tr '\n' ';' <<<"$calls")"; fi

# What the layers see has one writer: run/run_ctx.c assigns r->lc, the plan's attempt view (lc_plan)
# and each attempt's (att.lc); the layers get it const. An assignment anywhere else is a second owner.
writers=$(grep -rnE '(->|\.)(lc|lc_plan)(\.[a-z_]+)*[[:space:]]*(=[^=]|\+\+|--)' supervisor --include='*.c' --include='*.h' \
	| grep -v '^supervisor/run/run_ctx\.c:' || true)
if [ -z "$writers" ]; then t_pass layer_ctx_one_writer
else t_fail layer_ctx_one_writer "$(tr '\n' ';' <<<"$writers")"; fi
