/* k_attack_static.c — attack program for the kernel-layer tests (statically linked: the preload
 * cannot see it; every call is a raw system call).
 *   k_attack_static ATTACK [ARG...] [ATTACK [ARG...]]...
 * attacks: open PATH | connect IPv4 PORT | udp IPv4 PORT | ptrace | unshare | kill PID | pidfd FD |
 *          abstract NAME | tfo IPv4 PORT | icmp IPv4 | raw IPv4 | int80 | x32 | io_uring | tiocsti |
 *          exec PATH | write PATH | rlimit | handle PATH | socket FAMILY TYPE PROTO | unix PATH |
 *          udplite IPv4 PORT | vsock CID PORT | bind IPv4 PORT | lower_core
 *   socket: socket(FAMILY, TYPE, PROTO) with numbers; unix PATH: raw connect to a named unix socket;
 *   udplite: a UDP-Lite socket connected, then send() (no address: the connected-send path);
 *   vsock: socket(AF_VSOCK) + connect; bind: bind + listen on IPv4:PORT (a server);
 *   lower_core: setrlimit(RLIMIT_CORE, {0, 0}) — must SUCCEED (lowering is always allowed).
 *   write PATH: a raw openat(O_WRONLY|O_CREAT|O_APPEND) and a write of "planted\n".
 *   exec PATH: a raw execve(PATH) in a forked child; "SUCCEEDED" when the exec happened (the
 *             child's close-on-exec pipe closed without an errno written), whatever PATH then did.
 *   rlimit: prlimit64 lowering the hard RLIMIT_NOFILE by one, then raising it back (the raise
 *             needs CAP_SYS_RESOURCE).
 *   handle PATH: name_to_handle_at(PATH) then open_by_handle_at (needs CAP_DAC_READ_SEARCH);
 *             "handle: blocked" names the errno of whichever of the two failed.
 *   raw: an ICMP echo on a raw IP socket (needs CAP_NET_RAW; not seen by cgroup socket hooks).
 *   tfo: TCP fast open (sendto with MSG_FASTOPEN, no connect); icmp: an ICMP echo on a ping socket.
 *   pidfd FD: pidfd_send_signal(FD, SIGCONT) on an inherited pidfd (a process outside the sandbox,
 *             reachable even across a pid namespace); abstract NAME: connect to "@NAME".
 * Prints one line per attack, "NAME: blocked ERRNO" or "NAME: SUCCEEDED", and exits with the number
 * of attacks that succeeded (0: every attack was stopped). */
#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

static int breaches;

static void result(const char *name, long rc, int err)
{
	if (rc >= 0) {
		printf("%s: SUCCEEDED\n", name);
		breaches++;
	} else {
		const char *n = strerrorname_np(err);
		printf("%s: blocked %s\n", name, n ? n : "?");
	}
	fflush(stdout);
}

static long raw_connect(int type, const char *addr, const char *port)
{
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(port))};
	if (inet_pton(AF_INET, addr, &a.sin_addr) != 1) {
		errno = EINVAL;
		return -1;
	}
	long s = syscall(SYS_socket, AF_INET, (type == -1 ? SOCK_STREAM : type) | SOCK_CLOEXEC, 0);
	if (s < 0)
		return -1;
	long rc;
	if (type == SOCK_DGRAM)
		rc = syscall(SYS_sendto, s, "x", 1, 0, &a, sizeof a);
	else if (type == -1)
		rc = syscall(SYS_sendto, s, "x", 1, MSG_FASTOPEN, &a, sizeof a);
	else
		rc = syscall(SYS_connect, s, &a, sizeof a);
	int e = errno;
	syscall(SYS_close, s);
	errno = e;
	return rc;
}

/* Raw execve in a child. Returns 0 when the exec happened, else -1 with errno. */
static long raw_exec(const char *path)
{
	int p[2];
	if (syscall(SYS_pipe2, p, O_CLOEXEC) < 0)
		return -1;
	long pid = syscall(SYS_fork);
	if (pid < 0)
		return -1;
	if (pid == 0) {
		char *av[] = {(char *)path, NULL}, *ev[] = {NULL};
		syscall(SYS_execve, path, av, ev);
		int e = errno;
		syscall(SYS_write, p[1], &e, sizeof e);
		syscall(SYS_exit_group, 127);
	}
	syscall(SYS_close, p[1]);
	int e = 0;
	long n = syscall(SYS_read, p[0], &e, sizeof e);
	syscall(SYS_close, p[0]);
	syscall(SYS_wait4, pid, NULL, 0, NULL);
	if (n == (long)sizeof e) {
		errno = e;
		return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		long rc;
		errno = 0;
		if (!strcmp(a, "open") && i + 1 < argc) {
			rc = syscall(SYS_openat, AT_FDCWD, argv[++i], O_RDONLY | O_CLOEXEC);
			result("open", rc, errno);
		} else if (!strcmp(a, "write") && i + 1 < argc) {
			rc = syscall(SYS_openat, AT_FDCWD, argv[++i], O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0666);
			int e = errno;
			if (rc >= 0) {
				if (syscall(SYS_write, (int)rc, "planted\n", 8) != 8)
					e = errno;
				syscall(SYS_close, (int)rc);
			}
			result("write", rc, e);
		} else if (!strcmp(a, "connect") && i + 2 < argc) {
			rc = raw_connect(SOCK_STREAM, argv[i + 1], argv[i + 2]);
			i += 2;
			result("connect", rc, errno);
		} else if (!strcmp(a, "udp") && i + 2 < argc) {
			rc = raw_connect(SOCK_DGRAM, argv[i + 1], argv[i + 2]);
			i += 2;
			result("udp", rc, errno);
		} else if (!strcmp(a, "tfo") && i + 2 < argc) {
			rc = raw_connect(-1, argv[i + 1], argv[i + 2]);
			i += 2;
			result("tfo", rc, errno);
		} else if (!strcmp(a, "icmp") && i + 1 < argc) {
			struct sockaddr_in ia = {.sin_family = AF_INET};
			inet_pton(AF_INET, argv[++i], &ia.sin_addr);
			unsigned char echo[8] = {8, 0, 0, 0, 0, 0, 0, 1}; /* type 8 echo request; kernel fixes id/csum */
			long s = syscall(SYS_socket, AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, IPPROTO_ICMP);
			rc = s < 0 ? -1 : syscall(SYS_sendto, s, echo, sizeof echo, 0, &ia, sizeof ia);
			int e = errno;
			if (s >= 0)
				syscall(SYS_close, s);
			result("icmp", rc, e);
		} else if (!strcmp(a, "raw") && i + 1 < argc) {
			struct sockaddr_in ia = {.sin_family = AF_INET};
			inet_pton(AF_INET, argv[++i], &ia.sin_addr);
			unsigned char echo[8] = {8, 0, 0xf7, 0xfe, 0, 0, 0, 1}; /* echo request, valid checksum */
			long s = syscall(SYS_socket, AF_INET, SOCK_RAW | SOCK_CLOEXEC, IPPROTO_ICMP);
			rc = s < 0 ? -1 : syscall(SYS_sendto, s, echo, sizeof echo, 0, &ia, sizeof ia);
			int e = errno;
			if (s >= 0)
				syscall(SYS_close, s);
			result("raw", rc, e);
		} else if (!strcmp(a, "ptrace")) {
			rc = syscall(SYS_ptrace, PTRACE_ATTACH, getppid(), 0, 0);
			result("ptrace", rc, errno);
			if (rc == 0)
				syscall(SYS_ptrace, PTRACE_DETACH, getppid(), 0, 0);
		} else if (!strcmp(a, "unshare")) {
			rc = syscall(SYS_unshare, CLONE_NEWUSER);
			result("unshare", rc, errno);
		} else if (!strcmp(a, "kill") && i + 1 < argc) {
			/* SIGCONT: a real signal, harmless if it gets through */
			rc = syscall(SYS_kill, atoi(argv[++i]), SIGCONT);
			result("kill", rc, errno);
		} else if (!strcmp(a, "pidfd") && i + 1 < argc) {
			rc = syscall(424 /* pidfd_send_signal */, atoi(argv[++i]), SIGCONT, NULL, 0);
			result("pidfd", rc, errno);
		} else if (!strcmp(a, "abstract") && i + 1 < argc) {
			struct sockaddr_un su = {.sun_family = AF_UNIX};
			size_t n = strlen(argv[++i]);
			if (n > sizeof su.sun_path - 2)
				n = sizeof su.sun_path - 2;
			memcpy(su.sun_path + 1, argv[i], n);
			long s = syscall(SYS_socket, AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
			rc = s < 0 ? -1 : syscall(SYS_connect, s, &su, (long)(offsetof(struct sockaddr_un, sun_path) + 1 + n));
			int e = errno;
			if (s >= 0)
				syscall(SYS_close, s);
			result("abstract", rc, e);
		} else if (!strcmp(a, "socket") && i + 3 < argc) {
			rc = syscall(SYS_socket, atoi(argv[i + 1]), atoi(argv[i + 2]), atoi(argv[i + 3]));
			i += 3;
			result("socket", rc, errno);
			if (rc >= 0)
				syscall(SYS_close, rc);
		} else if (!strcmp(a, "unix") && i + 1 < argc) {
			struct sockaddr_un su = {.sun_family = AF_UNIX};
			snprintf(su.sun_path, sizeof su.sun_path, "%s", argv[++i]);
			long s = syscall(SYS_socket, AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
			rc = s < 0 ? -1 : syscall(SYS_connect, s, &su, (long)sizeof su);
			int e = errno;
			if (rc == 0)
				syscall(SYS_write, s, "ESCAPED\n", 8);
			if (s >= 0)
				syscall(SYS_close, s);
			result("unix", rc, e);
		} else if (!strcmp(a, "udplite") && i + 2 < argc) {
			struct sockaddr_in ia = {.sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(argv[i + 2]))};
			inet_pton(AF_INET, argv[i + 1], &ia.sin_addr);
			i += 2;
			long s = syscall(SYS_socket, AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 136 /* IPPROTO_UDPLITE */);
			rc = s < 0 ? -1 : syscall(SYS_connect, s, &ia, sizeof ia);
			if (rc == 0)
				rc = syscall(SYS_sendto, s, "ESCAPED\n", 8, 0, NULL, 0);
			int e = errno;
			if (s >= 0)
				syscall(SYS_close, s);
			result("udplite", rc, e);
		} else if (!strcmp(a, "vsock") && i + 2 < argc) {
			struct { unsigned short fam, res; unsigned port, cid; unsigned char zero[4]; } va = {
				.fam = 40 /* AF_VSOCK */, .port = (unsigned)atoi(argv[i + 2]), .cid = (unsigned)atoi(argv[i + 1])};
			i += 2;
			long s = syscall(SYS_socket, 40, SOCK_STREAM | SOCK_CLOEXEC, 0);
			rc = s < 0 ? -1 : syscall(SYS_connect, s, &va, sizeof va);
			int e = errno;
			if (s >= 0)
				syscall(SYS_close, s);
			/* the socket itself is the breach: a connect error (no hypervisor) still means
			 * the family reached the kernel */
			result("vsock", s, s < 0 ? e : 0);
			(void)rc;
		} else if (!strcmp(a, "bind") && i + 2 < argc) {
			struct sockaddr_in ia = {.sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(argv[i + 2]))};
			inet_pton(AF_INET, argv[i + 1], &ia.sin_addr);
			i += 2;
			long s = syscall(SYS_socket, AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
			rc = s < 0 ? -1 : syscall(SYS_bind, s, &ia, sizeof ia);
			if (rc == 0)
				rc = syscall(SYS_listen, s, 1);
			int e = errno;
			if (s >= 0)
				syscall(SYS_close, s);
			result("bind", rc, e);
		} else if (!strcmp(a, "lower_core")) {
			struct rlimit rl = {0, 0};
			rc = syscall(SYS_setrlimit, RLIMIT_CORE, &rl);
			result("lower_core", rc, errno);
		} else if (!strcmp(a, "int80")) {
#if defined(__x86_64__)
			long r;
			__asm__ volatile("int $0x80" : "=a"(r) : "a"(20L) : "memory"); /* i386 getpid */
			result("int80", r < 0 && r > -4096 ? -1 : r, r < 0 ? (int)-r : 0);
#else
			printf("int80: n/a\n");
#endif
		} else if (!strcmp(a, "x32")) {
			rc = syscall(0x40000000 | 39); /* x32 getpid */
			result("x32", rc, errno);
		} else if (!strcmp(a, "io_uring")) {
			char params[120] = {0};
			rc = syscall(425 /* io_uring_setup */, 1, params);
			result("io_uring", rc, errno);
			if (rc >= 0)
				syscall(SYS_close, rc);
		} else if (!strcmp(a, "exec") && i + 1 < argc) {
			rc = raw_exec(argv[++i]);
			result("exec", rc, errno);
		} else if (!strcmp(a, "rlimit")) {
			struct { unsigned long cur, max; } rl;
			rc = syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, NULL, &rl);
			if (rc == 0 && rl.max > 16) { /* lower by one (always allowed), then raise back */
				rl.max -= 1;
				rl.cur = rl.cur > rl.max ? rl.max : rl.cur;
				rc = syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, &rl, NULL);
				rl.max += 1;
				if (rc == 0)
					rc = syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, &rl, NULL);
			}
			result("rlimit", rc, errno);
		} else if (!strcmp(a, "handle") && i + 1 < argc) {
			struct { unsigned int bytes; int type; unsigned char h[128]; } fh = {.bytes = 128};
			int mnt;
			const char *path = argv[++i];
			rc = syscall(SYS_name_to_handle_at, AT_FDCWD, path, &fh, &mnt, 0);
			if (rc == 0) { /* the mount fd: the file itself, opened for reading (same mount) */
				long mfd = syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC);
				rc = syscall(SYS_open_by_handle_at, mfd, &fh, O_RDONLY | O_CLOEXEC);
				int e = errno;
				if (rc >= 0)
					syscall(SYS_close, rc);
				syscall(SYS_close, mfd);
				errno = e;
			}
			result("handle", rc, errno);
		} else if (!strcmp(a, "tiocsti")) {
			char c = ' ';
			rc = syscall(SYS_ioctl, 0, TIOCSTI, &c);
			result("tiocsti", rc, errno);
		} else {
			fprintf(stderr, "k_attack_static: unknown attack or missing argument: %s\n", a);
			return 100;
		}
	}
	return breaches;
}
