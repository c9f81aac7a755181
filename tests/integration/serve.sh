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
#    (a server without the preload, whose descriptors would be counted: a call cannot remove it)
S6=$SD/s6; p6=$SPID
if start_server "$S6" "$T_TMP/s6.log" --layers auto,-preload; then
	srv_fds=$(for f in /proc/$SPID/fd/*; do readlink "$f"; done 2>/dev/null | grep -v -e '^/dev/null$' -e '^/dev/pts' | sort -u)
	exe_fds=$(cd "$WS" && "$SBXSUP" run --server "$S6" -- \
		sh -c 'for f in /proc/$$/fd/*; do readlink "$f"; done' </dev/null 2>/dev/null | sort -u)
	stop_server $SPID
	nexe=$(wc -l <<<"$exe_fds")
	common=$(comm -12 <(echo "$srv_fds") <(echo "$exe_fds"))
	if [ -n "$srv_fds" ] && [ -z "$common" ] && [ "$nexe" -ge 3 ] && [ "$nexe" -le 4 ]; then t_pass serve_no_server_fd_in_executor
	else t_fail serve_no_server_fd_in_executor "shared: $common; executor: $(tr '\n' ' ' <<<"$exe_fds")"; fi
else
	t_fail serve_no_server_fd_in_executor "the server did not start: $(cat "$T_TMP/s6.log")"
fi
SPID=$p6

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

# 10b. a run never reaches the server's power (issue: a root server whose socket lies in a run's
#      workspace ran `SBXSUP_SANDBOX=0 cat SECRET` for the executor, unsandboxed):
#  - a socket inside a grant of the server's own manifest is refused (125, nothing bound);
#  - a peer that is a process of a run is refused, whatever its uid (its cgroup; another user
#    namespace); evidence: the secret's bytes are not printed, the call's command never ran (its
#    marker is absent on the host), the server said why on stderr;
#  - a call never lowers the server's layers (SBXSUP_SANDBOX=0, --layers -X, --sensor off);
#  - a call's --result inside the workspace is refused as a direct run's is.
SECRET=$T_TMP/serve-secret; echo "SERVE-SECRET-$$" > "$SECRET"; chmod 600 "$SECRET"
HMD=$T_TMP/hostmark; mkdir -m 700 "$HMD"
out=$(cd "$WS" && timeout 10 "$SBXSUP" serve --socket "$WS/s" 2>&1); rc=$?
out2=$(cd "$T_TMP" && timeout 10 "$SBXSUP" serve -w "$WS" --socket "$WS/s2" 2>&1); rc2=$?
if [ $rc -eq 125 ] && [ $rc2 -eq 125 ] && [ ! -e "$WS/s" ] && [ ! -e "$WS/s2" ] && grep -q 'refused: a run could write' <<<"$out" \
   && [ "$(wc -l <<<"$out")" = 1 ] && grep -q 'refused: a run could write' <<<"$out2"; then t_pass serve_refuses_socket_in_grant
else t_fail serve_refuses_socket_in_grant "rc=$rc out=$out; rc2=$rc2 out2=$out2"; fi

RW=$T_TMP/runws; mkdir -p "$RW/sock"; chmod 700 "$RW/sock"; mkdir -p "$T_TMP/srvws"
SX=$RW/sock/s; sx=
if (cd "$T_TMP/srvws" && start_server "$SX" "$T_TMP/sx.log"); then sx=$(pgrep -f "serve --socket $SX" | head -1); fi
# the executor's client: sbxsup at its own path (bound there inside bwrap for nested runs; the
# binary at /run/sbxsup/sbxsup is the stage only)
ATTACK='X='"$SBXSUP"'; SBXSUP_SANDBOX=0 ASAN_OPTIONS=verify_asan_link_order=0:detect_leaks=0 "$X" run --server ./sock/s -w '"$RW"' -- sh -c "cat '"$SECRET"'; touch '"$HMD"'/ran.$M"'
for mode in full nobwrap preload; do
	case $mode in
	full) L=;;
	nobwrap) L="--layers preload,seccomp,landlock,netfilter,probes,limits";;
	preload) L="--layers preload,probes,limits";;
	esac
	if [ -z "$sx" ]; then t_fail "serve_refuses_run_peer_$mode" "the server did not start: $(cat "$T_TMP/sx.log")"; continue; fi
	before=$(grep -c 'refused a connection' "$T_TMP/sx.log")
	# shellcheck disable=SC2086
	out=$(cd "$RW" && M=$mode timeout 60 "$SBXSUP" run $L -m "$T_TMP/pass.json" -- sh -c "M=$mode; $ATTACK" 2>&1)
	after=$(grep -c 'refused a connection' "$T_TMP/sx.log")
	why=
	grep -q "SERVE-SECRET-$$" <<<"$out" && why="$why the secret was printed;"
	[ -e "$HMD/ran.$mode" ] && why="$why the server ran the call;"
	if [ $mode = full ]; then
		# the executor is never the server's uid (issue 26: not host root): refused by its uid,
		# else by its cgroup; the client is told either way
		# (as a normal user: by its user namespace or its pid namespace)
		grep -qE 'refused a connection: (pid [0-9]* is a process of a run \(cgroup [^ ]*sbxsup-|peer uid [1-9][0-9]* is not the server.s uid 0|pid [0-9]* is in another user namespace|the peer.s pid is not visible here)' "$T_TMP/sx.log" || why="$why no uid, cgroup or namespace refusal in the server's log;"
		grep -qE 'the server refused the call: (pid|peer uid|the peer)' <<<"$out" || why="$why the client was not told: $out;"
	fi
	# every mode: refused by the server (its log) or unable to reach it at all
	[ "$after" -gt "$before" ] || grep -q 'cannot connect\|Permission denied' <<<"$out" || why="$why neither refused nor unreachable: $out;"
	if [ -z "$why" ]; then t_pass "serve_refuses_run_peer_$mode"; else t_fail "serve_refuses_run_peer_$mode" "$why"; fi
done
kill -0 "$sx" 2>/dev/null && stop_server "$sx"

# a call that would lower the server's layers: refused, nothing run, the reason in its record
why=
for n in 1 2 3; do
	case $n in
	1) pre=SBXSUP_SANDBOX=0; opt=;;
	2) pre=; opt="--layers auto,-seccomp";;
	3) pre=; opt="--sensor off";;
	esac
	how="$pre$opt"
	# shellcheck disable=SC2086
	out=$(cd "$WS" && env $pre "$SBXSUP" run --server "$S" --result "$T_TMP/low.$n" $opt -- sh -c "touch $HMD/low.$n; cat $SECRET" 2>&1); rc=$?
	[ $rc -eq 125 ] || why="$why [$how] rc=$rc;"
	[ -e "$HMD/low.$n" ] && why="$why [$how] the call ran;"
	grep -q "SERVE-SECRET-$$" <<<"$out" && why="$why [$how] the secret was printed;"
	[ "$(rec "$T_TMP/low.$n" 'r["reason"]["code"]' 2>&1)" = server_refused ] || why="$why [$how] record: $(cat "$T_TMP/low.$n" 2>&1);"
	grep -q "never lowers the server's layers" <<<"$out" || why="$why [$how] no reason on stderr: $out;"
done
# a server started without the layers accepts what it was started with
SO=$SD/soff
if SBXSUP_SANDBOX=0 start_server "$SO" "$T_TMP/soff.log"; then
	po=$SPID
	(cd "$WS" && SBXSUP_SANDBOX=0 "$SBXSUP" run --server "$SO" -- sh -c "touch $HMD/off.ok") >/dev/null 2>&1 || why="$why the unsandboxed server refused an unsandboxed call;"
	[ -e "$HMD/off.ok" ] || why="$why the unsandboxed server did not run the call;"
	stop_server $po
else why="$why the unsandboxed server did not start;"; fi
SPID=$(pgrep -f "serve --socket $S" | head -1)
if [ -z "$why" ]; then t_pass serve_call_never_lowers_layers; else t_fail serve_call_never_lowers_layers "$why"; fi

# a call's --result inside the workspace: refused (twice: such a call never takes a pre-created sandbox)
why=
for n in 1 2; do
	rm -f "$WS/r.json"
	out=$(cd "$WS" && "$SBXSUP" run --server "$S" --result r.json -- sh -c "touch $WS/served-ran.$n" 2>&1); rc=$?
	[ $rc -eq 125 ] || why="$why call $n rc=$rc;"
	[ -e "$WS/served-ran.$n" ] && why="$why call $n ran;"
	[ "$(rec "$WS/r.json" 'r["reason"]["code"]' 2>&1)" = result_destination ] || why="$why call $n record: $(cat "$WS/r.json" 2>&1);"
done
if [ -z "$why" ]; then t_pass serve_result_in_workspace_refused; else t_fail serve_result_in_workspace_refused "$why"; fi

# as an unprivileged user: its own server, its socket in its run's workspace, the executor calls it
if [ "$(id -u)" = 0 ] && command -v useradd >/dev/null; then
	U=sbxu_serve
	if useradd -m "$U" 2>/dev/null; then
		t_on_exit "userdel -r $U 2>/dev/null"
		out=$(cd / && runuser -u "$U" -- env SBXSUP="$SBXSUP" PATH="$PATH" HOME="/home/$U" bash -c '
			cd && mkdir -p ws srv && mkdir -m 700 ws/sock hm && echo "USER-SECRET-$$" > sec && chmod 600 sec
			(cd srv && exec "$SBXSUP" serve --socket "$HOME/ws/sock/s" > ../serve.log 2>&1) & sp=$!
			for i in $(seq 1 100); do [ -S ws/sock/s ] && break; sleep 0.05; done
			cd ws && timeout 60 "$SBXSUP" run -- sh -c "SBXSUP_SANDBOX=0 ASAN_OPTIONS=verify_asan_link_order=0:detect_leaks=0 $SBXSUP run --server ./sock/s -w $HOME/ws -- sh -c \"cat $HOME/sec; touch $HOME/hm/ran\"" 2>&1
			SBXSUP_SANDBOX=0 "$SBXSUP" run --server ./sock/s -- sh -c "touch $HOME/hm/lowered" >/dev/null 2>&1; echo "LOWER-RC: $?"
			timeout 10 "$SBXSUP" serve --socket "$HOME/ws/s2" >/dev/null 2>&1; echo "SOCK-RC: $? $([ -e s2 ] && echo bound)"
			kill -TERM $sp; wait $sp
			echo "LOG: $(cat ../serve.log)"; [ -e "$HOME/hm/ran" ] && echo CALL-RAN; [ -e "$HOME/hm/lowered" ] && echo LOWERED-RAN
			echo "SECRET-IS: USER-SECRET-$$"' 2>&1)
		sec=$(sed -n 's/^SECRET-IS: //p' <<<"$out")
		why=
		[ -n "$sec" ] && [ "$(grep -c "$sec" <<<"$out")" = 1 ] || why="$why the secret was printed;"
		grep -q CALL-RAN <<<"$out" && why="$why the server ran the call;"
		grep -q 'refused a connection: \(pid [0-9]* is \(in another user namespace\|a process of a run\)\|the peer.s pid is not visible here\)' <<<"$out" || why="$why no refusal in the server's log;"
		if [ -z "$why" ]; then t_pass unpriv_serve_refuses_run_peer; else t_fail unpriv_serve_refuses_run_peer "$why out=$out"; fi
		if grep -q '^LOWER-RC: 125$' <<<"$out" && ! grep -q LOWERED-RAN <<<"$out"; then t_pass unpriv_serve_call_never_lowers_layers
		else t_fail unpriv_serve_call_never_lowers_layers "$out"; fi
		if grep -q '^SOCK-RC: 125 $' <<<"$out"; then t_pass unpriv_serve_refuses_socket_in_grant
		else t_fail unpriv_serve_refuses_socket_in_grant "$out"; fi
		userdel -r "$U" 2>/dev/null
	else t_skip unpriv_serve_refuses_run_peer "cannot create user $U"; fi
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

# 12. pre-created sandboxes (docs/serve.md "What is warm"): after a call the server prepares the
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
	W1=$(cd "$WS" && TEST_CALL1_MARK=warm-$$ "$SBXSUP" run --server "$S2" --tag w1 -- \
		sh -c 'echo one > /tmp/warm-marker; echo one > "$HOME/warm-marker"; exec 7>/tmp/fd7; echo ok' 2>&1)
	parked "$WPID"; sleep 0.3
	T_CALL=$(up_s)
	# (no --result in either call: a call with one is checked against the policy first, runs cold
	# and parks nothing after it, serve_warm.c; the start time below is the shell's own, read from
	# /proc/<its pid>/stat by its child cut — the run's pid namespace lists its processes,
	# builtin:proc-pidns — so it must precede the call)
	W2=$(cd "$WS" && echo payload | TEST_CALL1_MARK=warm-$$ "$SBXSUP" run --server "$S2" --tag w2 -- \
		sh -c 'cat; ls /tmp/warm-marker "$HOME/warm-marker" 2>&1; echo START $(cut -d" " -f22 /proc/$$/stat);
		       for f in /proc/$$/fd/*; do echo FD $(readlink "$f"); done; env | grep -c MARK; echo err >&2; exit 4' 2>"$T_TMP/werr.2"); rc2=$?
	why=
	grep -q '^ok' <<<"$W1" || why="$why call 1: $W1;"
	[ $rc2 -eq 4 ] || why="$why call 2 exit $rc2;"
	grep -q '^payload$' <<<"$W2" || why="$why call 2 did not get its stdin;"
	grep -q '^err$' "$T_TMP/werr.2" || why="$why call 2's stderr did not reach its client;"
	[ "$(grep -c 'No such file' <<<"$W2")" = 2 ] || why="$why call 2 sees call 1's /tmp or HOME: $W2;"
	start=$(sed -n 's/^START //p' <<<"$W2")
	[ -n "$start" ] || why="$why call 2's start time unreadable: $W2;"
	python3 -c 'import sys; s=int(sys.argv[1])/int(sys.argv[2]); sys.exit(0 if s < float(sys.argv[3]) - 0.2 else 1)' \
		"${start:-0}" "$CLK" "$T_CALL" 2>/dev/null || why="$why call 2 did not run in a pre-created sandbox (started ${start:-?} ticks, call at $T_CALL s);"
	# its stdio, and the shell's own pipe of $(readlink) at the number the glob's directory had
	fds=$(grep '^FD ' <<<"$W2" | grep -v '/proc/' | wc -l)
	[ "$fds" -ge 3 ] && [ "$fds" -le 4 ] || why="$why call 2 has descriptors beyond its stdio: $(grep '^FD ' <<<"$W2" | tr '\n' ' ');"
	grep '^FD ' <<<"$W2" | grep -q -e fd7 -e socket: -e audit -e memfd -e 'FD /$' && why="$why a descriptor of call 1 or of the server reached call 2: $(grep '^FD ' <<<"$W2" | tr '\n' ' ');"
	# TEST_CALL1_MARK is passed by the manifest (the call's own); TEST_SERVER_MARK (the server's) never
	[ "$(grep -x '[0-9]*' <<<"$W2" | tail -1)" = 1 ] || why="$why call 2's environment: $(grep -x '[0-9]*' <<<"$W2");"
	run_of() { python3 -c 'import json,sys
for l in open(sys.argv[1]):
    o = json.loads(l)
    if o.get("event") == "run.start" and o.get("tag") == sys.argv[2]: print(o["run"])' "$A2" "$1" 2>/dev/null | tail -1; }
	id1=$(run_of w1); id2=$(run_of w2)
	audit_has "$A2" run.end run="$id1" exit=0 || why="$why call 1 did not end with 0;"
	[ -n "$id1" ] && [ -n "$id2" ] && [ "$id1" != "$id2" ] || why="$why run ids '$id1' '$id2';"
	audit_has "$A2" run.start run="$id2" tag=w2 && audit_has "$A2" run.end run="$id2" exit=4 || why="$why no run.start/run.end of call 2 (tag w2, exit 4);"
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

# 13. --warm N: after one call the server fills up to N parked sandboxes (its child gives a copy of
# its template to new pre-creating children), so a burst of N back-to-back calls is served by them:
# evidence is each call's run.start, which says warm:true only for a call released into a sandbox
# prepared before it. Then a burst of N concurrent calls, and N back-to-back again: never more than N
# parked (nothing cold is started, the server keeps N)
S3=$SD/s3; A3=$T_TMP/audit.warmn
# stages waiting among the server's descendants (argv[1] `__stage`, inside the parked bwrap)
parked() {
	local p n=0 kids=("$1") all=() k
	while [ ${#kids[@]} -gt 0 ]; do
		k=${kids[0]}; kids=("${kids[@]:1}"); all+=("$k")
		for p in $(cat /proc/"$k"/task/*/children 2>/dev/null); do kids+=("$p"); done
	done
	for p in "${all[@]}"; do [ "$(tr '\0' '\n' 2>/dev/null </proc/"$p"/cmdline | sed -n 2p)" = __stage ] && n=$((n + 1)); done
	echo $n
}
if start_server "$S3" "$T_TMP/warmn.log" --warm 3 -a "$A3" -w "$WS" -m "$T_TMP/pass.json"; then
	sp3=$SPID why=
	(cd "$WS" && timeout 60 "$SBXSUP" run --server "$S3" --tag first -- true >/dev/null 2>&1) || why="$why the first call failed;"
	n=0; for i in $(seq 1 150); do n=$(parked "$sp3"); [ "$n" -ge 3 ] && break; sleep 0.1; done
	[ "$n" = 3 ] || why="$why $n sandboxes parked after one call with --warm 3 (want 3);"
	for i in 1 2 3; do (cd "$WS" && timeout 60 "$SBXSUP" run --server "$S3" --tag burst$i -- true >/dev/null 2>&1) || why="$why burst call $i failed;"; done
	audit_has "$A3" run.start tag=first warm? && why="$why the first call (cold) says warm;"
	for i in 1 2 3; do audit_has "$A3" run.start tag=burst$i warm=true || why="$why burst call $i was not served by a parked sandbox (its run.start has no warm:true);"; done
	if [ -z "$why" ]; then t_pass serve_warm_burst_n_warm; else t_fail serve_warm_burst_n_warm "$why"; fi
	why=
	n=0; for i in $(seq 1 150); do n=$(parked "$sp3"); [ "$n" -ge 3 ] && break; sleep 0.1; done
	ps3=(); for i in 1 2 3; do (cd "$WS" && timeout 60 "$SBXSUP" run --server "$S3" -- true >/dev/null 2>&1) & ps3+=($!); done
	for p in "${ps3[@]}"; do wait "$p" || why="$why a warm-up call failed;"; done
	n=0; for i in $(seq 1 100); do n=$(parked "$sp3"); [ "$n" -ge 3 ] && break; sleep 0.1; done
	[ "$n" = 3 ] || why="$why $n sandboxes parked after 3 concurrent calls with --warm 3 (want 3);"
	for i in 1 2 3; do (cd "$WS" && timeout 60 "$SBXSUP" run --server "$S3" -- true >/dev/null 2>&1) || why="$why burst call $i failed;"; done
	m=0; for i in $(seq 1 100); do m=$(parked "$sp3"); [ "$m" -ge 3 ] && break; sleep 0.1; done
	[ "$m" = 3 ] || why="$why $m parked after the burst (want 3 again: no more children than --warm);"
	out=$("$SBXSUP" serve --socket "$SD/bad" --warm 17 2>&1); [ $? = 125 ] && grep -q 'warm takes' <<<"$out" || why="$why --warm 17 accepted: $out;"
	stop_server "$sp3" || why="$why server exit $?;"
	SPID=
	n=$(audit_count "$A3" run.start 2>/dev/null)
	[ "$n" = 10 ] || why="$why $n run.start events for 10 calls;"
	if [ -z "$why" ]; then t_pass serve_warm_n_parked; else t_fail serve_warm_n_parked "$why"; fi
else
	t_fail serve_warm_burst_n_warm "the server did not start: $(cat "$T_TMP/warmn.log")"
	t_fail serve_warm_n_parked "the server did not start: $(cat "$T_TMP/warmn.log")"
fi
