#!/usr/bin/env bash
# preload_compat.sh — contract v2 "real programs run unchanged" for the policy and the preload:
# the kernel's errno for denied paths (ENOENT when absent, EACCES when present), /etc readable
# except its secrets, "/" listable, the command after -- always readable and executable, git and
# `python3 -m venv` under the default manifest, "fs:read" without hints accepted. Each check runs
# in preload-only mode (--layers preload) and, where a kernel layer could change the answer, in
# full mode too. Every denial asserted on the host AND in the audit stream.
source "$(dirname "$0")/../lib.sh"
S=$SBXSUP
PY=/usr/bin/python3
# the home with its canary key outside /tmp: without bwrap the run has a private /tmp (the host's
# is invisible), and the preload, not the file modes, must be what stops the reads
H=$(mktemp -d /var/tmp/sbxsup-plh.XXXXXX); chmod 755 "$H"; t_on_exit "rm -rf '$H'"
WS=$T_TMP/ws
# outside /tmp: in full mode the sandbox's own /tmp is writable, so a path under the host's /tmp
# would be decided as the sandbox's
TOOLS=$(mktemp -d /var/tmp/sbxsup-compat.XXXXXX); chmod 755 "$TOOLS"; t_on_exit "rm -rf '$TOOLS'"
mkdir -p "$H/.ssh" "$WS" "$TOOLS"
echo FAKE-KEY > "$H/.ssh/id_rsa"; chmod 755 "$H/.ssh"; chmod 644 "$H/.ssh/id_rsa"
export HOME=$H
cd "$WS" || exit 1
runp() { local n=$1; shift; "$S" run --layers preload -w "$WS" -a "$T_TMP/$n.audit" -- "$@"; }
runf() { local n=$1; shift; "$S" run -w "$WS" -a "$T_TMP/$n.audit" -- "$@"; }

# errno fidelity: a denied path that does not exist -> ENOENT, one that exists -> EACCES;
# both reported with the errno the caller got
out=$(runp errno $PY -c "
import errno
for p in ('$H/.ssh/nope', '$H/.ssh/id_rsa', '/etc/shadow', '$H/.ssh/nodir/x'):
    try: open(p); print(p, 'OPENED')
    except OSError as e: print(p, errno.errorcode[e.errno])
" 2>&1); rc=$?
if [ $rc -eq 0 ] && grep -q "^$H/.ssh/nope ENOENT$" <<<"$out" && grep -q "^$H/.ssh/id_rsa EACCES$" <<<"$out" &&
   grep -q "^/etc/shadow EACCES$" <<<"$out" && grep -q "^$H/.ssh/nodir/x ENOENT$" <<<"$out" &&
   ! grep -q OPENED <<<"$out" &&
   audit_has "$T_TMP/errno.audit" preload.deny op=open path="$H/.ssh/nope" errno=2 &&
   audit_has "$T_TMP/errno.audit" preload.deny op=open path="$H/.ssh/id_rsa" errno=13 &&
   audit_has "$T_TMP/errno.audit" preload.deny op=open path=/etc/shadow errno=13; then
	t_pass preload_compat_errno
else t_fail preload_compat_errno "rc=$rc: $out"; fi

# /etc readable as a whole (debian_version, hostname: not in the old list), its secrets not;
# "/" listable; in preload-only and in full mode
for mode in p f; do
	out=$(run$mode etc$mode $PY -c "
import os
print('debian', open('/etc/debian_version').read().strip() != '')
print('etcls', len(os.listdir('/etc')) > 3)
print('rootls', 'usr' in os.listdir('/'))
try: open('/etc/gshadow'); print('gshadow OPENED')
except OSError as e: print('gshadow', e.errno)
" 2>&1); rc=$?
	if [ $rc -eq 0 ] && grep -q "^debian True$" <<<"$out" && grep -q "^etcls True$" <<<"$out" &&
	   grep -q "^rootls True$" <<<"$out" && ! grep -q OPENED <<<"$out" &&
	   ! audit_has "$T_TMP/etc$mode.audit" preload.deny path~/etc/debian &&
	   ! audit_has "$T_TMP/etc$mode.audit" preload.deny path=/ &&
	   audit_has "$T_TMP/etc$mode.audit" preload.deny path=/etc/gshadow rule~gshadow; then
		t_pass preload_compat_etc_$mode
	else t_fail preload_compat_etc_$mode "rc=$rc: $out"; fi
done

# `explain` lists the built-in secrets and the decision for one of them
out=$("$S" explain 2>&1)
if grep -q "/etc/ssl/private" <<<"$out" && grep -q "system-connections" <<<"$out" &&
   grep -q "/etc/wireguard" <<<"$out" && "$S" explain --path /etc/wireguard/wg0.conf 2>&1 | grep -q "builtin:secret"; then
	t_pass preload_compat_explain_secrets
else t_fail preload_compat_explain_secrets "$out"; fi

# the command named after -- is readable and executable wherever it lives (no code:exec, not
# granted by the manifest); its neighbours are not
cp /usr/bin/cat "$TOOLS/mycat"; echo neighbour > "$TOOLS/other.txt"
for mode in p f; do
	out=$(run$mode cmd$mode "$TOOLS/mycat" /etc/hostname 2>&1); rc=$?
	out2=$(run$mode cmdn$mode "$TOOLS/mycat" "$TOOLS/other.txt" 2>&1); rc2=$?
	if [ $rc -eq 0 ] && [ $rc2 -ne 0 ] && ! grep -q neighbour <<<"$out2" &&
	   ! audit_has "$T_TMP/cmd$mode.audit" preload.deny &&
	   { audit_has "$T_TMP/cmdn$mode.audit" preload.deny path="$TOOLS/other.txt" ||
	     audit_has "$T_TMP/cmdn$mode.audit" kernel.violation path="$TOOLS/other.txt"; }; then
		t_pass preload_compat_command_$mode
	else t_fail preload_compat_command_$mode "rc=$rc rc2=$rc2: $out / $out2"; fi
done

# git under the default manifest: init/add/commit with identity from the environment; no
# "Permission denied" for config files that do not exist (/etc/gitattributes, ~/.gitconfig: HOME
# is outside every grant here, so the errno must be the kernel's ENOENT)
if command -v git >/dev/null; then
	mkdir -p "$WS/repo"; echo hello > "$WS/repo/a.txt"
	out=$(cd "$WS/repo" && "$S" run --layers preload -w "$WS/repo" -a "$T_TMP/git.audit" -- sh -c \
	      'git init -q . && git add a.txt && git -c user.name=t -c user.email=t@x commit -qm one &&
	       git log --oneline | wc -l && git config --list >/dev/null && git status --short' 2>&1); rc=$?
	if [ $rc -eq 0 ] && ! grep -qi "permission denied" <<<"$out" && grep -q '^1$' <<<"$out"; then
		t_pass preload_compat_git
	else t_fail preload_compat_git "rc=$rc: $out"; fi
else
	t_skip preload_compat_git "git not installed"
fi

# python3 -m venv + a script in it, preload-only, default manifest
if $PY -c 'import ensurepip, venv' 2>/dev/null; then
	out=$(runp venv sh -c "$PY -m venv v && v/bin/python -c 'import sys; print(\"venv\", sys.prefix != sys.base_prefix)'" 2>&1); rc=$?
	if [ $rc -eq 0 ] && grep -q "^venv True$" <<<"$out" && [ -x "$WS/v/bin/pip" ]; then
		t_pass preload_compat_venv
	else t_fail preload_compat_venv "rc=$rc: $(tail -5 <<<"$out") $(grep -o '"path":"[^"]*"' "$T_TMP/venv.audit" | sort | uniq -c | head)"; fi
	rm -rf "$WS/v"
else
	t_skip preload_compat_venv "python3-venv (ensurepip) not installed"
fi

# a capability string without hints ("fs:read", as Metnos manifests write it): accepted with a
# warning, grants nothing beyond the defaults
cat > "$T_TMP/m.json" <<EOF
{"sbxsup": 1, "name": "metnos-like", "capabilities": ["fs:read", "fs:write", "code:exec"]}
EOF
vout=$("$S" validate -m "$T_TMP/m.json" 2>&1); vrc=$?
out=$("$S" run --layers preload -m "$T_TMP/m.json" -w "$WS" -a "$T_TMP/fsread.audit" -- cat "$H/.ssh/id_rsa" 2>&1); rc=$?
if [ $vrc -eq 0 ] && grep -q "fs:read without" <<<"$vout" && [ $rc -ne 0 ] && ! grep -q FAKE-KEY <<<"$out" &&
   audit_has "$T_TMP/fsread.audit" preload.deny path="$H/.ssh/id_rsa"; then
	t_pass preload_compat_fs_read_string
else t_fail preload_compat_fs_read_string "vrc=$vrc rc=$rc: $vout / $out"; fi

# the library's descriptors stay out of the program's way: its first open() gets 3; closing one of
# them really closes that number (a second close is EBADF, no fake success) and the library keeps
# enforcing (its descriptor moved)
out=$(runp fds $PY -c "
import os
print('first', os.open('/etc/hostname', os.O_RDONLY))
mine = sorted(int(f) for f in os.listdir('/proc/self/fd') if int(f) > 4)
for f in mine:
    os.close(f)
    try: os.close(f); print('fake success', f)
    except OSError as e: print('second close', e.errno)
try: open('$H/.ssh/id_rsa').read(); print('LEAKED')
except OSError as e: print('still denied', e.errno)
" 2>&1); rc=$?
# (with a mount namespace the library keeps no descriptor at all: nothing above 4 to close)
if [ $rc -eq 0 ] && grep -q '^first 3$' <<<"$out" && { [ "$(grep -c '^second close 9$' <<<"$out")" -ge 2 ] ||
   ! grep -q 'second close' <<<"$out"; } &&
   ! grep -q 'fake success\|LEAKED' <<<"$out" && grep -q '^still denied 13$' <<<"$out" &&
   audit_has "$T_TMP/fds.audit" preload.deny path="$H/.ssh/id_rsa"; then
	t_pass preload_compat_own_fds
else t_fail preload_compat_own_fds "rc=$rc: $out"; fi

# a current directory deeper than PATH_MAX: relative calls work where the kernel lets them (the
# workspace grant covers every depth); a symlink there cannot be decided and is refused, reported
cat > "$WS/deep.py" <<'PY'
import os
name = 'd' * 200
for i in range(25):
    os.makedirs(name, exist_ok=True); os.chdir(name)
with open('f.txt', 'w') as f: f.write('deep\n')
print('read', open('f.txt').read().strip())
print('list', sorted(os.listdir('.')))
os.mkdir('sub'); os.rename('f.txt', 'sub/g.txt'); print('stat', os.stat('sub/g.txt').st_size)
os.symlink(os.environ['HOME'] + '/.ssh/id_rsa', 'lnk')
try: print('LEAK', open('lnk').read())
except OSError as e: print('link', e.errno)
PY
out=$(runp deep $PY deep.py 2>&1); rc=$?
if [ $rc -eq 0 ] && grep -q '^read deep$' <<<"$out" && grep -q "^list \['f.txt'\]$" <<<"$out" &&
   grep -q '^stat 5$' <<<"$out" && grep -q '^link 13$' <<<"$out" && ! grep -q 'LEAK\|FAKE' <<<"$out" &&
   audit_has "$T_TMP/deep.audit" preload.deny op=open path~/lnk; then
	t_pass preload_compat_deep_cwd
else t_fail preload_compat_deep_cwd "rc=$rc: $out"; fi
rm -rf "$WS/d"* "$WS/deep.py"
