#!/usr/bin/env bash
# grant_link.sh — a link planted at a granted name does not widen the grant (grant_link.h). An
# earlier executor can leave anything in the workspace: here ws/out (a write grant) and ws/data (a
# read grant) are symbolic links to a directory outside every grant, world-writable and holding a
# world-readable canary, so only the layers stand in the way. A static executor (raw system calls:
# no preload) reads data/f and writes out/f and out/new. Host evidence: the canary never comes out,
# the target's file is unchanged and nothing is created there; the event: a refusal or report
# naming the target's path, and run.start.level.grants naming the link, with a warning on stderr.
# In bwrap mode a followed link's grant used to fail bwrap's setup (a mount on an absolute link in
# the new root), which turned bwrap off for the run: now the link is shown by its parent's bind.
# Modes: full, no-bwrap, and each kernel layer alone (landlock, bwrap, seccomp), where the kernel
# layer's own binds and rules used to follow the link. A link to a granted place (ws/out2 ->
# ws/real) is still followed: the write lands there in every mode. As root the executor is
# `nobody`; make check-user runs the script again as a normal user.
. "$(dirname "$0")/../lib.sh"

KA=$SBX_PROGS/k_attack_static
RD=$SBX_PROGS/pr_static_reader_static
for p in "$KA" "$RD"; do [ -x "$p" ] || { t_skip grant_link "missing $p (make progs)"; exit 0; }; done
ROOT=0; [ "$(id -u)" = 0 ] && ROOT=1
OUT=$(mktemp -d /var/tmp/sbxglink.XXXXXX); chmod 755 "$OUT"; t_on_exit "rm -rf '$OUT'"
cp "$KA" "$OUT/ka"; cp "$RD" "$OUT/rd"; chmod 755 "$OUT/ka" "$OUT/rd"
TARGET=$OUT/target WS=$OUT/ws
mkdir -p "$TARGET" "$WS/real"; chmod 777 "$TARGET" "$WS" "$WS/real"
ln -s "$TARGET" "$WS/out"; ln -s "$TARGET" "$WS/data"; ln -s "$WS/real" "$WS/out2"
CANARY="CANARY-GLINK-$$"
USERENV=(); [ $ROOT = 1 ] && USERENV=(SBXSUP_USER=nobody)
M=$T_TMP/m.json
cat > "$M" <<JSON
{"sbxsup": 1, "name": "grant-link", "capabilities": [{"cap": "code:exec"},
 {"cap": "fs:read", "hints": ["$OUT/ka", "$OUT/rd", "$WS/data"]},
 {"cap": "fs:write", "hints": ["$WS/out", "$WS/out2"]}]}
JSON

# an event of any refusing or reporting kind that names PATH
names_path() {
	local a=$1 path=$2 ev
	for ev in kernel.violation seccomp.deny landlock.deny preload.deny; do
		audit_has "$a" "$ev" "path=$path" && return 0
	done
	return 1
}

# sbx A LAYERS ARGS...: one run in the workspace, the static program as the command itself (a
# normal user's run has no probes: the file reporter sees a static command, not a static child
# of a preloaded shell, docs/known-gaps.md)
sbx() {
	local a=$1 layers=$2; shift 2
	local la=(); [ -n "$layers" ] && la=(--layers "$layers")
	(cd "$WS" && env "${USERENV[@]+"${USERENV[@]}"}" timeout 60 "$SBXSUP" run -m "$M" -w "$WS" \
		"${la[@]+"${la[@]}"}" -a "$a" -- "$@")
}

attempt() {
	local mode=$1 layers=$2 name="grant_link: $1" why="" a=$T_TMP/a-$1.jsonl b=$T_TMP/b-$1.jsonl out
	echo "$CANARY" > "$TARGET/f"; chmod 666 "$TARGET/f"; rm -f "$TARGET/new" "$WS/real/x" "$a" "$b"
	out=$(sbx "$a" "$layers" "$OUT/rd" data/f 2>"$T_TMP/err"; sbx "$b" "$layers" "$OUT/ka" write out/f write out/new \
		write out2/x 2>>"$T_TMP/err"); local rc=$?
	grep -q 'write: ' <<<"$out" || why="the attack did not run (rc $rc: $(grep -v warning "$T_TMP/err" | tail -2 | tr '\n' ' '))"
	! grep -q "$CANARY" <<<"$out" || why="$why; the canary came out through data/"
	[ "$(cat "$TARGET/f")" = "$CANARY" ] || why="$why; the target's file was written through out/"
	[ ! -e "$TARGET/new" ] || why="$why; a file was created in the target through out/"
	[ "$(cat "$WS/real/x" 2>/dev/null)" = planted ] || why="$why; a link to a granted place was not followed (out2/x missing)"
	# the attempt's event; where the link's object is outside the run's view (bwrap) and the probes
	# are the reporter, the kernel answers ENOENT, which they do not report (docs/known-gaps.md):
	# there run.start.level.grants (asserted below) is the record
	if ! grep -q ENOENT <<<"$out" || ! audit_has "$b" run.start layers.probes=true; then
		names_path "$a" "$TARGET/f" || why="$why; no event names the read of $TARGET/f"
		names_path "$b" "$TARGET/new" || names_path "$b" "$TARGET/f" || why="$why; no event names the write in $TARGET"
	fi
	audit_has "$a" run.start "level.grants~$WS/out" "level.grants~$TARGET" ||
		why="$why; run.start.level.grants does not name the link"
	grep -q "granted path leads through a link" "$T_TMP/err" || why="$why; no warning on stderr"
	case ,$layers, in ,, | *,bwrap,*) audit_has "$b" run.start layers.bwrap=true || why="$why; bwrap was off";; esac
	if [ -z "$why" ]; then t_pass "$name"
	else t_fail "$name" "$why; out=$(head -c 300 <<<"$out") audit=$(grep -hv run.start "$a" "$b" 2>/dev/null | head -c 600)"; fi
}

attempt full ""
attempt no-bwrap preload,seccomp,landlock,netfilter,probes
attempt landlock landlock
attempt bwrap bwrap
attempt seccomp seccomp
