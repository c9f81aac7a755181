#!/usr/bin/env bash
# netfilter_shared.sh — the shared netfilter set (netfilter_share.h): two runs at once
# (--layers netfilter,limits), each granted its own host listener's port. In the run's own network
# namespace netfilter allows a granted port on any address (the gateway decides by name), so each
# run's slot holds "any address, its port": each reaches its own listener (through the gateway);
# a connect to the other run's port (an address off the loopback, which only a leak of the other
# run's entry would let through netfilter) is refused with EPERM, the other's listener saw no
# connection, and the refusal is a netfilter.deny in the refused run's stream only. Both runs were on the one pinned set; after
# them, with an idle period, the set stays pinned and idle; expired (janitor), nothing is pinned.
. "$(dirname "$0")/../lib.sh"

need_root netfilter_shared_two_runs || exit 0
WS=$T_TMP/ws; mkdir -p "$WS"
SET=/sys/fs/bpf/sbxsup/netfilter-warm-v1
listener() { # $1 port file, $2 hits file
	python3 - "$1" "$2" <<'PY' &
import socket, sys, os
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(16)
open(sys.argv[1] + ".tmp", "w").write(str(s.getsockname()[1])); os.rename(sys.argv[1] + ".tmp", sys.argv[1])
while True:
    c, _ = s.accept(); open(sys.argv[2], "a").write("hit\n"); c.close()
PY
	t_on_exit "kill $!"
}
listener "$T_TMP/pa" "$T_TMP/hits_a"
listener "$T_TMP/pb" "$T_TMP/hits_b"
for i in $(seq 1 200); do [ -s "$T_TMP/pa" ] && [ -s "$T_TMP/pb" ] && break; sleep 0.05; done
PA=$(cat "$T_TMP/pa") PB=$(cat "$T_TMP/pb")
for x in a b; do
	p=$([ $x = a ] && echo "$PA" || echo "$PB")
	cat > "$T_TMP/m_$x.json" <<JSON
{"sbxsup":1,"name":"nf-$x","capabilities":["code:exec",{"cap":"network:tcp","hosts":["127.0.0.1:$p"]}]}
JSON
done
# each run waits until both are up (the other's marker file), then tries its own and the other's port
conn='import socket,sys,os,time
me,other,mine,theirs=sys.argv[1],sys.argv[2],int(sys.argv[3]),int(sys.argv[4])
open(me,"w").close()
for _ in range(200):
    if os.path.exists(other): break
    time.sleep(0.05)
for a, p in (("127.0.0.1", mine), ("10.255.255.1", theirs)):
    s=socket.socket(); s.settimeout(5)
    try: s.connect((a, p)); print("CONNECTED", p)
    except OSError as e: print("FAILED", p, e.errno)
time.sleep(0.3)'
export SBXSUP_NETFILTER_IDLE=60
run() { # $1 a|b, $2 mine, $3 theirs
	local o=$([ "$1" = a ] && echo b || echo a)
	(cd "$WS" && "$SBXSUP" run --layers netfilter,limits --require netfilter -m "$T_TMP/m_$1.json" -a "$T_TMP/audit_$1" \
		-w "$WS" -- python3 -c "$conn" "$WS/up_$1" "$WS/up_$o" "$2" "$3" > "$T_TMP/out_$1" 2>&1)
}
run a "$PA" "$PB" & RA=$!
run b "$PB" "$PA" & RB=$!
# while both run: one set, both holding it
held=0
for i in $(seq 1 100); do
	[ -e "$WS/up_a" ] && [ -e "$WS/up_b" ] && { [ -d "$SET" ] && held=1; break; }; sleep 0.05
done
wait $RA; wait $RB
oa=$(cat "$T_TMP/out_a") ob=$(cat "$T_TMP/out_b")
ha=$(cat "$T_TMP/hits_a" 2>/dev/null | wc -l) hb=$(cat "$T_TMP/hits_b" 2>/dev/null | wc -l)
if grep -q "CONNECTED $PA" <<<"$oa" && grep -q "FAILED $PB 1" <<<"$oa" &&
   grep -q "CONNECTED $PB" <<<"$ob" && grep -q "FAILED $PA 1" <<<"$ob" &&
   [ "$ha" = 1 ] && [ "$hb" = 1 ] && [ $held = 1 ] &&
   audit_has "$T_TMP/audit_a" netfilter.deny addr=10.255.255.1 port="$PB" op=connect &&
   audit_has "$T_TMP/audit_b" netfilter.deny addr=10.255.255.1 port="$PA" op=connect &&
   ! audit_has "$T_TMP/audit_a" netfilter.deny port="$PA" && ! audit_has "$T_TMP/audit_b" netfilter.deny port="$PB"; then
	t_pass netfilter_shared_two_runs
else t_fail netfilter_shared_two_runs "a=[$oa] b=[$ob] hits a=$ha b=$hb set-seen=$held"; fi

# idle after the last run (60 s), removed once expired: a forced expiry stands in for the deadline
# (the janitor of the next run removes a set whose deadline has passed)
idle=0; [ -d "$SET" ] && idle=1
now=$(date +%s); touch -d "@$((now - 5))" "$SET" 2>/dev/null
(cd "$WS" && SBXSUP_NETFILTER_IDLE=0 "$SBXSUP" run --layers limits -w "$WS" -- /bin/true >/dev/null 2>&1)
for i in $(seq 1 40); do [ -e "$SET" ] || break; sleep 0.05; done
if [ $idle = 1 ] && [ ! -e "$SET" ]; then t_pass netfilter_shared_expiry
else t_fail netfilter_shared_expiry "idle after the runs: $idle; after its deadline and a run: $(ls "$SET" 2>&1 | head -2 | tr '\n' ' ')"; fi
