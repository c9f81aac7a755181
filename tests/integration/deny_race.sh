#!/usr/bin/env bash
# deny_race.sh — a manifest deny cannot be raced (issues 27 and 28). With "deny": ["**/.env"], the
# workspace's app/.env holds a canary and is world-readable: in no-bwrap mode the workspace is a
# write grant Landlock keeps whole (the seccomp layer's deny decision is what holds the deny there).
# A static two-thread executor (tests/progs/race_flip_static.c) flips the name it opens between a
# granted file and app/.env while its other thread opens and reads it by raw system call, 3000 times
# (or 5 s). Host evidence: the canary never comes out; the event: a kernel.violation naming
# app/.env with the rule deny[0] (critical). Modes: no-bwrap, full, seccomp alone.
# Files created during the run ("late"): app/.env does not exist at start; the host writes it 1 s
# after the start while the executor keeps racing for it (4 s). bwrap's masks and Landlock's rules
# were made at start, so with the seccomp layer off only the deny decision in the report-only
# sensor's filter (--layers bwrap, --layers landlock, --layers preload) or the privilege guard's
# (preload-only) holds it: each is asserted, with the same evidence and a critical event. The same
# racing executor also gives the late match a second name the deny does not match — a hard link
# (linkread) or a rename (renameread) of the flipped name, then reads it there: the write class and
# link are performed by sbxsup on the names it decided wherever a deny is held, so neither wins.
# As root the executor is `nobody`, and the script runs again as a throwaway user (sbxu_drace,
# removed after): without the probes the seccomp file reporter decides, and its allowed opens are
# performed by sbxsup as well.
. "$(dirname "$0")/../lib.sh"

RF=$SBX_PROGS/race_flip_static
[ -x "$RF" ] || { t_skip deny_race "missing $RF (make all)"; exit 0; }
ROOT=0; [ "$(id -u)" = 0 ] && ROOT=1
OUT=$(mktemp -d /var/tmp/sbxdrace.XXXXXX); chmod 755 "$OUT"; t_on_exit "rm -rf '$OUT'"
cp "$RF" "$OUT/rf"; chmod 755 "$OUT/rf"
WS=$OUT/ws; mkdir -p "$WS/app"; chmod 777 "$WS" "$WS/app"
AUD=$T_TMP/audit
# longer than app/.env: a name torn between the two by the flipper is never a prefix of either
# (never the directory app itself, which a renameread would move)
GOOD=$WS/granted-file.txt
USERENV=(); [ $ROOT = 1 ] && USERENV=(SBXSUP_USER=nobody)
M=$T_TMP/m.json
cat > "$M" <<JSON
{"sbxsup": 1, "name": "deny-race", "capabilities": [{"cap": "code:exec"}, {"cap": "fs:read", "hint": "$OUT/rf"}],
 "deny": ["**/.env"]}
JSON

# race NAME LAYERS [late [HOLDER [RUN ARGS...]]]: late — app/.env is created by the host 1 s after
# the start; HOLDER — what run.start.level.deny must name ("sensor", "guard": the filter that holds
# it). OP (default open): the race_flip_static operation.
race() {
	local n=$1 layers=$2 late=${3:-} holder=${4:-}; shift 4 2>/dev/null || shift $#
	local name="deny_race: $n" out rc why="" writer="" tries=3000 secs=5
	echo ok > "$GOOD"; chmod 666 "$GOOD"
	rm -f "$AUD" "$WS/app/.env"
	if [ -n "$late" ]; then
		tries=100000000 secs=4
		( sleep 1; umask 022; echo "TOKEN=CANARY-DRACE-$$-$n" > "$WS/app/.env" ) & writer=$!
	else
		echo "TOKEN=CANARY-DRACE-$$-$n" > "$WS/app/.env"; chmod 644 "$WS/app/.env"
	fi
	local la=(); [ -n "$layers" ] && la=(--layers "$layers")
	out=$(cd "$WS" && env "${USERENV[@]+"${USERENV[@]}"}" timeout 60 "$SBXSUP" run -m "$M" -w "$WS" \
		"${la[@]+"${la[@]}"}" "$@" -a "$AUD" -- "$OUT/rf" "${OP:-open}" "$GOOD" "$WS/app/.env" $tries $secs 2>"$T_TMP/err"); rc=$?
	[ -n "$writer" ] && wait "$writer"
	local got; got=$(grep -o 'tries=[0-9]* ok=[0-9]*' "$T_TMP/err")
	[ -n "$got" ] || why="the attack did not run (rc $rc: $(grep -v warning "$T_TMP/err" | tail -2 | tr '\n' ' '))"
	[ -f "$WS/app/.env" ] || why="$why; the host's writer did not create app/.env"
	! grep -q "CANARY-DRACE" <<<"$out" || why="$why; the denied file's bytes came out"
	grep -q "CANARY-DRACE" "$WS/app/.env" 2>/dev/null || why="$why; app/.env was moved or changed"
	! grep -rq "CANARY-DRACE" --exclude=.env "$WS" || why="$why; a second name for app/.env is left in the workspace"
	if [ -z "$why" ]; then
		audit_has "$AUD" kernel.violation "path=$WS/app/.env" "rule~deny[0]" "sev=critical" 2>/dev/null ||
			why="no critical kernel.violation names $WS/app/.env with rule deny[0]"
	fi
	if [ -z "$why" ] && [ -n "$holder" ]; then
		audit_has "$AUD" run.start "level.deny~$holder" 2>/dev/null ||
			why="run.start.level.deny does not name the $holder's filter"
	fi
	if [ -z "$why" ]; then t_pass "$name ($got)"; else t_fail "$name" "${why#; }"; fi
}

NB="preload,seccomp,landlock,limits"; [ $ROOT = 1 ] && NB="$NB,probes"
race "no-bwrap" "$NB"
race "seccomp" "seccomp,limits"
if bwrap --ro-bind / / true 2>/dev/null; then
	race "full" ""
	race "full, created late" "" late
	race "bwrap alone, created late" "bwrap,limits" late sensor
	# the guard's own filter inside bwrap (the stage there reads the policy for it)
	race "bwrap, sensor off, created late" "bwrap,limits" late guard --sensor off
	[ $ROOT = 1 ] && race "bwrap and probes, created late" "bwrap,probes,limits" late guard
else
	t_skip "deny_race: full" "bwrap cannot make its namespaces here"
	t_skip "deny_race: bwrap alone, created late" "bwrap cannot make its namespaces here"
fi
race "landlock alone, created late" "landlock,limits" late sensor
race "landlock, sensor off, created late" "landlock,limits" late guard --sensor off
for OP in linkread renameread; do
	race "full, created late, $OP" "" late
	race "no-bwrap, created late, $OP" "$NB" late
	race "landlock alone, created late, $OP" "landlock,limits" late sensor
	race "preload alone, created late, $OP" "preload,limits" late sensor
done
OP=open
race "preload alone, created late" "preload,limits" late sensor
if [ $ROOT = 1 ]; then race "preload-only, created late" "preload,probes,limits" late guard
else race "preload, sensor off, created late" "preload,limits" late guard --sensor off; fi

# A run's own /proc entries stay readable where its opens are performed by sbxsup (a deny in every
# mode): /proc/self/exe and /proc/self/maps (glibc's pthread_getattr_np, language runtimes) are
# opened read-only for the process itself; another process's entries (/proc/1, the sandbox's init)
# stay refused, and nothing opened for it by sbxsup shows what only a privileged opener may see (a
# physical frame number in /proc/self/pagemap), and /proc/self/status shows the ids the process has
# (the run's, never the host's). Evidence: what a static reader got, per mode.
for L in "preload,bwrap,seccomp,landlock,limits" "seccomp,limits" "bwrap,limits" "preload,seccomp,landlock,limits"; do
	out=$(cd "$WS" && timeout 60 env "${USERENV[@]}" "$SBXSUP" run -m "$M" -w "$WS" --layers "$L" -a "$T_TMP/own.audit" -- \
		"$OUT/rf" own-proc 2>/dev/null)
	if grep -q '^exe ok' <<<"$out" && grep -q '^maps ok' <<<"$out" && grep -q '^other refused' <<<"$out" &&
	   grep -q '^pfn hidden' <<<"$out" && grep -q '^status ids match' <<<"$out"; then
		t_pass "deny_race: own /proc entries readable, others not ($L)"
	else t_fail "deny_race: own /proc entries readable, others not ($L)" "$(tr '\n' ' ' <<<"$out")"; fi
done

# No user notification: inside another sbxsup (whose sensor holds the listener) no filter can hold a
# deny below libc. The inner run says so, loudly: the warning on stderr and run.start.level.deny.
# (A sanitizer build of the inner sbxsup starts after the outer run's preload: ASan is told so.)
NW=$WS/nest; mkdir -p "$NW/inner"; chmod 777 "$NW" "$NW/inner"
printf '{"sbxsup": 1, "name": "nest", "capabilities": ["code:exec"]}\n' > "$T_TMP/nest.json"
printf '{"sbxsup": 1, "name": "nest-deny", "capabilities": ["code:exec"], "deny": ["**/.env"]}\n' > "$NW/dm.json"
chmod 644 "$NW/dm.json" "$T_TMP/nest.json"
out=$(cd "$NW" && timeout 60 "$SBXSUP" run -m "$T_TMP/nest.json" -w "$NW" --layers preload,landlock,limits -a "$T_TMP/nest.audit" -- \
	env ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0" "$SBXSUP" run -m "$NW/dm.json" -w "$NW/inner" -a "$NW/in.audit" -- true 2>&1); rc=$?
if [ $rc -eq 0 ] && grep -q 'warning: manifest deny held at start only' <<<"$out" &&
   audit_has "$NW/in.audit" run.start "level.deny~at start only" 2>/dev/null; then
	t_pass "deny_race: no user notification (nested): warned"
else t_fail "deny_race: no user notification (nested): warned" "rc=$rc $(grep -i 'deny\|error' <<<"$out" | tail -3 | tr '\n' ' ')"; fi
rm -rf "$NW"

# As an unprivileged user: this script again, as that user (its own files).
if [ $ROOT = 1 ] && [ -z "${SBX_DRACE_INNER:-}" ]; then
	U=sbxu_drace
	if command -v useradd >/dev/null && useradd -m "$U" 2>/dev/null; then
		t_on_exit "userdel -r $U 2>/dev/null"
		out=$(runuser -u "$U" -- env SBX_DRACE_INNER=1 SBXSUP="$SBXSUP" SBX_ROOT="$SBX_ROOT" SBX_PROGS="$SBX_PROGS" \
			HOME="/home/$U" PATH="$PATH" bash "$0" 2>&1)
		while IFS= read -r l; do
			case $l in PASS:*|FAIL:*|SKIP:*) echo "${l%%: *}: unpriv_${l#*: }";; esac
		done <<<"$out"
		grep -qE '^(PASS|FAIL)' <<<"$out" || t_fail "deny_race: unprivileged" "no result: $(tail -3 <<<"$out" | tr '\n' ' ')"
	else t_skip "deny_race: unprivileged" "cannot create user $U"; fi
fi
exit 0
