#!/usr/bin/env bash
# preload_files.sh — libsbxpreload.so in preload-only mode (--layers preload): file and exec
# decisions with real programs (python3, sh, coreutils, helper C programs), every denial reported
# as preload.deny with its path and rule, every grant still working.
source "$(dirname "$0")/../lib.sh"
S=$SBXSUP
PY=/usr/bin/python3
# the home with its canary key outside /tmp: without bwrap the run has a private /tmp (the host's
# is invisible), and the preload, not the file modes, must be what stops the reads
H=$(mktemp -d /var/tmp/sbxsup-plh.XXXXXX); chmod 755 "$H"; t_on_exit "rm -rf '$H'"
WS=$T_TMP/ws
mkdir -p "$H/.ssh" "$WS"
echo "FAKE-KEY" > "$H/.ssh/id_rsa"; chmod 755 "$H/.ssh"; chmod 644 "$H/.ssh/id_rsa"
export HOME=$H
cd "$WS" || exit 1
A=$T_TMP/audit
# run NAME ARGS... : sbxsup run --layers preload with its own audit file $T_TMP/NAME.audit
run() { local n=$1; shift; "$S" run --layers preload -w "$WS" -a "$T_TMP/$n.audit" -- "$@"; }

# python3 open(~/.ssh/id_rsa): PermissionError + preload.deny naming path and rule
out=$(run py_ssh $PY -c "open('$H/.ssh/id_rsa')" 2>&1); rc=$?
if [ $rc -ne 0 ] && grep -q PermissionError <<<"$out" &&
   audit_has "$T_TMP/py_ssh.audit" preload.deny op=open path="$H/.ssh/id_rsa" access=read rule~.ssh src=preload errno=13; then
	t_pass preload_python_ssh_key
else t_fail preload_python_ssh_key "rc=$rc: $out"; fi

# python3 open('/etc/shadow') as root
out=$(run py_shadow $PY -c "open('/etc/shadow')" 2>&1); rc=$?
if [ $rc -ne 0 ] && grep -q PermissionError <<<"$out" &&
   audit_has "$T_TMP/py_shadow.audit" preload.deny op=open path=/etc/shadow rule~shadow comm=python3; then
	t_pass preload_python_etc_shadow
else t_fail preload_python_etc_shadow "rc=$rc: $out"; fi

# a symlink planted in the workspace pointing at a denied file: read refused, and
# O_CREAT|O_TRUNC through it changes nothing
ln -s "$H/.ssh/id_rsa" "$WS/innocent.txt"
out=$(run symlink sh -c 'cat innocent.txt; echo pwned > innocent.txt' 2>&1); rc=$?
if [ $rc -ne 0 ] && [ "$(cat "$H/.ssh/id_rsa")" = FAKE-KEY ] && ! grep -q FAKE-KEY <<<"$out" &&
   audit_has "$T_TMP/symlink.audit" preload.deny op=open path="$H/.ssh/id_rsa" access=read comm=cat &&
   audit_has "$T_TMP/symlink.audit" preload.deny op=open path="$H/.ssh/id_rsa" access=write; then
	t_pass preload_symlink_in_workspace
else t_fail preload_symlink_in_workspace "rc=$rc: $out / key=$(cat "$H/.ssh/id_rsa")"; fi
rm -f "$WS/innocent.txt"

# ".." and symlinked directories are resolved as the kernel does
mkdir -p "$WS/sub"; ln -s "$H" "$WS/sub/h"
out=$(run dotdot sh -c "cat sub/h/.ssh/../.ssh/id_rsa; cat sub/../sub/h/.ssh/id_rsa" 2>&1); rc=$?
if [ $rc -ne 0 ] && ! grep -q FAKE-KEY <<<"$out" && [ "$(audit_count "$T_TMP/dotdot.audit" preload.deny)" -ge 2 ]; then
	t_pass preload_dotdot_and_dir_symlinks
else t_fail preload_dotdot_and_dir_symlinks "rc=$rc: $out"; fi
rm -rf "$WS/sub"

# /proc magic links: /proc/self/fd/N, /proc/self/root, /proc/self/cwd
out=$(run magic sh -c "exec 3<\"$WS\"; cat /proc/self/root$H/.ssh/id_rsa; cd $H; cat /proc/self/cwd/.ssh/id_rsa" 2>&1); rc=$?
if [ $rc -ne 0 ] && ! grep -q FAKE-KEY <<<"$out" &&
   [ "$(audit_count "$T_TMP/magic.audit" preload.deny)" -ge 2 ] &&
   audit_has "$T_TMP/magic.audit" preload.deny path="$H/.ssh/id_rsa"; then
	t_pass preload_proc_magic_links
else t_fail preload_proc_magic_links "rc=$rc: $out"; fi

# env -i sh -c 'cat /etc/shadow' is still refused (the exec interposers restore the preload)
out=$(run env_i env -i sh -c 'cat /etc/shadow' 2>&1); rc=$?
if [ $rc -ne 0 ] && audit_has "$T_TMP/env_i.audit" preload.deny op=open path=/etc/shadow comm=cat; then
	t_pass preload_env_i_keeps_preload
else t_fail preload_env_i_keeps_preload "rc=$rc: $out"; fi

# exec chains that strip or forge the environment
for m in empty clear forged system spawn fds; do
	out=$(run "chain_$m" "$SBX_PROGS/pl_exec" "$m" "$H/.ssh/id_rsa" 2>&1); rc=$?
	if [ $rc -eq 1 ] && ! grep -q FAKE-KEY <<<"$out" &&
	   audit_has "$T_TMP/chain_$m.audit" preload.deny op=open path="$H/.ssh/id_rsa" comm=cat; then
		t_pass "preload_exec_chain_$m"
	else t_fail "preload_exec_chain_$m" "rc=$rc: $out"; fi
done

# python subprocess (close_fds: close_range in the child) keeps the policy for the child
out=$(run subproc $PY -c "
import subprocess
r = subprocess.run(['cat', '$H/.ssh/id_rsa'], capture_output=True, text=True); print('secret', r.returncode)
r = subprocess.run(['cat', '/etc/passwd'], capture_output=True, text=True); print('passwd', r.returncode)" 2>&1); rc=$?
if grep -q "secret 1" <<<"$out" && grep -q "passwd 0" <<<"$out" &&
   audit_has "$T_TMP/subproc.audit" preload.deny comm=cat path="$H/.ssh/id_rsa"; then
	t_pass preload_python_subprocess
else t_fail preload_python_subprocess "rc=$rc: $out"; fi

# every interposed call, denied on the secret and allowed in the workspace
mkdir -p "$WS/calls"
# a run with a network namespace of its own allows abstract unix names (they stay inside it)
run netns true >/dev/null 2>&1
inside=; grep -q '"ns":"[^"]*net' "$T_TMP/netns.audit" && inside=abstract-inside
out=$(run calls "$SBX_PROGS/pl_calls" "$H/.ssh/id_rsa" "$H/.ssh" "$WS/calls" $inside 2>&1); rc=$?
if [ $rc -eq 0 ] && [ "$(cat "$H/.ssh/id_rsa")" = FAKE-KEY ] &&
   audit_has "$T_TMP/calls.audit" preload.deny op=unlink path="$H/.ssh/id_rsa" access=write &&
   audit_has "$T_TMP/calls.audit" preload.deny op=exec path="$H/.ssh/id_rsa" &&
   audit_has "$T_TMP/calls.audit" preload.deny op=exec path=/memfd:payload &&
   audit_has "$T_TMP/calls.audit" preload.deny op=connect addr=198.51.100.1 port=9 &&
   audit_has "$T_TMP/calls.audit" preload.deny op=resolve host=denied.invalid &&
   audit_has "$T_TMP/calls.audit" preload.deny op=stat path="$H/.ssh/id_rsa"; then
	t_pass preload_every_interposer
else t_fail preload_every_interposer "rc=$rc: $out"; fi

# syscall(SYS_openat, ...) through libc is decided too
out=$(run sysc $PY -c "
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
r = libc.syscall(257, -100, b'$H/.ssh/id_rsa', 0, 0)
print('r', r, 'errno', ctypes.get_errno())" 2>&1); rc=$?
if grep -q "r -1 errno 13" <<<"$out" && audit_has "$T_TMP/sysc.audit" preload.deny op=open path="$H/.ssh/id_rsa"; then
	t_pass preload_syscall_openat
else t_fail preload_syscall_openat "rc=$rc: $out"; fi

# threads: every concurrent denial is refused, and reported or counted as dropped (the counts
# ride on later records, the last ones on an exit-time record; run.end.preload_dropped sums them)
out=$(run threads "$SBX_PROGS/pl_threads" "$H/.ssh/id_rsa" 16 200 2>&1); rc=$?
tot=$(python3 -c 'import json,sys
n=d=0
for l in open(sys.argv[1]):
    o=json.loads(l)
    if o["event"]=="preload.deny": n+=o.get("count",1)
    if o["event"]=="run.end": d=o.get("preload_dropped",0)
print(n+d)' "$T_TMP/threads.audit")
if [ $rc -eq 0 ] && grep -q "denied 3200 other 0" <<<"$out" && [ "$tot" = 3200 ]; then
	t_pass preload_threads_all_accounted
else t_fail preload_threads_all_accounted "rc=$rc: $out: reported+dropped=$tot"; fi

# fork, vfork+execve with an empty environment, fork from a threaded parent
out=$(run fork "$SBX_PROGS/pl_fork" "$H/.ssh/id_rsa" 2>&1); rc=$?
if [ $rc -eq 0 ] && audit_has "$T_TMP/fork.audit" preload.deny comm=cat path="$H/.ssh/id_rsa"; then
	t_pass preload_fork_children
else t_fail preload_fork_children "rc=$rc: $out"; fi

# grants still work: system files, workspace writes, pipes, python stdlib
out=$(run grants sh -c "cat /etc/passwd >/dev/null && ls /usr/bin >/dev/null && echo data > f.txt &&
	mkdir -p d/e && mv f.txt d/e/g.txt && cat d/e/g.txt && rm -r d && $PY -c 'import json,os; print(json.dumps(os.listdir(\".\")))'" 2>&1); rc=$?
if [ $rc -eq 0 ] && grep -q '^data$' <<<"$out" && ! audit_has "$T_TMP/grants.audit" preload.deny path~"$WS"; then
	t_pass preload_grants_work
else t_fail preload_grants_work "rc=$rc: $out"; fi

# without code:exec, the command may not start programs (the command itself is exempt)
cat > "$T_TMP/noexec.json" <<J
{"sbxsup": 1, "name": "noexec", "capabilities": []}
J
out=$("$S" run --layers preload -m "$T_TMP/noexec.json" -w "$WS" -a "$T_TMP/noexec.audit" -- sh -c '/bin/true; echo after' 2>&1); rc=$?
if grep -q after <<<"$out" && audit_has "$T_TMP/noexec.audit" preload.deny op=exec path=/usr/bin/true access=exec; then
	t_pass preload_no_code_exec
else t_fail preload_no_code_exec "rc=$rc: $out"; fi

# the ack: the first process acknowledged the preload (layer active, no "never acked" reason)
if audit_has "$T_TMP/grants.audit" run.start layers.preload=true; then
	t_pass preload_layer_active
else t_fail preload_layer_active "$(head -c 600 "$T_TMP/grants.audit")"; fi

# glibc's walkers (nftw, ftw, fts, glob) through a workspace symlink to ~/.ssh: the linked
# directory is refused like a direct opendir (handed over as unreadable), its entries never listed
mkdir -p "$WS/walk/sub"; echo a > "$WS/walk/sub/a"; ln -sfn "$H/.ssh" "$WS/walk/link"
out=$(cd "$WS/walk" && "$S" run --layers preload -w "$WS" -a "$T_TMP/walk.audit" -- "$SBX_PROGS/pl_walk" . 2>&1); rc=$?
if [ $rc -eq 0 ] && ! grep -q id_rsa <<<"$out" && grep -q '^fts ./sub/a$' <<<"$out" &&
   grep -q '^nftw ./link dnr$' <<<"$out" && grep -q '^fts ./link dnr$' <<<"$out" &&
   grep -q '^ftw ./link dnr$' <<<"$out" && grep -q '^glob ./sub/a$' <<<"$out" &&
   audit_has "$T_TMP/walk.audit" preload.deny op=opendir path="$H/.ssh" rule~.ssh; then
	t_pass preload_walk_symlink
else t_fail preload_walk_symlink "rc=$rc: $out"; fi
rm -rf "$WS/walk"

# posix_spawn file actions: glibc opens them in the child with internal calls; an open of ~/.ssh
# (absolute, or relative after addchdir_np) makes the spawn fail with EACCES, nothing runs,
# reported; an allowed one works
echo spawned-ok > "$WS/fa.txt"
out=$(run spawnfa1 "$SBX_PROGS/pl_spawnfa" "$H/.ssh/id_rsa" 2>&1; run spawnfa2 "$SBX_PROGS/pl_spawnfa" -C "$H/.ssh" id_rsa 2>&1;
      run spawnfa3 "$SBX_PROGS/pl_spawnfa" "$WS/fa.txt" 2>&1)
if ! grep -q FAKE-KEY <<<"$out" && [ "$(grep -c '^spawn: Permission denied$' <<<"$out")" = 2 ] &&
   grep -q '^spawned-ok$' <<<"$out" &&
   audit_has "$T_TMP/spawnfa1.audit" preload.deny op=open path="$H/.ssh/id_rsa" &&
   audit_has "$T_TMP/spawnfa2.audit" preload.deny op=open path="$H/.ssh/id_rsa"; then
	t_pass preload_spawn_actions
else t_fail preload_spawn_actions "$out"; fi

# setxattr of a security.* attribute on a file a manifest deny matches: one refusal, the xattr's
# (the guard reads the file's mode with the kernel's stat, not this library's fstatat, which
# refused and reported a stat the program never made)
echo x > "$WS/xd.txt"
cat > "$T_TMP/xdeny.json" <<'JSON'
{"sbxsup": 1, "name": "xdeny", "capabilities": ["code:exec", {"cap": "fs:write", "hint": "./"}],
 "deny": ["**/xd.txt"]}
JSON
out=$("$S" run --layers preload -m "$T_TMP/xdeny.json" -w "$WS" -a "$T_TMP/xdeny.audit" -- $PY -c "
import os
try: os.setxattr('xd.txt', 'security.sbxtest', b'x')
except OSError as e: print('errno', e.errno)" 2>&1); rc=$?
if grep -q '^errno 1$' <<<"$out" && ! $PY -c "import os,sys; sys.exit(0 if 'security.sbxtest' in os.listxattr('$WS/xd.txt') else 1)" &&
   audit_has "$T_TMP/xdeny.audit" preload.deny op=xattr path="$WS/xd.txt" rule~privilege &&
   [ "$(audit_count "$T_TMP/xdeny.audit" preload.deny)" = 1 ]; then
	t_pass preload_xattr_guard_no_stat_event
else t_fail preload_xattr_guard_no_stat_event "rc=$rc: $out; $(grep preload.deny "$T_TMP/xdeny.audit" | head -3)"; fi
rm -f "$WS/xd.txt"
