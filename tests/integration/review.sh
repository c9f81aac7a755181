#!/usr/bin/env bash
# review.sh — issue 19's done-criterion, as a security reviewer would try it: the demo's audit stream
# (examples/demo.sh: honest and hostile executors, several manifests, preload-only mode) plus two
# honest `git commit` runs under sbxsup. The hostile executor (hostile.py) must come first in
# `audit summary` (text and --json .runs[0]), the git runs must rank below every hostile run with
# their benign libc/tool probes as info (not escape attempts), and the HTML report's first screen,
# in a real headless Chromium, must show the hostile run's secret-read attempts with the rule that
# stopped each (screenshot pixels + DOM). Also: the client-side filter in the browser, and a
# 100 000-event stream rendered in under 2 s.
source "$(dirname "$0")/../lib.sh"
S=$SBXSUP
A=$T_TMP/review.jsonl
CHROME=$(command -v chromium || command -v chromium-browser || true)

chrome() { # chrome OUTOPT URL: headless Chromium with a fresh profile (removed afterwards)
	local prof; prof=$(mktemp -d "$T_TMP/prof.XXXXXX")
	timeout 120 "$CHROME" --headless --no-sandbox --disable-gpu --no-first-run --disable-background-networking \
		--disable-component-update --disable-sync --user-data-dir="$prof" --window-size=1280,900 \
		--hide-scrollbars "$@" 2>>"$T_TMP/chromium.err"
	rm -rf "$prof"
}

# ---- the stream: the demo, then two honest git commits ------------------------------------------------
SBXSUP_DEMO_AUDIT_OUT=$A bash "$SBX_ROOT/examples/demo.sh" > "$T_TMP/demo.out" 2>&1
if ! need_cmd review_git_runs git; then exit 0; fi
mkdir -p "$T_TMP/repo" && chmod 755 "$T_TMP" "$T_TMP/repo"
( cd "$T_TMP/repo" && git init -q . && git config user.email reviewer@example.invalid && git config user.name reviewer \
  && echo one > a && git add a && git commit -q -m init ) || { t_fail review_git_runs "git init failed"; exit 0; }
for i in 1 2; do
	(cd "$T_TMP/repo" && echo "$i" >> a && git add a && "$S" run -a "$A" -- git commit -q -m "change $i") \
		>> "$T_TMP/git.out" 2>&1 || t_fail review_git_runs "git commit $i under sbxsup failed: $(cat "$T_TMP/git.out")"
done
ncommits=$(cd "$T_TMP/repo" && git rev-list --count HEAD)
if [ -s "$A" ] && [ "$ncommits" = 3 ] && grep -q '"argv":\["git","commit"' "$A" && grep -q 'hostile.py' "$A"; then
	t_pass review_git_runs
else t_fail review_git_runs "commits=$ncommits $(tail -c 600 "$T_TMP/demo.out")"; exit 0; fi
"$S" audit verify "$A" > /dev/null 2>&1 || true

# ---- summary (text): the hostile executor first, git below every hostile run --------------------------
"$S" audit summary "$A" > "$T_TMP/sum.txt"
if python3 - "$T_TMP/sum.txt" <<'PY'
import re, sys
t = open(sys.argv[1]).read()
runs = re.findall(r"^#(\d+) (\S+) +\S+  executor (\S+)  program (\S+)", t, re.M)
assert runs, t
first = runs[0]
assert first[3] == "hostile.py" and first[1] in ("hostile", "breach"), first
hostile_ranks = [int(r[0]) for r in runs if r[3] == "hostile.py"]
git = [r for r in runs if r[3] == "git"]
assert len(git) == 2 and all(r[1] == "clean" for r in git), git
assert max(hostile_ranks) < min(int(r[0]) for r in git), (hostile_ranks, git)
hostile_execs = {r[2] for r in runs if r[3] == "hostile.py"}
ex = re.search(r"^EXECUTOR .*\n(\S+)", t, re.M).group(1)
assert ex in hostile_execs, (ex, hostile_execs)
# the first run's block names its secret reads and the rule that stopped each
block = t.split("\n#2 ")[0].split("\n#1 ")[1]
assert re.search(r"critical .*open read /etc/shadow .*<- rule: builtin:secret: /etc/shadow", block), block
assert re.search(r"critical .*/\.ssh/id_rsa .*<- rule: builtin:secret: ~/\.ssh", block), block
assert "command:   python3 bin/hostile.py" in block and "manifest:  " in block and "workspace: " in block, block
# the git runs' benign probes (if this host's libc makes any: nscd, ~/.gitconfig) are info,
# grouped, and never escape attempts
if re.search(r"^#\d+ clean .* program git .*\n(?:    .*\n)*?    severity: .*info [1-9]", t, re.M):
    assert re.search(r"info +\d+ benign event\(s\) in \d+ group\(s\), not counted as attempts", t), t
PY
then t_pass review_summary_hostile_first_text; else t_fail review_summary_hostile_first_text "$(head -c 3000 "$T_TMP/sum.txt")"; fi

# ---- summary --json: .runs[0].executor names the hostile executor's run -----------------------------
"$S" audit summary --json "$A" > "$T_TMP/sum.json"
if python3 - "$T_TMP/sum.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
assert "run_list" not in s and isinstance(s["runs"], list) and s["run_count"] == len(s["runs"])
r0 = s["runs"][0]
hostile = [r for r in s["runs"] if r["program"] == "hostile.py"]
assert r0["program"] == "hostile.py" and r0["verdict"] in ("hostile", "breach"), r0
assert r0["executor"] in {r["executor"] for r in hostile} and r0["argv"] == ["python3", "bin/hostile.py"], r0
assert r0["manifest"]["path"] and len(r0["manifest"]["sha256"]) == 64 and r0["workspace"] and "tag" in r0
assert "preload" in r0["layers_active"], r0["layers_active"]
secret = [g for g in r0["findings"] if g["sev"] == "critical"]
assert any(g["subject"] == "/etc/shadow" and g["rule"].startswith("builtin:secret: /etc/shadow") for g in secret), secret
git = [r for r in s["runs"] if r["program"] == "git"]
assert len(git) == 2 and all(r["verdict"] == "clean" and r["counts"]["attempts"] == 0 for r in git), git
assert all(sum(r["counts"]["severity"][k] for k in ("critical", "high", "medium", "low")) == 0 for r in git), git
idx = {r["run"]: i for i, r in enumerate(s["runs"])}
assert max(idx[r["run"]] for r in hostile) < min(idx[r["run"]] for r in git)
assert s["executors"][0]["name"] in {r["executor"] for r in hostile}
# info never counts as an attempt
t = s["totals"]; sv = t["severity"]
assert t["attempts"] == sv["critical"] + sv["high"] + sv["medium"] + sv["low"], t
PY
then t_pass review_summary_json_runs0_hostile; else t_fail review_summary_json_runs0_hostile "$(head -c 2000 "$T_TMP/sum.json")"; fi
if command -v jq >/dev/null; then # the reviewer's own one-liner, where jq is installed
	t_check review_jq_runs0 test "$("$S" audit summary --json "$A" | jq -r '.runs[0].executor')" = \
		"$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["runs"][0]["executor"])' "$T_TMP/sum.json")"
fi

# ---- the HTML report in a real browser: first screen shows the secret reads and their rules -----------
"$S" audit report --html "$T_TMP/report.html" "$A" || t_fail review_report_written "exit $?"
if [ -z "$CHROME" ] && [ "$(id -u)" != 0 ]; then
	# a tool of the test, not of sbxsup: a normal user's host may lack it (as root, e.g. on CI, where
	# `make test-deps` installs it, its absence is a failure)
	for t in review_report_first_screen review_report_filter_in_browser review_report_100k_under_2s; do
		t_skip "$t" "chromium not installed (apt-get install -y --no-install-recommends chromium)"
	done
elif [ -z "$CHROME" ]; then
	for t in review_report_first_screen review_report_filter_in_browser review_report_100k_under_2s; do
		t_fail "$t" "chromium not installed (make test-deps, or apt-get install -y --no-install-recommends chromium)"
	done
else
	chrome --screenshot="$T_TMP/first.png" "file://$T_TMP/report.html"
	chrome --dump-dom "file://$T_TMP/report.html" > "$T_TMP/dom.html"
	[ -n "${REVIEW_KEEP_SCREENSHOT:-}" ] && cp "$T_TMP/first.png" "$REVIEW_KEEP_SCREENSHOT"
	if python3 - "$T_TMP/first.png" "$T_TMP/dom.html" <<'PY'
import re, struct, sys, zlib
from html.parser import HTMLParser

def png_pixels(path):
    """(width, height, rows of RGB tuples) of an 8-bit RGB/RGBA non-interlaced PNG (Chromium's)."""
    d = open(path, "rb").read()
    assert d[:8] == b"\x89PNG\r\n\x1a\n"
    pos, idat = 8, b""
    while pos < len(d):
        n, typ = struct.unpack(">I4s", d[pos:pos + 8]); body = d[pos + 8:pos + 8 + n]; pos += 12 + n
        if typ == b"IHDR": w, h, depth, ctype, _, _, inter = struct.unpack(">IIBBBBB", body)
        elif typ == b"IDAT": idat += body
    assert depth == 8 and ctype in (2, 6) and inter == 0, (depth, ctype, inter)
    bpp = 3 if ctype == 2 else 4
    raw, stride, prev, rows, i = zlib.decompress(idat), w * bpp, bytearray(w * bpp), [], 0
    for _ in range(h):
        f = raw[i]; line = bytearray(raw[i + 1:i + 1 + stride]); i += 1 + stride
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0; b = prev[x]; c = prev[x - bpp] if x >= bpp else 0
            if f == 1: line[x] = (line[x] + a) & 255
            elif f == 2: line[x] = (line[x] + b) & 255
            elif f == 3: line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c; pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(line); prev = line
    return w, h, rows, bpp

w, h, rows, bpp = png_pixels(sys.argv[1])
assert (w, h) == (1280, 900), (w, h)
red = sum(1 for r in rows for x in range(0, w * bpp, bpp) if abs(r[x] - 0xb0) < 8 and r[x + 1] < 8 and r[x + 2] < 8)
assert red > 500, "no critical/hostile badge on the first screen (%d red pixels)" % red

class P(HTMLParser):
    def __init__(s):
        super().__init__(); s.stack = []; s.first_row = None; s.in_vt = False; s.rows = 0; s.cur = None
        s.findings = []; s.rule_ids = set(); s.tables = []; s.links = []; s.verdicts = []; s.text = None; s.cmd = ""
    def handle_starttag(s, tag, a):
        a = dict(a)
        if tag == "table": s.tables.append(a.get("id"))
        if tag == "table" and a.get("id") == "verdict-table": s.in_vt = True
        if tag == "tr" and s.in_vt and "data-verdict" in a:
            s.rows += 1; s.verdicts.append(a["data-verdict"])
        if s.in_vt and s.rows == 1 and tag == "li" and "finding" in a.get("class", ""):
            s.cur = {"sev": a.get("data-sev"), "text": "", "rule": None, "href": None}; s.findings.append(s.cur)
        if s.in_vt and s.rows == 1 and tag == "a" and "rule" in (a.get("class") or "") and s.cur is not None:
            s.cur["href"] = a.get("href"); s.text = s.cur
        if tag == "tr" and (a.get("id") or "").startswith("rule-"): s.rule_ids.add("#" + a["id"])
    def handle_endtag(s, tag):
        if tag == "table": s.in_vt = False
        if tag == "a": s.text = None
    def handle_data(s, d):
        if s.cur is not None and s.in_vt and s.rows == 1: s.cur["text"] += d
        if s.text is not None: s.text["rule"] = (s.text["rule"] or "") + d
        if s.in_vt and s.rows == 1 and "hostile.py" in d: s.cmd = d

p = P(); p.feed(open(sys.argv[2], encoding="utf-8").read())
assert p.tables and p.tables[0] == "verdict-table", p.tables        # the verdicts come first
assert p.verdicts[0] in ("hostile", "breach") and "hostile.py" in p.cmd, (p.verdicts, p.cmd)
assert p.verdicts.index("clean") > max(i for i, v in enumerate(p.verdicts) if v == "hostile")
crit = [f for f in p.findings if f["sev"] == "critical"]
shadow = [f for f in crit if "/etc/shadow" in f["text"]]
ssh = [f for f in crit if "/.ssh/id_rsa" in f["text"]]
assert shadow and ssh, p.findings
for f in shadow + ssh:
    assert f["rule"] and f["rule"].startswith("builtin:secret:") and f["href"] in p.rule_ids, (f, p.rule_ids)
PY
	then t_pass review_report_first_screen
	else t_fail review_report_first_screen "$(tail -c 400 "$T_TMP/chromium.err")"; fi

	# the client-side filter, in the browser: a link with #filter?... opens the page filtered
	chrome --dump-dom "file://$T_TMP/report.html#filter?q=shadow&sev=critical" > "$T_TMP/dom-f.html"
	if python3 - "$T_TMP/dom-f.html" <<'PY'
import re, sys
d = open(sys.argv[1], encoding="utf-8").read()
rows = re.findall(r'<tr class="g"([^>]*)>(.*?)</tr>', d, re.S)
shown = [r for r in rows if "hidden" not in r[0]]
assert rows and shown and len(shown) < len(rows), (len(rows), len(shown))
assert all('data-sev="critical"' in a and "shadow" in b for a, b in shown), shown[:3]
assert re.search(r'id="shown">%d of %d event group' % (len(shown), len(rows)), d)
secs = re.findall(r'<section class="run"[^>]*>', d)
assert any("hidden" in s for s in secs) and any("hidden" not in s for s in secs), secs   # git runs hidden
PY
	then t_pass review_report_filter_in_browser
	else t_fail review_report_filter_in_browser "$(grep -o 'id="shown">[^<]*' "$T_TMP/dom-f.html")"; fi

	# 100 000 events: the page is laid out in under 2 s (the page's own clock: navigation to layout)
	python3 "$SBX_ROOT/tests/fixtures/audit/bigstream.py" "$T_TMP/big.jsonl" 100000
	if "$S" audit report --html "$T_TMP/big.html" "$T_TMP/big.jsonl"; then
		best=999999
		for _ in 1 2 3; do
			chrome --dump-dom "file://$T_TMP/big.html" > "$T_TMP/big-dom.html"
			ms=$(grep -o 'data-ready-ms="[0-9]*"' "$T_TMP/big-dom.html" | grep -o '[0-9]*')
			[ -n "$ms" ] && [ "$ms" -lt "$best" ] && best=$ms
			[ "$best" -lt 2000 ] && break
		done
		size=$(stat -c %s "$T_TMP/big.html")
		if [ "$best" -lt 2000 ] && grep -q 'data-verdict="breach"' "$T_TMP/big-dom.html"; then
			t_pass review_report_100k_under_2s
			echo "  (100k events: page ${size} bytes, ready in ${best} ms)"
		else t_fail review_report_100k_under_2s "best=${best} ms size=$size"; fi
	else t_fail review_report_100k_under_2s "report failed"; fi
fi
