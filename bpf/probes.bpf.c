/* probes.bpf.c — CO-RE tracepoint probes for the `probes` layer (issue 6).
 *
 * Promise: for every process of a run (tracked from the exec of the armed pid, through fork, until
 * exit), the candidate syscalls of bpf/probes.h are seen at the generic sys_enter/sys_exit hooks
 * (so 32-bit int 0x80 calls are seen too), their arguments stashed at enter (strings and sockaddrs
 * copied from user memory) and resolved at exit (the returned fd's file, the new exe, the dirfd's or
 * cwd's dentry path), and one `struct pr_event` per path argument is written to the run's ring
 * buffer. Nothing is decided here: user space applies the policy. Ring buffer reserve failures are
 * counted per run slot in `lost` (exact).
 *
 * Cost for processes outside any run: a table load (is the syscall number one we watch at all, in
 * either ABI?), then the first check — a hash lookup of the current cgroup v2 id (when no run is in
 * pid mode), else of the tgid.
 *
 * Arguments are filtered here where the SPEC makes a call harmless: unshare/clone/clone3 only with
 * namespace flags, ioctl only TIOCSTI, personality only a change, socket only AF_PACKET or raw IP,
 * setrlimit/prlimit64 only raising RLIMIT_CORE, signals only to a target outside the run. "Outside"
 * is decided with `pr_nspids`: every task of a run keyed by (its innermost pid namespace, its number
 * there), recorded at fork and at the armed exec, removed at exit; a target pid is a number in the
 * caller's namespace, so (caller's namespace, target) is looked up (find_vpid is not callable here).
 * A path string that could not be read at enter (page not yet faulted in) is read again at exit.
 *
 * Two program tiers for the syscall hooks: tp_btf (preferred) and raw_tp (fallback); user space
 * loads and attaches one and records which. Same for sched_process_* and io_uring_submit_req.
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
#define TS_COMPAT_ 0x0002u
#define X32_BIT_ 0x40000000L
#define AF_INET_ 2
#define AF_INET6_ 10
#define AF_UNIX_ 1
#define AF_PACKET_ 17
#define SOCK_RAW_ 3
#define TIOCSTI_ 0x5412
#define RLIMIT_CORE_ 4
#define NS_FLAGS_ (0x00020000ull | 0x02000000ull | 0x04000000ull | 0x08000000ull | 0x10000000ull | \
		   0x20000000ull | 0x40000000ull | 0x00000080ull)

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

/* x86-64 and i386 syscall numbers -> enum pr_sc: tables (one load, no branches to verify) */
static const __u8 sc_x64[512] = {
	[2] = PR_SC_OPEN,
	[42] = PR_SC_CONNECT,
	[44] = PR_SC_SENDTO,
	[46] = PR_SC_SENDMSG,
	[49] = PR_SC_BIND,
	[59] = PR_SC_EXECVE,
	[76] = PR_SC_TRUNCATE,
	[82] = PR_SC_RENAME,
	[83] = PR_SC_MKDIR,
	[84] = PR_SC_RMDIR,
	[85] = PR_SC_CREAT,
	[86] = PR_SC_LINK,
	[87] = PR_SC_UNLINK,
	[88] = PR_SC_SYMLINK,
	[90] = PR_SC_CHMOD,
	[92] = PR_SC_CHOWN,
	[94] = PR_SC_LCHOWN,
	[101] = PR_SC_PTRACE,
	[155] = PR_SC_PIVOT_ROOT,
	[165] = PR_SC_MOUNT,
	[166] = PR_SC_UMOUNT2,
	[257] = PR_SC_OPENAT,
	[258] = PR_SC_MKDIRAT,
	[260] = PR_SC_FCHOWNAT,
	[263] = PR_SC_UNLINKAT,
	[264] = PR_SC_RENAMEAT,
	[265] = PR_SC_LINKAT,
	[266] = PR_SC_SYMLINKAT,
	[268] = PR_SC_FCHMODAT,
	[272] = PR_SC_UNSHARE,
	[308] = PR_SC_SETNS,
	[316] = PR_SC_RENAMEAT2,
	[321] = PR_SC_BPF,
	[322] = PR_SC_EXECVEAT,
	[425] = PR_SC_IO_URING_SETUP,
	[426] = PR_SC_IO_URING_ENTER,
	[428] = PR_SC_OPEN_TREE,
	[429] = PR_SC_MOVE_MOUNT,
	[430] = PR_SC_FSOPEN,
	[431] = PR_SC_FSCONFIG,
	[432] = PR_SC_FSMOUNT,
	[433] = PR_SC_FSPICK,
	[437] = PR_SC_OPENAT2,
	[442] = PR_SC_MOUNT_SETATTR,
	[452] = PR_SC_FCHMODAT2,
	[62] = PR_SC_KILL, [200] = PR_SC_TKILL, [234] = PR_SC_TGKILL, [129] = PR_SC_RT_SIGQUEUEINFO,
	[297] = PR_SC_RT_TGSIGQUEUEINFO, [424] = PR_SC_PIDFD_SEND_SIGNAL, [434] = PR_SC_PIDFD_OPEN,
	[250] = PR_SC_KEYCTL, [248] = PR_SC_ADD_KEY, [249] = PR_SC_REQUEST_KEY,
	[298] = PR_SC_PERF_EVENT_OPEN, [323] = PR_SC_USERFAULTFD, [161] = PR_SC_CHROOT,
	[56] = PR_SC_CLONE, [435] = PR_SC_CLONE3, [310] = PR_SC_PROCESS_VM_READV,
	[311] = PR_SC_PROCESS_VM_WRITEV, [246] = PR_SC_KEXEC_LOAD, [320] = PR_SC_KEXEC_FILE_LOAD,
	[175] = PR_SC_INIT_MODULE, [313] = PR_SC_FINIT_MODULE, [176] = PR_SC_DELETE_MODULE,
	[167] = PR_SC_SWAPON, [168] = PR_SC_SWAPOFF, [169] = PR_SC_REBOOT, [163] = PR_SC_ACCT,
	[179] = PR_SC_QUOTACTL, [443] = PR_SC_QUOTACTL_FD, [172] = PR_SC_IOPL, [173] = PR_SC_IOPERM,
	[303] = PR_SC_NAME_TO_HANDLE_AT, [304] = PR_SC_OPEN_BY_HANDLE_AT,
	[427] = PR_SC_IO_URING_REGISTER, [16] = PR_SC_IOCTL, [135] = PR_SC_PERSONALITY,
	[41] = PR_SC_SOCKET, [160] = PR_SC_SETRLIMIT, [302] = PR_SC_PRLIMIT64,
	[132] = PR_SC_UTIME, [235] = PR_SC_UTIMES, [280] = PR_SC_UTIMENSAT, [261] = PR_SC_FUTIMESAT,
};

static const __u8 sc_i386[512] = {
	[5] = PR_SC_OPEN,
	[8] = PR_SC_CREAT,
	[9] = PR_SC_LINK,
	[10] = PR_SC_UNLINK,
	[11] = PR_SC_EXECVE,
	[15] = PR_SC_CHMOD,
	[16] = PR_SC_LCHOWN,
	[21] = PR_SC_MOUNT,
	[22] = PR_SC_UMOUNT2,
	[26] = PR_SC_PTRACE,
	[38] = PR_SC_RENAME,
	[39] = PR_SC_MKDIR,
	[40] = PR_SC_RMDIR,
	[52] = PR_SC_UMOUNT2,
	[83] = PR_SC_SYMLINK,
	[92] = PR_SC_TRUNCATE,
	[182] = PR_SC_CHOWN,
	[193] = PR_SC_TRUNCATE,
	[198] = PR_SC_LCHOWN,
	[212] = PR_SC_CHOWN,
	[217] = PR_SC_PIVOT_ROOT,
	[295] = PR_SC_OPENAT,
	[296] = PR_SC_MKDIRAT,
	[298] = PR_SC_FCHOWNAT,
	[301] = PR_SC_UNLINKAT,
	[302] = PR_SC_RENAMEAT,
	[303] = PR_SC_LINKAT,
	[304] = PR_SC_SYMLINKAT,
	[306] = PR_SC_FCHMODAT,
	[310] = PR_SC_UNSHARE,
	[346] = PR_SC_SETNS,
	[353] = PR_SC_RENAMEAT2,
	[357] = PR_SC_BPF,
	[358] = PR_SC_EXECVEAT,
	[361] = PR_SC_BIND,
	[362] = PR_SC_CONNECT,
	[369] = PR_SC_SENDTO,
	[370] = PR_SC_SENDMSG,
	[425] = PR_SC_IO_URING_SETUP,
	[426] = PR_SC_IO_URING_ENTER,
	[428] = PR_SC_OPEN_TREE,
	[429] = PR_SC_MOVE_MOUNT,
	[430] = PR_SC_FSOPEN,
	[431] = PR_SC_FSCONFIG,
	[432] = PR_SC_FSMOUNT,
	[433] = PR_SC_FSPICK,
	[437] = PR_SC_OPENAT2,
	[442] = PR_SC_MOUNT_SETATTR,
	[452] = PR_SC_FCHMODAT2,
	[37] = PR_SC_KILL, [238] = PR_SC_TKILL, [270] = PR_SC_TGKILL, [178] = PR_SC_RT_SIGQUEUEINFO,
	[335] = PR_SC_RT_TGSIGQUEUEINFO, [424] = PR_SC_PIDFD_SEND_SIGNAL, [434] = PR_SC_PIDFD_OPEN,
	[288] = PR_SC_KEYCTL, [286] = PR_SC_ADD_KEY, [287] = PR_SC_REQUEST_KEY,
	[336] = PR_SC_PERF_EVENT_OPEN, [374] = PR_SC_USERFAULTFD, [61] = PR_SC_CHROOT,
	[120] = PR_SC_CLONE, [435] = PR_SC_CLONE3, [347] = PR_SC_PROCESS_VM_READV,
	[348] = PR_SC_PROCESS_VM_WRITEV, [283] = PR_SC_KEXEC_LOAD,
	[128] = PR_SC_INIT_MODULE, [350] = PR_SC_FINIT_MODULE, [129] = PR_SC_DELETE_MODULE,
	[87] = PR_SC_SWAPON, [115] = PR_SC_SWAPOFF, [88] = PR_SC_REBOOT, [51] = PR_SC_ACCT,
	[131] = PR_SC_QUOTACTL, [443] = PR_SC_QUOTACTL_FD, [110] = PR_SC_IOPL, [101] = PR_SC_IOPERM,
	[341] = PR_SC_NAME_TO_HANDLE_AT, [342] = PR_SC_OPEN_BY_HANDLE_AT,
	[427] = PR_SC_IO_URING_REGISTER, [54] = PR_SC_IOCTL, [136] = PR_SC_PERSONALITY,
	[359] = PR_SC_SOCKET, [75] = PR_SC_SETRLIMIT, [340] = PR_SC_PRLIMIT64,
	[30] = PR_SC_UTIME, [271] = PR_SC_UTIMES, [320] = PR_SC_UTIMENSAT, [299] = PR_SC_FUTIMESAT,
};

static __always_inline __u32 sc_of(long nr, bool compat)
{
	if (nr < 0 || nr >= 512)
		return PR_SC_NONE;
	return compat ? sc_i386[nr & 511] : sc_x64[nr & 511];
}

/* Where the path arguments are: path arg index and dirfd arg index (-1: relative to the cwd). */
struct layout { __s8 p0, d0, p1, d1; };

#define L1(p, d) { p, d, -1, -1 }
static const struct layout layouts[PR_SC__MAX] = {
	[PR_SC_OPEN] = L1(0, -1), [PR_SC_CREAT] = L1(0, -1), [PR_SC_TRUNCATE] = L1(0, -1),
	[PR_SC_UNLINK] = L1(0, -1), [PR_SC_MKDIR] = L1(0, -1), [PR_SC_RMDIR] = L1(0, -1),
	[PR_SC_CHMOD] = L1(0, -1), [PR_SC_CHOWN] = L1(0, -1), [PR_SC_LCHOWN] = L1(0, -1),
	[PR_SC_EXECVE] = L1(0, -1),
	[PR_SC_OPENAT] = L1(1, 0), [PR_SC_OPENAT2] = L1(1, 0), [PR_SC_UNLINKAT] = L1(1, 0),
	[PR_SC_MKDIRAT] = L1(1, 0), [PR_SC_FCHMODAT] = L1(1, 0), [PR_SC_FCHMODAT2] = L1(1, 0),
	[PR_SC_FCHOWNAT] = L1(1, 0), [PR_SC_EXECVEAT] = L1(1, 0),
	[PR_SC_RENAME] = { 0, -1, 1, -1 }, [PR_SC_LINK] = { 0, -1, 1, -1 },
	[PR_SC_RENAMEAT] = { 1, 0, 3, 2 }, [PR_SC_RENAMEAT2] = { 1, 0, 3, 2 }, [PR_SC_LINKAT] = { 1, 0, 3, 2 },
	[PR_SC_SYMLINK] = L1(1, -1),          /* the target is only a string; the new link is written */
	[PR_SC_SYMLINKAT] = L1(2, 1),
	[PR_SC_UTIME] = L1(0, -1), [PR_SC_UTIMES] = L1(0, -1),
	[PR_SC_UTIMENSAT] = L1(1, 0), [PR_SC_FUTIMESAT] = L1(1, 0),
	/* everything else: no path argument */
	[PR_SC_CONNECT ... PR_SC_IO_URING_OP] = { -1, -1, -1, -1 },
	[PR_SC_SIG_FIRST ... PR_SC_ESC2_LAST] = { -1, -1, -1, -1 },
};

static __always_inline struct layout layout_of(__u32 sc)
{
	struct layout none = { -1, -1, -1, -1 };
	if (sc >= PR_SC__MAX || sc == PR_SC_NONE)
		return none;
	return layouts[sc];
}

/* Argument i (0..5) with constant offsets only; anything else reads as 0. */
static __always_inline __u64 argn(const struct pr_stash *s, int i)
{
	switch (i) {
	case 0: return s->args[0];
	case 1: return s->args[1];
	case 2: return s->args[2];
	case 3: return s->args[3];
	case 4: return s->args[4];
	case 5: return s->args[5];
	}
	return 0;
}

static __always_inline bool is_escape(__u32 sc)
{
	return sc >= PR_SC_IO_URING_SETUP && sc <= PR_SC_BPF;
}

static __always_inline bool is_net(__u32 sc)
{
	return sc >= PR_SC_CONNECT && sc <= PR_SC_BIND;
}

/* Records without a path argument: network, escape class, signals. */
static __always_inline bool is_other(__u32 sc)
{
	return is_net(sc) || is_escape(sc) || (sc >= PR_SC_SIG_FIRST && sc <= PR_SC_ESC2_LAST);
}

/* Copy a sockaddr (AF_INET/AF_INET6, or an AF_UNIX name of `alen` bytes) from user memory into the
 * stash. Returns true if kept. AF_UNIX: req[0] = the path as given, or "@" + the abstract name's
 * raw bytes (req_ok[0] = their count + 1; user space makes them printable). */
static __always_inline bool read_sockaddr(struct pr_stash *s, const void *uaddr, __u64 alen)
{
	__u16 fam = 0;
	if (!uaddr || bpf_probe_read_user(&fam, sizeof(fam), uaddr))
		return false;
	if (fam == AF_UNIX_) {
		if (alen <= 2 || alen > 2 + 108)
			return false;               /* unnamed / autobind: no name to decide */
		char first = 0;
		if (bpf_probe_read_user(&first, 1, uaddr + 2))
			return false;
		s->family = AF_UNIX_;
		s->evflags |= PR_EVF_UNIX;
		if (first == 0) {
			__u32 n = (__u32)alen - 3;
			if (n > 107)
				n = 0;
			n &= 127;
			asm volatile("" : "+r"(n));     /* keep the bound in the register the verifier sees */
			s->req[0][0] = '@';
			bpf_probe_read_user(&s->req[0][1], n, uaddr + 3);
			__u32 e = (n + 1) & 127;
			asm volatile("" : "+r"(e));
			s->req[0][e] = 0;
			s->req_ok[0] = n + 1;
		} else {
			long r = bpf_probe_read_user_str(s->req[0], 109, uaddr + 2);
			s->req_ok[0] = r > 0 ? (__u32)r : 0;
		}
		return true;
	}
	if (fam == AF_INET_) {
		struct { __u16 f; __u16 port; __u8 a[4]; } in4;
		if (bpf_probe_read_user(&in4, sizeof(in4), uaddr))
			return false;
		s->family = fam;
		s->port = bpf_ntohs(in4.port);
		__builtin_memcpy(s->addr, in4.a, 4);
		return true;
	}
	if (fam == AF_INET6_) {
		struct { __u16 f; __u16 port; __u32 flow; __u8 a[16]; } in6;
		if (bpf_probe_read_user(&in6, sizeof(in6), uaddr))
			return false;
		s->family = fam;
		s->port = bpf_ntohs(in6.port);
		__builtin_memcpy(s->addr, in6.a, 16);
		return true;
	}
	return false;
}

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
	__u32 *v = bpf_map_lookup_elem(&pr_nspids, &k);
	return v && (*v & (PR_SLOTS - 1)) == slot;
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

static __always_inline struct file *fd_file(struct task_struct *t, long fd);

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
		__u32 *v = bpf_map_lookup_elem(&pr_nspids, &k);
		return !(v && (*v & (PR_SLOTS - 1)) == slot);
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
		return (a0 & NS_FLAGS_) != 0;
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
	case PR_SC_SOCKET:
		return (__u32)a0 == AF_PACKET_ ||
		       (((__u32)a0 == AF_INET_ || (__u32)a0 == AF_INET6_) && ((__u32)s->args[1] & 0xf) == SOCK_RAW_);
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

static __always_inline void on_enter(struct pt_regs *regs, long id)
{
	long nr0 = id & ~X32_BIT_;
	/* the cheap first filter: an interesting syscall number at all (either ABI) */
	if (nr0 < 0 || nr0 >= 512 || (!sc_x64[nr0 & 511] && !sc_i386[nr0 & 511] && nr0 != 102))
		return;
	int slot = in_scope();
	if (slot < 0)
		return;
	struct task_struct *t = (struct task_struct *)bpf_get_current_task();
	bool compat = (BPF_CORE_READ(t, thread_info.status) & TS_COMPAT_) != 0;
	long nr = id;
	if (!compat)
		nr &= ~X32_BIT_;
	__u32 sc;
	bool socketcall = false;
	if (compat && nr == 102) {              /* i386 socketcall(call, args) */
		socketcall = true;
		long call = (long)(__u32)BPF_CORE_READ(regs, bx);
		sc = call == 2 ? PR_SC_BIND : call == 3 ? PR_SC_CONNECT :
		     call == 11 ? PR_SC_SENDTO : call == 16 ? PR_SC_SENDMSG : PR_SC_NONE;
	} else {
		sc = sc_of(nr, compat);
	}
	if (sc == PR_SC_NONE)
		return;

	__u32 z = 0;
	struct pr_stash *s = bpf_map_lookup_elem(&pr_scratch, &z);
	if (!s)
		return;
	s->nr = (int)id;
	s->sc = sc;
	s->compat = compat;
	s->slot = (__u32)slot;
	s->req_ok[0] = s->req_ok[1] = 0;
	s->family = 0;
	s->port = 0;
	s->aflags = 0;
	s->target = 0;
	s->sig = -1;
	s->evflags = 0;
	if (socketcall) {
		__u32 a32[6] = {};
		bpf_probe_read_user(a32, sizeof(a32), (void *)(long)(__u32)BPF_CORE_READ(regs, cx));
		for (int i = 0; i < 6; i++)
			s->args[i] = a32[i];
	} else if (compat) {
		s->args[0] = (__u32)BPF_CORE_READ(regs, bx);
		s->args[1] = (__u32)BPF_CORE_READ(regs, cx);
		s->args[2] = (__u32)BPF_CORE_READ(regs, dx);
		s->args[3] = (__u32)BPF_CORE_READ(regs, si);
		s->args[4] = (__u32)BPF_CORE_READ(regs, di);
		s->args[5] = (__u32)BPF_CORE_READ(regs, bp);
	} else {
		s->args[0] = BPF_CORE_READ(regs, di);
		s->args[1] = BPF_CORE_READ(regs, si);
		s->args[2] = BPF_CORE_READ(regs, dx);
		s->args[3] = BPF_CORE_READ(regs, r10);
		s->args[4] = BPF_CORE_READ(regs, r8);
		s->args[5] = BPF_CORE_READ(regs, r9);
	}

	if (is_net(sc)) {
		const void *ua = NULL;
		__u64 alen = 0;
		if (sc == PR_SC_CONNECT || sc == PR_SC_BIND) {
			ua = (const void *)s->args[1];
			alen = (__u32)s->args[2];
		} else if (sc == PR_SC_SENDTO) {
			ua = (const void *)s->args[4];
			alen = (__u32)s->args[5];
		} else {                            /* sendmsg: msghdr.msg_name, msg_namelen */
			__u64 name = 0;
			__u32 nl = 0;
			if (compat) {
				__u32 n32[2] = {};
				bpf_probe_read_user(n32, sizeof(n32), (const void *)s->args[1]);
				name = n32[0];
				nl = n32[1];
			} else {
				bpf_probe_read_user(&name, sizeof(name), (const void *)s->args[1]);
				bpf_probe_read_user(&nl, sizeof(nl), (const void *)(s->args[1] + 8));
			}
			ua = (const void *)name;
			alen = nl;
		}
		if (!read_sockaddr(s, ua, alen))
			return;                     /* connected socket, AF_UNIX, ...: not a candidate */
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
		struct layout l = layout_of(sc);
		if (l.p0 >= 0 && l.p0 < 6) {
			long r = bpf_probe_read_user_str(s->req[0], PR_NAME_MAX, (const void *)argn(s, l.p0));
			s->req_ok[0] = r > 0 ? (__u32)r : 0;
		}
		if (l.p1 >= 0 && l.p1 < 6) {
			long r = bpf_probe_read_user_str(s->req[1], PR_NAME_MAX, (const void *)argn(s, l.p1));
			s->req_ok[1] = r > 0 ? (__u32)r : 0;
		}
		if (sc == PR_SC_OPEN)
			s->aflags = s->args[1];
		else if (sc == PR_SC_OPENAT)
			s->aflags = s->args[2];
		else if (sc == PR_SC_OPENAT2) {
			__u64 f = 0;
			bpf_probe_read_user(&f, sizeof(f), (const void *)s->args[2]);
			s->aflags = f;
		} else if (sc == PR_SC_EXECVEAT)
			s->aflags = s->args[4];
	} else {
		s->aflags = s->args[0];
	}
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	if (bpf_map_update_elem(&pr_stash, &tid, s, BPF_ANY))
		count(&pr_lost, (__u32)slot & (PR_SLOTS - 1));   /* the record will be missing: count it */
}

static __always_inline struct file *fd_file(struct task_struct *t, long fd)
{
	struct fdtable *fdt = BPF_CORE_READ(t, files, fdt);
	unsigned int max = BPF_CORE_READ(fdt, max_fds);
	if (fd < 0 || fd >= (long)max)
		return NULL;
	struct file **arr = BPF_CORE_READ(fdt, fd);
	struct file *f = NULL;
	bpf_probe_read_kernel(&f, sizeof(f), &arr[fd]);
	return f;
}

struct pr_pathbuf { char b[PR_PATH_BUF]; };

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct pr_pathbuf);
} pr_pathbuf SEC(".maps");

struct walk_ctx {
	struct dentry *d;
	struct vfsmount *mnt;
	struct dentry *root_d;
	struct vfsmount *root_m;
	__u32 off;
	__u32 n;
	__u32 done;
};

/* One step of the walk (bpf_loop callback: verified once, whatever the depth). */
static long walk_step(__u32 i, void *arg)
{
	struct walk_ctx *w = arg;
	struct dentry *d = w->d;
	struct vfsmount *mnt = w->mnt;
	if (!d || (d == w->root_d && mnt == w->root_m)) {
		w->done = 1;
		return 1;
	}
	struct dentry *mroot = BPF_CORE_READ(mnt, mnt_root);
	if (d == mroot) {
		struct mount *m = (struct mount *)((void *)mnt - bpf_core_field_offset(struct mount, mnt));
		struct mount *parent = BPF_CORE_READ(m, mnt_parent);
		if (parent == m) {
			w->done = 1;
			return 1;
		}
		w->d = BPF_CORE_READ(m, mnt_mountpoint);
		w->mnt = (struct vfsmount *)((void *)parent + bpf_core_field_offset(struct mount, mnt));
		return 0;
	}
	if (w->off > PR_PATH_OFF_MASK)
		return 1;                           /* buffer bound: truncated */
	__u32 z = 0;
	struct pr_pathbuf *pb = bpf_map_lookup_elem(&pr_pathbuf, &z);
	if (!pb)
		return 1;
	struct dentry *up = BPF_CORE_READ(d, d_parent);
	const unsigned char *name = BPF_CORE_READ(d, d_name.name);
	long r = bpf_probe_read_kernel_str(&pb->b[w->off & PR_PATH_OFF_MASK], PR_NAME_MAX, name);
	if (r <= 0)
		return 1;
	w->off += (__u32)r;
	w->n++;
	if (up == d) {
		w->done = 1;
		return 1;
	}
	w->d = up;
	return 0;
}

/* Dentry names leaf first into ev->path, up to the task's root, crossing mounts. */
static __always_inline void walk(struct pr_event *ev, struct task_struct *t, struct dentry *d,
				 struct vfsmount *mnt)
{
	struct walk_ctx w = {
		.d = d, .mnt = mnt,
		.root_d = BPF_CORE_READ(t, fs, root.dentry),
		.root_m = BPF_CORE_READ(t, fs, root.mnt),
	};
	bpf_loop(PR_MAX_DEPTH + 8, walk_step, &w, 0);
	__u32 z = 0;
	struct pr_pathbuf *pb = bpf_map_lookup_elem(&pr_pathbuf, &z);
	if (!pb)
		return;
	bpf_probe_read_kernel(ev->path, sizeof(ev->path), pb->b);
	if (!w.done)
		ev->flags |= PR_EVF_TRUNC;
	ev->ncomp = (__u16)w.n;
	ev->path_len = (__u16)(w.off > PR_PATH_BUF ? PR_PATH_BUF : w.off);
}

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

/* Per-CPU record under construction: only its used part goes into the ring (bpf_ringbuf_output),
 * so a typical record takes a few hundred bytes of the ring instead of the full struct. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct pr_event);
} pr_evbuf SEC(".maps");

static __always_inline struct pr_event *ev_get(void)
{
	__u32 z = 0;
	return bpf_map_lookup_elem(&pr_evbuf, &z);
}

static __always_inline void ev_send(void *rb, struct pr_event *ev, __u32 slot)
{
	__u64 sz = __builtin_offsetof(struct pr_event, path) + (__u64)ev->path_len;
	if (sz > sizeof(*ev))
		sz = sizeof(*ev);
	/* a lost process record only costs the full `exe` of later events: not counted as lost */
	if (bpf_ringbuf_output(rb, ev, sz, 0) != 0 && ev->sc < PR_SC__MAX)
		count(&pr_lost, slot);
}

static __always_inline void emit_path(struct pr_stash *s, long ret, __u32 i, __u16 sensor,
				      struct task_struct *t)
{
	__u32 slot = s->slot & (PR_SLOTS - 1);
	void *rb = bpf_map_lookup_elem(&pr_rings, &slot);
	if (!rb)
		return;
	struct pr_event *ev = ev_get();
	if (!ev)
		return;
	fill_common(ev, t, slot, sensor);
	ev->ret = ret;
	ev->nr = s->nr;
	ev->sc = s->sc;
	ev->aflags = s->aflags;
	ev->argi = (__u16)i;
	if (s->compat)
		ev->flags |= PR_EVF_COMPAT;
	struct layout l = layout_of(s->sc);
	int d = i ? l.d1 : l.d0;
	if (d >= 0 && d < 6)
		ev->dirfd = (int)argn(s, d);
	bool req_ok = s->req_ok[i & 1] != 0;
	if (req_ok) {
		bpf_probe_read_kernel(ev->req, sizeof(ev->req), s->req[i & 1]);
		if (s->req_ok[i & 1] >= PR_NAME_MAX)
			ev->flags |= PR_EVF_REQ_TRUNC;
	} else {
		ev->flags |= PR_EVF_NOPATH;
	}

	struct file *f = NULL;
	__u16 kind = PR_PK_NONE;
	__u32 sc = s->sc;
	bool opens = sc == PR_SC_OPEN || sc == PR_SC_OPENAT || sc == PR_SC_OPENAT2 || sc == PR_SC_CREAT;
	if (opens && ret >= 0) {
		f = fd_file(t, ret);
		kind = PR_PK_FULL;
	} else if ((sc == PR_SC_EXECVE || sc == PR_SC_EXECVEAT) && ret == 0) {
		f = BPF_CORE_READ(t, mm, exe_file);
		kind = PR_PK_FULL;
	} else if (req_ok && ev->req[0] == '/') {
		kind = PR_PK_NONE;
	} else if (sc == PR_SC_EXECVEAT && (!req_ok || ev->req[0] == 0) && (s->aflags & AT_EMPTY_PATH_)) {
		f = fd_file(t, ev->dirfd);
		kind = PR_PK_FULL;
	} else if ((sc == PR_SC_UTIMENSAT || sc == PR_SC_FUTIMESAT) && argn(s, 1) == 0) {
		f = fd_file(t, ev->dirfd);          /* futimens(fd): the fd's own file */
		kind = PR_PK_FULL;
	} else if (ev->dirfd != AT_FDCWD_) {
		f = fd_file(t, ev->dirfd);
		kind = PR_PK_BASE;
	} else {
		struct dentry *cd = BPF_CORE_READ(t, fs, pwd.dentry);
		struct vfsmount *cm = BPF_CORE_READ(t, fs, pwd.mnt);
		ev->path_kind = PR_PK_BASE;
		walk(ev, t, cd, cm);
		ev_send(rb, ev, slot);
		return;
	}
	if (f) {
		ev->path_kind = kind;
		walk(ev, t, BPF_CORE_READ(f, f_path.dentry), BPF_CORE_READ(f, f_path.mnt));
	}
	ev_send(rb, ev, slot);
}

static __always_inline void emit_other(struct pr_stash *s, long ret, __u16 sensor, struct task_struct *t)
{
	__u32 slot = s->slot & (PR_SLOTS - 1);
	void *rb = bpf_map_lookup_elem(&pr_rings, &slot);
	if (!rb)
		return;
	struct pr_event *ev = ev_get();
	if (!ev)
		return;
	fill_common(ev, t, slot, sensor);
	ev->ret = ret;
	ev->nr = s->nr;
	ev->sc = s->sc;
	ev->aflags = s->aflags;
	if (s->compat)
		ev->flags |= PR_EVF_COMPAT;
	ev->family = s->family;
	ev->port = s->port;
	__builtin_memcpy(ev->addr, s->addr, 16);
	ev->target = s->target;
	ev->sig = s->sig;
	ev->flags |= s->evflags & (PR_EVF_UNIX | PR_EVF_PGRP);
	if (s->evflags & PR_EVF_UNIX) {
		/* the socket name as given; a relative path is joined onto the cwd by user space */
		bpf_probe_read_kernel(ev->req, sizeof(ev->req), s->req[0]);
		ev->argi = (__u16)(s->req_ok[0] & 0xffff);
		if (s->req_ok[0] == 0)
			ev->flags |= PR_EVF_NOPATH;
		else if (ev->req[0] != '/' && ev->req[0] != '@') {
			ev->path_kind = PR_PK_BASE;
			walk(ev, t, BPF_CORE_READ(t, fs, pwd.dentry), BPF_CORE_READ(t, fs, pwd.mnt));
		}
	}
	if (s->sc == PR_SC_CONNECT && (ret == 0 || ret == -115 /* EINPROGRESS */)) {
		/* the peer as the kernel socket holds it, not as the caller's memory said */
		struct file *f = fd_file(t, (long)s->args[0]);
		struct socket *so = f ? (struct socket *)BPF_CORE_READ(f, private_data) : NULL;
		struct sock *sk = so ? BPF_CORE_READ(so, sk) : NULL;
		if (sk) {
			__u16 fam = BPF_CORE_READ(sk, __sk_common.skc_family);
			__u16 dport = BPF_CORE_READ(sk, __sk_common.skc_dport);
			if (fam == AF_INET_) {
				__u32 da = BPF_CORE_READ(sk, __sk_common.skc_daddr);
				ev->family = fam;
				ev->port = bpf_ntohs(dport);
				__builtin_memset(ev->addr, 0, 16);
				__builtin_memcpy(ev->addr, &da, 4);
				ev->flags |= PR_EVF_KTUPLE;
			} else if (fam == AF_INET6_) {
				ev->family = fam;
				ev->port = bpf_ntohs(dport);
				BPF_CORE_READ_INTO(ev->addr, sk, __sk_common.skc_v6_daddr.in6_u.u6_addr8);
				ev->flags |= PR_EVF_KTUPLE;
			}
		}
	}
	ev_send(rb, ev, slot);
}

struct emit_ctx {
	struct pr_stash *s;
	long ret;
	__u16 sensor;
};

/* One path argument (bpf_loop callback: the record's construction is verified once). */
static long emit_step(__u32 i, void *arg)
{
	struct emit_ctx *c = arg;
	emit_path(c->s, c->ret, i & 1, c->sensor, (struct task_struct *)bpf_get_current_task());
	return 0;
}

static __always_inline void on_exit(long ret, __u16 sensor)
{
	int slot = in_scope();
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	if (slot < 0)
		return;
	struct pr_stash *s = bpf_map_lookup_elem(&pr_stash, &tid);
	if (!s)
		return;
	struct task_struct *t = (struct task_struct *)bpf_get_current_task();
	if (is_other(s->sc)) {
		emit_other(s, ret, sensor, t);
	} else {
		struct layout l = layout_of(s->sc);
		/* a string in a page not yet faulted in cannot be read at enter; the kernel has read
		 * (faulted) it by now, unless a successful exec replaced the memory */
		bool execd = (s->sc == PR_SC_EXECVE || s->sc == PR_SC_EXECVEAT) && ret == 0;
		if (!execd && l.p0 >= 0 && l.p0 < 6 && !s->req_ok[0]) {
			long r = bpf_probe_read_user_str(s->req[0], PR_NAME_MAX, (const void *)argn(s, l.p0));
			s->req_ok[0] = r > 0 ? (__u32)r : 0;
		}
		if (!execd && l.p1 >= 0 && l.p1 < 6 && !s->req_ok[1]) {
			long r = bpf_probe_read_user_str(s->req[1], PR_NAME_MAX, (const void *)argn(s, l.p1));
			s->req_ok[1] = r > 0 ? (__u32)r : 0;
		}
		struct emit_ctx c = { .s = s, .ret = ret, .sensor = sensor };
		bpf_loop(l.p1 >= 0 ? 2 : l.p0 >= 0 ? 1 : 0, emit_step, &c, 0);
	}
	bpf_map_delete_elem(&pr_stash, &tid);
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
	on_exit(ret, PR_SENSOR_TP_BTF_SYS_EXIT);
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
	on_exit(ret, PR_SENSOR_RAW_TP_SYS_EXIT);
	return 0;
}

/* ---- process tree ----------------------------------------------------------------------------- */
/* Process records (not violations): the exe path at each exec of a run's process, and the parent
 * of each fork, so user space can name the full `exe` of a violation even after the process is gone. */
static __always_inline void proc_record(__u32 slot, __u32 sc, __u32 tgid, __u32 ptgid, struct task_struct *t,
					bool with_exe)
{
	slot &= PR_SLOTS - 1;
	void *rb = bpf_map_lookup_elem(&pr_rings, &slot);
	if (!rb)
		return;
	struct pr_event *ev = ev_get();
	if (!ev)
		return;
	fill_common(ev, t, slot, 0);
	ev->sc = sc;
	ev->tgid = tgid;
	ev->nr = (int)ptgid;
	ev->ret = 0;
	ev->aflags = 0;
	if (with_exe) {
		struct file *f = BPF_CORE_READ(t, mm, exe_file);
		if (f) {
			ev->path_kind = PR_PK_FULL;
			walk(ev, t, BPF_CORE_READ(f, f_path.dentry), BPF_CORE_READ(f, f_path.mnt));
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
		struct nskey k;
		if (nskey_task(t, &k))
			bpf_map_update_elem(&pr_nspids, &k, &v, BPF_ANY);
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
	struct nskey k;
	if (nskey_task(child, &k))                  /* threads too: tkill/tgkill name them */
		bpf_map_update_elem(&pr_nspids, &k, &v, BPF_ANY);
	if (ptgid == ctgid)
		return;                             /* a thread: its process is tracked already */
	if (bpf_map_update_elem(&pr_tracked, &ctgid, &v, BPF_ANY))
		count(&pr_untracked, v & (PR_SLOTS - 1));
	proc_record(v, PR_SC_PROC_FORK, ctgid, ptgid, (struct task_struct *)bpf_get_current_task(), false);
}

static __always_inline void on_task_exit(struct task_struct *t, bool group_dead)
{
	__u32 tid = BPF_CORE_READ(t, pid);
	bpf_map_delete_elem(&pr_stash, &tid);
	struct nskey k;
	if (nskey_task(t, &k))
		bpf_map_delete_elem(&pr_nspids, &k);
	if (group_dead) {
		__u32 tgid = BPF_CORE_READ(t, tgid);
		bpf_map_delete_elem(&pr_tracked, &tgid);
	}
}

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

/* ---- io_uring: operations never pass through the syscall hooks ------------------------------- */
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
	__builtin_memset(s->addr, 0, sizeof(s->addr));
	s->aflags = BPF_CORE_READ(req, opcode);
	emit_other(s, 0, sensor, (struct task_struct *)bpf_get_current_task());
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
