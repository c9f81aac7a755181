#!/usr/bin/env bash
# run_lifetime.sh — the run is one process tree and none of it outlives the run: wall timeout (124,
# limit.hit), SIGKILL of sbxsup with double-forked setsid'd grandchildren (with and without bwrap),
# SIGTERM forwarding, concurrent runs.
. "$(dirname "$0")/../lib.sh"

WS=$T_TMP/ws; mkdir -p "$WS"
A=$T_TMP/audit
# The spawner: grandchildren in new sessions, double-forked; every process of the tree carries the
# marker 9999.TAG in its argv; "started" is written once all four sleepers exist.
cat > "$WS/sleeper.sh" <<'SH'
#!/bin/sh
touch "alive.$1.$$"
exec sleep "$1"
SH
cat > "$WS/spawn.sh" <<'SH'
#!/bin/sh
M=9999.$1
setsid sh -c "sh ./sleeper.sh $M & sh ./sleeper.sh $M & wait" </dev/null >/dev/null 2>&1 &
( setsid sh ./sleeper.sh $M </dev/null >/dev/null 2>&1 & )
sh ./sleeper.sh $M &
while [ "$(ls alive.$M.* 2>/dev/null | wc -l)" -lt 4 ]; do sleep 0.05; done
echo started > started.$1
wait
SH
chmod 755 "$WS/spawn.sh" "$WS/sleeper.sh"

survivors() { pgrep -f "9999\.$1" 2>/dev/null | wc -l; }
# Wait (bounded) until no process with the marker is left; the kernel kills asynchronously.
gone() { local i; for i in $(seq 1 200); do [ "$(survivors "$1")" -eq 0 ] && return 0; sleep 0.05; done; return 1; }
# only processes carrying this test's own random marker (started by this test)
cleanup_tag() { pkill -KILL -f "9999\.$1" 2>/dev/null || true; }
wait_file() { local i; for i in $(seq 1 400); do [ -e "$1" ] && return 0; sleep 0.05; done; return 1; }

# 1. --timeout 1 -- sleep 60: exit 124, limit.hit wall_s, no survivor.
tag=$RANDOM$$; t_on_exit "cleanup_tag $tag"
(cd "$WS" && "$SBXSUP" run --timeout 1 -a "$A.1" -- sh ./spawn.sh $tag); rc=$?
if [ $rc -eq 124 ] && gone $tag && audit_has "$A.1" limit.hit limit=wall_s value=1 && audit_has "$A.1" run.end exit=124; then
	t_pass run_timeout_124
else t_fail run_timeout_124 "rc=$rc survivors=$(survivors $tag)"; fi

# 2/3. SIGKILL of sbxsup leaves no survivor: bwrap mode and direct mode.
for mode in bwrap direct; do
	tag=$RANDOM$$; t_on_exit "cleanup_tag $tag"
	layers=auto; [ $mode = direct ] && layers=preload,seccomp,landlock,netfilter,probes,limits
	(cd "$WS" && exec "$SBXSUP" run --layers $layers -a "$A.k$mode" -- sh ./spawn.sh $tag) &
	sup=$!
	if ! wait_file "$WS/started.$tag"; then t_fail run_sigkill_no_survivor_$mode "executor never started"; kill -9 $sup; continue; fi
	n_before=$(survivors $tag)
	kill -KILL $sup; wait $sup 2>/dev/null
	if [ "$n_before" -ge 4 ] && gone $tag; then t_pass run_sigkill_no_survivor_$mode
	else t_fail run_sigkill_no_survivor_$mode "before=$n_before after=$(survivors $tag)"; fi
	audit_has "$A.k$mode" run.start layers.bwrap=$([ $mode = bwrap ] && echo true || echo false) \
		|| t_fail run_sigkill_mode_$mode "run.start does not show the mode"
	# the run's cgroups are removed by the janitor although the supervisor was killed
	id=$(python3 -c 'import json,sys
for l in open(sys.argv[1]):
    o = json.loads(l)
    if o.get("event") == "run.start": print(o["run"])' "$A.k$mode" | tail -1)
	cg_left() { find /sys/fs/cgroup -maxdepth 5 -type d -name "sbxsup-$id" 2>/dev/null | grep -q .; }
	for i in $(seq 1 200); do cg_left || break; sleep 0.05; done
	if [ -n "$id" ] && ! cg_left; then t_pass run_sigkill_no_cgroup_left_$mode
	else t_fail run_sigkill_no_cgroup_left_$mode "run $id: $(find /sys/fs/cgroup -maxdepth 5 -type d -name "sbxsup-$id" 2>/dev/null | tr '\n' ' ')"; fi
done

# 4. after a normal exit of the main process, its background descendants are killed too.
tag=$RANDOM$$; t_on_exit "cleanup_tag $tag"
(cd "$WS" && "$SBXSUP" run --layers preload,limits -a "$A.4" -- sh -c "( setsid sleep 9999.$tag </dev/null >/dev/null 2>&1 & ); exit 0"); rc=$?
if [ $rc -eq 0 ] && [ "$(survivors $tag)" -eq 0 ] && audit_has "$A.4" run.end exit=0; then t_pass run_orphans_killed_at_end
else t_fail run_orphans_killed_at_end "rc=$rc survivors=$(survivors $tag)"; fi

# 5. SIGTERM to sbxsup is forwarded to the executor: 128+15.
(cd "$WS" && exec "$SBXSUP" run -a "$A.5" -- sh -c 'trap "exit 42" TERM; echo up > up.txt; while :; do sleep 0.1; done') &
sup=$!
if wait_file "$WS/up.txt"; then
	kill -TERM $sup; wait $sup; rc=$?
	if [ $rc -eq 42 ] && audit_has "$A.5" run.end exit=42; then t_pass run_sigterm_forwarded
	else t_fail run_sigterm_forwarded "rc=$rc"; fi
else t_fail run_sigterm_forwarded "executor never started"; kill -9 $sup; fi
rm -f "$WS/up.txt"

# 6. concurrent runs do not interfere (separate cgroups, one audit file, intact chains per run).
pids=()
for i in 1 2 3 4; do (cd "$WS" && "$SBXSUP" run -a "$A.6" -- sh -c "echo run$i > c$i.txt; exit $i") & pids+=($!); done
ok=1; i=1
for p in "${pids[@]}"; do wait $p; [ $? -eq $i ] || ok=0; i=$((i+1)); done
for i in 1 2 3 4; do [ "$(cat "$WS/c$i.txt" 2>/dev/null)" = run$i ] || ok=0; done
[ "$(audit_count "$A.6" run.end)" -eq 4 ] || ok=0
# the run cgroups (named after the run ids) are gone
for id in $(python3 -c 'import json,sys
for l in open(sys.argv[1]):
    o = json.loads(l)
    if o.get("event") == "run.end": print(o["run"])' "$A.6"); do
	find /sys/fs/cgroup -maxdepth 4 -name "sbxsup-$id" 2>/dev/null | grep -q . && ok=0
done
if [ $ok -eq 1 ]; then t_pass run_concurrent; else t_fail run_concurrent "statuses or files wrong"; fi

# 7. as a normal user without bwrap (no cgroup is writable for it): SIGKILL of sbxsup still leaves
# no survivor (a user + pid namespace of its own).
if need_root run_sigkill_no_survivor_unprivileged && need_cmd run_sigkill_no_survivor_unprivileged setpriv; then
	NR=$T_TMP/nr; mkdir -p "$NR"; chmod 777 "$NR"; cp "$WS/spawn.sh" "$WS/sleeper.sh" "$NR/"; chmod 755 "$NR"/*.sh
	NRA=$T_TMP/nr-audit; mkdir -p "$NRA"; chown 65534:65534 "$NRA" # outside the workspace (sbxsup refuses it there)
	NRH=$T_TMP/nr-home; mkdir -p "$NRH"; chown 65534:65534 "$NRH" # so is HOME (its audit key)
	tag=$RANDOM$$; t_on_exit "cleanup_tag $tag"
	(cd "$NR" && exec setpriv --reuid=65534 --regid=65534 --clear-groups env HOME="$NRH" \
		"$SBXSUP" run --layers preload,limits -a "$NRA/audit.jsonl" -- sh ./spawn.sh $tag) &
	sup=$!
	if ! wait_file "$NR/started.$tag"; then t_fail run_sigkill_no_survivor_unprivileged "executor never started"; kill -9 $sup
	else
		n_before=$(survivors $tag)
		kill -KILL $sup; wait $sup 2>/dev/null
		if [ "$n_before" -ge 4 ] && gone $tag && audit_has "$NRA/audit.jsonl" run.start uid=65534 layers.bwrap=false; then
			t_pass run_sigkill_no_survivor_unprivileged
		else t_fail run_sigkill_no_survivor_unprivileged "before=$n_before after=$(survivors $tag)"; fi
	fi
fi

# 7b. the same with no namespace at all (SBXSUP_USERNS=0 as a normal user: the no-namespace fallback
# a container's default profile forces): the run's init is a subreaper that outlives sbxsup and
# kills what is left, the setsid daemons included.
if need_root run_sigkill_no_survivor_no_namespace && need_cmd run_sigkill_no_survivor_no_namespace setpriv; then
	tag=$RANDOM$$; t_on_exit "cleanup_tag $tag"
	rm -f "$NRA/audit-nons.jsonl"
	(cd "$NR" && exec setpriv --reuid=65534 --regid=65534 --clear-groups env HOME="$NRH" SBXSUP_USERNS=0 \
		"$SBXSUP" run --layers preload,seccomp,landlock,limits -a "$NRA/audit-nons.jsonl" -- sh ./spawn.sh $tag) 2>"$T_TMP/nons.err" &
	sup=$!
	if ! wait_file "$NR/started.$tag"; then t_fail run_sigkill_no_survivor_no_namespace "executor never started: $(tail -2 "$T_TMP/nons.err")"; kill -9 $sup
	else
		n_before=$(survivors $tag)
		kill -KILL $sup; wait $sup 2>/dev/null
		if [ "$n_before" -ge 4 ] && gone $tag && audit_has "$NRA/audit-nons.jsonl" run.start uid=65534 layers.bwrap=false level.ns=none; then
			t_pass run_sigkill_no_survivor_no_namespace
		else t_fail run_sigkill_no_survivor_no_namespace "before=$n_before after=$(survivors $tag) $(audit_explain "$NRA/audit-nons.jsonl" run.start level.ns=none | head -3)"; fi
	fi
fi

# 8. a supervisor killed between the network layer's cgroup v2 probe (mkdir, rmdir) leaves an empty
# "sbxsup-probe-PID" directory; the next run removes it when that PID is gone (and only then).
if need_root run_stale_probe_cgroup_swept; then
	cg2=$(awk '$9 == "cgroup2" { print $5; exit }' /proc/self/mountinfo)
	if [ -z "$cg2" ]; then echo "# run_stale_probe_cgroup_swept: no cgroup v2 mount, not applicable"
	else
		sh -c 'exit 0' & dead=$!; wait $dead          # a PID that no longer exists
		sleep 300 & live=$!; t_on_exit "kill $live 2>/dev/null"
		mkdir -p "$cg2/sbxsup-probe-$dead" "$cg2/sbxsup-probe-$live"
		t_on_exit "rmdir '$cg2/sbxsup-probe-$live' '$cg2/sbxsup-probe-$dead' 2>/dev/null"
		"$SBXSUP" run -a "$A.8" -- /bin/true
		if [ ! -d "$cg2/sbxsup-probe-$dead" ] && [ -d "$cg2/sbxsup-probe-$live" ]; then t_pass run_stale_probe_cgroup_swept
		else t_fail run_stale_probe_cgroup_swept "dead-PID dir present=$([ -d "$cg2/sbxsup-probe-$dead" ] && echo y || echo n), live-PID dir kept=$([ -d "$cg2/sbxsup-probe-$live" ] && echo y || echo n)"; fi
	fi
fi
