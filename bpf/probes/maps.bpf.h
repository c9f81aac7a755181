/* maps.bpf.h — the probes' maps and the scope test (which run, if any, the current task is in).
 *
 * Promise: one definition of every map shared by the programs and by user space
 * (supervisor/layers/probes/probes_bpf.c opens them by name); in_scope() is the first check of
 * every hook: for a task outside every run it costs the config load plus one hash lookup (the
 * cgroup id when no run is in pid mode, else the tgid).
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
struct nskey { __u64 ns; __u32 nr; __u32 pad; };
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 32768);
	__type(key, struct nskey);
	__type(value, __u32);
} pr_nspids SEC(".maps");

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

static __always_inline void count(void *map, __u32 slot)
{
	__u64 *v = bpf_map_lookup_elem(map, &slot);
	if (v)
		*v += 1;
}

/* The first check and the run slot of the current task, or -1. */
static __always_inline int in_scope(void)
{
	__u32 k = 0;
	struct pr_config *cfg = bpf_map_lookup_elem(&pr_config, &k);
	if (!cfg)
		return -1;
	if (cfg->pidmode_runs == 0) {
		__u64 cg = bpf_get_current_cgroup_id();
		if (!bpf_map_lookup_elem(&pr_cgroups, &cg))
			return -1;
	}
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;
	__u32 *slot = bpf_map_lookup_elem(&pr_tracked, &tgid);
	if (!slot)
		return -1;
	return (int)(*slot & (PR_SLOTS - 1));
}

#endif
