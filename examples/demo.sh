#!/usr/bin/env bash
# demo.sh — `make demo`: an honest and a hostile executor under sbxsup, with the built-in default
# manifest and real manifests, all into one audit file, ending with the summary a reviewer reads.
# Works as root or as a normal user (layers this host cannot give are reported, not faked).
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SBXSUP=${SBXSUP:-$ROOT/build/sbxsup}
[ -x "$SBXSUP" ] || { echo "demo: $SBXSUP not built (run make)" >&2; exit 1; }
DEMO=$(mktemp -d /tmp/sbxsup-demo.XXXXXX)
chmod 755 "$DEMO"
MARK=/var/tmp/sbxsup-demo-escaped
# SBXSUP_DEMO_AUDIT_OUT=FILE keeps a copy of the demo's audit stream (tests/integration/review.sh)
trap '[ -n "${SBXSUP_DEMO_AUDIT_OUT:-}" ] && cp "$AUDIT" "$SBXSUP_DEMO_AUDIT_OUT"; rm -rf "$DEMO"' EXIT
WS=$DEMO/workspace
mkdir -p "$WS/notes/projects" "$WS/out" "$WS/bin" "$DEMO/home/.ssh"
cp "$ROOT/examples/executors/notes_search.py" "$ROOT/examples/executors/hostile.py" "$WS/bin/"
printf 'Sandbox review on Monday\nbuy milk\n' > "$WS/notes/todo.txt"
printf 'sbxsup: sandbox layers for agent tools\n' > "$WS/notes/projects/sbxsup.md"
printf 'API_KEY=do-not-leak\n' > "$WS/notes/.env"
printf 'FAKE-DEMO-PRIVATE-KEY\n' > "$DEMO/home/.ssh/id_rsa"; chmod 600 "$DEMO/home/.ssh/id_rsa"
AUDIT=$DEMO/audit.jsonl
rm -f "$MARK"

say() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
run() { # title, then sbxsup run arguments; the payload comes from $PAYLOAD
	say "$1"; shift
	echo "\$ sbxsup run $*"
	(cd "$WS" && printf '%s' "$PAYLOAD" | HOME=$DEMO/home OPENAI_API_KEY=sk-demo-not-a-real-key \
		"$SBXSUP" run --timeout 60 -a "$AUDIT" "$@")
	echo "(exit status $?)"
}

say "what this host can enforce"
"$SBXSUP" status

PAYLOAD='{"query": "sandbox"}'
run "honest executor, built-in default manifest" -- python3 bin/notes_search.py
run "honest executor, examples/manifests/demo-notes.json" -m "$ROOT/examples/manifests/demo-notes.json" -- python3 bin/notes_search.py
PAYLOAD='{"query": "anything", "home": "'"$DEMO/home"'"}'
run "hostile executor, built-in default manifest" -- python3 bin/hostile.py
run "hostile executor, examples/manifests/hostile-demo.json" -m "$ROOT/examples/manifests/hostile-demo.json" -- python3 bin/hostile.py
run "hostile executor, examples/manifests/demo-notes.json (no code:exec: even exec is refused)" -m "$ROOT/examples/manifests/demo-notes.json" -- python3 bin/hostile.py
say "preload-only mode: the weakest mode (what you get without bwrap and kernel layers)"
echo "Only the libc-level filter enforces here; a raw system call or ptrace bypasses it. The probes"
echo "(when this host has them) still see every bypass: the summary below lists them as breaches."
run "hostile executor, preload-only mode (+probes, limits)" --layers preload,probes,limits -- python3 bin/hostile.py

say "did anything escape?"
if [ -e "$MARK" ]; then echo "ESCAPED: $MARK exists"; rm -f "$MARK"; else echo "no: $MARK was never written"; fi

say "audit summary ($AUDIT)"
if ! "$SBXSUP" audit summary "$AUDIT"; then
	echo "(audit summary unavailable; the raw stream follows)"; cat "$AUDIT"
fi
"$SBXSUP" audit verify "$AUDIT" >/dev/null 2>&1 && echo "audit verify: hash chains intact"
