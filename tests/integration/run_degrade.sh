#!/usr/bin/env bash
# run_degrade.sh — graceful degradation: bwrap absent from PATH, a broken bwrap (exits 1 before
# running anything), --require bwrap refusing both (125, nothing runs), --layers preload.
. "$(dirname "$0")/../lib.sh"

WS=$T_TMP/ws; mkdir -p "$WS"
A=$T_TMP/audit
BIN=$T_TMP/bin; mkdir -p "$BIN"
for t in sh cat env true sleep echo; do ln -s "$(command -v $t)" "$BIN/$t"; done
BROKEN=$T_TMP/broken; mkdir -p "$BROKEN"
cat > "$BROKEN/bwrap" <<'SH'
#!/bin/sh
echo "bwrap: Creating new namespace failed: Operation not permitted" >&2
exit 1
SH
chmod 755 "$BROKEN/bwrap"

# 1. no bwrap on PATH: the run still happens, with the reason recorded and one warning.
(cd "$WS" && PATH=$BIN "$SBXSUP" run -a "$A.1" -- sh -c 'echo once >> ran1.txt; cat /etc/shadow' >"$T_TMP/o1" 2>"$T_TMP/e1"); rc=$?
if [ $rc -ne 125 ] && [ "$(grep -c once "$WS/ran1.txt" 2>/dev/null)" = 1 ] \
   && audit_has "$A.1" run.start layers.bwrap=false "why.bwrap~not found" \
   && [ "$(grep -c '^sbxsup: warning: running without bwrap' "$T_TMP/e1")" = 1 ] \
   && audit_has "$A.1" preload.deny path=/etc/shadow; then t_pass run_no_bwrap_degrades
else t_fail run_no_bwrap_degrades "rc=$rc $(cat "$T_TMP/e1")"; fi

# 2. --require bwrap without bwrap: 125, message naming the layer, nothing runs.
(cd "$WS" && PATH=$BIN "$SBXSUP" run --require bwrap -a "$A.2" -- sh -c 'echo x > ran2.txt' 2>"$T_TMP/e2"); rc=$?
if [ $rc -eq 125 ] && [ ! -e "$WS/ran2.txt" ] && grep -q "required layer 'bwrap'" "$T_TMP/e2"; then
	t_pass run_require_bwrap_refuses
else t_fail run_require_bwrap_refuses "rc=$rc $(cat "$T_TMP/e2")"; fi
(cd "$WS" && PATH=$BIN SBXSUP_REQUIRE=all "$SBXSUP" run -- sh -c 'echo x > ran2b.txt' 2>/dev/null); rc=$?
if [ $rc -eq 125 ] && [ ! -e "$WS/ran2b.txt" ]; then t_pass run_require_all_env
else t_fail run_require_all_env "rc=$rc"; fi

# 3. a broken bwrap: setup failure detected without running the command twice, then degraded.
(cd "$WS" && PATH=$BROKEN:/usr/bin:/bin "$SBXSUP" run -a "$A.3" -- sh -c 'echo once >> ran3.txt; exit 7' 2>"$T_TMP/e3"); rc=$?
if [ $rc -eq 7 ] && [ "$(grep -c once "$WS/ran3.txt" 2>/dev/null)" = 1 ] \
   && audit_has "$A.3" run.start layers.bwrap=false "why.bwrap~setup failed" "why.bwrap~Creating new namespace failed" \
   && [ "$(grep -c '^sbxsup: .*without bwrap' "$T_TMP/e3")" = 1 ] && ! grep -q '^sbxsup: .*bwrap off' "$T_TMP/e3" \
   && audit_has "$A.3" run.end exit=7; then
	t_pass run_broken_bwrap_degrades
else t_fail run_broken_bwrap_degrades "rc=$rc $(cat "$T_TMP/e3")"; fi

# 4. broken bwrap + --require bwrap: 125, the command never ran.
(cd "$WS" && PATH=$BROKEN:/usr/bin:/bin "$SBXSUP" run --require bwrap -- sh -c 'echo x > ran4.txt' 2>"$T_TMP/e4"); rc=$?
if [ $rc -eq 125 ] && [ ! -e "$WS/ran4.txt" ] && grep -q "required layer 'bwrap'" "$T_TMP/e4"; then
	t_pass run_broken_bwrap_require
else t_fail run_broken_bwrap_require "rc=$rc $(cat "$T_TMP/e4")"; fi

# 5. --layers preload: preload-only mode; libc-level secret read still denied, private TMPDIR:
#    /tmp itself in the run's mount namespace (a private dir on the host, gone after the run), or
#    the private dir /tmp/sbxsup-* when no mount namespace can be made.
out=$(cd "$WS" && "$SBXSUP" run --layers preload -a "$A.5" -- sh -c 'echo "$TMPDIR"; echo x > "$TMPDIR/nbw-$PPID"; cat /etc/shadow' 2>/dev/null); rc=$?
tmpd=$(head -1 <<<"$out")
if [ "$tmpd" = /tmp ]; then priv_tmp_ok() { audit_has "$A.5" run.start level.ns~mnt && ! ls /tmp/nbw-* >/dev/null 2>&1; }
else priv_tmp_ok() { [[ "$tmpd" == /tmp/sbxsup-* ]] && [ ! -e "$tmpd" ]; }; fi
if [ $rc -ne 0 ] && ! grep -q '^root:' <<<"$out" && priv_tmp_ok \
   && audit_has "$A.5" run.start layers.preload=true layers.bwrap=false layers.seccomp=false "why.bwrap~not selected" \
   && audit_has "$A.5" preload.deny path=/etc/shadow; then t_pass run_preload_only
else t_fail run_preload_only "rc=$rc out=$out"; fi

# 6. status sees the broken bwrap by a functional probe and says how to fix it.
PATH=$BROKEN:/usr/bin:/bin "$SBXSUP" status --json >"$T_TMP/st.json"; rc=$?
if [ $rc -eq 0 ] && python3 - "$T_TMP/st.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
b = s["layers"]["bwrap"]
assert s["bwrap_available"] is False and b["available"] is False
assert "cannot create a sandbox" in b["why"] and b["remediation"]
assert "bwrap" not in s["active"]
PY
then t_pass run_status_broken_bwrap; else t_fail run_status_broken_bwrap "rc=$rc $(cat "$T_TMP/st.json")"; fi
