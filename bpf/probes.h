/* probes.h — the records shared by bpf/probes.bpf.c and the supervisor (supervisor/probes_*.c).
 *
 * Promise: one record per observed candidate syscall argument — struct pr_event cut after the used
 * part of path[] (offsetof(path) + path_len bytes; user space copies it into a zeroed struct), or
 * whole when it carries a long requested string (PR_EVF_REQ_LONG) (a path, an address, or
 * an escape-class call), written into the run's ring buffer at syscall exit. The kernel side only
 * collects facts (numbers, the string as given, dentry names, the copied sockaddr, the return
 * value); every policy decision is taken in user space with the compiled policy, except the
 * allowed opens the kernel can prove allowed from the run's compiled grants ("In-kernel decisions"
 * below): those send no record.
 *
 * Path encoding (path[]): dentry names *leaf first*, each NUL-terminated, `ncomp` of them, as
 * found by a bounded walk up the dentry tree (mount crossings followed via struct mount) until the
 * task's root. `path_kind` says what was walked:
 *   PR_PK_NONE  nothing walked (req is absolute, or no path argument)
 *   PR_PK_FULL  the object itself (the file of the returned fd, the new exe, the dirfd's file for
 *               AT_EMPTY_PATH): path is complete, req is informational
 *   PR_PK_BASE  the directory a relative req is resolved against (dirfd's file or the cwd); user
 *               space joins req onto it lexically (pol_normalize)
 * PR_EVF_TRUNC is set when the walk hit PR_MAX_DEPTH or the buffer bound (user space: undecidable).
 * PR_EVF_DETACHED is set when the walk ended without meeting the task's root: an object of an
 * internal file system (pipe, socket, anon inode, nsfs, pidfs, memfd: fsmagic says which) or of a
 * mount outside the task's tree. PR_EVF_PSEUDO: the object's name is made up by the kernel
 * (dentry d_dname: "pipe:[n]", "socket:[n]", "net:[n]", "anon_inode:[x]") — it has no path, as
 * the preload's readlink of /proc/self/fd/N shows, and no file-system rule applies to it.
 */
#ifndef SBX_BPF_PROBES_H
#define SBX_BPF_PROBES_H

#define PR_SLOTS       64        /* concurrent runs sharing one pinned program set */
#define PR_RB_SIZE     (8u << 20) /* per run: ~16 000 records of a flood (a record is ~500 bytes);
				   * mapped twice by the consumer (its RSS grows as the ring fills) */
#define PR_RB_RESERVE  (PR_RB_SIZE / 4) /* the last quarter: only records of calls that did not
				   * fail (breach candidates) and process records (record.bpf.h) */
#define PR_MAX_DEPTH   2048      /* walk steps (bpf_loop; a walk stops at the root, so only real depth costs) */
#define PR_NAME_MAX    256       /* one dentry name incl. NUL, and one requested string */
#define PR_PATH_BUF    4352      /* PR_PATH_OFF_MASK + 1 + PR_NAME_MAX: PATH_MAX of names */
#define PR_PATH_OFF_MASK 4095
#define PR_EXE_MAX     64
#define PR_REQ_MAX     4096      /* PATH_MAX: a requested string longer than PR_NAME_MAX - 1 bytes is
				  * read again in full at exit (req_long, PR_EVF_REQ_LONG) */

/* Internal syscall ids (architecture independent). Keep in step with pr_sc_name(). */
enum pr_sc {
	PR_SC_NONE = 0,
	PR_SC_OPEN, PR_SC_OPENAT, PR_SC_OPENAT2, PR_SC_CREAT, PR_SC_TRUNCATE,
	PR_SC_RENAME, PR_SC_RENAMEAT, PR_SC_RENAMEAT2, PR_SC_UNLINK, PR_SC_UNLINKAT,
	PR_SC_MKDIR, PR_SC_MKDIRAT, PR_SC_RMDIR, PR_SC_LINK, PR_SC_LINKAT, PR_SC_SYMLINK,
	PR_SC_SYMLINKAT, PR_SC_CHMOD, PR_SC_FCHMODAT, PR_SC_FCHMODAT2, PR_SC_CHOWN, PR_SC_LCHOWN,
	PR_SC_FCHOWNAT, PR_SC_EXECVE, PR_SC_EXECVEAT,
	PR_SC_CONNECT, PR_SC_SENDTO, PR_SC_SENDMSG, PR_SC_BIND,
	PR_SC_IO_URING_SETUP, PR_SC_IO_URING_ENTER, PR_SC_PTRACE, PR_SC_MOUNT, PR_SC_UMOUNT2,
	PR_SC_OPEN_TREE, PR_SC_MOVE_MOUNT, PR_SC_FSOPEN, PR_SC_FSCONFIG, PR_SC_FSMOUNT, PR_SC_FSPICK,
	PR_SC_MOUNT_SETATTR, PR_SC_PIVOT_ROOT, PR_SC_UNSHARE, PR_SC_SETNS, PR_SC_BPF,
	PR_SC_IO_URING_OP,            /* io_uring:io_uring_submit_req (not a syscall) */
	/* signals to processes (a violation when the target is outside the run; decided in BPF) */
	PR_SC_KILL, PR_SC_TKILL, PR_SC_TGKILL, PR_SC_RT_SIGQUEUEINFO, PR_SC_RT_TGSIGQUEUEINFO,
	PR_SC_PIDFD_SEND_SIGNAL, PR_SC_PIDFD_OPEN,
	/* the seccomp deny list: escape class (filtered by argument in BPF where the SPEC says so) */
	PR_SC_KEYCTL, PR_SC_ADD_KEY, PR_SC_REQUEST_KEY, PR_SC_PERF_EVENT_OPEN, PR_SC_USERFAULTFD,
	PR_SC_CHROOT, PR_SC_CLONE, PR_SC_CLONE3, PR_SC_PROCESS_VM_READV, PR_SC_PROCESS_VM_WRITEV,
	PR_SC_KEXEC_LOAD, PR_SC_KEXEC_FILE_LOAD, PR_SC_INIT_MODULE, PR_SC_FINIT_MODULE,
	PR_SC_DELETE_MODULE, PR_SC_SWAPON, PR_SC_SWAPOFF, PR_SC_REBOOT, PR_SC_ACCT, PR_SC_QUOTACTL,
	PR_SC_QUOTACTL_FD, PR_SC_IOPL, PR_SC_IOPERM, PR_SC_NAME_TO_HANDLE_AT, PR_SC_OPEN_BY_HANDLE_AT,
	PR_SC_IO_URING_REGISTER, PR_SC_IOCTL, PR_SC_PERSONALITY, PR_SC_SOCKET, PR_SC_SETRLIMIT,
	PR_SC_PRLIMIT64,
	/* more path (write) calls */
	PR_SC_UTIME, PR_SC_UTIMES, PR_SC_UTIMENSAT, PR_SC_FUTIMESAT,
	/* the rest of the write-class family (issue 15), reads of metadata, watches */
	PR_SC_MKNOD, PR_SC_MKNODAT, PR_SC_SETXATTR, PR_SC_LSETXATTR, PR_SC_REMOVEXATTR,
	PR_SC_LREMOVEXATTR, PR_SC_GETXATTR, PR_SC_LGETXATTR, PR_SC_LISTXATTR, PR_SC_LLISTXATTR,
	PR_SC_FCHMOD, PR_SC_FCHOWN, PR_SC_FTRUNCATE, PR_SC_FSETXATTR, PR_SC_FREMOVEXATTR,
	PR_SC_INOTIFY_ADD_WATCH, PR_SC_FANOTIFY_MARK,
	PR_SC_SENDMMSG,               /* a network call (the first message's name) */
	PR_SC__MAX
};
/* Process records (never violations): exec (path = the new exe) and fork (nr = parent tgid). */
#define PR_SC_PROC_EXEC 200u
#define PR_SC_PROC_FORK 201u

enum pr_path_kind { PR_PK_NONE = 0, PR_PK_FULL = 1, PR_PK_BASE = 2 };

enum pr_sensor {
	PR_SENSOR_TP_BTF_SYS_EXIT = 1,
	PR_SENSOR_RAW_TP_SYS_EXIT = 2,
	PR_SENSOR_TP_BTF_IO_URING = 3,
	PR_SENSOR_RAW_TP_IO_URING = 4,
};

/* io_uring records (PR_SC_IO_URING_OP): aflags = opcode (bits 0..7) | the op's open flags (bits
 * 8..39, openat/openat2); with PR_EVF_URING_OBJ the record names the op's object like a syscall
 * twin: openat/openat2 — req = the kernel's own copy of the name (struct filename, read at submit:
 * it cannot be raced), dirfd, path_kind as for openat; connect — family, port, addr (IPv4/IPv6;
 * other families: the op alone) from the kernel's copy when found, else read at submit from the
 * submitter's memory (a second thread could rewrite it after the kernel's copy); an fd op (read, write, readv, writev,
 * read_fixed, write_fixed, splice, sendmsg, recvmsg, send, recv, fsync, fallocate...) — the fd's
 * file walked (PR_PK_FULL). */
#define PR_URING_OP_SHIFT 8

#define PR_EVF_TRUNC   0x1u   /* path walk truncated */
#define PR_EVF_COMPAT  0x2u   /* 32-bit (int 0x80 / ia32) syscall */
#define PR_EVF_REQ_TRUNC 0x4u /* requested string did not fit */
#define PR_EVF_NOPATH  0x8u   /* the path argument could not be read from user memory */
#define PR_EVF_KTUPLE  0x10u  /* connect: addr/port read from the kernel socket at exit */
#define PR_EVF_UNIX    0x20u  /* network call on an AF_UNIX address: req = the path, or "@name" */
#define PR_EVF_PGRP    0x40u  /* signal: the target is a process group (or -1: every process) */
#define PR_EVF_ABSTRACT 0x80u /* AF_UNIX: an abstract name (req = "@" + raw bytes); else a path */
#define PR_EVF_DETACHED 0x100u /* the walk ended outside the task's root (see "Path encoding") */
#define PR_EVF_PSEUDO  0x200u  /* the walked object has no path: a kernel-made name (d_dname) */
#define PR_EVF_REQ_LONG 0x400u /* with REQ_TRUNC: req_long holds the whole requested string, read
				* again at exit (user space checks it begins with req, read at enter) */
#define PR_EVF_RACED   0x800u  /* the kernel's own copy of the name (struct filename, seen when the
				* call freed it) differs from req, read at enter: kname holds the
				* kernel's; the record is sent whole (a second thread rewrote the buffer) */
#define PR_EVF_URING_OBJ 0x1000u /* an io_uring record naming its object (see io_uring records) */

/* First and last ids of the classes (keep in step with enum pr_sc). */
#define PR_SC_SIG_FIRST PR_SC_KILL
#define PR_SC_SIG_LAST  PR_SC_PIDFD_OPEN
#define PR_SC_ESC2_FIRST PR_SC_KEYCTL
#define PR_SC_ESC2_LAST  PR_SC_PRLIMIT64

struct pr_event {
	unsigned long long ts;       /* bpf_ktime_get_ns */
	long long ret;               /* syscall return value (io_uring op: 0) */
	unsigned int pid;            /* thread id (global) */
	unsigned int tgid;           /* process id (global) */
	unsigned int slot;           /* run slot */
	unsigned int nspid;          /* thread id in the task's own pid namespace (for /proc/<n>) */
	unsigned int nstgid;         /* process id in the task's own pid namespace */
	unsigned int sc;             /* enum pr_sc */
	int nr;                      /* raw syscall number as seen (i386 number when compat) */
	unsigned int flags;          /* PR_EVF_* */
	unsigned long long aflags;   /* open flags (bits 32..47: the creation mode) / chmod and mknod
				      * mode / unshare flags / execveat flags / io_uring opcode */
	int dirfd;                   /* as given (AT_FDCWD = -100) */
	unsigned short argi;         /* which path argument of the syscall (0 or 1) */
	unsigned short sensor;       /* enum pr_sensor */
	unsigned short path_kind;    /* enum pr_path_kind */
	unsigned short ncomp;        /* components in path[] */
	unsigned short path_len;     /* bytes used in path[] */
	unsigned short family;       /* AF_INET / AF_INET6 for network calls, else 0 */
	unsigned short port;         /* host order */
	unsigned short pad;
	unsigned char addr[16];      /* network order */
	int target;                  /* signals: the target pid as given (pidfd_send_signal: the pidfd's
				      * pid as numbered in the caller's namespace); escape class: arg 0 */
	int sig;                     /* signals: the signal number (-1: none, pidfd_open) */
	unsigned int fsmagic;        /* s_magic of the walked object's file system (0: none walked) */
	unsigned int pad2;
	unsigned long long okey;     /* identity of the walked object (dentry, mount): overflow key only */
	char comm[16];
	char exe[PR_EXE_MAX];        /* basename of the task's exe (dentry name) */
	char req[PR_NAME_MAX];       /* the string as given */
	char path[PR_PATH_BUF];
	char req_long[PR_REQ_MAX];   /* PR_EVF_REQ_LONG only: the whole string (a record that has it is
				      * sent whole, sizeof(struct pr_event); others are cut after path) */
	char kname[PR_NAME_MAX];     /* PR_EVF_RACED only: the name the kernel used (its first
				      * PR_NAME_MAX - 1 bytes) */
};

/* Per-thread argument stash, kept from sys_enter to sys_exit. */
struct pr_stash {
	unsigned long long args[6];
	int nr;
	unsigned int sc;
	unsigned int compat;
	unsigned int slot;
	unsigned int req_ok[2];      /* bpf_probe_read_user_str result > 0 */
	unsigned short family;
	unsigned short port;
	unsigned char addr[16];
	unsigned long long aflags;
	int target;                  /* signals: see pr_event.target */
	int sig;
	unsigned int evflags;        /* PR_EVF_* decided at enter (PR_EVF_UNIX, PR_EVF_PGRP) */
	unsigned int live;           /* task-storage stash (tp_btf tier): holds the call in progress */
	unsigned int kname_ok[2];    /* bytes of kname[i] incl. NUL (0: the kernel's copy not seen) */
	char req[2][PR_NAME_MAX];
	char kname[2][PR_NAME_MAX];  /* the kernel's copy of path argument i (names.bpf.h) */
};

/* Ring overflow, counted exactly (bpf/probes/record.bpf.h): a record the ring cannot take is
 * counted under a key of everything that decides it (slot, syscall, flags, failed-or-not and errno,
 * access flags, address, signal target, the walked object, the requested string); the first such
 * record is kept as the sample user space decides for all of them. Only when this map is full is a
 * record lost (pr_lost; pr_lost_ok also counts it when its call did not fail or its result is
 * unknown). Identical records get one key; a 64-bit hash collision of two different ones would
 * merge them (not seen; documented). */
#define PR_OVF_MAX 1024
struct pr_ovf_key { unsigned int slot; unsigned int pad; unsigned long long h; };
struct pr_ovf { unsigned long long count, first_ts, last_ts; struct pr_event ev; };

/* Per slot: the run's processes alive now and whether its command started (its armed exec): when
 * started and none is alive, nothing more can be recorded and the overflow counts are final. */
struct pr_live { long long live; unsigned long long started; };

/* In-kernel decisions (bpf/probes/decide.bpf.h). Per run slot, user space (probes_kdec.c) compiles
 * the policy's grants into:
 *   pr_safe   (slot, dev, ino) of a directory or file S -> the accesses (PR_KD_READ / PR_KD_WRITE)
 *             that pol_path grants for S and for every path below S, and S's path in the walk's
 *             encoding (names leaf first, each NUL-terminated) so the kernel can check that the
 *             object was reached through S's own path (a bind mount of S elsewhere is not S);
 *   pr_leaves (slot, basename) of the floating deny/grant globs "**" "/NAME": a path whose last
 *             component is NAME is never decided in the kernel;
 *   pr_kdec   slot -> on, whether a basename longer than PR_KD_LEAF - 1 must go to user space, and
 *             a bitmap with the bit pr_kd_bit(dev, ino) set for each of the slot's pr_safe keys
 *             (the walk looks a directory up in pr_safe only when its bit is set: a clear bit
 *             only ever means "not granted here", so a stale or torn bitmap can send a record to
 *             user space, never allow one).
 * A successful open whose file lies below such an S (walk complete, reaching the task's root, path
 * checked) for an access S grants is allowed in the kernel: no record, counted in pr_kallow. Every
 * other record crosses the ring as before and user space decides it. */
#define PR_KD_READ   1u
#define PR_KD_WRITE  2u
#define PR_KD_ENC    256        /* S's encoded path bound (bytes, incl. the NULs) */
#define PR_KD_LEAF   32         /* basename key bound (incl. NUL) */
#define PR_KD_MAX    16384      /* pr_safe / pr_leaves entries (all runs; not preallocated) */
struct pr_safe_key { unsigned int slot; unsigned int dev; unsigned long long ino; };
struct pr_safe { unsigned int access; unsigned int len; char enc[PR_KD_ENC]; };
struct pr_leaf_key { unsigned int slot; char name[PR_KD_LEAF]; };
#define PR_KD_BITS   4096       /* bits of pr_kdec.safe_bits */
struct pr_kdec { unsigned int on; unsigned int long_leaf; unsigned char safe_bits[PR_KD_BITS / 8]; };
static inline unsigned int pr_kd_bit(unsigned int dev, unsigned long long ino)
{
	return (unsigned int)(((ino * 0x9E3779B97F4A7C15ull) ^ dev) >> 52) & (PR_KD_BITS - 1);
}

/* Global config (array map, key 0). */
struct pr_config {
	unsigned int pidmode_runs;   /* runs with no cgroup filter: the tracked lookup is always done */
	unsigned int abi;            /* PR_ABI of the sbxsup that pinned the set (user space only) */
};

/* Layout version of the records and maps: a pinned set from another layout is not used. */
#define PR_ABI_VERSION_NUM 9        /* also names the automatic shared set's pin directory */
#define PR_ABI_VERSION ((unsigned int)PR_ABI_VERSION_NUM)
#define PR_ABI ((PR_ABI_VERSION << 16) | (unsigned int)(sizeof(struct pr_event) & 0xffffu))

#endif
