#!/usr/bin/env bash
# netns.sh — every run has a network namespace of its own; its only way out is the gateway
# (docs/network.md). In bwrap and no-bwrap mode, as root and (root's half re-runs the script as a
# throwaway user) as a normal user:
#   - a loopback server inside the run needs no grant, and the run's 127.0.0.1 is not the host's (a
#     listener of this test on the host's loopback sees nothing);
#   - a granted name resolves inside (gethostbyname, the gateway's stub answering from the test
#     hosts file SBXSUP_GW_HOSTS, names mapped to the host's loopback) and HTTP to it reaches this
#     test's server through the gateway (the server saw the Host; net.flow); a wrong Host is refused
#     (the server saw nothing; net.deny naming both);
#   - DNS over IPv6 (to [::1]:53, where the namespace has IPv6) is answered by the stub, a refused
#     AAAA reported as dns.deny;
#   - a network:udp grant: datagrams to the granted name's address and port reach this test's UDP
#     echo server through the gateway and its answers come back from the address sent to
#     (net.flow proto udp with the exact bytes); to another address on that port they are dropped
#     (the server saw only the granted ones; net.deny proto udp);
#   - TCP to an address on a port no grant names is refused and reported (preload.deny / netfilter.deny
#     / seccomp.deny, whichever layer is up);
#   - with a host granted without a port (every TCP port goes to the gateway): a connection to an
#     address no granted name resolved to, closed before naming a host, is reported (net.deny);
# and as root, in a network namespace this test makes: a static binary's raw UDP to port 53 of an
# address there never leaves the run (the test's listener on that address gets nothing; a control
# run with SBXSUP_SANDBOX=0 reaches it), reported by netfilter.
. "$(dirname "$0")/../lib.sh"
PY=/usr/bin/python3
WHO=${SBX_NETNS_WHO:-root}
[ "$(id -u)" = 0 ] || WHO=${SBX_NETNS_WHO:-user}
need_cmd netns_setup curl || exit 0
WS=$T_TMP/ws; mkdir -p "$WS"
cp "$SBX_PROGS/k_attack_static" "$WS/" || { t_fail netns_setup "no $SBX_PROGS/k_attack_static (make progs)"; exit 0; }

# the test's HTTP server on the host's loopback: it logs each request's Host header
LOG=$T_TMP/served; : > "$LOG"
$PY - "$T_TMP/port" "$LOG" <<'PY' &
import http.server, socketserver, sys, os
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        open(sys.argv[2], "a").write("host=%s\n" % self.headers.get("Host"))
        self.send_response(200); self.end_headers(); self.wfile.write(b"served-ok\n")
    def log_message(self, *a): pass
class S(socketserver.ThreadingMixIn, socketserver.TCPServer): daemon_threads = True
srv = S(("127.0.0.1", 0), H)
open(sys.argv[1] + ".tmp", "w").write(str(srv.server_address[1])); os.rename(sys.argv[1] + ".tmp", sys.argv[1])
srv.serve_forever()
PY
SPID=$!; t_on_exit "kill $SPID 2>/dev/null"
for _ in $(seq 1 200); do [ -s "$T_TMP/port" ] && break; sleep 0.05; done
PORT=$(cat "$T_TMP/port")
# the test's UDP echo server on the host's loopback: it logs each datagram
ULOG=$T_TMP/udp_served; : > "$ULOG"
$PY - "$T_TMP/uport" "$ULOG" <<'PY' &
import socket, sys, os
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); u.bind(("127.0.0.1", 0))
open(sys.argv[1] + ".tmp", "w").write(str(u.getsockname()[1])); os.rename(sys.argv[1] + ".tmp", sys.argv[1])
while True:
    d, a = u.recvfrom(2048); open(sys.argv[2], "a").write("udp=%s\n" % d.decode(errors="replace")); u.sendto(b"ECHO:" + d, a)
PY
UPID=$!; t_on_exit "kill $UPID 2>/dev/null"
for _ in $(seq 1 200); do [ -s "$T_TMP/uport" ] && break; sleep 0.05; done
UPORT=$(cat "$T_TMP/uport")
printf '127.0.0.1 app.test 5\n127.0.0.1 udp.test 5\n' > "$T_TMP/hosts"
chmod 644 "$T_TMP/hosts"
M=$T_TMP/m.json
cat > "$M" <<J
{"sbxsup": 1, "name": "netns-test", "capabilities": ["code:exec", {"cap": "network:http", "hosts": ["app.test:$PORT"]}, {"cap": "network:udp", "hosts": ["udp.test:$UPORT"]}]}
J
export SBXSUP_GW_HOSTS=$T_TMP/hosts

for MODE in ${SBX_NETNS_MODES:-bwrap nobwrap}; do
	L=(); [ $MODE = nobwrap ] && L=(--layers preload,seccomp,landlock,netfilter,limits)
	tag=${MODE}_$WHO

	# 1. a loopback server inside, no grant; the host's loopback listener is not reached
	out=$(cd "$WS" && "$SBXSUP" run "${L[@]}" -a "$T_TMP/lo.$tag" -- $PY -c "
import socket
l = socket.socket(); l.bind(('127.0.0.1', 0)); l.listen(1)
c = socket.socket(); c.connect(l.getsockname()); a, _ = l.accept(); c.sendall(b'ping'); print('got', a.recv(4).decode())
h = socket.socket(); h.settimeout(3)
try: h.connect(('127.0.0.1', $PORT)); h.sendall(b'GET / HTTP/1.0\r\nHost: inside\r\n\r\n'); print('host:', h.recv(100))
except OSError as e: print('host-unreached', e.errno)" 2>&1)
	if grep -q "got ping" <<<"$out" && grep -q host-unreached <<<"$out" && ! grep -q "host=inside" "$LOG" &&
	   ! audit_has "$T_TMP/lo.$tag" preload.deny op=bind && ! audit_has "$T_TMP/lo.$tag" seccomp.deny syscall=bind; then
		t_pass netns_loopback_server_$tag
	else t_fail netns_loopback_server_$tag "out=$out"; fi

	# 2. a granted name: gethostbyname, and HTTP through the gateway; a wrong Host is refused
	: > "$LOG"
	out=$(cd "$WS" && "$SBXSUP" run "${L[@]}" -m "$M" -a "$T_TMP/gw.$tag" -- sh -c "
$PY -c \"import socket; print('ghbn', socket.gethostbyname('app.test'))\"
curl -s --max-time 10 http://app.test:$PORT/; echo curl=\$?
curl -s --max-time 10 -H 'Host: evil.test' http://app.test:$PORT/; echo curl2=\$?" 2>&1)
	if grep -q "ghbn 127.0.0.1" <<<"$out"; then t_pass netns_gethostbyname_$tag
	else t_fail netns_gethostbyname_$tag "out=$out"; fi
	if grep -q served-ok <<<"$out" && grep -qx "host=app.test:$PORT" "$LOG" && ! grep -q evil "$LOG" &&
	   audit_has "$T_TMP/gw.$tag" net.flow host=app.test port="$PORT" proto=tcp &&
	   audit_has "$T_TMP/gw.$tag" net.deny proto=tcp; then
		t_pass netns_gateway_http_$tag
	else t_fail netns_gateway_http_$tag "out=$(tr "\n" "|" <<<"$out") log=$(cat "$LOG")"; fi

	# 2a. DNS over IPv6 ([::1]:53, the stub's IPv6 socket): a granted name answered, a refused AAAA
	# reported as dns.deny
	cat > "$WS/dns6.py" <<'P'
import socket
def q(name, t):
    s = socket.socket(socket.AF_INET6, socket.SOCK_DGRAM); s.settimeout(3)
    b = bytes.fromhex('beef01000001000000000000') + b''.join(bytes([len(l)]) + l.encode() for l in name.split('.')) + bytes([0, 0, t, 0, 1])
    try:
        s.sendto(b, ('::1', 53)); r = s.recv(512); print('dns6', name, t, 'rcode', r[3] & 15, r[-4:].hex())
    except OSError as e: print('dns6', name, 'error', e)
q('app.test', 1); q('evil6.test', 28)
P
	out=$(cd "$WS" && "$SBXSUP" run "${L[@]}" -m "$M" -a "$T_TMP/dns6.$tag" -- $PY dns6.py 2>&1)
	if ! grep -q 'local route 0.0.0.0/0 and ::/0' "$T_TMP/dns6.$tag"; then
		t_skip netns_dns_ipv6_$tag "the run's namespace has no IPv6"
	elif grep -q "dns6 app.test 1 rcode 0 7f000001" <<<"$out" && grep -q "dns6 evil6.test 28 rcode 5" <<<"$out" &&
	   audit_has "$T_TMP/dns6.$tag" dns.deny name=evil6.test qtype=28; then
		t_pass netns_dns_ipv6_$tag
	else t_fail netns_dns_ipv6_$tag "out=$(tr "\n" "|" <<<"$out")"; fi

	# 2b. granted UDP: relayed to the name's address, answered from the address sent to; another
	# address on the granted port is dropped and reported
	: > "$ULOG"
	out=$(cd "$WS" && "$SBXSUP" run "${L[@]}" -m "$M" -a "$T_TMP/udp.$tag" -- $PY -c "
import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); s.settimeout(3)
a = (socket.gethostbyname('udp.test'), $UPORT)
for p in (b'one', b'three'):
    s.sendto(p, a); d, f = s.recvfrom(100); print('reply', d.decode(), f[0], f[1] == $UPORT)
s.sendto(b'leak', ('10.255.255.1', $UPORT))
try: print('leak-reply', s.recvfrom(100))
except OSError as e: print('leak-dropped')" 2>&1)
	if grep -q "reply ECHO:one 127.0.0.1 True" <<<"$out" && grep -q "reply ECHO:three 127.0.0.1 True" <<<"$out" &&
	   grep -q leak-dropped <<<"$out" && [ "$(cat "$ULOG")" = "$(printf 'udp=one\nudp=three')" ] &&
	   audit_has "$T_TMP/udp.$tag" net.flow host=udp.test port="$UPORT" proto=udp bytes_out=8 bytes_in=18 &&
	   audit_has "$T_TMP/udp.$tag" net.deny addr=10.255.255.1 port="$UPORT" proto=udp; then
		t_pass netns_gateway_udp_$tag
	else t_fail netns_gateway_udp_$tag "out=$(tr "\n" "|" <<<"$out") log=$(tr "\n" "|" < "$ULOG")"; fi

	# 3. TCP to a port no grant names: refused and reported by the layer that is up
	out=$(cd "$WS" && "$SBXSUP" run "${L[@]}" -m "$M" -a "$T_TMP/deny.$tag" -- sh -c "
$PY -c \"
import socket; s = socket.socket(); s.settimeout(3)
try: s.connect(('10.255.255.1', 9)); print('CONNECTED')
except OSError as e: print('refused', e.errno)\"
./k_attack_static connect 10.255.255.1 9" 2>&1)
	if grep -q "refused 1$" <<<"$out" && grep -q "connect: blocked" <<<"$out" &&
	   audit_has "$T_TMP/deny.$tag" preload.deny op=connect addr=10.255.255.1 port=9 &&
	   { audit_has "$T_TMP/deny.$tag" netfilter.deny addr=10.255.255.1 port=9 ||
	     audit_has "$T_TMP/deny.$tag" seccomp.deny syscall=connect; }; then
		t_pass netns_ungranted_tcp_$tag
	else t_fail netns_ungranted_tcp_$tag "out=$(tr "\n" "|" <<<"$out")"; fi

	# the gateway never outlives its sbxsup: SIGKILL the supervisor mid-run; its gateway leaves
	# (host evidence: no process left with that pid that is not a zombie)
	( cd "$WS" && exec setsid "$SBXSUP" run "${L[@]}" -m "$M" -a "$T_TMP/kill.$tag" -- sleep 30 ) >/dev/null 2>&1 &
	SUP=$!; GW=
	for _ in $(seq 1 100); do
		GW=$(ps -eo pid=,ppid=,args= | awk -v s=$SUP '$2==s && /__gateway/ {print $1}')
		[ -n "$GW" ] && break; sleep 0.05
	done
	kill -9 $SUP 2>/dev/null; wait $SUP 2>/dev/null
	left=
	for _ in $(seq 1 40); do
		left=$(ps -o stat= -p "${GW:-0}" 2>/dev/null | grep -v Z)
		[ -z "$left" ] && break; sleep 0.05
	done
	if [ -n "$GW" ] && [ -z "$left" ]; then t_pass netns_gateway_leaves_with_sbxsup_$tag
	else t_fail netns_gateway_leaves_with_sbxsup_$tag "gateway=${GW:-none} state=$left"; [ -n "$GW" ] && kill -9 "$GW" 2>/dev/null; fi
done

# A host granted without a port sends TCP on every port to the gateway, which waits for a name. A
# connection to an address no granted name resolved to that closes before naming a host (a probe
# of what answers) is refused and reported (net.deny reason no-name); one to a granted name's
# address closing the same way (the loser of a happy-eyeballs race) is not.
MA=$T_TMP/m-anyport.json
cat > "$MA" <<J
{"sbxsup": 1, "name": "netns-anyport", "capabilities": ["code:exec", {"cap": "network:https", "hosts": ["app.test"]}]}
J
out=$(cd "$WS" && "$SBXSUP" run -m "$MA" -a "$T_TMP/probe.$WHO" -- $PY -c "
import socket
a = socket.gethostbyname('app.test')
for dst in (('192.0.2.1', 39999), (a, 443)):
    s = socket.socket(); s.settimeout(3)
    try: s.connect(dst); print('connected', dst[0])
    except OSError as e: print('not-connected', dst[0], e.errno)
    s.close()
print('resolved', a)" 2>&1)
ra=$(sed -n 's/^resolved //p' <<<"$out")
if grep -q "connected 192.0.2.1" <<<"$out" &&
   audit_has "$T_TMP/probe.$WHO" net.deny addr=192.0.2.1 port=39999 reason=no-name &&
   { [ -z "$ra" ] || ! audit_has "$T_TMP/probe.$WHO" net.deny "addr=$ra" >/dev/null; }; then
	t_pass netns_gateway_silent_probe_reported_$WHO
else t_fail netns_gateway_silent_probe_reported_$WHO "$out; $(grep -v run.start "$T_TMP/probe.$WHO" | head -c 600)"; fi


# 4. root: raw UDP to port 53 from a static binary, in a network namespace this test makes
if [ "$WHO" = root ] && need_cmd netns_raw_udp53 unshare; then
	cat > "$T_TMP/udp53.sh" <<'SH'
ip link set lo up && ip addr add 10.77.0.1/32 dev lo || exit 3
python3 - "$1" <<'PY' &
import socket, sys
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); u.bind(("10.77.0.1", 53)); u.settimeout(8)
open(sys.argv[1] + ".ready", "w").close()
try: d, a = u.recvfrom(512); open(sys.argv[1], "a").write("got %d\n" % len(d))
except socket.timeout: pass
PY
for _ in $(seq 1 100); do [ -e "$1.ready" ] && break; sleep 0.05; done
cd "$2" && "$SBXSUP" run -m "$3" -a "$4" -- ./k_attack_static udp 10.77.0.1 53
[ -n "${5:-}" ] && SBXSUP_SANDBOX=0 "$SBXSUP" run -m "$3" -- ./k_attack_static udp 10.77.0.1 53
wait
SH
	SEEN=$T_TMP/udp53.seen CTL=$T_TMP/udp53.ctl
	out=$(unshare -n bash "$T_TMP/udp53.sh" "$SEEN" "$WS" "$M" "$T_TMP/udp53.audit" 2>&1)
	out2=$(unshare -n bash "$T_TMP/udp53.sh" "$CTL" "$WS" "$M" "$T_TMP/udp53c.audit" control 2>&1)
	if [ ! -s "$SEEN" ] && grep -q "got" "$CTL" && audit_has "$T_TMP/udp53.audit" netfilter.deny addr=10.77.0.1 port=53; then
		t_pass netns_raw_udp53_static_root
	else t_fail netns_raw_udp53_static_root "seen=$(cat "$SEEN" 2>/dev/null) ctl=$(cat "$CTL" 2>/dev/null) out=$out out2=$out2"; fi
fi

# the normal user's half: the same script as a throwaway user
if [ "$WHO" = root ] && command -v useradd >/dev/null; then
	U=sbxnetns$$
	if useradd -m "$U" 2>/dev/null; then
		t_on_exit "userdel -r $U 2>/dev/null"
		runuser -u "$U" -- env SBX_NETNS_WHO=user SBXSUP="$SBXSUP" SBX_ROOT="$SBX_ROOT" SBX_PROGS="$SBX_PROGS" \
			SBXSUP_PRELOAD_LIB="${SBXSUP_PRELOAD_LIB:-}" bash "$0" 2>&1 | grep -E '^(PASS|FAIL|SKIP):'
	else
		t_skip netns_normal_user "useradd failed"
	fi
fi
