#!/usr/bin/env bash
# run_net.sh — without a network capability a connect to a loopback listener outside fails, in
# bwrap mode and without bwrap: the run's loopback is its own (its own network namespace, the
# listener sees nothing); a connect to any other address is refused and reported (the preload in
# bwrap mode, the kernel allowlist's netfilter.deny without bwrap); with the address granted it
# succeeds.
. "$(dirname "$0")/../lib.sh"

WS=$T_TMP/ws; mkdir -p "$WS"
A=$T_TMP/audit
PORTF=$T_TMP/port HITS=$T_TMP/hits
python3 - "$PORTF" "$HITS" <<'PY' &
import socket, sys
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(16)
open(sys.argv[1] + ".tmp", "w").write(str(s.getsockname()[1]))
import os; os.rename(sys.argv[1] + ".tmp", sys.argv[1])
while True:
    c, _ = s.accept(); open(sys.argv[2], "a").write("hit\n"); c.close()
PY
LPID=$!; t_on_exit "kill $LPID"
for i in $(seq 1 200); do [ -s "$PORTF" ] && break; sleep 0.05; done
PORT=$(cat "$PORTF")
connect='import socket,sys
s=socket.socket(); s.settimeout(5)
try: s.connect(("127.0.0.1", int(sys.argv[1]))); print("CONNECTED")
except OSError as e: print("FAILED", e)'

connect2='import socket,sys
for a in ("127.0.0.1", "10.255.255.1"):
    s=socket.socket(); s.settimeout(5)
    try: s.connect((a, int(sys.argv[1]))); print("CONNECTED", a)
    except OSError as e: print("FAILED", a, e)'

# 1. bwrap mode, default manifest (no network).
out=$(cd "$WS" && "$SBXSUP" run -a "$A.1" -- python3 -c "$connect2" $PORT 2>&1)
if grep -q "FAILED 127.0.0.1" <<<"$out" && grep -q "FAILED 10.255.255.1" <<<"$out" && [ ! -s "$HITS" ] &&
   audit_has "$A.1" preload.deny op=connect port=$PORT addr=10.255.255.1; then
	t_pass run_net_denied_bwrap
else t_fail run_net_denied_bwrap "out=$out"; fi

# 2. no bwrap, no preload: the kernel allowlist (netfilter) refuses and reports.
if need_root run_net_denied_netfilter; then # netfilter needs CAP_BPF + CAP_NET_ADMIN
out=$(cd "$WS" && "$SBXSUP" run --layers netfilter,limits --require netfilter -a "$A.2" -- python3 -c "$connect2" $PORT 2>&1)
if grep -q "FAILED 127.0.0.1" <<<"$out" && grep -q "FAILED 10.255.255.1" <<<"$out" && [ ! -s "$HITS" ] &&
   audit_has "$A.2" netfilter.deny port=$PORT addr=10.255.255.1; then
	t_pass run_net_denied_netfilter
else t_fail run_net_denied_netfilter "out=$out"; fi
fi

# 3. granted: the connect works (bwrap shares the network; the kernel list allows exactly that port).
M=$T_TMP/net.json
cat > "$M" <<JSON
{"sbxsup":1,"name":"nettest","capabilities":["code:exec",{"cap":"network:tcp","hosts":["127.0.0.1:$PORT"]}]}
JSON
out=$(cd "$WS" && "$SBXSUP" run -m "$M" -a "$A.3" -- python3 -c "$connect" $PORT 2>&1)
out2=$(cd "$WS" && "$SBXSUP" run -m "$M" -a "$A.3" -- python3 -c "$connect" 9 2>&1)
if grep -q CONNECTED <<<"$out" && [ -s "$HITS" ] && grep -q FAILED <<<"$out2"; then t_pass run_net_granted
else t_fail run_net_granted "out=$out out2=$out2"; fi
