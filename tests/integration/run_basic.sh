#!/usr/bin/env bash
# run_basic.sh — `sbxsup run` basics with real bwrap: secrets stay unreadable (fake HOME and, as
# root, the real /root/.ssh and /etc/shadow), the workspace is writable, exit statuses, environment
# scrubbing with env.drop, SBXSUP_SANDBOX=0, --dry-run and status --json parse.
. "$(dirname "$0")/../lib.sh"

WS=$T_TMP/ws; mkdir -p "$WS"
FH=$T_TMP/home; mkdir -p "$FH/.ssh"; echo "FAKE-PRIVATE-KEY-$$" > "$FH/.ssh/id_rsa"; chmod 600 "$FH/.ssh/id_rsa"
A=$T_TMP/audit.jsonl

# 1. ~/.ssh/id_rsa (a fake home) is unreadable; the preload reports it.
out=$(cd "$WS" && HOME=$FH "$SBXSUP" run -a "$A.1" -- cat "$FH/.ssh/id_rsa" 2>&1); rc=$?
if [ $rc -ne 0 ] && ! grep -q FAKE-PRIVATE-KEY <<<"$out" && audit_has "$A.1" preload.deny op=open path~.ssh/id_rsa \
   && audit_has "$A.1" run.start layers.bwrap=true && audit_has "$A.1" run.end exit=$rc; then
	t_pass run_ssh_key_fake_home
else t_fail run_ssh_key_fake_home "rc=$rc out=$out"; fi

# 2. as root: the real /etc/shadow and /root/.ssh stay unreadable (bwrap does not even bind them).
if need_root run_root_secrets; then
	mkdir -p /root/.ssh; created=
	[ -e /root/.ssh/sbxsup_test_key ] || { echo "ROOT-SECRET-$$" > /root/.ssh/sbxsup_test_key; created=1; }
	[ -n "$created" ] && t_on_exit "rm -f /root/.ssh/sbxsup_test_key"
	out=$(cd "$WS" && "$SBXSUP" run -a "$A.2" -- sh -c 'cat /etc/shadow; cat /root/.ssh/sbxsup_test_key; ls /root' 2>&1); rc=$?
	if [ $rc -ne 0 ] && ! grep -q "ROOT-SECRET-$$" <<<"$out" && ! grep -q '^root:' <<<"$out" \
	   && audit_has "$A.2" preload.deny path=/etc/shadow && audit_has "$A.2" preload.deny path~/root; then
		t_pass run_root_secrets
	else t_fail run_root_secrets "rc=$rc out=$out"; fi
	# Without the preload (bwrap + kernel layers only) it is still unreadable.
	out=$(cd "$WS" && "$SBXSUP" run --layers bwrap,landlock,seccomp -a "$A.2b" -- sh -c 'cat /etc/shadow; cat /root/.ssh/sbxsup_test_key' 2>&1); rc=$?
	if [ $rc -ne 0 ] && ! grep -q "ROOT-SECRET-$$" <<<"$out" && ! grep -q '^root:' <<<"$out" \
	   && audit_has "$A.2b" run.start layers.preload=false layers.bwrap=true; then
		t_pass run_root_secrets_no_preload
	else t_fail run_root_secrets_no_preload "rc=$rc out=$out"; fi
fi

# 3. the workspace is writable; the file lands in the real workspace.
rm -f "$WS/out.txt"
(cd "$WS" && "$SBXSUP" run -a "$A.3" -- sh -c 'echo ok > out.txt'); rc=$?
if [ $rc -eq 0 ] && [ "$(cat "$WS/out.txt" 2>/dev/null)" = ok ]; then t_pass run_workspace_write
else t_fail run_workspace_write "rc=$rc"; fi

# 3b. writing outside the workspace fails (/var/tmp is not granted); /tmp is private (a write there
# never reaches the host's /tmp).
OUTSIDE=/var/tmp/sbxsup-run-test-$$; t_on_exit "rm -f $OUTSIDE"
(cd "$WS" && "$SBXSUP" run -a "$A.3b" -- sh -c "echo x > $OUTSIDE" 2>/dev/null); rc=$?
(cd "$WS" && "$SBXSUP" run -- sh -c "echo x > $T_TMP/private-tmp.txt" 2>/dev/null); rc2=$?
if [ $rc -ne 0 ] && [ ! -e "$OUTSIDE" ] && [ ! -e "$T_TMP/private-tmp.txt" ] \
   && audit_has "$A.3b" preload.deny access=write path=$OUTSIDE; then t_pass run_write_outside_denied
else t_fail run_write_outside_denied "rc=$rc rc2=$rc2"; fi

# 4. exit statuses.
(cd "$WS" && "$SBXSUP" run -- true); r0=$?
(cd "$WS" && "$SBXSUP" run -- sh -c 'exit 3'); r3=$?
(cd "$WS" && "$SBXSUP" run -a "$A.4" -- sh -c 'kill -TERM $$'); rs=$?
(cd "$WS" && "$SBXSUP" run -- /no/such/command 2>"$T_TMP/e127"); r127=$?
printf 'echo hi\n' > "$WS/noexec.sh"; chmod 644 "$WS/noexec.sh"
(cd "$WS" && "$SBXSUP" run -- ./noexec.sh 2>"$T_TMP/e126"); r126=$?
if [ $r0 -eq 0 ] && [ $r3 -eq 3 ] && [ $rs -eq 143 ] && [ $r127 -eq 127 ] && [ $r126 -eq 126 ] \
   && grep -q 'sbxsup: "/no/such/command": not found' "$T_TMP/e127" && grep -q 'permission denied' "$T_TMP/e126" \
   && audit_has "$A.4" run.end exit=143 signal=15; then
	t_pass run_exit_statuses
else t_fail run_exit_statuses "0:$r0 3:$r3 sig:$rs 127:$r127 126:$r126"; fi

# 5. environment: empty + allowlist; secret-shaped names dropped even when listed (env.drop, no value).
M=$T_TMP/env.json
cat > "$M" <<JSON
{"sbxsup":1,"name":"envtest","capabilities":["code:exec"],
 "env":{"pass":["MY_*","GITHUB_TOKEN"],"set":{"FIXED":"1","DB_PASSWORD":"hunter2"}}}
JSON
out=$(cd "$WS" && env MY_VISIBLE=yes MY_API_KEY=s3cr3t GITHUB_TOKEN=ghp_x UNLISTED=no \
      "$SBXSUP" run -m "$M" -a "$A.5" -- env 2>&1); rc=$?
if [ $rc -eq 0 ] && grep -q '^MY_VISIBLE=yes$' <<<"$out" && grep -q '^FIXED=1$' <<<"$out" \
   && ! grep -qE 'MY_API_KEY|GITHUB_TOKEN|DB_PASSWORD|UNLISTED|s3cr3t|hunter2' <<<"$out" \
   && grep -q '^HOME=' <<<"$out" && grep -q '^PATH=' <<<"$out" \
   && audit_has "$A.5" env.drop name=MY_API_KEY && audit_has "$A.5" env.drop name=GITHUB_TOKEN \
   && audit_has "$A.5" env.drop name=DB_PASSWORD && ! grep -qE 's3cr3t|hunter2|ghp_x' "$A.5"; then
	t_pass run_env_scrub
else t_fail run_env_scrub "rc=$rc out=$out"; fi

# 6. SBXSUP_SANDBOX=0: runs unchanged, recorded; refused under --require.
out=$(cd "$WS" && SBXSUP_SANDBOX=Off SOMEVAR=kept "$SBXSUP" run -a "$A.6" -- sh -c 'echo $SOMEVAR; cat /etc/hostname >/dev/null && echo readable' 2>/dev/null); rc=$?
if [ $rc -eq 0 ] && grep -q kept <<<"$out" && audit_has "$A.6" run.start layers.bwrap=false layers.preload=false \
   "why.bwrap~disabled via SBXSUP_SANDBOX"; then t_pass run_sandbox_disabled
else t_fail run_sandbox_disabled "rc=$rc out=$out"; fi
(cd "$WS" && SBXSUP_SANDBOX=0 "$SBXSUP" run --require bwrap -- sh -c 'echo SHOULD-NOT-RUN' >"$T_TMP/o6" 2>"$T_TMP/e6"); rc=$?
if [ $rc -eq 125 ] && ! grep -q SHOULD-NOT-RUN "$T_TMP/o6" && grep -q "bwrap" "$T_TMP/e6"; then
	t_pass run_sandbox_disabled_require
else t_fail run_sandbox_disabled_require "rc=$rc"; fi

# 7. --dry-run prints parseable JSON, runs nothing.
(cd "$WS" && "$SBXSUP" run --dry-run -- sh -c "touch $WS/dry-ran" >"$T_TMP/plan.json"); rc=$?
if [ $rc -eq 0 ] && [ ! -e "$WS/dry-ran" ] && python3 - "$T_TMP/plan.json" <<'PY'
import json, sys
p = json.load(open(sys.argv[1]))
assert set(p["layers"]) == {"preload","bwrap","seccomp","landlock","netfilter","probes","limits"}
argv = p["bwrap"]["argv"]
assert "--unshare-net" in argv and "--clearenv" in argv and "--die-with-parent" in argv
assert "--tmpfs" in argv and "/tmp" in argv
assert "PATH" in p["env"] and "limits" in p and "seccomp" in p
PY
then t_pass run_dry_run_json; else t_fail run_dry_run_json "rc=$rc"; fi

# 8. status --json parses and has the keys.
"$SBXSUP" status --json >"$T_TMP/status.json"; rc=$?
if [ $rc -eq 0 ] && python3 - "$T_TMP/status.json" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
for k in ("bwrap_available", "bwrap_path", "disabled_via_env", "active", "layers"):
    assert k in s, k
for n, l in s["layers"].items():
    assert {"available", "level", "why", "remediation"} <= set(l), n
PY
then t_pass run_status_json; else t_fail run_status_json "rc=$rc"; fi

# 9. bad arguments: 125, nothing runs.
(cd "$WS" && "$SBXSUP" run --layers bogus -- true 2>/dev/null); r1=$?
(cd "$WS" && "$SBXSUP" run -m /no/such/manifest.json -- true 2>/dev/null); r2=$?
(cd "$WS" && "$SBXSUP" run 2>/dev/null); r3=$?
if [ $r1 -eq 125 ] && [ $r2 -eq 125 ] && [ $r3 -eq 125 ]; then t_pass run_bad_args
else t_fail run_bad_args "$r1 $r2 $r3"; fi

# 10. audit stream unwritable: fail closed (125), the command never runs.
(cd "$WS" && "$SBXSUP" run -a /dev/full -- sh -c 'echo ran > full-ran.txt' 2>"$T_TMP/e10"); rc=$?
(cd "$WS" && "$SBXSUP" run -a /no/such/dir/audit.jsonl -- sh -c 'echo ran > full-ran.txt' 2>/dev/null); rc2=$?
if [ $rc -eq 125 ] && [ $rc2 -eq 125 ] && [ ! -e "$WS/full-ran.txt" ] && grep -q 'fail closed' "$T_TMP/e10"; then
	t_pass run_audit_fail_closed
else t_fail run_audit_fail_closed "rc=$rc rc2=$rc2"; fi

# 11. stdin/stdout pass through untouched (executors take JSON on stdin, print JSON on stdout).
out=$(printf '{"q": "x"}' | (cd "$WS" && "$SBXSUP" run -- cat)); rc=$?
if [ $rc -eq 0 ] && [ "$out" = '{"q": "x"}' ]; then t_pass run_stdio_passthrough
else t_fail run_stdio_passthrough "rc=$rc out=$out"; fi

# 12. fds the caller left open (here a directory fd on /, a way out of bwrap's mount namespace) do
# not reach the command, in bwrap and direct mode.
ok=1
for layers in auto preload,limits; do
	out=$(cd "$WS" && "$SBXSUP" run --layers $layers -- sh -c 'for f in 7 8; do [ -e /proc/self/fd/$f ] && echo LEAKED-$f; done; true' 7</ 8>"$T_TMP/leak.txt" 2>&1)
	grep -q LEAKED <<<"$out" && ok=0
done
if [ $ok -eq 1 ]; then t_pass run_no_fd_leak; else t_fail run_no_fd_leak "$out"; fi

# 13. bwrap alone (no preload, no Landlock) masks existing deny paths: a denied directory is an
# empty read-only tmpfs, a denied file is unreadable.
mkdir -p "$WS/secret"; echo TOPSECRET-$$ > "$WS/secret/a.txt"; echo PEMKEY-$$ > "$WS/key.pem"
cat > "$T_TMP/mask.json" <<JSON
{"sbxsup":1,"name":"masktest","capabilities":["code:exec"],"deny":["./secret/**","./key.pem"]}
JSON
out=$(cd "$WS" && "$SBXSUP" run -m "$T_TMP/mask.json" --layers bwrap -a "$A.13" -- sh -c 'cat secret/a.txt; cat key.pem; echo x > secret/new' 2>&1); rc=$?
if [ $rc -ne 0 ] && ! grep -qE "TOPSECRET-$$|PEMKEY-$$" <<<"$out" && [ ! -e "$WS/secret/new" ] \
   && audit_has "$A.13" run.start layers.bwrap=true layers.preload=false layers.landlock=false; then
	t_pass run_bwrap_masks_deny
else t_fail run_bwrap_masks_deny "rc=$rc out=$out"; fi

# 14. a workspace that is /tmp (or /dev/shm, /var/tmp, /) itself is never used: every run has a private
# /tmp, which would hide it (bwrap). The run goes on in an empty temporary workspace, with a note on
# stderr, removed afterwards; nothing lands in the host's /tmp. (tests/integration/compat_tools.sh
# checks each of them, from the current directory and with -w.)
rm -f /tmp/sbxsup-ws-tmp-marker-$$
out=$(cd /tmp && "$SBXSUP" run -- sh -c "touch sbxsup-ws-tmp-marker-$$ && pwd" 2>&1); rc=$?
twd=$(grep -m1 '^/tmp/sbxsup-ws\.' <<<"$out")
if [ $rc -eq 0 ] && grep -q 'note: "/tmp" is never a workspace' <<<"$out" && [ -n "$twd" ] && [ ! -e "$twd" ] \
   && [ ! -e /tmp/sbxsup-ws-tmp-marker-$$ ]; then
	t_pass run_workspace_tmp_temporary
else t_fail run_workspace_tmp_temporary "rc=$rc out=$out"; rm -f /tmp/sbxsup-ws-tmp-marker-$$; fi
