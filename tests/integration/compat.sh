#!/usr/bin/env bash
# compat.sh — real programs, unchanged, under the built-in default manifest (and a loopback manifest
# for the network ones), natively and under sbxsup in every mode: full (every layer the host gives),
# no-bwrap and preload-only. A program passes in a mode when it does there what it does natively and
# the run's stream holds no denial above `info` (a false report is a failure too: a reviewer must be
# able to believe every event). One PASS/FAIL/SKIP line per (program, mode).
. "$(dirname "$0")/../lib.sh"

MODES=(full nobwrap preload)
mode_layers() {
	case $1 in
	full) echo auto ;;
	nobwrap) echo preload,seccomp,landlock,netfilter,probes,limits ;;
	preload) echo preload,limits ;;
	esac
}
PY=/usr/bin/python3
[ -x "$PY" ] || PY=$(command -v python3)

# denials FILE MAXSEV : the security events of a stream above MAXSEV, one per line (empty when none).
# Full mode allows only `info` (known benign libc behaviour); the modes without bwrap also allow `low`:
# there the host's /etc is visible, so a directory walk (pip's) stats the secrets' names, and each
# refused stat is a `low` event (metadata, never content — README "Severity").
denials() {
	python3 - "$1" "$2" <<'PY'
import json, sys
SEC = {"preload.deny", "kernel.violation", "seccomp.deny", "landlock.deny", "netfilter.deny"}
ORDER = ["info", "low", "medium", "high", "critical"]
top = ORDER.index(sys.argv[2])
for l in open(sys.argv[1], encoding="utf-8", errors="replace"):
    try: o = json.loads(l)
    except ValueError: continue
    if o.get("event") in SEC and ORDER.index(o.get("sev", "critical")) > top:
        print(l.rstrip()[:400])
PY
}
# Differences from a native run that are policy, not bugs (README "Decisions"), as " name_mode ":
# without bwrap, Landlock cannot grant listing "/" without granting every directory below it.
DELIBERATE=" listdir_nobwrap "
# Runs whose own events are the point: the inner sbxsup of a nested run probes BPF and raises
# RLIMIT_MEMLOCK, which the outer run refuses and reports (true reports of a benign program).
EVENTS_EXPECTED=" nested "

# compat NAME MANIFEST-OR-- SCRIPT : runs SCRIPT (sh -c) natively in a fresh workspace, then under sbxsup in
# each mode in another fresh workspace; the output of the native run is the reference for exit status.
compat() {
	local name=$1 man=$2 script=$3 mode ws rc nrc out a den margs=()
	[ "$man" = - ] || margs=(-m "$man")
	ws=$T_TMP/native-$name; mkdir -p "$ws"
	(cd "$ws" && sh -c "$script") >"$T_TMP/$name.native" 2>&1; nrc=$?
	if [ $nrc -ne 0 ]; then
		t_skip "compat_${name}" "fails natively on this host (rc=$nrc): $(tail -n 2 "$T_TMP/$name.native" | tr '\n' ' ')"
		return
	fi
	for mode in "${MODES[@]}"; do
		ws=$T_TMP/$mode-$name; mkdir -p "$ws"; a=$T_TMP/$mode-$name.audit
		out=$(cd "$ws" && "$SBXSUP" run "${margs[@]}" --layers "$(mode_layers "$mode")" -a "$a" -- sh -c "$script" 2>&1); rc=$?
		den=$(denials "$a" "$([ $mode = full ] && echo info || echo low)")
		[[ "$EVENTS_EXPECTED" == *" $name "* ]] && den=""
		if [[ "$DELIBERATE" == *" ${name}_$mode "* ]]; then
			# the documented difference must still be exactly that: refused
			if [ $rc -ne 0 ]; then t_pass "compat_${name}_${mode}_deliberate"
			else t_fail "compat_${name}_${mode}_deliberate" "rc=$rc: the README's documented difference changed: update both"; fi
			continue
		fi
		if [ $rc -eq 0 ] && [ -z "$den" ]; then t_pass "compat_${name}_$mode"
		else t_fail "compat_${name}_$mode" "rc=$rc out=$(tail -c 600 <<<"$out" | tr '\n' ' ') denials=$(head -n 3 <<<"$den")"; fi
	done
}

# A loopback manifest for the programs that serve.
LB=$T_TMP/loopback.json
cat >"$LB" <<'J'
{"sbxsup": 1, "name": "compat-loopback", "capabilities": ["code:exec",
  {"cap": "network:tcp", "hosts": ["127.0.0.1", "localhost"]}]}
J

compat venv - "$PY -m venv v && v/bin/python -c 'import sys; assert sys.prefix != sys.base_prefix; print(sys.prefix)' && v/bin/python -m pip --version"
compat git - 'git init -q r && cd r && echo hello > a.txt && git add a.txt &&
  GIT_AUTHOR_NAME=t GIT_AUTHOR_EMAIL=t@example.invalid GIT_COMMITTER_NAME=t GIT_COMMITTER_EMAIL=t@example.invalid git commit -qm first &&
  git log --oneline | grep -q first && git status --porcelain'
compat tar - 'mkdir -p d/sub && echo x > d/sub/f && ln -s sub/f d/link && chmod 640 d/sub/f &&
  tar cf a.tar d && mkdir out && tar xf a.tar -C out && diff -r d out/d && [ -L out/d/link ]'
compat ulimit - 'ulimit -c 0 && ulimit -n 256 && ulimit -n'
compat pyrlimit - "$PY -c 'import resource as r; s,h=r.getrlimit(r.RLIMIT_NOFILE); r.setrlimit(r.RLIMIT_NOFILE,(min(s,128),h)); r.setrlimit(r.RLIMIT_CORE,(0,0))'"
# (the inner sbxsup runs under the outer run's preload: an ASan build of it must not insist on
# coming first among the preloaded libraries, nor run LeakSanitizer, which cannot work under the
# outer sandbox; the variable is set inside the run, for it alone)
compat nested - "ASAN_OPTIONS=verify_asan_link_order=0:detect_leaks=0 \"$SBXSUP\" run -- true"
compat tmpfile - 'echo x > /tmp/sbxsup-compat-$$ && cat /tmp/sbxsup-compat-$$ && rm /tmp/sbxsup-compat-$$'
compat procself - 'cat /proc/self/status >/dev/null && ls /proc/self/fd >/dev/null && [ "$(readlink /proc/self)" = "$(sh -c "echo \$\$" | tr -d "\n")" ] || [ -r /proc/self/stat ]'
compat listdir - "$PY -c 'import os; assert os.listdir(\"/\")'"
compat http "$LB" "$PY - <<'PYX'
import http.server, threading, urllib.request, socket
srv = http.server.HTTPServer(('127.0.0.1', 0), http.server.SimpleHTTPRequestHandler)
t = threading.Thread(target=srv.serve_forever, daemon=True); t.start()
port = srv.server_address[1]
body = urllib.request.urlopen('http://localhost:%d/' % port, timeout=10).read()
assert body, 'empty'
socket.getaddrinfo('localhost', port)
srv.shutdown()
PYX"

# A selection of the system Python's own regression tests (Debian: libpython3.11-testsuite): the
# modules that exercise files, processes, signals and sockets. Run natively and under sbxsup; a
# module that passes natively and fails under sbxsup is a failure. The test cases below are left
# out in every run, each for a reason the README states (Testing, "Real programs"):
#   deliberate (the executor is never root and has one mapped uid in its own user namespace):
#     subprocess user=/group= switching; chown to an unmapped uid in preload mode only (no seccomp
#     layer: the kernel's EINVAL, not EPERM);
#     listing "/" without bwrap (Landlock; Decisions);
# (pass_fds with redirection: the preload keeps no descriptor where the run has a mount namespace —
# every mode as root or with user namespaces; the suite is skipped where none can be made.)
REGR=(test_shutil test_tarfile test_glob test_tempfile test_pathlib test_fileio test_fcntl test_posix
      test_pwd test_grp test_resource test_signal test_selectors test_unicode_file test_zipfile test_subprocess test_os)
REGR_IGNORE=(-i '*POSIXProcessTestCase.test_user' -i '*POSIXProcessTestCase.test_group'
             -i '*test_os.*.test_listdir')
if ! $PY -c 'import test.test_shutil' 2>/dev/null; then
	t_skip compat_python_regrtest "the Python test suite is not installed (apt-get install libpython3-testsuite)"
else
	# Under the report-only sensor (preload mode: no seccomp layer, no probes) kill(2), tgkill(2) are
	# routed to the supervisor (docs/known-gaps.md): a signal landing before the supervisor received
	# the notification makes kill return EINTR, which a native kill never does, and the round trip
	# moves the moment raise(3) delivers relative to another thread's handler changes. CPython's
	# signal stress tests measure exactly those: test_stress_delivery_simultaneous (EINTR) and
	# test_stress_modifying_handlers, which needs one of ~100 raised signals to land while a handler
	# (not SIG_IGN) is set — measured on 2026-12-02: none landed in 13 of 20 runs under the sensor,
	# in 0 of 20 natively (every signal is still delivered when the handler stays set).
	ignore_for() { MI=(); [ "$1" != preload ] || MI=(-i '*test_stress_delivery_simultaneous' -i '*test_stress_modifying_handlers' -i '*test_chown_without_permission'); }
	for mode in "${MODES[@]}" native; do
		ws=$T_TMP/regr-$mode; mkdir -p "$ws"
		if [ $mode = native ]; then
			(cd "$ws" && timeout 900 $PY -m test -j2 -q "${REGR_IGNORE[@]}" "${REGR[@]}") >"$T_TMP/regr-$mode.out" 2>&1
		else
			ignore_for $mode
			(cd "$ws" && timeout 900 "$SBXSUP" run --layers "$(mode_layers $mode)" -a "$T_TMP/regr-$mode.audit" -- \
				$PY -m test -j2 -q "${REGR_IGNORE[@]}" "${MI[@]+"${MI[@]}"}" "${REGR[@]}") >"$T_TMP/regr-$mode.out" 2>&1
		fi
	done
	# failing modules per run: regrtest prints "N tests failed:" followed by the names
	failed_mods() { python3 - "$1" <<'PY'
import re, sys
t = open(sys.argv[1], errors="replace").read()
out = set()
for m in re.finditer(r"\d+ tests? (?:failed|crashed|altered the execution environment)(?: again)?:\n((?:    .*\n)+)", t):
    out.update(m.group(1).split())
if re.search(r"Result: SUCCESS", t) is None and not out and "Tests result: SUCCESS" not in t:
    out.add("<no result: %s>" % t.strip().splitlines()[-1][:120] if t.strip() else "<no output>")
print(" ".join(sorted(out)))
PY
	}
	nat=$(failed_mods "$T_TMP/regr-native.out")
	for mode in "${MODES[@]}"; do
		got=$(failed_mods "$T_TMP/regr-$mode.out"); extra=""
		for m in $got; do [[ " $nat " == *" $m "* ]] || extra="$extra $m"; done
		# a module failing under sbxsup only is run again alone, up to twice: the timing tests
		# (test_signal's itimers) can miss under a loaded CI host; what fails every time is a failure,
		# said with the cases that failed (-W: regrtest prints a failing module's output)
		tries=0
		while [ -n "$extra" ] && [ $tries -lt 2 ]; do
			tries=$((tries + 1))
			ignore_for $mode
			(cd "$T_TMP/regr-$mode" && timeout 900 "$SBXSUP" run --layers "$(mode_layers $mode)" \
				-a "$T_TMP/regr-$mode-again.audit" -- $PY -m test -q -W "${REGR_IGNORE[@]}" "${MI[@]+"${MI[@]}"}" \
				$extra) >"$T_TMP/regr-$mode-again.out" 2>&1
			again=$(failed_mods "$T_TMP/regr-$mode-again.out")
			[ -n "$again" ] || echo "# compat_python_regrtest_$mode: failed under load, passed alone (try $tries):$extra"
			[ -z "$again" ] || echo "# compat_python_regrtest_$mode: try $tries alone:$again: $(grep -m5 -E '^(ERROR|FAIL):|crashed|altered|[Tt]imeout' "$T_TMP/regr-$mode-again.out" | tr '\n' ' ')"
			extra=$again
		done
		if [ -z "$extra" ]; then t_pass "compat_python_regrtest_$mode"
		else t_fail "compat_python_regrtest_$mode" "fail under sbxsup only:$extra (native failures: ${nat:-none}); $(grep -m3 -E '^(ERROR|FAIL):|crashed|altered' "$T_TMP/regr-$mode.out" "$T_TMP/regr-$mode-again.out" | tr '\n' ' ')"; fi
	done
fi
