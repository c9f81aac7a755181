#!/usr/bin/env bash
# preload_abstract.sh — abstract unix sockets (issue 17): where the run has a network namespace of
# its own (no network granted; bwrap, or no-bwrap with namespaces) an abstract name reaches only the
# run, so a server and client inside it work in every mode, with no report from any layer (preload,
# probes, seccomp). A host list runs in a namespace of its own too (out only through the gateway,
# docs/network.md): the same holds, and a host listener on an abstract name receives nothing. Where
# the run shares the host's namespace (an unrestricted network without a namespace of its own,
# preload-only) binding an abstract name, an autobind included, is refused and reported (it could
# squat a host service's name), and a host listener on an abstract name receives nothing (issue 28).
source "$(dirname "$0")/../lib.sh"
S=$SBXSUP
need_cmd preload_abstract python3 || exit 0
WS=$T_TMP/ws; mkdir -p "$WS"; chmod 755 "$T_TMP" "$WS"; cd "$WS" || exit 1
NAME=sbxabs-$$-$RANDOM
cat > "$WS/abs.py" <<'EOF2'
import socket, sys
name = '\0' + sys.argv[1]
try:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM); s.bind(name); s.listen(1)
    c = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM); c.connect(name)
    a, _ = s.accept(); c.send(b'hi'); print('ABS', a.recv(2).decode())
except OSError as e:
    print('ABS refused', e.errno)
try:
    c = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM); c.connect('\0' + sys.argv[1] + '-host')
    c.send(b'x'); print('HOST reached')
except OSError as e:
    print('HOST refused', e.errno)
if len(sys.argv) > 2:  # autobind: the kernel picks an abstract name (addrlen == sizeof(sa_family_t))
    try:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM); s.bind(''); s.listen(1)
        print('AUTO', repr(s.getsockname()))
    except OSError as e:
        print('AUTO refused', e.errno)
EOF2
cat > "$T_TMP/any.json" <<'EOF2'
{"sbxsup": 1, "name": "abstract-any", "capabilities": ["network:tcp"], "limits": {"wall_s": 30}}
EOF2
cat > "$T_TMP/lb.json" <<'EOF2'
{"sbxsup": 1, "name": "abstract-lb", "capabilities": [{"cap": "network:tcp", "hosts": ["127.0.0.1"]}],
 "limits": {"wall_s": 30}}
EOF2
# a host listener on "<name>-host": must receive nothing from any run
python3 - "$NAME-host" "$T_TMP/host.got" <<'EOF2' &
import socket, sys, select
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM); s.bind('\0' + sys.argv[1]); s.listen(4)
got = b''
while True:
    r, _, _ = select.select([s], [], [], 40)
    if not r:
        break
    a, _ = s.accept(); got += a.recv(16) or b'(connected)'
    open(sys.argv[2], 'wb').write(got)
EOF2
LPID=$!
t_on_exit "kill $LPID 2>/dev/null"
sleep 0.5

declare -A LAYERS=([full]="" [no-bwrap]="--layers preload,seccomp,landlock,netfilter,probes"
		   [preload-only]="--layers preload,probes")
for mode in full no-bwrap preload-only; do
	n=own-$mode
	# shellcheck disable=SC2086
	out=$("$S" run -w "$WS" -a "$T_TMP/$n.audit" ${LAYERS[$mode]} -- python3 abs.py "$NAME" 2>&1); rc=$?
	if ! audit_has "$T_TMP/$n.audit" run.start layers.preload=true; then
		t_skip "preload_abstract_own_netns_$mode" "the preload is not active here"; continue
	fi
	if ! grep -q '"ns":"[^"]*net' "$T_TMP/$n.audit" && ! audit_has "$T_TMP/$n.audit" run.start layers.bwrap=true; then
		t_skip "preload_abstract_own_netns_$mode" "no network namespace here (abstract names stay refused)"; continue
	fi
	# the report-only sensor (a normal user in preload-only mode: no probes, no seccomp layer) sees
	# the attempt, not its result: the run's own name (bound in its namespace) is not reported, the
	# name nobody in the run holds (the host's) is, as an attempt (README Decisions)
	if grep -q '"sensor":"seccomp-notify' "$T_TMP/$n.audit"; then
		audit_has "$T_TMP/$n.audit" kernel.violation path="@$NAME-host" outcome=attempted && sensor_ok=1 || sensor_ok=0
		own="@$NAME"
	else sensor_ok=1; own="@sbxabs"; fi
	if [ $rc -eq 0 ] && grep -q '^ABS hi$' <<<"$out" && grep -q '^HOST refused' <<<"$out" && [ $sensor_ok = 1 ] &&
	   ! audit_has "$T_TMP/$n.audit" preload.deny path~@sbxabs &&
	   ! audit_has "$T_TMP/$n.audit" kernel.violation path="$own" &&
	   { [ "$own" != @sbxabs ] || ! audit_has "$T_TMP/$n.audit" kernel.violation path~@sbxabs; } &&
	   ! audit_has "$T_TMP/$n.audit" seccomp.deny; then
		t_pass "preload_abstract_own_netns_$mode"
	else
		t_fail "preload_abstract_own_netns_$mode" "rc=$rc: $out $(grep -o '"event":"[^"]*"[^}]*@[^}]*' "$T_TMP/$n.audit" | head -3 | tr '\n' ' ')"
	fi
done
# a host list: the run's own namespace too; the host listener untouched
for mode in full no-bwrap; do
	n=lb-$mode
	# shellcheck disable=SC2086
	out=$("$S" run -m "$T_TMP/lb.json" -w "$WS" -a "$T_TMP/$n.audit" ${LAYERS[$mode]} -- python3 abs.py "$NAME" 2>&1); rc=$?
	if [ $rc -eq 0 ] && grep -q '^ABS hi$' <<<"$out" && grep -q '^HOST refused' <<<"$out" &&
	   ! audit_has "$T_TMP/$n.audit" preload.deny op=bind path="@$NAME"; then
		t_pass "preload_abstract_hostlist_own_netns_$mode"
	else
		t_fail "preload_abstract_hostlist_own_netns_$mode" "rc=$rc: $out"
	fi
done
# an unrestricted network (issue 28): where the run shares the host's namespace the same refusals
# hold, an autobind included (any name bound there is one a host client could reach); where it has
# a namespace of its own (run.start level.ns names net) the names stay inside the run
for mode in full no-bwrap preload-only; do
	n=any-$mode
	# shellcheck disable=SC2086
	out=$("$S" run -m "$T_TMP/any.json" -w "$WS" -a "$T_TMP/$n.audit" ${LAYERS[$mode]} -- python3 abs.py "$NAME" auto 2>&1); rc=$?
	if grep -q '"ns":"[^"]*net' "$T_TMP/$n.audit"; then
		if [ $rc -eq 0 ] && grep -q '^ABS hi$' <<<"$out" && grep -q '^HOST refused' <<<"$out" &&
		   grep -q '^AUTO ' <<<"$out" && ! audit_has "$T_TMP/$n.audit" preload.deny path~@; then
			t_pass "preload_abstract_any_net_$mode"
		else
			t_fail "preload_abstract_any_net_$mode" "own netns: rc=$rc: $out"
		fi
	elif [ $rc -eq 0 ] && grep -q '^ABS refused 1$' <<<"$out" && grep -q '^HOST refused' <<<"$out" &&
	     grep -q '^AUTO refused 1$' <<<"$out" &&
	     audit_has "$T_TMP/$n.audit" preload.deny op=bind path="@$NAME" &&
	     audit_has "$T_TMP/$n.audit" preload.deny op=bind path="@ (autobind)" &&
	     audit_has "$T_TMP/$n.audit" preload.deny path="@$NAME-host"; then
		t_pass "preload_abstract_any_net_$mode"
	else
		t_fail "preload_abstract_any_net_$mode" "shared netns: rc=$rc: $out $(grep -o '"event":"preload.deny"[^}]*' "$T_TMP/$n.audit" | head -3 | tr '\n' ' ')"
	fi
done
sleep 0.3
if [ ! -s "$T_TMP/host.got" ]; then t_pass preload_abstract_host_listener_untouched
else t_fail preload_abstract_host_listener_untouched "got: $(cat "$T_TMP/host.got")"; fi
