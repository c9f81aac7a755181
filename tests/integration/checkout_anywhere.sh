#!/usr/bin/env bash
# checkout_anywhere.sh — sbxsup and its suite work from a checkout that the executor's identity
# cannot reach (issue 34: root's clone under /root, mode 0700; any install under a directory that
# identity cannot traverse). A copy of the tree (sources and $B) inside a 0700 directory:
#   1. its sbxsup, without bwrap (preload-only, no-bwrap) and with the default layers, really loads
#      its preload: run.start says layers.preload true, and the preload refuses a manifest deny of
#      a world-readable file (host evidence: the bytes are not printed; event: preload.deny);
#   2. tests/run.sh from there runs a small part of the suite (TESTS=integration/run_basic) to the
#      end without a failure (as root it runs from a world-readable copy, tests/run.sh).
# Bounded: the copy (~30 MB) and one short suite, well under two minutes.
. "$(dirname "$0")/../lib.sh"

B=${B:-build}
case $B in /*) BDIR=$B ;; *) BDIR=$SBX_ROOT/$B ;; esac
HIDE=$(mktemp -d /var/tmp/sbxsup-anywhere.XXXXXX) && chmod 700 "$HIDE" || { t_fail checkout_anywhere_copy "mktemp"; exit 0; }
t_on_exit "rm -rf '$HIDE'"
SRC=$HIDE/src
mkdir -p "$SRC/build"
ex=(--exclude=./.git); for d in "$SBX_ROOT"/build*; do ex+=("--exclude=./${d##*/}"); done
if ! tar -C "$SBX_ROOT" "${ex[@]}" -cf - . | tar -C "$SRC" -xpf - \
   || ! tar -C "$BDIR" --exclude=./fuzz -cf - . | tar -C "$SRC/build" -xpf -; then
	t_fail checkout_anywhere_copy "cannot copy the tree to $SRC"; exit 0
fi
S=$SRC/build/sbxsup

# 1. the preload loads from there, in every mode that injects it
PUB=$(mktemp -d /var/tmp/sbxsup-anywhere-pub.XXXXXX) && chmod 755 "$PUB"
t_on_exit "rm -rf '$PUB'"
mkdir -p "$PUB/ws" "$PUB/data"; chmod 777 "$PUB/ws"; chmod 755 "$PUB/data"
echo "ANYWHERE_CANARY_$$" >"$PUB/data/s.txt"; chmod 644 "$PUB/data/s.txt"
cat >"$PUB/m.json" <<JSON
{"sbxsup": 1, "name": "anywhere", "capabilities": [{"cap": "fs:read", "hint": "$PUB/data/**"}],
 "deny": ["$PUB/data/s.txt"]}
JSON
for mode in preload-only no-bwrap default; do
	case $mode in
	preload-only) L=(--layers preload,probes,limits) ;;
	no-bwrap) L=(--layers preload,seccomp,landlock,netfilter,probes,limits) ;;
	default) L=() ;;
	esac
	A=$T_TMP/a.$mode
	out=$(cd "$PUB/ws" && env -u SBXSUP_PRELOAD_LIB "$S" run "${L[@]+"${L[@]}"}" -m "$PUB/m.json" -a "$A" -- cat "$PUB/data/s.txt" 2>&1); rc=$?
	if [ $rc -ne 0 ] && ! grep -q "ANYWHERE_CANARY_$$" <<<"$out" \
	   && assert_audit "$A" run.start layers.preload=true && assert_audit "$A" preload.deny; then
		t_pass "checkout_anywhere_preload_$mode"
	else t_fail "checkout_anywhere_preload_$mode" "rc=$rc $(tail -c 600 <<<"$out")"; fi
done

# 2. a small part of the suite, from there
out=$(cd "$SRC" && env -u SBX_STAGED -u SBXSUP -u SBXSUP_PRELOAD_LIB -u SBX_PROGS -u SBX_ROOT B=build \
	TESTS=integration/run_basic timeout 300 bash tests/run.sh 2>&1); rc=$?
last=$(tail -1 <<<"$out")
if [ $rc -eq 0 ] && [[ $last =~ ^[1-9][0-9]*\ passed,\ 0\ failed ]]; then
	t_pass checkout_anywhere_suite
else t_fail checkout_anywhere_suite "rc=$rc: $(grep -E '^(failed|FAIL)' <<<"$out" | head -5) $last"; fi
