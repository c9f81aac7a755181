/* record.bpf.h — building one struct pr_event and handing it to the run's ring buffer.
 *
 * Promise: a record is built in a per-CPU buffer (ev_begin fills the facts common to every
 * record: time, ids, namespace numbers, comm, the exe's dentry name) and only its used part goes
 * into the run's ring (ev_send: offsetof(path) + path_len bytes); a failed call's record never
 * takes the ring's reserve (PR_RB_RESERVE: kept for calls that succeeded). A record the ring cannot take is
 * counted in `pr_overflow` under its decision key with a sample (exact counts user space decides
 * and reports as summaries), or, when that map is full, in `pr_lost` / `pr_lost_ok`; process
 * records are not (they lose no event).
 */
#ifndef SBX_PROBES_RECORD_BPF_H
#define SBX_PROBES_RECORD_BPF_H

/* Per-CPU record under construction, inside the overflow value it becomes if the ring is full. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct pr_ovf);
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
	ev->target = 0;
	ev->sig = 0;
	__builtin_memset(ev->addr, 0, sizeof(ev->addr));
	ev->fsmagic = 0;
	ev->pad2 = 0;
	ev->okey = 0;
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
	struct pr_ovf *o = bpf_map_lookup_elem(&pr_evbuf, &z);
	if (!o)
		return NULL;
	fill_common(&o->ev, t, slot, sensor);
	return &o->ev;
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

static __always_inline __u64 mix(__u64 h, __u64 w)
{
	h ^= w;
	h *= 0x100000001b3ull;
	return h ^ (h >> 29);
}

/* The string as given, hashed 8 bytes a step up to its NUL (a bpf_loop callback: verified once
 * instead of once per unrolled step). */
struct dk_ctx {
	const char *req;
	__u64 h;
};

static __always_inline long dk_word(struct dk_ctx *c, __u64 w)
{
	__u64 z = (w - 0x0101010101010101ull) & ~w & 0x8080808080808080ull;
	if (z) {                                    /* the word holding the NUL: bytes after it are stale */
		__u64 low = z & -z;                 /* bit 7 of the first zero byte (little endian) */
		c->h = mix(c->h, w & ((low >> 7) - 1));
		return 1;
	}
	c->h = mix(c->h, w);
	return 0;
}

static long dk_step(__u32 i, void *arg)
{
	struct dk_ctx *c = arg;
	__u64 w;
	__builtin_memcpy(&w, &c->req[(i & (PR_NAME_MAX / 8 - 1)) * 8], 8);
	return dk_word(c, w);
}

static long dk_step_long(__u32 i, void *arg)
{
	struct dk_ctx *c = arg;
	__u64 w;
	__builtin_memcpy(&w, &c->req[(i & (PR_REQ_MAX / 8 - 1)) * 8], 8);
	return dk_word(c, w);
}

/* Everything pr_decide() looks at, hashed (the path by the walked object's identity). */
static __always_inline __u64 decision_key(const struct pr_event *ev)
{
	__u64 h = 0xcbf29ce484222325ull;
	h = mix(h, ev->sc | (__u64)ev->flags << 32);
	h = mix(h, ev->ret < 0 ? (__u64)ev->ret : 0);    /* outcome and errno, not the fd number */
	h = mix(h, ev->aflags);
	h = mix(h, ev->family | (__u64)ev->port << 16 | (__u64)ev->path_kind << 32 | (__u64)ev->argi << 48);
	__u64 a[2];
	__builtin_memcpy(a, ev->addr, 16);
	h = mix(h, a[0]);
	h = mix(h, a[1]);
	h = mix(h, (__u32)ev->target | (__u64)(__u32)ev->sig << 32);
	h = mix(h, ev->okey);
	h = mix(h, ev->ncomp | (__u64)ev->path_len << 16 | (__u64)ev->fsmagic << 32);
	h = mix(h, ev->nspid | (__u64)ev->nstgid << 32);  /* /proc/<own pid> is rewritten per task */
	struct dk_ctx c = { .req = ev->req, .h = h };
	bpf_loop(PR_NAME_MAX / 8, dk_step, &c, 0);
	if (ev->flags & PR_EVF_REQ_LONG) {          /* the whole string decides, not its head */
		c.req = ev->req_long;
		bpf_loop(PR_REQ_MAX / 8, dk_step_long, &c, 0);
	}
	if (ev->flags & PR_EVF_RACED) {             /* the kernel's name too */
		c.req = ev->kname;
		bpf_loop(PR_NAME_MAX / 8, dk_step, &c, 0);
	}
	return c.h;
}

/* The ring is full: count the per-CPU record under its decision key (exact), or lose it (counted).
 * Global subprogram (verified once, on its own). */
__noinline int pr_overflow_ev(__u32 slot)
{
	__u32 z0 = 0;
	struct pr_ovf *ob = bpf_map_lookup_elem(&pr_evbuf, &z0);
	if (!ob)
		return 0;
	struct pr_event *ev = &ob->ev;
	bool did_not_fail = ev->ret >= 0 || ev->sc == PR_SC_IO_URING_OP;
	struct pr_ovf_key k = { .slot = slot & (PR_SLOTS - 1), .pad = 0, .h = decision_key(ev) };
	struct pr_ovf *o = bpf_map_lookup_elem(&pr_overflow, &k);
	if (!o) {
		__u32 z = 0;
		struct pr_ovf *b = bpf_map_lookup_elem(&pr_evbuf, &z);   /* holds ev */
		if (!b)
			return 0;
		b->count = 1;
		b->first_ts = b->last_ts = ev->ts;
		if (bpf_map_update_elem(&pr_overflow, &k, b, BPF_NOEXIST) == 0)
			return 0;
		o = bpf_map_lookup_elem(&pr_overflow, &k);          /* inserted meanwhile by another CPU */
		if (!o) {
			count_lost(slot, did_not_fail);                 /* the map is full */
			return 0;
		}
	}
	__sync_fetch_and_add(&o->count, 1);
	o->last_ts = ev->ts;
	return 0;
}

/* Global subprogram (verified once, on its own): the per-CPU record into the slot's ring, or into
 * the overflow map when the ring is full. */
__noinline int pr_ev_send(__u32 slot)
{
	slot &= PR_SLOTS - 1;
	void *rb = bpf_map_lookup_elem(&pr_rings, &slot);
	__u32 z = 0;
	struct pr_ovf *o = bpf_map_lookup_elem(&pr_evbuf, &z);
	if (!rb || !o)
		return 0;
	struct pr_event *ev = &o->ev;
	__u64 sz = __builtin_offsetof(struct pr_event, path) + (__u64)ev->path_len;
	if (sz > sizeof(*ev) || (ev->flags & (PR_EVF_REQ_LONG | PR_EVF_RACED)))
		sz = sizeof(*ev);
	/* Precedence: a call that failed is at worst contained; it never takes the ring's last
	 * PR_RB_RESERVE bytes, kept for calls that succeeded (a breach is never pushed out by a flood
	 * of refused decoys) — it goes to the overflow counters instead (exact, named by key). */
	if (ev->sc < PR_SC__MAX && ev->ret < 0 && ev->ret != -115 /* EINPROGRESS */ &&
	    bpf_ringbuf_query(rb, BPF_RB_AVAIL_DATA) > PR_RB_SIZE - PR_RB_RESERVE) {
		pr_overflow_ev(slot);
		return 0;
	}
	/* a lost process record only costs the full `exe` of later events: not counted as lost */
	if (bpf_ringbuf_output(rb, ev, sz, 0) != 0 && ev->sc < PR_SC__MAX)
		pr_overflow_ev(slot);
	return 0;
}

/* The record ev_begin() returned (the per-CPU one) into the ring it returned. */
static __always_inline void ev_send(void *rb, struct pr_event *ev, __u32 slot)
{
	pr_ev_send(slot);
}

#endif
