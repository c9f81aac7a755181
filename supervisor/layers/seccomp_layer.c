/* seccomp_layer.c — the seccomp layer (see seccomp_layer.h for the promise).
 *
 * The filter: default allow; every entry of deny_table[] is denied with its errno. When the kernel
 * and libseccomp have user notification with TSYNC (API level >= 6), a "reported" entry is routed to
 * the supervisor with SCMP_ACT_NOTIFY: the supervisor (sbx_seccomp_handle) answers with the entry's
 * errno and writes `seccomp.deny`. Entries marked silent (clone3) always use SCMP_ACT_ERRNO:
 * glibc's pthread_create/posix_spawn try clone3 first and fall back to clone on ENOSYS, so reporting
 * them would be noise on every thread start (clone with namespace flags is still caught on the
 * fallback path).
 *
 * Foreign architectures: no other arch is added to the filter, so every i386 (int 0x80) or x32
 * syscall hits the bad-arch action. libseccomp 2.5.4 accepts SCMP_ACT_NOTIFY as the bad-arch action
 * (checked on this host), so those calls reach the supervisor too and are refused with EPERM and
 * reported as "<arch>:<name>". Without notification the bad-arch action is ERRNO(EPERM), unreported.
 *
 * Exec gate (escape finding 1; sbx_seccomp_install_opts with deny_exec, i.e. no code:exec): execve
 * and execveat are notified too; the supervisor lets the first one continue (the stage starting the
 * command: nothing else carries the filter at that point) and refuses every later one with EACCES,
 * reported. This also closes what Landlock cannot: `ld.so PROGRAM` through the granted loader.
 * The state ("first exec spent") is the caller's (struct sbx_seccomp_state), one per filter.
 *
 * Never hangs: the listener is close-on-exec (the executor cannot answer its own notifications);
 * if the supervisor dies, the kernel fails every notified call with ENOSYS.
 */
#include "seccomp_layer.h"
#include "seccomp_notify.h"
#include "seccomp_unix.h"
#include "exec_kills.h"
#include "kviolation.h"
#include "layer.h"
#include "msg.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <seccomp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <linux/sched.h>
#include <netinet/in.h>
#include <unistd.h>

#ifndef CLONE_NEWTIME
#define CLONE_NEWTIME 0x00000080
#endif
#ifndef TIOCSTI
#define TIOCSTI 0x5412
#endif
#ifndef TIOCLINUX
#define TIOCLINUX 0x541C
#endif
#define X32_SYSCALL_BIT 0x40000000u
#ifndef SECCOMP_USER_NOTIF_FLAG_CONTINUE
#define SECCOMP_USER_NOTIF_FLAG_CONTINUE (1UL << 0)
#endif

/* When an entry applies. */
enum sc_when {
	W_ALWAYS = 0,
	W_CLONE_NS,        /* clone(flags, ...): flags holds any CLONE_NEW* (not NEWTIME: low byte = signal) */
	W_UNSHARE_NS,      /* unshare(flags): flags holds any CLONE_NEW* */
	W_IOCTL_INJECT,    /* ioctl(fd, TIOCSTI or TIOCLINUX) — compared on the low 32 bits */
	W_PERSONALITY,     /* personality(p) with p not PER_LINUX (0) and not the 0xffffffff query */
	W_SOCKET,          /* socket/socketpair: the family/type/protocol allowlist (pol_socket_ok) */
	W_SETRLIMIT,       /* setrlimit(res, new): notify only (raising above the run's limit) */
	W_PRLIMIT,         /* prlimit64(pid, res, new != NULL, ...): notify only */
	W_EXEC_GATE,       /* execve/execveat, only with opts.deny_exec, report_files or deny_files (notify) */
	W_NET,             /* connect/bind: opts.net_notify and user notification */
	W_SENDTO,          /* sendto with a destination: opts.net_notify and user notification */
	W_SENDMSG,         /* sendmsg/sendmmsg (the peer is in memory): opts.net_notify, notification */
	W_FILES,           /* open/openat/openat2/creat and the write class: opts.report_files or
			    * opts.deny_files, and user notification */
	W_META,            /* metadata changes and watches: opts.meta_notify and user notification */
	W_SIGNAL,          /* kill/tkill/tgkill/rt_[tg]sigqueueinfo/pidfd_open naming a pid >= 0: the
			    * report-only sensor only (signals outside the run, seccomp_notify.h) */
};

struct sc_rule {
	const char *name;
	int err;
	enum sc_when when;
	bool silent;       /* always SCMP_ACT_ERRNO, never reported */
};

static const struct sc_rule deny_table[] = {
	{"ptrace", EPERM, W_ALWAYS, false},
	{"process_vm_readv", EPERM, W_ALWAYS, false},
	{"process_vm_writev", EPERM, W_ALWAYS, false},
	{"mount", EPERM, W_ALWAYS, false},
	{"umount", EPERM, W_ALWAYS, false},
	{"umount2", EPERM, W_ALWAYS, false},
	{"move_mount", EPERM, W_ALWAYS, false},
	{"open_tree", EPERM, W_ALWAYS, false},
	{"fsopen", EPERM, W_ALWAYS, false},
	{"fsconfig", EPERM, W_ALWAYS, false},
	{"fsmount", EPERM, W_ALWAYS, false},
	{"fspick", EPERM, W_ALWAYS, false},
	{"mount_setattr", EPERM, W_ALWAYS, false},
	{"pivot_root", EPERM, W_ALWAYS, false},
	{"chroot", EPERM, W_ALWAYS, false},
	{"bpf", EPERM, W_ALWAYS, false},
	{"perf_event_open", EPERM, W_ALWAYS, false},
	{"kexec_load", EPERM, W_ALWAYS, false},
	{"kexec_file_load", EPERM, W_ALWAYS, false},
	{"init_module", EPERM, W_ALWAYS, false},
	{"finit_module", EPERM, W_ALWAYS, false},
	{"delete_module", EPERM, W_ALWAYS, false},
	{"keyctl", EPERM, W_ALWAYS, false},
	{"add_key", EPERM, W_ALWAYS, false},
	{"request_key", EPERM, W_ALWAYS, false},
	{"userfaultfd", EPERM, W_ALWAYS, false},
	{"unshare", EPERM, W_UNSHARE_NS, false},
	{"clone", EPERM, W_CLONE_NS, false},
	{"clone3", ENOSYS, W_ALWAYS, true},
	{"setns", EPERM, W_ALWAYS, false},
	{"swapon", EPERM, W_ALWAYS, false},
	{"swapoff", EPERM, W_ALWAYS, false},
	{"reboot", EPERM, W_ALWAYS, false},
	{"acct", EPERM, W_ALWAYS, false},
	{"quotactl", EPERM, W_ALWAYS, false},
	{"quotactl_fd", EPERM, W_ALWAYS, false},
	{"iopl", EPERM, W_ALWAYS, false},
	{"ioperm", EPERM, W_ALWAYS, false},
	{"name_to_handle_at", EPERM, W_ALWAYS, false},
	{"open_by_handle_at", EPERM, W_ALWAYS, false},
	{"io_uring_setup", ENOSYS, W_ALWAYS, false},
	{"io_uring_enter", ENOSYS, W_ALWAYS, false},
	{"io_uring_register", ENOSYS, W_ALWAYS, false},
	{"ioctl", EPERM, W_IOCTL_INJECT, false},
	{"pidfd_getfd", EPERM, W_ALWAYS, false},
	{"socket", EAFNOSUPPORT, W_SOCKET, false},
	{"socketpair", EAFNOSUPPORT, W_SOCKET, false},
	{"setrlimit", EPERM, W_SETRLIMIT, false},
	{"prlimit64", EPERM, W_PRLIMIT, false},
	{"personality", EPERM, W_PERSONALITY, false},
	{"execve", EACCES, W_EXEC_GATE, false},
	{"execveat", EACCES, W_EXEC_GATE, false},
	{"connect", EPERM, W_NET, false},
	{"bind", EACCES, W_NET, false},
	{"sendto", EPERM, W_SENDTO, false},
	{"sendmsg", EPERM, W_SENDMSG, false},
	{"sendmmsg", EPERM, W_SENDMSG, false},
	{"open", EACCES, W_FILES, false},
	{"openat", EACCES, W_FILES, false},
	{"openat2", EACCES, W_FILES, false},
	{"creat", EACCES, W_FILES, false},
	{"unlink", EACCES, W_FILES, false},
	{"unlinkat", EACCES, W_FILES, false},
	{"rmdir", EACCES, W_FILES, false},
	{"mkdir", EACCES, W_FILES, false},
	{"mkdirat", EACCES, W_FILES, false},
	{"truncate", EACCES, W_FILES, false},
	{"symlink", EACCES, W_FILES, false},
	{"symlinkat", EACCES, W_FILES, false},
	{"rename", EACCES, W_FILES, false},
	{"renameat", EACCES, W_FILES, false},
	{"renameat2", EACCES, W_FILES, false},
	/* metadata changes are writes (issue 13); the errno here is only the fallback: the decision
	 * (seccomp_notify.c, meta_calls[]) answers EPERM or EACCES */
	{"chmod", EPERM, W_META, false},
	{"fchmod", EPERM, W_META, false},
	{"fchmodat", EPERM, W_META, false},
	{"fchmodat2", EPERM, W_META, false},
	{"chown", EPERM, W_META, false},
	{"lchown", EPERM, W_META, false},
	{"fchown", EPERM, W_META, false},
	{"fchownat", EPERM, W_META, false},
	{"setxattr", EPERM, W_META, false},
	{"lsetxattr", EPERM, W_META, false},
	{"fsetxattr", EPERM, W_META, false},
	{"setxattrat", EPERM, W_META, false},
	{"removexattr", EPERM, W_META, false},
	{"lremovexattr", EPERM, W_META, false},
	{"fremovexattr", EPERM, W_META, false},
	{"removexattrat", EPERM, W_META, false},
	{"utime", EPERM, W_META, false},
	{"utimes", EPERM, W_META, false},
	{"futimesat", EPERM, W_META, false},
	{"utimensat", EPERM, W_META, false},
	{"mknod", EACCES, W_META, false},
	{"mknodat", EACCES, W_META, false},
	{"link", EACCES, W_META, false},
	{"linkat", EACCES, W_META, false},
	{"inotify_add_watch", EACCES, W_META, false},
	{"fanotify_mark", EACCES, W_META, false},
	/* the report-only sensor only: never refused by the layer (the pid namespace and the identity
	 * refuse a signal outside the run; the sensor reports it) */
	{"kill", EPERM, W_SIGNAL, false},
	{"tkill", EPERM, W_SIGNAL, false},
	{"tgkill", EPERM, W_SIGNAL, false},
	{"rt_sigqueueinfo", EPERM, W_SIGNAL, false},
	{"rt_tgsigqueueinfo", EPERM, W_SIGNAL, false},
	{"pidfd_open", EPERM, W_SIGNAL, false},
};

/* System calls newer than this libseccomp (2.5.4 knows none of them): their numbers, which are the same
 * on every architecture with the unified table (>= 424: x86_64, aarch64, riscv64). */
static const struct { const char *name; int nr; } late_nr[] = {
	{"fchmodat2", 452},
	{"setxattrat", 463},
	{"removexattrat", 466},
};

static bool unified_arch(void)
{
	uint32_t a = seccomp_arch_native();
	return a == SCMP_ARCH_X86_64 || a == SCMP_ARCH_AARCH64 || a == SCMP_ARCH_RISCV64;
}

/* The native number of `name`, also for the late calls above; < 0 when none. */
static int sc_resolve(const char *name)
{
	int nr = seccomp_syscall_resolve_name(name);
	if (nr >= 0 || !unified_arch())
		return nr;
	for (size_t i = 0; i < sizeof late_nr / sizeof late_nr[0]; i++)
		if (!strcmp(late_nr[i].name, name))
			return late_nr[i].nr;
	return nr;
}

/* The name of native `nr` (malloc'ed, as libseccomp's), also for the late calls; NULL unknown. */
static char *sc_name(uint32_t arch, int nr)
{
	char *n = seccomp_syscall_resolve_num_arch(arch, nr);
	if (n || arch != seccomp_arch_native() || !unified_arch())
		return n;
	for (size_t i = 0; i < sizeof late_nr / sizeof late_nr[0]; i++)
		if (late_nr[i].nr == nr)
			return strdup(late_nr[i].name);
	return NULL;
}
#define NRULES (sizeof deny_table / sizeof deny_table[0])

/* errno for a foreign-architecture call */
#define FOREIGN_ERR EPERM

static const uint64_t clone_ns_flags[] = {
	CLONE_NEWNS, CLONE_NEWCGROUP, CLONE_NEWUTS, CLONE_NEWIPC, CLONE_NEWUSER, CLONE_NEWPID,
	CLONE_NEWNET,
};

static const char *when_text(enum sc_when w)
{
	switch (w) {
	case W_ALWAYS: return "always";
	case W_CLONE_NS: return "flags & CLONE_NEW{NS,CGROUP,UTS,IPC,USER,PID,NET}";
	case W_UNSHARE_NS: return "flags & CLONE_NEW{NS,CGROUP,UTS,IPC,USER,PID,NET,TIME}";
	case W_IOCTL_INJECT: return "request (low 32 bits) == TIOCSTI or TIOCLINUX";
	case W_SETRLIMIT: return "a new hard limit above the caller's (the run's) hard limit; lowering is allowed (notify only)";
	case W_PRLIMIT: return "a new limit is given and its hard limit is above the caller's (the run's); lowering and reading are allowed (notify only)";
	case W_SOCKET: return "family/type/protocol outside the allowlist: AF_UNIX; AF_INET/AF_INET6 with TCP, UDP (ICMP ping only with an unrestricted network); AF_NETLINK with NETLINK_ROUTE. "
			      "Unknown families EAFNOSUPPORT, AF_PACKET and SOCK_RAW EPERM, other protocols/types EPROTONOSUPPORT";
	case W_NET: return "connect/bind naming a unix socket path outside the write grants, an AF_INET/6 peer the policy denies (when netfilter is off), a bind outside the granted loopback addresses (notify only)";
	case W_SENDTO: return "sendto with a destination address: the peer decided as a connect (a unix path outside the write grants, an abstract name outside a network namespace of the run's own; AF_INET/6 when netfilter is off) (notify only)";
	case W_SENDMSG: return "sendmsg/sendmmsg naming a peer (msg_name of every message): decided as a connect, as sendto (notify only)";
	case W_META: return "the object (path, descriptor, dirfd + path; symlinks followed as the call does) outside the write grants "
			    "(inotify_add_watch/fanotify_mark: outside the read grants): EPERM for mode/owner/xattr/times, "
			    "EACCES for mknod/link/watches (notify only; kernel.violation sensor seccomp-notify)";
	case W_FILES: return "probes off and a command the preload does not see: a path the policy denies — opens and execs, and the write class (unlink, rmdir, mkdir, truncate, symlink, rename: the new name and, for rename, the old one) (notify only; kernel.violation sensor seccomp-notify)";
	case W_SIGNAL: return "report-only sensor: a signal (or pidfd) to a process outside the run, reported, never refused";
	case W_PERSONALITY: return "persona (low 32 bits) > 0, except the 0xffffffff query (let through by the supervisor)";
	case W_EXEC_GATE: return "no code:exec (and user notification): every exec after the command's own (the "
				 "supervisor lets the stage's one execve continue)";
	}
	return "?";
}

static const char *errno_name(int err)
{
	const char *n = strerrorname_np(err);
	return n ? n : "?";
}

/* Notification needs libseccomp API level 6 (notify + TSYNC together); level 5 has notify but
 * not with TSYNC. Returns true when notify is usable; *tsync says whether TSYNC can be combined. */
static bool notify_usable(bool *tsync, char *why, size_t whylen)
{
	unsigned api = seccomp_api_get();
	*tsync = true;
	if (api >= 6)
		return true;
	if (api == 5) {
		/* the stage is single-threaded when it installs: TSYNC is not needed for correctness */
		*tsync = false;
		return true;
	}
	snprintf(why, whylen, "libseccomp/kernel API level %u < 5 (no user notification)", api);
	return false;
}

int sbx_seccomp_probe(char *level, size_t levellen, char *why, size_t whylen)
{
	if (prctl(PR_GET_SECCOMP, 0, 0, 0, 0) < 0 && errno == EINVAL) {
		snprintf(why, whylen, "kernel without seccomp (CONFIG_SECCOMP)");
		return 0;
	}
	unsigned api = seccomp_api_get();
	if (api < 2) {
		snprintf(why, whylen, "kernel without seccomp filter mode (libseccomp API level %u)", api);
		return 0;
	}
	bool tsync;
	char nwhy[160] = "";
	if (notify_usable(&tsync, nwhy, sizeof nwhy))
		snprintf(level, levellen, tsync ? "notify" : "notify (no tsync: API level 5)");
	else
		snprintf(level, levellen, "errno (unreported: %s)", nwhy);
	return 1;
}

bool sbx_seccomp_listener_possible(void)
{
	bool tsync;
	char why[160];
	if (prctl(PR_GET_SECCOMP, 0, 0, 0, 0) != 0 || !notify_usable(&tsync, why, sizeof why))
		return false;
	/* Seccomp 2 with no filter counted is impossible; a filter of any origin: not known free */
	FILE *f = fopen("/proc/self/status", "re");
	if (!f)
		return false;
	char line[256];
	long n = -1;
	while (fgets(line, sizeof line, f))
		if (!strncmp(line, "Seccomp_filters:", 16))
			n = strtol(line + 16, NULL, 10);
	fclose(f);
	return n == 0;
}

/* Without a supervisor to ask: the allowlist approximated with comparisons (libseccomp allows one
 * comparison per argument in a rule, so "not in a set" is spelled as the values outside it).
 * Residue (documented): ping sockets are not refused, and AF_INET/6 SOCK_DGRAM protocols 2..58
 * other than UDP/ICMP reach the kernel (which knows none of them but UDP-Lite, 136, refused here). */
static int socket_errno_rules(scmp_filter_ctx ctx, int nr)
{
	int rc = 0;
	const uint32_t afno = SCMP_ACT_ERRNO(EAFNOSUPPORT), protono = SCMP_ACT_ERRNO(EPROTONOSUPPORT),
		       perm = SCMP_ACT_ERRNO(EPERM);
	for (int d = 0; d < AF_NETLINK && !rc; d++)
		if (d != AF_UNIX && d != AF_INET && d != AF_INET6)
			rc = seccomp_rule_add(ctx, afno, nr, 1, SCMP_A0_32(SCMP_CMP_EQ, (uint32_t)d));
	if (!rc)
		rc = seccomp_rule_add(ctx, perm, nr, 1, SCMP_A0_32(SCMP_CMP_EQ, AF_PACKET));
	if (!rc)
		rc = seccomp_rule_add(ctx, afno, nr, 1, SCMP_A0_32(SCMP_CMP_GT, AF_PACKET));
	if (!rc) /* NETLINK_ROUTE is 0 */
		rc = seccomp_rule_add(ctx, protono, nr, 2, SCMP_A0_32(SCMP_CMP_EQ, AF_NETLINK),
				      SCMP_A2_32(SCMP_CMP_GT, 0));
	static const uint32_t inet[] = {AF_INET, AF_INET6};
	for (size_t f = 0; f < 2 && !rc; f++) {
		for (uint32_t t = 0; t < 16 && !rc; t++) {
			if (t == SOCK_STREAM || t == SOCK_DGRAM)
				continue;
			rc = seccomp_rule_add(ctx, t == SOCK_RAW ? perm : protono, nr, 2,
					      SCMP_A0_32(SCMP_CMP_EQ, inet[f]), SCMP_A1_32(SCMP_CMP_MASKED_EQ, 0xf, t));
		}
		if (!rc) /* SCTP (132), MPTCP (262), ... */
			rc = seccomp_rule_add(ctx, protono, nr, 3, SCMP_A0_32(SCMP_CMP_EQ, inet[f]),
					      SCMP_A1_32(SCMP_CMP_MASKED_EQ, 0xf, SOCK_STREAM),
					      SCMP_A2_32(SCMP_CMP_GT, IPPROTO_TCP));
		if (!rc) /* UDP-Lite (136), ... */
			rc = seccomp_rule_add(ctx, protono, nr, 3, SCMP_A0_32(SCMP_CMP_EQ, inet[f]),
					      SCMP_A1_32(SCMP_CMP_MASKED_EQ, 0xf, SOCK_DGRAM),
					      SCMP_A2_32(SCMP_CMP_GT, IPPROTO_ICMPV6));
	}
	return rc;
}

static int add_rule(scmp_filter_ctx ctx, const struct sc_rule *r, int nr, bool notify)
{
	uint32_t act = (notify && !r->silent) ? SCMP_ACT_NOTIFY : SCMP_ACT_ERRNO((uint32_t)r->err);
	int rc = 0;
	switch (r->when) {
	case W_ALWAYS:
		rc = seccomp_rule_add(ctx, act, nr, 0);
		break;
	case W_CLONE_NS:
	case W_UNSHARE_NS:
		for (size_t i = 0; i < sizeof clone_ns_flags / sizeof clone_ns_flags[0] && !rc; i++)
			rc = seccomp_rule_add(ctx, act, nr, 1,
					      SCMP_A0(SCMP_CMP_MASKED_EQ, clone_ns_flags[i], clone_ns_flags[i]));
		if (!rc && r->when == W_UNSHARE_NS)
			rc = seccomp_rule_add(ctx, act, nr, 1,
					      SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_NEWTIME, CLONE_NEWTIME));
		break;
	case W_IOCTL_INJECT:
		/* the kernel reads the request as unsigned int: compare only the low 32 bits, so junk in
		 * the upper half cannot slip past */
		rc = seccomp_rule_add(ctx, act, nr, 1, SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffu, TIOCSTI));
		if (!rc)
			rc = seccomp_rule_add(ctx, act, nr, 1,
					      SCMP_A1(SCMP_CMP_MASKED_EQ, 0xffffffffu, TIOCLINUX));
		break;
	case W_SOCKET:
		if (notify) {
			/* every family but AF_UNIX goes to the supervisor, which decides on the register
			 * values (pol_socket_ok): no race, one rule, AF_UNIX costs nothing */
			rc = seccomp_rule_add(ctx, act, nr, 1, SCMP_A0_32(SCMP_CMP_NE, AF_UNIX));
		} else {
			rc = socket_errno_rules(ctx, nr);
		}
		break;
	case W_SETRLIMIT:
		rc = seccomp_rule_add(ctx, act, nr, 0);
		break;
	case W_PRLIMIT:
		rc = seccomp_rule_add(ctx, act, nr, 1, SCMP_A2_64(SCMP_CMP_NE, 0));
		break;
	case W_NET:
	case W_SENDMSG: /* msg_name is in memory: every call, the supervisor reads it */
	case W_FILES:
	case W_META:
		rc = seccomp_rule_add(ctx, act, nr, 0);
		break;
	case W_SIGNAL: /* a pid >= 0 (negative: process groups, every process: left alone) */
		rc = seccomp_rule_add(ctx, act, nr, 1, SCMP_A0_32(SCMP_CMP_MASKED_EQ, 0x80000000u, 0));
		break;
	case W_SENDTO: /* only sends naming a peer: send() on a connected socket costs nothing */
		rc = seccomp_rule_add(ctx, act, nr, 1, SCMP_A4_64(SCMP_CMP_NE, 0));
		break;
	case W_EXEC_GATE:
		rc = seccomp_rule_add(ctx, act, nr, 0);
		break;
	case W_PERSONALITY:
		/* libseccomp allows one comparison per argument in a rule, so "not 0 and not 0xffffffff"
		 * cannot be one rule: everything above 0 is caught here, and the supervisor lets the
		 * 0xffffffff query continue (a register value, no TOCTOU). Without notification the query
		 * is refused too (EPERM). */
		rc = seccomp_rule_add(ctx, act, nr, 1, SCMP_A0_32(SCMP_CMP_GT, 0));
		break;
	}
	return rc;
}

/* Whether deny_table entry `r` is in the filter built with (notify, o). */
static bool rule_in_filter(const struct sc_rule *r, bool notify, const struct sbx_seccomp_opts *o)
{
	enum sc_when w = r->when;
	if (o->report_only && (r->silent || !notify))
		return false; /* the sensor never answers with an errno of its own */
	/* what only the supervisor can decide is in the filter only with notification */
	bool files = o->report_files || o->deny_files;
	if (w == W_EXEC_GATE && !(notify && (o->deny_exec || files)))
		return false;
	if ((w == W_SETRLIMIT || w == W_PRLIMIT) && !notify)
		return false; /* errno only: the kernel (no CAP_SYS_RESOURCE after the caps drop) refuses raises */
	if ((w == W_NET && !(notify && o->net_notify)) || (w == W_FILES && !(notify && files)))
		return false;
	if ((w == W_SENDTO || w == W_SENDMSG) && !(notify && o->net_notify))
		return false; /* unix peers are decided whatever netfilter does (AF_INET/6: left to it) */
	if (w == W_SIGNAL && !(notify && o->report_only))
		return false; /* the sensor's: the layer does not decide signals */
	if (w == W_META && !(notify && o->meta_notify))
		return false; /* without notification nothing can decide by path: DAC, bwrap's read-only
			       * binds and the identity are what is left (documented) */
	return true;
}

/* Whether the filter built with (notify, o) routes every call of `name` to the supervisor (a
 * W_META or W_FILES entry: no argument condition). */
static bool routed_whole(const char *name, bool notify, const struct sbx_seccomp_opts *o)
{
	for (size_t i = 0; i < NRULES; i++)
		if (!strcmp(deny_table[i].name, name) && rule_in_filter(&deny_table[i], notify, o))
			return deny_table[i].when == W_META || deny_table[i].when == W_FILES;
	return false;
}

/* Whether `sys` (a native call's name) is one the deny decision holds where the layer is off but
 * another filter of the run carries it (the report-only sensor's, the privilege guard's): the
 * layer's W_FILES and exec entries, and link/linkat (a second name for a match). openat2 is not:
 * both filters refuse it whole (its mode is in memory). */
static bool deny_routed(const char *sys)
{
	if (!strcmp(sys, "link") || !strcmp(sys, "linkat"))
		return true;
	if (!strcmp(sys, "openat2"))
		return false;
	for (size_t i = 0; i < NRULES; i++)
		if (!strcmp(deny_table[i].name, sys))
			return deny_table[i].when == W_FILES || deny_table[i].when == W_EXEC_GATE;
	return false;
}

/* ---- the privilege guard (contract version 3) -----------------------------------------------
 * Whatever the layers, the executor never creates a setuid/setgid bit or a device node
 * (policy.h pol_priv_mode: the same bits). The mode of these calls is a register: the rules below
 * are pure argument checks, nothing to race. In a filter with a listener (the layer's, the
 * sensor's) they notify, and the supervisor answers EPERM and writes a critical kernel.violation
 * (a separate errno filter would win over the listener and hide the call); a call the filter routes
 * whole already (metadata, the file reporter) needs no rule of its own: the supervisor checks its
 * mode first. Without a listener they answer EPERM, unreported: the probes' sys_enter tracepoint
 * comes after the filter, so a call it answers is never theirs (docs/known-gaps.md).
 * openat2 carries its mode in memory: it is refused with ENOSYS (as on a kernel before 5.6:
 * callers fall back to openat), except where the file reporter routes it, and then the
 * supervisor answers ENOSYS for anything it would have let continue. clone3 carries its flags in
 * memory too: ENOSYS (glibc falls back to clone, whose CLONE_NEWUSER is a register); and no
 * io_uring (IORING_OP_OPENAT creates files with a mode no filter sees): ENOSYS. */
enum priv_kind { PK_CHMOD, PK_CREATE, PK_MKNOD };
static const struct { const char *name; enum priv_kind kind; signed char flags, mode; } priv_table[] = {
	{"chmod", PK_CHMOD, -1, 1},
	{"fchmod", PK_CHMOD, -1, 1},
	{"fchmodat", PK_CHMOD, -1, 2},
	{"fchmodat2", PK_CHMOD, -1, 2},
	{"open", PK_CREATE, 1, 2},
	{"openat", PK_CREATE, 2, 3},
	{"creat", PK_CREATE, -1, 1},   /* always creates */
	{"mknod", PK_MKNOD, -1, 1},
	{"mknodat", PK_MKNOD, -1, 2},
};
#define PRIV_O_TMPFILE_BIT 020000000u

static struct scmp_arg_cmp arg_masked(int arg, uint32_t mask, uint32_t datum)
{
	/* 32 bits: mode_t / umode_t and the open flags are 32-bit (or narrower) in the kernel */
	struct scmp_arg_cmp c = {.arg = (unsigned)arg, .op = SCMP_CMP_MASKED_EQ, .datum_a = mask,
				 .datum_b = datum};
	return c;
}

/* The guard's rules for one call of priv_table into ctx with action act. */
static int priv_rules_one(scmp_filter_ctx ctx, uint32_t act, size_t i)
{
	int nr = sc_resolve(priv_table[i].name);
	if (nr < 0)
		return 0; /* not a call of this architecture (open, chmod, mknod on arm64) */
	static const uint32_t bits[] = {S_ISUID, S_ISGID};
	static const uint32_t creators[] = {O_CREAT, PRIV_O_TMPFILE_BIT};
	int m = priv_table[i].mode, f = priv_table[i].flags, rc = 0;
	for (size_t b = 0; b < 2 && !rc; b++) {
		struct scmp_arg_cmp mc = arg_masked(m, bits[b], bits[b]);
		if (f < 0) {
			rc = seccomp_rule_add_array(ctx, act, nr, 1, &mc);
			continue;
		}
		for (size_t c = 0; c < 2 && !rc; c++) {
			struct scmp_arg_cmp two[2] = {arg_masked(f, creators[c], creators[c]), mc};
			rc = seccomp_rule_add_array(ctx, act, nr, 2, two);
		}
	}
	if (!rc && priv_table[i].kind == PK_MKNOD) {
		struct scmp_arg_cmp chr = arg_masked(m, S_IFMT, S_IFCHR), blk = arg_masked(m, S_IFMT, S_IFBLK);
		rc = seccomp_rule_add_array(ctx, act, nr, 1, &chr);
		if (!rc)
			rc = seccomp_rule_add_array(ctx, act, nr, 1, &blk);
	}
	return rc;
}

/* The guard in a filter built with (notify, o): the layer's, the sensor's, or (o NULL) the
 * stage's own guard filter when neither is installed. 0, or a libseccomp error. */
static int priv_rules(scmp_filter_ctx ctx, bool notify, const struct sbx_seccomp_opts *o)
{
	static const struct sbx_seccomp_opts none = {.deny_exec = false};
	/* the guard alone with manifest denies: the deny's calls are routed whole (below) */
	static const struct sbx_seccomp_opts denies = {.deny_files = true};
	bool alone = !o || o->guard;
	bool abstract = o && o->guard && o->guard_abstract;
	bool guard_denies = o && o->guard && o->deny_files && notify;
	if (!o || o->guard)
		o = guard_denies ? &denies : &none;
	uint32_t act = notify ? SCMP_ACT_NOTIFY : SCMP_ACT_ERRNO(EPERM);
	int rc = 0, nr;
	for (size_t i = 0; i < sizeof priv_table / sizeof priv_table[0] && !rc; i++)
		if (!routed_whole(priv_table[i].name, notify, o))
			rc = priv_rules_one(ctx, act, i);
	/* (the guard with denies routes openat2 here too: refused whole, as without them) */
	if (!rc && (nr = sc_resolve("openat2")) >= 0 && (guard_denies || !routed_whole("openat2", notify, o)))
		rc = seccomp_rule_add(ctx, notify ? SCMP_ACT_NOTIFY : SCMP_ACT_ERRNO(ENOSYS), nr, 0);
	if (!rc && (alone || o->report_only) && (nr = sc_resolve("clone3")) >= 0)
		rc = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), nr, 0);
	if (rc || !alone)
		return rc;
	/* the guard alone: no user namespace (its root holds CAP_SETFCAP over the files the executor
	 * owns: a v3 file capability); the layer's filter refuses these already, the sensor's
	 * notifies them and the supervisor refuses CLONE_NEWUSER (sbx_seccomp_handle_state). The
	 * probes, when on, report them as escape-class calls. */
	static const char *const ns_calls[] = {"unshare", "clone"};
	for (size_t i = 0; i < 2 && !rc; i++)
		if ((nr = sc_resolve(ns_calls[i])) >= 0) /* a refused call never reaches the probes' tracepoint */
			rc = seccomp_rule_add(ctx, act, nr, 1, SCMP_A0(SCMP_CMP_MASKED_EQ, CLONE_NEWUSER, CLONE_NEWUSER));
	/* io_uring: IORING_OP_OPENAT carries a creation mode (and OP_SETXATTR a name) the kernel uses
	 * with no system call to filter: no ring (ENOSYS, as the seccomp layer answers) */
	if (!rc && (nr = sc_resolve("io_uring_setup")) >= 0)
		rc = seccomp_rule_add(ctx, notify ? SCMP_ACT_NOTIFY : SCMP_ACT_ERRNO(ENOSYS), nr, 0);
	/* attribute names are in memory: with a listener the supervisor reads them (security.*, an
	 * ACL on a setuid/setgid file: refused, reported); without one the kernel's own checks are
	 * what is left (security.capability needs CAP_SETFCAP, which the executor never holds) */
	static const char *const xattr_calls[] = {"setxattr", "lsetxattr", "fsetxattr", "setxattrat"};
	for (size_t i = 0; notify && i < 4 && !rc; i++)
		if ((nr = sc_resolve(xattr_calls[i])) >= 0)
			rc = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, nr, 0);
	/* the run shares the host's network namespace: an abstract name bound there can capture a
	 * host client, one connected to is the host's (seccomp_unix.h); the supervisor refuses those
	 * and lets every other bind/connect continue. The name is in memory: notify only */
	static const char *const net_calls[] = {"bind", "connect"};
	for (size_t i = 0; notify && abstract && i < 2 && !rc; i++)
		if ((nr = sc_resolve(net_calls[i])) >= 0)
			rc = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, nr, 0);
	/* sendmmsg: the probes, the reporter beside the guard, read only its first message's peer;
	 * the supervisor reads every message's and refuses the call when one names a unix peer
	 * outside the grants (a datagram to a host socket), reported; the rest continues */
	if (!rc && notify && (nr = sc_resolve("sendmmsg")) >= 0)
		rc = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, nr, 0);
	/* a manifest deny with the layer off: the calls the layer routes for the denies (the open
	 * family, the write class, execs) and link/linkat (a second name for a match) go to the
	 * supervisor, which decides them as the layer does (sbx_seccomp_state.deny_held) */
	for (size_t i = 0; guard_denies && i < NRULES && !rc; i++)
		if (deny_routed(deny_table[i].name) && (nr = sc_resolve(deny_table[i].name)) >= 0)
			rc = seccomp_rule_add(ctx, SCMP_ACT_NOTIFY, nr, 0);
	return rc;
}

static int install(bool notify, bool tsync, const struct sbx_seccomp_opts *o, int *listener, char *why,
		   size_t whylen);

int sbx_privguard_install(int *listener, bool abstract, bool denies, char *why, size_t whylen)
{
	bool tsync = true;
	char nwhy[160];
	bool notify = notify_usable(&tsync, nwhy, sizeof nwhy);
	const struct sbx_seccomp_opts g = {.guard = true, .guard_abstract = abstract, .deny_files = denies};
	int rc = install(notify, tsync, &g, listener, why, whylen);
	if (rc < 0 && notify) /* an outer sandbox holds the listener (EBUSY): errno only */
		rc = install(false, tsync, &g, listener, why, whylen);
	return rc;
}

static scmp_filter_ctx build(bool notify, bool tsync, const struct sbx_seccomp_opts *o, char *why,
			     size_t whylen)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
	if (!ctx) {
		snprintf(why, whylen, "seccomp_init failed");
		return NULL;
	}
	/* also the guard alone (o NULL): a foreign architecture's chmod is a chmod (the supervisor
	 * judges it by name; without a listener every foreign call is refused) */
	int rc = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH,
				  notify ? SCMP_ACT_NOTIFY : SCMP_ACT_ERRNO(FOREIGN_ERR));
	if (rc) {
		snprintf(why, whylen, "bad-arch action: %s", strerror(-rc));
		goto fail;
	}
	(void)seccomp_attr_set(ctx, SCMP_FLTATR_API_SYSRAWRC, 1); /* the kernel's errno (EBUSY) from load */
	if (tsync && (rc = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_TSYNC, 1))) {
		snprintf(why, whylen, "TSYNC: %s", strerror(-rc));
		goto fail;
	}
	for (size_t i = 0; o && !o->guard && i < NRULES; i++) {
		if (!rule_in_filter(&deny_table[i], notify, o))
			continue;
		int nr = sc_resolve(deny_table[i].name);
		if (nr < 0)
			continue; /* not a syscall on this architecture (umount on x86_64, iopl on arm64):
				   * __NR_SCMP_ERROR or a libseccomp pseudo-syscall number */
		if ((rc = add_rule(ctx, &deny_table[i], nr, notify))) {
			snprintf(why, whylen, "rule for %s: %s", deny_table[i].name, strerror(-rc));
			goto fail;
		}
	}
	if ((rc = priv_rules(ctx, notify, o))) {
		snprintf(why, whylen, "privilege guard: %s", strerror(-rc));
		goto fail;
	}
	return ctx;
fail:
	seccomp_release(ctx);
	return NULL;
}

int sbx_seccomp_install(int *listener, char *why, size_t whylen)
{
	struct sbx_seccomp_opts o = {.deny_exec = false};
	return sbx_seccomp_install_opts(&o, listener, why, whylen);
}

int sbx_seccomp_install_opts(struct sbx_seccomp_opts *o, int *listener, char *why, size_t whylen)
{
	bool tsync = true;
	char nwhy[160];
	bool notify = notify_usable(&tsync, nwhy, sizeof nwhy);
	if (o->report_only && !notify) { /* errno rules would refuse: a sensor must not */
		snprintf(why, whylen, "%s", nwhy);
		*listener = -1;
		return -1;
	}
	/* the gate needs the supervisor to let the stage's own execve through: notification only */
	o->exec_gated = o->deny_exec && notify && !o->report_only;
	int rc = install(notify, tsync, o, listener, why, whylen);
	if (rc < 0 && notify && o->report_only) {
		/* an outer sandbox's listener (EBUSY): no errno-only fallback for a sensor */
		o->notify_busy = true;
		return -1;
	}
	if (rc < 0 && notify) {
		/* a filter of an outer sandbox (sbxsup inside sbxsup) already has a listener: the kernel
		 * allows one per filter chain (EBUSY; libseccomp may report it as EFAULT). The same rules,
		 * errno only (unreported here; the outer run's supervisor still reports what its own
		 * filter catches). */
		o->exec_gated = false;
		o->notify_busy = true;
		rc = install(false, tsync, o, listener, why, whylen);
	}
	return rc;
}

int sbx_seccomp_install_errno_only(char *why, size_t whylen)
{
	int listener;
	struct sbx_seccomp_opts o = {.deny_exec = false};
	return install(false, seccomp_api_get() >= 2, &o, &listener, why, whylen);
}

static int install(bool notify, bool tsync, const struct sbx_seccomp_opts *o, int *listener, char *why,
		   size_t whylen)
{
	*listener = -1;
	scmp_filter_ctx ctx = build(notify, tsync, o, why, whylen);
	if (!ctx)
		return -1;
	int rc = seccomp_load(ctx);
	if (rc) {
		snprintf(why, whylen, "seccomp_load: %s", strerror(-rc));
		seccomp_release(ctx);
		errno = -rc;
		return -1;
	}
	if (notify) {
		int fd = seccomp_notify_fd(ctx);
		if (fd < 0) {
			/* the filter is in place and the notified calls would fail with ENOSYS: refuse to go
			 * on with denials nobody can see */
			snprintf(why, whylen, "seccomp_notify_fd: %s", strerror(-fd));
			seccomp_release(ctx);
			return -1;
		}
		/* the kernel creates it O_CLOEXEC; make sure: the executor must never hold it */
		if (fcntl(fd, F_SETFD, FD_CLOEXEC) < 0) {
			snprintf(why, whylen, "listener FD_CLOEXEC: %s", strerror(errno));
			close(fd);
			seccomp_release(ctx);
			return -1;
		}
		*listener = fd;
	}
	seccomp_release(ctx); /* frees the context; the listener fd stays open */
	return 0;
}

static const char *arch_name(uint32_t arch)
{
	switch (arch) {
	case SCMP_ARCH_X86: return "x86";
	case SCMP_ARCH_X86_64: return "x86_64";
	case SCMP_ARCH_X32: return "x32";
	case SCMP_ARCH_ARM: return "arm";
	case SCMP_ARCH_AARCH64: return "aarch64";
	case SCMP_ARCH_RISCV64: return "riscv64";
	default: return "foreign";
	}
}

/* Name and errno of a notified call. out gets "<name>" (native) or "<arch>:<name>" (foreign). */
static int classify(uint32_t arch, int nr, char *out, size_t outlen)
{
	uint32_t native = seccomp_arch_native();
	bool foreign = arch != native;
	uint32_t rarch = arch;
	if (!foreign && native == SCMP_ARCH_X86_64 && ((uint32_t)nr & X32_SYSCALL_BIT)) {
		foreign = true; /* x32 calls carry the x86_64 audit arch and the x32 bit */
		rarch = SCMP_ARCH_X32;
	}
	char *name = foreign ? seccomp_syscall_resolve_num_arch(rarch, nr) : sc_name(rarch, nr);
	char nbuf[32];
	if (!name)
		snprintf(nbuf, sizeof nbuf, "%d", nr);
	if (foreign)
		snprintf(out, outlen, "%s:%s", arch_name(rarch), name ? name : nbuf);
	else
		snprintf(out, outlen, "%s", name ? name : nbuf);
	int err = FOREIGN_ERR;
	if (!foreign) {
		err = EPERM; /* a notified native call not in the table cannot happen; deny anyway */
		for (size_t i = 0; name && i < NRULES; i++)
			if (!strcmp(deny_table[i].name, name)) {
				err = deny_table[i].err;
				break;
			}
	}
	free(name);
	return err;
}

/* The report-only sensor (opts.report_only): decide as the seccomp layer would; what it would
 * have refused becomes `v`, a kernel.violation (sensor seccomp-notify, outcome "attempted": the
 * caller answers CONTINUE, the kernel and the active layers decide, the result is not seen here).
 * Never seccomp.deny: seccomp refused nothing. `v` points into `rep`. True: write `v`. */
static bool sensor_decide(int listener, const struct sbx_seccomp_state *st, const struct seccomp_notif *req,
			  const char *sys, struct sbx_sn_report *rep, struct kv_view *v)
{
	bool is_exec = !strcmp(sys, "execve") || !strcmp(sys, "execveat");
	int d = sbx_sn_decide(&st->ctx, listener, req->id, (pid_t)req->pid, sys,
			      (const uint64_t *)req->data.args, rep);
	const char *rule = NULL, *access = NULL;
	if (d == 1) {
		access = rep->access;
		rule = rep->rule[0] ? rep->rule : rep->what[0] ? rep->what : NULL;
	} else if (d == 0 && is_exec && !st->exec_open) {
		/* the policy grants the path but no code:exec: the seccomp layer's gate refuses it */
		access = "exec";
		rule = "no code:exec capability";
		if (!rep->requested[0])
			snprintf(rep->requested, sizeof rep->requested, "%s", rep->path);
		sbx_sn_fill_proc((pid_t)req->pid, rep);
	} else if (d == 2) {
		/* a deny-table call (ptrace, mount, bpf, unshare/clone with namespace flags, a foreign
		 * architecture, ...): always refused by the seccomp layer */
		memset(rep, 0, sizeof *rep);
		access = "escape";
		rule = KV_RULE_ESCAPE;
		sbx_sn_fill_proc((pid_t)req->pid, rep);
	}
	if (!rule || seccomp_notify_id_valid(listener, req->id) != 0)
		return false; /* allowed, or the task is gone (what /proc said may be another's) */
	memset(v, 0, sizeof *v);
	v->violation = true;
	v->syscall = sys;
	v->sensor = "seccomp-notify";
	v->outcome = "attempted";
	v->access = access ? access : "?";
	v->rule = rule;
	v->io_op = -1;
	v->pid = v->tid = req->pid;
	bool net = !strcmp(sys, "connect") || !strcmp(sys, "bind") || sbx_sn_is_send(sys);
	if (net && rep->addr[0]) {
		v->is_net = true;
		snprintf(v->addr, sizeof v->addr, "%s", rep->addr);
		v->port = rep->port > 0 ? (uint16_t)rep->port : 0;
	} else if (net && rep->path[0]) {
		v->is_net = v->is_unix = true;
	}
	if (rep->signal) {
		v->is_signal = true;
		v->target = rep->target;
		v->sig = rep->sig;
	}
	if (!strncmp(sys, "socket", 6) && rep->what[0])
		snprintf(v->sock, sizeof v->sock, "%.95s", rep->what);
	snprintf(v->comm, sizeof v->comm, "%s", rep->comm);
	snprintf(v->path, sizeof v->path, "%s", rep->path);
	snprintf(v->requested, sizeof v->requested, "%.*s", (int)sizeof v->requested - 1, rep->requested);
	v->exe_path = rep->exe[0] ? rep->exe : NULL;
	return true;
}

/* Answer a notified call with errno `err` (if the task still waits in it). */
static void respond_err(int listener, const struct seccomp_notif *req, struct seccomp_notif_resp *resp, int err)
{
	if (seccomp_notify_id_valid(listener, req->id) != 0)
		return;
	resp->id = req->id;
	resp->val = 0;
	resp->error = -err;
	resp->flags = 0;
	(void)seccomp_notify_respond(listener, resp); /* ENOENT: the task died meanwhile */
}

/* A call refused here with `err`, written as the probes' event from this sensor (kernel.violation,
 * sensor seccomp-notify, outcome contained). 0, or -1 (the stream failed). */
static int emit_contained_by(struct audit *a, const char *sensor, const char *sys, uint32_t pid,
			     const struct sbx_sn_report *rep, int err)
{
	struct kv_view v;
	memset(&v, 0, sizeof v);
	v.violation = true;
	v.syscall = sys;
	v.sensor = sensor;
	v.access = rep->access;
	v.rule = rep->rule;
	v.contained = true;
	v.failed = true; /* refused here: the call failed with err */
	v.err = err;
	v.io_op = -1;
	v.pid = v.tid = pid;
	snprintf(v.comm, sizeof v.comm, "%s", rep->comm);
	snprintf(v.path, sizeof v.path, "%s", rep->path);
	snprintf(v.requested, sizeof v.requested, "%.*s", (int)sizeof v.requested - 1, rep->requested);
	if (rep->addr[0] && rep->port >= 0) { /* an address and port (an emulated send's peer) */
		v.is_net = true;
		snprintf(v.addr, sizeof v.addr, "%s", rep->addr);
		v.port = (uint16_t)rep->port;
	}
	v.exe_path = rep->exe[0] ? rep->exe : NULL;
	return kv_emit(a, &v);
}

static int emit_contained(struct audit *a, const char *sys, uint32_t pid, const struct sbx_sn_report *rep, int err)
{
	return emit_contained_by(a, "seccomp-notify", sys, pid, rep, err);
}

/* An allowed call (sbx_sn_decide said 0) by the one table: 0 performed here and answered, 1 refused
 * (rep filled as a kernel.violation, rep->err), 2 continue (another layer stands behind it). */
static int route_allowed(int listener, const struct sbx_seccomp_state *st, const struct seccomp_notif *req,
			 const char *sys, struct sbx_sn_report *rep)
{
	/* a manifest deny: an allowed open is performed here, decided on the object reached, so a name
	 * rewritten after the check cannot reach a match (seccomp_notify.h files_deny_only) */
	if (st->deny_opens && (!strcmp(sys, "open") || !strcmp(sys, "openat") || !strcmp(sys, "creat"))) {
		int e = sbx_sn_emulate_open(&st->ctx, listener, req->id, (pid_t)req->pid, sys,
					    (const uint64_t *)req->data.args, rep);
		if (e == 0 || e == 1)
			return e;
		if (e == 3)
			return 2; /* O_PATH: nothing to race */
	}
	enum sbx_sn_route how = sbx_sn_route(&st->walls, sys);
	if (how == SBX_SN_CONTINUE)
		return 2;
	if (how == SBX_SN_EMULATE) {
		int e = sbx_sn_emulate(&st->ctx, listener, req->id, (pid_t)req->pid, sys,
				       (const uint64_t *)req->data.args, rep);
		if (e == 3)
			return 2;
		if (e != 2)
			return e;
	}
	/* refused: nothing would stand behind a continue and the call is not performed here */
	return sbx_sn_violation(rep, (pid_t)req->pid, "write", EPERM, rep->path, rep->path,
				"%s: no layer stands behind it in this mode", sys);
}

/* An exec about to continue in a run with a deny: traced to the binary the kernel loads, decided
 * there (seccomp_execpin.h). 0 continue it; -1 it cannot be held to its binary: refuse it (EPERM,
 * rep filled: a contained kernel.violation, as any undecidable call). */
static int pin_exec(const struct sbx_seccomp_state *st, pid_t pid, const char *sys, struct sbx_sn_report *rep)
{
	char why[160];
	if (!st || !st->pins || !(st->deny_opens || st->deny_held) || execpin_arm(st->pins, pid, why, sizeof why) == 0)
		return 0;
	sbx_sn_violation(rep, pid, "exec", EPERM, NULL, NULL, "undecidable: %s cannot be held to the binary it loads (%s)",
			 sys, why);
	return -1;
}

/* A call the filter holding the denies lets continue (an exec, or what the kernel and the layers
 * decide: bwrap's view, Landlock): the sensor's report of it, "attempted", as for every call the
 * sensor lets continue (the guard alone reports nothing: the probes, on there, see a continued
 * call). Without it a refusal by bwrap or Landlock of a write-class call in a run with a deny
 * was reported by no one. 0, or -1 (the stream failed). */
static int continue_sensed(int listener, struct audit *a, const struct sbx_seccomp_state *st,
			   const struct seccomp_notif *req, struct seccomp_notif_resp *resp, const char *sys)
{
	struct sbx_sn_report srep;
	struct kv_view v;
	bool report = !st->guard_only && sensor_decide(listener, st, req, sys, &srep, &v);
	resp->id = req->id;
	resp->val = 0;
	resp->error = 0;
	resp->flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
	(void)seccomp_notify_respond(listener, resp);
	return a && report && kv_emit(a, &v) < 0 ? -1 : 0;
}

/* A call of the deny's class (deny_routed) under a filter that holds the manifest's denies while
 * the layer is off (the report-only sensor's or the privilege guard's: st->deny_held): decided
 * with the layer's own deny-only decision (sbx_sn_decide with files_deny_only: a match refused,
 * kernel.violation rule "deny[N]: ...", critical) and, when allowed, performed by the layer's one
 * table (route_allowed: opens emulated on the object decided, the write class and link emulated —
 * sbx_sn_walls.deny —, execs continued and held to the binary they load: pin_exec). What the
 * emulation refuses besides (an object the policy
 * does not grant: Landlock's or bwrap's refusal, made here since sbxsup is outside both) is
 * reported as contained — nothing else reports it in these modes (the probes do not see a call
 * seccomp answered). The target's memory is read once per decision: no second read for a report
 * (a racing thread would make it name what the call did not use); a call that continues (an exec,
 * or one bwrap or Landlock decides) gets the sensor's report as every continued call does. A foreign architecture's call of this class is
 * refused (its arguments are not decided here). 0, or -1 (the stream failed). */
static int hold_deny(int listener, struct audit *a, const struct sbx_seccomp_state *st,
		     const struct seccomp_notif *req, struct seccomp_notif_resp *resp, const char *sys, int ferr)
{
	struct sbx_seccomp_state ds = *st;
	ds.ctx.files_deny_only = true;
	ds.ctx.report_only = false;
	ds.deny_opens = true;
	ds.walls.deny = true;
	struct sbx_sn_report rep;
	memset(&rep, 0, sizeof rep);
	rep.port = -1;
	int d;
	if (strchr(sys, ':'))
		d = sbx_sn_violation(&rep, (pid_t)req->pid, "escape", ferr, NULL, NULL, "%s", KV_RULE_ESCAPE);
	else
		d = sbx_sn_decide(&ds.ctx, listener, req->id, (pid_t)req->pid, sys, (const uint64_t *)req->data.args,
				  &rep);
	bool is_exec = !strcmp(sys, "execve") || !strcmp(sys, "execveat");
	if (d == 0 && is_exec && pin_exec(st, (pid_t)req->pid, sys, &rep) < 0)
		d = 1;
	else if (d == 0 && is_exec)
		return continue_sensed(listener, a, st, req, resp, sys);
	if (d == 0) {
		int e = route_allowed(listener, &ds, req, sys, &rep);
		if (e == 0)
			return 0;
		if (e == 1)
			d = 1;
		else
			d = 2;
	}
	if (d == 1 || d == 3) {
		int err = rep.err ? rep.err : EACCES;
		respond_err(listener, req, resp, err);
		if (d == 1 && rep.violation && a && emit_contained(a, sys, req->pid, &rep, err) < 0)
			return -1;
		return 0;
	}
	/* not decided there (2), or nothing to race (an O_PATH open): the kernel and the layers decide */
	return continue_sensed(listener, a, st, req, resp, sys);
}

int sbx_seccomp_handle(int listener, struct audit *a)
{
	return sbx_seccomp_handle_state(listener, a, NULL);
}

int sbx_seccomp_handle_state(int listener, struct audit *a, struct sbx_seccomp_state *st)
{
	struct pollfd pfd = {.fd = listener, .events = POLLIN};
	if (poll(&pfd, 1, 0) < 0)
		return errno == EINTR ? 0 : -1;
	if (pfd.revents & POLLNVAL)
		return -1;
	if (!(pfd.revents & POLLIN))
		return (pfd.revents & (POLLHUP | POLLERR)) ? -1 : 0; /* no filter user left */

	struct seccomp_notif *req = NULL;
	struct seccomp_notif_resp *resp = NULL;
	if (seccomp_notify_alloc(&req, &resp))
		return -1;
	int ret = 0;
	if (seccomp_notify_receive(listener, req)) {
		/* the target died between poll and receive (ENOENT), or a signal interrupted us */
		goto out;
	}
	char sys[96];
	int err = classify(req->data.arch, req->data.nr, sys, sizeof sys);
	if (!strcmp(sys, "personality") && (req->data.args[0] & 0xffffffffu) == 0xffffffffu) {
		/* the persona query: harmless, let the kernel run it */
		resp->id = req->id;
		resp->val = 0;
		resp->error = 0;
		resp->flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
		(void)seccomp_notify_respond(listener, resp);
		goto out;
	}
	bool is_exec = !strcmp(sys, "execve") || !strcmp(sys, "execveat");
	if (is_exec && st && !st->exec_spent) {
		/* The exec gate's first execve: the stage starting the command (nothing else carries
		 * the filter yet — it was installed in the single-threaded stage just before). Its
		 * arguments are the stage's own, so CONTINUE has nothing to race. Every later one is
		 * refused below. Without a state (NULL) every exec is refused: fail closed. */
		st->exec_spent = true;
		goto cont;
	}
	/* the privilege guard first, for the layer's filter and the sensor's alike: refused, reported */
	struct sbx_sn_report rep;
	const char *bare = strchr(sys, ':') ? strchr(sys, ':') + 1 : sys; /* "x86:chmod" is a chmod */
	if (sbx_sn_privilege(listener, req->id, (pid_t)req->pid, bare, (const uint64_t *)req->data.args, &rep) == 1) {
		respond_err(listener, req, resp, EPERM);
		if (a && emit_contained(a, sys, req->pid, &rep, EPERM) < 0)
			ret = -1;
		goto out;
	}
	bool is_openat2 = !strcmp(sys, "openat2");
	bool newuser = (!strcmp(bare, "unshare") || !strcmp(bare, "clone")) && (req->data.args[0] & CLONE_NEWUSER);
	bool uring = !strcmp(bare, "io_uring_setup"); /* a ring runs opens and xattrs with no syscall */
	if (st && st->deny_held && deny_routed(bare)) {
		if (hold_deny(listener, a, st, req, resp, sys, err) < 0)
			ret = -1;
		goto out;
	}
	if (st && st->guard_only) {
		/* the guard's own filter (neither the layer's nor the sensor's): a user namespace is
		 * refused and reported (the call never reaches the probes), openat2 is refused, the
		 * rest continues */
		if (is_openat2) {
			/* refused whatever it names; a name the policy denies is reported as the
			 * openat it stands for would be (decided while the task waits) */
			int d = sbx_sn_decide(&st->ctx, listener, req->id, (pid_t)req->pid, sys,
					      (const uint64_t *)req->data.args, &rep);
			respond_err(listener, req, resp, ENOSYS);
			if (d == 1 && rep.violation && a && emit_contained(a, sys, req->pid, &rep, ENOSYS) < 0)
				ret = -1;
		} else if (!strcmp(sys, "bind") || !strcmp(sys, "connect") || !strcmp(sys, "sendmmsg")) {
			/* bind, connect: routed only where the run shares the host's network namespace:
			 * an abstract name is refused and reported. sendmmsg: every message's peer,
			 * since the probes see only the first: a unix peer the policy refuses (a path
			 * outside the grants, a host's abstract name) is refused and reported.
			 * Everything else continues (the preload and the probes decide the rest, as
			 * without the guard) */
			int d = sbx_sn_decide(&st->ctx, listener, req->id, (pid_t)req->pid, sys,
					      (const uint64_t *)req->data.args, &rep);
			bool refused = strcmp(sys, "sendmmsg") ? rep.path[0] == '@'             /* abstract */
							       : rep.path[0] && !rep.addr[0];   /* any unix peer */
			if (d != 1 || !refused)
				goto cont;
			respond_err(listener, req, resp, rep.err);
			if (a && emit_contained(a, sys, req->pid, &rep, rep.err) < 0)
				ret = -1;
		} else if (newuser || uring) {
			int e = uring ? ENOSYS : EPERM;
			respond_err(listener, req, resp, e);
			sbx_sn_violation(&rep, (pid_t)req->pid, "escape", e, NULL, NULL, "%s", KV_RULE_ESCAPE);
			if (a && emit_contained(a, sys, req->pid, &rep, e) < 0)
				ret = -1;
		} else {
			goto cont;
		}
		goto out;
	}
	if (st && st->report_only) {
		/* decided while the task waits (what /proc says is its own), answered, then written.
		 * The guard's refusals: a user namespace (its root could write a file capability),
		 * openat2 (its mode is in memory: never continued) and io_uring (a ring opens files
		 * with no system call to see) */
		struct sbx_sn_report srep;
		struct kv_view v;
		bool report = sensor_decide(listener, st, req, sys, &srep, &v);
		int refuse = is_openat2 || uring ? ENOSYS : 0;
		if (newuser || (report && srep.hard)) /* srep.hard: an abstract name bound in the host's
						       * network namespace (seccomp_unix.h) */
			refuse = EPERM;
		if (refuse) {
			respond_err(listener, req, resp, refuse);
			v.outcome = NULL;
			v.contained = v.failed = true;
			v.err = refuse;
		} else {
			resp->id = req->id;
			resp->val = 0;
			resp->error = 0;
			resp->flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
			(void)seccomp_notify_respond(listener, resp);
		}
		if (a && report && kv_emit(a, &v) < 0)
			ret = -1;
		goto out;
	}
	rep.violation = false;
	if (!is_exec || (st && st->exec_open)) {
		static const struct sbx_sn_ctx none = {0};
		int d = sbx_sn_decide(st ? &st->ctx : &none, listener, req->id, (pid_t)req->pid, sys,
				      (const uint64_t *)req->data.args, &rep);
		if (d == 0 && is_openat2) { /* the guard: never continued (its mode is in memory) */
			respond_err(listener, req, resp, ENOSYS);
			goto out;
		}
		if (d == 0 && st) {
			/* no "continue" that nothing else stands behind (seccomp_emulate.h) */
			int e = route_allowed(listener, st, req, sys, &rep);
			if (e == 0)
				goto out; /* performed and answered */
			if (e == 1)
				d = 1;
		}
		if (d == 0 && is_exec && pin_exec(st, (pid_t)req->pid, sys, &rep) < 0)
			d = 1;
		if (d == 0)
			goto cont;
		if (d == 3) { /* an errno, not a refusal (seccomp_notify.h): nothing to report */
			err = rep.err;
			rep.violation = false;
			a = NULL;
		} else if (d == 1)
			err = rep.err;
		else
			rep.violation = false, rep.what[0] = 0, rep.path[0] = 0, rep.addr[0] = 0, rep.rule[0] = 0;
	} else {
		memset(&rep, 0, sizeof rep);
	}
	/* The pid is the kernel's (translated to our pid namespace), read at notification time.
	 * id_valid tells whether the task is still blocked in that call (pid not reused). */
	bool valid = seccomp_notify_id_valid(listener, req->id) == 0;
	if (valid) {
		resp->id = req->id;
		resp->val = 0;
		resp->error = -err;
		resp->flags = 0;
		(void)seccomp_notify_respond(listener, resp); /* ENOENT: the task died meanwhile */
	}
	if (a && rep.violation) {
		/* the reporter: the probes' event, from this sensor */
		if (emit_contained(a, sys, req->pid, &rep, err) < 0)
			ret = -1;
	} else if (a) {
		char action[48];
		snprintf(action, sizeof action, "errno %s", errno_name(err));
		cJSON *ev = audit_event(a, "seccomp.deny", "kernel");
		if (!ev) {
			ret = -1;
			goto out;
		}
		cJSON_AddNumberToObject(ev, "pid", (double)req->pid);
		audit_add_str(ev, "syscall", sys, sizeof sys);
		audit_add_str(ev, "action", action, sizeof action);
		if (rep.what[0])
			audit_add_str(ev, !strncmp(sys, "socket", 6) ? "socket" : "limit", rep.what, sizeof rep.what);
		if (rep.path[0]) {
			audit_add_str(ev, "path", rep.path, sizeof rep.path);
			audit_add_str(ev, "requested", rep.requested, sizeof rep.requested);
		}
		if (rep.addr[0]) {
			cJSON_AddStringToObject(ev, "addr", rep.addr);
			cJSON_AddNumberToObject(ev, "port", rep.port);
		}
		if (rep.access && rep.rule[0])
			cJSON_AddStringToObject(ev, "access", rep.access);
		if (rep.rule[0])
			audit_add_str(ev, "rule", rep.rule, sizeof rep.rule);
		if (rep.comm[0])
			audit_add_str(ev, "comm", rep.comm, sizeof rep.comm);
		if (audit_emit(a, ev) < 0)
			ret = -1; /* the stream failed (a->failed): the caller fails closed */
	}
out:
	seccomp_notify_free(req, resp);
	return ret;
cont:
	resp->id = req->id;
	resp->val = 0;
	resp->error = 0;
	resp->flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
	(void)seccomp_notify_respond(listener, resp);
	goto out;
}

void sbx_seccomp_state_init(struct sbx_seccomp_state *st, const struct policy *pol, bool netfilter)
{
	memset(st, 0, sizeof *st);
	st->ctx.pol = pol;
	st->ctx.netfilter = netfilter;
	st->exec_open = pol && pol_code_exec(pol);
}

cJSON *sbx_seccomp_plan(void)
{
	bool tsync = true;
	char nwhy[160] = "";
	bool notify = notify_usable(&tsync, nwhy, sizeof nwhy);
	cJSON *o = cJSON_CreateObject();
	if (!o)
		return NULL;
	cJSON_AddStringToObject(o, "default", "allow");
	cJSON_AddStringToObject(o, "report", notify ? "user notification (seccomp.deny)"
						      : "none: errno only (unreported)");
	char badarch[96];
	snprintf(badarch, sizeof badarch, "every foreign architecture (i386 int 0x80, x32): errno %s%s",
		 errno_name(FOREIGN_ERR), notify ? ", reported" : "");
	cJSON_AddStringToObject(o, "foreign_arch", badarch);
	cJSON_AddBoolToObject(o, "tsync", tsync);
	cJSON_AddStringToObject(o, "exec_gate", notify ? "without code:exec: execve/execveat after the command's own "
							 "-> EACCES, reported" : "unavailable (needs user notification)");
	cJSON *arr = cJSON_AddArrayToObject(o, "deny");
	for (size_t i = 0; arr && i < NRULES; i++) {
		if (sc_resolve(deny_table[i].name) < 0 || deny_table[i].when == W_SIGNAL)
			continue; /* W_SIGNAL: the report-only sensor's, never a denial */
		cJSON *r = cJSON_CreateObject();
		if (!r)
			break;
		cJSON_AddStringToObject(r, "syscall", deny_table[i].name);
		cJSON_AddStringToObject(r, "errno", errno_name(deny_table[i].err));
		cJSON_AddStringToObject(r, "when", when_text(deny_table[i].when));
		cJSON_AddBoolToObject(r, "reported", notify && !deny_table[i].silent);
		cJSON_AddItemToArray(arr, r);
	}
	return o;
}

/* ---- the layer entry (layer.h) ----------------------------------------------------------------- */

static void sc_probe(enum layer_depth depth, struct detect *d, struct layer_probe *out)
{
	out->available = sbx_seccomp_probe(out->level, sizeof out->level, out->why, sizeof out->why) == 1;
	if (!out->available)
		snprintf(out->remedy, sizeof out->remedy, "a kernel with CONFIG_SECCOMP_FILTER and libseccomp >= 2.5");
}

static cJSON *sc_plan(const struct layer_ctx *c)
{
	return sbx_seccomp_plan();
}

/* The listener the stage handed over (one per attempt) and its exec gate. */
struct sc_rt {
	int listener;
	struct sbx_seccomp_state gate;
	struct execpin_set pins;   /* gate.pins */
	struct exec_kills *kills;  /* the run's (layer_ctx.exec_kills) */
};

/* The file/exec reporter ("--report-files"): the layer on and the probes off. The preload does not
 * stand in for it: it sees a program's libc calls, not its raw system calls, nor a static or
 * non-glibc program a preloaded shell starts; without a reporter below libc those are refused by
 * bwrap or Landlock unreported (a normal user's run, a container without BPF). */
static bool report_files_wanted(const struct sbx_layers *L)
{
	return sbx_layer_on(L, layer_seccomp.id) && !sbx_layer_on(L, layer_probes.id);
}

static void sc_on_ready(const struct layer_ctx *c, void **st, const char *status, pid_t pid, int listener)
{
	if (listener < 0)
		return;
	struct sc_rt *s = calloc(1, sizeof *s);
	if (!s) {
		close(listener); /* denied calls then fail with ENOSYS: never allowed */
		return;
	}
	s->listener = listener;
	sbx_seccomp_state_init(&s->gate, c->pol, sbx_layer_on(c->L, SBX_L_NETFILTER));
	/* a listener while the layer is off is the report-only sensor's (--sensor, stage.c) */
	s->gate.report_only = s->gate.ctx.report_only = !sbx_layer_on(c->L, layer_seccomp.id);
	/* neither the layer's nor the sensor's: the privilege guard's own filter (stage.c) */
	s->gate.guard_only = s->gate.report_only && strcmp(c->L->sensor, "on") != 0;
	s->gate.ctx.emu = sbx_sn_emu_new(); /* NULL: emulated connects are refused (fail closed) */
	/* the layer's filter without the reporter routes file calls only for the manifest's denies
	 * (stage.c deny_files): only a hard deny is refused */
	s->gate.deny_opens = !s->gate.report_only && c->pol && pol_manifest_deny(c->pol, 0, NULL);
	s->gate.ctx.files_deny_only = s->gate.deny_opens && !report_files_wanted(c->L);
	/* the layer off: the sensor's or the guard's filter holds the denies (the stage said so) */
	s->gate.deny_held = s->gate.report_only && (!strcmp(c->L->denies, "sensor") || !strcmp(c->L->denies, "guard"));
	s->gate.walls.bwrap = sbx_layer_on(c->L, layer_bwrap.id);
	s->gate.walls.landlock = sbx_layer_on(c->L, layer_landlock.id);
	s->gate.walls.deny = s->gate.deny_opens || s->gate.deny_held;
	s->gate.pins = &s->pins;
	s->kills = c->exec_kills;
	*st = s;
}

/* Whether this run wants the report-only sensor: neither seccomp nor the probes report, and
 * reporting was not turned off (--sensor off, SBXSUP_SANDBOX=0). */
static bool sensor_wanted(const struct sbx_layers *L)
{
	return !L->sensor_off && !sbx_layer_on(L, layer_seccomp.id) && !sbx_layer_on(L, SBX_L_PROBES);
}

static const char *sc_sensor(const struct sbx_layers *L)
{
	return sensor_wanted(L) ? "seccomp-notify (report-only; installed by the exec stage)" : NULL;
}

/* The stage options the kernel layers derive from the run's layer set (layers_stage_flags appends
 * them): "--netfilter" when netfilter is on (Landlock then handles no TCP and seccomp leaves
 * AF_INET/6 connect/bind to it); "--report-files" when the probes are off (the seccomp file/exec
 * reporter); "--sensor" when the report-only sensor is wanted
 * (opts.report_only). */
static int sc_stage_options(const struct sbx_layers *L, struct strv *out)
{
	int rc = 0;
	bool sc = sbx_layer_on(L, layer_seccomp.id);
	bool sensor = sensor_wanted(L);
	if (!sc && !sbx_layer_on(L, SBX_L_LANDLOCK) && !sensor)
		return 0;
	if (sbx_layer_on(L, SBX_L_NETFILTER))
		rc |= strv_add(out, layers_stage_option_flag(LAYER_STAGE_OPT_NETFILTER));
	if (report_files_wanted(L))
		rc |= strv_add(out, layers_stage_option_flag(LAYER_STAGE_OPT_REPORT_FILES));
	if (sensor)
		rc |= strv_add(out, layers_stage_option_flag(LAYER_STAGE_OPT_SENSOR));
	return rc;
}

/* The report-only sensor as the stage said (when it was asked for it), the privilege guard, and
 * which filter holds the manifest's denies: the bookkeeping (layer_set.h) the levels print from. */
static void sc_stage_said(const struct layer_ctx *c, const char *status, layer_status_get get)
{
	char v[512], w[512];
	if (get(status, "sensor", v, sizeof v) == 0) {
		if (!strcmp(v, "on")) {
			snprintf(c->L->sensor, sizeof c->L->sensor, "on");
		} else {
			if (get(status, "sensor_why", w, sizeof w) < 0)
				snprintf(w, sizeof w, "failed in the stage");
			snprintf(c->L->sensor, sizeof c->L->sensor, "off (%.150s)", w);
		}
	} else if (sensor_wanted(c->L)) {
		snprintf(c->L->sensor, sizeof c->L->sensor, "off (the stage did not report it)");
	}
	if (get(status, "privguard", v, sizeof v) == 0)
		snprintf(c->L->privguard, sizeof c->L->privguard, "%.15s", v);
	if (get(status, "denies", v, sizeof v) == 0)
		snprintf(c->L->denies, sizeof c->L->denies, "%.15s", v);
	else
		c->L->denies[0] = 0;
}

static int sc_fd(const void *st)
{
	return ((const struct sc_rt *)st)->listener;
}

static int sc_drain(void *st, struct audit *a, bool final)
{
	struct sc_rt *s = st;
	if (s->listener < 0)
		return 0;
	int rc = 0;
	/* final: everything is dead, only already-queued notifications are left (bounded) */
	for (int i = 0; i < (final ? 4096 : 1) && rc == 0; i++)
		rc = sbx_seccomp_handle_state(s->listener, a, &s->gate);
	if (rc < 0 || final) { /* no filter user left (or the stream failed): done with it */
		close(s->listener);
		s->listener = -1;
	}
	return rc < 0 && a->failed ? -1 : 0;
}

/* The exec pins' decision (seccomp_execpin.h): the binary loaded, against the manifest's denies. */
struct pin_arg {
	const struct sbx_seccomp_state *gate;
	struct audit *a;
	struct exec_kills *kills;  /* the run's (exec_kills.h): told before the kill */
};

static int pin_decide(void *arg, pid_t pid)
{
	const struct pin_arg *x = arg;
	struct sbx_sn_report rep;
	if (sbx_sn_decide_exe(&x->gate->ctx, pid, &rep) == 0)
		return 0;
	exec_kills_add(x->kills, pid);
	/* killed at its exec stop: the sensor says so (docs/audit.md) */
	return x->a && emit_contained_by(x->a, "ptrace-exec-stop", "execve", (uint32_t)pid, &rep, EACCES) < 0 ? -1 : 1;
}

static int sc_reap(void *st, struct audit *a, pid_t pid, int status)
{
	struct sc_rt *s = st;
	struct pin_arg x = {.gate = &s->gate, .a = a, .kills = s->kills};
	return execpin_reap(&s->pins, pid, status, pin_decide, &x);
}

static void sc_stop(void *st)
{
	struct sc_rt *s = st;
	execpin_release(&s->pins);
	sbx_sn_emu_free(s->gate.ctx.emu);
	if (s->listener >= 0)
		close(s->listener);
	free(s);
}

/* the seccomp entry's stage op (layer.h `stage`), last before "ready" (nothing
 * after an install may make a call the filter notifies). One entry, three modes:
 *   - the layer (`--seccomp`): the filter of the compiled policy; status seccomp=on with its level;
 *   - the report-only sensor (`--sensor`, the layer and the probes off): a filter whose every rule
 *     is user notification, every call continues but what the privilege guard and a manifest
 *     deny refuse; status sensor=on|off;
 *   - neither installed: the privilege guard's own filter (notified where the kernel can, errno
 *     only else), in every mode that sandboxes (not SBXSUP_SANDBOX=0).
 * The layer's and the sensor's filters carry the guard; status privguard=notify|errno. With a
 * manifest deny, status denies=seccomp|sensor|guard|none: the filter that holds it below libc
 * (the guard's own then routes the deny's calls too; sbx_seccomp_state.deny_held). The
 * listener, when one was made, is handed to the supervisor with "ready" (s->listener).
 */
int sbx_seccomp_stage(struct layer_stage *s, bool on)
{
	char why[512], buf[900];
	bool guarded = false; /* a filter carrying the privilege guard is installed */
	/* a manifest deny: which filter holds it below libc ("denies": seccomp, sensor, guard, none) */
	bool denies = s->pol && pol_manifest_deny(s->pol, 0, NULL);
	const char *held = "none";
	if (on) {
		why[0] = 0;
		/* no code:exec (or no policy to say otherwise): the exec gate lets only the command's
		 * own exec through and refuses (and reports) every later one */
		struct sbx_seccomp_opts so = {.deny_exec = !s->pol || !pol_code_exec(s->pol),
					      /* named unix sockets, loopback binds, peers without netfilter */
					      .net_notify = s->pol != NULL,
					      .netfilter = s->netfilter,
					      /* metadata changes are writes (Landlock cannot say so) */
					      .meta_notify = s->pol != NULL,
					      .report_files = s->report_files && s->pol,
					      /* a manifest deny is held below libc (seccomp_notify.h) */
					      .deny_files = s->pol && pol_manifest_deny(s->pol, 0, NULL)};
		if (sbx_seccomp_install_opts(&so, &s->listener, why, sizeof why) < 0) {
			layer_stage_add(s, "seccomp", "off");
			layer_stage_add(s, "seccomp_why", why[0] ? why : "install failed");
			s->listener = -1;
		} else {
			guarded = true;
			if (s->listener >= 0 && so.deny_files)
				held = "seccomp";
			layer_stage_add(s, "seccomp", "on");
			/* short: run.start.level holds 96 bytes */
			snprintf(buf, sizeof buf, "%s%s%s%s%s",
				 so.notify_busy ? "errno (outer sandbox holds the listener: unreported)"
				 : s->listener < 0 ? "errno (no user notification: denials unreported)" : "notify",
				 so.exec_gated ? "; exec gate" : "",
				 s->listener >= 0 && so.net_notify ? "; socket/rlimit/connect/bind args" : "",
				 s->listener >= 0 && so.meta_notify ? "; metadata" : "",
				 s->listener >= 0 && so.report_files ? "; file/exec reporter"
				 : s->listener >= 0 && so.deny_files ? "; denies" : "");
			layer_stage_add(s, "seccomp_level", buf);
		}
	}
	/* The report-only sensor (layer seccomp off, probes off): what the silent layers refuse is
	 * still seen and written by the supervisor; nothing is refused here (every call continues). */
	if (!on && s->sensor) {
		why[0] = 0;
		/* its filter routes every call of the deny's class already (report_files); with a deny the
		 * supervisor decides them as the layer would (sbx_seccomp_state.deny_held) */
		struct sbx_seccomp_opts so = {.report_only = true, .deny_exec = !s->pol || !pol_code_exec(s->pol),
					      .net_notify = true, .netfilter = s->netfilter,
					      .meta_notify = true, .report_files = true, .deny_files = denies};
		if (!s->pol) {
			layer_stage_add(s, "sensor", "off");
			layer_stage_add(s, "sensor_why", "no compiled policy in the stage");
		} else if (sbx_seccomp_install_opts(&so, &s->listener, why, sizeof why) < 0) {
			layer_stage_add(s, "sensor", "off");
			layer_stage_add(s, "sensor_why", so.notify_busy ? "an outer sandbox holds the listener"
								: why[0] ? why : "install failed");
			s->listener = -1;
		} else {
			guarded = true;
			held = "sensor";
			layer_stage_add(s, "sensor", "on");
		}
	}
	/* The privilege guard (contract version 3) in every mode that sandboxes: the layer's and the
	 * sensor's filters carry it (notified: refused and reported by the supervisor); without
	 * either, a filter of its own (notified too where the kernel can; errno only else). Nothing
	 * the command leaves behind can gain privilege. */
	if (s->keep_caps)
		return 0; /* SBXSUP_SANDBOX=0: nothing holds anything (warned as a whole) */
	if (!guarded) {
		why[0] = 0;
		/* abstract unix names where the run shares the host's network namespace: refused and
		 * reported by the guard's filter too (seccomp_unix.h) */
		bool abstract = s->pol && !pol_abstract_inside(s->pol);
		if (sbx_privguard_install(&s->listener, abstract, denies, why, sizeof why) < 0) {
			sbx_msg("%s", why[0] ? why : "privilege guard: install failed");
			return -1;
		}
		if (s->listener >= 0)
			held = "guard";
	} else if (s->listener >= 0) {
		/* The layer's and the sensor's filters notify every sendmsg, so the stage cannot attach
		 * the listener to one: the supervisor takes it by number with pidfd_getfd (ctl.h), a
		 * ptrace-mode access. A non-dumpable stage (the direct sandbox's init is one, and we
		 * are its fork) needs CAP_SYS_PTRACE where it was made, which a normal user's supervisor
		 * lacks. Nothing else of the run exists yet, and the exec makes the command dumpable
		 * anyway. (prctl is not notified.) */
		if (prctl(PR_SET_DUMPABLE, 1, 0, 0, 0) < 0) {
			sbx_msg("seccomp: PR_SET_DUMPABLE: %s", strerror(errno));
			return -1;
		}
		s->listener_by_number = true;
	}
	layer_stage_add(s, "privguard", s->listener >= 0 ? "notify" : "errno");
	if (denies)
		layer_stage_add(s, "denies", held);
	return 0;
}

/* its part in the exec stage (layer.h; walked by layer_stage.c) */
const struct layer_stage_ops stage_seccomp = {
	.flag = "--seccomp",
	.apply = sbx_seccomp_stage,
	.when = LAYER_STAGE_AFTER_CAPS,
	.policy = true,
};

const struct layer_ops layer_seccomp = {
	.id = SBX_L_SECCOMP,
	.name = "seccomp",
	.event = "seccomp.deny",
	.lost = "no syscall filter: dangerous syscalls (ptrace, mount, bpf, unshare, raw sockets, ...) "
		"reach the kernel",
	.per_attempt = true,
	.probe = sc_probe,
	.plan = sc_plan,
	.on_ready = sc_on_ready,
	.stage_said = sc_stage_said,
	.stage_options = sc_stage_options,
	.sensor = sc_sensor,
	.fd = sc_fd,
	.drain = sc_drain,
	.reap = sc_reap,
	.stop = sc_stop,
};
