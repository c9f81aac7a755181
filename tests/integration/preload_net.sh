#!/usr/bin/env bash
# preload_net.sh — libsbxpreload.so network decisions in preload mode (no bwrap; the run's own
# network namespace): a connect to a port no grant names (curl, python) is refused with preload.deny
# naming the peer, another address on the granted port is refused by the gateway (net.deny), a
# refused name is never resolved (preload.deny op=resolve naming the host), the granted loopback
# port (with a listener this test starts) still works, also through "localhost".
source "$(dirname "$0")/../lib.sh"
S=$SBXSUP
PY=/usr/bin/python3
need_cmd preload_net curl || exit 0
WS=$T_TMP/ws; mkdir -p "$WS" "$T_TMP/home"; cd "$WS" || exit 1
export HOME=$T_TMP/home

# a loopback HTTP listener on a free port (port written to a file once listening)
$PY - "$T_TMP/port" <<'PY' &
import http.server, socketserver, sys
class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200); self.end_headers(); self.wfile.write(b"granted-ok\n")
    def log_message(self, *a): pass
srv = socketserver.TCPServer(("127.0.0.1", 0), H)
open(sys.argv[1] + ".tmp", "w").write(str(srv.server_address[1]))
import os; os.rename(sys.argv[1] + ".tmp", sys.argv[1])
srv.serve_forever()
PY
LPID=$!
t_on_exit "kill $LPID 2>/dev/null; wait $LPID 2>/dev/null"
for _ in $(seq 1 200); do [ -s "$T_TMP/port" ] && break; sleep 0.05; done
PORT=$(cat "$T_TMP/port" 2>/dev/null)
[ -n "$PORT" ] || { t_fail preload_net_setup "listener did not start"; exit 0; }

cat > "$T_TMP/m.json" <<J
{"sbxsup": 1, "name": "net-test",
 "capabilities": ["code:exec", {"cap": "network:http", "hosts": ["127.0.0.1:$PORT", "localhost:$PORT"]}]}
J
run() { local n=$1; shift; "$S" run --layers preload -m "$T_TMP/m.json" -w "$WS" -a "$T_TMP/$n.audit" -- "$@"; }

# granted port: works with curl by address and by (granted) name
out=$(run granted curl -s --max-time 10 "http://127.0.0.1:$PORT/" 2>&1); rc=$?
out2=$(run granted_name curl -s --max-time 10 "http://localhost:$PORT/" 2>&1); rc2=$?
if [ $rc -eq 0 ] && grep -q granted-ok <<<"$out" && [ $rc2 -eq 0 ] && grep -q granted-ok <<<"$out2" &&
   ! audit_has "$T_TMP/granted.audit" preload.deny op=connect &&
   ! audit_has "$T_TMP/granted_name.audit" preload.deny op=connect &&
   ! audit_has "$T_TMP/granted_name.audit" preload.deny op=resolve; then
	t_pass preload_net_granted_port
else t_fail preload_net_granted_port "rc=$rc/$rc2: $out / $out2"; fi

# curl to a non-granted address on the granted port (the run's own namespace: the gateway refuses
# it) and to a port no grant names (the preload refuses it)
out=$(run curl_denied curl -sf --noproxy "*" --max-time 10 "http://10.255.255.1:$PORT/" 2>&1); rc=$?
out2=$(run curl_denied_port curl -s --noproxy "*" --max-time 10 "http://10.255.255.1:9/" 2>&1); rc2=$?
if [ $rc -ne 0 ] && [ $rc2 -ne 0 ] && ! grep -q granted-ok <<<"$out" &&
   audit_has "$T_TMP/curl_denied.audit" net.deny addr=10.255.255.1 port="$PORT" &&
   audit_has "$T_TMP/curl_denied_port.audit" preload.deny op=connect addr=10.255.255.1 port=9 comm=curl access=connect errno=1; then
	t_pass preload_net_curl_denied
else t_fail preload_net_curl_denied "rc=$rc/$rc2: $out / $out2"; fi

# python connect to a non-granted port: PermissionError
out=$(run py_denied $PY -c "
import socket
s = socket.socket()
try:
    s.connect(('10.255.255.1', 9)); print('connected')
except PermissionError as e: print('PermissionError', e.errno)" 2>&1); rc=$?
if grep -q "PermissionError 1" <<<"$out" && audit_has "$T_TMP/py_denied.audit" preload.deny op=connect addr=10.255.255.1 port=9 comm=python3; then
	t_pass preload_net_python_denied
else t_fail preload_net_python_denied "rc=$rc: $out"; fi

# a name that is not granted is never resolved: EAI_FAIL, preload.deny op=resolve host=...
out=$(run resolve curl -s --noproxy "*" --max-time 10 "http://not-granted.example:$PORT/" 2>&1); rc=$?
out2=$(run resolve_py $PY -c "
import socket
try: socket.getaddrinfo('not-granted.example', 443); print('resolved')
except socket.gaierror as e: print('gaierror', e.errno == socket.EAI_FAIL)" 2>&1)
if [ $rc -eq 6 ] && grep -q "gaierror True" <<<"$out2" &&
   audit_has "$T_TMP/resolve.audit" preload.deny op=resolve host=not-granted.example &&
   audit_has "$T_TMP/resolve_py.audit" preload.deny op=resolve host=not-granted.example port=443; then
	t_pass preload_net_resolve_denied
else t_fail preload_net_resolve_denied "rc=$rc: $out / $out2"; fi

# default manifest (no network): the run has a network namespace of its own, so its loopback is
# its own (the listener outside is not reached, nothing to report); any other peer is refused and
# reported, UDP sendto as well
out=$("$S" run --layers preload -w "$WS" -a "$T_TMP/nonet.audit" -- $PY -c "
import socket
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
try: u.sendto(b'x', ('10.255.255.1', 9)); print('sent')
except PermissionError: print('udp-refused')
s = socket.socket()
try: s.connect(('10.255.255.1', $PORT)); print('connected')
except PermissionError: print('tcp-refused')
s = socket.socket()
try: s.connect(('127.0.0.1', $PORT)); print('connected')
except ConnectionRefusedError: print('lo-inside')" 2>&1); rc=$?
if grep -q udp-refused <<<"$out" && grep -q tcp-refused <<<"$out" && grep -q lo-inside <<<"$out" &&
   audit_has "$T_TMP/nonet.audit" preload.deny op=sendto addr=10.255.255.1 port=9 &&
   audit_has "$T_TMP/nonet.audit" preload.deny op=connect addr=10.255.255.1 port="$PORT"; then
	t_pass preload_net_none
else t_fail preload_net_none "rc=$rc: $out"; fi
