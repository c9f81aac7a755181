#!/usr/bin/env bash
# kernel_reporter.sh — issue 15's "done when": without the BPF probes (a normal user, or probes not
# selected) a static binary's attempt to read ~/.ssh is refused and reported as kernel.violation
# with sensor "seccomp-notify" (the seccomp user-notification reporter decides the open with the
# policy). Control: a workspace file opens and nothing is reported. As uid 65534 (root: probes
# deselected), in full mode, without bwrap, and seccomp alone. The preload on does not turn the
# reporter off: the same static reader started by a preloaded shell, and a dynamic (preloaded)
# program opening by a raw system call instruction, are reported too (full and no-bwrap).
. "$(dirname "$0")/../lib.sh"

ATT=$SBX_PROGS/k_attack_static RAWD=$SBX_PROGS/k_rawopen_dyn
[ -x "$ATT" ] && [ -x "$RAWD" ] || { t_fail kernel_reporter_setup "missing $ATT or $RAWD (make progs)"; exit 0; }
WS=$T_TMP/ws; H=$T_TMP/home; AD=$T_TMP/aud
mkdir -p "$WS" "$H/.ssh" "$AD"
echo "SECRET-KEY" >"$H/.ssh/id_test"; echo data >"$WS/ok.txt"
cp "$ATT" "$WS/k"; cp "$RAWD" "$WS/rawd"
chmod -R a+rwX "$WS" "$H" "$AD"

run_as() { # run_as WHO LAYERS TAG [sh|rawd]: sh — the static reader started by a preloaded shell;
	   # rawd — a preloaded program's raw openat of the key alone (no control open)
	local who=$1 L=$2 tag=$3 how=${4:-} pre=() cmd=(./k open "$H/.ssh/id_test" open ./ok.txt)
	[ "$who" = nobody ] && pre=(setpriv --reuid=65534 --regid=65534 --clear-groups)
	[ "$how" = sh ] && cmd=(sh -c "./k open '$H/.ssh/id_test' open ./ok.txt")
	[ "$how" = rawd ] && cmd=(./rawd "$H/.ssh/id_test")
	A=$AD/$tag.jsonl; O=$T_TMP/$tag
	(cd "$WS" && "${pre[@]+"${pre[@]}"}" env HOME="$H" "$SBXSUP" run -w "$WS" -a "$A" --layers "$L" \
		-- "${cmd[@]}") >"$O" 2>"$O.err" </dev/null
	# bwrap, and the no-bwrap world where the kernel allows a mount namespace, do not show the home:
	# the kernel's answer for it is then ENOENT, and so is ours (EACCES where it exists)
	local e n ctl=ok comm=k
	e=$(sed -n 1p "$O" | sed -n 's/^\(raw\)\{0,1\}open: blocked \(EACCES\|ENOENT\)$/\2/p')
	n=13; [ "$e" = ENOENT ] && n=2
	[ "$how" = rawd ] && comm=rawd || [ "$(sed -n 2p "$O")" = "open: SUCCEEDED" ] || ctl=bad
	if [ -n "$e" ] && [ $ctl = ok ] \
	   && ! grep -q SECRET "$O" \
	   && audit_has "$A" kernel.violation sensor=seccomp-notify syscall=openat "path=$H/.ssh/id_test" \
		access=read outcome=contained "errno=$n" "rule~.ssh" pid? "comm=$comm" exe? \
	   && ! audit_has "$A" kernel.violation "path~ok.txt"; then
		t_pass "kernel_reporter_static_ssh_read_${tag}"
	else
		t_fail "kernel_reporter_static_ssh_read_${tag}" "out=[$(tr '\n' ';' <"$O")] err=[$(head -c 300 "$O.err")]"
	fi
}
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
	run_as nobody auto nobody_full
	run_as nobody seccomp,landlock,limits nobody_nobwrap
	run_as nobody seccomp,limits nobody_seccomp
	run_as root seccomp,landlock,netfilter,limits root_nobwrap_noprobes
	run_as root seccomp,limits root_seccomp
	run_as nobody preload,bwrap,seccomp,landlock,limits nobody_full_sh sh
	run_as nobody preload,seccomp,landlock,limits nobody_nobwrap_sh sh
	run_as nobody preload,bwrap,seccomp,landlock,limits nobody_full_rawd rawd
	run_as nobody preload,seccomp,landlock,limits nobody_nobwrap_rawd rawd
elif [ "$(id -u)" != 0 ]; then
	run_as user auto user_full
	run_as user seccomp,landlock,limits user_nobwrap
	run_as user auto user_full_sh sh
	run_as user preload,seccomp,landlock,limits user_nobwrap_sh sh
	run_as user auto user_full_rawd rawd
	run_as user preload,seccomp,landlock,limits user_nobwrap_rawd rawd
fi

# No false refusal: a dynamic program under the reporter (preload not selected) lists directories
# (O_DIRECTORY is not a write: glibc's __O_TMPFILE includes it), writes its temp files and starts a
# child — nothing refused, nothing reported.
A=$AD/fp.jsonl; O=$T_TMP/fp
(cd "$WS" && "$SBXSUP" run -w "$WS" -a "$A" --layers seccomp,landlock,limits -- python3 -c '
import os, subprocess, tempfile
os.listdir("/usr"); os.listdir(".")
p = tempfile.mktemp(dir="."); open(p, "w").write("x"); os.unlink(p)
print(subprocess.run(["ls", "/usr"], capture_output=True).returncode, "ok")') >"$O" 2>"$O.err" </dev/null
if grep -qx '0 ok' "$O" && audit_has "$A" run.start "level.seccomp~reporter" \
   && [ "$(audit_count "$A" kernel.violation)" = 0 ]; then
	t_pass kernel_reporter_no_false_refusal_dynamic
else
	t_fail kernel_reporter_no_false_refusal_dynamic "out=[$(tr '\n' ';' <"$O")] err=[$(head -c 300 "$O.err")]"
fi
