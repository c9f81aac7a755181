#!/usr/bin/env bash
# bench/run.sh — `make bench`: speed and memory of sbxsup as ratios measured side by side in one
# run, against bare exec, plain bwrap and firejail. Prints a table (figure, runs, min/median/max,
# ratio, goal, met?) and writes bench/results.json. bench/README.md explains every figure.
#
# Promise: every figure whose subject does not work on this host (or not yet) is printed as
# "n/a (<reason>)" and the bench goes on; nothing here is a test and no figure is asserted. The
# bench cleans up what it creates (temp dir, the listener and probe runs it started, by pid; the
# pinned probe set only if it pinned it) and runs in well under 10 minutes on 2 cores.
#
# Environment (all optional):
#   B, SBXSUP, SBXSUP_PRELOAD_LIB   set by `make bench`
#   BENCH_STARTUP_RUNS  rounds of the start-up figures, one run of each configuration per round (20)
#   BENCH_CALLS         calls per per-call figure, split over BENCH_ROUNDS rounds (default 1000000, 10)
#   BENCH_CONNECT_CALLS the same for the TCP connect figure (default 100000: a loopback TCP connect
#                       with its accept costs ~100x an open, 1e6 of them would take minutes)
#   BENCH_AUDIT_MB      size of the generated file for `audit summary` (default 1024)
#   BENCH_KRING_MAX     largest kernel flood tried (default 1000000 calls)
#   BENCH_PINNED        1 (default): also measure start-up with `sbxsup probes load` (the bench
#                       pins the set only if nothing is pinned, and unpins it afterwards, waiting
#                       up to a minute for runs that adopted it meanwhile); 0: skip. On a host
#                       shared with other sbxsup users set 0: their runs use the pin while it exists.
#   BENCH_SERVE_CALLS   calls per figure of the serve section (default 100; firejail gets a fifth)
#   BENCH_SERVE_GAP_MS  the spacing of the serve section's paced calls (default 500 ms; an agent's tool calls are seconds apart)
#   BENCH_SERVE_WARM    the serve section's parked sandboxes (--warm N, default 4) and the size of its bursts of back-to-back calls
#   BENCH_MIXED_ROUNDS  rounds of the mixed workload, probes off and on interleaved (default 5)
#   BENCH_DENY_CALLS    opens per round of the deny section (default 20000: each is a supervisor round trip)
#   BENCH_EMU_CALLS     calls per figure of the emulate section, split over BENCH_ROUNDS rounds
#                       (default 20000: every call is a round trip through the supervisor)
#   BENCH_GW_MB         size of the transfer of the gateway figures (default 1024 MB)
#   BENCH_ONLY          comma-separated sections to run: startup,calls,scale,deny,probes,emulate,mixed,audit,memory,serve,gateway
#   BENCH_RESULTS       where to write the JSON (default bench/results.json)
set -u
cd "$(dirname "$0")/.." || exit 1
ROOT=$PWD
B=${B:-build}
case $B in /*) BD=$B ;; *) BD=$ROOT/$B ;; esac
SBXSUP=${SBXSUP:-$BD/sbxsup}
SBXSUP_PRELOAD_LIB=${SBXSUP_PRELOAD_LIB:-$BD/libsbxpreload.so}
export SBXSUP_PRELOAD_LIB
unset SBXSUP_AUDIT SBXSUP_REQUIRE SBXSUP_SANDBOX
BB=$BD/bench
N_START=${BENCH_STARTUP_RUNS:-20}
CALLS=${BENCH_CALLS:-1000000}
ROUNDS=${BENCH_ROUNDS:-10}
PER=$(( CALLS / ROUNDS ))
CPER=$(( ${BENCH_CONNECT_CALLS:-100000} / ROUNDS ))
AUDIT_MB=${BENCH_AUDIT_MB:-1024}
KRING_MAX=${BENCH_KRING_MAX:-1000000}
PINNED=${BENCH_PINNED:-1}
MIX_ROUNDS=${BENCH_MIXED_ROUNDS:-5}
ONLY=${BENCH_ONLY:-startup,calls,scale,deny,probes,emulate,mixed,audit,memory,serve,gateway}
EPER=$(( ${BENCH_EMU_CALLS:-20000} / ROUNDS ))
FILE=/usr/bin/true            # an always-readable file (builtin:system) for the open/stat loops
T0=$(date +%s)

WORK=$(mktemp -d /tmp/sbxsup-bench.XXXXXX)
chmod 755 "$WORK"
WS=$WORK/ws
mkdir -p "$WS"
RAW=$WORK/raw.jsonl
: >"$RAW"
BG_PIDS=()
UNPIN=0
# unpin: remove the probe set this bench pinned. Runs of other users may have started to use it
# meanwhile (unload is then refused): retry for up to a minute, never --force.
unpin() {
	local i out
	for i in $(seq 120); do
		if out=$("$SBXSUP" probes unload 2>&1); then UNPIN=0; return 0; fi
		[[ "$out" == *"not pinned"* ]] && { UNPIN=0; return 0; }
		sleep 0.5
	done
	say "WARNING: could not unpin the probe set this bench pinned: $(lastline "$out"); run 'sbxsup probes unload' later"
	UNPIN=0
	return 1
}
# drop_idle: remove the automatic shared probe set when it is idle (no run holds it; kept loaded
# SBXSUP_PROBES_IDLE seconds after its last run) and no operator set is pinned (`probes unload`
# would remove that one too): for figures that need no probe program attached
drop_idle() {
	local st
	st=$("$SBXSUP" probes status 2>/dev/null) || return 0
	[[ "$st" == *"not pinned by the operator"* && "$st" == *"shared set idle"* ]] || return 0
	"$SBXSUP" probes unload >/dev/null 2>&1 || true
}
IDLE_BEFORE=0
[ -x "${SBXSUP:-}" ] && "$SBXSUP" probes status 2>/dev/null | grep -q "shared set idle" && IDLE_BEFORE=1
cleanup() {
	local p
	for p in "${BG_PIDS[@]+"${BG_PIDS[@]}"}"; do
		kill "$p" 2>/dev/null && wait "$p" 2>/dev/null
	done
	if [ "$UNPIN" = 1 ]; then unpin; fi
	[ "$IDLE_BEFORE" = 1 ] || drop_idle   # the idle shared set this bench's runs left
	rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

say() { echo "bench: $*" >&2; }
want() { [[ ",$ONLY," == *",$1,"* ]]; }
jstr() { python3 -c 'import json,sys; print(json.dumps(sys.argv[1]))' "$1"; }
# rec NAME JSON [NOTE] / na NAME REASON / note NAME TEXT
rec() {
	if [ $# -ge 3 ] && [ -n "$3" ]; then
		printf '{"name":"%s","data":%s,"note":%s}\n' "$1" "$2" "$(jstr "$3")" >>"$RAW"
	else
		printf '{"name":"%s","data":%s}\n' "$1" "$2" >>"$RAW"
	fi
}
na() { printf '{"name":"%s","na":%s}\n' "$1" "$(jstr "$2")" >>"$RAW"; say "$1: n/a ($2)"; }
note() { printf '{"name":"%s","note":%s}\n' "$1" "$(jstr "$2")" >>"$RAW"; }
# recvals NAME "v1,v2,..." [NOTE]
recvals() { rec "$1" "{\"values\":[$2]}" "${3:-}"; }
# ns_of JSON: the first per-round value of a helper's "ns" array
ns_of() { sed -n 's/.*"ns":\[\([0-9.e+-]*\).*/\1/p' <<<"$1"; }
# jget JSON KEY: a top-level number of a helper's one-line JSON
jget() { python3 -c 'import json,sys; v=json.loads(sys.argv[1]).get(sys.argv[2]); print("" if v is None else v)' "$1" "$2" 2>/dev/null; }
# lastline TEXT: for messages
lastline() { tail -n 1 <<<"$1" | cut -c1-160; }

# ---- helpers ------------------------------------------------------------------------------------
mkdir -p "$BB"
WARN="-D_GNU_SOURCE -O2 -Wall -Wextra -Werror -Wno-unused-parameter -Wshadow -Wformat=2 -Wvla"
LIBS="$(pkg-config --libs libseccomp libbpf libcjson libsodium 2>/dev/null) -lelf -lz"
# the same include path as the Makefile: the repository root and every folder that holds a header
INC="-I. $(find policy audit common supervisor -name '*.h' -printf '-I%h\n' | sort -u | tr '\n' ' ')$(pkg-config --cflags libcjson 2>/dev/null)"
build() { # NAME CC-ARGS... : builds $BB/NAME; a stale binary never survives a failed build
	local n=$1 out; shift
	rm -f "$BB/$n"
	# shellcheck disable=SC2086 # WARN is a list of flags
	if ! out=$(cc $WARN -o "$BB/$n" "$@" 2>&1); then
		rm -f "$BB/$n"
		say "cannot build $n: $(lastline "$out")"
		return 1
	fi
}
build timeit bench/timeit.c
build preload_calls bench/preload_calls.c
build tiny bench/tiny.c
build kflood_static -static bench/kflood_static.c
# shellcheck disable=SC2086 # INC and LIBS are lists of flags
build polrun $INC bench/polrun.c -Wl,--start-group "$BD/libsup.a" "$BD/libcommon.a" "$BD/libpolicy.a" -Wl,--end-group $LIBS
# shellcheck disable=SC2086
build audit_writer $INC bench/audit_writer.c "$BD/libcommon.a" "$BD/libpolicy.a" $LIBS
# shellcheck disable=SC2086
build serve_calls $INC bench/serve_calls.c -Wl,--start-group "$BD/libsup.a" "$BD/libcommon.a" "$BD/libpolicy.a" -Wl,--end-group $LIBS
# shellcheck disable=SC2086
build gw_bench $INC -Itests/lib bench/gw_bench.c -Wl,--start-group "$BD/libsup.a" "$BD/libcommon.a" "$BD/libpolicy.a" -Wl,--end-group $LIBS -lresolv -lpthread
have() { [ -x "$BB/$1" ]; }
have timeit || { say "the timing harness did not build: no figure can be measured"; }

note host "$(uname -sr), $(nproc) cpus, load $(cut -d' ' -f1-3 /proc/loadavg) at start"
attached() { # number of sys_enter tracing programs attached on the host (probe sets of any run)
	command -v bpftool >/dev/null 2>&1 || { echo "?"; return; }
	bpftool prog list 2>/dev/null | grep -c 'name btf_sys_enter\|name tp_sys_enter\|name sys_enter' || true
}
note host "sys_enter probe programs loaded on the host at start: $(attached)"

sbx_ok=1
[ -x "$SBXSUP" ] || { sbx_ok=0; say "$SBXSUP is missing"; }
[ -f "$SBXSUP_PRELOAD_LIB" ] || say "$SBXSUP_PRELOAD_LIB is missing"

# sbx_check NAME ARGS... : one audited run of `sbxsup run ARGS -- /bin/true`; on success prints the
# active layers (from run.start) and returns 0; otherwise records n/a for NAME and returns 1.
sbx_check() {
	local name=$1; shift
	local a=$WORK/check-$name.log out rc
	[ "$sbx_ok" = 1 ] || { na "$name" "sbxsup not built"; return 1; }
	rm -f "$a"
	out=$(cd "$WS" && timeout 120 "$SBXSUP" run -w "$WS" -a "$a" "$@" -- /bin/true 2>&1); rc=$?
	if [ $rc -ne 0 ]; then
		na "$name" "sbxsup run $* exited $rc: $(lastline "$out")"
		return 1
	fi
	python3 - "$a" <<'PY' || { na "$name" "no run.start in the audit stream"; return 1; }
import json, sys
for l in open(sys.argv[1], encoding="utf-8"):
    o = json.loads(l)
    if o.get("event") == "run.start":
        on = [k for k, v in o.get("layers", {}).items() if v]
        why = o.get("why", {})
        off = ["%s (%s)" % (k, why.get(k, "?")) for k, v in o.get("layers", {}).items()
               if not v and "not selected" not in str(why.get(k, ""))]
        print("active: " + ",".join(on) + ("; off: " + "; ".join(off) if off else ""))
        sys.exit(0)
sys.exit(1)
PY
}

# ---- start-up ---------------------------------------------------------------------------------------
# Every configuration is checked once, then all are timed round-robin (one run of each per round),
# so a host whose load changes during the bench moves every configuration alike.
CFGS=()
declare -A CFG_NOTE=()
cfg_add() { # NAME NOTE ARGV... : a start-up configuration to time
	local name=$1 note=$2; shift 2
	printf '%s\0' "$@" >"$WORK/cfg.$name"
	CFGS+=("$name")
	CFG_NOTE[$name]=$note
}

# rr_time NAME... : times the configurations round-robin (N_START rounds after one warm-up round)
# and records each as a figure, or n/a with the failing status.
rr_time() {
	local -A svals=() sbad=()
	local round c v out
	local -a argv
	for round in $(seq 0 "$N_START"); do  # round 0 is the untimed warm-up
		for c in "$@"; do
			[ -n "${sbad[$c]:-}" ] && continue
			mapfile -d '' argv <"$WORK/cfg.$c"
			out=$(cd "$WS" && "$BB/timeit" -n 1 -w 0 -- "${argv[@]}")
			v=$(jget "$out" median_ms)
			if [ -z "$v" ]; then
				sbad[$c]="exit status $(jget "$out" first_status) in round $round"
				continue
			fi
			[ "$round" = 0 ] || svals[$c]=${svals[$c]:+${svals[$c]},}$v
		done
	done
	for c in "$@"; do
		if [ -n "${sbad[$c]:-}" ]; then
			na "$c" "${sbad[$c]}"
		else
			recvals "$c" "${svals[$c]}" "${CFG_NOTE[$c]}"
		fi
	done
}

startup() {
	local out argvf
	cfg_add start.bare "fork+exec of /bin/true" /bin/true

	# plain bwrap with sbxsup's own namespace flags and binds (from --dry-run), else a fixed set
	argvf=$WORK/bwrap.argv
	local bnote="argv from sbxsup run --dry-run (namespace flags and binds up to --)"
	if ! command -v bwrap >/dev/null 2>&1; then
		na start.bwrap "bwrap is not installed"
	else
		if [ "$sbx_ok" != 1 ] || ! (cd "$WS" && "$SBXSUP" run -w "$WS" --dry-run -- /bin/true 2>/dev/null) |
			python3 -c '
import json, os, sys
# The descriptors and set-up files of the run do not outlive --dry-run: each stands in by its
# nearest host equivalent, so every namespace, bind and mount of the argv stays in it.
d = json.load(sys.stdin)
a = d["bwrap"]["argv"]
a = a[:a.index("--")]
view = d["bwrap"].get("etc_view")                     # made at set-up: the host /etc stands for it
a = ["/etc" if view and x == view else x for x in a]
out, i = [], 0
while i < len(a):
    if a[i] == "--userns" and i + 1 < len(a):           # the own user namespace of a run as root
        out.append("--unshare-user"); i += 2; continue
    if a[i] == "--ro-bind-data" and i + 2 < len(a):     # <fd> DEST (policy, passwd, group): a bind
        out += ["--ro-bind", "/dev/null", a[i + 2]]; i += 3; continue
    if a[i] == "--setenv" and i + 2 < len(a) and "<" in a[i + 2]:  # <fd>/<run> of the run
        i += 3; continue
    if a[i] in ("--bind", "--ro-bind") and i + 2 < len(a) and not os.path.exists(a[i + 1]):
        # a staged source (the workspace mount, the stage binary, the preload, the report socket)
        src = a[i + 2] if os.path.isdir(a[i + 2]) else "/dev/null"
        out += [a[i], src, a[i + 2]]; i += 3; continue
    if "<fd>" in a[i] or (i + 1 < len(a) and "<fd>" in a[i + 1]):
        i += 2; continue
    out.append(a[i]); i += 1
sys.stdout.write("\0".join(out + ["--", "/bin/true"]) + "\0")' >"$argvf" 2>/dev/null; then
			bnote="fixed argv (sbxsup --dry-run gave no bwrap argv)"
			printf '%s\0' bwrap --unshare-user --unshare-ipc --unshare-uts --unshare-pid \
				--unshare-cgroup-try --unshare-net --die-with-parent --new-session \
				--ro-bind /usr /usr --symlink usr/bin /bin --symlink usr/lib /lib \
				--symlink usr/lib64 /lib64 --symlink usr/sbin /sbin --ro-bind /etc /etc \
				--dev /dev --proc /proc --tmpfs /tmp --chdir /tmp -- /bin/true >"$argvf"
		fi
		local -a bw
		mapfile -d '' bw <"$argvf"
		if out=$("${bw[@]}" 2>&1); then
			cfg_add start.bwrap "$bnote" "${bw[@]}"
		else
			na start.bwrap "bwrap cannot run here: $(lastline "$out")"
		fi
	fi

	# plain bwrap as an agent sandbox typically calls it: read-only /usr with the usual links, /etc,
	# /proc, /dev, a tmpfs /tmp, its own user/ipc/uts/pid/net namespaces (the goals' base)
	if command -v bwrap >/dev/null 2>&1; then
		local -a tb=(bwrap --unshare-user --unshare-ipc --unshare-uts --unshare-pid --unshare-net
			--die-with-parent --new-session --clearenv --ro-bind /usr /usr)
		local l
		for l in bin lib lib64 sbin; do
			[ -L "/$l" ] && tb+=(--symlink "$(readlink "/$l")" "/$l")
			[ -d "/$l" ] && [ ! -L "/$l" ] && tb+=(--ro-bind "/$l" "/$l")
		done
		tb+=(--ro-bind /etc /etc --proc /proc --dev /dev --tmpfs /tmp -- /bin/true)
		if out=$("${tb[@]}" 2>&1); then
			cfg_add start.bwrap_typical "${tb[*]}" "${tb[@]}"
		else
			na start.bwrap_typical "bwrap cannot run here: $(lastline "$out")"
		fi
	fi

	if ! command -v firejail >/dev/null 2>&1 && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
		say "installing firejail (apt-get install -y firejail)"
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q firejail >/dev/null 2>&1 || true
	fi
	if ! command -v firejail >/dev/null 2>&1; then
		na start.firejail "firejail is not installed and could not be installed"
	elif ! out=$(firejail --noprofile --quiet /bin/true 2>&1); then
		na start.firejail "firejail cannot run here: $(lastline "$out")"
	else
		cfg_add start.firejail "firejail --noprofile --quiet /bin/true" firejail --noprofile --quiet /bin/true
	fi

	# sbxsup per layer set
	local name layers act
	for spec in "start.auto_noprobes:preload,bwrap,seccomp,landlock,netfilter,limits" \
		    "start.auto:" \
		    "start.preload_only:preload" \
		    "start.nobwrap:preload,seccomp,landlock,netfilter" \
		    "start.l.bwrap:bwrap" \
		    "start.l.nobpf:preload,bwrap,seccomp,landlock,limits" \
		    "start.l.netfilter:netfilter" \
		    "start.l.probes:probes"; do
		name=${spec%%:*}; layers=${spec#*:}
		local -a la=()
		[ -n "$layers" ] && la=(--layers "$layers")
		act=$(sbx_check "$name" "${la[@]+"${la[@]}"}") || continue
		[ "$name" = start.auto ] && note start.auto "$("$SBXSUP" probes status 2>&1 | head -n 1); the shared set stays loaded between runs (SBXSUP_PROBES_IDLE), so after the warm-up round every run finds it idle and only opens it"
		cfg_add "$name" "--layers ${layers:-auto}; $act" "$SBXSUP" run -w "$WS" "${la[@]+"${la[@]}"}" -- /bin/true
	done

	# the shadow workspace's cost: the same auto run with --shadow (store + overlay + change set);
	# every store these runs leave is discarded after the timing
	local shadow_before; shadow_before=$("$SBXSUP" shadow list 2>/dev/null | cut -c1-32)
	if act=$(sbx_check start.auto_shadow --shadow); then
		cfg_add start.auto_shadow "--layers auto --shadow (overlay); $act" "$SBXSUP" run -w "$WS" --shadow -- /bin/true
	fi

	say "start-up: ${#CFGS[@]} configurations, $N_START rounds, round-robin"
	rr_time "${CFGS[@]}"
	local sid
	for sid in $("$SBXSUP" shadow list 2>/dev/null | cut -c1-32); do
		grep -qx "$sid" <<<"$shadow_before" || "$SBXSUP" shadow discard "$sid" >/dev/null 2>&1
	done

	if [ "$PINNED" != 1 ]; then
		na start.auto_pinned "skipped (BENCH_PINNED=0)"
	elif [ "$sbx_ok" != 1 ]; then
		na start.auto_pinned "sbxsup not built"
	else
		local st
		st=$("$SBXSUP" probes status 2>&1)
		if [[ "$st" == *"not pinned"* ]]; then
			if out=$("$SBXSUP" probes load 2>&1); then
				UNPIN=1
			else
				na start.auto_pinned "sbxsup probes load failed: $(lastline "$out")"
			fi
		fi
		if [ "$UNPIN" = 1 ] || [[ "$st" != *"not pinned"* ]]; then
			say "start-up: sbxsup auto with pinned probes, round-robin with plain bwrap"
			if act=$(sbx_check start.auto_pinned); then
				cfg_add start.auto_pinned "after sbxsup probes load; $act" "$SBXSUP" run -w "$WS" -- /bin/true
				if [ -f "$WORK/cfg.start.bwrap" ]; then
					cp "$WORK/cfg.start.bwrap" "$WORK/cfg.start.bwrap_pin"
					CFG_NOTE[start.bwrap_pin]="plain bwrap again, interleaved with the pinned runs"
					rr_time start.bwrap_pin start.auto_pinned
				else
					rr_time start.auto_pinned
				fi
			fi
			if [ "$UNPIN" = 1 ]; then unpin; fi
		fi
	fi

	# the automatic shared probe set: a run that starts while another probed run is live only opens
	# the set (no load, no BTF parse)
	if [ "$sbx_ok" = 1 ] && probe_run_start; then
		say "start-up: sbxsup auto while another probed run is live (shared set), round-robin with plain bwrap"
		if act=$(sbx_check start.auto_shared); then
			cfg_add start.auto_shared "while 'sbxsup run --layers probes,limits -- sleep 600' is live; $act" \
				"$SBXSUP" run -w "$WS" -- /bin/true
			if [ -f "$WORK/cfg.start.bwrap" ]; then
				cp "$WORK/cfg.start.bwrap" "$WORK/cfg.start.bwrap_shared"
				CFG_NOTE[start.bwrap_shared]="plain bwrap again, interleaved with the shared-set runs"
				rr_time start.bwrap_shared start.auto_shared
			else
				rr_time start.auto_shared
			fi
		fi
		probe_run_stop
	else
		na start.auto_shared "no probed run could be kept live"
	fi
}

# ---- preload per-call cost ------------------------------------------------------------------------
PORT=
MANIFEST_NET=$WORK/net.json
start_listener() {
	[ -n "$PORT" ] && return 0
	have preload_calls || return 1
	"$BB/preload_calls" listen "$WORK/port" &
	BG_PIDS+=($!)
	local i
	for i in $(seq 100); do [ -s "$WORK/port" ] && break; sleep 0.05; done
	PORT=$(cat "$WORK/port" 2>/dev/null)
	[ -n "$PORT" ] || return 1
	printf '{"sbxsup":1,"name":"bench","capabilities":[{"cap":"network:tcp","hosts":["127.0.0.1:%s"]}]}\n' "$PORT" >"$MANIFEST_NET"
}

# one_round CMD... : runs a helper for one round, prints its ns per call (empty on failure)
one_round() {
	local out
	out=$("$@" 2>"$WORK/err") || { say "$(basename "$1") failed: $(lastline "$(cat "$WORK/err")")"; return 1; }
	ns_of "$out"
}

calls() {
	if ! have preload_calls || ! have polrun; then
		for o in open stat connect; do na "call.$o.native" "helpers did not build"; na "call.$o.preload" "helpers did not build"; done
		return
	fi
	start_listener || say "no loopback listener: connect figures will be n/a"
	local op arg nat pre v w failed per
	for op in open stat connect; do
		arg=$FILE per=$PER
		if [ "$op" = connect ]; then
			[ -n "$PORT" ] || { na call.connect.native "no loopback listener"; na call.connect.preload "no loopback listener"; continue; }
			arg=$PORT per=$CPER
		fi
		say "per-call: $op ($ROUNDS rounds x $per calls, native and preloaded interleaved)"
		nat='' pre='' failed=''
		for _ in $(seq "$ROUNDS"); do
			v=$(one_round "$BB/preload_calls" "$op" 1 "$per" "$arg") && [ -n "$v" ] || { failed="native $op failed"; break; }
			w=$(one_round "$BB/polrun" -m "$MANIFEST_NET" -w "$WS" -p "$SBXSUP_PRELOAD_LIB" -- \
				"$BB/preload_calls" "$op" 1 "$per" "$arg") && [ -n "$w" ] ||
				{ failed="preloaded $op failed: $(lastline "$(cat "$WORK/err")")"; break; }
			nat=${nat:+$nat,}$v; pre=${pre:+$pre,}$w
		done
		if [ -n "$failed" ]; then
			na "call.$op.native" "$failed"; na "call.$op.preload" "$failed"
		else
			recvals "call.$op.native" "$nat" "$ROUNDS rounds x $per calls"
			recvals "call.$op.preload" "$pre" "polrun: LD_PRELOAD + sealed policy memfd from pol_build, $ROUNDS rounds x $per calls"
		fi
	done
}

# ---- a floating deny over a large tree (issue 28) ----------------------------------------------------
# Start-up: the policy build walks the granted directories for the deny's existing matches (bwrap
# masks them, Landlock leaves them out). Per open: every open is decided by the supervisor (seccomp
# user notification) so that files created later are held too.
deny_bench() {
	local wsd=$WORK/wsdeny m0=$WORK/deny0.json m1=$WORK/deny1.json v w out nv='' fv='' failed=''
	local dcalls=${BENCH_DENY_CALLS:-20000}
	say "deny: a workspace of 100 000 files (1 000 dirs x 100, 10 .env), $N_START start-up rounds, $ROUNDS x $dcalls opens"
	python3 - "$wsd" <<'PY'
import os, sys
w = sys.argv[1]
for d in range(1000):
    p = os.path.join(w, 'd%03d' % d)
    os.makedirs(p, exist_ok=True)
    for f in range(100 if d % 100 else 99):
        open(os.path.join(p, 'f%02d' % f), 'w').close()
    if d % 100 == 0:
        open(os.path.join(p, '.env'), 'w').write('K=v\n')
PY
	echo '{"sbxsup":1,"name":"bench-nodeny","capabilities":[]}' >"$m0"
	echo '{"sbxsup":1,"name":"bench-deny","capabilities":[],"deny":["**/.env"]}' >"$m1"
	CFGS=()
	cfg_add deny.start.none "sbxsup run, full mode, no deny, workspace of 100 000 files" "$SBXSUP" run -m "$m0" -w "$wsd" -- /bin/true
	cfg_add deny.start.float "the same with deny **/.env: the start-up walk of the granted directories" "$SBXSUP" run -m "$m1" -w "$wsd" -- /bin/true
	rr_time deny.start.none deny.start.float
	if ! have preload_calls; then
		na deny.open.none "helpers did not build"; na deny.open.float "helpers did not build"
		return
	fi
	cp "$BB/preload_calls" "$wsd/" || { na deny.open.none "cannot copy the helper"; na deny.open.float "cannot copy the helper"; return; }
	for _ in $(seq "$ROUNDS"); do
		out=$(cd "$wsd" && "$SBXSUP" run -m "$m0" -w "$wsd" -- ./preload_calls open 1 "$dcalls" "$wsd/d001/f01" 2>"$WORK/err") &&
			v=$(ns_of "$out") && [ -n "$v" ] || { failed="no deny: $(lastline "$(cat "$WORK/err")")"; break; }
		out=$(cd "$wsd" && "$SBXSUP" run -m "$m1" -w "$wsd" -- ./preload_calls open 1 "$dcalls" "$wsd/d001/f01" 2>"$WORK/err") &&
			w=$(ns_of "$out") && [ -n "$w" ] || { failed="deny: $(lastline "$(cat "$WORK/err")")"; break; }
		nv=${nv:+$nv,}$v; fv=${fv:+$fv,}$w
	done
	if [ -n "$failed" ]; then
		na deny.open.none "$failed"; na deny.open.float "$failed"
	else
		recvals deny.open.none "$nv" "sbxsup run (full mode), preloaded open+close of a workspace file, $ROUNDS rounds x $dcalls calls"
		recvals deny.open.float "$fv" "the same with deny **/.env: each open also decided by the supervisor (seccomp user notification)"
	fi
	rm -rf "$wsd"
}

# ---- policy scale -----------------------------------------------------------------------------------
scale() {
	if ! have polrun || ! have preload_calls; then
		for n in 10 1000 10000; do na "scale.open.$n" "helpers did not build"; na "scale.pol.$n" "helpers did not build"; done
		return
	fi
	local n
	for n in 10 1000 10000; do
		# n manifest rules: 80% fs:read hints (half literal dirs, half with a glob component),
		# 10% fs:write hints, 10% deny globs; every rule has its own literal prefix
		python3 - "$n" "$WORK/scale$n.json" <<'PY'
import json, sys
n, out = int(sys.argv[1]), sys.argv[2]
reads, writes, deny = [], [], []
for i in range(n):
    k = i % 10
    if k == 8:
        writes.append(f"/srv/bench/d{i}/out")
    elif k == 9:
        deny.append(f"/srv/bench/d{i}/private/**")
    elif k % 2:
        reads.append(f"/srv/bench/d{i}/*.txt")
    else:
        reads.append(f"/srv/bench/d{i}/**")
caps = [{"cap": "fs:read", "hints": reads}]
if writes:
    caps.append({"cap": "fs:write", "hints": writes})
m = {"sbxsup": 1, "name": f"scale{n}", "capabilities": caps}
if deny:
    m["deny"] = deny
json.dump(m, open(out, "w"))
PY
	done
	say "policy scale: open loop and pol_path with 10 / 1000 / 10000 manifest rules (interleaved)"
	local -A o=() p=()
	local v failed=''
	for _ in $(seq "$ROUNDS"); do
		for n in 10 1000 10000; do
			v=$(one_round "$BB/polrun" -m "$WORK/scale$n.json" -w "$WS" -p "$SBXSUP_PRELOAD_LIB" -- \
				"$BB/preload_calls" open 1 "$PER" "$FILE") && [ -n "$v" ] || { failed="open loop with $n rules failed"; break 2; }
			o[$n]=${o[$n]:+${o[$n]},}$v
			v=$(one_round "$BB/polrun" -m "$WORK/scale$n.json" -w "$WS" -d 1 "$CALLS" /srv/bench/d4/sub/file.txt) &&
				[ -n "$v" ] || { failed="pol_path with $n rules failed"; break 2; }
			p[$n]=${p[$n]:+${p[$n]},}$v
		done
	done
	if [ -n "$failed" ]; then
		for n in 10 1000 10000; do na "scale.open.$n" "$failed"; na "scale.pol.$n" "$failed"; done
		return
	fi
	for n in 10 1000 10000; do
		recvals "scale.open.$n" "${o[$n]}" "preloaded open+close of $FILE, $ROUNDS rounds x $PER calls"
		recvals "scale.pol.$n" "${p[$n]}" "pol_path(/srv/bench/d4/sub/file.txt), $ROUNDS rounds x $CALLS calls"
	done
}

# ---- probe overhead ------------------------------------------------------------------------------------
# probe_run_start: a long run with the probes layer, in the background; waits for its run.start
PROBE_PID=
probe_run_start() {
	local a=$WORK/probe-live.log i
	rm -f "$a"
	(cd "$WS" && exec "$SBXSUP" run -w "$WS" -a "$a" --layers probes,limits -- sleep 600) >/dev/null 2>"$WORK/probe-live.err" &
	PROBE_PID=$!
	BG_PIDS+=("$PROBE_PID")
	for i in $(seq 200); do
		grep -q '"event":"run.start"' "$a" 2>/dev/null && return 0
		kill -0 "$PROBE_PID" 2>/dev/null || break
		sleep 0.05
	done
	probe_run_stop
	return 1
}
probe_run_stop() {
	[ -n "$PROBE_PID" ] || return 0
	kill "$PROBE_PID" 2>/dev/null
	wait "$PROBE_PID" 2>/dev/null
	PROBE_PID=
}

probes() {
	if ! have preload_calls; then
		for k in outside.off outside.on inside.off inside.on; do na "probe.$k" "helpers did not build"; done
		return
	fi
	local act
	if ! act=$(sbx_check probe.inside.on --layers probes,limits); then
		na probe.outside.on "a run with the probes layer does not start"
		na probe.outside.off "no probe run to compare with"
		na probe.inside.off "no probe run to compare with"
		return
	fi
	local actlist=${act%%;*}
	if [[ ",${actlist#active: }," != *",probes,"* ]]; then
		for k in outside.off outside.on inside.off inside.on; do na "probe.$k" "the probes layer is not active ($act)"; done
		return
	fi
	say "probe overhead: open+close loop outside any run, probe run live vs not (interleaved)"
	local off='' on='' idle='' v w x failed='' idlest=''
	for _ in $(seq "$ROUNDS"); do
		drop_idle  # the live run of the last round leaves the shared set loaded (idle period)
		v=$(one_round "$BB/preload_calls" open 1 "$PER" "$FILE") && [ -n "$v" ] || { failed="loop failed"; break; }
		probe_run_start || { failed="the live probe run did not start: $(lastline "$(cat "$WORK/probe-live.err")")"; break; }
		w=$(one_round "$BB/preload_calls" open 1 "$PER" "$FILE") && [ -n "$w" ] || { probe_run_stop; failed="loop failed"; break; }
		probe_run_stop
		# the run has ended: the automatic shared set stays loaded, idle (no operator set pinned)
		idlest=$("$SBXSUP" probes status 2>/dev/null | grep -o 'shared set idle[^:]*' | head -n 1)
		x=$(one_round "$BB/preload_calls" open 1 "$PER" "$FILE") && [ -n "$x" ] || { failed="loop failed"; break; }
		off=${off:+$off,}$v; on=${on:+$on,}$w; idle=${idle:+$idle,}$x
	done
	if [ -n "$idlest" ] && [ -z "$failed" ]; then
		recvals probe.outside.idle "$idle" "after the probed run ended, the automatic shared set idle (programs pinned, syscall and slab-free hooks detached): the host-wide cost between runs"
	elif [ -z "$failed" ]; then
		na probe.outside.idle "no idle shared set after the run (an operator set is pinned, or SBXSUP_PROBES_IDLE=0)"
	fi
	if [ -n "$failed" ]; then
		na probe.outside.off "$failed"; na probe.outside.on "$failed"; na probe.outside.idle "$failed"
	else
		recvals probe.outside.off "$off" "no sbxsup run of this bench live; other sys_enter programs on the host: $(attached)"
		recvals probe.outside.on "$on" "while 'sbxsup run --layers probes,limits -- sleep 600' is live"
	fi

	say "probe overhead: the same loop inside a run, --layers limits --sensor off vs --layers probes,limits (interleaved)"
	off='' on='' failed=''
	for _ in $(seq "$ROUNDS"); do
		# --sensor off: with neither seccomp nor the probes, the report-only sensor would route every
		# open to the supervisor (seccomp-notify) and the base would not be a run without a sensor
		v=$(cd "$WS" && one_round "$SBXSUP" run -w "$WS" --layers limits --sensor off -- "$BB/preload_calls" open 1 "$PER" "$FILE") &&
			[ -n "$v" ] || { failed="run --layers limits --sensor off failed"; break; }
		w=$(cd "$WS" && one_round "$SBXSUP" run -w "$WS" --layers probes,limits -- "$BB/preload_calls" open 1 "$PER" "$FILE") &&
			[ -n "$w" ] || { failed="run --layers probes,limits failed"; break; }
		off=${off:+$off,}$v; on=${on:+$on,}$w
	done
	if [ -n "$failed" ]; then
		na probe.inside.off "$failed"; na probe.inside.on "$failed"
	else
		recvals probe.inside.off "$off" "sbxsup run --layers limits --sensor off"
		recvals probe.inside.on "$on" "sbxsup run --layers probes,limits; $act"
	fi
}

# ---- emulated calls (issue 27) ---------------------------------------------------------------------
# The per-call cost of an open the supervisor performs for the executor (seccomp user notification,
# resolved and opened in the supervisor, installed with SECCOMP_IOCTL_NOTIF_ADDFD) next to the
# "continue" path (the same notification, decided, answered CONTINUE: Landlock stands behind it).
# Both runs route every open to the supervisor (the file reporter: seccomp on, no preload, no probes).
emulate() {
	if ! have preload_calls; then
		na emu.open.continue "helpers did not build"; na emu.open.emulated "helpers did not build"
		return
	fi
	say "emulated calls: open+close loop, --layers seccomp,landlock,limits (continue) vs --layers seccomp,limits (emulated), interleaved"
	local cont='' emu='' v w failed=''
	for _ in $(seq "$ROUNDS"); do
		v=$(cd "$WS" && one_round "$SBXSUP" run -w "$WS" --layers seccomp,landlock,limits -- "$BB/preload_calls" open 1 "$EPER" "$FILE") &&
			[ -n "$v" ] || { failed="run --layers seccomp,landlock,limits failed"; break; }
		w=$(cd "$WS" && one_round "$SBXSUP" run -w "$WS" --layers seccomp,limits -- "$BB/preload_calls" open 1 "$EPER" "$FILE") &&
			[ -n "$w" ] || { failed="run --layers seccomp,limits failed"; break; }
		cont=${cont:+$cont,}$v; emu=${emu:+$emu,}$w
	done
	if [ -n "$failed" ]; then
		na emu.open.continue "$failed"; na emu.open.emulated "$failed"
	else
		recvals emu.open.continue "$cont" "sbxsup run --layers seccomp,landlock,limits: every open notified, decided, continued; $ROUNDS rounds x $EPER calls"
		recvals emu.open.emulated "$emu" "sbxsup run --layers seccomp,limits: every open notified, performed by the supervisor as the executor, installed with ADDFD; $ROUNDS rounds x $EPER calls"
	fi
}

# ---- mixed workload -------------------------------------------------------------------------------------
# bench/mixed.sh (compile ~30 generated C files at -O0, import a slice of the Python standard library
# in fresh interpreters, tar the tree) as the command of sbxsup run, without and with the probes,
# interleaved; the figure is the workload's own wall time (printed by mixed.sh, start-up excluded).
mixed() {
	local off='' on='' v w failed='' act_off act_on
	local mix_off="preload,bwrap,seccomp,landlock,netfilter,limits"
	cp bench/mixed.sh "$WS/mixed.sh"
	if ! act_off=$(sbx_check mix.off --layers "$mix_off"); then na mix.on "no run without probes to compare with"; return; fi
	if ! act_on=$(sbx_check mix.on); then na mix.off "no run with probes to compare with"; return; fi
	local actlist=${act_on%%;*}
	if [[ ",${actlist#active: }," != *",probes,"* ]]; then
		na mix.off "the probes layer is not active ($act_on)"; na mix.on "the probes layer is not active ($act_on)"
		return
	fi
	say "mixed workload: $MIX_ROUNDS rounds, --layers $mix_off vs auto (with probes), interleaved"
	for _ in $(seq "$MIX_ROUNDS"); do
		v=$(cd "$WS" && "$SBXSUP" run -w "$WS" --layers "$mix_off" -- sh "$WS/mixed.sh" "$WS/mix" 2>"$WORK/err") &&
			v=$(jget "$v" ms) && [ -n "$v" ] || { failed="without probes: $(lastline "$(cat "$WORK/err")")"; break; }
		w=$(cd "$WS" && "$SBXSUP" run -w "$WS" -- sh "$WS/mixed.sh" "$WS/mix" 2>"$WORK/err") &&
			w=$(jget "$w" ms) && [ -n "$w" ] || { failed="with probes: $(lastline "$(cat "$WORK/err")")"; break; }
		off=${off:+$off,}$v; on=${on:+$on,}$w
	done
	rm -f "$WS/mixed.sh"
	if [ -n "$failed" ]; then
		na mix.off "$failed"; na mix.on "$failed"
		return
	fi
	recvals mix.off "$off" "bench/mixed.sh in sbxsup run --layers $mix_off: 30 C files at -O0, 3 Python imports of 18 stdlib modules, tar; $act_off"
	recvals mix.on "$on" "the same with the default layers (probes on); $act_on"
}

# ---- audit ----------------------------------------------------------------------------------------------
audit() {
	local out
	if have audit_writer; then
		say "audit: writer throughput ($ROUNDS rounds x 100000 events)"
		out=$("$BB/audit_writer" rate "$WORK/writer.log" "$ROUNDS" 100000 2>"$WORK/err") &&
			{ rec audit.writer "$out" "preload.deny events to a file on /tmp, one write(2) each";
			  rec audit.writer_cpu "{\"ns\":$(python3 -c 'import json,sys; print(json.dumps(json.loads(sys.argv[1])["cpu_ns"]))' "$out")}" \
				"the same rounds by process CPU time (user+sys): the rate on an idle host"; } ||
			na audit.writer "audit_writer failed: $(lastline "$(cat "$WORK/err")")"
	else
		na audit.writer "audit_writer did not build"
	fi

	# kernel ring buffer: flood until the first loss
	if ! have kflood_static; then
		na audit.kring "kflood_static did not build"
	elif ! act=$(sbx_check audit.kring --layers probes,landlock); then
		:
	else
		say "audit: kernel ring buffer flood (raw openat of /etc/shadow, static binary)"
		local n best='' bestn='' lossy='' a res
		for n in 100 300 1000 3000 10000 30000 100000 300000 1000000 3000000; do
			[ "$n" -le "$KRING_MAX" ] || break
			a=$WORK/kring$n.log
			rm -f "$a"
			out=$(cd "$WS" && timeout 600 "$SBXSUP" run -w "$WS" -a "$a" --layers probes,landlock -- "$BB/kflood_static" "$n" /etc/shadow 2>"$WORK/err")
			res=$(python3 - "$a" "$out" <<'PY'
import json, sys
fl = json.loads(sys.argv[2])
end = None
for l in open(sys.argv[1], encoding="utf-8"):
    o = json.loads(l)
    if o.get("event") == "run.end":
        end = o
if not end:
    print("err no run.end"); sys.exit()
got = end.get("counts", {}).get("kernel.violation", 0)
lost = end.get("lost", 0)
print(f"{got} {lost} {fl['ns']} {fl['calls']}")
PY
			) || res="err"
			if [[ "$res" == err* ]] || [ -z "$res" ]; then
				na audit.kring "flood of $n: ${res:-no result} $(lastline "$(cat "$WORK/err")")"
				best=none
				break
			fi
			read -r got lost fns _ <<<"$res"
			say "  flood $n calls: $got kernel.violation delivered, $lost lost"
			if [ "$lost" -gt 0 ]; then
				lossy="first loss at a flood of $n calls: $got delivered, $lost lost (ring $(python3 -c "print(round($got / ($fns / 1e9)))") delivered events/s during the flood)"
				break
			fi
			best=$(python3 -c "print($got / ($fns / 1e9))")
			bestn="$n calls: $got delivered, 0 lost"
		done
		rm -f "$WORK"/kring*.log
		if [ "$best" = none ]; then
			:
		elif [ -n "$best" ]; then
			local tail="; no loss up to $KRING_MAX calls"
			[ -n "$lossy" ] && tail="; $lossy"
			recvals audit.kring "$best" "largest lossless flood $bestn$tail"
		else
			na audit.kring "${lossy:-no flood ran}"
		fi
	fi

	# audit summary on a generated file
	if ! have audit_writer || [ "$sbx_ok" != 1 ]; then
		na audit.summary "audit_writer or sbxsup missing"
		return
	fi
	say "audit: generating a ${AUDIT_MB} MiB audit file with the writer"
	local big=$WORK/big.log bytes vals='' i ms
	if ! out=$("$BB/audit_writer" gen "$big" "$AUDIT_MB" 2>"$WORK/err"); then
		na audit.summary "generation failed: $(lastline "$(cat "$WORK/err")")"
		rm -f "$big"
		return
	fi
	bytes=$(jget "$out" bytes)
	local genruns
	genruns=$(jget "$out" runs)
	for i in 1 2 3; do
		say "audit: sbxsup audit summary run $i"
		out=$("$BB/timeit" -n 1 -w 0 -- "$SBXSUP" audit summary "$big") || {
			na audit.summary "sbxsup audit summary failed (status $(jget "$out" first_status))"; vals=; break; }
		ms=$(jget "$out" median_ms)
		vals=${vals:+$vals,}$(python3 -c "print($bytes / 1e6 / ($ms / 1e3))")
		# a slow summary is measured once, not three times (bench time budget)
		python3 -c "import sys; sys.exit(0 if $ms < 40000 else 1)" || break
	done
	[ -n "$vals" ] && recvals audit.summary "$vals" "file of $bytes bytes ($genruns runs of 10002 events) generated by the writer"
	rm -f "$big"
}

# ---- memory -----------------------------------------------------------------------------------------------
memory() {
	local out vals='' i h act
	if act=$(sbx_check mem.supervisor); then
		say "memory: supervisor VmHWM during sbxsup run -- sleep 1"
		for i in 1 2 3; do
			out=$(cd "$WS" && "$BB/timeit" -n 1 -w 0 -s -- "$SBXSUP" run -w "$WS" -- sleep 1) || { vals=; break; }
			h=$(jget "$out" hwm_kb)
			[ -n "$h" ] && vals=${vals:+$vals,}$h
		done
		[ -n "$vals" ] && recvals mem.supervisor "$vals" "VmHWM of the sbxsup process sampled every ms, auto layers; $act; wait4 ru_maxrss incl. descendants $(jget "$out" maxrss_kb) KiB" ||
			na mem.supervisor "could not sample the supervisor"
	fi
	vals=''
	if act=$(sbx_check mem.supervisor_nobpf --layers preload,bwrap,seccomp,landlock,limits); then
		say "memory: supervisor VmHWM without the BPF layers"
		for i in 1 2 3; do
			out=$(cd "$WS" && "$BB/timeit" -n 1 -w 0 -s -- "$SBXSUP" run -w "$WS" --layers preload,bwrap,seccomp,landlock,limits -- sleep 1) || { vals=; break; }
			h=$(jget "$out" hwm_kb)
			[ -n "$h" ] && vals=${vals:+$vals,}$h
		done
		[ -n "$vals" ] && recvals mem.supervisor_nobpf "$vals" "--layers preload,bwrap,seccomp,landlock,limits; $act" ||
			na mem.supervisor_nobpf "could not sample the supervisor"
	fi
	if ! have tiny || ! have polrun; then
		na mem.tiny.native "helpers did not build"; na mem.tiny.preload "helpers did not build"; na mem.preload_added "helpers did not build"
		return
	fi
	say "memory: VmHWM of a small process with and without the preload"
	local nat='' pre='' v
	for i in $(seq 20); do
		v=$(jget "$("$BB/tiny")" hwm_kb); [ -n "$v" ] && nat=${nat:+$nat,}$v
		v=$(jget "$("$BB/polrun" -w "$WS" -p "$SBXSUP_PRELOAD_LIB" -- "$BB/tiny" 2>/dev/null)" hwm_kb); [ -n "$v" ] && pre=${pre:+$pre,}$v
	done
	if [ -z "$nat" ] || [ -z "$pre" ]; then
		na mem.tiny.native "tiny did not report"; na mem.tiny.preload "tiny did not report under the preload"; na mem.preload_added "no values"
		return
	fi
	recvals mem.tiny.native "$nat" "bench/tiny: VmHWM of its own image"
	recvals mem.tiny.preload "$pre" "the same under LD_PRELOAD with the default manifest's policy"
	local added
	added=$(python3 -c "import statistics as s; n=s.median([$nat]); print(','.join(str(p-n) for p in [$pre]))")
	recvals mem.preload_added "$added" "each preloaded run minus the native median"
}

# ---- warm server: per-call latency through `sbxsup serve` ----------------------------------------
# One long-lived client (bench/serve_calls) makes the calls, connecting once per call as a runtime
# would; bare exec and firejail are timed by the same client in the same rounds (round-robin).
# The server keeps BENCH_SERVE_WARM sandboxes parked (--warm N, docs/serve.md): calls paced like an
# agent's tool calls (BENCH_SERVE_GAP_MS apart) find one ready; a burst of N back-to-back calls (a
# pause after each burst lets the server park N again) finds N; a longer back-to-back stream waits,
# after N calls, for the sandboxes prepared after the previous ones. A --no-warm server gives the
# cold figure beside them.
serve_bench() {
	local n=${BENCH_SERVE_CALLS:-100} gap=${BENCH_SERVE_GAP_MS:-500} nw=${BENCH_SERVE_WARM:-4} rounds=5 sd=$WORK/serve sp cp out c b
	have serve_calls || { na serve.call "bench/serve_calls did not build"; return; }
	[ "$sbx_ok" = 1 ] || { na serve.call "sbxsup not built"; return; }
	mkdir -m 700 "$sd"
	"$SBXSUP" serve --socket "$sd/s" --quiet --warm "$nw" -w "$WS" 2>"$WORK/serve.err" & sp=$!
	BG_PIDS+=($sp)
	"$SBXSUP" serve --socket "$sd/cold" --quiet --no-warm -w "$WS" 2>>"$WORK/serve.err" & cp=$!
	BG_PIDS+=($cp)
	for c in $(seq 100); do [ -S "$sd/s" ] && [ -S "$sd/cold" ] && break; sleep 0.05; done
	[ -S "$sd/s" ] && [ -S "$sd/cold" ] || { na serve.call "sbxsup serve did not start: $(lastline "$(cat "$WORK/serve.err")")"; return; }
	local fj=0
	command -v firejail >/dev/null 2>&1 && firejail --noprofile --quiet /bin/true >/dev/null 2>&1 && fj=1
	local -A v=()
	say "serve: $n calls of /bin/true per figure through sbxsup serve (paced: $gap ms apart; and back-to-back), beside bare exec$([ $fj = 1 ] && echo " and firejail")"
	# a failed call drops only itself (its status and record go to $WORK/serve.calls.err)
	(cd "$WS" && "$BB/serve_calls" serve "$sd/s" 1 -- /bin/true >/dev/null 2>&1) # the first call is cold
	sleep 2 # (the server fills N parked sandboxes from it)
	for c in $(seq "$rounds"); do
		out=$("$BB/serve_calls" exec $((n / rounds)) -- /bin/true); v[bare]+=${v[bare]:+,}$(jvals "$out")
		out=$(cd "$WS" && "$BB/serve_calls" serve "$sd/s" $((n / rounds)) --gap "$gap" -- /bin/true 2>>"$WORK/serve.calls.err")
		v[call]+=${v[call]:+,}$(jvals "$out")
		for b in $(seq $(( (n / rounds + nw - 1) / nw ))); do # bursts of N, each finding N parked
			sleep "$(awk -v w="$nw" 'BEGIN{print 0.5 + 0.25 * w}')"
			out=$(cd "$WS" && "$BB/serve_calls" serve "$sd/s" "$nw" -- /bin/true 2>>"$WORK/serve.calls.err")
			v[burst]+=${v[burst]:+,}$(jvals "$out")
		done
		sleep "$(awk -v w="$nw" 'BEGIN{print 0.5 + 0.25 * w}')"
		out=$(cd "$WS" && "$BB/serve_calls" serve "$sd/s" $((n / rounds)) -- /bin/true 2>>"$WORK/serve.calls.err")
		v[b2b]+=${v[b2b]:+,}$(jvals "$out")
		out=$(cd "$WS" && "$BB/serve_calls" serve "$sd/cold" $((n / rounds / 2)) --gap "$gap" -- /bin/true 2>>"$WORK/serve.calls.err")
		v[cold]+=${v[cold]:+,}$(jvals "$out")
		sleep "$(awk -v g="$gap" 'BEGIN{print g/1000}')" # the first call of the next round finds its sandbox ready
		# the command-line client, paced like the calls above (back to back it would wait, after N
		# calls, for sandboxes still being prepared: the b2b figure's case, not the client's)
		out=$(cd "$WS" && "$BB/serve_calls" exec $((n / rounds / 5 + 1)) --gap "$gap" -- "$SBXSUP" run --server "$sd/s" -- /bin/true)
		v[cli]+=${v[cli]:+,}$(jvals "$out")
		if [ $fj = 1 ]; then
			out=$("$BB/serve_calls" exec $((n / rounds / 5 + 1)) -- firejail --noprofile --quiet /bin/true)
			v[firejail]+=${v[firejail]:+,}$(jvals "$out")
		fi
	done
	for c in bare call burst b2b cold cli firejail; do v[$c]=$(sed 's/,,*/,/g; s/^,//; s/,$//' <<<"${v[$c]:-}"); done
	local nf
	nf=$(grep -c . "$WORK/serve.calls.err" 2>/dev/null)
	[ "${nf:-0}" -gt 0 ] && note serve.call "$nf failed call(s), left out: $(lastline "$(cat "$WORK/serve.calls.err")")"
	kill -TERM $sp $cp; wait $sp $cp 2>/dev/null
	[ -n "${v[bare]:-}" ] && recvals serve.bare "${v[bare]}" "fork+exec+wait of /bin/true by the bench client"
	[ -n "${v[call]:-}" ] && recvals serve.call "${v[call]}" "sbxsup serve (default layers, pre-created sandbox), calls $gap ms apart, one connection per call from one long-lived client" \
		|| na serve.call "the calls failed: $(lastline "$out")"
	[ -n "${v[burst]:-}" ] && recvals serve.burst "${v[burst]}" "bursts of $nw back-to-back calls (--warm $nw, BENCH_SERVE_WARM), each burst finding $nw parked sandboxes" \
		|| na serve.burst "the calls failed"
	[ -n "${v[b2b]:-}" ] && recvals serve.b2b "${v[b2b]}" "$((n / rounds)) back-to-back calls per round: after the first $nw, each waits for a sandbox prepared after a previous call" \
		|| na serve.b2b "the calls failed"
	[ -n "${v[cold]:-}" ] && recvals serve.cold "${v[cold]}" "sbxsup serve --no-warm: every call sets up its sandbox (calls $gap ms apart)" \
		|| na serve.cold "the calls failed"
	[ -n "${v[cli]:-}" ] && recvals serve.cli "${v[cli]}" "sbxsup run --server, calls $gap ms apart: includes the client's own process start" \
		|| na serve.cli "sbxsup run --server failed"
	if [ $fj = 1 ] && [ -n "${v[firejail]:-}" ]; then recvals serve.firejail "${v[firejail]}" "firejail --noprofile --quiet /bin/true, same client"
	else na serve.firejail "firejail is not installed or cannot run here"; fi
}
# ---- the network gateway: connection set-up and throughput, through it and direct ----------------
# bench/gw_bench: a client in its own network namespace, servers on loopback (127.0.0.9 on the
# host's side for the gateway's path, 127.0.0.1 inside the namespace for the direct one); the
# client's first bytes are a TLS ClientHello, so the gateway's name check is in the path.
gateway_bench() {
	local mb=${BENCH_GW_MB:-1024} out
	have gw_bench || { na net.connect.gw "bench/gw_bench did not build"; return; }
	[ "$sbx_ok" = 1 ] || { na net.connect.gw "sbxsup not built"; return; }
	say "gateway: 5 rounds of 500 connections and one ${mb} MB transfer, direct and through the gateway"
	if ! out=$(timeout 300 "$BB/gw_bench" "$SBXSUP" 5 500 "$mb" 2>"$WORK/gw.err"); then
		na net.connect.gw "gw_bench failed: $(lastline "$(cat "$WORK/gw.err")")"
		return
	fi
	local connect_direct connect_gw tput_direct tput_gw
	connect_direct=$(jlist "$out" connect_direct) connect_gw=$(jlist "$out" connect_gw)
	tput_direct=$(jlist "$out" tput_direct) tput_gw=$(jlist "$out" tput_gw)
	recvals net.connect.direct "$connect_direct" "connect() to the server's first byte back, loopback inside the namespace, median of 500 per round"
	recvals net.connect.gw "$connect_gw" "the same through the gateway (ClientHello name check, host-side connect)"
	recvals net.connect.added "$(python3 -c "print(','.join(str(g-d) for g,d in zip([$connect_gw],[$connect_direct])))")" "per round: gateway median minus direct median"
	recvals net.tput.direct "$tput_direct" "one ${mb} MB transfer client -> server, loopback"
	recvals net.tput.gw "$tput_gw" "the same through the gateway (splice relay: every byte crosses the TCP stack twice)"
}

# jlist JSON KEY: a list of a helper's one-line JSON, comma-separated
jlist() { python3 -c 'import json,sys; print(",".join(str(x) for x in json.loads(sys.argv[1])[sys.argv[2]]))' "$1" "$2" 2>/dev/null; }
# jvals JSON: the "values" list of a serve_calls line
jvals() { python3 -c 'import json,sys; print(",".join(str(x) for x in json.loads(sys.argv[1])["values"]))' "$1" 2>/dev/null; }

# ---- main -----------------------------------------------------------------------------------------------
if have timeit; then
	want startup && startup
else
	for k in bare bwrap bwrap_typical firejail auto_noprobes auto auto_pinned preload_only nobwrap; do na "start.$k" "timeit did not build"; done
fi
want calls && calls
want scale && scale
want deny && have timeit && deny_bench
want probes && probes
want emulate && emulate
want mixed && mixed
want audit && audit
want memory && memory
want serve && serve_bench
want gateway && gateway_bench
note host "bench took $(( $(date +%s) - T0 )) s; load $(cut -d' ' -f1-3 /proc/loadavg) at the end"

echo
python3 bench/table.py "$RAW" "${BENCH_RESULTS:-bench/results.json}"
