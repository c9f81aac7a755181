#!/usr/bin/env bash
# run_nobwrap.sh — without bwrap it is still a sandbox (issue 13) and the same world as with it
# (issue 17): the executor's identity owns nothing (never the host's uid 0: its own user namespace,
# or the unprivileged host identity with SBXSUP_USERNS=0), raw permission/metadata changes of a
# root-owned host file change nothing, host SysV shm and host /dev/shm are invisible, /tmp is
# writable and private, HOME is private, the pid namespace has its own procfs, the workspace stays
# writable (idmapped) and its files keep their owner; bwrap mode runs as a non-zero uid too;
# sbxsup inside sbxsup. As root and as an unprivileged user (sbxu_nobwrap, removed after).
. "$(dirname "$0")/../lib.sh"

WS=$T_TMP/ws; mkdir -p "$WS"
A=$T_TMP/audit
META=$SBX_PROGS/nb_meta_static
# no-bwrap mode (the escape corpus's, minus netfilter; the probes need root)
NB="--layers preload,seccomp,landlock,limits"; [ "$(id -u)" = 0 ] && NB="$NB,probes"
# A root-owned victim outside /tmp (the private /tmp would hide a /tmp one), readable by grant.
# (The unprivileged pass gets root's victim: SBX_NBW_VD.)
if [ -n "${SBX_NBW_VD:-}" ]; then VD=$SBX_NBW_VD
else
	VD=$(mktemp -d /var/tmp/sbxsup-nbw.XXXXXX); chmod 755 "$VD"; t_on_exit "rm -rf '$VD'"
	echo "VICTIM-$$" > "$VD/victim"; chmod 644 "$VD/victim"; cp "$META" "$VD/meta"; chmod 755 "$VD/meta"
fi
M=$T_TMP/m.json
cat > "$M" <<EOF
{"sbxsup": 1, "name": "nbw", "capabilities": [{"cap": "fs:read", "hint": "$VD/**"}, {"cap": "code:exec"}]}
EOF
xattrs() { python3 -c 'import os,sys; print(",".join(sorted(os.listxattr(sys.argv[1]))))' "$1"; }
level() { python3 - "$1" "$2" <<'PY'
import json, sys
for l in open(sys.argv[1]):
    o = json.loads(l)
    if o.get("event") == "run.start": print(o.get("level", {}).get(sys.argv[2], ""))
PY
}

# One no-bwrap mode ($1 name, $2 env prefix) as the current user: identity, metadata attack,
# SysV shm, /dev/shm, /tmp, HOME, procfs, workspace.
check_mode() {
	local n=$1; shift
	local a="$A.$n" shm shmid out rc
	[ -n "${SBX_NBW_KEEP:-}" ] && a=$SBX_NBW_KEEP.$n
	rm -f "$a" "/dev/shm/sbxsup-nbw-$$" "$WS/ws-$n"
	shmid=$(ipcmk -M 4096 2>/dev/null | grep -o '[0-9]\+$'); [ -n "$shmid" ] && t_on_exit "ipcrm -m $shmid"
	echo "HOST-SHM-$$" > "/dev/shm/sbxsup-nbw-$$"; t_on_exit "rm -f /dev/shm/sbxsup-nbw-$$"
	local mode0 own0 x0; mode0=$(stat -c %a "$VD/victim"); own0=$(stat -c %u:%g "$VD/victim"); x0=$(xattrs "$VD/victim")
	out=$(cd "$WS" && env "$@" "$SBXSUP" run -m "$M" $NB -a "$a" -- sh -c '
		echo "uid=$(id -u)"
		"'"$VD"'/meta" "'"$VD"'/victim"; chmod 4777 "'"$VD"'/victim" 2>/dev/null
		echo "ipcs:$(ipcs -m | awk "NR>3 {print \$2}" | tr "\n" " ")"
		echo "shm:$(ls -A /dev/shm | tr "\n" " ")"; cat /dev/shm/sbxsup-nbw-'$$' 2>/dev/null
		echo x > /tmp/nbw-'$$' && echo tmp-ok
		echo "home=$HOME:$(ls -A "$HOME" | wc -l)"; mkdir -p "$HOME/.cache" && echo y > "$HOME/.cache/nbw" && echo home-ok
		read p rest < /proc/self/stat; [ "$p" = "$$" ] && echo proc-ok
		echo w > ws-'"$n"' && echo ws-ok' 2>&1); rc=$?
	local uid; uid=$(sed -n 's/^uid=//p' <<<"$out")
	if [ -n "$uid" ] && [ "$uid" != 0 ] && { [ "$(id -u)" != 0 ] || level "$a" identity | grep -qE '^userns uid [1-9]|^uid [1-9]'; } \
	   && audit_has "$a" run.start "level.identity?" layers.bwrap=false; then
		t_pass "nobwrap_identity_$n"
	else t_fail "nobwrap_identity_$n" "rc=$rc uid=$uid identity=$(level "$a" identity) out=$out"; fi
	# the attack failed: mode bits, owner, xattrs of the host file unchanged — also a normal user's
	# own file (the seccomp metadata rule: Landlock has no right for chmod/chown/xattr, issue 13).
	if grep -q '^fchmod: blocked' <<<"$out" && ! grep -q SUCCEEDED <<<"$out" \
	   && [ "$(stat -c %a "$VD/victim")" = "$mode0" ] && [ "$(stat -c %u:%g "$VD/victim")" = "$own0" ] \
	   && [ "$(xattrs "$VD/victim")" = "$x0" ]; then
		t_pass "nobwrap_meta_unchanged_$n"
	else t_fail "nobwrap_meta_unchanged_$n" "mode=$(stat -c %a "$VD/victim") xattrs=$(xattrs "$VD/victim") out=$out"; fi
	# ... and seccomp's metadata rule said so, for each raw call (the preload never sees a static
	# binary; the probes, when on, do not see a call seccomp refused); a setuid mode is the
	# privilege guard's refusal (access privilege), asked first
	local c miss=
	for c in fchmod fchown fsetxattr fchmodat; do
		audit_has "$a" kernel.violation sensor=seccomp-notify "syscall=$c" access=write outcome=contained \
			"path=$VD/victim" ||
		audit_has "$a" kernel.violation sensor=seccomp-notify "syscall=$c" access=privilege outcome=contained \
			"rule=privilege: setuid bit" "path=$VD/victim" || miss="$miss $c"
	done
	if [ -z "$miss" ]; then t_pass "nobwrap_meta_reported_$n"
	else t_fail "nobwrap_meta_reported_$n" "no kernel.violation (sensor seccomp-notify) for:$miss"; fi
	local ipcs_line; ipcs_line=$(grep '^ipcs:' <<<"$out")
	if [ -n "$shmid" ] && [ -n "$ipcs_line" ] && ! grep -qw "$shmid" <<<"${ipcs_line#ipcs:}" \
	   && audit_has "$a" run.start level.ns~ipc; then t_pass "nobwrap_sysv_shm_invisible_$n"
	else t_fail "nobwrap_sysv_shm_invisible_$n" "shmid=$shmid $ipcs_line ns=$(level "$a" ns)"; fi
	if grep -q '^shm:' <<<"$out" && ! grep -q "sbxsup-nbw-$$" <<<"$(grep '^shm:' <<<"$out")" && ! grep -q "HOST-SHM-$$" <<<"$out" \
	   && audit_has "$a" run.start level.ns~mnt; then t_pass "nobwrap_dev_shm_invisible_$n"
	else t_fail "nobwrap_dev_shm_invisible_$n" "$out"; fi
	if grep -q '^tmp-ok' <<<"$out" && [ ! -e "/tmp/nbw-$$" ]; then t_pass "nobwrap_tmp_private_writable_$n"
	else t_fail "nobwrap_tmp_private_writable_$n" "$out"; rm -f "/tmp/nbw-$$"; fi
	local home; home=$(sed -n 's/^home=\([^:]*\):.*/\1/p' <<<"$out")
	if grep -q '^home=[^:]*:0$' <<<"$out" && grep -q '^home-ok' <<<"$out" && [ "$home" != "$HOME" ] \
	   && [ ! -e "$HOME/.cache/nbw" ] && audit_has "$a" run.start level.home~private; then t_pass "nobwrap_home_private_$n"
	else t_fail "nobwrap_home_private_$n" "home=$home $out"; fi
	if grep -q '^proc-ok' <<<"$out"; then t_pass "nobwrap_own_procfs_$n"
	else t_fail "nobwrap_own_procfs_$n" "$out"; fi
	if grep -q '^ws-ok' <<<"$out" && [ "$(cat "$WS/ws-$n" 2>/dev/null)" = w ] \
	   && [ "$(stat -c %u "$WS/ws-$n")" = "$(stat -c %u "$WS")" ]; then t_pass "nobwrap_workspace_writable_$n"
	else t_fail "nobwrap_workspace_writable_$n" "$(ls -ln "$WS") $out"; fi
}

if [ "$(id -u)" = 0 ]; then
	check_mode userns
	check_mode setid SBXSUP_USERNS=0
	if audit_has "$A.setid" run.start "level.identity~no user namespace"; then t_pass nobwrap_setid_fallback_recorded
	else t_fail nobwrap_setid_fallback_recorded "$(level "$A.setid" identity)"; fi
else
	check_mode user
fi

# Every directory granted for writing stays writable to the executor's identity without chown/chmod
# of the user's tree (as root: idmapped mounts), and what it writes keeps the directory owner's uid.
if [ "$(id -u)" = 0 ]; then
	OUTD=$(mktemp -d /var/tmp/sbxsup-nbw-out.XXXXXX); chmod 755 "$OUTD"; t_on_exit "rm -rf '$OUTD'"
	MW=$T_TMP/mw.json
	printf '{"sbxsup": 1, "name": "nbw-w", "capabilities": [{"cap": "fs:write", "hint": "%s"}]}\n' "$OUTD" > "$MW"
	mode0=$(stat -c %a:%u "$OUTD")
	out=$(cd "$WS" && "$SBXSUP" run -m "$MW" $NB -a "$A.wd" -- sh -c "echo o > '$OUTD/o' && echo wd-ok" 2>&1); rc=$?
	if [ $rc -eq 0 ] && grep -q wd-ok <<<"$out" && [ "$(cat "$OUTD/o" 2>/dev/null)" = o ] \
	   && [ "$(stat -c %u "$OUTD/o")" = 0 ] && [ "$(stat -c %a:%u "$OUTD")" = "$mode0" ] \
	   && audit_has "$A.wd" run.start "level.identity~writable dirs idmapped: 2 of 2"; then
		t_pass nobwrap_granted_dir_writable_idmapped
	else t_fail nobwrap_granted_dir_writable_idmapped "rc=$rc $out $(level "$A.wd" identity)"; fi
fi

# The host's /tmp is not the run's: a host file under /tmp is invisible (as in bwrap), a command
# named under /tmp is still there (only that file), and a PATH entry there that the run cannot see
# is dropped.
mkdir -p "$T_TMP/cmd"; echo "HOST-TMP-$$" > "$T_TMP/hostsecret"; echo x > "$T_TMP/cmd/other"
printf '#!/bin/sh\necho "mine:$(cat %s 2>&1)"; ls -A %s\n' "$T_TMP/hostsecret" "$T_TMP/cmd" > "$T_TMP/cmd/mine"
chmod 755 "$T_TMP/cmd/mine"
out=$(cd "$WS" && PATH="$T_TMP/cmd:/usr/bin:/bin" "$SBXSUP" run $NB -a "$A.ht" -- "$T_TMP/cmd/mine" 2>&1); rc=$?
if [ $rc -eq 0 ] && grep -q '^mine:' <<<"$out" && ! grep -q "HOST-TMP-$$" <<<"$out" && ! grep -qx other <<<"$out"; then
	t_pass nobwrap_host_tmp_invisible
else t_fail nobwrap_host_tmp_invisible "rc=$rc $out"; fi

# A hint naming one file under the host's /tmp: that file is there (read-only), its neighbours not.
mkdir -p "$T_TMP/gf"; chmod 755 "$T_TMP/gf"; echo "GRANTED-ONE-$$" > "$T_TMP/gf/one.txt"; echo "NEIGHBOUR-$$" > "$T_TMP/gf/two.txt"
chmod 644 "$T_TMP/gf/one.txt" "$T_TMP/gf/two.txt"
printf '{"sbxsup": 1, "name": "nbw-file", "capabilities": ["code:exec", {"cap": "fs:read", "hint": "%s"}]}\n' "$T_TMP/gf/one.txt" > "$T_TMP/gf.json"
out=$(cd "$WS" && "$SBXSUP" run -m "$T_TMP/gf.json" $NB -- sh -c "cat '$T_TMP/gf/one.txt' '$T_TMP/gf/two.txt'; echo more >> '$T_TMP/gf/one.txt'" 2>&1); rc=$?
if grep -q "^GRANTED-ONE-$$" <<<"$out" && ! grep -q "NEIGHBOUR-$$" <<<"$out" && [ "$(cat "$T_TMP/gf/one.txt")" = "GRANTED-ONE-$$" ]; then
	t_pass nobwrap_granted_file_under_tmp
else t_fail nobwrap_granted_file_under_tmp "rc=$rc $out"; fi

# bwrap mode: a non-zero uid inside, a private HOME.
if command -v bwrap >/dev/null; then
	out=$(cd "$WS" && "$SBXSUP" run -a "$A.bw" -- sh -c 'echo "uid=$(id -u) home=$HOME"; ls -A "$HOME" | wc -l; touch "$HOME/x" && echo home-ok' 2>&1); rc=$?
	if [ $rc -eq 0 ] && grep -q '^uid=[1-9]' <<<"$out" && grep -q 'home=/tmp/home' <<<"$out" && grep -q '^home-ok' <<<"$out" \
	   && audit_has "$A.bw" run.start layers.bwrap=true "level.identity~userns uid" level.home~private; then
		t_pass nobwrap_bwrap_nonzero_uid_home
	else t_fail nobwrap_bwrap_nonzero_uid_home "rc=$rc $out"; fi
else t_skip nobwrap_bwrap_nonzero_uid_home "no bwrap"; fi

# The configured inside uid (SBXSUP_UID) in both modes; 0 is refused.
out=$(cd "$WS" && SBXSUP_UID=4242:4343 "$SBXSUP" run $NB -- sh -c 'echo "$(id -u):$(id -g)"' 2>/dev/null)
out2=$(cd "$WS" && SBXSUP_UID=4242:4343 "$SBXSUP" run -- sh -c 'echo "$(id -u):$(id -g)"' 2>/dev/null)
(cd "$WS" && SBXSUP_UID=0 "$SBXSUP" run -- true 2>/dev/null); rc=$?
if [ "$out" = 4242:4343 ] && { ! command -v bwrap >/dev/null || [ "$out2" = 4242:4343 ]; } && [ $rc -eq 125 ]; then
	t_pass nobwrap_uid_configurable
else t_fail nobwrap_uid_configurable "direct=$out bwrap=$out2 uid0-rc=$rc"; fi

# sbxsup inside sbxsup: the inner run starts with whatever layers it can have and says which
# (without the outer seccomp layer: identity/namespace side; with it: also needs lowering rlimits
# allowed by seccomp, the kernel layer's part of issue 17). No warning about the outer's dirs.
# (ASAN_OPTIONS: an ASan build of the inner sbxsup starts behind the preload; harmless otherwise)
NM=$T_TMP/nest.json
cat > "$NM" <<'EOF'
{"sbxsup": 1, "name": "nbw-nest", "capabilities": ["code:exec"],
 "env": {"set": {"ASAN_OPTIONS": "verify_asan_link_order=0:detect_leaks=0"}}}
EOF
out=$(cd "$WS" && "$SBXSUP" run -m "$NM" --layers preload,landlock,limits -a "$A.in" -- "$SBXSUP" run -- sh -c 'echo inner-ran' 2>&1); rc=$?
if [ $rc -eq 0 ] && grep -q '^inner-ran' <<<"$out" && grep -q 'active layers:' <<<"$out" && ! grep -q 'cannot remove' <<<"$out"; then
	t_pass nobwrap_nested_run_no_seccomp
else t_fail nobwrap_nested_run_no_seccomp "rc=$rc $out"; fi
out=$(cd "$WS" && "$SBXSUP" run -m "$NM" $NB -a "$A.in2" -- "$SBXSUP" run -- sh -c 'echo inner-ran' 2>&1); rc=$?
if [ $rc -eq 0 ] && grep -q '^inner-ran' <<<"$out"; then t_pass nobwrap_nested_run
else t_fail nobwrap_nested_run "rc=$rc $out"; fi

# As an unprivileged user: the same checks in no-bwrap mode (this script again, as that user).
if [ "$(id -u)" = 0 ] && [ -z "${SBX_NBW_INNER:-}" ]; then
	U=sbxu_nobwrap
	if command -v useradd >/dev/null && useradd -m "$U" 2>/dev/null; then
		t_on_exit "userdel -r $U 2>/dev/null"
		chmod 755 "$T_TMP"
		out=$(runuser -u "$U" -- env SBX_NBW_INNER=1 SBX_NBW_VD="$VD" SBXSUP="$SBXSUP" SBX_ROOT="$SBX_ROOT" SBX_PROGS="$SBX_PROGS" \
			HOME="/home/$U" PATH="$PATH" bash "$0" 2>&1)
		while IFS= read -r l; do
			case $l in PASS:*|FAIL:*|SKIP:*) echo "${l%%: *}: unpriv_${l#*: }";; esac
		done <<<"$out"
	else t_skip nobwrap_unprivileged "cannot create user $U"; fi
fi
