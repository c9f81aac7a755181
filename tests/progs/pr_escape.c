/* pr_escape.c — bypasses for the probes tests of the escape-corpus gaps (raw exec, raw opens and
 * connects, io_uring: docs/escape-matrix.md). Every call is the syscall instruction itself (inline
 * assembly on x86-64), so the preload never sees it: each must be reported by the probes.
 *   exec PATH               raw execve(PATH) (no code:exec in the test manifest)
 *   kill PID SIG            raw kill(PID, SIG)        (PID may be negative: a process group / -1)
 *   tgkill PID SIG          raw tgkill(PID, PID, SIG)
 *   pidfd PID SIG           raw pidfd_open(PID) then pidfd_send_signal(pidfd, SIG)
 *   kill-child              fork a child, raw kill(child, SIGKILL): a process of the run (silent)
 *   keyctl                  raw keyctl(KEYCTL_GET_KEYRING_ID, session keyring)
 *   perf                    raw perf_event_open(software cpu-clock, this process)
 *   userfaultfd             raw userfaultfd(0)
 *   tiocsti                 raw ioctl(0, TIOCSTI, "x")
 *   chroot DIR              raw chroot(DIR)
 *   clone-newuser           raw clone(CLONE_NEWUSER|SIGCHLD); the child exits at once
 *   packet                  raw socket(AF_PACKET, SOCK_RAW, 0)
 *   core                    raw prlimit64(0, RLIMIT_CORE, {inf, inf})
 *   personality             raw personality(ADDR_NO_RANDOMIZE)
 *   unix PATH               raw connect of an AF_UNIX stream socket to PATH ("@name": abstract)
 *   utimes PATH             raw utimensat(AT_FDCWD, PATH, NULL, 0)
 *   open PATH               raw openat(AT_FDCWD, PATH, O_RDONLY) (PATH as given, e.g. with "..")
 *   mknod PATH              raw mknodat(AT_FDCWD, PATH, S_IFIFO|0600)
 *   setxattr PATH           raw setxattr(PATH, "user.sbxsup", "1")
 *   getxattr PATH           raw getxattr(PATH, "user.sbxsup")
 *   fchmod PATH             raw fchmod of an O_PATH fd of PATH (EBADF: the attempt, nothing changes)
 *   inotify PATH            raw inotify_add_watch(PATH, IN_ACCESS)
 *   sendmmsg ADDR PORT      raw sendmmsg of one UDP datagram to ADDR:PORT
 *   leave-cgroup PROCS PATH move to the cgroup of PROCS (its cgroup.procs), then raw open(PATH)
 * Exit 0 when the attacked call succeeded, 1 when it failed, 2 on usage. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/personality.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <linux/keyctl.h>
#include <linux/perf_event.h>
#include <sched.h>
#include <termios.h>
#include <stddef.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdint.h>

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434
#endif
#ifndef SYS_pidfd_send_signal
#define SYS_pidfd_send_signal 424
#endif

/* The syscall instruction, not libc's syscall(3). Returns -1 with errno like libc. */
static long raw6(long nr, long a, long b, long c, long d, long e, long f)
{
#if defined(__x86_64__)
	long ret;
	register long r10 __asm__("r10") = d;
	register long r8 __asm__("r8") = e;
	register long r9 __asm__("r9") = f;
	__asm__ volatile("syscall" : "=a"(ret) : "a"(nr), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
			 : "rcx", "r11", "memory");
	if (ret < 0 && ret > -4096) {
		errno = (int)-ret;
		return -1;
	}
	return ret;
#else
	return syscall(nr, a, b, c, d, e, f);
#endif
}

#define R(nr, a, b, c, d) raw6((nr), (long)(a), (long)(b), (long)(c), (long)(d), 0, 0)

static int report(const char *what, long rc)
{
	if (rc < 0) {
		fprintf(stderr, "%s: %s\n", what, strerror(errno));
		return 1;
	}
	printf("%s: ok\n", what);
	return 0;
}

static int unix_connect(const char *name)
{
	struct sockaddr_un sun;
	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	size_t n = strlen(name);
	if (n >= sizeof(sun.sun_path))
		return 2;
	socklen_t len;
	if (name[0] == '@') {
		memcpy(sun.sun_path + 1, name + 1, n - 1);   /* abstract: leading NUL, no terminator */
		len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n);
	} else {
		memcpy(sun.sun_path, name, n);
		len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n + 1);
	}
	long s = R(SYS_socket, AF_UNIX, SOCK_STREAM, 0, 0);
	if (s < 0)
		return report("socket", s);
	return report("connect", R(SYS_connect, s, &sun, len, 0));
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	const char *c = argv[1];
	setvbuf(stdout, NULL, _IONBF, 0);
	if (!strcmp(c, "exec") && argc == 3) {
		char *a[] = { argv[2], NULL };
		extern char **environ;
		return report("execve", R(SYS_execve, argv[2], a, environ, 0));
	}
	if (!strcmp(c, "kill") && argc == 4)
		return report("kill", R(SYS_kill, atoi(argv[2]), atoi(argv[3]), 0, 0));
	if (!strcmp(c, "tgkill") && argc == 4)
		return report("tgkill", R(SYS_tgkill, atoi(argv[2]), atoi(argv[2]), atoi(argv[3]), 0));
	if (!strcmp(c, "pidfd") && argc == 4) {
		long fd = R(SYS_pidfd_open, atoi(argv[2]), 0, 0, 0);
		if (fd < 0)
			return report("pidfd_open", fd);
		return report("pidfd_send_signal", R(SYS_pidfd_send_signal, fd, atoi(argv[3]), 0, 0));
	}
	if (!strcmp(c, "kill-child") && argc == 2) {
		pid_t ch = fork();
		if (ch < 0)
			return report("fork", -1);
		if (ch == 0) {
			pause();
			_exit(0);
		}
		long r = R(SYS_kill, ch, SIGKILL, 0, 0);
		waitpid(ch, NULL, 0);
		return report("kill(child)", r);
	}
	if (!strcmp(c, "keyctl") && argc == 2)
		return report("keyctl", R(SYS_keyctl, KEYCTL_GET_KEYRING_ID, KEY_SPEC_SESSION_KEYRING, 0, 0));
	if (!strcmp(c, "perf") && argc == 2) {
		struct perf_event_attr at;
		memset(&at, 0, sizeof(at));
		at.type = PERF_TYPE_SOFTWARE;
		at.size = sizeof(at);
		at.config = PERF_COUNT_SW_CPU_CLOCK;
		at.disabled = 1;
		at.exclude_kernel = 1;
		at.exclude_hv = 1;
		return report("perf_event_open", raw6(SYS_perf_event_open, (long)&at, 0, -1, -1, 0, 0));
	}
	if (!strcmp(c, "userfaultfd") && argc == 2)
		return report("userfaultfd", R(SYS_userfaultfd, 0, 0, 0, 0));
	if (!strcmp(c, "tiocsti") && argc == 2) {
		char ch = 'x';
		return report("ioctl(TIOCSTI)", R(SYS_ioctl, 0, TIOCSTI, &ch, 0));
	}
	if (!strcmp(c, "chroot") && argc == 3)
		return report("chroot", R(SYS_chroot, argv[2], 0, 0, 0));
	if (!strcmp(c, "clone-newuser") && argc == 2) {
		long r = R(SYS_clone, CLONE_NEWUSER | SIGCHLD, 0, 0, 0);
		if (r == 0)
			_exit(0);
		if (r > 0)
			waitpid((pid_t)r, NULL, 0);
		return report("clone(CLONE_NEWUSER)", r);
	}
	if (!strcmp(c, "packet") && argc == 2)
		return report("socket(AF_PACKET)", R(SYS_socket, 17 /* AF_PACKET */, SOCK_RAW, 0, 0));
	if (!strcmp(c, "core") && argc == 2) {
		struct rlimit rl = { RLIM_INFINITY, RLIM_INFINITY };
		return report("prlimit64(RLIMIT_CORE)", R(SYS_prlimit64, 0, RLIMIT_CORE, &rl, 0));
	}
	if (!strcmp(c, "personality") && argc == 2)
		return report("personality", R(SYS_personality, ADDR_NO_RANDOMIZE, 0, 0, 0));
	if (!strcmp(c, "unix") && argc == 3)
		return unix_connect(argv[2]);
	if (!strcmp(c, "utimes") && argc == 3)
		return report("utimensat", R(SYS_utimensat, AT_FDCWD, argv[2], NULL, 0));
	if (!strcmp(c, "mknod") && argc == 3)
		return report("mknodat", R(SYS_mknodat, AT_FDCWD, argv[2], S_IFIFO | 0600, 0));
	if (!strcmp(c, "setxattr") && argc == 3)
		return report("setxattr", raw6(SYS_setxattr, (long)argv[2], (long)"user.sbxsup", (long)"1", 1, 0, 0));
	if (!strcmp(c, "getxattr") && argc == 3) {
		char v[64];
		return report("getxattr", R(SYS_getxattr, argv[2], "user.sbxsup", v, sizeof(v)));
	}
	if (!strcmp(c, "fchmod") && argc == 3) {
		long fd = R(SYS_openat, AT_FDCWD, argv[2], O_PATH, 0);
		if (fd < 0)
			return report("open O_PATH", fd);
		return report("fchmod", R(SYS_fchmod, fd, 0644, 0, 0));
	}
	if (!strcmp(c, "inotify") && argc == 3) {
		long fd = R(SYS_inotify_init1, 0, 0, 0, 0);
		if (fd < 0)
			return report("inotify_init1", fd);
		return report("inotify_add_watch", R(SYS_inotify_add_watch, fd, argv[2], 0x1 /* IN_ACCESS */, 0));
	}
	if (!strcmp(c, "sendmmsg") && argc == 4) {
		struct sockaddr_in sin = { .sin_family = AF_INET, .sin_port = htons((uint16_t)atoi(argv[3])) };
		if (inet_pton(AF_INET, argv[2], &sin.sin_addr) != 1)
			return 2;
		long s = R(SYS_socket, AF_INET, SOCK_DGRAM, 0, 0);
		if (s < 0)
			return report("socket", s);
		char b[1] = { 'x' };
		struct iovec io = { b, 1 };
		struct mmsghdr mm;
		memset(&mm, 0, sizeof(mm));
		mm.msg_hdr.msg_name = &sin;
		mm.msg_hdr.msg_namelen = sizeof(sin);
		mm.msg_hdr.msg_iov = &io;
		mm.msg_hdr.msg_iovlen = 1;
		return report("sendmmsg", R(SYS_sendmmsg, s, &mm, 1, 0));
	}
	if (!strcmp(c, "leave-cgroup") && argc == 4) {
		FILE *f = fopen(argv[2], "w");
		if (!f || fprintf(f, "%d\n", getpid()) < 0 || fclose(f) != 0)
			return report("move cgroup", -1);
		return report("openat", R(SYS_openat, AT_FDCWD, argv[3], O_RDONLY, 0));
	}
	if (!strcmp(c, "open") && argc == 3)
		return report("openat", R(SYS_openat, AT_FDCWD, argv[2], O_RDONLY, 0));
	fprintf(stderr, "pr_escape: bad arguments\n");
	return 2;
}
