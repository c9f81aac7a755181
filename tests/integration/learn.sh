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
if [ $rc -eq 0 ] && "$SBXSUP" validate -m "$T_TMP/learned.json" >/dev/null 2>&1 && grep -q '"todo.txt"\|todo.txt' <<<"$res" && [ "$bad" = 0 ]; then
	t_pass learn_demo_executor_runs_clean
else t_fail learn_demo_executor_runs_clean "rc=$rc bad=$bad out=$out res=$res"; fi

# 2. a tool that reads and writes outside the workspace, talks to a port and reads secrets.
OUT=/var/tmp/sbxsup-learn-$$; mkdir -p "$OUT"; t_on_exit "rm -rf '$OUT'"
echo data > "$OUT/data.txt"; echo 'API_KEY=x' > "$OUT/.env"
FH=$T_TMP/home; mkdir -p "$FH/.ssh"; echo FAKE-KEY > "$FH/.ssh/id_rsa"
cat > "$T_TMP/base.json" <<J
{"sbxsup": 1, "name": "learn-t", "capabilities": ["code:exec"], "deny": ["**/.env"]}
J
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
python3 - "$port" "$T_TMP/listener.got" <<'PY' &
import socket, sys
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(4); s.settimeout(20)
try:
    c, _ = s.accept(); open(sys.argv[2], "w").write("connected")
except OSError: pass
PY
lpid=$!; t_on_exit "kill $lpid 2>/dev/null"
TOOL="cat '$OUT/data.txt'; cat '$OUT/.env'; cat '$FH/.ssh/id_rsa'; echo hi > '$OUT/new.txt'; python3 -c 'import socket; socket.create_connection((\"127.0.0.1\", $port), 2)'; true"
out=$(cd "$WS" && HOME=$FH "$SBXSUP" learn -m "$T_TMP/base.json" -o "$T_TMP/l2.json" -- sh -c "$TOOL" 2>&1); rc=$?
m=$(cat "$T_TMP/l2.json" 2>/dev/null)
if [ $rc -eq 0 ] && [ ! -e "$OUT/new.txt" ] && [ ! -e "$T_TMP/listener.got" ] \
   && grep -q "\"$OUT\"" <<<"$m" && grep -q "127.0.0.1:$port" <<<"$m" && grep -q 'fs:write' <<<"$m" \
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
