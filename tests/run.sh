#!/usr/bin/env bash
# tests/run.sh — runs every suite and prints one closing line "N passed, N failed, N skipped".
#   unit:        $B/tests/test_*           (cmocka, TAP output)
#   integration: tests/integration/*.sh    (real bwrap / BPF / syscalls; print PASS:/FAIL:/SKIP: lines)
#   escape:      tests/escape/run.sh       (the escape corpus, every mode)
#   escape-deny: the corpus again, every manifest with a deny added (--deny-overlay)
# Under CI=true a skipped test is a failure: on CI (root, this kernel) no security test may skip.
# TESTS=pattern runs only suites whose name matches (e.g. TESTS=preload).
# From a checkout an unprivileged identity cannot reach (root's clone under a 0700 home), the suite
# runs from a world-readable copy: see stage_tree below.
set -u
cd "$(dirname "$0")/.."
B=${B:-build}
export B SBXSUP=${SBXSUP:-$PWD/$B/sbxsup} SBXSUP_PRELOAD_LIB=${SBXSUP_PRELOAD_LIB:-$PWD/$B/libsbxpreload.so}
# no suite leaves the automatic shared probe set loaded after its runs (tests/lib.sh; probes_run.sh
# checks the idle period with its own value)
export SBXSUP_PROBES_IDLE=${SBXSUP_PROBES_IDLE:-0} SBXSUP_NETFILTER_IDLE=${SBXSUP_NETFILTER_IDLE:-0}

# As root, the tests run commands, test programs and sbxsup itself as unprivileged identities (the
# executor's, nobody, users made for a test). From a checkout those cannot reach, the suite runs
# from a world-readable copy of the tree under /var/tmp (the sources and $B, times kept so nothing
# is rebuilt; not under /tmp, which a run without bwrap replaces by its own), removed at the end.
stage_tree() {
	[ "$(id -u)" = 0 ] && [ -z "${SBX_STAGED:-}" ] && [[ "$B" != /* ]] && command -v setpriv >/dev/null || return 1
	setpriv --reuid=65534 --regid=65534 --clear-groups test -r "$PWD/tests/run.sh" -a -x "$PWD/$B" 2>/dev/null && return 1
	local stage ex=() d rc
	stage=$(mktemp -d /var/tmp/sbxsup-suite.XXXXXX) || return 1
	trap 'rm -rf "$stage"' EXIT
	for d in build*; do [ "$d" = "$B" ] || ex+=("--exclude=./$d"); done
	tar -C . --exclude=./.git "${ex[@]+"${ex[@]}"}" -cf - . | tar -C "$stage" -xpf - && chmod -R a+rX "$stage" \
		|| { echo "FAIL: tests: cannot copy the tree to $stage"; exit 1; }
	echo "# $PWD cannot be reached by uid 65534: running the suite from a copy in $stage"
	map() { case $1 in "$PWD"/*) echo "$stage/${1#"$PWD"/}" ;; *) echo "$1" ;; esac; }
	SBX_STAGED=1 SBXSUP=$(map "$SBXSUP") SBXSUP_PRELOAD_LIB=$(map "$SBXSUP_PRELOAD_LIB") \
		bash "$stage/tests/run.sh"; rc=$?
	exit $rc
}
stage_tree
export SBX_ROOT=$PWD SBX_PROGS=$PWD/$B/tests/progs
pass=0 fail=0 skip=0
failed=() skipped=()
log=$(mktemp -d /tmp/sbxsup-tests.XXXXXX)
trap 'rm -rf "$log"' EXIT

tally() { # suite-name output-file
	local n=$1 f=$2 p fl s
	# a TAP line with a "# SKIP" directive is a skip, "ok" or "not ok" (cmocka writes "not ok N # SKIP")
	local tskip='^(not )?ok .*# (SKIP|skip)'
	p=$(grep -cE '^(PASS:|ok )' "$f"); fl=$(grep -E '^(FAIL:|not ok )' "$f" | grep -cvE "$tskip"); s=$(grep -cE "^SKIP:|$tskip" "$f")
	p=$((p - $(grep -cE '^ok .*# (SKIP|skip)' "$f"))) # a TAP skip is an "ok" line too; a SKIP: line is not
	pass=$((pass + p)); fail=$((fail + fl)); skip=$((skip + s))
	while IFS= read -r l; do failed+=("$n: $l"); done < <(grep -E '^(FAIL:|not ok )' "$f" | grep -vE "$tskip")
	while IFS= read -r l; do skipped+=("$n: $l"); done < <(grep -E "^SKIP:|$tskip" "$f")
}

want() { [ -z "${TESTS:-}" ] || [[ "$1" == *${TESTS}* ]]; }

for t in "$B"/tests/test_*; do
	[ -x "$t" ] || continue
	n=unit/$(basename "$t"); want "$n" || continue
	echo "== $n"
	out=$log/$(basename "$t").out
	CMOCKA_MESSAGE_OUTPUT=TAP timeout 300 "$t" >"$out" 2>&1; rc=$?
	cat "$out"
	if [ $rc -ne 0 ] && ! grep -qE '^not ok ' "$out"; then echo "FAIL: $n exited $rc" >>"$out"; echo "FAIL: $n exited $rc"; fi
	tally "$n" "$out"
done

for t in tests/integration/*.sh; do
	[ -f "$t" ] || continue
	n=integration/$(basename "$t" .sh); want "$n" || continue
	echo "== $n"
	out=$log/$(basename "$t").out
	timeout 900 bash "$t" >"$out" 2>&1; rc=$?
	cat "$out"
	if [ $rc -ne 0 ] && ! grep -qE '^FAIL:' "$out"; then echo "FAIL: $n exited $rc" >>"$out"; echo "FAIL: $n exited $rc"; fi
	tally "$n" "$out"
done

# escape_suite NAME ARGS...: the corpus runner with ARGS, tallied as NAME
escape_suite() {
	local n=$1 out rc; shift
	[ -f tests/escape/run.sh ] && want "$n" || return 0
	echo "== $n"
	out=$log/$n.out
	timeout 1800 bash tests/escape/run.sh "$@" >"$out" 2>&1; rc=$?
	cat "$out"
	if [ $rc -ne 0 ] && ! grep -qE '^FAIL:' "$out"; then echo "FAIL: $n exited $rc" >>"$out"; echo "FAIL: $n exited $rc"; fi
	tally "$n" "$out"
}
escape_suite escape
# the corpus again with a manifest deny that matches nothing added to every manifest: the seccomp
# filter then routes every open, exec and write-class call to sbxsup, which answers them itself
# (tests/escape/escape.py --deny-overlay), in the modes where a filter holds the deny
escape_suite escape-deny --deny-overlay --mode full,no-bwrap,preload-only,bwrap,landlock

echo
for l in "${failed[@]+"${failed[@]}"}"; do echo "failed:  $l"; done
for l in "${skipped[@]+"${skipped[@]}"}"; do echo "skipped: $l"; done
rc=0
[ $fail -eq 0 ] || rc=1
if [ "${CI:-}" = true ] && [ $skip -gt 0 ]; then
	echo "CI=true: $skip test(s) skipped; on CI no security test may be skipped"
	rc=1
fi
[ $((pass + fail)) -gt 0 ] || { echo "no test ran"; rc=1; }
echo "$pass passed, $fail failed, $skip skipped"
exit $rc
