#!/usr/bin/env bash
# identity.sh — the executor is never host root (issue 26), in full (bwrap), no-bwrap and
# preload-only mode: what it creates in a workspace owned by a normal user is that user's on the
# host; a 0600 root file under a read grant stays unreadable; a root listener on a unix socket in
# the workspace sees a non-zero peer uid (SO_PEERCRED), and the executor's process, as the host
# sees it (/proc/PID/status), has no uid 0, no group 0 and no capability; run.start.level.identity
# names that identity; bwrap stays when the workspace, sbxsup or a read grant lie below a root-only
# directory; a grant that cannot be idmapped stays unwritable. Bad input: an identity sbxsup cannot
# lend (SBXSUP_USER naming no user or uid 0, no CAP_SETUID, nobody unmapped) refuses with 125
# (reason identity_unavailable) and never runs the command; --require identity also refuses
# SBXSUP_SANDBOX=0 as root. As root, then again as a throwaway user (sbxu_ident, removed after), whose runs keep
# their own identity.
. "$(dirname "$0")/../lib.sh"

ME=$(id -u)
A=$T_TMP/audit
if [ "$ME" = 0 ]; then
	U=sbxu_ident
	if ! id "$U" >/dev/null 2>&1; then
		useradd -m "$U" 2>/dev/null || { t_fail identity_setup "cannot create user $U"; exit 0; }
		t_on_exit "userdel -r $U 2>/dev/null"
	fi
	OWNER=$(id -u "$U")
	# a root-only key outside /tmp (the no-bwrap mode's private /tmp would hide a /tmp one)
	KD=$(mktemp -d /opt/sbxtest-XXXXXX); chmod 755 "$KD"; t_on_exit "rm -rf '$KD'"
	echo "PRIVATE-KEY-$$-BYTES" > "$KD/key.pem"; chmod 600 "$KD/key.pem"
	MODES="full:auto nobwrap:preload,seccomp,landlock,limits,probes preload:preload,probes,limits"
else
	OWNER=$ME
	# the normal-user half runs from the root half (which makes the root-only key it reads)
	[ -n "${SBX_IDT_KD:-}" ] || { t_skip identity "run as root: it runs its normal-user half itself"; exit 0; }
	KD=$SBX_IDT_KD
	MODES="full:auto nobwrap:preload,seccomp,landlock,limits preload:preload,limits"
fi
M=$T_TMP/m.json
cat > "$M" <<EOF
{"sbxsup": 1, "name": "ident", "capabilities": [{"cap": "fs:read", "hint": "$KD/**"}, {"cap": "code:exec"}]}
EOF

level() { python3 - "$1" "$2" <<'PY'
import json, sys
for l in open(sys.argv[1]):
    o = json.loads(l)
    if o.get("event") == "run.start": print(o.get("level", {}).get(sys.argv[2], ""))
PY
}

# The listener (the invoker's, root in the root pass; its socket the workspace owner's, world
# writable): one connection; the peer's SO_PEERCRED and
# its process's ids and capabilities as the host sees them.
listen() {
	python3 - "$1" "$2" "$OWNER" <<'PY' &
import os, socket, struct, sys
path, out = sys.argv[1], sys.argv[2]
s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
# the workspace owner's socket (an idmapped grant refuses writes to what root owns there)
s.bind(path); os.chown(path, int(sys.argv[3]), -1); os.chmod(path, 0o777); s.listen(1); s.settimeout(60)
open(out + ".ready", "w").close()
c, _ = s.accept()
pid, uid, gid = struct.unpack("3i", c.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, 12))
st = {}
for l in open("/proc/%d/status" % pid):
    k, v = l.split(":", 1); st[k] = v.split()
with open(out, "w") as f:
    f.write("peer_uid=%d peer_gid=%d uids=%s gids=%s groups=%s capeff=%s capprm=%s\n" % (uid, gid,
            ",".join(st["Uid"]), ",".join(st["Gid"]), ",".join(st.get("Groups", [])) or "-",
            st["CapEff"][0], st["CapPrm"][0]))
c.send(b"ok"); c.close()
PY
	LPID=$!
	for _ in $(seq 100); do [ -e "$2.ready" ] && return 0; sleep 0.05; done
	return 1
}

check_mode() {
	local n=$1 layers=$2 ws=$T_TMP/ws-$1 a=$A.$1 out rc peer hu
	mkdir -p "$ws"; chown "$OWNER" "$ws"; chmod 755 "$ws"
	listen "$ws/peer.sock" "$T_TMP/peer.$n" || { t_fail "identity_${n}_listener" "not ready"; return; }
	out=$(cd "$ws" && timeout 60 "$SBXSUP" run -m "$M" --layers "$layers" -a "$a" -- sh -c '
		cat "'"$KD"'/key.pem"
		echo made > created && echo created-ok
		python3 -c "import socket, sys; s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); print(\"reply=\" + s.recv(8).decode())" "$PWD/peer.sock"' 2>&1); rc=$?
	kill "$LPID" 2>/dev/null; wait "$LPID" 2>/dev/null
	peer=$(cat "$T_TMP/peer.$n" 2>/dev/null)
	hu=$(level "$a" identity | sed -n 's/.*-> host uid \([0-9]*\).*/\1/p; s/^uid \([0-9]*\) gid.*/\1/p' | head -1)
	local bw=false; [ "$n" = full ] && bw=true
	if [ $rc -eq 0 ] && [ -n "$hu" ] && [ "$hu" != 0 ] && { [ "$ME" = 0 ] || [ "$hu" = "$ME" ]; } \
	   && audit_has "$a" run.start "level.identity~host uid $hu" layers.bwrap=$bw; then
		t_pass "identity_${n}_level"
	else t_fail "identity_${n}_level" "rc=$rc identity=$(level "$a" identity) out=$out"; fi
	# (a) created in a workspace owned by a normal user: that user's on the host, never root's
	if grep -q created-ok <<<"$out" && [ "$(stat -c %u "$ws/created" 2>/dev/null)" = "$OWNER" ]; then
		t_pass "identity_${n}_created_owned_by_workspace_owner"
	else t_fail "identity_${n}_created_owned_by_workspace_owner" "owner=$(stat -c %u:%g "$ws/created" 2>&1) want $OWNER; $out"; fi
	# (b) a 0600 root file under a read grant: not one byte of it
	if ! grep -q "PRIVATE-KEY-" <<<"$out" && grep -qi "permission denied" <<<"$out" \
	   && audit_has "$a" run.start "level.identity~host uid $hu"; then
		t_pass "identity_${n}_root_only_file_unreadable"
	else t_fail "identity_${n}_root_only_file_unreadable" "$out"; fi
	# (c) SO_PEERCRED of the executor's connect, (d) its process as the host sees it
	local pu; pu=$(sed -n 's/^peer_uid=\([0-9]*\) .*/\1/p' <<<"$peer")
	if grep -q '^reply=ok' <<<"$out" && [ -n "$pu" ] && [ "$pu" != 0 ] && [ "$pu" = "$hu" ]; then
		t_pass "identity_${n}_peercred_not_root"
	else t_fail "identity_${n}_peercred_not_root" "peer=[$peer] host uid=$hu out=$out"; fi
	local uids gids groups cap
	uids=$(sed -n 's/.* uids=\([^ ]*\) .*/\1/p' <<<"$peer"); gids=$(sed -n 's/.* gids=\([^ ]*\) .*/\1/p' <<<"$peer")
	groups=$(sed -n 's/.* groups=\([^ ]*\) .*/\1/p' <<<"$peer"); cap=$(sed -n 's/.* capeff=\([^ ]*\) capprm=\([^ ]*\)$/\1\2/p' <<<"$peer")
	if [ -n "$uids" ] && ! grep -qE '(^|,)0(,|$)' <<<"$uids,$gids,$groups" && [ "$cap" = 00000000000000000000000000000000 ]; then
		t_pass "identity_${n}_host_process_not_root"
	else t_fail "identity_${n}_host_process_not_root" "[$peer]"; fi
}

for mode in $MODES; do check_mode "${mode%%:*}" "${mode#*:}"; done

if [ "$ME" = 0 ]; then
	# root's supplementary groups never reach the executor (sudo's initgroups: group 0 and more)
	ws=$T_TMP/ws-full
	out=$(cd "$ws" && setpriv --groups 0,4 -- "$SBXSUP" run -m "$M" -- sh -c 'cat /proc/self/status' 2>&1)
	if grep -qE '^Groups:[[:space:]]*$' <<<"$out" || ! grep -qE '^Groups:.*\b(0|4)\b' <<<"$out"; then
		t_pass identity_root_groups_dropped
	else t_fail identity_root_groups_dropped "$(grep ^Groups <<<"$out")"; fi

	# bwrap looks its bind sources up as the executor's host identity: a workspace below a root-only
	# directory is still bound (staged by the child), a read grant there is left out — bwrap stays
	# (/var/tmp: not itself bound; below a bound tree such as /opt bwrap cannot make the mount point)
	RD=$(mktemp -d /var/tmp/sbxtest-XXXXXX); chmod 700 "$RD"; t_on_exit "rm -rf '$RD'"
	mkdir -p "$RD/ws" "$RD/ro"; echo "HIDDEN-$$" > "$RD/ro/f"; chmod 644 "$RD/ro/f"
	printf '{"sbxsup": 1, "name": "ident-rd", "capabilities": [{"cap": "fs:read", "hint": "%s/ro/**"}, {"cap": "code:exec"}]}\n' "$RD" > "$T_TMP/rd.json"
	out=$(cd "$RD/ws" && timeout 60 "$SBXSUP" run -m "$T_TMP/rd.json" -a "$A.rd" -- sh -c "cat '$RD/ro/f'; echo w > made && echo made-ok" 2>&1); rc=$?
	if [ $rc -eq 0 ] && grep -q made-ok <<<"$out" && [ "$(stat -c %u "$RD/ws/made" 2>/dev/null)" = 0 ] && ! grep -q "HIDDEN-$$" <<<"$out" \
	   && audit_has "$A.rd" run.start layers.bwrap=true "level.identity~idmapped mount"; then
		t_pass identity_bwrap_root_only_parents
	else t_fail identity_bwrap_root_only_parents "rc=$rc $out"; fi

	# ... and sbxsup with its preload installed below a root-only directory: bwrap stays (staged)
	HB=$(mktemp -d /var/tmp/sbxtest-XXXXXX); chmod 700 "$HB"; t_on_exit "rm -rf '$HB'"
	cp "$SBXSUP" "$HB/sbxsup"; cp "$(dirname "$SBXSUP")/libsbxpreload.so" "$HB/"
	out=$(cd "$RD/ws" && env -u SBXSUP_PRELOAD_LIB timeout 60 "$HB/sbxsup" run -a "$A.hb" -- sh -c 'id -u' 2>&1); rc=$?
	if [ $rc -eq 0 ] && grep -qE '^[1-9]' <<<"$out" && audit_has "$A.hb" run.start layers.bwrap=true layers.preload=true; then
		t_pass identity_bwrap_sbxsup_below_root_only_dir
	else t_fail identity_bwrap_sbxsup_below_root_only_dir "rc=$rc $out"; fi

	# a write grant that cannot be idmapped (ramfs has no idmap support): one warning naming it,
	# run.start says so, and it stays writable only where its modes allow the host identity
	RW=$T_TMP/ramws; mkdir -p "$RW"
	if mount -t ramfs ramfs "$RW"; then
		t_on_exit "umount '$RW'"
		chown "$OWNER" "$RW"; chmod 755 "$RW"
		for mode in $MODES; do
			n=${mode%%:*}
			out=$(cd "$RW" && timeout 60 "$SBXSUP" run --layers "${mode#*:}" -a "$A.ram.$n" -- sh -c 'echo x > "$PWD/f" || echo denied' 2>&1)
			if [ ! -e "$RW/f" ] && grep -q '^denied' <<<"$out" && [ "$(grep -c "warning: \"$RW\": idmapped mount refused" <<<"$out")" = 1 ] \
			   && audit_has "$A.ram.$n" run.start "level.identity~idmapped mount refused" "level.identity~idmapped: 0 of 1"; then
				t_pass "identity_${n}_no_idmap_fallback"
			else t_fail "identity_${n}_no_idmap_fallback" "$(ls -ln "$RW") $out $(level "$A.ram.$n" identity)"; fi
			rm -f "$RW/f"
		done
	else t_fail identity_no_idmap_fallback "cannot mount a ramfs"; fi

	# SBXSUP_USER names the host identity: the listener sees that user
	listen "$ws/peer.sock2" "$T_TMP/peer.user"
	out=$(cd "$ws" && SBXSUP_USER=$U timeout 60 "$SBXSUP" run -m "$M" -a "$A.user" -- python3 -c \
		'import socket, sys; s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); print("reply=" + s.recv(8).decode())' "$ws/peer.sock2" 2>&1)
	kill "$LPID" 2>/dev/null; wait "$LPID" 2>/dev/null
	if grep -q '^reply=ok' <<<"$out" && grep -q "^peer_uid=$OWNER " "$T_TMP/peer.user" \
	   && audit_has "$A.user" run.start "level.identity~host uid $OWNER"; then
		t_pass identity_sbxsup_user
	else t_fail identity_sbxsup_user "$(cat "$T_TMP/peer.user" 2>/dev/null) $out"; fi

	# (e) bad input: one line, 125, reason identity_unavailable; nothing ran
	for bad in nosuchuser-$$ 0 root; do
		rm -f "$T_TMP/ran" "$T_TMP/res.json"
		err=$(cd "$ws" && SBXSUP_USER=$bad "$SBXSUP" run --result "$T_TMP/res.json" -- touch "$T_TMP/ran" 2>&1 >/dev/null); rc=$?
		if [ $rc -eq 125 ] && [ "$(wc -l <<<"$err")" = 1 ] && grep -q "SBXSUP_USER=$bad" <<<"$err" && [ ! -e "$T_TMP/ran" ] \
		   && grep -q '"code":"identity_unavailable"' "$T_TMP/res.json"; then
			t_pass "identity_bad_user_refused_$bad"
		else t_fail "identity_bad_user_refused_$bad" "rc=$rc err=$err result=$(cat "$T_TMP/res.json" 2>/dev/null)"; fi
	done
	# root without CAP_SETUID/CAP_SETGID (a container's dropped set): refused, never run as root
	rm -f "$T_TMP/ran" "$T_TMP/res.json"
	err=$(cd "$ws" && setpriv --bounding-set=-setuid,-setgid -- "$SBXSUP" run --result "$T_TMP/res.json" -- touch "$T_TMP/ran" 2>&1 >/dev/null); rc=$?
	if [ $rc -eq 125 ] && [ "$(grep -c refused <<<"$err")" = 1 ] && grep -q "CAP_SETUID" <<<"$err" && [ ! -e "$T_TMP/ran" ] \
	   && grep -q '"code":"identity_unavailable"' "$T_TMP/res.json"; then
		t_pass identity_no_cap_setuid_refused
	else t_fail identity_no_cap_setuid_refused "rc=$rc err=$err"; fi
	# a root that cannot lend the identity after all (a user namespace mapping only root onto root:
	# nobody is unmapped there): the executor would be host uid 0 -> refused, never run, in every mode
	for mode in $MODES; do
		n=${mode%%:*}; rm -f "$T_TMP/ran" "$T_TMP/res.json"
		err=$(cd "$ws" && timeout 60 unshare --user --map-root-user "$SBXSUP" run --layers "${mode#*:}" \
			--result "$T_TMP/res.json" -- touch "$T_TMP/ran" 2>&1); rc=$?
		# (refused before the start, or the switch to that identity fails in the set-up: never run)
		if [ $rc -eq 125 ] && [ ! -e "$T_TMP/ran" ] && grep -qE "host uid 0|host identity|unprivileged identity" <<<"$err" \
		   && grep -qE '"code":"(identity_unavailable|setup_failed)"' "$T_TMP/res.json"; then
			t_pass "identity_${n}_root_executor_refused"
		else t_fail "identity_${n}_root_executor_refused" "rc=$rc ran=$([ -e "$T_TMP/ran" ] && echo yes) err=$err"; fi
	done
	# --require identity: refuses SBXSUP_SANDBOX=0 as root (the executor would be uid 0), runs otherwise
	rm -f "$T_TMP/ran"
	err=$(cd "$ws" && SBXSUP_SANDBOX=0 "$SBXSUP" run --require identity -a "$A.req0" --result "$T_TMP/res.json" -- touch "$T_TMP/ran" 2>&1); rc=$?
	if [ $rc -eq 125 ] && [ ! -e "$T_TMP/ran" ] && grep -q "identity" <<<"$err" && grep -q '"code":"identity_unavailable"' "$T_TMP/res.json" \
	   && audit_has "$A.req0" run.end exit=125; then
		t_pass identity_require_refuses_root
	else t_fail identity_require_refuses_root "rc=$rc err=$err"; fi
	out=$(cd "$ws" && "$SBXSUP" run --require identity -- id -u 2>&1); rc=$?
	if [ $rc -eq 0 ] && [ "$out" != 0 ] && grep -qE '^[1-9][0-9]*$' <<<"$out"; then t_pass identity_require_runs
	else t_fail identity_require_runs "rc=$rc $out"; fi
	out=$(cd "$ws" && "$SBXSUP" run --layers auto,identity -- true 2>&1); rc=$?
	if [ $rc -ne 0 ] && grep -q "not a layer" <<<"$out"; then t_pass identity_not_a_layer
	else t_fail identity_not_a_layer "rc=$rc $out"; fi

	# (f) a normal user: this script again, as that user (its own identity, unchanged)
	if [ -z "${SBX_IDT_INNER:-}" ]; then
		chmod 755 "$T_TMP"
		out=$(runuser -u "$U" -- env SBX_IDT_INNER=1 SBX_IDT_KD="$KD" SBXSUP="$SBXSUP" SBX_ROOT="$SBX_ROOT" \
			SBX_PROGS="$SBX_PROGS" HOME="/home/$U" PATH="$PATH" bash "$0" 2>&1)
		while IFS= read -r l; do
			case $l in PASS:*|FAIL:*|SKIP:*) echo "${l%%: *}: unpriv_${l#*: }";; esac
		done <<<"$out"
	fi
fi
