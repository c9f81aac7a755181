#!/usr/bin/env bash
# run_limits.sh — limits: memory (cgroup OOM kill -> limit.hit memory_mb), file size (SIGXFSZ ->
# limit.hit fsize_mb), pids (fork refused -> limit.hit pids, no survivor), cpu (SIGXCPU).
. "$(dirname "$0")/../lib.sh"

WS=$T_TMP/ws; mkdir -p "$WS"
A=$T_TMP/audit
mk() { cat > "$T_TMP/$1.json" <<JSON
{"sbxsup":1,"name":"limits-$1","capabilities":["code:exec"],"limits":$2}
JSON
}
mk mem '{"memory_mb":64}'
mk fsize '{"fsize_mb":1}'
mk pids '{"pids":16}'
mk cpu '{"cpu_s":1}'

# memory: 256 MiB touched under a 64 MiB limit
(cd "$WS" && "$SBXSUP" run -m "$T_TMP/mem.json" -a "$A.m" -- python3 -c 'b = bytearray(256 << 20); print(len(b))' >/dev/null 2>&1); rc=$?
if [ $rc -ne 0 ] && audit_has "$A.m" limit.hit limit=memory_mb value=64; then t_pass run_limit_memory
elif [ $rc -ne 0 ] && audit_has "$A.m" run.start "level.limits~data=64M"; then
	t_pass run_limit_memory  # no memory cgroup on this host: RLIMIT_DATA refused the allocation
else t_fail run_limit_memory "rc=$rc"; fi

# fsize: 4 MiB into a 1 MiB limit
(cd "$WS" && "$SBXSUP" run -m "$T_TMP/fsize.json" -a "$A.f" -- dd if=/dev/zero of=big bs=1M count=4 2>/dev/null); rc=$?
if [ $rc -eq $((128 + 25)) ] && audit_has "$A.f" limit.hit limit=fsize_mb value=1 && audit_has "$A.f" run.end signal=25; then
	t_pass run_limit_fsize
else t_fail run_limit_fsize "rc=$rc"; fi

# pids: a fork loop under pids=16 is refused; nothing survives.
tag=$RANDOM$$
(cd "$WS" && "$SBXSUP" run -m "$T_TMP/pids.json" -a "$A.p" -- sh -c "for i in \$(seq 1 40); do sleep 9999.$tag & done 2>/dev/null; exit 0" >/dev/null 2>&1); rc=$?
left=$(pgrep -f "sleep 9999\.$tag" | wc -l); pkill -KILL -f "sleep 9999\.$tag" 2>/dev/null
if [ "$(id -u)" != 0 ] && ! audit_has "$A.p" limit.hit limit=pids value=16; then
	# a normal user without a delegated cgroup: RLIMIT_NPROC refuses the forks (per uid, so
	# sbxsup cannot attribute it and writes no limit.hit); nothing may survive all the same
	if [ "$left" -eq 0 ] && [ $rc -ne 0 ]; then t_pass run_limit_pids_rlimit
	else t_fail run_limit_pids_rlimit "rc=$rc left=$left"; fi
	t_skip run_limit_pids "the limit.hit event needs a writable pids cgroup (root or a delegated cgroup)"
elif [ "$left" -eq 0 ] && audit_has "$A.p" limit.hit limit=pids value=16; then t_pass run_limit_pids
else t_fail run_limit_pids "rc=$rc left=$left"; fi

# cpu: a busy loop under cpu_s=1 gets SIGXCPU (or SIGKILL at the hard limit)
(cd "$WS" && "$SBXSUP" run -m "$T_TMP/cpu.json" -a "$A.c" -- sh -c 'while :; do :; done'); rc=$?
if { [ $rc -eq $((128 + 24)) ] || [ $rc -eq 137 ]; } && audit_has "$A.c" limit.hit limit=cpu_s value=1; then t_pass run_limit_cpu
else t_fail run_limit_cpu "rc=$rc"; fi
