#!/usr/bin/env bash
# compat_tools.sh — the ordinary tools an executor calls, under the default layers (full) and without
# bwrap (nobwrap), as root and (this script again) as a normal user:
#   ps, top, pgrep list the run's own processes (its own pid namespace; builtin:proc-pidns);
#   whoami, id -un, getent passwd/group name the executor "sbxsup" with the run's HOME, and no host
#   user's name or home is visible; curl, sqlite3 and git read no rc file of another home (no
#   denial naming a home other than the run's in the audit);
#   chown to an unmapped id fails with EPERM (the host file's owner unchanged);
#   a tree ~3000 bytes deep in the workspace is created, written, read and removed;
#   a workspace of /, /tmp (-w or the current directory) runs in an empty temporary one, with a note.
. "$(dirname "$0")/../lib.sh"

MODES=(full nobwrap)
mode_layers() { case $1 in full) echo auto ;; nobwrap) echo preload,seccomp,landlock,netfilter,probes,limits ;; esac; }
AU=$T_TMP/audit; mkdir -p "$AU"

# events FILE MAXSEV : the security events of a stream above MAXSEV (one line each: sev rule path)
events() {
	python3 - "$1" "$2" <<'PY'
import json, signal, sys
signal.signal(signal.SIGPIPE, signal.SIG_DFL)   # a reader that stops early (grep -q)
SEC = {"preload.deny", "kernel.violation", "seccomp.deny", "landlock.deny", "netfilter.deny"}
ORDER = ["info", "low", "medium", "high", "critical"]
top = ORDER.index(sys.argv[2])
for l in open(sys.argv[1], encoding="utf-8", errors="replace"):
    try: o = json.loads(l)
    except ValueError: continue
    if o.get("event") in SEC and ORDER.index(o.get("sev", "critical")) > top:
        print(o.get("sev"), o.get("rule"), o.get("syscall") or o.get("op"), (o.get("path") or o.get("host") or "")[:200])
PY
}
# sbx_probes_on FILE : the run's probes layer was on (run.start)
sbx_probes_on() { grep -q '"event":"run.start".*"probes":true' "$1"; }
# run_in MODE NAME SCRIPT : sh -c SCRIPT in a fresh workspace; output in $T_TMP/NAME.out, audit $AU/NAME
run_in() {
	local ws=$T_TMP/ws-$2; mkdir -p "$ws"
	(cd "$ws" && timeout 120 "$SBXSUP" run --layers "$(mode_layers "$1")" -a "$AU/$2" -- sh -c "$3") \
		>"$T_TMP/$2.out" 2>"$T_TMP/$2.err"
}

for mode in "${MODES[@]}"; do
	# ---- ps, top, pgrep: the run's own processes ----------------------------------------------------
	n=ps_$mode
	run_in "$mode" "$n" 'sleep 30 & s=$!; ps aux > ps.txt && top -b -n1 > top.txt && pgrep -x sleep > pg.txt;
		rc=$?; kill $s; cat ps.txt top.txt pg.txt; echo "sleep=$s rc=$rc"'
	rc=$?; out=$(cat "$T_TMP/$n.out"); sp=$(sed -n 's/^sleep=\([0-9]*\) rc=0$/\1/p' <<<"$out")
	# (ps reads each process's environ, which stays refused and reported: README "/proc")
	den=$(events "$AU/$n" info | grep -vE '^low default: not granted [a-z]+ /proc/[0-9]+/(task/[0-9]+/)?environ$')
	if [ $rc -eq 0 ] && [ -n "$sp" ] && grep -q "ps aux" <<<"$out" && grep -qx "$sp" <<<"$out" \
	   && grep -q "PID USER" <<<"$out" && ! grep -q "fatal library error" "$T_TMP/$n.err" && [ -z "$den" ] \
	   && [ "$(grep -c 'sleep 30' <<<"$out")" -ge 1 ]; then t_pass "compat_tools_ps_top_pgrep_$mode"
	else t_fail "compat_tools_ps_top_pgrep_$mode" "rc=$rc out=$(tail -c 400 <<<"$out") err=$(tail -c 300 "$T_TMP/$n.err") denials=$den"; fi
	# only the run's processes: no host process (this script's own shell) is listed
	if ! grep -qw -- "$$" <<<"$(awk '{print $2}' <<<"$out")" && ! grep -q "compat_tools.sh" <<<"$out"; then
		t_pass "compat_tools_ps_only_the_run_$mode"
	else t_fail "compat_tools_ps_only_the_run_$mode" "a host process is listed: $(grep -w -- "$$" <<<"$out" | head -2)"; fi

	# nothing of sbxsup's own environment in any process of the run: another process's environ is
	# refused (and reported)
	n=environ_$mode
	(cd "$T_TMP" && mkdir -p "ws-$n" && cd "ws-$n" && SBXSUP_CT_SECRET="ct-secret-$$" timeout 60 "$SBXSUP" run \
		--layers "$(mode_layers "$mode")" -a "$AU/$n" -- sh -c 'sleep 5 & for p in /proc/[0-9]*; do
		tr "\0" "\n" < "$p/environ"; done; kill $!') >"$T_TMP/$n.out" 2>&1
	rc=$?
	if [ $rc -eq 0 ] && grep -q '^HOME=' "$T_TMP/$n.out" && ! grep -q "ct-secret-$$" "$T_TMP/$n.out" \
	   && grep -q '/proc/1/environ: Permission denied' "$T_TMP/$n.out" \
	   && events "$AU/$n" info | grep -q ' /proc/1/environ$'; then t_pass "compat_tools_environ_$mode"
	else t_fail "compat_tools_environ_$mode" "rc=$rc $(grep -c "ct-secret-$$" "$T_TMP/$n.out") secret lines; $(head -c 300 "$T_TMP/$n.out")"; fi

	# ---- the executor's identity: sbxsup, with the run's HOME -------------------------------------------
	n=id_$mode
	run_in "$mode" "$n" 'echo "w=$(whoami) u=$(id -un) g=$(id -gn)"; getent passwd "$(id -u)"; getent group "$(id -g)";
		echo "home=$HOME"; cat /etc/passwd /etc/group > db.txt; cat db.txt'
	rc=$?; out=$(cat "$T_TMP/$n.out"); home=$(sed -n 's/^home=//p' <<<"$out")
	host_name=$(id -un)
	pw=$(grep -m1 '^sbxsup:x:' <<<"$out")
	if [ $rc -eq 0 ] && grep -q '^w=sbxsup u=sbxsup g=sbxsup$' <<<"$out" && [ -n "$home" ] \
	   && [ "$(cut -d: -f6 <<<"$pw")" = "$home" ] && grep -q '^sbxsup:x:[0-9]*:$' <<<"$out"; then
		t_pass "compat_tools_identity_$mode"
	else t_fail "compat_tools_identity_$mode" "rc=$rc out=$(head -c 400 <<<"$out")"; fi
	# no host user of the executor's uid: the host's name for that uid (root's run: uid 1000's owner)
	hu=$(getent passwd "$(cut -d: -f3 <<<"$pw")" | cut -d: -f1)
	if [ -n "$pw" ] && { [ -z "$hu" ] || [ "$hu" = sbxsup ] || ! grep -qw -- "$hu" "$T_TMP/ws-$n/db.txt"; }; then
		t_pass "compat_tools_no_host_name_$mode"
	else t_fail "compat_tools_no_host_name_$mode" "host name '$hu' (invoker $host_name) in the run's passwd/group"; fi

	# ---- curl, sqlite3, git: no rc file looked for in another home --------------------------------------
	n=rc_$mode
	if command -v curl >/dev/null && command -v sqlite3 >/dev/null && command -v git >/dev/null; then
		run_in "$mode" "$n" 'curl --version >/dev/null && sqlite3 :memory: "select 1" && git --version >/dev/null &&
			git config --list >/dev/null; echo "home=$HOME"'
		rc=$?; home=$(sed -n 's/^home=//p' "$T_TMP/$n.out")
		other=$(python3 - "$AU/$n" "$home" <<'PY'
import json, sys
home = sys.argv[2].rstrip("/")
for l in open(sys.argv[1], encoding="utf-8", errors="replace"):
    try: o = json.loads(l)
    except ValueError: continue
    p = o.get("path") or ""
    if o.get("event", "").endswith((".deny", ".violation")) and (p.startswith(("/home/", "/root")) or "/." in p) \
       and not (home and p.startswith(home + "/")):
        print(o.get("event"), p)
PY
)
		if [ $rc -eq 0 ] && [ -n "$home" ] && [ -z "$other" ]; then t_pass "compat_tools_no_rc_noise_$mode"
		else t_fail "compat_tools_no_rc_noise_$mode" "rc=$rc home=$home denials=$(head -n 3 <<<"$other") err=$(tail -c 300 "$T_TMP/$n.err")"; fi
	else t_skip "compat_tools_no_rc_noise_$mode" "needs curl, sqlite3 and git (make test-deps)"; fi

	# ---- chown to an unmapped id: EPERM, the file's owner unchanged -------------------------------------
	n=chown_$mode
	run_in "$mode" "$n" 'echo x > f; python3 -c "
import errno, os
for u, g in ((4242, -1), (-1, 4242), (0, -1)):
    try: os.chown(\"f\", u, g); print(\"ok\", u, g)
    except OSError as e: print(errno.errorcode[e.errno], u, g)
"'
	rc=$?; out=$(cat "$T_TMP/$n.out"); own=$(stat -c %u:%g "$T_TMP/ws-$n/f" 2>/dev/null)
	if [ $rc -eq 0 ] && [ "$(grep -c '^EPERM' <<<"$out")" = 3 ] && [ -n "$own" ] \
	   && [ "${own%%:*}" != 4242 ] && [ "${own#*:}" != 4242 ] && [ "${own%%:*}" != 0 -o "$(id -u)" = 0 ]; then
		t_pass "compat_tools_chown_eperm_$mode"
	else t_fail "compat_tools_chown_eperm_$mode" "rc=$rc out=$out owner=$own"; fi

	# ---- chown to the executor's own ids (in its namespace's terms) succeeds ------------------------------
	n=chown_self_$mode
	run_in "$mode" "$n" 'echo x > g; python3 -c "
import os
os.chown(\"g\", os.getuid(), os.getgid()); os.chown(\"g\", -1, os.getgid()); print(\"ok\")
"'
	rc=$?
	if [ $rc -eq 0 ] && grep -q '^ok$' "$T_TMP/$n.out"; then t_pass "compat_tools_chown_self_$mode"
	else t_fail "compat_tools_chown_self_$mode" "rc=$rc out=$(cat "$T_TMP/$n.out") err=$(tail -c 300 "$T_TMP/$n.err")"; fi

	# ---- a tree ~3000 bytes deep: create, write, read, remove -------------------------------------------
	n=deep_$mode
	run_in "$mode" "$n" 'python3 -c "
import os, shutil
p = \"deep\"
while len(os.path.abspath(p)) < 3000:
    p = os.path.join(p, \"d\" * 100)
os.makedirs(p)
f = os.path.join(p, \"file\")
open(f, \"w\").write(\"deep-ok\")
print(open(f).read(), len(os.path.abspath(f)))
shutil.rmtree(\"deep\")
"'
	rc=$?; out=$(cat "$T_TMP/$n.out")
	# decided in full (the kernel's limit, PATH_MAX): nothing above `low` (never `undecidable`)
	high=$(events "$AU/$n" low)
	if [ $rc -eq 0 ] && grep -q '^deep-ok 3' <<<"$out" && [ ! -e "$T_TMP/ws-$n/deep" ] && [ -z "$high" ]; then
		t_pass "compat_tools_deep_path_$mode"
	else t_fail "compat_tools_deep_path_$mode" "rc=$rc out=$out events=$(head -n 3 <<<"$high")"; fi
	# ... and a long relative name that climbs to a secret is still decided (by the probes too: a
	# static program, raw openat, no preload): refused, reported as the secret it names
	n=deepatk_$mode; ws=$T_TMP/ws-$n; mkdir -p "$ws/a"
	rel=a; while [ ${#rel} -lt 600 ]; do rel="$rel/../a"; done
	up=$(tr -cd / <<<"$ws" | wc -c); for _ in $(seq 0 "$up"); do rel="$rel/.."; done; rel="$rel/etc/shadow"
	out=$(cd "$ws" && timeout 60 "$SBXSUP" run --layers "$(mode_layers "$mode")" -a "$AU/$n" -- \
		"$SBX_PROGS/k_attack_static" open "$rel" 2>&1); rc=$?
	if grep -q '^open: blocked' <<<"$out" && ! grep -q 'SUCCEEDED' <<<"$out" \
	   && ! events "$AU/$n" info | grep -q undecidable \
	   && { ! sbx_probes_on "$AU/$n" || events "$AU/$n" high | grep -q '/etc/shadow'; }; then
		t_pass "compat_tools_deep_path_attack_$mode"
	else t_fail "compat_tools_deep_path_attack_$mode" "rc=$rc out=$out events=$(events "$AU/$n" info | head -n 3)"; fi
done

# ---- a workspace of /, /tmp: an empty temporary one, with a note ------------------------------------------
for w in / /tmp; do
	for how in cwd flag; do
		n=ws_$(tr / _ <<<"$w")_$how
		if [ $how = cwd ]; then out=$(cd "$w" && timeout 60 "$SBXSUP" run -- sh -c 'pwd; touch marker' 2>&1); rc=$?
		else out=$(cd "$T_TMP" && timeout 60 "$SBXSUP" run -w "$w" -- sh -c 'pwd; touch marker' 2>&1); rc=$?; fi
		twd=$(grep -m1 '^/tmp/sbxsup-ws\.' <<<"$out")
		if [ $rc -eq 0 ] && grep -q "note: \"$w\" is never a workspace" <<<"$out" && [ -n "$twd" ] && [ ! -e "$twd" ] \
		   && [ ! -e "$w/marker" ]; then t_pass "compat_tools_workspace${n#ws}"
		else t_fail "compat_tools_workspace${n#ws}" "rc=$rc out=$(tail -c 400 <<<"$out")"; fi
	done
done

# ---- the same as a normal user (this script again, as that user) -------------------------------------------
if [ "$(id -u)" = 0 ] && [ -z "${SBX_CT_INNER:-}" ]; then
	U=sbxu_ctools
	if command -v useradd >/dev/null && useradd -m "$U" 2>/dev/null; then
		t_on_exit "userdel -r $U 2>/dev/null"
		out=$(runuser -u "$U" -- env SBX_CT_INNER=1 SBXSUP="$SBXSUP" SBX_ROOT="$SBX_ROOT" SBX_PROGS="$SBX_PROGS" \
			HOME="/home/$U" PATH="$PATH" bash "$0" 2>&1)
		while IFS= read -r l; do
			case $l in PASS:*|FAIL:*|SKIP:*) echo "${l%%: *}: unpriv_${l#*: }";; esac
		done <<<"$out"
	else t_skip compat_tools_unprivileged "cannot create user $U"; fi
fi
