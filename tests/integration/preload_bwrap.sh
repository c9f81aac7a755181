#!/usr/bin/env bash
# preload_bwrap.sh — libsbxpreload.so inside bwrap with the default layers: loaded through the
# read-only /etc/ld.so.preload so that stripping LD_PRELOAD does not remove it; denials happen
# (before the kernel is asked) and are reported as preload.deny; grants still work.
source "$(dirname "$0")/../lib.sh"
S=$SBXSUP
PY=/usr/bin/python3
need_cmd preload_bwrap bwrap || exit 0
H=$T_TMP/home; WS=$T_TMP/ws
mkdir -p "$H/.ssh" "$WS"; echo FAKE-KEY > "$H/.ssh/id_rsa"
export HOME=$H
cd "$WS" || exit 1
run() { local n=$1; shift; "$S" run -w "$WS" -a "$T_TMP/$n.audit" -- "$@"; }

out=$(run probe true 2>&1); rc=$?
if ! audit_has "$T_TMP/probe.audit" run.start layers.bwrap=true layers.preload=true; then
	t_fail preload_bwrap_active "bwrap or preload not active: rc=$rc $out $(grep -o '"why":{[^}]*}' "$T_TMP/probe.audit")"
	exit 0
fi
t_pass preload_bwrap_active

# LD_PRELOAD removed: the library is still there (ld.so.preload) and refuses /etc/shadow. With /etc
# bound whole (the /etc view) the secret is there, masked: PermissionError (EACCES); bound entry by
# entry it is left out: FileNotFoundError (ENOENT) — the errno the kernel would give either way
out=$(run strip env -u LD_PRELOAD $PY -c "open('/etc/shadow')" 2>&1); rc=$?
if [ $rc -ne 0 ] && { { grep -q PermissionError <<<"$out" &&
       audit_has "$T_TMP/strip.audit" preload.deny op=open path=/etc/shadow comm=python3 src=preload errno=13; } ||
     { grep -q FileNotFoundError <<<"$out" &&
       audit_has "$T_TMP/strip.audit" preload.deny op=open path=/etc/shadow comm=python3 src=preload errno=2; }; }; then
	t_pass preload_bwrap_ld_preload_stripped
else t_fail preload_bwrap_ld_preload_stripped "rc=$rc: $out"; fi

out=$(run env_i env -i sh -c 'cat /etc/shadow; cat /etc/ld.so.preload; echo > /etc/ld.so.preload' 2>&1); rc=$?
if [ $rc -ne 0 ] && grep -q /run/sbxsup/libsbxpreload.so <<<"$out" &&
   audit_has "$T_TMP/env_i.audit" preload.deny op=open path=/etc/shadow comm=cat &&
   audit_has "$T_TMP/env_i.audit" preload.deny op=open path=/etc/ld.so.preload access=write; then
	t_pass preload_bwrap_env_i
else t_fail preload_bwrap_env_i "rc=$rc: $out"; fi

# a symlink planted in the workspace pointing at a denied file
ln -s "$H/.ssh/id_rsa" "$WS/planted"
out=$(run planted sh -c 'cat planted' 2>&1); rc=$?
if [ $rc -ne 0 ] && ! grep -q FAKE-KEY <<<"$out" &&
   audit_has "$T_TMP/planted.audit" preload.deny op=open path="$H/.ssh/id_rsa" comm=cat; then
	t_pass preload_bwrap_planted_symlink
else t_fail preload_bwrap_planted_symlink "rc=$rc: $out"; fi
rm -f "$WS/planted"

# grants: system files, workspace writes, python
out=$(run grants sh -c "cat /etc/passwd >/dev/null && echo data > f.txt && cat f.txt && $PY -c 'print(open(\"f.txt\").read().strip()+\"-py\")'" 2>&1); rc=$?
if [ $rc -eq 0 ] && grep -q '^data-py$' <<<"$out" && [ "$(cat "$WS/f.txt")" = data ] &&
   ! audit_has "$T_TMP/grants.audit" preload.deny path~"$WS"; then
	t_pass preload_bwrap_grants
else t_fail preload_bwrap_grants "rc=$rc: $out"; fi
