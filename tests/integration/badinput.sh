#!/usr/bin/env bash
# tests/integration/badinput.sh — bad input gets a clear message and exit 125 (1 for `audit verify`
# on damage), never a crash, never a run.
#   - every manifest in tests/badinput/manifests/ (expectations in tests/badinput/expect.tsv) plus a
#     generated 1.5 MB one and a 10 000-deep one: `sbxsup validate -m F` and `sbxsup run -m F -- CMD`
#     exit with the listed status, the message names the problem (JSON path / "line N"), and the
#     command did not run (marker file absent);
#   - bad command lines of `sbxsup run` (no "--", unknown option, --timeout abc, --layers bogus,
#     -a into an unwritable place, missing manifest, ...): 125 + message, command not run;
#   - damaged audit files: `sbxsup audit verify` exits 1 (a well-formed file, built here by an
#     independent implementation of the SPEC's hash chain, exits 0).
. "$(dirname "$0")/../lib.sh"
BAD=$SBX_ROOT/tests/badinput
MARK=$T_TMP/ws/ran.marker  # in the workspace: visible and writable from inside every mode
WS=$T_TMP/ws
mkdir -p "$WS"

# check_refused NAME EXPECTED_EXIT SUBSTRINGS(&&-separated) CMD... — runs CMD (which would create
# $MARK if it ran the executor), checks exit, message, marker, and no crash signature.
check_refused() {
	local name=$1 want=$2 subs=$3; shift 3
	rm -f "$MARK"
	local out rc
	out=$("$@" 2>&1 </dev/null); rc=$?
	local why=""
	[ "$rc" = "$want" ] || why="exit $rc, want $want"
	if [ -e "$MARK" ]; then why="${why:+$why; }the command ran"; fi
	case "$out" in *AddressSanitizer*|*"runtime error"*|*"Segmentation"*|*"core dumped"*) why="${why:+$why; }crash";; esac
	local s rest=$subs
	while [ -n "$rest" ]; do
		s=${rest%%&&*}
		[ "$s" = "$rest" ] && rest="" || rest=${rest#*&&}
		if ! grep -qF -- "$s" <<<"$out"; then why="${why:+$why; }message lacks '$s'"; fi
	done
	if [ -z "$why" ]; then t_pass "$name"; else t_fail "$name" "$why; output: $(head -c 300 <<<"$out" | tr '\n' ' ')"; fi
}

run_cmd=(touch "$MARK")

# ---- manifests --------------------------------------------------------------------------------
python3 - "$T_TMP" <<'PY'
import sys, os
d = sys.argv[1]
# 1.5 MB: valid JSON, too big (MF_MAX_BYTES is 1 MiB)
with open(os.path.join(d, 'huge.json'), 'w') as f:
    f.write('{"sbxsup": 1, "name": "huge", "deny": [')
    f.write(','.join('"/tmp/deny-%07d/**"' % i for i in range(70000)))
    f.write(']}\n')
# 10 000 levels of nesting
with open(os.path.join(d, 'deep.json'), 'w') as f:
    f.write('{"sbxsup": 1, "name": "deep", "deny": ' + '[' * 10000 + ']' * 10000 + '}\n')
PY
n=0
{
	while IFS=$'\t' read -r file code subs; do
		case "$file" in ''|'#'*) continue;; esac
		n=$((n + 1))
		f=$BAD/manifests/$file
		if [ ! -f "$f" ]; then t_fail "badinput/manifest/$file" "missing corpus file"; continue; fi
		check_refused "badinput/validate/$file" "$code" "$subs" "$SBXSUP" validate -m "$f"
		check_refused "badinput/run/$file" "$code" "$subs" "$SBXSUP" run -m "$f" -w "$WS" -a "$T_TMP/a.jsonl" -- "${run_cmd[@]}"
	done
} < "$BAD/expect.tsv"
[ "$n" -ge 50 ] || t_fail "badinput/corpus-size" "only $n manifests (>= 50 expected)"
for g in huge.json:"limit" deep.json:"line 1"; do
	f=${g%%:*} s=${g#*:}
	check_refused "badinput/validate/$f" 125 "$s" "$SBXSUP" validate -m "$T_TMP/$f"
	check_refused "badinput/run/$f" 125 "$s" "$SBXSUP" run -m "$T_TMP/$f" -w "$WS" -- "${run_cmd[@]}"
done

# ---- bad command lines --------------------------------------------------------------------------
GOOD=$T_TMP/good.json
printf '{"sbxsup": 1, "name": "good"}\n' >"$GOOD"
cli() { check_refused "badinput/cli/$1" 125 "$2" "${@:3}"; }
cli no-dashdash "--" "$SBXSUP" run -m "$GOOD" -w "$WS" "${run_cmd[@]}"
cli unknown-option "--frobnicate" "$SBXSUP" run --frobnicate -m "$GOOD" -w "$WS" -- "${run_cmd[@]}"
cli timeout-abc "abc" "$SBXSUP" run --timeout abc -m "$GOOD" -w "$WS" -- "${run_cmd[@]}"
cli timeout-negative "timeout" "$SBXSUP" run --timeout -5 -m "$GOOD" -w "$WS" -- "${run_cmd[@]}"
cli timeout-missing-arg "timeout" "$SBXSUP" run -m "$GOOD" -w "$WS" --timeout
cli layers-bogus "bogus" "$SBXSUP" run --layers preload,bogus -m "$GOOD" -w "$WS" -- "${run_cmd[@]}"
cli require-bogus "bogus" "$SBXSUP" run --require bogus -m "$GOOD" -w "$WS" -- "${run_cmd[@]}"
cli require-env-bogus "bogus" env SBXSUP_REQUIRE=bogus "$SBXSUP" run -m "$GOOD" -w "$WS" -- "${run_cmd[@]}"
cli audit-unwritable-dir "$T_TMP/no/such/dir" "$SBXSUP" run -a "$T_TMP/no/such/dir/a.jsonl" -m "$GOOD" -w "$WS" -- "${run_cmd[@]}"
mkdir -p "$T_TMP/ro" && chmod 0555 "$T_TMP/ro"
cli audit-is-directory "$T_TMP/ro" "$SBXSUP" run -a "$T_TMP/ro" -m "$GOOD" -w "$WS" -- "${run_cmd[@]}"
cli audit-bad-fd "fd:" "$SBXSUP" run -a fd:99 -m "$GOOD" -w "$WS" -- "${run_cmd[@]}"
cli audit-fd-garbage "fd:x" "$SBXSUP" run -a fd:x -m "$GOOD" -w "$WS" -- "${run_cmd[@]}"
cli manifest-missing "$T_TMP/nope.json" "$SBXSUP" run -m "$T_TMP/nope.json" -w "$WS" -- "${run_cmd[@]}"
cli manifest-is-dir "$T_TMP" "$SBXSUP" run -m "$T_TMP" -w "$WS" -- "${run_cmd[@]}"
cli manifest-missing-arg "-m" "$SBXSUP" run -w "$WS" -m
cli workspace-missing "$T_TMP/nows" "$SBXSUP" run -m "$GOOD" -w "$T_TMP/nows" -- "${run_cmd[@]}"
cli no-command "command" "$SBXSUP" run -m "$GOOD" -w "$WS" --
cli unknown-subcommand "frob" "$SBXSUP" frob
cli validate-no-manifest "-m" "$SBXSUP" validate
cli validate-missing-file "$T_TMP/nope.json" "$SBXSUP" validate -m "$T_TMP/nope.json"

# ---- damaged audit files ------------------------------------------------------------------------
AUD=$T_TMP/audit
mkdir -p "$AUD"
python3 - "$AUD" <<'PY'
import hashlib, json, os, sys
d = sys.argv[1]
def chain(run, n, executor='bad-audit'):
    prev = '0' * 64
    lines = []
    for seq in range(n):
        ev = 'run.start' if seq == 0 else ('run.end' if seq == n - 1 else 'preload.deny')
        body = {'v': 1, 'ts': '2026-11-22T05:07:%02d.123456Z' % seq, 'run': run, 'seq': seq,
                'executor': executor, 'event': ev, 'src': 'preload' if ev == 'preload.deny' else 'sbxsup'}
        if ev == 'run.start':
            body.update({'argv': ['true'], 'manifest': {'path': '(built-in default)', 'sha256': '0' * 64},
                         'uid': 0, 'layers': {'preload': True}, 'why': {}, 'autonomy': 'supervised'})
        elif ev == 'preload.deny':
            body.update({'pid': 7, 'comm': 'cat', 'op': 'open', 'path': '/etc/shadow', 'access': 'read',
                         'rule': 'builtin:secret: /etc/shadow', 'errno': 13})
        else:
            body.update({'exit': 0, 'signal': 0, 'duration_ms': 1, 'counts': {}, 'lost': 0})
        body['prev'] = prev
        pre = json.dumps(body, separators=(',', ':'), ensure_ascii=False)[:-1]  # without the '}'
        h = hashlib.sha256(pre.encode()).hexdigest()                           # SPEC: bytes before ,"hash":
        lines.append(pre + ',"hash":"%s"}' % h)
        prev = h
    return lines
good = chain('a' * 32, 4)
w = lambda name, ls, raw=None: open(os.path.join(d, name), 'wb').write(raw if raw is not None else ('\n'.join(ls) + '\n').encode())
w('good.jsonl', good)
t = list(good); t[2] = t[2].replace('/etc/shadow', '/etc/passwd'); w('tampered_field.jsonl', t)
t = list(good); t[1] = t[1][:-3] + ('0' if t[1][-3] != '0' else '1') + t[1][-2:]; w('tampered_hash.jsonl', t)
t = list(good); del t[2]; w('deleted_line.jsonl', t)
t = list(good); t[1], t[2] = t[2], t[1]; w('reordered.jsonl', t)
w('truncated_line.jsonl', None, ('\n'.join(good[:2]) + '\n' + good[2][:40]).encode())
w('binary_garbage.jsonl', None, os.urandom(4096))
w('not_json.jsonl', None, b'hello world\nthis is not an audit stream\n')
w('json_without_hash.jsonl', None, b'{"v":1,"event":"run.start","seq":0}\n')
w('nul_in_line.jsonl', None, good[0].encode()[:30] + b'\0' + good[0].encode()[30:] + b'\n')
w('invalid_utf8.jsonl', None, good[0].replace('bad-audit', 'bad-audi\udcff').encode('utf-8', 'surrogateescape') + b'\n')
t = list(good); t.insert(2, t[1]); w('duplicated_line.jsonl', t)
w('huge_line.jsonl', None, (good[0][:-1] + ',"pad":"' + 'x' * 70000 + '"}\n').encode())
w('forged_chain_restart.jsonl', good + chain('a' * 32, 2)[:1])
PY
out=$("$SBXSUP" audit verify "$AUD/good.jsonl" 2>&1); rc=$?
if [ $rc -eq 0 ]; then t_pass badinput/audit/good-file-verifies
else t_fail badinput/audit/good-file-verifies "exit $rc on a well-formed file: $(head -c 300 <<<"$out" | tr '\n' ' ')"; fi
for f in "$AUD"/*.jsonl; do
	b=$(basename "$f" .jsonl)
	[ "$b" = good ] && continue
	out=$("$SBXSUP" audit verify "$f" 2>&1); rc=$?
	case "$out" in *AddressSanitizer*|*"runtime error"*) rc="crash";; esac
	if [ "$rc" = 1 ]; then t_pass "badinput/audit/$b"
	else t_fail "badinput/audit/$b" "audit verify exit $rc (want 1): $(head -c 200 <<<"$out" | tr '\n' ' ')"; fi
done
# several files at once: one damaged file makes the whole verify fail
out=$("$SBXSUP" audit verify "$AUD/good.jsonl" "$AUD/deleted_line.jsonl" 2>&1); rc=$?
t_check badinput/audit/mixed-files-fail [ "$rc" = 1 ]
