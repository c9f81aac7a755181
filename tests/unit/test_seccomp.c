/* test_seccomp.c — the seccomp layer alone, in a forked child per test: each denied call fails with
 * its errno, and (with user notification) the supervisor side writes `seccomp.deny` naming it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/personality.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <sys/un.h>
#include <netinet/in.h>
#include <linux/netlink.h>

#include "audit.h"
#include "seccomp_layer.h"
#include "manifest.h"
#include "policy_build.h"
#include "child_expect.h"
#include "seccomp_notify.h"
#include <linux/capability.h>
#include <netinet/in.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#ifndef __NR_io_uring_setup
#define __NR_io_uring_setup 425
#endif
#ifndef __NR_clone3
#define __NR_clone3 435
#endif

/* fails, EXPECT, EXPECT_OK, EXPECT_ERR: tests/lib/child_expect.h */

#if defined(__x86_64__)
static long int80(long nr)
{
	long r;
	__asm__ volatile("int $0x80" : "=a"(r) : "a"(nr) : "memory");
	return r;
}
#endif

static void *thread_ptrace(void *arg)
{
	(void)arg;
	EXPECT_ERR("ptrace from a thread started before install (TSYNC)", ptrace(PTRACE_TRACEME, 0, 0, 0), EPERM);
	return NULL;
}

static int gate[2];
static void *thread_wait(void *arg)
{
	char c;
	(void)arg;
	if (read(gate[0], &c, 1) != 1)
		fails++;
	return thread_ptrace(NULL);
}

/* Runs in the child after install: every attack, counting unexpected results. */
static int attacks(void)
{
	fails = 0;
	EXPECT_ERR("ptrace(ATTACH, parent)", ptrace(PTRACE_ATTACH, getppid(), 0, 0), EPERM);
	EXPECT_ERR("unshare(CLONE_NEWUSER)", unshare(CLONE_NEWUSER), EPERM);
	EXPECT_ERR("unshare(CLONE_NEWNS|CLONE_FILES)", unshare(CLONE_NEWNS | CLONE_FILES), EPERM);
	EXPECT_ERR("mount", syscall(SYS_mount, "none", "/mnt", "tmpfs", 0, NULL), EPERM);
	EXPECT_ERR("bpf", syscall(SYS_bpf, 0, NULL, 0), EPERM);
	EXPECT_ERR("keyctl", syscall(SYS_keyctl, 0, 0, 0, 0, 0), EPERM);
	EXPECT_ERR("io_uring_setup", syscall(__NR_io_uring_setup, 1, NULL), ENOSYS);
	EXPECT_ERR("clone3", syscall(__NR_clone3, NULL, 0), ENOSYS);
	int fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	char ch = 'x';
	EXPECT_ERR("ioctl(TIOCSTI)", ioctl(fd, TIOCSTI, &ch), EPERM);
	/* upper 32 bits set: the kernel still sees TIOCSTI; the filter must too */
	EXPECT_ERR("ioctl(TIOCSTI | junk << 32)", syscall(SYS_ioctl, fd, 0xdead00000000UL | TIOCSTI, &ch), EPERM);
	/* an unrelated ioctl is not filtered: ENOTTY from the kernel */
	EXPECT_ERR("ioctl(TCGETS) on /dev/null passes the filter", ioctl(fd, TCGETS, NULL), ENOTTY);
	close(fd);
	EXPECT_ERR("socket(AF_INET, SOCK_RAW)", socket(AF_INET, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_ICMP), EPERM);
	EXPECT_ERR("socket(AF_INET6, SOCK_RAW)", socket(AF_INET6, SOCK_RAW, IPPROTO_ICMPV6), EPERM);
	EXPECT_ERR("socket(AF_PACKET)", socket(AF_PACKET, SOCK_DGRAM, 0), EPERM);
	int ns = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_ROUTE);
	if (ns < 0) {
		fprintf(stderr, "# child: netlink socket refused: %s\n", strerror(errno));
		fails++;
	} else {
		close(ns);
	}
	ns = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (ns < 0)
		fails++;
	else
		close(ns);
	/* issue 13: the socket allowlist, every family/protocol outside it refused and reported */
	EXPECT_ERR("socket(AF_VSOCK)", socket(AF_VSOCK, SOCK_STREAM, 0), EAFNOSUPPORT);
	EXPECT_ERR("socket(AF_ALG)", socket(AF_ALG, SOCK_SEQPACKET, 0), EAFNOSUPPORT);
	EXPECT_ERR("socket(AF_KEY)", socket(AF_KEY, SOCK_RAW, 2), EAFNOSUPPORT);
	EXPECT_ERR("socket(AF_BLUETOOTH)", socket(AF_BLUETOOTH, SOCK_STREAM, 0), EAFNOSUPPORT);
	EXPECT_ERR("socket(AF_XDP)", socket(AF_XDP, SOCK_RAW, 0), EAFNOSUPPORT);
	EXPECT_ERR("socket(AF_INET, DGRAM, UDPLITE)", socket(AF_INET, SOCK_DGRAM, IPPROTO_UDPLITE), EPROTONOSUPPORT);
	EXPECT_ERR("socket(AF_INET6, STREAM, SCTP)", socket(AF_INET6, SOCK_STREAM, IPPROTO_SCTP), EPROTONOSUPPORT);
	EXPECT_ERR("socket(AF_INET, SEQPACKET, SCTP)", socket(AF_INET, SOCK_SEQPACKET, IPPROTO_SCTP), EPROTONOSUPPORT);
	EXPECT_ERR("socket(AF_INET, DCCP)", socket(AF_INET, SOCK_DCCP, IPPROTO_DCCP), EPROTONOSUPPORT);
	EXPECT_ERR("socket(AF_INET, STREAM, MPTCP)", socket(AF_INET, SOCK_STREAM, 262), EPROTONOSUPPORT);
	EXPECT_ERR("socket(AF_NETLINK, NETLINK_AUDIT)", socket(AF_NETLINK, SOCK_RAW, NETLINK_AUDIT), EPROTONOSUPPORT);
	EXPECT_ERR("ping socket without an unrestricted network", socket(AF_INET, SOCK_DGRAM, IPPROTO_ICMP), EACCES);
	int spv[2];
	EXPECT_ERR("socketpair(AF_VSOCK)", socketpair(AF_VSOCK, SOCK_STREAM, 0, spv), EAFNOSUPPORT);
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, spv) < 0) {
		fprintf(stderr, "# child: socketpair(AF_UNIX) refused\n");
		fails++;
	} else {
		close(spv[0]);
		close(spv[1]);
	}
	ns = socket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, IPPROTO_UDP);
	if (ns < 0) {
		fprintf(stderr, "# child: UDP socket refused\n");
		fails++;
	} else {
		close(ns);
	}
	/* issue 17: lowering any limit works (ulimit -c 0); raising the hard limit is refused */
	struct rlimit rl = {0, 0};
	if (setrlimit(RLIMIT_CORE, &rl) < 0 || syscall(SYS_setrlimit, RLIMIT_CORE, &rl) < 0) {
		fprintf(stderr, "# child: lowering RLIMIT_CORE refused: %s\n", strerror(errno));
		fails++;
	}
	if (getrlimit(RLIMIT_CORE, &rl) < 0) {
		fprintf(stderr, "# child: getrlimit(RLIMIT_CORE) refused\n");
		fails++;
	}
	rl.rlim_cur = rl.rlim_max = 1024;
	if (setrlimit(RLIMIT_NOFILE, &rl) < 0) {
		fprintf(stderr, "# child: setrlimit(RLIMIT_NOFILE) refused\n");
		fails++;
	}
	rl.rlim_cur = rl.rlim_max = 4096;
	EXPECT_ERR("raise the hard RLIMIT_NOFILE (raw setrlimit)", syscall(SYS_setrlimit, RLIMIT_NOFILE, &rl), EPERM);
	rl.rlim_cur = 0;
	rl.rlim_max = RLIM_INFINITY;
	EXPECT_ERR("raise the hard RLIMIT_CORE (prlimit)", prlimit(0, RLIMIT_CORE, &rl, NULL), EPERM);
	EXPECT_ERR("personality(PER_LINUX32)", personality(PER_LINUX32), EPERM);
	if (personality(0xffffffff) < 0) {
		fprintf(stderr, "# child: personality query refused\n");
		fails++;
	}
	/* a plain fork (clone without namespace flags) still works */
	pid_t p = fork();
	if (p == 0)
		_exit(0);
	if (p < 0 || ku_wait(p) != 0) {
		fprintf(stderr, "# child: fork failed under the filter\n");
		fails++;
	}
	pthread_t t;
	if (pthread_create(&t, NULL, thread_ptrace, NULL) == 0)
		pthread_join(t, NULL);
	else
		fails++;
#if defined(__x86_64__)
	long r = int80(20); /* i386 getpid */
	if (r != -EPERM) {
		fprintf(stderr, "# child: int 0x80 getpid returned %ld, want -EPERM\n", r);
		fails++;
	}
	EXPECT_ERR("x32 getpid", syscall(0x40000000 | 39), EPERM);
#endif
	return fails;
}

/* Serve notifications for `child` until it exits; returns its status. */
static int serve_state(pid_t child, int listener, struct audit *a, struct sbx_seccomp_state *sst)
{
	for (;;) {
		struct pollfd pfd = {.fd = listener, .events = POLLIN};
		int r = poll(&pfd, 1, 200);
		if (r > 0 && sbx_seccomp_handle_state(listener, a, sst) < 0)
			break; /* listener gone: no filter user left */
		int st;
		pid_t w = waitpid(child, &st, WNOHANG);
		if (w == child) {
			close(listener);
			return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
		}
	}
	close(listener);
	return ku_wait(child);
}

static int serve(pid_t child, int listener, struct audit *a)
{
	return serve_state(child, listener, a, NULL);
}

static char g_audit[64]; /* the temp audit stream; removed by teardown even when an assertion fails */

static int teardown(void **state)
{
	(void)state;
	if (g_audit[0])
		unlink(g_audit);
	return 0;
}

static void test_probe(void **state)
{
	(void)state;
	char level[128] = "", why[256] = "";
	assert_int_equal(sbx_seccomp_probe(level, sizeof level, why, sizeof why), 1);
	/* this host (kernel 6.x, libseccomp 2.5.4) has user notification with TSYNC */
	assert_string_equal(level, "notify");
}

static void test_denied_and_reported(void **state)
{
	(void)state;
	char *path = g_audit;
	snprintf(g_audit, sizeof g_audit, "/tmp/sbx-test-seccomp-XXXXXX");
	int tfd = mkstemp(path);
	assert_true(tfd >= 0);
	close(tfd);
	unlink(path);
	struct audit a;
	char err[256];
	assert_int_equal(audit_open(&a, path, "test-seccomp", err, sizeof err), 0);

	int sp[2];
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp), 0);
	assert_int_equal(pipe(gate), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(sp[0]);
		/* a thread that exists before install must be covered too (TSYNC) */
		pthread_t t;
		if (pthread_create(&t, NULL, thread_wait, NULL))
			_exit(100);
		int listener = -1;
		char why[256] = "";
		if (sbx_seccomp_install(&listener, why, sizeof why) < 0) {
			fprintf(stderr, "# child: install: %s\n", why);
			_exit(101);
		}
		if (listener < 0 || !(fcntl(listener, F_GETFD) & FD_CLOEXEC))
			_exit(102);
		if (ku_send_fd(sp[1], listener) < 0)
			_exit(103);
		close(listener);
		if (write(gate[1], "g", 1) != 1)
			_exit(104);
		pthread_join(t, NULL);
		int f = attacks();
		_exit(f > 50 ? 50 : f);
	}
	close(sp[1]);
	int listener = ku_recv_fd(sp[0]);
	close(sp[0]);
	assert_true(listener >= 0);
	int rc = serve(pid, listener, &a);
	audit_close(&a);
	assert_int_equal(rc, 0);

	assert_true(ku_line_has(path, "\"event\":\"seccomp.deny\"", "\"syscall\":\"ptrace\"", "\"action\":\"errno EPERM\"",
				"\"src\":\"kernel\"", "\"pid\":", NULL));
	assert_true(ku_line_has(path, "\"event\":\"seccomp.deny\"", "\"syscall\":\"unshare\"", NULL));
	assert_true(ku_line_has(path, "\"event\":\"seccomp.deny\"", "\"syscall\":\"mount\"", NULL));
	assert_true(ku_line_has(path, "\"event\":\"seccomp.deny\"", "\"syscall\":\"ioctl\"", NULL));
	assert_true(ku_line_has(path, "\"event\":\"seccomp.deny\"", "\"syscall\":\"personality\"", NULL));
	assert_true(ku_line_has(path, "\"event\":\"seccomp.deny\"", "\"syscall\":\"socket\"", NULL));
	assert_true(ku_line_has(path, "\"event\":\"seccomp.deny\"", "\"syscall\":\"prlimit64\"",
				"\"limit\":\"RLIMIT_CORE unlimited > 0\"", NULL));
	assert_true(ku_line_has(path, "\"event\":\"seccomp.deny\"", "\"syscall\":\"setrlimit\"",
				"\"limit\":\"RLIMIT_NOFILE 4096 > 1024\"", "\"action\":\"errno EPERM\"", NULL));
	/* lowering is not reported */
	assert_false(ku_line_has(path, "RLIMIT_CORE 0", NULL));
	static const char *const socks[] = {
		"\"socket\":\"AF_VSOCK\"", "\"socket\":\"AF_ALG\"", "\"socket\":\"AF_KEY\"",
		"\"socket\":\"AF_BLUETOOTH\"", "\"socket\":\"AF_XDP\"",
		"\"socket\":\"AF_INET SOCK_DGRAM IPPROTO_UDPLITE\"", "\"socket\":\"AF_INET6 SOCK_STREAM IPPROTO_SCTP\"",
		"\"socket\":\"AF_INET SOCK_DCCP IPPROTO_DCCP\"", "\"socket\":\"AF_INET SOCK_STREAM IPPROTO_MPTCP\"",
		"\"socket\":\"AF_NETLINK NETLINK_AUDIT\"", "\"socket\":\"AF_INET SOCK_DGRAM IPPROTO_ICMP\"",
		"\"socket\":\"AF_PACKET\"", "\"socket\":\"AF_INET SOCK_RAW IPPROTO_ICMP\"",
	};
	for (size_t i = 0; i < sizeof socks / sizeof socks[0]; i++)
		if (!ku_line_has(path, "\"event\":\"seccomp.deny\"", socks[i], NULL))
			fail_msg("no seccomp.deny with %s", socks[i]);
	assert_true(ku_line_has(path, "\"event\":\"seccomp.deny\"", "\"syscall\":\"socketpair\"",
				"\"socket\":\"AF_VSOCK\"", "\"action\":\"errno EAFNOSUPPORT\"", NULL));
	assert_true(ku_line_has(path, "\"event\":\"seccomp.deny\"", "\"syscall\":\"io_uring_setup\"",
				"\"action\":\"errno ENOSYS\"", NULL));
#if defined(__x86_64__)
	assert_true(ku_line_has(path, "\"event\":\"seccomp.deny\"", "\"syscall\":\"x86:getpid\"", NULL));
	assert_true(ku_line_has(path, "\"event\":\"seccomp.deny\"", "\"syscall\":\"x32:getpid\"", NULL));
#endif
	/* clone3 is refused silently (glibc falls back to clone) */
	assert_false(ku_line_has(path, "\"syscall\":\"clone3\"", NULL));
	unlink(path);
}

/* The supervisor gone: a notified call fails with ENOSYS instead of hanging. */
static void test_no_supervisor_no_hang(void **state)
{
	(void)state;
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int listener = -1;
		char why[256];
		if (sbx_seccomp_install(&listener, why, sizeof why) < 0)
			_exit(101);
		close(listener);
		errno = 0;
		long r = ptrace(PTRACE_TRACEME, 0, 0, 0);
		_exit(r == -1 && errno == ENOSYS ? 0 : 1);
	}
	assert_int_equal(ku_wait(pid), 0);
}

/* The listener does not survive execve (the executor cannot answer its own notifications). */
static void test_listener_cloexec_across_exec(void **state)
{
	(void)state;
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int listener = -1;
		char why[256], arg[64];
		if (sbx_seccomp_install(&listener, why, sizeof why) < 0)
			_exit(101);
		snprintf(arg, sizeof arg, "test -e /proc/self/fd/%d && exit 1; exit 0", listener);
		execl("/bin/sh", "sh", "-c", arg, (char *)NULL);
		_exit(102);
	}
	assert_int_equal(ku_wait(pid), 0);
}

/* Without user notification: the same denials, errno only. */
static void test_errno_only(void **state)
{
	(void)state;
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		char why[256];
		if (sbx_seccomp_install_errno_only(why, sizeof why) < 0)
			_exit(101);
		fails = 0;
		EXPECT_ERR("ptrace", ptrace(PTRACE_TRACEME, 0, 0, 0), EPERM);
		EXPECT_ERR("unshare(CLONE_NEWUSER)", unshare(CLONE_NEWUSER), EPERM);
		EXPECT_ERR("io_uring_setup", syscall(__NR_io_uring_setup, 1, NULL), ENOSYS);
		/* the socket allowlist approximated without a supervisor */
		EXPECT_ERR("socket(AF_VSOCK)", socket(AF_VSOCK, SOCK_STREAM, 0), EAFNOSUPPORT);
		EXPECT_ERR("socket(AF_ALG)", socket(AF_ALG, SOCK_SEQPACKET, 0), EAFNOSUPPORT);
		EXPECT_ERR("socket(AF_PACKET)", socket(AF_PACKET, SOCK_DGRAM, 0), EPERM);
		EXPECT_ERR("socket(AF_INET, SOCK_RAW)", socket(AF_INET, SOCK_RAW, IPPROTO_ICMP), EPERM);
		EXPECT_ERR("UDP-Lite", socket(AF_INET, SOCK_DGRAM, IPPROTO_UDPLITE), EPROTONOSUPPORT);
		EXPECT_ERR("SCTP stream", socket(AF_INET6, SOCK_STREAM, IPPROTO_SCTP), EPROTONOSUPPORT);
		EXPECT_ERR("SOCK_SEQPACKET on IP", socket(AF_INET, SOCK_SEQPACKET, IPPROTO_SCTP), EPROTONOSUPPORT);
		EXPECT_ERR("NETLINK_AUDIT", socket(AF_NETLINK, SOCK_RAW, NETLINK_AUDIT), EPROTONOSUPPORT);
		int ok[4] = {socket(AF_UNIX, SOCK_STREAM, 0), socket(AF_INET, SOCK_STREAM, 0),
			     socket(AF_INET6, SOCK_DGRAM, IPPROTO_UDP), socket(AF_NETLINK, SOCK_RAW, NETLINK_ROUTE)};
		for (int i = 0; i < 4; i++)
			if (ok[i] < 0)
				fails++;
		/* no rlimit rule without a supervisor to compare: lowering works */
		struct rlimit rl = {0, 0};
		if (setrlimit(RLIMIT_CORE, &rl) < 0)
			fails++;
#if defined(__x86_64__)
		if (int80(20) != -EPERM)
			fails++;
		EXPECT_ERR("x32 getpid", syscall(0x40000000 | 39), EPERM);
#endif
		_exit(fails);
	}
	assert_int_equal(ku_wait(pid), 0);
}


/* build-X/tests/progs/k_attack_static, next to this test binary (build-X/tests/test_seccomp). */
static const char *attack_prog(void)
{
	static char p[4096];
	ssize_t n = readlink("/proc/self/exe", p, sizeof p - 40);
	if (n <= 0)
		return NULL;
	p[n] = 0;
	char *sl = strrchr(p, '/');
	if (!sl)
		return NULL;
	snprintf(sl, 40, "/progs/k_attack_static");
	return access(p, X_OK) == 0 ? p : NULL;
}

/* Child: install with `deny_exec`, hand the listener over, exec k_attack_static with `argv`. */
static pid_t gate_child(bool deny_exec, char *const argv[], int *listener_out)
{
	int sp[2];
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp) < 0)
		return -1;
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		close(sp[0]);
		int listener = -1;
		char why[256] = "";
		struct sbx_seccomp_opts o = {.deny_exec = deny_exec};
		if (sbx_seccomp_install_opts(&o, &listener, why, sizeof why) < 0) {
			fprintf(stderr, "# child: install: %s\n", why);
			_exit(101);
		}
		if (o.exec_gated != deny_exec || listener < 0)
			_exit(102);
		if (ku_send_fd(sp[1], listener) < 0)
			_exit(103);
		close(listener);
		execv(argv[0], argv);
		_exit(errno == EACCES ? 77 : 104); /* 77: the command's own exec was refused */
	}
	close(sp[1]);
	*listener_out = ku_recv_fd(sp[0]);
	close(sp[0]);
	return pid;
}

/* The exec gate (no code:exec): the command's own exec runs, every later one — a raw execve from
 * a static binary, the dynamic loader run as a program — fails with EACCES and is reported. */
static void test_exec_gate(void **state)
{
	(void)state;
	const char *k = attack_prog();
	assert_non_null(k);
	char *path = g_audit;
	snprintf(g_audit, sizeof g_audit, "/tmp/sbx-test-seccomp-XXXXXX");
	int tfd = mkstemp(path);
	assert_true(tfd >= 0);
	close(tfd);
	unlink(path);
	struct audit a;
	char err[256];
	assert_int_equal(audit_open(&a, path, "test-seccomp", err, sizeof err), 0);
	char *argv[] = {(char *)k, "exec", "/bin/true", "exec", "/lib64/ld-linux-x86-64.so.2", NULL};
	int listener = -1;
	pid_t pid = gate_child(true, argv, &listener);
	assert_true(pid > 0 && listener >= 0);
	struct sbx_seccomp_state sst = {0};
	int rc = serve_state(pid, listener, &a, &sst);
	audit_close(&a);
	assert_int_equal(rc, 0); /* k_attack_static: 0 attacks succeeded */
	assert_true(sst.exec_spent);
	assert_true(ku_line_has(path, "\"event\":\"seccomp.deny\"", "\"syscall\":\"execve\"", "\"action\":\"errno EACCES\"",
				"\"src\":\"kernel\"", NULL));
	unlink(path);

	/* control: without the gate both execs run (2 attacks succeeded) */
	pid = gate_child(false, argv, &listener);
	assert_true(pid > 0 && listener >= 0);
	assert_int_equal(serve_state(pid, listener, NULL, NULL), 2);

	/* fail closed: the gate served without a state refuses the command's own exec too */
	pid = gate_child(true, argv, &listener);
	assert_true(pid > 0 && listener >= 0);
	assert_int_equal(serve_state(pid, listener, NULL, NULL), 77);
}

/* Child: the report-only sensor's filter (opts.report_only), listener handed over, exec argv. */
static pid_t sensor_child(char *const argv[], int *listener_out)
{
	int sp[2];
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp) < 0)
		return -1;
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		close(sp[0]);
		int listener = -1;
		char why[256] = "";
		struct sbx_seccomp_opts o = {.report_only = true, .deny_exec = true, .net_notify = true,
					     .meta_notify = true, .report_files = true};
		if (sbx_seccomp_install_opts(&o, &listener, why, sizeof why) < 0 || listener < 0) {
			fprintf(stderr, "# child: install: %s\n", why);
			_exit(101);
		}
		if (o.exec_gated) /* a sensor never gates */
			_exit(102);
		if (ku_send_fd(sp[1], listener) < 0)
			_exit(103);
		close(listener);
		execv(argv[0], argv);
		_exit(104);
	}
	close(sp[1]);
	*listener_out = ku_recv_fd(sp[0]);
	close(sp[0]);
	return pid;
}

/* The report-only sensor changes nothing the command sees — every call runs as without a filter,
 * with the kernel's own result and errno — and writes what the seccomp layer would refuse as
 * kernel.violation, sensor seccomp-notify, outcome attempted (never seccomp.deny). */
static void test_report_only(void **state)
{
	(void)state;
	const char *k = attack_prog();
	assert_non_null(k);
	char ws[] = "/tmp/sbx-test-sensor-ws-XXXXXX";
	assert_non_null(mkdtemp(ws));
	struct manifest m = {.version = 1, .name = "sensor-test", .autonomy = MF_AUTONOMY_SUPERVISED,
			     .code_exec = false, .workspace = ws, .home = "/home/nobody-sensor-test"};
	struct pol_build_opts po = {.resolve = false, .uid = getuid()};
	void *blob = NULL;
	size_t len = 0;
	char err[256];
	assert_int_equal(pol_build(&m, &po, &blob, &len, err, sizeof err), 0);
	const char *why;
	const struct policy *pol = pol_open(blob, len, &why);
	assert_non_null(pol);
	/* a read of a secret (root: it opens), a missing file (ENOENT), an exec without code:exec
	 * (the layer's gate would refuse it), a raw AF_VSOCK socket (the allowlist would refuse it) */
	char *argv[] = {(char *)k, "open", "/etc/shadow", "open", "/nonexistent-sbx-sensor", "exec", "/bin/true",
			"vsock", "2", "9", NULL};
	pid_t c = fork();
	assert_true(c >= 0);
	if (c == 0) {
		execv(argv[0], argv);
		_exit(104);
	}
	int want = ku_wait(c); /* the same command without any filter: the number that succeeded */
	snprintf(g_audit, sizeof g_audit, "/tmp/sbx-test-seccomp-XXXXXX");
	int tfd = mkstemp(g_audit);
	assert_true(tfd >= 0);
	close(tfd);
	unlink(g_audit);
	struct audit a;
	assert_int_equal(audit_open(&a, g_audit, "test-seccomp", err, sizeof err), 0);
	int listener = -1;
	pid_t pid = sensor_child(argv, &listener);
	assert_true(pid > 0 && listener >= 0);
	struct sbx_seccomp_state sst;
	sbx_seccomp_state_init(&sst, pol, false);
	sst.report_only = sst.ctx.report_only = true;
	int rc = serve_state(pid, listener, &a, &sst);
	audit_close(&a);
	assert_int_equal(rc, want);
	assert_true(ku_line_has(g_audit, "\"event\":\"kernel.violation\"", "\"path\":\"/etc/shadow\"",
				"\"outcome\":\"attempted\"", "\"sensor\":\"seccomp-notify\"", NULL));
	assert_true(ku_line_has(g_audit, "\"event\":\"kernel.violation\"", "\"syscall\":\"execve\"",
				"\"rule\":\"no code:exec capability\"", "\"outcome\":\"attempted\"", NULL));
	assert_false(ku_line_has(g_audit, "\"event\":\"seccomp.deny\"", NULL));
	assert_false(ku_line_has(g_audit, "\"errno\"", "\"outcome\":\"attempted\"", NULL));
	unlink(g_audit);
	g_audit[0] = 0;
	free(blob);
	rmdir(ws);
}

/* The privilege guard's own filter (sbx_privguard_install, the stage's when neither the layer's nor
 * the sensor's is installed): setuid/setgid modes, devices, user namespaces and openat2 refused,
 * a sendmmsg whose later message names a unix peer the policy refuses refused whole, everything
 * else as without it; the refusals reported as kernel.violation (contained). */
static void test_privguard(void **state)
{
	(void)state;
	char dir[] = "/tmp/sbx-test-privguard-XXXXXX";
	assert_non_null(mkdtemp(dir));
	char f[128], d[128], n[128];
	snprintf(f, sizeof f, "%s/f", dir);
	snprintf(d, sizeof d, "%s/d", dir);
	snprintf(n, sizeof n, "%s/n", dir);
	snprintf(g_audit, sizeof g_audit, "/tmp/sbx-test-seccomp-XXXXXX");
	int tfd = mkstemp(g_audit);
	assert_true(tfd >= 0);
	close(tfd);
	unlink(g_audit);
	char err[256];
	struct audit a;
	assert_int_equal(audit_open(&a, g_audit, "test-seccomp", err, sizeof err), 0);
	int sp[2];
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(sp[0]);
		int listener = -1;
		char why[256] = "";
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 || sbx_privguard_install(&listener, false, false, why, sizeof why) < 0) {
			fprintf(stderr, "# child: install: %s\n", why);
			_exit(101);
		}
		if (listener < 0 || ku_send_fd(sp[1], listener) < 0)
			_exit(102);
		close(listener);
		fails = 0;
		int fd = open(f, O_RDWR | O_CREAT, 0755);
		EXPECT_OK("create 0755", fd);
		EXPECT_ERR("chmod 4755", chmod(f, 04755), EPERM);
		EXPECT_ERR("fchmod 2755", fchmod(fd, 02755), EPERM);
		EXPECT_ERR("fchmodat2 6755", syscall(452, AT_FDCWD, f, 06755, 0), EPERM);
		EXPECT_ERR("wide mode", syscall(SYS_fchmodat, AT_FDCWD, f, 0x100004755L), EPERM);
		EXPECT_OK("chmod 1777 (sticky)", chmod(f, 01777));
		EXPECT_OK("chmod 0700", chmod(f, 0700));
		EXPECT_ERR("open O_CREAT 6755", open(n, O_WRONLY | O_CREAT, 06755), EPERM);
		EXPECT_ERR("open O_TMPFILE 4755", open(dir, O_TMPFILE | O_RDWR, 04755), EPERM);
		EXPECT_ERR("creat 2755", creat(n, 02755), EPERM);
		EXPECT_OK("open without O_CREAT ignores the mode", open(f, O_RDONLY, 06755));
		EXPECT_ERR("mknod S_IFREG|4755", mknod(n, S_IFREG | 04755, 0), EPERM);
		EXPECT_ERR("mknod char", mknod(n, S_IFCHR | 0600, makedev(1, 3)), EPERM);
		EXPECT_ERR("mknod block", mknod(n, S_IFBLK | 0600, makedev(7, 0)), EPERM);
		EXPECT_OK("mkfifo", mknod(n, S_IFIFO | 0600, 0));
		EXPECT_OK("mkdir 2775 (masked)", mkdir(d, 02775));
		EXPECT_ERR("openat2", syscall(437, AT_FDCWD, f, &(uint64_t[3]){O_RDONLY, 0, 0}, 24), ENOSYS);
		EXPECT_ERR("clone3", syscall(__NR_clone3, NULL, 0), ENOSYS);
		EXPECT_ERR("io_uring_setup", syscall(__NR_io_uring_setup, 1, NULL), ENOSYS);
		EXPECT_ERR("unshare(CLONE_NEWUSER)", unshare(CLONE_NEWUSER), EPERM);
		EXPECT_ERR("setxattr security.capability", setxattr(f, "security.capability", "\1\0\0\2", 4, 0), EPERM);
		EXPECT_OK("setxattr user.x", setxattr(f, "user.x", "1", 1, 0) == 0 || errno == EOPNOTSUPP ? 0 : -1);
		/* sendmmsg: every message's peer decided (no policy here: a named unix peer is refused,
		 * the whole call); a message without a name continues */
		struct sockaddr_un ra = {.sun_family = AF_UNIX}, rb = {.sun_family = AF_UNIX};
		snprintf(ra.sun_path, sizeof ra.sun_path, "%s/ra", dir);
		snprintf(rb.sun_path, sizeof rb.sun_path, "%s/rb", dir);
		int r1 = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0), r2 = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		int sd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		EXPECT_OK("receivers", r1 < 0 || r2 < 0 || sd < 0 || bind(r1, (struct sockaddr *)&ra, sizeof ra) < 0 ||
					       bind(r2, (struct sockaddr *)&rb, sizeof rb) < 0 ||
					       connect(sd, (struct sockaddr *)&ra, sizeof ra) < 0 ? -1 : 0);
		char byte = 'x';
		struct iovec io1 = {.iov_base = &byte, .iov_len = 1};
		struct mmsghdr mm[2];
		memset(mm, 0, sizeof mm);
		for (int i = 0; i < 2; i++) {
			mm[i].msg_hdr.msg_iov = &io1;
			mm[i].msg_hdr.msg_iovlen = 1;
		}
		EXPECT("sendmmsg without a name", syscall(SYS_sendmmsg, sd, mm, 1, 0) == 1);
		mm[1].msg_hdr.msg_name = &rb;
		mm[1].msg_hdr.msg_namelen = sizeof rb;
		EXPECT("sendmmsg naming a peer in its second message refused",
		       syscall(SYS_sendmmsg, sd, mm, 2, 0) < 0 && errno != 0);
		char got;
		EXPECT("the named peer received nothing", recv(r2, &got, 1, MSG_DONTWAIT) < 0 && errno == EAGAIN);
		EXPECT("the connected peer got the first call's message only",
		       recv(r1, &got, 1, MSG_DONTWAIT) == 1 && recv(r1, &got, 1, MSG_DONTWAIT) < 0);
		_exit(fails);
	}
	close(sp[1]);
	int listener = ku_recv_fd(sp[0]);
	close(sp[0]);
	assert_true(listener >= 0);
	struct sbx_seccomp_state sst;
	sbx_seccomp_state_init(&sst, NULL, false);
	sst.report_only = sst.ctx.report_only = sst.guard_only = true;
	assert_int_equal(serve_state(pid, listener, &a, &sst), 0);
	audit_close(&a);
	assert_true(ku_line_has(g_audit, "\"event\":\"kernel.violation\"", "\"syscall\":\"chmod\"",
				"\"rule\":\"privilege: setuid bit\"", "\"outcome\":\"contained\"",
				"\"sev\":\"critical\"", NULL));
	assert_true(ku_line_has(g_audit, "\"syscall\":\"mknodat\"", "\"rule\":\"privilege: device node\"", NULL));
	assert_true(ku_line_has(g_audit, "\"rule\":\"privilege: file capability\"", NULL));
	assert_true(ku_line_has(g_audit, "\"syscall\":\"unshare\"", "\"rule\":\"escape-class syscall\"", NULL));
	char rbp[160];
	snprintf(rbp, sizeof rbp, "\"path\":\"%s/rb\"", dir);
	assert_true(ku_line_has(g_audit, "\"event\":\"kernel.violation\"", "\"syscall\":\"sendmmsg\"", rbp,
				"\"outcome\":\"contained\"", NULL));
	unlink(g_audit);
	g_audit[0] = 0;
	snprintf(rbp, sizeof rbp, "%s/ra", dir);
	unlink(rbp);
	snprintf(rbp, sizeof rbp, "%s/rb", dir);
	unlink(rbp);
	unlink(n);
	unlink(f);
	rmdir(d);
	rmdir(dir);
}

static void test_plan(void **state)
{
	(void)state;
	cJSON *p = sbx_seccomp_plan();
	assert_non_null(p);
	char *s = cJSON_PrintUnformatted(p);
	assert_non_null(s);
	assert_non_null(strstr(s, "\"syscall\":\"ptrace\""));
	assert_non_null(strstr(s, "\"syscall\":\"clone3\",\"errno\":\"ENOSYS\""));
	assert_non_null(strstr(s, "\"default\":\"allow\""));
	free(s);
	cJSON_Delete(p);
}

/* A peer the supervisor may not read (a non-dumpable caller of another uid; a root supervisor
 * without CAP_SYS_PTRACE, as in a container) is refused and reported undecidable, never let
 * through unseen: a socket under a read-only bind can still be connected, and Landlock has no
 * right for a connect or a send. One the kernel cannot read either (EFAULT) is left to it. */
static struct sockaddr_in peer_in = {.sin_family = AF_INET, .sin_port = 0x5000};

static void test_unreadable_peer(void **state)
{
	(void)state;
	struct sbx_sn_ctx c = {.netfilter = true}; /* an AF_INET peer read is netfilter's: 0 */
	struct sbx_sn_report *rep = calloc(1, sizeof *rep);
	assert_non_null(rep);
	/* readable (this process), and a bad address */
	assert_int_equal(sbx_sn_decide_sockaddr(&c, getpid(), false, (uint64_t)(uintptr_t)&peer_in,
						sizeof peer_in, rep), 0);
	assert_int_equal(sbx_sn_decide_sockaddr(&c, getpid(), false, 0x1000, sizeof peer_in, rep), 0);
	/* the target: not dumpable, and another uid as root */
	int ready[2], res[2];
	assert_int_equal(pipe(ready), 0);
	assert_int_equal(pipe(res), 0);
	pid_t t = fork();
	assert_true(t >= 0);
	if (t == 0) {
		if (geteuid() == 0 && (setresgid(65534, 65534, 65534) < 0 || setresuid(65534, 65534, 65534) < 0))
			_exit(1);
		if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
			_exit(1);
		(void)!write(ready[1], "r", 1);
		pause();
		_exit(0);
	}
	char b;
	assert_int_equal(read(ready[0], &b, 1), 1);
	/* the deciding process: as root without CAP_SYS_PTRACE (a container's default) */
	pid_t d = fork();
	assert_true(d >= 0);
	if (d == 0) {
		if (geteuid() == 0) {
			struct __user_cap_header_struct h = {.version = _LINUX_CAPABILITY_VERSION_3};
			struct __user_cap_data_struct cd[2];
			if (syscall(SYS_capget, &h, cd) < 0)
				_exit(2);
			cd[CAP_SYS_PTRACE / 32].effective &= ~(1u << (CAP_SYS_PTRACE % 32));
			if (syscall(SYS_capset, &h, cd) < 0)
				_exit(2);
		}
		struct sbx_sn_report r;
		int rc = sbx_sn_decide_sockaddr(&c, t, false, (uint64_t)(uintptr_t)&peer_in, sizeof peer_in, &r);
		(void)!write(res[1], r.rule, strlen(r.rule) + 1);
		_exit(rc == 1 && r.violation && r.err == EPERM ? 0 : 3);
	}
	int st;
	assert_int_equal(waitpid(d, &st, 0), d);
	kill(t, SIGKILL);
	waitpid(t, NULL, 0);
	char rule[256] = "";
	(void)!read(res[0], rule, sizeof rule - 1);
	close(ready[0]), close(ready[1]), close(res[0]), close(res[1]);
	free(rep);
	assert_true(WIFEXITED(st));
	assert_int_equal(WEXITSTATUS(st), 0);
	assert_true(strncmp(rule, "undecidable: the caller's memory cannot be read", 47) == 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_probe),
		cmocka_unit_test(test_denied_and_reported),
		cmocka_unit_test(test_no_supervisor_no_hang),
		cmocka_unit_test(test_listener_cloexec_across_exec),
		cmocka_unit_test(test_errno_only),
		cmocka_unit_test(test_exec_gate),
		cmocka_unit_test(test_report_only),
		cmocka_unit_test(test_privguard),
		cmocka_unit_test(test_unreadable_peer),
		cmocka_unit_test(test_plan),
	};
	return cmocka_run_group_tests(tests, NULL, teardown);
}
