/* maps.bpf.h — the probes' maps and the scope test (which run, if any, the current task is in).
 *
 * Promise: one definition of every map shared by the programs and by user space
 * (supervisor/probes/probes_bpf.c opens them by name); in_scope() is the first check of
 * every hook: for a task outside every run it costs one hash lookup (its tgid in pr_tracked).
 */
#ifndef SBX_PROBES_MAPS_BPF_H
#define SBX_PROBES_MAPS_BPF_H

struct ringbuf_inner {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, PR_RB_SIZE);
};

/* slot -> the run's ring buffer (filled by user space per run) */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, PR_SLOTS);
	__type(key, __u32);
	__array(values, struct ringbuf_inner);
} pr_rings SEC(".maps");

/* slot -> events the ring buffer could not take (per cpu; user space sums) */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, PR_SLOTS);
	__type(key, __u32);
	__type(value, __u64);
} pr_lost SEC(".maps");

/* slot -> lost records whose call did not fail, or whose result is unknown (per cpu) */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, PR_SLOTS);
	__type(key, __u32);
	__type(value, __u64);
} pr_lost_ok SEC(".maps");

/* (slot, decision key) -> count and a sample of the records the ring could not take */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, PR_OVF_MAX);
	__type(key, struct pr_ovf_key);
	__type(value, struct pr_ovf);
} pr_overflow SEC(".maps");

/* slot -> processes of the run alive, command started */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, PR_SLOTS);
	__type(key, __u32);
	__type(value, struct pr_live);
} pr_live SEC(".maps");

/* slot -> children the tracked map could not take (blind spots; per cpu) */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, PR_SLOTS);
	__type(key, __u32);
	__type(value, __u64);
} pr_untracked SEC(".maps");

/* armed pid (global tgid of the stage) -> slot; consumed by its next exec */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, PR_SLOTS * 2);
	__type(key, __u32);
	__type(value, __u32);
} pr_armed SEC(".maps");

/* tgid -> slot: the run's processes */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 32768);
	__type(key, __u32);
	__type(value, __u32);
} pr_tracked SEC(".maps");

/* (pid namespace, number in it) -> slot: every task of the runs, numbered in its own (innermost)
 * pid namespace at fork / at the armed exec. A signal's target pid is a number in the caller's
 * namespace: this is how "inside the run" is decided without find_vpid (not callable here). */
/* An entry lives until the task is freed (reaped), not only until it exits: a signal to the run's
 * own zombie child is a signal inside the run. `start` (the task's start_time) keeps a freed task
 * from removing the entry of a newer task that got the same number. */
struct nskey { __u64 ns; __u32 nr; __u32 pad; };
struct nsval { __u32 slot; __u32 pad; __u64 start; };
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 32768);
	__type(key, struct nskey);
	__type(value, struct nsval);
} pr_nspids SEC(".maps");

/* task (address) -> its pr_nspids key, from its exit until it is freed (its struct pid is gone by
 * then, so the key cannot be computed at sched_process_free) */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 32768);
	__type(key, __u64);
	__type(value, struct nskey);
} pr_dying SEC(".maps");

/* cgroup v2 id -> slot: runs with a cgroup (the cheap first check) */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, PR_SLOTS * 2);
	__type(key, __u64);
	__type(value, __u32);
} pr_cgroups SEC(".maps");

/* slot -> owner (supervisor pid); claimed with BPF_NOEXIST by user space (pinned mode) */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, PR_SLOTS);
	__type(key, __u32);
	__type(value, __u32);
} pr_owners SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct pr_config);
	__uint(map_flags, BPF_F_MMAPABLE);
} pr_config SEC(".maps");

/* tid -> arguments kept from sys_enter to sys_exit */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, struct pr_stash);
} pr_stash SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct pr_stash);
} pr_scratch SEC(".maps");

/* task -> the same stash in the task's own storage (tp_btf tier): filled in place at enter (no
 * hashing, no 600-byte copy into a hash element), marked empty at exit (no delete), freed with the
 * task. `live` says whether it holds a call. */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct pr_stash);
} pr_tstash SEC(".maps");

/* Set by the loader before the load (probes_bpf.c): 1 for the tp_btf tier, whose programs keep the
 * stash in pr_tstash; 0 for the raw_tp tier (pr_stash hash; task storage may not be callable from
 * raw tracepoints on the kernels that need that tier). A read-only constant: the verifier drops the
 * other branch, so each tier is verified with its own stash only. */
const volatile __u32 pr_tstash_on = 0;

/* The current task's stash of the call in progress, NULL when none. */
static __always_inline struct pr_stash *stash_cur(void)
{
	if (pr_tstash_on) {
		struct pr_stash *s = bpf_task_storage_get(&pr_tstash, bpf_get_current_task_btf(), 0, 0);
		return s && s->live ? s : NULL;
	}
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	return bpf_map_lookup_elem(&pr_stash, &tid);
}

/* The call is over: its stash is dropped. */
static __always_inline void stash_done(struct pr_stash *s)
{
	if (pr_tstash_on) {
		s->live = 0;
		return;
	}
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	bpf_map_delete_elem(&pr_stash, &tid);
}

/* In-kernel decisions (bpf/probes.h "In-kernel decisions"; filled per run by user space). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, PR_KD_MAX);
	__type(key, struct pr_safe_key);
	__type(value, struct pr_safe);
	__uint(map_flags, BPF_F_NO_PREALLOC);
} pr_safe SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, PR_KD_MAX);
	__type(key, struct pr_leaf_key);
	__type(value, __u32);
	__uint(map_flags, BPF_F_NO_PREALLOC);
} pr_leaves SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, PR_SLOTS);
	__type(key, __u32);
	__type(value, struct pr_kdec);
} pr_kdec SEC(".maps");

/* slot -> opens allowed in the kernel (no record sent; per cpu) */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, PR_SLOTS);
	__type(key, __u32);
	__type(value, __u64);
} pr_kallow SEC(".maps");

static __always_inline void count(void *map, __u32 slot)
{
	__u64 *v = bpf_map_lookup_elem(map, &slot);
	if (v)
		*v += 1;
}

/* A record is lost for good: counted by outcome class (did_not_fail: a breach may hide in it). */
static __always_inline void count_lost(__u32 slot, bool did_not_fail)
{
	count(&pr_lost, slot & (PR_SLOTS - 1));
	if (did_not_fail)
		count(&pr_lost_ok, slot & (PR_SLOTS - 1));
}

static __always_inline void live_add(__u32 slot, long long d, bool start)
{
	slot &= PR_SLOTS - 1;
	struct pr_live *l = bpf_map_lookup_elem(&pr_live, &slot);
	if (!l)
		return;
	__sync_fetch_and_add(&l->live, d);
	if (start)
		l->started = 1;
}

/* The first check and the run slot of the current task, or -1: one hash lookup of the tgid. The
 * run's processes are its pid tree (armed exec, then fork), not its cgroup: a process that moves
 * itself to another cgroup stays observed. (pr_cgroups and config.pidmode_runs are kept for the
 * layout; scope no longer reads them.) */
static __always_inline int in_scope(void)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;
	__u32 *slot = bpf_map_lookup_elem(&pr_tracked, &tgid);
	if (!slot)
		return -1;
	return (int)(*slot & (PR_SLOTS - 1));
}

#endif
