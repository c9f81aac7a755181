#!/usr/bin/env bash
# preload_report_fallback.sh — the preload's denials reach the audit stream even when the executor
# took its report channel away: every fd closed with the raw close syscall (the library sends to the
# run's bound SBXSUP_REPORT_ADDR socket instead), or, in bwrap mode, a raw execve with a stripped
# environment (the library, loaded by /etc/ld.so.preload, finds /run/sbxsup/report). The preload's
# own connect to that socket is granted (no kernel.violation), and the socket's private directory
# is gone after the run.
source "$(dirname "$0")/../lib.sh"
S=$SBXSUP
P=$SBX_PROGS
need_root preload_report_fallback || exit 0
H=$T_TMP/home; WS=$T_TMP/ws; BIN=$T_TMP/bin
mkdir -p "$H/.ssh" "$WS" "$BIN"; echo FAKE-KEY > "$H/.ssh/id_rsa"
export HOME=$H
cd "$WS" || exit 1

# a raw execve of /bin/cat FILE with an environment without LD_PRELOAD / SBXSUP_* (a syscall
# instruction: not even libc's syscall(), which the preload interposes)
cat > "$T_TMP/rawexec.c" <<'EOF'
#include <sys/syscall.h>
#include <unistd.h>
static long raw3(long n, long a, long b, long c)
{
	long r;
#if defined(__x86_64__)
	__asm__ volatile("syscall" : "=a"(r) : "a"(n), "D"(a), "S"(b), "d"(c) : "rcx", "r11", "memory");
#elif defined(__aarch64__)
	register long x8 __asm__("x8") = n;
	register long x0 __asm__("x0") = a;
	register long x1 __asm__("x1") = b;
	register long x2 __asm__("x2") = c;
	__asm__ volatile("svc 0" : "+r"(x0) : "r"(x8), "r"(x1), "r"(x2) : "memory");
	r = x0;
#else
#error "unsupported architecture"
#endif
	return r;
}
int main(int argc, char **argv)
{
	if (argc != 2)
		return 2;
	char *a[] = {"cat", argv[1], 0};
	char *e[] = {"PATH=/usr/bin:/bin", 0};
	raw3(SYS_execve, (long)"/bin/cat", (long)a, (long)e);
	return 3;
}
EOF
if ! ${CC:-cc} -O1 -o "$BIN/rawexec" "$T_TMP/rawexec.c" 2>"$T_TMP/cc.err"; then
	t_fail preload_report_fallback_build "cannot compile the helper: $(cat "$T_TMP/cc.err")"
	exit 0
fi
cp "$P/pl_rawclose" "$BIN/pl_rawclose"
cat > "$T_TMP/m.json" <<EOF
{"sbxsup": 1, "name": "report-fallback", "code_path": "$BIN", "capabilities": ["code:exec"],
 "limits": {"wall_s": 30}}
EOF

declare -A LAYERS=([full]="" [no-bwrap]="--layers preload,seccomp,landlock,netfilter,probes"
		   [preload-only]="--layers preload,probes" [preload]="--layers preload")
run() { local n=$1 mode=$2; shift 2; # shellcheck disable=SC2086
	"$S" run -m "$T_TMP/m.json" -w "$WS" -a "$T_TMP/$n.audit" ${LAYERS[$mode]} -- "$@"; }
# no kernel.violation about the report socket (the preload's own connect is granted)
quiet_socket() { ! audit_has "$1" kernel.violation path~/report; }

# 1. raw close of every descriptor, then a libc open of the secret: refused AND reported
for mode in full no-bwrap preload-only preload; do
	n=rawclose-$mode
	out=$(run "$n" "$mode" "$BIN/pl_rawclose" "$H/.ssh/id_rsa" 2>&1); rc=$?
	if [ $rc -eq 1 ] && grep -q 'open refused' <<<"$out" && ! grep -q FAKE-KEY <<<"$out" &&
	   audit_has "$T_TMP/$n.audit" preload.deny op=open path="$H/.ssh/id_rsa" comm=pl_rawclose src=preload &&
	   quiet_socket "$T_TMP/$n.audit"; then
		t_pass "preload_report_fallback_rawclose_$mode"
	else
		t_fail "preload_report_fallback_rawclose_$mode" "rc=$rc: $out $(grep -o '"event":"[^"]*"' "$T_TMP/$n.audit" | tr '\n' ' ')"
	fi
done

# 2. bwrap mode: raw execve with a stripped environment; the library (from /etc/ld.so.preload)
#    maps the policy at /run/sbxsup/policy (not failing closed) and reports to /run/sbxsup/report
n=stripped
out=$(run "$n" full "$BIN/rawexec" "$H/.ssh/id_rsa" 2>&1); rc=$?
if ! audit_has "$T_TMP/$n.audit" run.start layers.bwrap=true layers.preload=true; then
	t_fail preload_report_fallback_stripped_env "bwrap or preload not active: rc=$rc $out"
elif [ $rc -ne 0 ] && ! grep -q FAKE-KEY <<<"$out" && ! grep -q 'failing closed' <<<"$out" &&
     audit_has "$T_TMP/$n.audit" preload.deny op=open path="$H/.ssh/id_rsa" comm=cat src=preload &&
     quiet_socket "$T_TMP/$n.audit"; then
	t_pass preload_report_fallback_stripped_env
else
	t_fail preload_report_fallback_stripped_env "rc=$rc: $out $(grep -o '"event":"[^"]*"' "$T_TMP/$n.audit" | tr '\n' ' ')"
fi

# 3. the executor is told the address (fixed path in bwrap, the host path otherwise); a plain run
#    with the probes stays quiet; the socket's directory is removed after the run
for mode in full no-bwrap; do
	n=addr-$mode
	# a mount tree of the run's own (bwrap, or no-bwrap as root): the fixed /run/sbxsup/report,
	# nothing in the environment
	out=$(run "$n" "$mode" /bin/sh -c 'echo "ADDR=$SBXSUP_REPORT_ADDR"; [ -S /run/sbxsup/report ] && echo FIXED' 2>&1); rc=$?
	addr=$(sed -n 's/^ADDR=//p' <<<"$out")
	if [ $rc -eq 0 ] && [ -z "$addr" ] && grep -q '^FIXED$' <<<"$out" &&
	   ! audit_has "$T_TMP/$n.audit" kernel.violation && ! audit_has "$T_TMP/$n.audit" preload.deny &&
	   true; then
		t_pass "preload_report_fallback_addr_$mode"
	else
		t_fail "preload_report_fallback_addr_$mode" "rc=$rc addr=$addr: $out $(grep -o '"event":"[^"]*"\|"path":"[^"]*"' "$T_TMP/$n.audit" | tr '\n' ' ')"
	fi
done
