#!/usr/bin/env bash
# serve.sh — `sbxsup serve` and `sbxsup run --server`: the socket (0600, owner-only directory, an
# existing non-socket refused, a stale socket replaced, a live one refused), honest and hostile
# executors through the server (verdicts, audit events, host evidence, `audit verify`), isolation
# between consecutive calls (files in /tmp and HOME, environment, no server descriptor in the
# executor), a malformed request refused without killing the server, a peer of another uid refused
# (as root: an unprivileged client against a root server and the reverse), a client that goes away
# ends its run, SIGTERM stops the server with no run, process or cgroup left behind.
. "$(dirname "$0")/../lib.sh"

WS=$T_TMP/ws; mkdir -p "$WS"
SD=$T_TMP/sock; mkdir -m 700 "$SD"
A=$T_TMP/audit
FH=$T_TMP/home; mkdir -p "$FH/.ssh"; echo "FAKE-SERVE-KEY-$$" > "$FH/.ssh/id_rsa"; chmod 600 "$FH/.ssh/id_rsa"
HOSTF=$T_TMP/host-file; echo "host-original-$$" > "$HOSTF"; chmod 644 "$HOSTF"

SPID=
# start_server SOCK LOG [RUN OPTIONS...]: sbxsup serve in the background (SPID), waits for the socket.
start_server() {
	local sock=$1 log=$2; shift 2
	TEST_SERVER_MARK=server-env-$$ "$SBXSUP" serve --socket "$sock" "$@" >"$log" 2>&1 &
	SPID=$!
	local i; for i in $(seq 1 200); do grep -q 'listening on' "$log" 2>/dev/null && return 0; kill -0 $SPID 2>/dev/null || return 1; sleep 0.05; done
	return 1
}
stop_server() { # PID: SIGTERM, wait; returns the server's exit status
	kill -TERM "$1" 2>/dev/null; local rc=0; wait "$1" 2>/dev/null || rc=$?; return $rc
}
t_on_exit '[ -n "$SPID" ] && kill -TERM $SPID 2>/dev/null; true'

S=$SD/s
if ! start_server "$S" "$T_TMP/server.log" -a "$A"; then
	t_fail serve_start "the server did not start: $(cat "$T_TMP/server.log")"
	exit 0
fi

# 1. the socket is 0600 and ours
if [ "$(stat -c '%a %u %F' "$S")" = "600 $(id -u) socket" ]; then t_pass serve_socket_0600
else t_fail serve_socket_0600 "$(stat -c '%a %u %F' "$S")"; fi

# 2. a directory others can write is refused; an existing non-socket is refused and left alone;
#    a second server on a live socket is refused
mkdir -m 777 "$T_TMP/open"; chmod 777 "$T_TMP/open"
out=$("$SBXSUP" serve --socket "$T_TMP/open/s" 2>&1); rc=$?
if [ $rc -eq 125 ] && grep -q 'writable by others' <<<"$out" && [ ! -e "$T_TMP/open/s" ]; then t_pass serve_refuses_open_dir
else t_fail serve_refuses_open_dir "rc=$rc out=$out"; fi
echo "not a socket" > "$SD/file"
out=$("$SBXSUP" serve --socket "$SD/file" 2>&1); rc=$?
if [ $rc -eq 125 ] && grep -q 'not a socket' <<<"$out" && [ "$(cat "$SD/file")" = "not a socket" ]; then t_pass serve_refuses_non_socket
else t_fail serve_refuses_non_socket "rc=$rc out=$out"; fi
out=$("$SBXSUP" serve --socket "$S" 2>&1); rc=$?
if [ $rc -eq 125 ] && grep -q 'already listening' <<<"$out" && [ -S "$S" ]; then t_pass serve_refuses_live_socket
else t_fail serve_refuses_live_socket "rc=$rc out=$out"; fi
python3 -c 'import socket,sys; s=socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET); s.bind(sys.argv[1]); s.close()' "$SD/stale"
if start_server "$SD/stale" "$T_TMP/stale.log"; then
	p=$SPID; (cd "$WS" && "$SBXSUP" run --server "$SD/stale" -- true); rc=$?
	stop_server $p
	SPID=$(pgrep -f "serve --socket $S" | head -1)
	if [ $rc -eq 0 ] && [ ! -e "$SD/stale" ]; then t_pass serve_replaces_stale_socket
	else t_fail serve_replaces_stale_socket "rc=$rc"; fi
else t_fail serve_replaces_stale_socket "$(cat "$T_TMP/stale.log")"; fi
SPID=$(pgrep -f "serve --socket $S" | head -1)

# 3. an honest executor: stdio, exit status, result record, audit run, verify
out=$(cd "$WS" && echo payload | "$SBXSUP" run --server "$S" --tag honest --result "$T_TMP/rec.1" -- \
	sh -c 'cat; echo to-stderr >&2; echo made > out.txt; exit 3' 2>"$T_TMP/err.1"); rc=$?
rec() { python3 -c 'import json,sys; r=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$@"; }
if [ $rc -eq 3 ] && [ "$out" = payload ] && grep -q to-stderr "$T_TMP/err.1" && [ "$(cat "$WS/out.txt")" = made ] \
   && [ "$(rec "$T_TMP/rec.1" 'r["verdict"], r["exit"], r["tag"], r["status"]')" = "('clean', 3, 'honest', 'exited')" ] \
   && id1=$(rec "$T_TMP/rec.1" 'r["run"]') && audit_has "$A" run.start run="$id1" tag=honest \
   && audit_has "$A" run.end run="$id1" exit=3; then t_pass serve_honest
else t_fail serve_honest "rc=$rc out=$out rec=$(cat "$T_TMP/rec.1" 2>&1)"; fi

# 4. a hostile executor: the key and a host file outside the workspace stay untouched; contained
out=$(cd "$WS" && HOME=$FH "$SBXSUP" run --server "$S" --result "$T_TMP/rec.2" -- \
	sh -c "cat '$FH/.ssh/id_rsa'; echo pwned > '$HOSTF'; chmod 777 '$HOSTF'" 2>&1); rc=$?
id2=$(rec "$T_TMP/rec.2" 'r["run"]' 2>/dev/null)
if ! grep -q FAKE-SERVE-KEY <<<"$out" && [ "$(cat "$HOSTF")" = "host-original-$$" ] \
   && [ "$(stat -c %a "$HOSTF")" = 644 ] && [ "$(rec "$T_TMP/rec.2" 'r["verdict"]')" = contained ] \
   && audit_has "$A" preload.deny run="$id2" path~.ssh/id_rsa; then t_pass serve_hostile_contained
else t_fail serve_hostile_contained "rc=$rc out=$out rec=$(cat "$T_TMP/rec.2" 2>&1)"; fi

# 5. isolation between two calls: /tmp, HOME, environment; the server's own environment is never seen
cat > "$T_TMP/pass.json" <<'J'
{"sbxsup": 1, "name": "envpass", "capabilities": ["code:exec"], "env": {"pass": ["TEST_CALL1_MARK", "TEST_SERVER_MARK"]}}
J
(cd "$WS" && TEST_CALL1_MARK=call1-$$ "$SBXSUP" run --server "$S" -m "$T_TMP/pass.json" -- \
	sh -c 'echo one > /tmp/call1-marker; echo one > "$HOME/call1-marker"; env' >"$T_TMP/env.1" 2>&1)
out=$(cd "$WS" && "$SBXSUP" run --server "$S" -m "$T_TMP/pass.json" -- \
	sh -c 'ls /tmp/call1-marker "$HOME/call1-marker" 2>&1; env' 2>&1)
why=
grep -q "call1-$$" "$T_TMP/env.1" || why="$why call 1 did not see its own environment;"
grep -q "call1-$$" <<<"$out" && why="$why call 2 sees call 1's environment;"
grep -q "server-env-$$" <<<"$out$(cat "$T_TMP/env.1")" && why="$why a call sees the server's environment;"
grep -q "^one" <<<"$out" && why="$why call 2 reads call 1's file;"
[ "$(grep -c 'No such file' <<<"$out")" = 2 ] || why="$why call 2 output: $out;"
[ -e /tmp/call1-marker ] && why="$why the host /tmp got the marker;"
if [ -z "$why" ]; then t_pass serve_isolation_tmp_home_env; else t_fail serve_isolation_tmp_home_env "$why"; fi

# 6. no descriptor of the server reaches the executor: the executor's fds vs the server's (/proc)
SPID=$(pgrep -f "serve --socket $S" | head -1)
srv_fds=$(for f in /proc/$SPID/fd/*; do readlink "$f"; done 2>/dev/null | grep -v -e '^/dev/null$' -e '^/dev/pts' | sort -u)
exe_fds=$(cd "$WS" && "$SBXSUP" run --server "$S" --layers auto,-preload -- \
	sh -c 'for f in /proc/$$/fd/*; do readlink "$f"; done' </dev/null 2>/dev/null | sort -u)
nexe=$(wc -l <<<"$exe_fds")
common=$(comm -12 <(echo "$srv_fds") <(echo "$exe_fds"))
if [ -n "$srv_fds" ] && [ -z "$common" ] && [ "$nexe" -ge 3 ] && [ "$nexe" -le 4 ]; then t_pass serve_no_server_fd_in_executor
else t_fail serve_no_server_fd_in_executor "shared: $common; executor: $(tr '\n' ' ' <<<"$exe_fds")"; fi

# 7. malformed requests are refused with a reply, and the server keeps serving
mal=$(python3 - "$S" <<'PY'
import os, socket, struct, sys
out = []
def call(payload, fds=()):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET); s.connect(sys.argv[1])
    s.sendmsg([payload], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, struct.pack("%di" % len(fds), *fds))] if fds else [])
    r = s.recv(65536); s.close()
    return struct.unpack("<4sIiI", r[:16])[2], r[16:].decode()
cwd = os.open(".", os.O_PATH | os.O_DIRECTORY)
for p, fds in ((b"garbage", ()),
               (b"SBXQ" + struct.pack("<IIIII", 1, 0, 2, 0, 1) + struct.pack("<i", -1) + b"run\0", (cwd,)),   # argc 2, one string
               (b"SBXQ" + struct.pack("<IIIII", 9, 0, 2, 0, 1) + struct.pack("<i", -1) + b"run\0--\0", (cwd,)),  # version 9
               (b"SBXQ" + struct.pack("<IIIII", 1, 0, 2, 0, 2) + struct.pack("<ii", -1, 0) + b"run\0true\0", (cwd,))):  # 2 named, 1 sent
    code, rec = call(p, fds)
    out.append("%d %s" % (code, "server_refused" in rec))
print(" ".join(out))
PY
)
(cd "$WS" && "$SBXSUP" run --server "$S" -- true); rc=$?
if [ "$mal" = "125 True 125 True 125 True 125 True" ] && [ $rc -eq 0 ] && kill -0 "$SPID"; then t_pass serve_malformed_refused_server_lives
else t_fail serve_malformed_refused_server_lives "replies: $mal; next call rc=$rc"; fi

# 8. a client that goes away ends its run
tag=$RANDOM$$
(cd "$WS" && exec "$SBXSUP" run --server "$S" -- sh -c "exec sleep 9$tag") & cpid=$!
for i in $(seq 1 100); do pgrep -f "^sleep 9$tag" >/dev/null && break; sleep 0.05; done
kill -KILL $cpid; wait $cpid 2>/dev/null
gone=; for i in $(seq 1 100); do pgrep -f "^sleep 9$tag" >/dev/null || { gone=1; break; }; sleep 0.05; done
if [ -n "$gone" ]; then t_pass serve_client_gone_ends_run
else t_fail serve_client_gone_ends_run "the executor outlived its client"; pkill -KILL -f "^sleep 9$tag"; fi

# 9. a server that cannot be reached: exit 125 and a result record saying so
out=$(cd "$WS" && "$SBXSUP" run --server "$SD/none" --result "$T_TMP/rec.9" -- true 2>&1); rc=$?
if [ $rc -eq 125 ] && [ "$(rec "$T_TMP/rec.9" 'r["reason"]["code"]')" = server_unavailable ]; then t_pass serve_unavailable_reason
else t_fail serve_unavailable_reason "rc=$rc out=$out"; fi

# 10. another uid is refused, both ways (as root: root server vs a nobody client, nobody server vs root)
if need_root serve_peer_other_uid && need_cmd serve_peer_other_uid setpriv; then
	why=
	# the socket's mode already stops nobody; open it up to reach the peer-credential check too
	out=$(cd / && setpriv --reuid=65534 --regid=65534 --clear-groups "$SBXSUP" run --server "$S" -- true 2>&1) && why="$why nobody's call ran (0600);"
	chmod 711 "$SD"; chmod 666 "$S"
	out=$(cd / && setpriv --reuid=65534 --regid=65534 --clear-groups "$SBXSUP" run --server "$S" --result 1 -- true 2>&1); rc=$?
	chmod 600 "$S"; chmod 700 "$SD"
	{ [ $rc -eq 125 ] && grep -q 'server_refused' <<<"$out" && grep -q 'peer uid 65534' "$T_TMP/server.log"; } || why="$why root server: rc=$rc out=$out;"
	ND=$T_TMP/nobody; mkdir -m 700 "$ND"; chown 65534:65534 "$ND"
	setpriv --reuid=65534 --regid=65534 --clear-groups "$SBXSUP" serve --socket "$ND/s" >"$T_TMP/nobody.log" 2>&1 & np=$!
	for i in $(seq 1 100); do [ -S "$ND/s" ] && break; sleep 0.05; done
	out=$(cd "$WS" && "$SBXSUP" run --server "$ND/s" --result 1 -- sh -c 'echo ran-as-root' 2>&1); rc=$?
	kill -TERM $np; wait $np
	{ [ $rc -eq 125 ] && ! grep -q ran-as-root <<<"$out" && grep -q 'peer uid 0 is not' "$T_TMP/nobody.log"; } || why="$why nobody server: rc=$rc out=$out log=$(cat "$T_TMP/nobody.log");"
	if [ -z "$why" ]; then t_pass serve_peer_other_uid; else t_fail serve_peer_other_uid "$why"; fi
fi

# 11. SIGTERM: a live run ends (run.end written, nothing left), the socket goes, exit 0
tag=$RANDOM$$
(cd "$WS" && exec "$SBXSUP" run --server "$S" --tag sigterm -- sh -c "exec sleep 8$tag") >/dev/null 2>&1 & cpid=$!
for i in $(seq 1 100); do pgrep -f "^sleep 8$tag" >/dev/null && break; sleep 0.05; done
live=$(pgrep -f "^sleep 8$tag" | wc -l)
run_id=$(python3 -c 'import json,sys
for l in open(sys.argv[1]):
    o = json.loads(l)
    if o.get("event") == "run.start" and o.get("tag") == "sigterm": print(o["run"])' "$A" | tail -1)
stop_server "$SPID"; src=$?; SPID=
wait $cpid; crc=$?
why=
[ "$live" -ge 1 ] || why="$why the run never started;"
[ $src -eq 0 ] || why="$why server exit $src;"
[ -e "$S" ] && why="$why the socket is still there;"
pgrep -f "^sleep 8$tag" >/dev/null && why="$why the executor survived;"
[ $crc -eq 143 ] || why="$why client exit $crc (want 143, as SIGTERM ends a direct run);"
[ -n "$run_id" ] && audit_has "$A" run.end run="$run_id" || why="$why no run.end for the run;"
[ -n "$run_id" ] && find /sys/fs/cgroup -maxdepth 5 -type d -name "sbxsup-$run_id*" 2>/dev/null | grep -q . && why="$why its cgroup is left;"
pgrep -f "sbxsup serve --socket $S" >/dev/null && why="$why a server process is left;"
"$SBXSUP" audit verify "$A" >/dev/null 2>&1 || why="$why audit verify: $("$SBXSUP" audit verify "$A" 2>&1 | tail -2);"
if [ -z "$why" ]; then t_pass serve_sigterm_clean_stop; else t_fail serve_sigterm_clean_stop "$why"; fi

# 12. pre-created sandboxes (docs/notes/serve.md "What is warm"): after a call the server prepares the
#     next run for the same command, options, directory and environment. A matching call runs in it:
#     evidence that it did is the executor's own start time (the stage was forked, then exec'd the
#     command, before the call was made). Isolation is that of a cold call: /tmp, HOME, descriptors,
#     environment, its own run id with run.start ... run.end (audit verify); a non-matching call runs
#     cold; the parked sandbox leaves no audit line, process, cgroup or directory when the server ends.
A2=$T_TMP/audit.warm
S2=$SD/w
# descendants PID: every process below PID
descendants() { local p c; for p in $(pgrep -P "$1"); do echo "$p"; descendants "$p"; done; }
# parked PID: a stage waits below the server PID (its exec'd command not yet there)
parked() { local i p; for i in $(seq 1 200); do for p in $(descendants "$1"); do
	tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null | grep -q '^[^ ]*sbxsup __stage' && return 0; done; sleep 0.05; done; return 1; }
up_s() { awk '{print $1}' /proc/uptime; }
CLK=$(getconf CLK_TCK)
if start_server "$S2" "$T_TMP/warm.log" -a "$A2" -w "$WS" -m "$T_TMP/pass.json"; then
	WPID=$SPID
	W1=$(cd "$WS" && TEST_CALL1_MARK=warm-$$ "$SBXSUP" run --server "$S2" --tag w1 --result "$T_TMP/wrec.1" -- \
		sh -c 'echo one > /tmp/warm-marker; echo one > "$HOME/warm-marker"; exec 7>/tmp/fd7; echo ok' 2>&1)
	parked "$WPID"; sleep 0.3
	T_CALL=$(up_s)
	W2=$(cd "$WS" && echo payload | TEST_CALL1_MARK=warm-$$ "$SBXSUP" run --server "$S2" --tag w2 --result "$T_TMP/wrec.2" -- \
		sh -c 'cat; ls /tmp/warm-marker "$HOME/warm-marker" 2>&1; echo START $(cut -d" " -f22 /proc/$$/stat);
		       for f in /proc/$$/fd/*; do echo FD $(readlink "$f"); done; env | grep -c MARK; echo err >&2; exit 4' 2>"$T_TMP/werr.2"); rc2=$?
	why=
	[ "$(rec "$T_TMP/wrec.1" 'r["exit"]')" = 0 ] && grep -q '^ok' <<<"$W1" || why="$why call 1: $W1;"
	[ $rc2 -eq 4 ] || why="$why call 2 exit $rc2;"
	grep -q '^payload$' <<<"$W2" || why="$why call 2 did not get its stdin;"
	grep -q '^err$' "$T_TMP/werr.2" || why="$why call 2's stderr did not reach its client;"
	[ "$(grep -c 'No such file' <<<"$W2")" = 2 ] || why="$why call 2 sees call 1's /tmp or HOME: $W2;"
	start=$(sed -n 's/^START //p' <<<"$W2")
	python3 -c 'import sys; s=int(sys.argv[1])/int(sys.argv[2]); sys.exit(0 if s < float(sys.argv[3]) - 0.2 else 1)' \
		"${start:-0}" "$CLK" "$T_CALL" 2>/dev/null || why="$why call 2 did not run in a pre-created sandbox (started ${start:-?} ticks, call at $T_CALL s);"
	# its stdio, and the shell's own pipe of $(readlink) at the number the glob's directory had
	fds=$(grep '^FD ' <<<"$W2" | grep -v '/proc/' | wc -l)
	[ "$fds" -ge 3 ] && [ "$fds" -le 4 ] || why="$why call 2 has descriptors beyond its stdio: $(grep '^FD ' <<<"$W2" | tr '\n' ' ');"
	grep '^FD ' <<<"$W2" | grep -q -e fd7 -e socket: -e audit -e memfd -e 'FD /$' && why="$why a descriptor of call 1 or of the server reached call 2: $(grep '^FD ' <<<"$W2" | tr '\n' ' ');"
	# TEST_CALL1_MARK is passed by the manifest (the call's own); TEST_SERVER_MARK (the server's) never
	[ "$(grep -x '[0-9]*' <<<"$W2" | tail -1)" = 1 ] || why="$why call 2's environment: $(grep -x '[0-9]*' <<<"$W2");"
	id1=$(rec "$T_TMP/wrec.1" 'r["run"]' 2>/dev/null); id2=$(rec "$T_TMP/wrec.2" 'r["run"]' 2>/dev/null)
	[ -n "$id1" ] && [ -n "$id2" ] && [ "$id1" != "$id2" ] || why="$why run ids '$id1' '$id2';"
	audit_has "$A2" run.start run="$id2" tag=w2 && audit_has "$A2" run.end run="$id2" exit=4 || why="$why no run.start/run.end of call 2 (tag w2, exit 4);"
	[ "$(rec "$T_TMP/wrec.2" 'r["tag"], r["exit"]')" = "('w2', 4)" ] || why="$why record 2: $(cat "$T_TMP/wrec.2");"
	if [ -z "$why" ]; then t_pass serve_warm_call_isolated; else t_fail serve_warm_call_isolated "$why"; fi

	# a call that does not match (another environment) runs cold, correctly; the next matching one is warm again
	parked "$WPID"
	W3=$(cd "$WS" && TEST_CALL1_MARK=other-$$ "$SBXSUP" run --server "$S2" --tag w3 --result "$T_TMP/wrec.3" -- \
		sh -c 'echo $TEST_CALL1_MARK; exit 5' 2>&1); rc3=$?
	parked "$WPID"; sleep 0.3; T_CALL=$(up_s)
	W4=$(cd "$WS" && TEST_CALL1_MARK=other-$$ "$SBXSUP" run --server "$S2" --tag w4 --result 1 -- sh -c 'echo START $(cut -d" " -f22 /proc/$$/stat)' 2>&1); rc4=$?
	start=$(sed -n 's/^START //p' <<<"$W4")
	why=
	[ $rc3 -eq 5 ] && grep -q "^other-$$" <<<"$W3" || why="$why cold call: rc=$rc3 out=$W3;"
	id3=$(rec "$T_TMP/wrec.3" 'r["run"]' 2>/dev/null)
	[ -n "$id3" ] && audit_has "$A2" run.start run="$id3" tag=w3 && audit_has "$A2" run.end run="$id3" exit=5 || why="$why no run.start/run.end of the cold call;"
	[ $rc4 -eq 0 ] && python3 -c 'import sys; s=int(sys.argv[1])/int(sys.argv[2]); sys.exit(0 if s < float(sys.argv[3]) - 0.2 else 1)' \
		"${start:-0}" "$CLK" "$T_CALL" 2>/dev/null || why="$why the call after it was not warm (rc=$rc4 out=$W4);"
	grep -q '"tag":"w4"' <<<"$W4" || why="$why the warm call's --result 1 record is not on its stdout: $W4;"
	if [ -z "$why" ]; then t_pass serve_warm_mismatch_runs_cold; else t_fail serve_warm_mismatch_runs_cold "$why"; fi

	# a burst of two calls: the first burst makes a second pre-creating child (SERVE_WARM_MAX), so
	# the next burst finds two parked sandboxes and both of its calls are warm
	bcall() { cd "$WS" && TEST_CALL1_MARK=other-$$ "$SBXSUP" run --server "$S2" --tag "$1" -- sh -c 'echo START $(cut -d" " -f22 /proc/$$/stat)' >"$T_TMP/burst.$1" 2>&1; }
	nparked() { local p n=0; for p in $(descendants "$1"); do
		tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null | grep -q '^[^ ]*sbxsup __stage' && n=$((n + 1)); done; echo $n; }
	parked "$WPID"
	bcall b1 & b1=$!; bcall b2 & b2=$!; wait $b1 $b2
	for i in $(seq 1 200); do [ "$(nparked "$WPID")" -ge 2 ] && break; sleep 0.05; done
	sleep 0.3; T_CALL=$(up_s)
	bcall b3 & b3=$!; bcall b4 & b4=$!; wait $b3 $b4
	why=
	# (a cold run's sh cannot read its own /proc/2/stat — as for a direct run — so only START is asked of b1/b2)
	for b in b1 b2; do grep -q '^START' "$T_TMP/burst.$b" || why="$why call $b failed: $(cat "$T_TMP/burst.$b");"; done
	for b in b3 b4; do start=$(sed -n 's/^START //p' "$T_TMP/burst.$b")
		python3 -c 'import sys; s=int(sys.argv[1])/int(sys.argv[2]); sys.exit(0 if s < float(sys.argv[3]) - 0.2 else 1)' \
			"${start:-0}" "$CLK" "$T_CALL" 2>/dev/null || why="$why call $b of the second burst was not warm;"; done
	if [ -z "$why" ]; then t_pass serve_warm_burst_two_parked; else t_fail serve_warm_burst_two_parked "$why"; fi

	# the server ends: the parked sandboxes go, unaudited; nothing is left
	parked "$WPID"
	procs=$(descendants "$WPID")
	cgs=$(for p in $procs; do cut -d: -f3 "/proc/$p/cgroup" 2>/dev/null; done | grep sbxsup- | sort -u)
	wch=$(pgrep -P "$WPID")
	stop_server "$WPID"; src=$?; SPID=
	why=
	[ $src -eq 0 ] || why="$why server exit $src;"
	for i in $(seq 1 40); do left=; for p in $procs; do kill -0 "$p" 2>/dev/null && left="$left $p"; done; [ -z "$left" ] && break; sleep 0.05; done
	for p in $left; do why="$why process $p ($(cut -d' ' -f2,3 /proc/$p/stat 2>/dev/null)) left;"; done
	# (an unprivileged run without a delegated cgroup has none)
	[ -n "$cgs" ] || [ "$(id -u)" != 0 ] || why="$why (no cgroup of the parked sandbox found to check among $(echo $procs));"
	for c in $cgs; do for root in /sys/fs/cgroup /sys/fs/cgroup/unified /sys/fs/cgroup/*; do
		[ -d "$root$c" ] && why="$why cgroup $root$c left;"; done; done
	for p in $wch; do ls -d /tmp/sbxsup-"$p"-* 2>/dev/null | grep -q . && why="$why directories of $p left: $(ls -d /tmp/sbxsup-"$p"-*);"; done
	n=$(audit_count "$A2" run.start 2>/dev/null || grep -c '"run.start"' "$A2")
	[ "$n" = 8 ] || why="$why $n run.start lines for 8 calls;"
	"$SBXSUP" audit verify "$A2" >/dev/null 2>&1 || why="$why audit verify: $("$SBXSUP" audit verify "$A2" 2>&1 | tail -2);"
	if [ -z "$why" ]; then t_pass serve_warm_clean_stop; else t_fail serve_warm_clean_stop "$why"; fi
else
	t_fail serve_warm_call_isolated "the server did not start: $(cat "$T_TMP/warm.log")"
fi
