/* procs.bpf.h — processes: the run's process tree, signals aimed outside it, and the argument
 * filters of the escape-class (seccomp deny-list) calls.
 *
 * Promise: a run's processes are tracked from the exec of the armed pid, through fork, until exit
 * (pr_tracked, tgid -> slot); every task is also keyed by (innermost pid namespace, number there)
 * in pr_nspids so a signal's target (a number in the caller's namespace) is found "inside the run"
 * without find_vpid. signal_outside() and escape2_candidate() drop the calls the SPEC makes
 * harmless (signals inside the run; clone/unshare without namespace flags, ioctl other than
 * TIOCSTI, personality queries, sockets other than packet/raw IP, rlimits not raising RLIMIT_CORE).
 * Process records (exec: the new exe; fork: the parent) let user space name a violation's exe.
 */
#ifndef SBX_PROBES_PROCS_BPF_H
#define SBX_PROBES_PROCS_BPF_H

/* The key of a struct pid at `lvl` (0 if it has no number there). */
static __always_inline bool nskey_of(struct pid *p, unsigned int lvl, struct nskey *k)
{
	k->ns = 0;
	k->nr = 0;
	k->pad = 0;
	if (!p || BPF_CORE_READ(p, level) < lvl)
		return false;
	struct upid u = {};
	bpf_probe_read_kernel(&u, sizeof(u), &p->numbers[lvl & 31]);
	k->ns = (__u64)(unsigned long)u.ns;
	k->nr = (__u32)u.nr;
	return k->ns != 0;
}

/* A task's own key: its number in its innermost pid namespace. */
static __always_inline bool nskey_task(struct task_struct *t, struct nskey *k)
{
	struct pid *p = BPF_CORE_READ(t, thread_pid);
	return p && nskey_of(p, BPF_CORE_READ(p, level), k);
}

/* Is pid number `nr` of the caller's namespace a task of run `slot`? */
static __always_inline bool nr_in_run(struct task_struct *t, int nr, __u32 slot)
{
	struct nskey k;
	struct pid *p = BPF_CORE_READ(t, thread_pid);
	if (!p || !nskey_of(p, BPF_CORE_READ(p, level), &k))
		return false;
	k.nr = (__u32)nr;
	struct nsval *v = bpf_map_lookup_elem(&pr_nspids, &k);
	return v && (v->slot & (PR_SLOTS - 1)) == slot;
}

/* The struct pid behind a pidfd (pidfs keeps it in the inode, older kernels in private_data). */
static __always_inline struct pid *pidfd_pid_of(struct file *f)
{
	if (!f)
		return NULL;
	struct pid *p = (struct pid *)BPF_CORE_READ(f, f_inode, i_private);
	if (!p)
		p = (struct pid *)BPF_CORE_READ(f, private_data);
	return p;
}

/* Signals: fill target/sig; true when the target is outside the run (a candidate). */
static __always_inline bool signal_outside(struct pr_stash *s, struct task_struct *t, __u32 slot)
{
	__u32 sc = s->sc;
	int pid = (int)s->args[0];
	s->sig = (int)s->args[1];
	if (sc == PR_SC_TGKILL || sc == PR_SC_RT_TGSIGQUEUEINFO)
		s->sig = (int)s->args[2];
	else if (sc == PR_SC_PIDFD_OPEN)
		s->sig = -1;
	if (sc == PR_SC_PIDFD_SEND_SIGNAL) {
		struct pid *tp = pidfd_pid_of(fd_file(t, (long)(int)s->args[0]));
		struct pid *me = BPF_CORE_READ(t, thread_pid);
		if (!tp || !me)
			return false;               /* not a pidfd: EBADF/EINVAL from the kernel */
		struct nskey mine, k;
		unsigned int lvl = BPF_CORE_READ(me, level);
		if (!nskey_of(me, lvl, &mine))
			return false;
		if (!nskey_of(tp, lvl, &k) || k.ns != mine.ns) {
			s->target = (int)BPF_CORE_READ(tp, numbers[0].nr);   /* not visible from here */
			return true;
		}
		s->target = (int)k.nr;
		struct nsval *v = bpf_map_lookup_elem(&pr_nspids, &k);
		return !(v && (v->slot & (PR_SLOTS - 1)) == slot);
	}
	s->target = pid;
	if (pid > 0)
		return !nr_in_run(t, pid, slot);
	if (sc != PR_SC_KILL || pid == 0)
		return false;                       /* pid 0: own group; others: EINVAL */
	s->evflags |= PR_EVF_PGRP;
	if (pid == -1)
		return true;                        /* every process the caller may signal */
	return !nr_in_run(t, -pid, slot);       /* a group led by a process of the run is the run's */
}

/* The seccomp deny-list calls: false when the arguments make it harmless (see probes.h). */
static __always_inline bool escape2_candidate(struct pr_stash *s, struct task_struct *t)
{
	__u64 a0 = s->args[0];
	switch (s->sc) {
	case PR_SC_CLONE:
		/* the low byte is the exit signal (CSIGNAL), not flags: CLONE_NEWTIME (0x80) is only a
		 * flag for clone3 and unshare */
		return (a0 & NS_FLAGS_ & ~CSIGNAL_) != 0;
	case PR_SC_CLONE3: {
		__u64 fl = 0;
		if (bpf_probe_read_user(&fl, sizeof(fl), (const void *)a0))
			return false;
		s->aflags = fl;
		return (fl & NS_FLAGS_) != 0;
	}
	case PR_SC_IOCTL:
		return (__u32)s->args[1] == TIOCSTI_;
	case PR_SC_PERSONALITY:
		return (__u32)a0 != 0xffffffffu && (__u32)a0 != BPF_CORE_READ(t, personality);
	case PR_SC_SOCKET: {
		/* user space decides with the one socket allowlist (pol_socket_ok); here only what it
		 * surely allows is dropped: AF_UNIX, and TCP / UDP / ping on AF_INET(6) with the default
		 * or the usual protocol. The record carries family (target), type and protocol (aflags). */
		__u32 fam = (__u32)a0, ty = (__u32)s->args[1] & 0xf, pr = (__u32)s->args[2];
		s->target = (int)fam;
		s->aflags = (__u64)(__u32)s->args[1] << 32 | pr;
		if (fam == AF_UNIX_)
			return false;
		if (fam != AF_INET_ && fam != AF_INET6_)
			return true;
		if (ty == SOCK_RAW_)
			return true;
		return !(pr == 0 || pr == 6 || pr == 17 || pr == 1 || pr == 58);
	}
	case PR_SC_SETRLIMIT:
	case PR_SC_PRLIMIT64: {
		bool pl = s->sc == PR_SC_PRLIMIT64;
		__u64 res = pl ? s->args[1] : a0;
		__u64 up = pl ? s->args[2] : s->args[1];
		if ((__u32)res != RLIMIT_CORE_ || !up)
			return false;
		__u64 nw[2] = {};
		if (s->compat && !pl) {
			__u32 n32[2] = {};
			if (bpf_probe_read_user(n32, sizeof(n32), (const void *)up))
				return false;
			nw[0] = n32[0] == 0xffffffffu ? ~0ull : n32[0];
			nw[1] = n32[1] == 0xffffffffu ? ~0ull : n32[1];
		} else if (bpf_probe_read_user(nw, sizeof(nw), (const void *)up)) {
			return false;
		}
		__u64 cur = BPF_CORE_READ(t, signal, rlim[RLIMIT_CORE_].rlim_cur);
		__u64 max = BPF_CORE_READ(t, signal, rlim[RLIMIT_CORE_].rlim_max);
		s->aflags = nw[0];
		return nw[0] > cur || nw[1] > max;
	}
	}
	return true;
}

/* ---- process tree ----------------------------------------------------------------------------- */
/* Number task t of run `slot` in pr_nspids (threads too: tkill/tgkill name them). */
static __always_inline void nspid_add(struct task_struct *t, __u32 slot)
{
	struct nskey k;
	if (!nskey_task(t, &k))
		return;
	struct nsval v = { .slot = slot, .start = BPF_CORE_READ(t, start_time) };
	bpf_map_update_elem(&pr_nspids, &k, &v, BPF_ANY);
}

/* Process records (not violations): the exe path at each exec of a run's process, and the parent
 * of each fork, so user space can name the full `exe` of a violation even after the process is gone. */
static __always_inline void proc_record(__u32 slot, __u32 sc, __u32 tgid, __u32 ptgid, struct task_struct *t,
					bool with_exe)
{
	void *rb;
	struct pr_event *ev = ev_begin(slot, t, 0, &rb);
	if (!ev)
		return;
	ev->sc = sc;
	ev->tgid = tgid;
	ev->nr = (int)ptgid;
	ev->ret = 0;
	ev->aflags = 0;
	if (with_exe) {
		struct file *f = BPF_CORE_READ(t, mm, exe_file);
		if (f) {
			ev->path_kind = PR_PK_FULL;
			walk_file(ev, t, f);
		}
	}
	ev_send(rb, ev, slot);
}

static __always_inline void on_exec(struct task_struct *t)
{
	__u32 tgid = BPF_CORE_READ(t, tgid);
	__u32 v;
	__u32 *slot = bpf_map_lookup_elem(&pr_armed, &tgid);
	if (slot) {
		v = *slot;
		if (bpf_map_update_elem(&pr_tracked, &tgid, &v, BPF_ANY))
			count(&pr_untracked, v & (PR_SLOTS - 1));
		else
			live_add(v, 1, true);
		nspid_add(t, v);
		bpf_map_delete_elem(&pr_armed, &tgid);
	} else {
		slot = bpf_map_lookup_elem(&pr_tracked, &tgid);
		if (!slot)
			return;
		v = *slot;
	}
	proc_record(v, PR_SC_PROC_EXEC, tgid, 0, t, true);
}

static __always_inline void on_fork(struct task_struct *parent, struct task_struct *child)
{
	__u32 ptgid = BPF_CORE_READ(parent, tgid);
	__u32 ctgid = BPF_CORE_READ(child, tgid);
	__u32 *slot = bpf_map_lookup_elem(&pr_tracked, &ptgid);
	if (!slot)
		return;
	__u32 v = *slot;
	nspid_add(child, v);
	if (ptgid == ctgid)
		return;                             /* a thread: its process is tracked already */
	bool known = bpf_map_lookup_elem(&pr_tracked, &ctgid) != NULL;   /* a stale entry: counted */
	if (bpf_map_update_elem(&pr_tracked, &ctgid, &v, BPF_ANY))
		count(&pr_untracked, v & (PR_SLOTS - 1));
	else if (!known)
		live_add(v, 1, false);
	proc_record(v, PR_SC_PROC_FORK, ctgid, ptgid, (struct task_struct *)bpf_get_current_task(), false);
}

static __always_inline void on_task_exit(struct task_struct *t, bool group_dead)
{
	if (!pr_tstash_on) {                        /* task storage goes with the task */
		__u32 tid = BPF_CORE_READ(t, pid);
		bpf_map_delete_elem(&pr_stash, &tid);
	}
	struct nskey k;
	if (nskey_task(t, &k)) {                    /* the number stays the run's until reaped */
		struct nsval *v = bpf_map_lookup_elem(&pr_nspids, &k);
		__u64 tk = (__u64)(unsigned long)t;
		if (v && v->start == BPF_CORE_READ(t, start_time))
			bpf_map_update_elem(&pr_dying, &tk, &k, BPF_ANY);
	}
	if (group_dead) {
		__u32 tgid = BPF_CORE_READ(t, tgid);
		__u32 *slot = bpf_map_lookup_elem(&pr_tracked, &tgid);
		if (slot) {
			__u32 v = *slot;
			if (bpf_map_delete_elem(&pr_tracked, &tgid) == 0)
				live_add(v, -1, false);
		}
	}
}

/* The task is reaped and freed: its number may be reused from now on. */
static __always_inline void on_task_free(struct task_struct *t)
{
	__u64 tk = (__u64)(unsigned long)t;
	struct nskey *k = bpf_map_lookup_elem(&pr_dying, &tk);
	if (!k)
		return;
	struct nskey key = *k;
	struct nsval *v = bpf_map_lookup_elem(&pr_nspids, &key);
	if (v && v->start == BPF_CORE_READ(t, start_time))
		bpf_map_delete_elem(&pr_nspids, &key);
	bpf_map_delete_elem(&pr_dying, &tk);
}

#endif
