/* probes.bpf.c — CO-RE tracepoint probes for the `probes` layer.
 *
 * Promise: for every process of a run (tracked from the exec of the armed pid, through fork, until
 * exit), the candidate syscalls of bpf/probes.h are seen at the generic sys_enter/sys_exit hooks
 * (so 32-bit int 0x80 calls are seen too), their arguments stashed at enter (strings and sockaddrs
 * copied from user memory) and resolved at exit (the returned fd's file, the new exe, the dirfd's or
 * cwd's dentry path), and one `struct pr_event` per path argument is written to the run's ring
 * buffer — except a successful open the run's compiled grants provably allow (probes/decide.bpf.h):
 * that one is counted in pr_kallow and sends nothing. Everything else is decided in user space with
 * the policy. Ring buffer reserve failures are counted per run slot in `lost` (exact).
 *
 * Cost for processes outside any run, at enter and again at exit: a table load (is the syscall
 * number one we watch at all, in either ABI? at exit the number is the saved orig_ax), then, only
 * for a watched call, the first check — one hash lookup of the tgid (the run is its pid tree, so a
 * process that leaves the run's cgroup stays observed).
 *
 * Two program tiers for the syscall hooks: tp_btf (preferred) and raw_tp (fallback); user space
 * loads and attaches one and records which. Same for sched_process_* and io_uring_submit_req.
 * The tp_btf tier keeps the syscall stash in task storage, raw_tp in a tid hash (pr_tstash_on,
 * maps.bpf.h). The heavy parts (a record, the walk, the decision, the send) are global
 * subprograms, each verified once on its own: the load stays ~0.1 s.
 *
 * The parts, one concern each (included here, in dependency order):
 *   probes/kread.bpf.h   reading kernel fields: direct loads (tp_btf tier) or CO-RE probe reads
 *   probes/arch.bpf.h    syscall numbers (generated from the UAPI headers) and arguments (CO-RE)
 *   probes/maps.bpf.h    the maps and the scope test
 *   probes/record.bpf.h  building a record and handing it to the run's ring
 *   probes/path.bpf.h    an fd's file and the dentry walk
 *   probes/decide.bpf.h  the in-kernel decision (allowed opens send no record)
 *   probes/files.bpf.h   the file syscalls' path arguments and their records
 *   probes/names.bpf.h   the kernel's own copy of a name (struct filename): a raced buffer is seen
 *   probes/net.bpf.h     network calls and the records without a path argument
 *   probes/procs.bpf.h   process tree, signals outside the run, escape-class argument filters
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_endian.h>
#include "probes.h"

char LICENSE[] SEC("license") = "GPL";

#define AT_FDCWD_ (-100)
#define AT_EMPTY_PATH_ 0x1000
#define EBADF_ 9
#define CSIGNAL_ 0xffull
#define AF_INET_ 2
#define AF_INET6_ 10
#define AF_UNIX_ 1
#define AF_PACKET_ 17
#define SOCK_RAW_ 3
#define TIOCSTI_ 0x5412
#define RLIMIT_CORE_ 4
#define NS_FLAGS_ (0x00020000ull | 0x02000000ull | 0x04000000ull | 0x08000000ull | 0x10000000ull | \
		   0x20000000ull | 0x40000000ull | 0x00000080ull)

#include "probes/kread.bpf.h"
#include "probes/arch.bpf.h"
#include "probes/maps.bpf.h"
#include "probes/record.bpf.h"
#include "probes/path.bpf.h"
#include "probes/decide.bpf.h"
#include "probes/files.bpf.h"
#include "probes/names.bpf.h"
#include "probes/net.bpf.h"
#include "probes/procs.bpf.h"

static __always_inline bool is_escape(__u32 sc)
{
	return sc >= PR_SC_IO_URING_SETUP && sc <= PR_SC_BPF;
}

static __always_inline bool is_net(__u32 sc)
{
	return (sc >= PR_SC_CONNECT && sc <= PR_SC_BIND) || sc == PR_SC_SENDMMSG;
}

/* Records without a path argument: network, escape class, signals. */
static __always_inline bool is_other(__u32 sc)
{
	return is_net(sc) || is_escape(sc) || (sc >= PR_SC_SIG_FIRST && sc <= PR_SC_ESC2_LAST);
}

static __always_inline void on_enter(struct pt_regs *regs, long id)
{
	/* the cheap first filter: an interesting syscall number at all (either ABI) */
	if (!sc_watched(id & ~X32_BIT_))
		return;
	int slot = in_scope();
	if (slot < 0)
		return;
	struct task_struct *t = (struct task_struct *)bpf_get_current_task();
	bool compat = task_compat(t);
	long nr = sc_number(id, compat);
	bool socketcall = compat && nr == PR_NR_SOCKETCALL_COMPAT;
	__u32 sc = socketcall ? socketcall_sc(regs) : sc_of(nr, compat);
	if (sc == PR_SC_NONE)
		return;

	struct pr_stash *s;
	if (pr_tstash_on) {                         /* filled in place in the task's storage */
		s = bpf_task_storage_get(&pr_tstash, bpf_get_current_task_btf(), 0,
					 BPF_LOCAL_STORAGE_GET_F_CREATE);
		if (!s) {
			count_lost((__u32)slot, true);  /* the record will be missing; its result unknown */
			return;
		}
		s->live = 0;
	} else {
		__u32 z = 0;
		s = bpf_map_lookup_elem(&pr_scratch, &z);
		if (!s)
			return;
	}
	s->nr = (int)id;
	s->sc = sc;
	s->compat = compat;
	s->slot = (__u32)slot;
	s->req_ok[0] = s->req_ok[1] = 0;
	s->kname_ok[0] = s->kname_ok[1] = 0;
	s->family = 0;
	s->port = 0;
	s->aflags = 0;
	s->target = 0;
	s->sig = -1;
	s->evflags = 0;
	if (socketcall)
		socketcall_args(regs, s->args);
	else
		syscall_args(regs, compat, s->args);

	if (is_net(sc)) {
		if (!net_enter(s))
			return;                     /* connected socket, unnamed AF_UNIX, ...: not a candidate */
	} else if (sc == PR_SC_UNSHARE) {
		s->aflags = s->args[0];
		if (!(s->aflags & NS_FLAGS_))
			return;
	} else if (sc >= PR_SC_SIG_FIRST && sc <= PR_SC_SIG_LAST) {
		if (!signal_outside(s, t, (__u32)slot))
			return;
	} else if (sc >= PR_SC_ESC2_FIRST && sc <= PR_SC_ESC2_LAST) {
		s->aflags = s->args[0];
		if (!escape2_candidate(s, t))
			return;
	} else if (!is_escape(sc)) {
		files_enter(s);
	} else {
		s->aflags = s->args[0];
	}
	if (pr_tstash_on) {
		s->live = 1;
		return;
	}
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	if (bpf_map_update_elem(&pr_stash, &tid, s, BPF_ANY))
		count_lost((__u32)slot, true);      /* the record will be missing; its result unknown */
}

static __always_inline void on_exit(long id, long ret, __u16 sensor)
{
	/* the same cheap first filter as at enter: no stash can exist for a syscall we do not watch
	 * (most calls of a process outside every run end here, without a map lookup) */
	if (!sc_watched(id & ~X32_BIT_))
		return;
	if (in_scope() < 0)
		return;
	struct pr_stash *s = stash_cur();
	if (!s)
		return;
	if (is_other(s->sc))
		pr_emit_other(0, ret, sensor);
	else
		files_exit(s, ret, sensor);
	stash_done(s);
}

/* ---- syscall hooks: tp_btf tier and raw_tp tier ---------------------------------------------- */
SEC("tp_btf/sys_enter")
int BPF_PROG(btf_sys_enter, struct pt_regs *regs, long id)
{
	on_enter(regs, id);
	return 0;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(btf_sys_exit, struct pt_regs *regs, long ret)
{
	on_exit(regs->orig_ax, ret, PR_SENSOR_TP_BTF_SYS_EXIT);
	return 0;
}

SEC("raw_tp/sys_enter")
int BPF_PROG(raw_sys_enter, struct pt_regs *regs, long id)
{
	on_enter(regs, id);
	return 0;
}

SEC("raw_tp/sys_exit")
int BPF_PROG(raw_sys_exit, struct pt_regs *regs, long ret)
{
	on_exit(BPF_CORE_READ(regs, orig_ax), ret, PR_SENSOR_RAW_TP_SYS_EXIT);
	return 0;
}

/* ---- the kernel's copy of a name, freed by the call (names.bpf.h) ----------------------------- */
SEC("tp_btf/kmem_cache_free")
int BPF_PROG(btf_kfree, unsigned long call_site, const void *ptr, const struct kmem_cache *s)
{
	__u64 nc = pr_names_cache;
	if (nc ? (__u64)s != nc : (s->object_size != 4096 || !names_cache(s, false)))
		return 0;
	pr_name_freed((__u64)ptr);
	return 0;
}

SEC("raw_tp/kmem_cache_free")
int BPF_PROG(raw_kfree, unsigned long call_site, const void *ptr, const struct kmem_cache *s)
{
	__u64 nc = pr_names_cache;
	if (nc ? (__u64)s != nc : (BPF_CORE_READ(s, object_size) != 4096 || !names_cache(s, false)))
		return 0;
	pr_name_freed((__u64)ptr);
	return 0;
}

/* ---- process tree ----------------------------------------------------------------------------- */
SEC("tp_btf/sched_process_exec")
int BPF_PROG(btf_exec, struct task_struct *t, pid_t old_pid, struct linux_binprm *bprm)
{
	on_exec(t);
	return 0;
}

SEC("tp_btf/sched_process_fork")
int BPF_PROG(btf_fork, struct task_struct *parent, struct task_struct *child)
{
	on_fork(parent, child);
	return 0;
}

SEC("tp_btf/sched_process_exit")
int BPF_PROG(btf_exit, struct task_struct *t, bool group_dead)
{
	on_task_exit(t, group_dead);
	return 0;
}

SEC("tp_btf/sched_process_free")
int BPF_PROG(btf_free, struct task_struct *t)
{
	on_task_free(t);
	return 0;
}

SEC("raw_tp/sched_process_exec")
int BPF_PROG(raw_exec, struct task_struct *t, pid_t old_pid, struct linux_binprm *bprm)
{
	on_exec(t);
	return 0;
}

SEC("raw_tp/sched_process_fork")
int BPF_PROG(raw_fork, struct task_struct *parent, struct task_struct *child)
{
	on_fork(parent, child);
	return 0;
}

/* Older kernels have no group_dead argument: treat the leader's exit as the group's. */
SEC("raw_tp/sched_process_exit")
int BPF_PROG(raw_exit, struct task_struct *t)
{
	on_task_exit(t, BPF_CORE_READ(t, pid) == BPF_CORE_READ(t, tgid));
	return 0;
}

SEC("raw_tp/sched_process_free")
int BPF_PROG(raw_free, struct task_struct *t)
{
	on_task_free(t);
	return 0;
}

/* ---- io_uring: operations never pass through the syscall hooks ------------------------------- */
/* The ops whose object is an fd's file (read, write, readv, writev, their fixed-buffer forms,
 * fsync, fallocate, sendmsg, recvmsg, send, recv). */
static __always_inline bool uring_fd_op(__u8 op)
{
	return op == 1 || op == 2 || op == 3 || op == 4 || op == 5 || op == 9 || op == 10 || op == 17 ||
	       op == 22 || op == 23 || op == 26 || op == 27;
}

static __always_inline void on_uring(struct io_kiocb *req, __u16 sensor)
{
	int slot = in_scope();
	if (slot < 0)
		return;
	__u32 z = 0;
	struct pr_stash *s = bpf_map_lookup_elem(&pr_scratch, &z);
	if (!s)
		return;
	s->slot = (__u32)slot;
	s->sc = PR_SC_IO_URING_OP;
	s->nr = -1;
	s->compat = 0;
	s->family = 0;
	s->port = 0;
	s->evflags = 0;
	s->req_ok[0] = s->req_ok[1] = 0;
	__builtin_memset(s->addr, 0, sizeof(s->addr));
	__u8 op = BPF_CORE_READ(req, opcode);
	s->aflags = op;
	if (op == 18 || op == 28) {                 /* openat, openat2: prep has taken the name */
		struct io_open *o = (struct io_open *)&req->cmd;
		const char *kn = BPF_CORE_READ(o, filename, name);
		long r = kn ? bpf_probe_read_kernel_str(s->req[0], PR_NAME_MAX, kn) : 0;
		s->req_ok[0] = r > 0 ? (__u32)r : 0;
		s->target = BPF_CORE_READ(o, dfd);
		s->aflags |= (__u64)(__u32)BPF_CORE_READ(o, how.flags) << PR_URING_OP_SHIFT;
		s->evflags = PR_EVF_URING_OBJ;
	} else if (op == 16) {                      /* connect: the address prep copied (async data;
						     * not found there on 6.18), else the submitter's */
		struct io_async_msghdr *io = BPF_CORE_READ(req, async_data);
		struct sockaddr_in6 sa = {};
		if (io)
			bpf_probe_read_kernel(&sa, sizeof(sa), &io->addr);
		__u16 fam = sa.sin6_family;
		if (fam != AF_INET_ && fam != AF_INET6_) {
			/* no kernel copy found: the address as the submitter's memory holds it now
			 * (the submit runs in its context) */
			struct io_connect *c = (struct io_connect *)&req->cmd;
			const void *ua = BPF_CORE_READ(c, addr);
			if (ua && bpf_probe_read_user(&sa, sizeof(sa), ua) == 0)
				fam = sa.sin6_family;
		}
		if (fam == AF_INET_ || fam == AF_INET6_) {
			s->family = fam;
			s->port = bpf_ntohs(sa.sin6_port);   /* same offset in sockaddr_in */
			if (fam == AF_INET_)
				__builtin_memcpy(s->addr, &((struct sockaddr_in *)&sa)->sin_addr, 4);
			else
				__builtin_memcpy(s->addr, &sa.sin6_addr, 16);
			s->target = BPF_CORE_READ(req, cqe.fd);
			s->evflags = PR_EVF_URING_OBJ;
		}
	} else if (uring_fd_op(op) && !(BPF_CORE_READ(req, flags) & 1ull /* REQ_F_FIXED_FILE */)) {
		s->target = BPF_CORE_READ(req, cqe.fd);
		s->evflags = PR_EVF_URING_OBJ;
	}
	pr_emit_other(1, 0, sensor);
}

SEC("tp_btf/io_uring_submit_req")
int BPF_PROG(btf_uring, struct io_kiocb *req)
{
	on_uring(req, PR_SENSOR_TP_BTF_IO_URING);
	return 0;
}

SEC("raw_tp/io_uring_submit_req")
int BPF_PROG(raw_uring, struct io_kiocb *req)
{
	on_uring(req, PR_SENSOR_RAW_TP_IO_URING);
	return 0;
}
