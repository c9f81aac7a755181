#!/usr/bin/env bash
# netns_any.sh — an unrestricted network grant in the run's own namespace: nftables redirects every
# TCP connection to the gateway (docs/network.md). Root only (it makes a network namespace of its
# own, with 10.77.0.1 on its lo, and runs sbxsup there; traffic never leaves it): in bwrap and
# no-bwrap mode, as root and as a throwaway normal user:
#   - a TCP connection to the test's server on 10.77.0.1 goes through: the server saw the bytes, the
#     stream has net.flow with them, run.start.level.network says own namespace + nftables redirect;
#   - a static binary's raw UDP to 10.77.0.1:53 and :9999 never leaves (the test's listeners there
#     get nothing);
#   - an abstract unix name bound inside the run is not connectable from the test (ECONNREFUSED),
#     while the run's own client reaches it;
# and, as root in bwrap mode:
#   - a host granted without a port is reachable on any port; 9 distinct granted ports work (the one
#     redirect listener), and refuse the run (125, the gateway's reason) with SBXSUP_NFT=0;
#   - with SBXSUP_NFT=0 an unrestricted run says loudly that it shares the host's namespace.
. "$(dirname "$0")/../lib.sh"
need_root netns_any || exit 0
need_cmd netns_any unshare || exit 0
need_cmd netns_any ip || exit 0
PY=/usr/bin/python3
WS=$T_TMP/ws; mkdir -p "$WS"; chmod 777 "$WS"
cp "$SBX_PROGS/k_attack_static" "$WS/" || { t_fail netns_any_setup "no k_attack_static (make progs)"; exit 0; }
chmod 755 "$WS/k_attack_static"
M=$T_TMP/any.json
echo '{"sbxsup": 1, "name": "any", "capabilities": ["code:exec", {"cap": "network:http"}]}' > "$M"
MP=$T_TMP/portless.json
echo '{"sbxsup": 1, "name": "pl", "capabilities": ["code:exec", {"cap": "network:http", "hosts": ["10.77.0.1"]}]}' > "$MP"
M9=$T_TMP/nine.json
hosts=""; for p in 7001 7002 7003 7004 7005 7006 7007 7008 7777; do hosts="$hosts\"10.77.0.1:$p\","; done
echo "{\"sbxsup\": 1, \"name\": \"nine\", \"capabilities\": [\"code:exec\", {\"cap\": \"network:http\", \"hosts\": [${hosts%,}]}]}" > "$M9"
chmod 644 "$M" "$MP" "$M9"
U=sbxnft$$
useradd -m "$U" 2>/dev/null && t_on_exit "userdel -r $U 2>/dev/null" || U=""

# Runs inside `unshare -n`: the test's namespace, its listeners, then every case. Writes result
# lines "KEY value" to $1.
cat > "$T_TMP/inner.sh" <<'SH'
R=$1; WS=$2; M=$3; MP=$4; M9=$5; U=$6; D=$7
ip link set lo up && ip addr add 10.77.0.1/32 dev lo || exit 3
python3 - "$D" <<'PY' &
import socket, sys, threading, select, time
d = sys.argv[1]
t = socket.socket(); t.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); t.bind(("10.77.0.1", 7777)); t.listen(16)
u53 = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); u53.bind(("10.77.0.1", 53))
u99 = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); u99.bind(("10.77.0.1", 9999))
open(d + "/ready", "w").close()
end = time.time() + 150
while time.time() < end:
    r, _, _ = select.select([t, u53, u99], [], [], 0.5)
    for s in r:
        if s is t:
            c, _ = t.accept(); c.settimeout(3)
            try:
                data = c.recv(100); open(d + "/tcp.seen", "a").write(data.decode(errors="replace") + "\n"); c.sendall(b"pong")
            except OSError: pass
            c.close()
        else:
            data, _ = s.recvfrom(512); open(d + "/udp.seen", "a").write("%d %d\n" % (s.getsockname()[1], len(data)))
PY

for _ in $(seq 1 100); do [ -e "$D/ready" ] && break; sleep 0.05; done
as() { if [ "$1" = root ]; then shift; "$@"; else shift; runuser -u "$U" -- "$@"; fi; }
for WHO in ${NETNS_ANY_WHO:-root ${U:+user}}; do for MODE in bwrap nobwrap; do
	L=(); [ $MODE = nobwrap ] && L=(--layers preload,seccomp,landlock,netfilter,limits)
	tag=${MODE}_$WHO
	A=$D/a.$tag; touch "$A"; chmod 666 "$A"; rm -f "$A"
	(cd "$WS" && as $WHO env SBXSUP_PRELOAD_LIB="${SBXSUP_PRELOAD_LIB:-}" timeout 60 "$SBXSUP" run "${L[@]}" -m "$M" -a "$A" -- sh -c "
python3 -c \"
import socket, os, time
s = socket.create_connection(('10.77.0.1', 7777), timeout=5); s.sendall(b'hello-$tag'); print('reply', s.recv(10).decode())
l = socket.socket(socket.AF_UNIX); l.bind('\\0sbxnft-$tag'); l.listen(4)
c = socket.socket(socket.AF_UNIX); c.connect('\\0sbxnft-$tag'); print('abstract-inside ok')
open('bound-$tag', 'w').close()
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); u.settimeout(3)
u.sendto(bytes.fromhex('abcd0100000100000000000003777777076578616d706c6503636f6d0000010001'), ('10.77.0.1', 53))
try: print('dns-answer', u.recv(512)[:2].hex())
except OSError as e: print('dns-noanswer', e)
time.sleep(3)\"
./k_attack_static udp 10.77.0.1 53 udp 10.77.0.1 9999" > "$D/out.$tag" 2>&1) &
	RUNPID=$!
	for _ in $(seq 1 200); do [ -e "$WS/bound-$tag" ] && break; sleep 0.05; done
	abs=$(python3 -c "
import socket
c = socket.socket(socket.AF_UNIX)
try: c.connect('\0sbxnft-$tag'); print('HOST-CONNECTED')
except OSError as e: print('host-refused', e.errno)")
	wait $RUNPID
	echo "ABS_$tag $abs" >> "$R"
	echo "OUT_$tag $(tr '\n' '|' < "$D/out.$tag")" >> "$R"
done; done
# root, bwrap: a portless host on any port; 9 ports; SBXSUP_NFT=0
out=$(cd "$WS" && timeout 60 "$SBXSUP" run -m "$MP" -a "$D/pl" -- python3 -c "
import socket; s = socket.create_connection(('10.77.0.1', 7777), timeout=5); s.sendall(b'portless'); print('reply', s.recv(10).decode())" 2>&1)
echo "OUT_portless $(tr '\n' '|' <<<"$out")" >> "$R"
out=$(cd "$WS" && timeout 60 "$SBXSUP" run -m "$M9" -a "$D/nine" -- python3 -c "
import socket; s = socket.create_connection(('10.77.0.1', 7777), timeout=5); s.sendall(b'nine'); print('reply', s.recv(10).decode())" 2>&1)
echo "OUT_nine $(tr '\n' '|' <<<"$out")" >> "$R"
out=$(cd "$WS" && SBXSUP_NFT=0 timeout 60 "$SBXSUP" run -m "$M9" -a "$D/nine0" -- true 2>&1); echo "RC_nine0 $?" >> "$R"
echo "OUT_nine0 $(tr '\n' '|' <<<"$out")" >> "$R"
out=$(cd "$WS" && SBXSUP_NFT=0 timeout 60 "$SBXSUP" run -m "$M" -a "$D/any0" -- true 2>&1)
echo "OUT_any0 $(tr '\n' '|' <<<"$out")" >> "$R"
kill %1 2>/dev/null; wait %1
SH
D=$T_TMP/d; mkdir -p "$D"; chmod 777 "$D"
SBXSUP="$SBXSUP" timeout 400 unshare -n bash "$T_TMP/inner.sh" "$T_TMP/res" "$WS" "$M" "$MP" "$M9" "$U" "$D" >"$T_TMP/inner.log" 2>&1
[ -s "$T_TMP/res" ] || { t_fail netns_any_setup "no results: $(tail -5 "$T_TMP/inner.log")"; exit 0; }
res() { sed -n "s/^$1 //p" "$T_TMP/res"; }
for WHO in ${NETNS_ANY_WHO:-root ${U:+user}}; do for MODE in bwrap nobwrap; do
	tag=${MODE}_$WHO A=$D/a.$tag out=$(res "OUT_$tag")
	if grep -q "reply pong" <<<"$out" && grep -qx "hello-$tag" "$D/tcp.seen" &&
	   audit_has "$A" net.flow addr=10.77.0.1 port=7777 proto=tcp bytes_out=$((6 + ${#tag})) bytes_in=4 &&
	   audit_has "$A" run.start "level~own namespace" && grep -q '"network":"unrestricted, own namespace;[^"]*nftables redirect' "$A"; then
		t_pass netns_any_tcp_flow_$tag
	else t_fail netns_any_tcp_flow_$tag "out=$out seen=$(tr '\n' '|' < "$D/tcp.seen" 2>/dev/null) $(grep -h net.deny "$A" | cut -c1-400)"; fi
	# the listeners on 10.77.0.1:53 and :9999 (the test's namespace) never got a datagram; the one to
	# :9999 (not DNS: it cannot be relayed) is refused and reported by the gateway; a DNS query to
	# 10.77.0.1:53 is answered by the stub (its answer, to the program's own non-loopback address, is
	# not taken for outgoing UDP)
	if grep -q "udp: " <<<"$out" && [ ! -s "$D/udp.seen" ] && grep -q '"network":"unrestricted, own namespace' "$A" &&
	   grep -q "dns-answer abcd" <<<"$out" &&
	   audit_has "$A" net.deny src=gateway proto=udp addr=10.77.0.1 port=9999 reason=udp-not-relayed &&
	   grep -q 'other UDP refused (tproxy)' "$A"; then
		t_pass netns_any_udp_stays_$tag
	else t_fail netns_any_udp_stays_$tag "out=$out udp.seen=$(cat "$D/udp.seen" 2>/dev/null) $(grep -h '"net.deny"\|"network"' "$A" | cut -c1-300)"; fi
	abs=$(res "ABS_$tag")
	if grep -q "abstract-inside ok" <<<"$out" && grep -q "host-refused 111" <<<"$abs" &&
	   ! audit_has "$A" preload.deny op=bind && ! audit_has "$A" seccomp.deny syscall=bind &&
	   grep -q '"network":"unrestricted, own namespace' "$A"; then
		t_pass netns_any_abstract_inside_$tag
	else t_fail netns_any_abstract_inside_$tag "abs=$abs out=$out"; fi
done; done
[ -n "$U" ] || t_skip netns_any_normal_user "useradd failed"
out=$(res OUT_portless)
if grep -q "reply pong" <<<"$out" && grep -qx portless "$D/tcp.seen" && audit_has "$D/pl" net.flow addr=10.77.0.1 port=7777; then
	t_pass netns_portless_host_any_port
else t_fail netns_portless_host_any_port "out=$out $(grep -h 'net.deny' "$D/pl" | cut -c1-400)"; fi
out=$(res OUT_nine)
if grep -q "reply pong" <<<"$out" && grep -qx nine "$D/tcp.seen" && audit_has "$D/nine" net.flow port=7777 &&
   [ "$(res RC_nine0)" = 125 ] && audit_has "$D/nine0" run.end exit=125 && grep -q "more than 8 TCP ports" <<<"$(res OUT_nine0)"; then
	t_pass netns_nine_ports_one_listener
else t_fail netns_nine_ports_one_listener "out=$out rc0=$(res RC_nine0)"; fi
out=$(res OUT_any0)
if grep -q "warning: the run shares the host's network namespace (SBXSUP_NFT=0)" <<<"$out" &&
   grep -q '"network":"unrestricted: the host.s network namespace, no gateway' "$D/any0"; then
	t_pass netns_any_without_nftables_loud
else t_fail netns_any_without_nftables_loud "out=$out"; fi
