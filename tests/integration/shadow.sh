#!/usr/bin/env bash
# shadow.sh — the shadow workspace (issue 21, docs/shadow.md): under --shadow the executor's
# edits, deletions, creations, renames and mode changes land in the run's store and the real
# workspace stays untouched (content, mode, existence checked on the host) until `sbxsup shadow
# commit`; diff lists the deletion and the new file; a partial commit; a conflict (the real file
# changed after the run started) refused; a symlink, a fifo, a setuid file, and a store entry
# replaced by a device / symlink refused at commit; discard removes the store; the same with the
# copy fallback (forced), and its size limit; the store is not
# readable from inside a run (attack + audit event); commit never follows a real directory swapped
# for a symlink out of the workspace (attack + the shadow.commit refusal); the manifest's workspace.mode; refusal
# without namespaces; --dry-run creates nothing. With bwrap and without, as root and as an
# unprivileged user (sbxu_shadow, removed after).
. "$(dirname "$0")/../lib.sh"

A=$T_TMP/audit
NB="--layers preload,seccomp,landlock,limits"
RES=$T_TMP/res.json
store_root() { if [ "$(id -u)" = 0 ]; then echo /var/lib/sbxsup/shadow; else echo "${XDG_STATE_HOME:-$HOME/.local/state}/sbxsup/shadow"; fi; }
SR=$(store_root)
res() { python3 -c 'import json,sys; o=json.load(open(sys.argv[1]))
for k in sys.argv[2].split("."): o = o.get(k) if isinstance(o, dict) else None
print("" if o is None else o)' "$RES" "$1"; }
# the shadow.commit line's refused/committed entries: "kind path: reason" lines
commit_ev() { python3 - "$1" "$2" 2>/dev/null <<'PY'
import json, sys
for l in open(sys.argv[1]):
    o = json.loads(l)
    if o.get("event") == "shadow.commit":
        last = o
for e in last.get(sys.argv[2], []):
    print("%s %s: %s" % (e["kind"], e["path"], e.get("reason", "")))
PY
}
new_ws() {
	WS=$T_TMP/ws-$1; rm -rf "$WS"; mkdir -p "$WS/src/sub"
	echo orig > "$WS/b.txt"; echo keep > "$WS/keep.txt"; chmod 644 "$WS/keep.txt"
	echo code > "$WS/src/a.c"; echo deep > "$WS/src/sub/x.h"; printf 'line1\nline2\n' > "$WS/conf"
}

check_mode() { # NAME LAYER-ARGS...   (MECH=overlay|copy: the mechanism asked for and expected)
	local n=$1; shift
	local mech=${MECH:-overlay} lay=upper; [ "$mech" = copy ] && lay=tree
	export SBXSUP_SHADOW_MECH=$mech
	local a="$A.$n" out rc run
	new_ws "$n"
	rm -f "$a" "$RES"
	out=$(cd "$WS" && "$SBXSUP" run "$@" --shadow -a "$a" --result "$RES" -- sh -c '
		echo changed > b.txt; chmod 600 keep.txt; rm -rf src; echo x > new
		mkdir -p d/e; echo y > d/e/f; echo line3 >> conf; cat b.txt' 2>&1); rc=$?
	run=$(res run)
	# the real workspace: untouched (content, mode, existence)
	if [ $rc -eq 0 ] && grep -q '^changed' <<<"$out" && [ "$(cat "$WS/b.txt")" = orig ] &&
	   [ "$(stat -c %a "$WS/keep.txt")" = 644 ] && [ -f "$WS/src/a.c" ] && [ -f "$WS/src/sub/x.h" ] &&
	   [ ! -e "$WS/new" ] && [ ! -e "$WS/d" ] && [ "$(wc -l < "$WS/conf")" = 2 ] &&
	   audit_has "$a" run.start level.shadow="$mech" && audit_has "$a" run.end shadow.count.deleted=4 \
	     shadow.count.created=4 shadow.count.modified=2 shadow.count.mode=1 "shadow.hash?" &&
	   [ "$(res shadow.hash)" = "$(python3 -c 'import json,sys
for l in open(sys.argv[1]):
    o=json.loads(l)
    if o["event"]=="run.end": print(o["shadow"]["hash"])' "$a")" ]; then
		t_pass "shadow_untouched_$n"
	else t_fail "shadow_untouched_$n" "rc=$rc out=$out ws=$(ls -la "$WS") $(audit_explain "$a" run.end shadow.count.deleted=4)"; fi

	# diff: the deletion and the new file, a unified diff of the text
	out=$("$SBXSUP" shadow diff "$run" 2>&1); rc=$?
	if [ $rc -eq 0 ] && grep -qE '^deleted +dir .* "src"$' <<<"$out" && grep -qE '^deleted +file .* "src/a.c"$' <<<"$out" &&
	   grep -qE '^created +file +[0-7]{4} +2  "new"$' <<<"$out" && grep -qE '^mode +file +0644->0600 .* "keep.txt"$' <<<"$out" &&
	   grep -q '^+line3' <<<"$out" && grep -q '^-orig' <<<"$out" && grep -q '^+++ b/new' <<<"$out"; then
		t_pass "shadow_diff_$n"
	else t_fail "shadow_diff_$n" "rc=$rc $out"; fi

	# a partial commit: only new and d/ (its new directories come along)
	out=$("$SBXSUP" shadow commit "$run" new "$WS/d/e/f" 2>&1); rc=$?
	if [ $rc -eq 0 ] && [ "$(cat "$WS/new")" = x ] && [ "$(cat "$WS/d/e/f")" = y ] && [ "$(cat "$WS/b.txt")" = orig ] &&
	   [ -f "$WS/src/a.c" ] && [ "$(stat -c %a "$WS/keep.txt")" = 644 ] &&
	   audit_has "$a" shadow.commit shadow_run="$run" "changeset=$(res shadow.hash)" uid="$(id -u)" &&
	   commit_ev "$a" committed | grep -qx 'created d/e/f: ' && "$SBXSUP" audit verify "$a" >/dev/null 2>&1; then
		t_pass "shadow_partial_commit_$n"
	else t_fail "shadow_partial_commit_$n" "rc=$rc $out $("$SBXSUP" audit verify "$a" 2>&1 | head -3)"; fi

	# a conflict: the real b.txt changed after the run started -> refused, the host's content kept
	echo host > "$WS/b.txt"
	out=$("$SBXSUP" shadow commit "$run" b.txt 2>&1); rc=$?
	if [ $rc -eq 1 ] && [ "$(cat "$WS/b.txt")" = host ] && grep -qE 'refused modified file [0-7]{4} "b.txt": .*conflict' <<<"$out" &&
	   commit_ev "$a" refused | grep -q '^modified b.txt: .*conflict'; then
		t_pass "shadow_conflict_$n"
	else t_fail "shadow_conflict_$n" "rc=$rc $out"; fi

	# the rest: deletions (children first), the mode change, the appended line
	out=$("$SBXSUP" shadow commit "$run" 2>&1); rc=$?
	if [ $rc -eq 1 ] && [ ! -e "$WS/src" ] && [ "$(stat -c %a "$WS/keep.txt")" = 600 ] && [ "$(wc -l < "$WS/conf")" = 3 ] &&
	   [ "$(cat "$WS/b.txt")" = host ] && [ -z "$(find "$WS" -name '.sbxsup-shadow.*')" ]; then
		t_pass "shadow_commit_rest_$n"
	else t_fail "shadow_commit_rest_$n" "rc=$rc $out $(ls -laR "$WS")"; fi

	# discard removes the store
	if "$SBXSUP" shadow discard "$run" >/dev/null && [ ! -e "$SR/$run" ] && ! "$SBXSUP" shadow list | grep -q "$run"; then
		t_pass "shadow_discard_$n"
	else t_fail "shadow_discard_$n" "$(ls -la "$SR/$run" 2>&1)"; fi

	# what commit never creates: a symlink, a fifo, a setuid file; a store entry swapped for a
	# symlink (and, as root, a device) after the listing. The run cannot make the setuid file
	# (the privilege guard refuses the chmod, reported): the host makes it in the store after it.
	new_ws "$n"; rm -f "$a" "$RES"
	out=$(cd "$WS" && "$SBXSUP" run "$@" --shadow -a "$a" --result "$RES" -- sh -c '
		ln -s /etc/passwd sl; mkfifo ff; echo s > su; chmod 4755 su; echo t > swapped; echo u > swapped2' 2>&1); rc=$?
	run=$(res run)
	local up="$SR/$run/$lay"
	rm -f "$up/swapped" && ln -s /etc/hostname "$up/swapped"
	local priv_ok=0
	if [ -f "$up/su" ] && [ "$(stat -c %a "$up/su")" != 4755 ] &&
	   { audit_has "$a" kernel.violation "rule=privilege: setuid bit" || audit_has "$a" preload.deny "rule=privilege: setuid bit"; }; then
		priv_ok=1
	fi
	chmod 4755 "$up/su"
	local dev_ok=1
	if [ "$(id -u)" = 0 ]; then rm -f "$up/swapped2" && mknod "$up/swapped2" c 1 3 || dev_ok=0; fi
	out=$("$SBXSUP" shadow commit "$run" 2>&1); rc=$?
	local ref; ref=$(commit_ev "$a" refused)
	if [ $rc -eq 1 ] && [ $priv_ok = 1 ] && [ ! -e "$WS/sl" ] && [ ! -L "$WS/sl" ] && [ ! -e "$WS/ff" ] && [ ! -e "$WS/su" ] && [ ! -e "$WS/swapped" ] &&
	   [ $dev_ok = 1 ] && grep -q '^created sl: a symlink' <<<"$ref" && grep -q '^created ff: a fifo' <<<"$ref" &&
	   grep -qE '^created su: (setuid \(mode 4755\)|a setuid/setgid file)' <<<"$ref" && grep -q '^created swapped: the stored copy cannot be opened' <<<"$ref" &&
	   { [ "$(id -u)" != 0 ] || { [ ! -e "$WS/swapped2" ] && grep -q '^created swapped2: the stored copy is not a regular file' <<<"$ref"; }; }; then
		t_pass "shadow_refuse_special_$n"
	else t_fail "shadow_refuse_special_$n" "rc=$rc priv_ok=$priv_ok $out refused=$ref ws=$(ls -la "$WS")"; fi
	"$SBXSUP" shadow discard "$run" >/dev/null 2>&1

	# review surfaces that cannot lie (issue 30): hostile names are shown quoted and escaped in
	# diff, commit and list; diff shows type and mode; commit refuses a setuid file, a 0777
	# directory, a 0666 new file, a chmod 0666 of an existing file and symlinks (out of the
	# workspace, absolute or climbing), keeps the host unchanged for them (stat), and lists them in
	# shadow.commit; --allow-world-writable is the audited opt-in; --json carries the exact names
	new_ws "$n"; rm -f "$a" "$RES"
	out=$(cd "$WS" && "$SBXSUP" run "$@" --shadow -a "$a" --result "$RES" -- sh -c '
		printf x > "$(printf "esc\033[2Jx")"; printf x > "$(printf "cr\rmodified file 4 README.md")"
		printf x > "$(printf "nl\nmodified file 4 README.md")"; printf x > "$(printf "bidi\342\200\256hs.txt")"
		printf x > "$(printf "bad\377utf")"; echo s > su; chmod 4755 su; mkdir wwdir; chmod 0777 wwdir
		echo w > wwfile; chmod 0666 wwfile; chmod 0666 keep.txt; ln -s ../../etc climb; ln -s /etc/passwd abs' 2>&1); rc=$?
	run=$(res run)
	# the run cannot make the setuid file (the privilege guard): the host makes it in the store
	[ -f "$SR/$run/$lay/su" ] && chmod 4755 "$SR/$run/$lay/su"
	local d dj c l2
	d=$("$SBXSUP" shadow diff "$run" 2>&1)
	dj=$("$SBXSUP" shadow diff --json "$run" 2>&1)
	l2=$("$SBXSUP" shadow list 2>&1)
	if [ $rc -eq 0 ] && ! grep -q $'[\x1b\r\x7f]' <<<"$d$l2" && ! grep -q $'\xe2\x80\xae' <<<"$d" &&
	   ! grep -q '^modified file 4 README.md' <<<"$d" &&
	   grep -qF '"esc\033[2Jx"' <<<"$d" && grep -qF '"cr\rmodified file 4 README.md"' <<<"$d" &&
	   grep -qF '"nl\nmodified file 4 README.md"' <<<"$d" && grep -qF '"bidi\u202ehs.txt"' <<<"$d" &&
	   grep -qF '"bad\xffutf"' <<<"$d" &&
	   grep -qE '^created +dir +0777 .*"wwdir"$' <<<"$d" && grep -qE '^created +file +0666 .*"wwfile"$' <<<"$d" &&
	   grep -qE '^mode +file +0644->0666 .*"keep.txt"$' <<<"$d" && grep -q 'commit refuses: world-writable (mode 0666)' <<<"$d" &&
	   grep -qF -- '-> "../../etc"  (points out of the workspace)' <<<"$d" && grep -qF -- '-> "/etc/passwd"  (points out of the workspace)' <<<"$d" &&
	   python3 - "$dj" <<'PY'
import json, sys
j = json.loads(sys.argv[1])
names = {e["path"]: e for e in j["entries"]}
assert "esc\x1b[2Jx" in names and "nl\nmodified file 4 README.md" in names and "bidi\u202ehs.txt" in names, names.keys()
bad = [e for e in j["entries"] if e.get("path_hex") == b"bad\xffutf".hex()]
assert len(bad) == 1 and bad[0]["path"] == "bad\ufffdutf", bad
PY
	then t_pass "shadow_review_names_modes_$n"
	else t_fail "shadow_review_names_modes_$n" "rc=$rc out=$out diff=$(cat -v <<<"$d" | head -c 3000) json=$(head -c 600 <<<"$dj")"; fi
	c=$("$SBXSUP" shadow commit "$run" 2>&1); rc=$?
	local ref com; ref=$(commit_ev "$a" refused); com=$(commit_ev "$a" committed)
	if [ $rc -eq 1 ] && ! grep -q $'[\x1b\r]' <<<"$c" && [ "$(stat -c %a "$WS/keep.txt")" = 644 ] && [ ! -e "$WS/wwdir" ] &&
	   [ ! -e "$WS/wwfile" ] && [ ! -e "$WS/su" ] && [ ! -L "$WS/climb" ] && [ ! -L "$WS/abs" ] &&
	   [ -f "$WS/$(printf 'esc\033[2Jx')" ] && [ -f "$WS/$(printf 'bad\377utf')" ] && [ -f "$WS/$(printf 'nl\nmodified file 4 README.md')" ] &&
	   grep -qF 'refused mode file 0666 "keep.txt": world-writable (mode 0666)' <<<"$c" &&
	   grep -qF 'committed created  file    0644 "esc\033[2Jx"' <<<"$c" &&
	   grep -q '^mode keep.txt: world-writable' <<<"$ref" && grep -q '^created wwdir: world-writable (mode 0777)' <<<"$ref" &&
	   grep -q '^created wwfile: world-writable' <<<"$ref" && grep -qE '^created su: (setuid \(mode 4755\)|a setuid/setgid file)' <<<"$ref" &&
	   grep -q '^created climb: a symlink' <<<"$ref" && grep -q '^created abs: a symlink' <<<"$ref" &&
	   grep -q $'^created esc\x1b\\[2Jx: $' <<<"$com"; then
		t_pass "shadow_review_commit_refuses_$n"
	else t_fail "shadow_review_commit_refuses_$n" "rc=$rc $(cat -v <<<"$c") ref=$ref ws=$(ls -la "$WS")"; fi
	c=$("$SBXSUP" shadow commit --allow-world-writable "$run" keep.txt 2>&1); rc=$?
	if [ $rc -eq 0 ] && [ "$(stat -c %a "$WS/keep.txt")" = 666 ] && audit_has "$a" shadow.commit 'allow~world-writable' &&
	   commit_ev "$a" committed | grep -qx 'mode keep.txt: '; then
		t_pass "shadow_review_allow_world_writable_$n"
	else t_fail "shadow_review_allow_world_writable_$n" "rc=$rc $c $(audit_explain "$a" shadow.commit 'allow~world-writable')"; fi
	"$SBXSUP" shadow discard "$run" >/dev/null 2>&1

	# the attack: the store is not readable from inside a run (host evidence: nothing of it printed)
	new_ws "$n"; rm -f "$a" "$RES"
	local secret="SHADOW-SECRET-$$-$n"
	out=$(cd "$WS" && "$SBXSUP" run "$@" --shadow -a "$a" --result "$RES" -- sh -c '
		echo '"$secret"' > planted; ls "'"$SR"'" ; cat "'"$SR"'"/*/*/planted "'"$SR"'"/*/meta.json' 2>&1); rc=$?
	run=$(res run)
	if [ -f "$SR/$run/$lay/planted" ] && ! grep -q "$secret" <<<"$(grep -v '^sbxsup' <<<"$out" | grep -v 'echo')" &&
	   ! grep -q "$run" <<<"$out" && { audit_has "$a" preload.deny "path~$SR" || audit_has "$a" kernel.violation "path~$SR" ||
	   audit_has "$a" landlock.deny "path~$SR"; }; then
		t_pass "shadow_store_unreadable_$n"
	else t_fail "shadow_store_unreadable_$n" "rc=$rc out=$out $(audit_explain "$a" preload.deny "path~$SR")"; fi
	"$SBXSUP" shadow discard "$run" >/dev/null 2>&1

	# the manifest's workspace.mode
	new_ws "$n"; rm -f "$a" "$RES"
	cat > "$T_TMP/m.json" <<EOF
{"sbxsup": 1, "name": "shadowm", "capabilities": [{"cap": "fs:write", "hint": "."}, {"cap": "code:exec"}], "workspace": {"mode": "shadow"}}
EOF
	out=$(cd "$WS" && "$SBXSUP" run -m "$T_TMP/m.json" "$@" -a "$a" --result "$RES" -- sh -c 'rm b.txt; echo z > zz' 2>&1); rc=$?
	run=$(res run)
	if [ $rc -eq 0 ] && [ -f "$WS/b.txt" ] && [ ! -e "$WS/zz" ] && audit_has "$a" run.start level.shadow="$mech" &&
	   [ "$(res shadow.count.deleted)" = 1 ] && [ "$(res shadow.count.created)" = 1 ]; then
		t_pass "shadow_manifest_mode_$n"
	else t_fail "shadow_manifest_mode_$n" "rc=$rc $out"; fi
	"$SBXSUP" shadow discard "$run" >/dev/null 2>&1
	unset SBXSUP_SHADOW_MECH
}

if command -v bwrap >/dev/null; then check_mode bwrap --layers auto --require bwrap
else t_skip shadow_bwrap "needs bwrap"; fi
check_mode nobwrap $NB
# the copy fallback (where OverlayFS is not available), forced
if command -v bwrap >/dev/null; then MECH=copy check_mode copy_bwrap --layers auto --require bwrap; fi
MECH=copy check_mode copy_nobwrap $NB

# the copy fallback's size limit: refused with a clear reason, nothing ran, no store left
new_ws limit; rm -f "$RES"; head -c 3145728 /dev/zero > "$WS/big.bin"
n0=$(ls "$SR" 2>/dev/null | wc -l)
out=$(cd "$WS" && SBXSUP_SHADOW_MECH=copy SBXSUP_SHADOW_COPY_MB=1 "$SBXSUP" run --shadow --result "$RES" -- sh -c 'rm b.txt' 2>&1); rc=$?
if [ $rc -eq 125 ] && [ -f "$WS/b.txt" ] && grep -q 'copy limit' <<<"$out" && grep -q shadow_unavailable "$RES" &&
   [ "$(ls "$SR" 2>/dev/null | wc -l)" = "$n0" ]; then
	t_pass shadow_copy_limit
else t_fail shadow_copy_limit "rc=$rc $out"; fi

# commit never follows a symlink out of the workspace: the real directory of a new file is
# swapped for a symlink to a directory outside after the run -> refused, nothing written outside
new_ws escape; rm -f "$A.escape" "$RES"; mkdir -p "$WS/sub"
OUTSIDE=$T_TMP/outside; mkdir -p "$OUTSIDE"
out=$(cd "$WS" && "$SBXSUP" run --shadow -a "$A.escape" --result "$RES" -- sh -c 'echo payload > sub/planted.txt' 2>&1); rc=$?
run=$(res run)
rmdir "$WS/sub" && ln -s "$OUTSIDE" "$WS/sub"
out=$("$SBXSUP" shadow commit "$run" 2>&1); rc=$?
if [ $rc -eq 1 ] && [ ! -e "$OUTSIDE/planted.txt" ] && [ -z "$(ls -A "$OUTSIDE")" ] &&
   grep -qE 'refused created file [0-7]{4} "sub/planted.txt": its directory cannot be reached in the workspace without a symlink' <<<"$out" &&
   commit_ev "$A.escape" refused | grep -q '^created sub/planted.txt: its directory cannot be reached'; then
	t_pass shadow_commit_no_symlink_escape
else t_fail shadow_commit_no_symlink_escape "rc=$rc $out $(ls -la "$OUTSIDE")"; fi
"$SBXSUP" shadow discard "$run" >/dev/null 2>&1

# refused without namespaces (SBXSUP_SANDBOX=0): nothing runs, a reason code says why
new_ws off; rm -f "$RES"
out=$(cd "$WS" && SBXSUP_SANDBOX=0 "$SBXSUP" run --shadow --result "$RES" -- sh -c 'rm b.txt' 2>&1); rc=$?
if [ $rc -eq 125 ] && [ -f "$WS/b.txt" ] && [ "$(res reason.code 2>/dev/null || true)$(res reason)" != "" ] &&
   grep -q shadow_unavailable "$RES" && grep -q -- '--shadow' <<<"$out"; then
	t_pass shadow_refused_without_namespaces
else t_fail shadow_refused_without_namespaces "rc=$rc $out $(cat "$RES" 2>/dev/null)"; fi

# --dry-run shows the shadow set-up and creates nothing
n0=$(ls "$SR" 2>/dev/null | wc -l)
out=$(cd "$WS" && "$SBXSUP" run --shadow --dry-run -- true 2>&1); rc=$?
if [ $rc -eq 0 ] && python3 -c 'import json,sys; p=json.loads(sys.stdin.read()); s=p["shadow"]; assert s["mechanism"]=="overlay" and s["store"].endswith("/<run>")' <<<"$out" &&
   [ "$(ls "$SR" 2>/dev/null | wc -l)" = "$n0" ]; then
	t_pass shadow_dry_run
else t_fail shadow_dry_run "rc=$rc $out"; fi

# As an unprivileged user: this script again.
if [ "$(id -u)" = 0 ] && [ -z "${SBX_SHADOW_INNER:-}" ]; then
	U=sbxu_shadow
	if command -v useradd >/dev/null && useradd -m "$U" 2>/dev/null; then
		t_on_exit "userdel -r $U 2>/dev/null"
		chmod 755 "$T_TMP"
		out=$(runuser -u "$U" -- env SBX_SHADOW_INNER=1 SBXSUP="$SBXSUP" SBX_ROOT="$SBX_ROOT" SBX_PROGS="$SBX_PROGS" \
			HOME="/home/$U" PATH="$PATH" bash "$0" 2>&1)
		while IFS= read -r l; do
			case $l in PASS:*|FAIL:*|SKIP:*) echo "${l%%: *}: unpriv_${l#*: }";; esac
		done <<<"$out"
	else t_skip shadow_unprivileged "cannot create user $U"; fi
fi
