#!/usr/bin/env bash
# audit_cli.sh — `sbxsup audit verify|summary|filter|report` on fixture streams written by the real
# writer (tests/fixtures/audit/clean.log, made by tests/fixtures/audit/gen.c): clean, edited byte,
# deleted line, reordered lines, forged hash, garbage, truncated, interleaved runs; the summary
# numbers; filter extraction that still verifies; --follow; the HTML report in headless Chromium.
source "$(dirname "$0")/../lib.sh"
FIX=$SBX_ROOT/tests/fixtures/audit
CLEAN=$FIX/clean.log
S=$SBXSUP
# fixture facts (see gen.c): runs
RUN_EVIL=$(python3 -c 'import json,sys
for l in open(sys.argv[1]):
    o=json.loads(l)
    if o["executor"]=="evil-tool" and o["event"]=="kernel.violation": print(o["run"]); break' "$CLEAN")

# line numbers (1-based) of the events of one run, in file order
run_lines() { python3 -c 'import json,sys
for i,l in enumerate(open(sys.argv[1]),1):
    if json.loads(l)["run"]==sys.argv[2]: print(i)' "$CLEAN" "$1"; }

# ---- verify ------------------------------------------------------------------------------------------
# the fixture's slow-tool run has no run.end (still running when the file was copied): incomplete
# is a problem (exit 1, that run only); --allow-incomplete makes it a warning
out=$("$S" audit verify "$CLEAN"); rc=$?
out2=$("$S" audit verify --allow-incomplete "$CLEAN"); rc2=$?
if [ $rc -eq 1 ] && grep -q '1 problem(s)' <<<"$out" && grep -q 'slow-tool) is incomplete' <<<"$out" \
   && [ $rc2 -eq 0 ] && grep -q 'problem(s).*OK$' <<<"$out2" && grep -q 'warning: run .*slow-tool.*no run.end' <<<"$out2"; then
	t_pass audit_verify_clean_interleaved
else t_fail audit_verify_clean_interleaved "rc=$rc rc2=$rc2: $out $out2"; fi

out=$(cat "$CLEAN" | "$S" audit verify --allow-incomplete -); rc=$?
t_check audit_verify_stdin test $rc -eq 0

# edit one byte of one line: exit 1 naming exactly that line
L=$(run_lines "$RUN_EVIL" | sed -n 3p)
sed "${L}s/python3/pythoN3/" "$CLEAN" > "$T_TMP/edit.log"
out=$("$S" audit verify --allow-incomplete "$T_TMP/edit.log"); rc=$?
n=$(grep -c '^[^ ]*:[0-9]*: [^w]' <<<"$out")
if [ $rc -eq 1 ] && grep -q "edit.log:$L: hash does not match" <<<"$out" && [ "$n" = 1 ]; then
	t_pass audit_verify_edited_byte
else t_fail audit_verify_edited_byte "rc=$rc line=$L: $out"; fi

# edit the executor name of a run's FIRST line: only that line is named (the edited line must not
# become the run's identity and make every later, intact line look wrong)
L=$(run_lines "$RUN_EVIL" | sed -n 1p)
sed -E "${L}s/\"executor\":\"([^\"])/\"executor\":\"X\\1/" "$CLEAN" > "$T_TMP/edit-first.log"
out=$("$S" audit verify --allow-incomplete "$T_TMP/edit-first.log"); rc=$?
n=$(grep -c '^[^ ]*:[0-9]*: [^w]' <<<"$out")
if [ $rc -eq 1 ] && ! cmp -s "$CLEAN" "$T_TMP/edit-first.log" && grep -q "edit-first.log:$L: hash does not match" <<<"$out" && [ "$n" = 1 ]; then
	t_pass audit_verify_edited_first_line
else t_fail audit_verify_edited_first_line "rc=$rc line=$L n=$n: $out"; fi

# delete a line: the gap is named at the next line of that run
L=$(run_lines "$RUN_EVIL" | sed -n 3p); NEXT=$(run_lines "$RUN_EVIL" | sed -n 4p)
sed "${L}d" "$CLEAN" > "$T_TMP/del.log"
out=$("$S" audit verify --allow-incomplete "$T_TMP/del.log"); rc=$?
if [ $rc -eq 1 ] && grep -q "del.log:$((NEXT - 1)): run ${RUN_EVIL:0:12}: seq gap: expected 2, got 3" <<<"$out"; then
	t_pass audit_verify_deleted_line
else t_fail audit_verify_deleted_line "rc=$rc: $out"; fi

# reorder two lines of the same run
LA=$(run_lines "$RUN_EVIL" | sed -n 4p); LB=$(run_lines "$RUN_EVIL" | sed -n 5p)
awk -v a="$LA" -v b="$LB" 'NR==FNR{l[FNR]=$0; next} FNR==a{print l[b]; next} FNR==b{print l[a]; next} {print}' "$CLEAN" "$CLEAN" > "$T_TMP/swap.log"
out=$("$S" audit verify --allow-incomplete "$T_TMP/swap.log"); rc=$?
if [ $rc -eq 1 ] && grep -q "swap.log:$LA: .*seq gap" <<<"$out" && grep -q "swap.log:$LB: .*repeats or goes back" <<<"$out"; then
	t_pass audit_verify_reordered
else t_fail audit_verify_reordered "rc=$rc LA=$LA LB=$LB: $out"; fi

# forged hash: the line is edited and its hash recomputed -> the next line of the run no longer links
L=$(run_lines "$RUN_EVIL" | sed -n 3p); NEXT=$(run_lines "$RUN_EVIL" | sed -n 4p)
python3 - "$CLEAN" "$T_TMP/forge.log" "$L" <<'PY'
import sys, hashlib
lines = open(sys.argv[1], 'rb').read().split(b'\n')[:-1]
i = int(sys.argv[3]) - 1
l = lines[i].replace(b'python3', b'pythoN3')
k = l.rindex(b',"hash":"')
lines[i] = l[:k] + b',"hash":"' + hashlib.sha256(l[:k]).hexdigest().encode() + b'"}'
open(sys.argv[2], 'wb').write(b'\n'.join(lines) + b'\n')
PY
out=$("$S" audit verify --allow-incomplete "$T_TMP/forge.log"); rc=$?
if [ $rc -eq 1 ] && grep -q "forge.log:$NEXT: run ${RUN_EVIL:0:12}: prev does not link" <<<"$out"; then
	t_pass audit_verify_forged_hash
else t_fail audit_verify_forged_hash "rc=$rc: $out"; fi

# garbage: not JSON, bad UTF-8, empty, > 64 KiB, missing field, and a truncated last line
{ head -n 3 "$CLEAN"; echo 'garbage {'; printf '\xff\xfe\n'; echo; head -c 70000 /dev/zero | tr '\0' a; echo
  echo '{"v":1,"ts":"2026-01-01T00:00:00.000000Z"}'; sed -n '4,$p' "$CLEAN"; head -n 1 "$CLEAN" | head -c 100; } > "$T_TMP/garbage.log"
out=$("$S" audit verify --allow-incomplete "$T_TMP/garbage.log"); rc=$?
last=$(wc -l < "$T_TMP/garbage.log"); last=$((last + 1))
if [ $rc -eq 1 ] && grep -q 'garbage.log:4: not a JSON object' <<<"$out" && grep -q 'garbage.log:5: not valid UTF-8' <<<"$out" \
   && grep -q 'garbage.log:6: empty line' <<<"$out" && grep -q 'garbage.log:7: line longer than 64 KiB' <<<"$out" \
   && grep -q 'garbage.log:8: missing field "run"' <<<"$out" && grep -q "garbage.log:$last: last line has no newline" <<<"$out"; then
	t_pass audit_verify_garbage_lines
else t_fail audit_verify_garbage_lines "rc=$rc: $out"; fi

# a run cut short (file truncated after some lines): incomplete, exit 1
head -n 10 "$CLEAN" > "$T_TMP/trunc.log"
out=$("$S" audit verify "$T_TMP/trunc.log"); rc=$?
if [ $rc -eq 1 ] && [ "$(grep -c ') is incomplete: no run.end' <<<"$out")" -ge 3 ]; then t_pass audit_verify_truncated_run
else t_fail audit_verify_truncated_run "rc=$rc: $out"; fi

"$S" audit verify "$T_TMP/does-not-exist" >/dev/null 2>&1; rc1=$?
"$S" audit verify >/dev/null 2>&1; rc2=$?
"$S" audit frobnicate >/dev/null 2>&1; rc3=$?
t_check audit_bad_usage_exit_125 test "$rc1$rc2$rc3" = 125125125

# ---- summary ---------------------------------------------------------------------------------------
if "$S" audit summary --json "$CLEAN" > "$T_TMP/sum.json" && python3 - "$T_TMP/sum.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
t = s["totals"]
want = dict(breach=1, contained=2, preload_deny=4, seccomp_deny=1, netfilter_deny=1, attempts=9,
            limit_hit=2, env_drop=2, lost=2, events=22)
bad = {k: (t.get(k), v) for k, v in want.items() if t.get(k) != v}
assert not bad, bad
assert s["run_count"] == 5 and len(s["runs"]) == 5 and s["lines"] == 22 and s["damaged_lines"] == 0
assert t["severity"] == dict(critical=6, high=2, medium=0, low=1, info=0), t["severity"]
ex = [e["name"] for e in s["executors"]]
assert ex == ["evil-tool", "notes-search", "slow-tool"], ex
evil = s["executors"][0]
assert evil["runs"] == 2 and evil["degraded_runs"] == 1 and evil["exits"] == {"1": 1, "0": 1}, evil
assert s["runs"][0]["counts"]["breach"] == 1 and s["runs"][0]["executor"] == "evil-tool"
assert s["runs"][0]["verdict"] == "breach" and s["runs"][0]["worst"] == "critical"
assert "run_list" not in s
assert len(s["breaches"]) == 1 and "/etc/shadow" in s["breaches"][0]["detail"]
assert sum(1 for r in s["runs"] if not r["complete"]) == 1
deg = [r for r in s["runs"] if r["degraded"]][0]
assert deg["layers_off"] == "bwrap (bwrap: setting up uid map: Permission denied)", deg["layers_off"]
assert deg["layers_off_why"] == {"bwrap": "bwrap: setting up uid map: Permission denied"}
assert deg["command"] and deg["argv"] and "manifest" in deg and "workspace" in deg and "tag" in deg
f = s["runs"][0]["findings"]
assert f[0]["sev"] == "critical" and all(x["rule"] for x in f), f
PY
then t_pass audit_summary_numbers_json; else t_fail audit_summary_numbers_json "$(cat "$T_TMP/sum.json")"; fi

out=$("$S" audit summary "$CLEAN" "$T_TMP/garbage.log")
first_exec=$(awk '/^EXECUTOR /{getline; print $1; exit}' <<<"$out")
if grep -q '^!!! 2 BREACH' <<<"$out" && [ "$first_exec" = evil-tool ] && grep -q 'DAMAGED line' <<<"$out" \
   && ! grep -q $'\x1b' <<<"$out"; then t_pass audit_summary_text_hostile_first
else t_fail audit_summary_text_hostile_first "$out"; fi

# ---- filter ------------------------------------------------------------------------------------------
"$S" audit filter --run "${RUN_EVIL:0:8}" "$CLEAN" > "$T_TMP/run.log"
n=$(wc -l < "$T_TMP/run.log")
if "$S" audit verify "$T_TMP/run.log" >/dev/null && [ "$n" = "$(run_lines "$RUN_EVIL" | wc -l)" ]; then
	t_pass audit_filter_run_still_verifies
else t_fail audit_filter_run_still_verifies "n=$n"; fi

t_check audit_filter_identity cmp -s <("$S" audit filter "$CLEAN") "$CLEAN"
c1=$("$S" audit filter --outcome breach "$CLEAN" | wc -l)
c2=$("$S" audit filter --layer bwrap "$CLEAN" | wc -l)
c3=$("$S" audit filter --event 'kernel.*' --executor evil-tool "$CLEAN" | wc -l)
c4=$("$S" audit filter --layer preload,seccomp "$CLEAN" | wc -l)
c5=$("$S" audit filter --since 2000-01-01 --until 2999-01-01T00:00:00+01:00 "$CLEAN" | wc -l)
c6=$("$S" audit filter --since 2999-01-01 "$CLEAN" | wc -l)
c7=$("$S" audit filter --event env.drop - < "$CLEAN" | wc -l)
c8=$("$S" audit filter --event run.end "$T_TMP/garbage.log" 2>/dev/null | wc -l)
t_check audit_filter_conditions test "$c1 $c2 $c3 $c4 $c5 $c6 $c7 $c8" = "1 1 3 5 22 0 2 4"
"$S" audit filter --since yesterday "$CLEAN" >/dev/null 2>&1; r1=$?
"$S" audit filter --outcome maybe "$CLEAN" >/dev/null 2>&1; r2=$?
t_check audit_filter_bad_args test "$r1$r2" = 125125

# --follow: lines appended to a live file come out; ends cleanly on SIGTERM
: > "$T_TMP/live.log"
"$S" audit filter --follow --event preload.deny "$T_TMP/live.log" > "$T_TMP/follow.out" 2>&1 &
fpid=$!
t_on_exit "kill $fpid 2>/dev/null"
head -n 6 "$CLEAN" >> "$T_TMP/live.log"
sed -n '7,$p' "$CLEAN" >> "$T_TMP/live.log"
for _ in $(seq 1 200); do [ "$(wc -l < "$T_TMP/follow.out")" -ge 4 ] && break; sleep 0.1; done
kill -TERM $fpid; wait $fpid; frc=$?
if [ "$(wc -l < "$T_TMP/follow.out")" = 4 ] && [ $frc -eq 0 ] && "$S" audit verify --allow-incomplete "$T_TMP/live.log" >/dev/null; then
	t_pass audit_filter_follow
else t_fail audit_filter_follow "rc=$frc $(cat "$T_TMP/follow.out")"; fi

# summary --follow: re-printed as the live file grows
: > "$T_TMP/live2.log"
"$S" audit summary --follow --json "$T_TMP/live2.log" > "$T_TMP/sfollow.out" 2>&1 &
spid=$!
t_on_exit "kill $spid 2>/dev/null"
head -n 6 "$CLEAN" >> "$T_TMP/live2.log"
for _ in $(seq 1 200); do grep -q '"lines":6,' "$T_TMP/sfollow.out" && break; sleep 0.1; done
sed -n '7,$p' "$CLEAN" >> "$T_TMP/live2.log"
for _ in $(seq 1 200); do grep -q '"lines":22,' "$T_TMP/sfollow.out" && break; sleep 0.1; done
kill -TERM $spid; wait $spid; src=$?
if grep -q '"lines":6,' "$T_TMP/sfollow.out" && tail -n 1 "$T_TMP/sfollow.out" | python3 -c '
import json,sys; s=json.load(sys.stdin); assert s["lines"]==22 and s["totals"]["breach"]==1' && [ $src -eq 0 ]; then
	t_pass audit_summary_follow
else t_fail audit_summary_follow "rc=$src $(tail -c 600 "$T_TMP/sfollow.out")"; fi

# ---- writer round trip: a fresh stream from the real writer (tests/fixtures/audit/gen.c) --------------
LIBC=$SBX_ROOT/${B:-build}/libcommon.a
build_gen() { cc -D_GNU_SOURCE "$@" -I"$SBX_ROOT/audit" -I"$SBX_ROOT/common" $(pkg-config --cflags libcjson) "$FIX/gen.c" "$LIBC" \
	$(pkg-config --libs libcjson libsodium) -o "$T_TMP/gen" 2>"$T_TMP/gen.err"; }
# (a sanitizer build of libcommon.a — make asan — needs the sanitizer runtime at link time)
if [ -f "$LIBC" ] && { build_gen || build_gen -fsanitize=address,undefined; }; then
	"$T_TMP/gen" "$T_TMP/fresh.log"
	out=$("$S" audit verify --allow-incomplete "$T_TMP/fresh.log"); rc=$?
	mode=$(stat -c %a "$T_TMP/fresh.log")
	if [ $rc -eq 0 ] && [ "$mode" = 600 ] && cmp -s <("$S" audit summary --json "$T_TMP/fresh.log" | python3 -c 'import json,sys; print(json.load(sys.stdin)["totals"])') \
	                               <("$S" audit summary --json "$CLEAN" | python3 -c 'import json,sys; print(json.load(sys.stdin)["totals"])'); then
		t_pass audit_writer_roundtrip
	else t_fail audit_writer_roundtrip "rc=$rc mode=$mode: $out"; fi
else
	t_fail audit_writer_roundtrip "cannot build gen.c against $LIBC: $(cat "$T_TMP/gen.err" 2>/dev/null)"
fi

# ---- HTML report in headless Chromium ------------------------------------------------------------------
if "$S" audit report --html "$T_TMP/report.html" "$CLEAN" "$T_TMP/garbage.log"; then
	# self-contained: no external reference; exactly one inline script, allowed by its hash only
	if grep -Eiq '(src|href|action)=["'"'"']?(https?:|//)' "$T_TMP/report.html" || grep -qi '<script[^>]*src' "$T_TMP/report.html" \
	   || grep -qi '@import\|url(' "$T_TMP/report.html" || ! python3 - "$T_TMP/report.html" <<'PY'
import base64, hashlib, re, sys
h = open(sys.argv[1], encoding="utf-8").read()
scripts = re.findall(r"<script>(.*?)</script>", h, re.S)
assert len(scripts) == 1 and h.count("<script") == 1, "one inline script"
csp = re.search(r'http-equiv="Content-Security-Policy" content="([^"]*)"', h).group(1)
want = base64.b64encode(hashlib.sha256(scripts[0].encode()).digest()).decode()
assert "default-src 'none'" in csp and "script-src 'sha256-%s'" % want in csp and "unsafe-inline'; script" not in csp.replace("style-src 'unsafe-inline'; script", ""), csp
PY
	then
		t_fail audit_report_self_contained "external reference, extra script, or CSP without the script's hash"
	else t_pass audit_report_self_contained; fi
	CHROME=$(command -v chromium || command -v chromium-browser || true)
	if [ -z "$CHROME" ]; then
		t_skip audit_report_chromium_dom "chromium not installed (apt-get install -y chromium)"
	else
		prof=$(mktemp -d); t_on_exit "rm -rf '$prof'"
		timeout 120 "$CHROME" --headless --no-sandbox --disable-gpu --no-first-run --disable-background-networking \
			--disable-component-update --disable-sync --user-data-dir="$prof" --dump-dom "file://$T_TMP/report.html" \
			> "$T_TMP/dom.html" 2>"$T_TMP/chromium.err"
		if python3 - "$T_TMP/dom.html" <<'PY'
import sys
from html.parser import HTMLParser
class P(HTMLParser):
    def __init__(s):
        super().__init__(); s.ids = {}; s.cur = None; s.scripts = 0; s.rows = []; s.text = []
    def handle_starttag(s, tag, a):
        a = dict(a)
        if tag == 'script': s.scripts += 1
        if tag == 'html': s.root = a
        if a.get('id', '').startswith('count-'): s.cur = a['id']
        if tag == 'tr' and 'data-executor' in a: s.rows.append(a['data-executor'])
    def handle_data(s, d):
        s.text.append(d)
        if s.cur: s.ids[s.cur] = d; s.cur = None
p = P(); p.feed(open(sys.argv[1], encoding='utf-8').read())
want = {'count-breach': '2', 'count-critical': '12', 'count-high': '4', 'count-low': '2', 'count-info': '0', 'count-attempts': '18', 'count-contained': '4', 'count-runs': '5',
        'count-executors': '3', 'count-degraded': '1', 'count-damaged': '6', 'count-lost': '4'}
bad = {k: (p.ids.get(k), v) for k, v in want.items() if p.ids.get(k) != v}
assert not bad, bad
assert p.scripts == 1, 'one script element in the DOM'
assert 'data-ready-ms' in p.root, 'the inline script ran (its hash is in the CSP)'
assert p.rows[0] == 'evil-tool', p.rows
assert "<script>alert('x')</script>" in ''.join(p.text), 'hostile string not shown as text'
PY
		then t_pass audit_report_chromium_dom; else t_fail audit_report_chromium_dom "$(head -c 2000 "$T_TMP/dom.html")"; fi
	fi
else
	t_fail audit_report_self_contained "report failed"; t_fail audit_report_chromium_dom "report failed"
fi

# ---- a real run's stream (sbxsup run): the attack fails, the stream verifies, the summary counts it ----
"$S" run -a "$T_TMP/real.log" -- /bin/cat /etc/shadow >/dev/null 2>&1; rrc=$?
"$S" run -a "$T_TMP/real.log" -- /bin/true >/dev/null 2>&1
if [ $rrc -ne 0 ] && audit_has "$T_TMP/real.log" preload.deny path=/etc/shadow \
   && "$S" audit verify "$T_TMP/real.log" >/dev/null \
   && "$S" audit summary --json "$T_TMP/real.log" | python3 -c '
import json,sys; s=json.load(sys.stdin)
assert s["run_count"]==2 and s["totals"]["preload_deny"]>=1 and all(r["complete"] for r in s["runs"]), s
assert s["runs"][0]["verdict"] == "hostile" and s["runs"][0]["argv"] == ["/bin/cat", "/etc/shadow"], s["runs"][0]
assert any(g["subject"] == "/etc/shadow" and g["rule"].startswith("builtin:secret:") for g in s["runs"][0]["findings"])'; then
	t_pass audit_real_run_stream
else t_fail audit_real_run_stream "rc=$rrc $(head -c 1500 "$T_TMP/real.log")"; fi

# ---- review (issue 19): filter by rule/path/comm/severity; errors before any verdict; tail ----------
f1=$("$S" audit filter --rule 'never-readable*' "$CLEAN" | wc -l)
f2=$("$S" audit filter --path /etc/shadow "$CLEAN" | wc -l)
f3=$("$S" audit filter --path '*/.aws/*' --comm curl "$CLEAN" | wc -l)
f4=$("$S" audit filter --severity critical "$CLEAN" | wc -l)
f5=$("$S" audit filter --severity high+ "$CLEAN" | wc -l)
f6=$("$S" audit filter --severity low,info "$CLEAN" | wc -l)
f7=$("$S" audit filter --comm 'static_*' --severity critical "$CLEAN" | wc -l)
"$S" audit filter --severity critical "$CLEAN" > "$T_TMP/crit.log"
t_check audit_filter_rule_path_comm_severity test "$f1 $f2 $f3 $f4 $f5 $f6 $f7" = "3 4 1 6 8 1 3"
"$S" audit filter --severity severe "$CLEAN" >/dev/null 2>&1; r1=$?
t_check audit_filter_bad_severity test "$r1" = 125
# every line --severity critical printed is critical by the same table summary uses
t_check audit_filter_severity_agrees_with_summary test "$("$S" audit summary --json "$T_TMP/crit.log" | python3 -c '
import json,sys; s=json.load(sys.stdin); sv=s["totals"]["severity"]; print(sv["critical"], sum(sv.values()))')" = "6 6"

# a missing input: the error comes first and alone (no verdict printed), exit 125, every command
for cmd in "summary" "summary --json" "report --html $T_TMP/none.html" "tail"; do
	"$S" audit $cmd "$CLEAN" "$T_TMP/does-not-exist" > "$T_TMP/err.out" 2> "$T_TMP/err.err"; rc=$?
	[ "$cmd" = tail ] && { "$S" audit tail "$T_TMP/does-not-exist" > "$T_TMP/err.out" 2> "$T_TMP/err.err"; rc=$?; }
	name=${cmd%% /*}; name=${name//[ -]/_}; name=${name//__/_}
	if [ $rc -eq 125 ] && [ ! -s "$T_TMP/err.out" ] && grep -q 'does-not-exist: No such file' "$T_TMP/err.err" \
	   && [ ! -e "$T_TMP/none.html" ]; then t_pass "audit_error_before_verdict_$name"
	else t_fail "audit_error_before_verdict_$name" "rc=$rc out=$(head -c 300 "$T_TMP/err.out") err=$(cat "$T_TMP/err.err")"; fi
done

# tail: plain on a pipe (no escape byte at all, even from the hostile comm), colours only when asked
out=$("$S" audit tail -n all "$CLEAN")
col=$("$S" audit tail -n all --color always "$CLEAN")
if [ "$(wc -l <<<"$out")" = 22 ] && ! grep -q $'\x1b' <<<"$out" && grep -q 'sh\\033\[31m' <<<"$out" \
   && grep -q $'^\x1b\[1;31m.*critical .*evil-tool.*/etc/shadow' <<<"$col" \
   && [ "$(grep -c $'\x1b\[' <<<"$col")" = "$(grep -c ' \(critical\|high\|medium\|low\|info\) ' <<<"$out")" ] \
   && [ "$("$S" audit tail "$CLEAN" | wc -l)" = 10 ] && [ "$("$S" audit tail -n 3 "$CLEAN" | tail -n 1 | awk '{print $5}')" = run.end ]; then
	t_pass audit_tail_plain_and_colour
else t_fail audit_tail_plain_and_colour "$(head -c 1500 <<<"$col" | cat -v)"; fi
# tail -f on a terminal: colours; new lines appear as the file grows; ends cleanly on SIGTERM
if command -v script >/dev/null; then
	head -n 4 "$CLEAN" > "$T_TMP/livet.log"
	script -qfec "$S audit tail -f -n 2 $T_TMP/livet.log" /dev/null > "$T_TMP/tailf.out" 2>&1 &
	tpid=$!
	t_on_exit "kill $tpid 2>/dev/null"
	for _ in $(seq 1 100); do [ "$(grep -c 'Z ' "$T_TMP/tailf.out")" -ge 2 ] && break; sleep 0.1; done
	sed -n '5,$p' "$CLEAN" >> "$T_TMP/livet.log"
	for _ in $(seq 1 100); do grep -q 'run.end.*lost=2' "$T_TMP/tailf.out" && break; sleep 0.1; done
	kill -TERM $tpid 2>/dev/null; wait $tpid 2>/dev/null   # script(1) ends; its pty hangs up the tail
	n=$(grep -c 'Z ' "$T_TMP/tailf.out")
	if [ "$n" = 20 ] && grep -q $'\x1b\[1;31m' "$T_TMP/tailf.out"; then t_pass audit_tail_follow_tty_colour
	else t_fail audit_tail_follow_tty_colour "n=$n $(head -c 800 "$T_TMP/tailf.out" | cat -v)"; fi
else
	t_skip audit_tail_follow_tty_colour "needs script(1) for a pseudo-terminal"
fi

# ---- names that try to forge the review (issue 30): a real run is refused opening files whose names
# hold ESC, CR, a newline that starts a fake line, a bidi override and invalid UTF-8; summary, tail
# and the HTML report show them escaped (\033, \r, \n, \u202e; the stream already carries U+FFFD for
# the invalid byte), never the raw bytes -----------------------------------------------------------
HA=$T_TMP/hostile-names.jsonl; rm -f "$HA"
HD=/var/tmp/sbxsup-names-$$; mkdir -p "$HD"; t_on_exit "rm -rf '$HD'"
mkdir -p "$T_TMP/hw"; (cd "$T_TMP/hw" && "$S" run -a "$HA" -- sh -c '
	for n in "esc\033[2J\033[Hx" "cr\rsummary: clean" "nl\n!!! 0 BREACH(ES)" "bidi\342\200\256gpj.sh" "bad\377x"; do
		cat "'"$HD"'/$(printf "$n")" 2>/dev/null; done; true' >/dev/null 2>&1)
hs=$("$S" audit summary "$HA" 2>&1); ht=$("$S" audit tail -n all "$HA" 2>&1)
"$S" audit report --html "$T_TMP/names.html" "$HA" >/dev/null 2>&1; hh=$(cat "$T_TMP/names.html" 2>/dev/null)
raw_ok() { ! grep -q $'[\x1b\r]' <<<"$1" && ! grep -q $'\xe2\x80\xae' <<<"$1" && ! grep -q '^!!! 0 BREACH' <<<"$1"; }
if audit_has "$HA" preload.deny "path~$HD/esc" && raw_ok "$hs" && raw_ok "$ht" && raw_ok "$hh" &&
   grep -qF 'esc\033[2J\033[Hx' <<<"$hs" && grep -qF 'cr\rsummary: clean' <<<"$hs" && grep -qF 'nl\n!!! 0 BREACH(ES)' <<<"$hs" &&
   grep -qF 'bidi\u202egpj.sh' <<<"$hs" && grep -qF "path=\"$HD/nl\\n!!! 0 BREACH(ES)\"" <<<"$ht" &&
   grep -qF 'esc\033[2J\033[Hx' <<<"$hh" && grep -qF 'bidi\u202egpj.sh' <<<"$hh"; then
	t_pass audit_hostile_names_escaped
else t_fail audit_hostile_names_escaped "$(audit_explain "$HA" preload.deny "path~$HD/esc") summary=$(cat -v <<<"$hs" | grep -i "$HD" | head -5) tail=$(cat -v <<<"$ht" | grep "$HD" | head -3)"; fi

# ... and the stream itself (what `cat`, `audit filter` and any JSON tool print) carries the bidi
# override as \u202e, never the raw character; the line still verifies (the MAC covers the bytes
# as written) and `audit filter` prints it unchanged
hf=$("$S" audit filter --event preload.deny "$HA" 2>&1)
if ! grep -q $'\xe2\x80\xae' "$HA" && grep -qF 'bidi\u202egpj.sh' "$HA" && grep -qF 'bidi\u202egpj.sh' <<<"$hf" &&
   ! grep -q $'\xe2\x80\xae' <<<"$hf" && "$S" audit verify "$HA" >/dev/null 2>&1; then
	t_pass audit_stream_bidi_escaped
else t_fail audit_stream_bidi_escaped "raw=$(grep -c $'\xe2\x80\xae' "$HA") $(grep -o 'bidi[^"]*' "$HA" | head -2 | cat -v)"; fi
