#!/usr/bin/env bash
# gateway.sh — the network gateway (supervisor/net/gateway.h) end to end, as root and as a normal
# user: $B/tests/test_gateway makes its own network namespace (unshare -n as root; a user namespace
# with it as a normal user), hands the listeners to a gateway started with a test hosts file
# (SBXSUP_GW_HOSTS) mapping names to 127.0.0.x servers in the host's namespace, and checks each
# case by what the servers saw and by the audit events (net.flow, net.deny, dns.deny). One line per
# case: gw_<case> (root) and gw_unpriv_<case> (a throwaway user). Traffic goes only to loopback.
. "$(dirname "$0")/../lib.sh"
B=${B:-build}
TG=$SBX_ROOT/$B/tests/test_gateway
[ -x "$TG" ] || { t_skip gateway "test_gateway not built (make $B/tests/test_gateway)"; exit 0; }

# run_tg PREFIX [runuser args...]: one line per cmocka case
run_tg() {
	local prefix=$1; shift
	local out rc
	mkdir -p "$T_TMP/$prefix" && chmod 1777 "$T_TMP/$prefix" # the user writes the stream there
	local keep=$T_TMP/$prefix/audit.jsonl
	out=$(cd "$T_TMP" && timeout 300 "$@" env SBXSUP="$GWSUP" SBX_GW_AUDIT_COPY="$keep" "$GWTG" 2>&1); rc=$?
	local n=0 why=""
	while IFS= read -r l; do
		case $l in
		"# SKIP: "*) why=${l#\# SKIP: } ;;
		"[       OK ] "*) t_pass "${prefix}${l#\[       OK \] t_}"; n=$((n + 1)) ;;
		"[  SKIPPED ] t_"*) t_skip "${prefix}${l#\[  SKIPPED \] t_}" "${why:-skipped}"; n=$((n + 1)) ;;
		"[  FAILED  ] t_"*) t_fail "${prefix}${l#\[  FAILED  \] t_}" "$(grep -B3 -F "$l" <<<"$out" | grep -m1 ERROR)"; n=$((n + 1)) ;;
		esac
	done < <(awk '!seen[$0]++' <<<"$out")
	# no case reported at all (a crash, a hang the timeout ended: its output was lost) is a failure
	[ $n -gt 0 ] || { t_fail "${prefix}gateway" "rc=$rc, no case reported: $(tail -5 <<<"$out")"; return 0; }
	grep -q '^\[  PASSED  \]\|^\[  FAILED  \]' <<<"$out" || return 0 # no namespace at all: every case said SKIP
	# the stream the gateway's records became: valid against the schema, and reviewed as "talked to"
	local bad
	if ! bad=$(python3 "$SBX_ROOT/tests/lib/audit_schema.py" "$keep" 2>&1); then
		t_fail "${prefix}schema" "$bad"
	else t_pass "${prefix}schema"; fi
	out=$("$SBXSUP" audit summary "$keep" 2>&1)
	if grep -q 'talked to: [5-9] host(s)' <<<"$out" && grep -q '^      api.example.test:[0-9]*  [1-9] connection(s), [1-9][0-9]* B out, [1-9][0-9]* B in' <<<"$out" \
		&& grep -q 'net.deny name-not-granted 127.0.0.5:[0-9]* (sent other.example.test)' <<<"$out" \
		&& "$SBXSUP" audit summary --json "$keep" | python3 -c '
import json, sys
r = json.load(sys.stdin)["runs"][0]
assert any(f["event"] == "dns.deny" and f["subject"] == "evil.example.test" for f in r["findings"]), r["findings"]
assert any(p["host"] == "api6.example.test" and p["bytes_in"] > 0 for p in r["talked_to"]), r["talked_to"]
'; then
		t_pass "${prefix}summary_talked_to"
	else t_fail "${prefix}summary_talked_to" "$out"; fi
}

# The binaries where any user can run them (the checkout may be under a 0700 home).
cp "$TG" "$T_TMP/test_gateway" && cp "$SBXSUP" "$T_TMP/sbxsup" && chmod 755 "$T_TMP/test_gateway" "$T_TMP/sbxsup"
GWTG=$T_TMP/test_gateway GWSUP=$T_TMP/sbxsup
run_tg gw_

if [ "$(id -u)" = 0 ]; then
	U=sbxu_gateway
	if command -v useradd >/dev/null && useradd -m "$U" 2>/dev/null; then
		# a child of test_gateway may still be a zombie for a moment: userdel refuses a user in use
		t_on_exit "for i in 1 2 3 4 5 6 7 8 9 10; do userdel -r $U 2>/dev/null; id $U >/dev/null 2>&1 || break; sleep 0.5; done"
		run_tg gw_unpriv_ runuser -u "$U" --
	else t_skip gw_unpriv_gateway "cannot create user $U"; fi
fi
