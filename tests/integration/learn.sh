#!/usr/bin/env bash
# learn.sh — `sbxsup learn`: the proposed manifest lets the run succeed with no denial; learning never
# writes outside the workspace or reaches the network on the program's behalf; secrets and what a
# deny rule forbids are never proposed.
. "$(dirname "$0")/../lib.sh"

# 1. the demo executor: learn, then run it under what was learned — no denial above info.
WS=$T_TMP/ws; mkdir -p "$WS/notes"; echo 'Sandbox review on Monday' > "$WS/notes/todo.txt"
cp "$SBX_ROOT/examples/executors/notes_search.py" "$WS/"
out=$(cd "$WS" && echo '{"query": "sandbox"}' | "$SBXSUP" learn -o "$T_TMP/learned.json" -- python3 notes_search.py 2>&1); rc=$?
res=$(cd "$WS" && echo '{"query": "sandbox"}' | "$SBXSUP" run -m "$T_TMP/learned.json" -a "$T_TMP/a1" -- python3 notes_search.py 2>&1)
bad=$(python3 - "$T_TMP/a1" <<'PY'
import json, sys
SEC = {"preload.deny", "kernel.violation", "seccomp.deny", "landlock.deny", "netfilter.deny"}
n = 0
for l in open(sys.argv[1]):
    o = json.loads(l)
    if o.get("event") in SEC and o.get("sev", "") != "info": n += 1
print(n)
PY
)
if [ $rc -eq 0 ] && (cd "$WS" && "$SBXSUP" validate -m "$T_TMP/learned.json") >/dev/null 2>&1 && grep -q '"todo.txt"\|todo.txt' <<<"$res" && [ "$bad" = 0 ]; then
	t_pass learn_demo_executor_runs_clean
else t_fail learn_demo_executor_runs_clean "rc=$rc bad=$bad out=$out res=$res"; fi

# 2. a tool that reads and writes outside the workspace, talks to a port and reads secrets.
OUT=/var/tmp/sbxsup-learn-$$; mkdir -p "$OUT"; t_on_exit "rm -rf '$OUT'"
echo data > "$OUT/data.txt"; echo 'API_KEY=x' > "$OUT/.env"
FH=$T_TMP/home; mkdir -p "$FH/.ssh"; echo FAKE-KEY > "$FH/.ssh/id_rsa"
cat > "$T_TMP/base.json" <<J
{"sbxsup": 1, "name": "learn-t", "capabilities": ["code:exec"], "deny": ["**/.env"]}
J
# a host address, not loopback: the run's 127.0.0.1 is its own namespace's (docs/network.md), where a
# connect is allowed and unreported — nothing there for learn to propose
HA=$(ip -4 -o addr show scope global 2>/dev/null | awk '{sub("/.*", "", $4); print $4; exit}')
HA=${HA:-192.0.2.1}
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
python3 - "$port" "$T_TMP/listener.got" "$HA" <<'PY' &
import socket, sys
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
try:
    s.bind((sys.argv[3], int(sys.argv[1])))
except OSError:
    sys.exit()
s.listen(4); s.settimeout(20)
try:
    c, _ = s.accept(); open(sys.argv[2], "w").write("connected")
except OSError: pass
PY
lpid=$!; t_on_exit "kill $lpid 2>/dev/null"
TOOL="cat '$OUT/data.txt'; cat '$OUT/.env'; cat '$FH/.ssh/id_rsa'; echo hi > '$OUT/new.txt'; python3 -c 'import socket; socket.create_connection((\"$HA\", $port), 2)'; true"
out=$(cd "$WS" && HOME=$FH "$SBXSUP" learn -m "$T_TMP/base.json" -o "$T_TMP/l2.json" -- sh -c "$TOOL" 2>&1); rc=$?
m=$(cat "$T_TMP/l2.json" 2>/dev/null)
if [ $rc -eq 0 ] && [ ! -e "$OUT/new.txt" ] && [ ! -e "$T_TMP/listener.got" ] \
   && grep -q "\"$OUT\"" <<<"$m" && grep -q "$HA:$port" <<<"$m" && grep -q 'fs:write' <<<"$m" \
   && ! grep -v '"deny"' <<<"$m" | grep -q '\.ssh\|\.env' && grep -q 'not proposed: fs:read .*\.env' <<<"$out" && grep -q 'not proposed: fs:read .*\.ssh' <<<"$out"; then
	t_pass learn_blocks_while_learning_and_never_proposes_secrets
else t_fail learn_blocks_while_learning_and_never_proposes_secrets "rc=$rc got=$(ls $T_TMP) new=$(ls "$OUT") manifest=$m out=$out"; fi
# ... and the learned manifest then lets the write happen, still without the secrets
res=$(cd "$WS" && HOME=$FH "$SBXSUP" run -m "$T_TMP/l2.json" -a "$T_TMP/a2" -- sh -c "$TOOL" 2>&1)
if [ "$(cat "$OUT/new.txt" 2>/dev/null)" = hi ] && ! grep -q 'FAKE-KEY\|API_KEY' <<<"$res" && audit_has "$T_TMP/a2" preload.deny path~.ssh/id_rsa; then
	t_pass learn_manifest_then_works
else t_fail learn_manifest_then_works "res=$res"; fi

# 3. bad arguments
"$SBXSUP" learn python3 >/dev/null 2>&1; rc=$?
t_check learn_requires_dashdash [ $rc -eq 125 ]

# 4. hostile names (issue 30): learn proposes only what it saw, as literals — a file named "*",
# "a?b", "[x]", "x\y", or holding ESC/newline is proposed escaped (matching itself only), printed
# quoted; the failed create of "/**/x" proposes nothing (no "/**"); writes under /usr, /etc,
# /var/lib and / are listed as not proposed; each grant is printed with what explain says of it,
# and the manifest validates.
O2=/var/tmp/sbxsup-learn2-$$; mkdir -p "$O2"; t_on_exit "rm -rf '$O2'"
for f in '*' 'a?b' '[x]' 'x\y' "$(printf 'e\033[2Jx')" "$(printf 'nl\nz')"; do echo hostile > "$O2/$f"; done
echo other > "$O2/other"; mkdir "$O2/w"
TOOL2="cat '$O2/*' '$O2/a?b' '$O2/[x]' '$O2/x\\y' \"\$(printf '$O2/e\\033[2Jx')\" \"\$(printf '$O2/nl\\nz')\"
	echo p > '/**/x'; echo p > /usr/local/bin/sbxsup-learn-$$; echo p > /etc/cron.d/sbxsup-learn-$$
	echo p > /var/lib/sbxsup-learn-$$; echo p > /sbxsup-learn-$$; echo p > '$O2/w/new*'; true"
out=$(cd "$WS" && "$SBXSUP" learn -m "$T_TMP/base.json" -o "$T_TMP/l4.json" -- sh -c "$TOOL2" 2>&1); rc=$?
if [ $rc -eq 0 ] && (cd "$WS" && "$SBXSUP" validate -m "$T_TMP/l4.json") >/dev/null 2>&1 && python3 - "$T_TMP/l4.json" "$O2" <<'PY'
import json, sys
m = json.load(open(sys.argv[1])); o = sys.argv[2]
hints = {}
for c in m["capabilities"]:
    if isinstance(c, dict):
        for h in ([c["hint"]] if "hint" in c else []) + c.get("hints", []):
            hints.setdefault(c["cap"], set()).add(h)
r, w = hints.get("fs:read", set()), hints.get("fs:write", set())
want = {o + "/\\*", o + "/a\\?b", o + "/[x]", o + "/x\\\\y", o + "/e\x1b[2Jx", o + "/nl\nz"}
assert want <= r, (want - r, r)
assert o + "/other" not in r and "/**" not in r | w
assert w == {o + "/w"}, w      # the directory of the created file, nothing else
for h in r | w:
    assert not h.startswith(("/usr", "/etc", "/var/lib", "/bin", "/sbin", "/lib")) and h != "/", h
PY
then
	if ! grep -q $'\x1b' <<<"$out" && grep -qF "grant fs:read \"$O2/e\\033[2Jx\"" <<<"$out" &&
	   grep -qF "grant fs:read \"$O2/nl\\nz\"" <<<"$out" && grep -qF "grant fs:read \"$O2/*\" as hint \"$O2/\\\\*\"" <<<"$out" &&
	   grep -qF "write ALLOWED by capabilities[" <<<"$out" && grep -qF "read ALLOWED by capabilities[" <<<"$out" &&
	   grep -q 'not proposed: fs:write "/usr/local/bin" — a system path' <<<"$out" &&
	   grep -q 'not proposed: fs:write "/etc/cron.d" — a system path' <<<"$out" &&
	   grep -q 'not proposed: fs:write "/var/lib" — a system path' <<<"$out" && ! grep -q '"/\*\*"' <<<"$out"; then
		t_pass learn_hostile_names_literal
	else t_fail learn_hostile_names_literal "$(cat -v <<<"$out")"; fi
else t_fail learn_hostile_names_literal "rc=$rc $(cat -v <<<"$out") manifest=$(cat "$T_TMP/l4.json" 2>/dev/null)"; fi
# ... and explain agrees: the escaped grant covers that one file, not its neighbours
e1=$("$SBXSUP" explain -w "$WS" -m "$T_TMP/l4.json" --path "$O2/*" --path "$O2/other" 2>&1)
e2=$("$SBXSUP" explain -w "$WS" -m "$T_TMP/l4.json" --write --path /usr/local/bin/x --path /etc/cron.d/x 2>&1)
if grep -qF "$O2/*: read ALLOWED by capabilities[" <<<"$e1" && grep -qF "$O2/other: read DENIED" <<<"$e1" &&
   [ "$(grep -c 'write DENIED' <<<"$e2")" = 2 ] && [ "$(grep -c 'is never writable: no manifest can grant it' <<<"$e2")" = 2 ]; then
	t_pass learn_hostile_names_explain_agrees
else t_fail learn_hostile_names_explain_agrees "$e1 $e2"; fi

# As an unprivileged user: this script again.
if [ "$(id -u)" = 0 ] && [ -z "${SBX_LEARN_INNER:-}" ]; then
	U=sbxu_learn
	if command -v useradd >/dev/null && useradd -m "$U" 2>/dev/null; then
		t_on_exit "userdel -r $U 2>/dev/null"
		chmod 755 "$T_TMP"
		out=$(cd / && runuser -u "$U" -- env SBX_LEARN_INNER=1 SBXSUP="$SBXSUP" SBX_ROOT="$SBX_ROOT" SBX_PROGS="$SBX_PROGS" \
			SBXSUP_PRELOAD_LIB="${SBXSUP_PRELOAD_LIB:-}" HOME="/home/$U" PATH="$PATH" bash "$SBX_ROOT/tests/integration/learn.sh" 2>&1)
		while IFS= read -r l; do
			case $l in PASS:*|FAIL:*|SKIP:*) echo "${l%%: *}: unpriv_${l#*: }";; esac
		done <<<"$out"
	else t_skip learn_unprivileged "cannot create user $U"; fi
fi
