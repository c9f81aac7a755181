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
#include "layer.h"

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
#include <linux/sched.h>
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
	W_SOCKET_RAW,      /* socket(AF_INET/AF_INET6, SOCK_RAW, ...) and socket(AF_PACKET, ...) */
	W_SETRLIMIT_CORE,  /* setrlimit(RLIMIT_CORE, ...) */
	W_PRLIMIT_CORE,    /* prlimit64(pid, RLIMIT_CORE, new != NULL, ...) */
	W_EXEC_GATE,       /* execve/execveat, only with opts.deny_exec and user notification */
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
	{"socket", EPERM, W_SOCKET_RAW, false},
	{"setrlimit", EPERM, W_SETRLIMIT_CORE, false},
	{"prlimit64", EPERM, W_PRLIMIT_CORE, false},
	{"personality", EPERM, W_PERSONALITY, false},
	{"execve", EACCES, W_EXEC_GATE, false},
	{"execveat", EACCES, W_EXEC_GATE, false},
};
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
	case W_SETRLIMIT_CORE: return "resource == RLIMIT_CORE (core dumps stay off: a dump may go to a host helper via core_pattern)";
	case W_PRLIMIT_CORE: return "resource == RLIMIT_CORE and a new limit is given (reading it is allowed)";
	case W_SOCKET_RAW: return "domain AF_PACKET, or AF_INET/AF_INET6 with type SOCK_RAW (raw packets bypass the cgroup network hooks)";
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
	case W_SOCKET_RAW:
		/* raw IP and packet sockets are not seen by cgroup/connect,sendmsg: refuse them (they need
		 * CAP_NET_RAW, which an executor run as root without bwrap has). AF_NETLINK/AF_UNIX
		 * SOCK_RAW stay allowed (getaddrinfo uses netlink). */
		rc = seccomp_rule_add(ctx, act, nr, 1, SCMP_A0_32(SCMP_CMP_EQ, AF_PACKET));
		if (!rc)
			rc = seccomp_rule_add(ctx, act, nr, 2, SCMP_A0_32(SCMP_CMP_EQ, AF_INET),
					      SCMP_A1_32(SCMP_CMP_MASKED_EQ, 0xf, SOCK_RAW));
		if (!rc)
			rc = seccomp_rule_add(ctx, act, nr, 2, SCMP_A0_32(SCMP_CMP_EQ, AF_INET6),
					      SCMP_A1_32(SCMP_CMP_MASKED_EQ, 0xf, SOCK_RAW));
		break;
	case W_SETRLIMIT_CORE:
		/* the limits layer sets RLIMIT_CORE to 0; a root executor (CAP_SYS_RESOURCE) could raise
		 * it again and crash a child, and a pipe core_pattern runs a helper on the host */
		rc = seccomp_rule_add(ctx, act, nr, 1, SCMP_A0_32(SCMP_CMP_EQ, RLIMIT_CORE));
		break;
	case W_PRLIMIT_CORE:
		rc = seccomp_rule_add(ctx, act, nr, 2, SCMP_A1_32(SCMP_CMP_EQ, RLIMIT_CORE),
				      SCMP_A2_64(SCMP_CMP_NE, 0));
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

static scmp_filter_ctx build(bool notify, bool tsync, bool exec_gate, char *why, size_t whylen)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ALLOW);
	if (!ctx) {
		snprintf(why, whylen, "seccomp_init failed");
		return NULL;
	}
	int rc = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH,
				  notify ? SCMP_ACT_NOTIFY : SCMP_ACT_ERRNO(FOREIGN_ERR));
	if (rc) {
		snprintf(why, whylen, "bad-arch action: %s", strerror(-rc));
		goto fail;
	}
	if (tsync && (rc = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_TSYNC, 1))) {
		snprintf(why, whylen, "TSYNC: %s", strerror(-rc));
		goto fail;
	}
	for (size_t i = 0; i < NRULES; i++) {
		if (deny_table[i].when == W_EXEC_GATE && !exec_gate)
			continue;
		int nr = seccomp_syscall_resolve_name(deny_table[i].name);
		if (nr < 0)
			continue; /* not a syscall on this architecture (umount on x86_64, iopl on arm64):
				   * __NR_SCMP_ERROR or a libseccomp pseudo-syscall number */
		if ((rc = add_rule(ctx, &deny_table[i], nr, notify))) {
			snprintf(why, whylen, "rule for %s: %s", deny_table[i].name, strerror(-rc));
			goto fail;
		}
	}
	return ctx;
fail:
	seccomp_release(ctx);
	return NULL;
}

static int install(bool notify, bool tsync, bool exec_gate, int *listener, char *why, size_t whylen);

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
	/* the gate needs the supervisor to let the stage's own execve through: notification only */
	o->exec_gated = o->deny_exec && notify;
	return install(notify, tsync, o->exec_gated, listener, why, whylen);
}

int sbx_seccomp_install_errno_only(char *why, size_t whylen)
{
	int listener;
	return install(false, seccomp_api_get() >= 2, false, &listener, why, whylen);
}

static int install(bool notify, bool tsync, bool exec_gate, int *listener, char *why, size_t whylen)
{
	*listener = -1;
	scmp_filter_ctx ctx = build(notify, tsync, exec_gate, why, whylen);
	if (!ctx)
		return -1;
	int rc = seccomp_load(ctx);
	if (rc) {
		snprintf(why, whylen, "seccomp_load: %s", strerror(-rc));
		seccomp_release(ctx);
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
	char *name = seccomp_syscall_resolve_num_arch(rarch, nr);
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
	if ((!strcmp(sys, "execve") || !strcmp(sys, "execveat")) && st && !st->exec_spent) {
		/* The exec gate's first execve: the stage starting the command (nothing else carries
		 * the filter yet — it was installed in the single-threaded stage just before). Its
		 * arguments are the stage's own, so CONTINUE has nothing to race. Every later one is
		 * refused below. Without a state (NULL) every exec is refused: fail closed. */
		st->exec_spent = true;
		resp->id = req->id;
		resp->val = 0;
		resp->error = 0;
		resp->flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
		(void)seccomp_notify_respond(listener, resp);
		goto out;
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
	if (a) {
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
		if (audit_emit(a, ev) < 0)
			ret = -1; /* the stream failed (a->failed): the caller fails closed */
	}
out:
	seccomp_notify_free(req, resp);
	return ret;
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
		if (seccomp_syscall_resolve_name(deny_table[i].name) < 0)
			continue;
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
};

static void sc_on_ready(struct layer_ctx *c, void **st, const char *status, pid_t pid, int listener)
{
	if (listener < 0)
		return;
	struct sc_rt *s = calloc(1, sizeof *s);
	if (!s) {
		close(listener); /* denied calls then fail with ENOSYS: never allowed */
		return;
	}
	s->listener = listener;
	*st = s;
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

static void sc_stop(void *st)
{
	struct sc_rt *s = st;
	if (s->listener >= 0)
		close(s->listener);
	free(s);
}

const struct layer_ops layer_seccomp = {
	.id = SBX_L_SECCOMP,
	.name = "seccomp",
	.lost = "no syscall filter: dangerous syscalls (ptrace, mount, bpf, unshare, raw sockets, ...) "
		"reach the kernel",
	.stage_flag = "--seccomp",
	.per_attempt = true,
	.probe = sc_probe,
	.plan = sc_plan,
	.on_ready = sc_on_ready,
	.fd = sc_fd,
	.drain = sc_drain,
	.stop = sc_stop,
};
