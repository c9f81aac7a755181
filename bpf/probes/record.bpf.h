/* record.bpf.h — building one struct pr_event and handing it to the run's ring buffer.
 *
 * Promise: a record is built in a per-CPU buffer (ev_begin fills the facts common to every
 * record: time, ids, namespace numbers, comm, the exe's dentry name) and only its used part goes
 * into the run's ring (ev_send: offsetof(path) + path_len bytes). A record the ring cannot take is
 * counted in the slot's `pr_lost` (exact); process records are not (they lose no event).
 */
#ifndef SBX_PROBES_RECORD_BPF_H
#define SBX_PROBES_RECORD_BPF_H

/* Per-CPU record under construction. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct pr_event);
} pr_evbuf SEC(".maps");

/* The number of a struct pid in its innermost namespace. */
static __always_inline __u32 ns_nr(struct pid *p)
{
	if (!p)
		return 0;
	unsigned int lvl = BPF_CORE_READ(p, level);
	struct upid u = {};
	bpf_probe_read_kernel(&u, sizeof(u), &p->numbers[lvl & 31]);
	return (__u32)u.nr;
}

static __always_inline void fill_common(struct pr_event *ev, struct task_struct *t, __u32 slot,
					__u16 sensor)
{
	__u64 pt = bpf_get_current_pid_tgid();
	ev->ts = bpf_ktime_get_ns();
	ev->pid = (__u32)pt;
	ev->tgid = pt >> 32;
	ev->slot = slot;
	ev->sensor = sensor;
	ev->flags = 0;
	ev->ncomp = 0;
	ev->path_len = 0;
	ev->path_kind = PR_PK_NONE;
	ev->family = 0;
	ev->port = 0;
	ev->pad = 0;
	ev->argi = 0;
	ev->dirfd = AT_FDCWD_;
	ev->req[0] = 0;
	ev->path[0] = 0;
	bpf_get_current_comm(ev->comm, sizeof(ev->comm));
	ev->nspid = ns_nr(BPF_CORE_READ(t, thread_pid));
	ev->nstgid = ns_nr(BPF_CORE_READ(t, group_leader, thread_pid));
	const unsigned char *en = BPF_CORE_READ(t, mm, exe_file, f_path.dentry, d_name.name);
	if (!en || bpf_probe_read_kernel_str(ev->exe, sizeof(ev->exe), en) <= 0)
		ev->exe[0] = 0;
}

/* The per-CPU record, its common part filled, and the slot's ring (both NULL-checked). */
static __always_inline struct pr_event *ev_begin(__u32 slot, struct task_struct *t, __u16 sensor,
						 void **rb)
{
	slot &= PR_SLOTS - 1;
	*rb = bpf_map_lookup_elem(&pr_rings, &slot);
	if (!*rb)
		return NULL;
	__u32 z = 0;
	struct pr_event *ev = bpf_map_lookup_elem(&pr_evbuf, &z);
	if (!ev)
		return NULL;
	fill_common(ev, t, slot, sensor);
	return ev;
}

/* The syscall facts of a record, from the stash. */
static __always_inline void ev_from_stash(struct pr_event *ev, const struct pr_stash *s, long ret)
{
	ev->ret = ret;
	ev->nr = s->nr;
	ev->sc = s->sc;
	ev->aflags = s->aflags;
	if (s->compat)
		ev->flags |= PR_EVF_COMPAT;
}

static __always_inline void ev_send(void *rb, struct pr_event *ev, __u32 slot)
{
	__u64 sz = __builtin_offsetof(struct pr_event, path) + (__u64)ev->path_len;
	if (sz > sizeof(*ev))
		sz = sizeof(*ev);
	/* a lost process record only costs the full `exe` of later events: not counted as lost */
	if (bpf_ringbuf_output(rb, ev, sz, 0) != 0 && ev->sc < PR_SC__MAX)
		count(&pr_lost, slot & (PR_SLOTS - 1));
}

#endif
