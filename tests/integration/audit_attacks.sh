#!/usr/bin/env bash
# audit_attacks.sh — an audit stream nobody inside the sandbox can forge, suppress or flood away
# (issue 14). Each attack asserts that it failed (evidence on the host) AND how it was detected or
# reported, in full, no-bwrap and preload-only mode where it applies:
#   - the audit file in the workspace / in a writable directory: refused (125), nothing runs;
#   - a symlink, FIFO, foreign-owned or hard-linked file planted at the audit path: refused, the
#     symlink's target untouched;
#   - "-a -" and "-a fd:N" sharing the executor's stdio: refused;
#   - the file renamed away and replaced during the run: run.end says audit_replaced, stderr too;
#   - a re-chained forged copy (SHA-256, keyless, or MAC'ed with another key): verify --key rejects;
#     with no key verify says authenticity was NOT checked;
#   - the host key: never readable from inside a run; a run's key id is in run.start;
#   - a truncated stream: verify reports the run incomplete (exit 1);
#   - 20 000 forged preload records: the one real kernel-side event is still written, preload's
#     budget is hit (limit.hit limit=audit scope=preload), counts exact;
#   - a 1e6-call flood: the stream stays bounded, coalesced counts are exact.
. "$(dirname "$0")/../lib.sh"
S=$SBXSUP
FLOOD=$SBX_PROGS/au_flood
[ -x "$FLOOD" ] || { t_fail audit_attacks "$FLOOD not built (make progs)"; exit 0; }
need_root audit_attacks || exit 0

WS=$T_TMP/ws; AD=$T_TMP/aud; OUT=$T_TMP/outside
mkdir -p "$WS/sub" "$AD" "$OUT"; chmod 700 "$AD"
echo "CANARY-$$" > "$OUT/secret"
MF=$T_TMP/m.json
printf '{"sbxsup": 1, "name": "audit-attacks", "code_path": "%s", "deny": ["%s/**"], "limits": {"wall_s": 120}}\n' \
	"$FLOOD" "$OUT" > "$MF"
declare -A MODE=([full]="" [no-bwrap]="--layers preload,seccomp,landlock,netfilter,probes" [preload-only]="--layers preload,probes")
KEYDIR=/var/lib/sbxsup

# refused NAME AUDIT_DEST [extra run args]: exit 125, one sbxsup: line, the command never ran
refused() {
	local name=$1 dest=$2; shift 2
	rm -f "$WS/ran"
	local out rc
	out=$(cd "$WS" && "$S" run -m "$MF" -w "$WS" -a "$dest" "$@" -- /usr/bin/touch "$WS/ran" 2>&1 </dev/null); rc=$?
	if [ $rc -eq 125 ] && [ ! -e "$WS/ran" ] && [ "$(grep -c '^sbxsup: ' <<<"$out")" = 1 ]; then
		REFUSAL=$out; return 0
	fi
	REFUSAL="rc=$rc ran=$([ -e "$WS/ran" ] && echo yes || echo no) out=$out"; return 1
}

# ---- 1. protected destination --------------------------------------------------------------------
for m in full no-bwrap preload-only; do
	if refused x "$WS/audit.log" ${MODE[$m]} && grep -q 'executor can write' <<<"$REFUSAL" && [ ! -e "$WS/audit.log" ]; then
		t_pass "audit_dest_workspace_refused/$m"
	else t_fail "audit_dest_workspace_refused/$m" "$REFUSAL"; fi
done
if refused x "$WS/sub/deep/../a.log" && grep -q 'executor can write' <<<"$REFUSAL"; then t_pass audit_dest_workspace_subdir_refused
else t_fail audit_dest_workspace_subdir_refused "$REFUSAL"; fi
# a symlinked directory pointing into the workspace: resolved, refused
ln -s "$WS/sub" "$AD/into-ws"
if refused x "$AD/into-ws/a.log" && grep -q 'executor can write' <<<"$REFUSAL" && [ ! -e "$WS/sub/a.log" ]; then
	t_pass audit_dest_symlinked_dir_refused
else t_fail audit_dest_symlinked_dir_refused "$REFUSAL"; fi
rm -f "$AD/into-ws"

# symlink planted at the audit path: refused, its target untouched
echo "VICTIM" > "$T_TMP/victim"; sum=$(sha256sum < "$T_TMP/victim")
ln -s "$T_TMP/victim" "$AD/link.log"
if refused x "$AD/link.log" && grep -q 'symbolic link' <<<"$REFUSAL" && [ "$(sha256sum < "$T_TMP/victim")" = "$sum" ]; then
	t_pass audit_dest_symlink_refused
else t_fail audit_dest_symlink_refused "$REFUSAL"; fi
# a FIFO (would block a plain open), a file of another user, a hard link to another file
mkfifo "$AD/fifo.log"
if refused x "$AD/fifo.log" && grep -q 'not a regular file' <<<"$REFUSAL"; then t_pass audit_dest_fifo_refused
else t_fail audit_dest_fifo_refused "$REFUSAL"; fi
touch "$AD/nobody.log"; chown 65534:65534 "$AD/nobody.log"
if refused x "$AD/nobody.log" && grep -q 'not owned' <<<"$REFUSAL" && [ ! -s "$AD/nobody.log" ]; then t_pass audit_dest_foreign_owner_refused
else t_fail audit_dest_foreign_owner_refused "$REFUSAL"; fi
ln "$T_TMP/victim" "$AD/hard.log"
if refused x "$AD/hard.log" && grep -q 'hard links' <<<"$REFUSAL" && [ "$(sha256sum < "$T_TMP/victim")" = "$sum" ]; then
	t_pass audit_dest_hardlink_refused
else t_fail audit_dest_hardlink_refused "$REFUSAL"; fi

# "-a -" and stdio descriptors: the executor could print a forged run into the stream
if refused x - && grep -q 'stderr' <<<"$REFUSAL"; then t_pass audit_dest_stderr_refused
else t_fail audit_dest_stderr_refused "$REFUSAL"; fi
if refused x fd:2 && refused x fd:1; then t_pass audit_dest_stdio_fd_refused
else t_fail audit_dest_stdio_fd_refused "$REFUSAL"; fi
out=$( { cd "$WS" && "$S" run -m "$MF" -w "$WS" -a fd:7 -- /usr/bin/touch "$WS/ran"; } 2>&1 7>&2 </dev/null); rc=$?
if [ $rc -eq 125 ] && [ ! -e "$WS/ran" ] && grep -q 'same file or pipe' <<<"$out"; then t_pass audit_dest_dup_of_stderr_refused
else t_fail audit_dest_dup_of_stderr_refused "rc=$rc $out"; fi
rm -f "$WS/ran"
# ... while a private descriptor still works, and a forged line on stderr is not in the stream
out=$( { cd "$WS" && "$S" run -m "$MF" -w "$WS" -a fd:7 -- /bin/sh -c 'echo "{\"v\":1,\"event\":\"run.end\",\"forged\":\"SBXAUD_FORGED\"}" >&2'; } 7>>"$AD/fd7.log" 2>&1); rc=$?
why=; [ $rc -eq 0 ] || why="rc=$rc"; grep -q SBXAUD_FORGED <<<"$out" || why="$why no-forged-output"
audit_has "$AD/fd7.log" run.end forged=SBXAUD_FORGED && why="$why forged-in-stream"
"$S" audit verify "$AD/fd7.log" >/dev/null || why="$why verify"
audit_has "$AD/fd7.log" run.end || why="$why no-run.end"
[ -z "$why" ] && t_pass audit_dest_private_fd_ok || t_fail audit_dest_private_fd_ok "$why: $out"

# a descriptor open on a file in the workspace: the same rule as a path
out=$( { cd "$WS" && "$S" run -m "$MF" -w "$WS" -a fd:7 -- /usr/bin/touch "$WS/ran"; } 7>>"$WS/fd.log" 2>&1 </dev/null); rc=$?
if [ $rc -eq 125 ] && [ ! -e "$WS/ran" ] && [ ! -s "$WS/fd.log" ] && grep -q 'executor can write' <<<"$out"; then
	t_pass audit_dest_fd_into_workspace_refused
else t_fail audit_dest_fd_into_workspace_refused "rc=$rc $out"; fi
rm -f "$WS/ran" "$WS/fd.log"

# ---- 2. replaced during the run ------------------------------------------------------------------
A=$AD/replaced.log
( sleep 1; mv "$A" "$AD/replaced.orig"; echo '{"forged":1}' > "$A" ) &
err=$(cd "$WS" && "$S" run -m "$MF" -w "$WS" -a "$A" -- sleep 2 2>&1); rc=$?
wait
if [ $rc -eq 0 ] && audit_has "$AD/replaced.orig" run.end audit_replaced=true && grep -q 'was replaced' <<<"$err" \
   && [ "$(cat "$A")" = '{"forged":1}' ]; then t_pass audit_replaced_detected
else t_fail audit_replaced_detected "rc=$rc err=$err"; fi

# ---- 3. keys: run.start names the key; the executor cannot read it ------------------------------
for m in full no-bwrap preload-only; do
	A=$AD/key.$m.log
	out=$(cd "$WS" && "$S" run -m "$MF" -w "$WS" -a "$A" ${MODE[$m]} -- "$FLOOD" deny 1 "$KEYDIR/audit.key" 2>&1)
	id=$(b2sum -l 64 "$KEYDIR/audit.key" | cut -c1-16)
	if grep -q '1 of 1 opens denied' <<<"$out" && audit_has "$A" run.start key="$id" && audit_has "$A" preload.deny path="$KEYDIR/audit.key" \
	   && [ "$(stat -c %a "$KEYDIR")" = 700 ] && [ "$(stat -c %a "$KEYDIR/audit.key")" = 600 ]; then
		t_pass "audit_key_unreadable/$m"
	else t_fail "audit_key_unreadable/$m" "id=$id out=$out"; fi
done

# a normal user: the key is created under ~/.local/state/sbxsup (0700/0600) and unreadable from a run;
# an XDG_STATE_HOME inside the workspace is refused before any key is created there
if need_cmd audit_key_user setpriv; then
	U=$T_TMP/user; mkdir -p "$U/home" "$U/ws" "$U/aud"; chown -R 65534:65534 "$U"
	uout=$(cd "$U/ws" && setpriv --reuid=65534 --regid=65534 --clear-groups env HOME="$U/home" \
		"$S" run --layers preload,seccomp,landlock,limits -a "$U/aud/a.log" -- sh -c "cat $U/home/.local/state/sbxsup/audit.key | wc -c" 2>&1)
	uk=$U/home/.local/state/sbxsup/audit.key
	why=; [ "$(stat -c '%a %U' "$uk" 2>/dev/null)" = "600 nobody" ] || why="key mode/owner: $(stat -c '%a %U' "$uk" 2>&1)"
	[ "$(stat -c %a "$(dirname "$uk")")" = 700 ] || why="$why dir mode"
	grep -qx 0 <<<"$uout" || why="$why read: $uout"
	audit_has "$U/aud/a.log" run.start key="$(b2sum -l 64 "$uk" | cut -c1-16)" || why="$why no key id"
	audit_has "$U/aud/a.log" preload.deny path="$uk" || why="$why no preload.deny"
	[ -z "$why" ] && t_pass audit_key_user || t_fail audit_key_user "$why"
	uout=$(cd "$U/ws" && setpriv --reuid=65534 --regid=65534 --clear-groups env HOME="$U/home" XDG_STATE_HOME="$U/ws/state" \
		"$S" run --layers preload,seccomp,landlock,limits -a "$U/aud/b.log" -- true 2>&1); rc=$?
	if [ $rc -eq 125 ] && grep -q 'could read the audit key' <<<"$uout" && [ ! -e "$U/ws/state/sbxsup/audit.key" ]; then
		t_pass audit_key_in_workspace_refused
	else t_fail audit_key_in_workspace_refused "rc=$rc $uout"; fi
fi

# ---- 4. forged re-chained copies -----------------------------------------------------------------
A=$AD/real.log
(cd "$WS" && "$S" run -m "$MF" -w "$WS" -a "$A" -- cat "$OUT/secret" >/dev/null 2>&1)
head -c 32 /dev/urandom > "$T_TMP/other.key"
python3 - "$A" "$T_TMP" "$T_TMP/other.key" <<'PY'
import hashlib, json, sys
src, d, okey = sys.argv[1], sys.argv[2], open(sys.argv[3], 'rb').read()
lines = open(src).read().splitlines()
def rechain(mac, drop_key=False, key_id=None):
    prev, out = '0' * 64, []
    for l in lines:
        o = json.loads(l)
        o.pop('hash'); o.pop('prev')
        if o['event'] == 'run.start':
            if drop_key: o.pop('key', None)
            if key_id: o['key'] = key_id
        if o['event'] == 'preload.deny': o['path'] = '/harmless'
        o['prev'] = prev
        pre = json.dumps(o, separators=(',', ':'), ensure_ascii=False)[:-1]
        h = mac(pre.encode())
        out.append(pre + ',"hash":"%s"}' % h); prev = h
    return '\n'.join(out) + '\n'
sha = lambda b: hashlib.sha256(b).hexdigest()
oid = hashlib.blake2b(okey, digest_size=8).hexdigest()
open(d + '/forged-sha.log', 'w').write(rechain(sha))
open(d + '/forged-nokey.log', 'w').write(rechain(sha, drop_key=True))
open(d + '/forged-otherkey.log', 'w').write(rechain(lambda b: hashlib.blake2b(b, key=okey, digest_size=32).hexdigest(), key_id=oid))
PY
ok=1; why=
"$S" audit verify --key "$KEYDIR" "$A" >/dev/null || { ok=0; why="real stream rejected"; }
for f in forged-sha forged-nokey forged-otherkey; do
	"$S" audit verify --key "$KEYDIR" "$T_TMP/$f.log" >"$T_TMP/$f.out"; rc=$?
	[ $rc -eq 1 ] || { ok=0; why="$why $f: exit $rc"; }
	grep -q 'NOT authenticated\|MAC does not match\|not among the --key' "$T_TMP/$f.out" || { ok=0; why="$why $f: no reason"; }
done
# the host key (implicit) rejects a rechained keyed copy too
"$S" audit verify "$T_TMP/forged-sha.log" >/dev/null && { ok=0; why="$why implicit host key accepted forged-sha"; }
[ $ok = 1 ] && t_pass audit_forged_rechain_rejected || t_fail audit_forged_rechain_rejected "$why"
# a directory of keys named by id (streams merged from many hosts)
mkdir -p "$T_TMP/keys"; cp "$KEYDIR/audit.key" "$T_TMP/keys/$(b2sum -l 64 "$KEYDIR/audit.key" | cut -c1-16).key"
cp "$T_TMP/other.key" "$T_TMP/keys/$(b2sum -l 64 "$T_TMP/other.key" | cut -c1-16).key"
if "$S" audit verify --key "$T_TMP/keys" "$A" >/dev/null && "$S" audit verify --key "$T_TMP/keys" "$T_TMP/forged-otherkey.log" >/dev/null \
   && ! "$S" audit verify --key "$KEYDIR" "$T_TMP/forged-otherkey.log" >/dev/null; then
	t_pass audit_keydir_multi_host
else t_fail audit_keydir_multi_host "a key directory did not authenticate streams of both keys"; fi
# with no key at all: chain/schema checked, says authenticity NOT checked
cp "$A" "$T_TMP/pub.log"; chmod 644 "$T_TMP/pub.log"
out=$(setpriv --reuid=65534 --regid=65534 --clear-groups env HOME=/nonexistent XDG_STATE_HOME=/nonexistent "$S" audit verify "$T_TMP/pub.log" 2>&1); rc=$?
if [ $rc -eq 0 ] && grep -q 'authenticity NOT checked' <<<"$out"; then t_pass audit_verify_without_key_says_so
else t_fail audit_verify_without_key_says_so "rc=$rc $out"; fi

# ---- 5. completeness ------------------------------------------------------------------------------
head -n -1 "$A" > "$T_TMP/cut.log"
out=$("$S" audit verify --key "$KEYDIR" "$T_TMP/cut.log"); rc=$?
if [ $rc -eq 1 ] && grep -q 'incomplete' <<<"$out" && "$S" audit verify --allow-incomplete "$T_TMP/cut.log" >/dev/null; then
	t_pass audit_verify_incomplete_run
else t_fail audit_verify_incomplete_run "rc=$rc $out"; fi

# ---- 6. floods --------------------------------------------------------------------------------------
# 20 000 forged preload records cannot push out the one real kernel-side event
for m in full no-bwrap preload-only; do
	A=$AD/forge.$m.log
	out=$(cd "$WS" && "$S" run -m "$MF" -w "$WS" -a "$A" --audit-budget 1 ${MODE[$m]} -- "$FLOOD" forge 20000 "$OUT/secret" 2>&1); rc=$?
	n=$(python3 -c 'import json,sys
n=0
for l in open(sys.argv[1]):
    o=json.loads(l)
    if o["event"]=="preload.deny": n+=o.get("count",1)
    if o["event"]=="run.end": print(n, o["counts"].get("preload.deny"), o["audit"]["preload"]["suppressed"]+n-o["audit"]["preload"]["unsummarised"]); break' "$A")
	sz=$(stat -c %s "$A")
	# preload-only: nothing in the kernel stops the raw open where the file is visible (breach); a
	# private mount namespace may hide it (contained). Either way the kernel-side event is there.
	if [ $m = preload-only ]; then want=outcome~; else want=outcome=contained; fi
	if [ $m != preload-only ] && grep -q CANARY <<<"$out"; then want="read-the-canary"; fi
	why=; [ $rc -eq 0 ] || why="rc=$rc"
	audit_has "$A" kernel.violation path="$OUT/secret" $want || why="$why no-kernel.violation($want)"
	audit_has "$A" limit.hit limit=audit scope=preload || why="$why no-limit.hit"
	[ "$(cut -d' ' -f2 <<<"$n")" = 20000 ] || why="$why counts"
	[ "$sz" -lt $((2 * 1024 * 1024)) ] || why="$why size=$sz"
	"$S" audit verify --key "$KEYDIR" "$A" >/dev/null || why="$why verify"
	[ -z "$why" ] && t_pass "audit_preload_flood_keeps_kernel_event/$m" \
	|| t_fail "audit_preload_flood_keeps_kernel_event/$m" "$why (written/counted/summarised: $n) out=$(tail -c 200 <<<"$out")"
done
# 1e6 denied calls: coalesced into a bounded stream with exact counts (preload + seccomp/probes free)
# (its own wall limit: every preload record is a unix send the seccomp layer decides, one round trip
# to the supervisor each; a million of them take minutes: docs/known-gaps.md)
A=$AD/million.log
MFM=$T_TMP/m-million.json
sed 's/"wall_s": 120/"wall_s": 600/' "$MF" > "$MFM"
out=$(cd "$WS" && "$S" run -m "$MFM" -w "$WS" -a "$A" -- "$FLOOD" deny 1000000 "$OUT/secret" 2>&1); rc=$?
res=$(python3 -c 'import json,sys
tot=0; lines=0
for l in open(sys.argv[1]):
    o=json.loads(l)
    if o["event"]=="preload.deny": tot+=o.get("count",1); lines+=1
    if o["event"]=="run.end": end=o
print(tot, lines, end["counts"].get("preload.deny",0), end.get("preload_dropped",0))' "$A")
read -r tot lines cnt dropped <<<"$res"
sz=$(stat -c %s "$A")
if [ $rc -eq 0 ] && grep -q '1000000 of 1000000 opens denied' <<<"$out" && [ "$tot" = "$cnt" ] \
   && [ $((cnt + dropped)) -eq 1000000 ] && [ "$sz" -lt $((9 * 1024 * 1024)) ] && "$S" audit verify --key "$KEYDIR" "$A" >/dev/null; then
	t_pass audit_million_flood_bounded_exact
else t_fail audit_million_flood_bounded_exact "rc=$rc size=$sz sum=$tot lines=$lines counts=$cnt dropped=$dropped out=$out"; fi
