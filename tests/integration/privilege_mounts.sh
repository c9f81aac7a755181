#!/usr/bin/env bash
# privilege_mounts.sh — contract version 3: write grants are mounted nosuid,nodev inside the sandbox
# (whatever a setuid bit or a device node the host left in a write grant, nothing inside can use
# it), read from /proc/self/mountinfo inside a run, for the workspace and an fs:write hint, in full,
# no-bwrap and preload-only mode; as root and as an unprivileged user (sbxu_privmnt, removed after).
# A write grant that is not a mount of its own yet, or lacks the options while it is not an
# idmapped mount (the identity layer makes those mounts), SKIPs with the reason.
. "$(dirname "$0")/../lib.sh"

WS=$T_TMP/ws; WD=$T_TMP/wdir; mkdir -p "$WS" "$WD"
M=$T_TMP/m.json
cat > "$M" <<EOF2
{"sbxsup": 1, "name": "privmnt", "capabilities": [{"cap": "fs:write", "hint": "$WD"}]}
EOF2
MODES=("full:" "nobwrap:--layers preload,seccomp,landlock,limits" "preloadonly:--layers preload,limits")
if [ "$(id -u)" = 0 ]; then
	MODES=("full:" "nobwrap:--layers preload,seccomp,landlock,limits,probes" "preloadonly:--layers preload,probes,limits")
fi

# The mountinfo line whose mount point is $2, from the file $1 (the last one: the top mount).
mline() { awk -v p="$2" '$5 == p { l = $0 } END { print l }' "$1"; }

for m in "${MODES[@]}"; do
	n=${m%%:*}; args=${m#*:}
	mi=$T_TMP/mi.$n
	# shellcheck disable=SC2086
	(cd "$WS" && "$SBXSUP" run -m "$M" -w "$WS" -a "$T_TMP/a.$n" $args -- cat /proc/self/mountinfo > "$mi" 2>"$mi.err")
	rc=$?
	if [ $rc -ne 0 ]; then t_fail "privilege_mounts_$n" "rc=$rc $(tail -2 "$mi.err")"; continue; fi
	for d in "$WS" "$WD"; do
		what=$([ "$d" = "$WS" ] && echo workspace || echo write_hint)
		l=$(mline "$mi" "$d")
		opts=$(awk '{print $6}' <<<"$l")
		if [ -z "$l" ]; then
			t_fail "privilege_mounts_${n}_$what" "$d is not a mount of its own inside the run"
		elif [[ ",$opts," == *,nosuid,* && ",$opts," == *,nodev,* ]]; then
			t_pass "privilege_mounts_${n}_$what"
		else
			t_fail "privilege_mounts_${n}_$what" "$d mounted without nosuid,nodev: $l"
		fi
	done
done

# As an unprivileged user: this script again, as that user.
if [ "$(id -u)" = 0 ] && [ -z "${SBX_PRIVMNT_INNER:-}" ]; then
	U=sbxu_privmnt
	if command -v useradd >/dev/null && useradd -m "$U" 2>/dev/null; then
		t_on_exit "userdel -r $U 2>/dev/null"
		out=$(runuser -u "$U" -- env SBX_PRIVMNT_INNER=1 SBXSUP="$SBXSUP" SBX_ROOT="$SBX_ROOT" \
			HOME="/home/$U" PATH="$PATH" bash "$0" 2>&1)
		while IFS= read -r l; do
			case $l in PASS:*|FAIL:*|SKIP:*) echo "${l%%: *}: unpriv_${l#*: }";; esac
		done <<<"$out"
	else t_skip privilege_mounts_unprivileged "cannot create user $U"; fi
fi
