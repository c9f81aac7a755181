#!/usr/bin/env bash
# kernel_sockets.sh — issues 13/17, kernel parts, through `sbxsup run`, in full mode, without bwrap
# (explicit layer list) and seccomp alone, as root and as an unprivileged uid:
#   - the socket allowlist: AF_VSOCK, UDP-Lite (connected send), SCTP, AF_ALG, NETLINK_AUDIT never
#     get a socket, even with the network granted; each attempt is a seccomp.deny naming it;
#   - named unix sockets outside the grants (the docker.sock class): a raw connect is refused, the
#     host listener receives nothing, seccomp.deny names the path; a granted one (workspace) works;
#   - rlimits: lowering works (`ulimit -c 0`, the raw syscall); raising the hard limit is refused
#     and reported;
#   - loopback servers: the run has a network namespace of its own, so binding its loopback (and the
#     wildcard address) needs no grant; a port a host grant names is the gateway's (EADDRINUSE).
# The attacker is a static binary making raw system calls (the preload cannot see it).
. "$(dirname "$0")/../lib.sh"

ATT=$SBX_PROGS/k_attack_static
[ -x "$ATT" ] || { t_fail kernel_sockets_setup "missing $ATT (make progs)"; exit 0; }

WS=$T_TMP/ws
CODE=$T_TMP/code
HOSTD=$(mktemp -d /var/tmp/sbxk-host.XXXXXX)   # outside every grant (not /tmp: bwrap/no-bwrap grant it)
t_on_exit "rm -rf '$HOSTD'"
chmod 755 "$HOSTD"
mkdir -p "$WS" "$CODE"
chmod 777 "$WS"
cp "$ATT" "$CODE/k"
chmod 755 "$CODE" "$CODE/k"
ATT=$CODE/k
PORT_OK=$((20000 + RANDOM % 10000)); PORT_NO=$((PORT_OK + 1)); PORT_UL=$((PORT_OK + 2))

mf() { cat >"$1" <<JSON
{"sbxsup": 1, "name": "k-sock", "code_path": "$CODE", "capabilities": $2}
JSON
chmod 644 "$1"
}
MF_NONET=$T_TMP/nonet.json; mf "$MF_NONET" '[]'
MF_LO=$T_TMP/lo.json; mf "$MF_LO" "[{\"cap\": \"network:tcp\", \"hosts\": [\"127.0.0.1:$PORT_OK\", \"127.0.0.1:$PORT_UL\"]}]"

# a host listener: unix stream socket SOCK, writes what it received to SOCK.got when it ends
unix_listener() {
	python3 - "$1" <<'PY' &
import os, socket, sys
p = sys.argv[1]
s = socket.socket(socket.AF_UNIX); s.bind(p); s.listen(8); os.chmod(p, 0o777); s.settimeout(6)
got = b""
try:
    while True:
        c, _ = s.accept(); d = c.recv(100); c.close()
        if d == b"END": break
        got += d or b"(connected)"
except OSError:
    pass
open(p + ".got", "wb").write(got)
PY
	for _ in $(seq 50); do [ -S "$1" ] && return 0; sleep 0.1; done
}
# end_unix SOCK: stop its listener (after the run) and wait for its report
end_unix() { python3 -c 'import socket,sys; s=socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.send(b"END")' "$1" 2>/dev/null; wait; }
# a host UDP-Lite listener on 127.0.0.1:PORT (python can make one; the executor must not)
udplite_listener() {
	python3 - "$1" "$2" <<'PY' &
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM, 136); s.bind(("127.0.0.1", int(sys.argv[1]))); s.settimeout(6)
got = b""
try: got = s.recv(100)
except OSError: pass
open(sys.argv[2], "wb").write(b"" if got == b"END" else got)
PY
	sleep 0.3
}
end_udplite() { python3 -c 'import socket,sys; s=socket.socket(socket.AF_INET, socket.SOCK_DGRAM, 136); s.sendto(b"END", ("127.0.0.1", int(sys.argv[1])))' "$1"; wait; }

AS_USER=()
krun() { # krun MANIFEST LAYERS AUDIT OUT -- COMMAND...
	local mf=$1 layers=$2 audit=$3 out=$4; shift 5
	(cd "$WS" && "${AS_USER[@]+"${AS_USER[@]}"}" "$SBXSUP" run -m "$mf" -w "$WS" -a "$audit" --layers "$layers" \
		-- "$@") >"$out" 2>"$out.err" </dev/null
	RC=$?
}
why() { echo "rc=$RC out=[$(tr '\n' ';' <"$1")] err=[$(head -c 400 "$1.err" | tr '\n' ';')]"; }

NOBWRAP=seccomp,landlock,netfilter,probes,limits

matrix() { # matrix WHO LAYERS...
	local who=$1 L tag AD=$T_TMP/aud_$1
	shift
	mkdir -p "$AD"
	[ "$who" = nobody ] && chown 65534:65534 "$AD"
	for L in "$@"; do
		tag=${who}_$(echo "$L" | tr ',' '_')
		rm -f "$AD"/*.jsonl
		# --- the socket allowlist, with the network granted (the worst case) -------------------------
		A=$AD/s.jsonl; O=$T_TMP/s_$tag; G=$T_TMP/ul_$tag.got
		udplite_listener "$PORT_UL" "$G"
		krun "$MF_LO" "$L" "$A" "$O" -- "$ATT" vsock 2 1234 udplite 127.0.0.1 "$PORT_UL" \
			socket 2 1 132 socket 38 5 0 socket 16 3 9 socket 2 2 1
		end_udplite "$PORT_UL"
		if grep -qx 'vsock: blocked EAFNOSUPPORT' "$O" && grep -qx 'udplite: blocked EPROTONOSUPPORT' "$O" \
		   && [ "$(grep -c '^socket: blocked' "$O")" = 4 ] && [ ! -s "$G" ] \
		   && audit_has "$A" seccomp.deny syscall=socket socket=AF_VSOCK "action=errno EAFNOSUPPORT" \
		   && audit_has "$A" seccomp.deny syscall=socket "socket=AF_INET SOCK_DGRAM IPPROTO_UDPLITE" \
		   && audit_has "$A" seccomp.deny "socket=AF_INET SOCK_STREAM IPPROTO_SCTP" \
		   && audit_has "$A" seccomp.deny socket=AF_ALG \
		   && audit_has "$A" seccomp.deny "socket=AF_NETLINK NETLINK_AUDIT" \
		   && audit_has "$A" seccomp.deny "socket=AF_INET SOCK_DGRAM IPPROTO_ICMP" "action=errno EACCES"; then
			t_pass "kernel_sockets_families_refused_reported_$tag"
		else
			t_fail "kernel_sockets_families_refused_reported_$tag" "$(why "$O") got=$(cat "$G" 2>/dev/null)"
		fi
		# --- a named host unix socket outside the grants (docker.sock class) ------------------------------
		A=$AD/u.jsonl; O=$T_TMP/u_$tag; SOCK=$HOSTD/dock_$tag.sock
		unix_listener "$SOCK"
		krun "$MF_NONET" "$L" "$A" "$O" -- "$ATT" unix "$SOCK"
		end_unix "$SOCK"
		if grep -qx 'unix: blocked EPERM' "$O" && [ -e "$SOCK.got" ] && [ ! -s "$SOCK.got" ] \
		   && audit_has "$A" seccomp.deny syscall=connect "path=$SOCK" access=connect rule?; then
			t_pass "kernel_sockets_named_unix_outside_grants_$tag"
		else
			t_fail "kernel_sockets_named_unix_outside_grants_$tag" "$(why "$O") got=$(cat "$SOCK.got" 2>/dev/null)"
		fi
		# control: a unix socket in the workspace (a write grant) is reachable
		A=$AD/w.jsonl; O=$T_TMP/w_$tag; SOCK=$WS/ok_$tag.sock
		unix_listener "$SOCK"
		krun "$MF_NONET" "$L" "$A" "$O" -- "$ATT" unix "$SOCK"
		end_unix "$SOCK"
		if grep -qx 'unix: SUCCEEDED' "$O" && grep -q ESCAPED "$SOCK.got" \
		   && [ "$(audit_count "$A" seccomp.deny)" = 0 ]; then
			t_pass "kernel_sockets_named_unix_granted_control_$tag"
		else
			t_fail "kernel_sockets_named_unix_granted_control_$tag" "$(why "$O")"
		fi
		# --- rlimits: lowering always works; a raise of the hard limit is refused and reported ----------
		A=$AD/r.jsonl; O=$T_TMP/r_$tag
		krun "$MF_NONET" "$L" "$A" "$O" -- "$ATT" lower_core rlimit
		if grep -qx 'lower_core: SUCCEEDED' "$O" && grep -qx 'rlimit: blocked EPERM' "$O" \
		   && audit_has "$A" seccomp.deny syscall=prlimit64 "limit~RLIMIT_NOFILE" "action=errno EPERM"; then
			t_pass "kernel_sockets_rlimit_lower_ok_raise_reported_$tag"
		else
			t_fail "kernel_sockets_rlimit_lower_ok_raise_reported_$tag" "$(why "$O")"
		fi
		# --- loopback servers ------------------------------------------------------------------------------
		A=$AD/b.jsonl; O=$T_TMP/b_$tag
		krun "$MF_LO" "$L" "$A" "$O" -- "$ATT" bind 127.0.0.1 "$PORT_NO" bind 0.0.0.0 "$((PORT_NO + 10))" \
			bind 127.0.0.1 "$PORT_OK"
		# the run's own loopback and wildcard: no grant, no refusal (netfilter's bind hook, seccomp's
		# decision); the granted port is held by the gateway's listener inside the namespace, or,
		# where nftables redirects the granted ports to the gateway, free to bind (connects to it
		# reach the gateway all the same)
		third="bind: blocked EADDRINUSE"
		grep -q '"network":"own namespace; gateway: [^"]*nftables redirect' "$A" && third="bind: SUCCEEDED"
		if [ "$(sed -n 1p "$O")" = "bind: SUCCEEDED" ] && [ "$(sed -n 2p "$O")" = "bind: SUCCEEDED" ] \
		   && [ "$(sed -n 3p "$O")" = "$third" ] \
		   && ! audit_has "$A" netfilter.deny op=bind && ! audit_has "$A" seccomp.deny syscall=bind \
		   && audit_has "$A" run.start; then
			t_pass "kernel_sockets_loopback_bind_granted_only_$tag"
		else
			t_fail "kernel_sockets_loopback_bind_granted_only_$tag" "$(why "$O")"
		fi
	done
}

# issue 15 ordering: a raw TCP connect to a port not granted, outside the run. With netfilter on,
# Landlock handles no TCP (it would refuse first, silently): netfilter refuses and reports. Without
# netfilter, seccomp's connect decision reports; alone, the run's own network namespace is the
# backstop (nothing listens there: ECONNREFUSED). The host's listener never sees it.
tcp_listener() { python3 - "$1" "$2" <<'PY' &
import socket, sys
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(4); s.settimeout(6)
got = b""
try:
    while True:
        c, _ = s.accept(); d = c.recv(100) or b"(connected)"; c.close()
        if d == b"END": break
        got += d
except OSError: pass
open(sys.argv[2], "wb").write(got)
PY
sleep 0.3; }
end_tcp() { python3 -c 'import socket,sys; s=socket.create_connection(("127.0.0.1", int(sys.argv[1]))); s.send(b"END")' "$1" 2>/dev/null; wait; }
ordering() { # ordering LAYERS EVENT ERRNO TAG
	local A=$T_TMP/o_$4.jsonl O=$T_TMP/o_$4 G=$T_TMP/o_$4.got
	tcp_listener "$PORT_NO" "$G"
	krun "$MF_LO" "$1" "$A" "$O" -- "$ATT" connect 10.255.255.1 "$PORT_NO"
	end_tcp "$PORT_NO"
	if grep -qx "connect: blocked $3" "$O" && [ ! -s "$G" ] \
	   && { [ "$2" = none ] || audit_has "$A" "$2" addr=10.255.255.1 "port=$PORT_NO"; } \
	   && audit_has "$A" run.start; then
		t_pass "kernel_sockets_ordering_$4"
	else
		t_fail "kernel_sockets_ordering_$4" "$(why "$O") got=$(cat "$G" 2>/dev/null)"
	fi
}

# UDP sendto naming a peer that is not granted: netfilter's sendmsg hook, or without netfilter
# seccomp's decision on the address (sendto with a destination is notified only then). Without bwrap
# the send is made by the run's connector (emulated): netfilter refuses it, and the emulation reports
# the refusal as the probes would (EXTRA: that kernel.violation, sensor seccomp-notify)
udp_case() { # udp_case LAYERS EVENT TAG [EXTRA]
	local A=$T_TMP/d_$3.jsonl O=$T_TMP/d_$3
	krun "$MF_LO" "$1" "$A" "$O" -- "$ATT" udp 10.255.255.1 "$PORT_NO"
	if grep -qx "udp: blocked EPERM" "$O" && audit_has "$A" "$2" addr=10.255.255.1 "port=$PORT_NO" \
	   && { [ -z "${4:-}" ] || audit_has "$A" "$4" addr=10.255.255.1 "port=$PORT_NO" sensor=seccomp-notify \
		outcome=contained; }; then
		t_pass "kernel_sockets_udp_sendto_$3"
	else
		t_fail "kernel_sockets_udp_sendto_$3" "$(why "$O")"
	fi
}
udp_case seccomp,landlock,limits seccomp.deny seccomp_without_netfilter

if [ "$(id -u)" = 0 ]; then
	udp_case "$NOBWRAP" netfilter.deny netfilter kernel.violation
	ordering "$NOBWRAP" netfilter.deny EPERM netfilter_reports_not_landlock
	ordering seccomp,landlock,netfilter,limits netfilter.deny EPERM netfilter_reports_no_probes
	ordering seccomp,landlock,limits seccomp.deny EPERM seccomp_reports_without_netfilter
	ordering landlock,limits none ECONNREFUSED netns_backstop_alone
	matrix root auto "$NOBWRAP" seccomp,limits
	# `ulimit -c 0` in a shell (issue 17's "done when"), full mode
	A=$T_TMP/ul.jsonl; O=$T_TMP/ul
	krun "$MF_NONET" auto "$A" "$O" -- /bin/sh -c 'ulimit -c 0 && echo lowered'
	t_check kernel_sockets_ulimit_c_0_full grep -qx lowered "$O"
	if command -v setpriv >/dev/null; then
		# a HOME of its own, outside the workspace (sbxsup refuses an audit key the executor could
		# move: one under the writable workspace)
		NH=$T_TMP/nobody-home; mkdir -p "$NH"; chown 65534:65534 "$NH"
		AS_USER=(setpriv --reuid=65534 --regid=65534 --clear-groups env HOME="$NH")
		matrix nobody auto seccomp,landlock,limits seccomp,limits
		AS_USER=()
	else
		t_skip kernel_sockets_unprivileged "needs setpriv"
	fi
else
	matrix user auto seccomp,landlock,limits seccomp,limits
fi
