#!/usr/bin/env bash
# deny_execfd.sh — an exec raced onto a denied file that a binfmt_misc `O` handler runs (issue 28).
# A handler registered with the `O` flag (open-binary: qemu-user's registrations) makes the kernel
# open the binary and hand it to the interpreter as a descriptor (AT_EXECFD): /proc/PID/exe at the
# exec stop is then the interpreter, and the denied file is read through the descriptor with no
# open of it. With "deny": ["**/.env"], the host writes app/.env (a private magic, then a canary,
# mode 755) 1 s after the start; a static two-thread executor (tests/progs/execfd_static.c) flips
# the name it execs between itself (allowed) and app/.env, by raw system call, for 8 s. The
# handler's interpreter is the same program: it prints what it reads from AT_EXECFD.
# binfmt_misc is per user namespace (Linux 6.7): the test makes an unprivileged user namespace,
# mounts its own binfmt_misc instance there and registers the handler (nothing of the host's
# changes). sbxsup as uid 0 of that namespace refuses to start (the only id mapped is 0: it cannot
# become an unprivileged identity), so it runs as a normal user of a user namespace below it
# (`unshare --map-user=1000`), where the handler still applies. As root the whole case runs as
# nobody. Host evidence: the canary never comes out; the event: a critical kernel.violation,
# outcome contained, sensor ptrace-exec-stop, naming app/.env with the rule deny[0] and
# `requested` "fd N held by the new image (AT_EXECFD: ...)". Modes: full, no-bwrap, seccomp alone, the
# report-only sensor's filter (bwrap, landlock, preload alone) and the privilege guard's (landlock
# alone with --sensor off). A host where the handler cannot be registered (no unprivileged user
# namespace, a kernel before 6.7) skips, never passes.
. "$(dirname "$0")/../lib.sh"

T=deny_execfd
EF=$SBX_PROGS/execfd_static
[ -x "$EF" ] || { t_skip $T "missing $EF (make all)"; exit 0; }
need_cmd $T unshare || exit 0
AS=()
if [ "$(id -u)" = 0 ]; then
	need_cmd $T setpriv || exit 0
	AS=(setpriv --reuid=65534 --regid=65534 --clear-groups)
fi
OUT=$(mktemp -d /var/tmp/sbxexecfd.XXXXXX); chmod 777 "$OUT"; t_on_exit "rm -rf '$OUT'"
cp "$EF" "$OUT/ef"; chmod 755 "$OUT/ef"
WS=$OUT/ws; mkdir -p "$WS/app" "$OUT/home"; chmod 777 "$WS" "$WS/app" "$OUT/home"
MAGIC=SBXEXFD1
M=$OUT/m.json
cat > "$M" <<JSON
{"sbxsup": 1, "name": "deny-execfd", "capabilities": [{"cap": "code:exec"}, {"cap": "fs:read", "hint": "$OUT/ef"}],
 "deny": ["**/.env"]}
JSON
chmod 644 "$M"
# ns.sh LAYERS AUDIT [ARGS...]: in the namespace (uid 0 of it), binfmt_misc mounted and the handler
# registered; then ARGS as a command (LAYERS probe: the probe file exec'd as it is), or sbxsup run
# with ARGS added, as uid 1000 below it
cat > "$OUT/ns.sh" <<SH
set -u
mount -t binfmt_misc binfmt_misc /proc/sys/fs/binfmt_misc 2>/dev/null || { echo "NOBINFMT: mount binfmt_misc refused"; exit 3; }
echo ":sbxexecfd:M::$MAGIC::$OUT/ef:OF" > /proc/sys/fs/binfmt_misc/register 2>/dev/null || { echo "NOBINFMT: register refused"; exit 3; }
layers=\$1 aud=\$2; shift 2
[ "\$layers" = probe ] && exec "\$@"
la=(); [ -n "\$layers" ] && la=(--layers "\$layers")
cd "$WS" && exec unshare --user --map-user=1000 --map-group=1000 -- env HOME="$OUT/home" \
	timeout 60 "$SBXSUP" run -m "$M" -w "$WS" "\${la[@]+"\${la[@]}"}" "\$@" -a "\$aud" -- \
	"$OUT/ef" race "$OUT/ef" "$WS/app/.env" 8
SH
chmod 644 "$OUT/ns.sh"
ns() { (cd "$OUT" && "${AS[@]+"${AS[@]}"}" env HOME="$OUT/home" unshare -Urm bash "$OUT/ns.sh" "$@"); }

# the handler must work here, outside sbxsup, or the case cannot be made
printf '%s\nPROBE-EXECFD\n' "$MAGIC" > "$OUT/probe"; chmod 755 "$OUT/probe"
probe=$(ns probe - "$OUT/probe" 2>&1)
if ! grep -q '^PROBE-EXECFD' <<<"$probe"; then
	t_skip $T "no binfmt_misc \`O\` handler can be registered here ($(head -1 <<<"$probe"))"
	exit 0
fi

# race NAME LAYERS [RUN ARGS...]
race() {
	local name="$T: $1" layers=$2; shift 2
	local out why="" writer aud=$OUT/audit.$RANDOM canary="CANARY-EXECFD-$$-$RANDOM"
	rm -f "$WS/app/.env"
	( sleep 1; umask 022; printf '%s\nTOKEN=%s\n' "$MAGIC" "$canary" > "$OUT/env.new"; chmod 755 "$OUT/env.new"
	  mv "$OUT/env.new" "$WS/app/.env" ) & writer=$!
	out=$(ns "$layers" "$aud" "$@" 2>"$T_TMP/err")
	wait "$writer"
	local got; got=$(grep -o 'tries=[0-9]* got=[0-9]* killed=[0-9]*' "$T_TMP/err")
	[ -n "$got" ] || why="the attack did not run ($(grep -v warning "$T_TMP/err" | tail -2 | tr '\n' ' '))"
	! grep -q "$canary" <<<"$out" || why="$why; the denied file's bytes came out through AT_EXECFD"
	if [ -z "$why" ] && ! audit_has "$aud" kernel.violation "path=$WS/app/.env" "sensor=ptrace-exec-stop" \
		"outcome=contained" "rule~deny[0]" "requested~held by the new image (AT_EXECFD" "sev=critical" 2>/dev/null; then
		why="no critical kernel.violation (ptrace-exec-stop) names $WS/app/.env as a descriptor of the new image"
		why="$why $(audit_explain "$aud" kernel.violation "sensor=ptrace-exec-stop" | head -2 | tr '\n' ' ')"
	fi
	rm -f "$aud"
	if [ -z "$why" ]; then t_pass "$name ($got)"; else t_fail "$name" "${why#; }"; fi
}

race "full" ""
race "no-bwrap" "preload,seccomp,landlock,limits"
race "seccomp alone" "seccomp,limits"
race "bwrap alone (the sensor's filter)" "bwrap,limits"
race "landlock alone (the sensor's filter)" "landlock,limits"
race "preload alone (the sensor's filter)" "preload,limits"
race "landlock, sensor off (the guard's filter)" "landlock,limits" --sensor off
exit 0
