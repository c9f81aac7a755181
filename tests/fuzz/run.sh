#!/usr/bin/env bash
# tests/fuzz/run.sh — runs every built libFuzzer target $B/fuzz/fuzz_* for FUZZ_SECONDS / (number of
# targets) seconds each (at least 1), seeded from tests/fuzz/corpus/<target>/ (read-only: new inputs
# go to a scratch corpus), and prints one line per target:
#   PASS: fuzz_x            (no crash, leak, timeout or OOM in its budget)
#   FAIL: fuzz_x: crash ... (the reproducer is kept in $B/fuzz/artifacts/ and named in the line)
# Called by `make fuzz` (FUZZ_SECONDS=300) and `make fuzz-ci` (20). Env: B, FUZZ_SECONDS, FUZZ_JOBS.
set -u
cd "$(dirname "$0")/../.."
B=${B:-build}
FUZZ_SECONDS=${FUZZ_SECONDS:-300}
art=$B/fuzz/artifacts
mkdir -p "$art"
work=$(mktemp -d /tmp/sbxsup-fuzz.XXXXXX)
trap 'rm -rf "$work"' EXIT

targets=()
for t in "$B"/fuzz/fuzz_*; do
	[ -x "$t" ] && [ -f "$t" ] && targets+=("$t")
done
if [ ${#targets[@]} -eq 0 ]; then
	echo "FAIL: fuzz: no targets built in $B/fuzz (make fuzz builds them)"
	exit 1
fi
per=$((FUZZ_SECONDS / ${#targets[@]}))
[ $per -ge 1 ] || per=1

# Sensible input bounds per target: a manifest is at most 1 MiB but the interesting structure fits
# in 64 KiB; globs/paths are bounded by PATH_MAX; a policy blob seed is small but patches need room;
# an audit line is at most 64 KiB (+ slack to cross the bound); a record is at most SBX_REC_MAX.
max_len() {
	case "$1" in
	fuzz_manifest) echo 65536 ;;
	fuzz_glob) echo 8192 ;;
	fuzz_policy) echo 65536 ;;
	fuzz_auditline) echo 70000 ;;
	fuzz_serve_req) echo 140000 ;;
	*) echo 16384 ;;
	esac
}

rc=0
for t in "${targets[@]}"; do
	n=$(basename "$t")
	corpus=$work/$n
	mkdir -p "$corpus"
	seeds=tests/fuzz/corpus/$n
	[ -d "$seeds" ] || seeds=
	log=$work/$n.log
	# -error_exitcode: any finding; -timeout: a single input slower than 10 s is a finding too
	"$t" -max_total_time="$per" -max_len="$(max_len "$n")" -timeout=10 -rss_limit_mb=2048 \
		-print_final_stats=1 -artifact_prefix="$art/$n-" $corpus ${seeds:+"$seeds"} >"$log" 2>&1
	r=$?
	runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' | tail -1)
	if [ $r -eq 0 ]; then
		echo "PASS: $n (${runs:-?} inputs in ${per}s)"
	else
		what=$(grep -m1 -E 'ERROR: (AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer|libFuzzer)|runtime error:|deadly signal|Test unit written' "$log" | head -1)
		file=$(grep -o "Test unit written to [^ ]*" "$log" | tail -1 | sed 's/Test unit written to //')
		echo "FAIL: $n: crash (exit $r): ${what:-see log} ${file:+— reproducer: $file}"
		sed -n '1,60p' "$log" | grep -E 'ERROR|runtime error|#[0-9]+ 0x|SUMMARY' | head -25 | sed 's/^/# /'
		rc=1
	fi
done
exit $rc
