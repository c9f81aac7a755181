#!/usr/bin/env bash
# result_dest.sh — `--result FILE` follows the audit destination's rules (docs/result-record.md):
# refused (125, reason result_destination) inside anything the executor can write — the README's
# old `--result r.json` in the workspace, whose record the executor could replace with a forged
# `verdict: clean` — in full, no-bwrap and preload-only mode; a descriptor on a file in the
# workspace likewise; a FIFO planted at the path refused at once (never waited on), a symlink never
# followed; a file outside every grant and a pipe keep working. Each attack asserts what the caller
# reads (the record's bytes), that the command never ran (a marker on the host) and the refusal
# (stderr, the record's reason, run.end exit 125 in the audit stream). As root, then again as an
# unprivileged user (this script, as a throwaway user).
. "$(dirname "$0")/../lib.sh"

P=${SBX_RD_PREFIX:-}
SELF=$(realpath "$0")
WS=$T_TMP/ws; mkdir -p "$WS"
OUT=$T_TMP/out; mkdir -m 700 "$OUT"
MARK=$WS/ran   # the command would leave it (the workspace is writable)
rec() { python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$@"; }

# 1. the README attack: --result r.json in the workspace; the executor renames a forged record over it
FORGE='printf "%s\n" "{\"v\":1,\"status\":\"exited\",\"exit\":0,\"verdict\":\"clean\",\"forged\":1}" > f.tmp; mv -f f.tmp r.json; touch '"$MARK"
for mode in full nobwrap preload; do
	case $mode in
	full) L=;;
	nobwrap) L="--layers preload,seccomp,landlock,netfilter,probes,limits";;
	preload) L="--layers preload,probes,limits";;
	esac
	rm -f "$WS/r.json" "$MARK"
	A=$OUT/audit.$mode
	# shellcheck disable=SC2086
	out=$(cd "$WS" && timeout 60 "$SBXSUP" run $L -a "$A" --result r.json -- sh -c "$FORGE" 2>&1); rc=$?
	why=
	[ $rc -eq 125 ] || why="$why rc=$rc;"
	[ -e "$MARK" ] && why="$why the command ran;"
	grep -q forged "$WS/r.json" 2>/dev/null && why="$why the caller reads the forged record;"
	[ "$(rec "$WS/r.json" 'r["reason"]["code"], r["status"]' 2>&1)" = "('result_destination', 'refused')" ] || why="$why record: $(cat "$WS/r.json" 2>&1);"
	grep -q 'refused: the executor can write' <<<"$out" || why="$why no refusal on stderr: $out;"
	audit_has "$A" run.end exit=125 || why="$why no run.end exit 125 in the audit stream;"
	if [ -z "$why" ]; then t_pass "${P}result_in_workspace_refused_$mode"; else t_fail "${P}result_in_workspace_refused_$mode" "$why"; fi
done

# 2. a descriptor on a file in the workspace: the same rule (the executor could rename over the name)
rm -f "$MARK"
out=$(cd "$WS" && timeout 60 "$SBXSUP" run --result 3 -- sh -c "touch $MARK" 3>"$WS/r3.json" 2>&1); rc=$?
if [ $rc -eq 125 ] && [ ! -e "$MARK" ] && [ "$(rec "$WS/r3.json" 'r["reason"]["code"]')" = result_destination ]; then
	t_pass "${P}result_fd_on_workspace_file_refused"
else t_fail "${P}result_fd_on_workspace_file_refused" "rc=$rc out=$out rec=$(cat "$WS/r3.json" 2>&1)"; fi

# 3. a FIFO planted at the path: refused at once, never waited on (bounded by timeout: a hang is 124)
mkfifo "$OUT/fifo"
rm -f "$MARK"
t0=$(date +%s%N)
out=$(cd "$WS" && timeout 20 "$SBXSUP" run --result "$OUT/fifo" -- sh -c "touch $MARK" 2>&1); rc=$?
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
if [ $rc -eq 125 ] && [ ! -e "$MARK" ] && [ -p "$OUT/fifo" ] && grep -q 'not a regular file' <<<"$out" && [ $ms -lt 10000 ]; then
	t_pass "${P}result_fifo_refused_no_wait"
else t_fail "${P}result_fifo_refused_no_wait" "rc=$rc ${ms}ms out=$out"; fi

# 4. a symlink at the path is never followed: its target stays untouched
echo "target-original" > "$OUT/target"
ln -s "$OUT/target" "$OUT/link"
out=$(cd "$WS" && timeout 60 "$SBXSUP" run --result "$OUT/link" -- true 2>&1); rc=$?
if [ $rc -eq 125 ] && [ "$(cat "$OUT/target")" = target-original ] && grep -q 'symbolic link' <<<"$out"; then
	t_pass "${P}result_symlink_not_followed"
else t_fail "${P}result_symlink_not_followed" "rc=$rc out=$out target=$(cat "$OUT/target")"; fi

# 5. outside every grant: written once at the end, 0600, the run's own record; a pipe works too
echo stale > "$OUT/r.json"; chmod 600 "$OUT/r.json"
out=$(cd "$WS" && timeout 60 "$SBXSUP" run --tag ok --result "$OUT/r.json" -- sh -c 'echo hello' 2>&1); rc=$?
piped=$(cd "$WS" && timeout 60 "$SBXSUP" run --tag piped --result 3 -- true 3>&1 >/dev/null 2>/dev/null)
if [ $rc -eq 0 ] && [ "$(rec "$OUT/r.json" 'r["tag"], r["status"], r["reason"]')" = "('ok', 'exited', None)" ] \
   && [ "$(wc -l <"$OUT/r.json")" = 1 ] && [ "$(stat -c %a "$OUT/r.json")" = 600 ] && grep -q '"tag":"piped"' <<<"$piped"; then
	t_pass "${P}result_outside_and_pipe_work"
else t_fail "${P}result_outside_and_pipe_work" "rc=$rc out=$out rec=$(cat "$OUT/r.json") piped=$piped"; fi

# As an unprivileged user: the same checks (this script again, as a throwaway user).
if [ "$(id -u)" = 0 ] && [ -z "${SBX_RD_PREFIX:-}" ]; then
	U=sbxu_resdest
	if command -v useradd >/dev/null && useradd -m "$U" 2>/dev/null; then
		t_on_exit "userdel -r $U 2>/dev/null"
		out=$(cd / && runuser -u "$U" -- env SBX_RD_PREFIX=unpriv_ SBXSUP="$SBXSUP" SBX_ROOT="$SBX_ROOT" \
			SBX_PROGS="$SBX_PROGS" HOME="/home/$U" PATH="$PATH" bash "$SELF" 2>&1)
		grep -E '^(PASS|FAIL|SKIP):' <<<"$out" || t_fail unpriv_result_dest "no result: $out"
	else t_skip unpriv_result_dest "cannot create user $U"; fi
fi
