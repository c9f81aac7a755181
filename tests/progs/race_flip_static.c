/* race_flip_static.c — the time-of-check/time-of-use attack on the supervisor's decisions (issue 27):
 * one thread flips a path buffer between a granted name and a forbidden one while the other makes
 * the call with that buffer, by raw system call, again and again.
 *
 *   race_flip_static OP GOOD BAD TRIES SECONDS
 *     OP: connect (AF_UNIX stream socket to the path), chmod (mode 0666 by fchmodat), open (read the
 *         file and print what it read), unlink, link (a hard link of the path at GOOD.lnk),
 *         sendto / sendmsg (a datagram from an AF_UNIX datagram socket to the path: sendto's
 *         address, sendmsg's msg_name; GOOD is the program's own datagram socket, drained),
 *         linkread (a hard link of the path at GOOD.lnk, read and printed, removed), renameread
 *         (the path renamed to GOOD.mv, read and printed, renamed back to GOOD): a second name
 *         for BAD that its deny does not match.
 *   race_flip_static own-proc: the process's own /proc entries and another's (deny_race.sh).
 *   Stops after TRIES calls or SECONDS seconds. Prints "tries=N ok=N" on stderr (ok: calls that
 *   succeeded, on either name); for open, every byte read is printed on stdout (the runner looks
 *   for its canary there). Exit 0. The judge is the host (listener, mode, bytes), never this exit.
 * Static and raw (no libc wrapper the preload could see).
 */
#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

static struct sockaddr_un sa = {.sun_family = AF_UNIX}; /* the flipped memory: connect's address */
static char *const buf = sa.sun_path;                     /* and every other call's path */
static char good[sizeof sa.sun_path], bad[sizeof sa.sun_path];
static int own_listener = -1;
static atomic_int stop;

static void *flipper(void *arg)
{
	(void)arg;
	size_t gl = strlen(good) + 1, bl = strlen(bad) + 1;
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		memcpy(buf, good, gl);
		for (volatile int i = 0; i < 50; i++)
			;
		memcpy(buf, bad, bl);
		for (volatile int i = 0; i < 50; i++)
			;
	}
	return NULL;
}

/* sendto/sendmsg: our own datagram socket at GOOD, drained (the granted object) */
static void *drainer(void *arg)
{
	(void)arg;
	char b[64];
	while (read(own_listener, b, sizeof b) >= 0)
		;
	return NULL;
}

/* connect: our own socket at GOOD, accepted and closed (the granted object) */
static void *acceptor(void *arg)
{
	(void)arg;
	for (;;) {
		int c = accept(own_listener, NULL, NULL);
		if (c < 0)
			return NULL;
		close(c);
	}
}

/* own-proc: not a race — the process's own /proc entries opened by raw system call (read-only),
 * and another process's (/proc/1, the sandbox's init): "exe ok|refused", "maps ok|refused",
 * "other ok|refused", and "pfn shown|hidden" (a physical frame number read from /proc/self/pagemap), "status ids match|differ|refused"
 * on stdout. */
static int own_proc(void)
{
	static const char *const names[][2] = {
		{"exe", "/proc/self/exe"}, {"maps", "/proc/self/maps"}, {"other", "/proc/1/maps"}};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		char b[16];
		long fd = syscall(SYS_openat, AT_FDCWD, names[i][1], O_RDONLY | O_CLOEXEC);
		long n = fd < 0 ? -1 : syscall(SYS_read, fd, b, sizeof b);
		if (fd >= 0)
			syscall(SYS_close, fd);
		printf("%s %s\n", names[i][0], n > 0 ? "ok" : "refused");
	}
	/* the physical frame of a page of ours: shown only to a reader with CAP_SYS_ADMIN */
	volatile char page[4096];
	page[0] = 1;
	unsigned long long v = 0;
	long fd = syscall(SYS_openat, AT_FDCWD, "/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		if (syscall(SYS_pread64, fd, &v, sizeof v, (long)((unsigned long)page / 4096 * 8)) != sizeof v)
			v = 0;
		syscall(SYS_close, fd);
	}
	printf("pfn %s\n", (v & ((1ULL << 55) - 1)) ? "shown" : "hidden");
	/* the ids /proc/self/status shows are the ones getuid/getgid return (the kernel renders them
	 * in the opener's user namespace: an open made outside the run's would show host ids) */
	char st[4096];
	fd = syscall(SYS_openat, AT_FDCWD, "/proc/self/status", O_RDONLY | O_CLOEXEC);
	long n = fd < 0 ? -1 : syscall(SYS_read, fd, st, sizeof st - 1);
	if (fd >= 0)
		syscall(SYS_close, fd);
	st[n > 0 ? n : 0] = 0;
	char want_uid[64], want_gid[64];
	unsigned long u = (unsigned long)syscall(SYS_getuid), g = (unsigned long)syscall(SYS_getgid);
	snprintf(want_uid, sizeof want_uid, "\nUid:\t%lu\t", u);
	snprintf(want_gid, sizeof want_gid, "\nGid:\t%lu\t", g);
	printf("status %s (uid %lu gid %lu)\n", n <= 0 ? "refused" : strstr(st, want_uid) && strstr(st, want_gid) ? "ids match" : "ids differ", u, g);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "own-proc"))
		return own_proc();
	if (argc != 6) {
		fprintf(stderr, "usage: race_flip_static connect|chmod|open|unlink|link|linkread|renameread|sendto|sendmsg GOOD BAD TRIES "
				"SECONDS\n");
		return 2;
	}
	const char *op = argv[1];
	if (strlen(argv[2]) >= sizeof good || strlen(argv[3]) >= sizeof bad) {
		fprintf(stderr, "race_flip_static: paths must be shorter than %zu bytes\n", sizeof good);
		return 2;
	}
	snprintf(good, sizeof good, "%s", argv[2]);
	snprintf(bad, sizeof bad, "%s", argv[3]);
	long tries = atol(argv[4]);
	double secs = atof(argv[5]);
	memcpy(buf, good, strlen(good) + 1);
	if (!strcmp(argv[1], "connect")) {
		struct sockaddr_un own = {.sun_family = AF_UNIX};
		memcpy(own.sun_path, good, strlen(good) + 1);
		unlink(good);
		own_listener = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		pthread_t at;
		if (own_listener < 0 || bind(own_listener, (struct sockaddr *)&own, sizeof own) < 0 ||
		    listen(own_listener, 128) < 0 || pthread_create(&at, NULL, acceptor, NULL)) {
			perror("race_flip_static: own socket");
			return 2;
		}
	}
	bool send_op = !strcmp(op, "sendto") || !strcmp(op, "sendmsg");
	long ds = -1;
	if (send_op) {
		struct sockaddr_un own = {.sun_family = AF_UNIX};
		memcpy(own.sun_path, good, strlen(good) + 1);
		unlink(good);
		own_listener = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		ds = syscall(SYS_socket, AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		pthread_t dt;
		if (own_listener < 0 || ds < 0 || bind(own_listener, (struct sockaddr *)&own, sizeof own) < 0 ||
		    pthread_create(&dt, NULL, drainer, NULL)) {
			perror("race_flip_static: own datagram socket");
			return 2;
		}
	}
	pthread_t t;
	if (pthread_create(&t, NULL, flipper, NULL))
		return 2;
	struct timespec t0, now;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	long n = 0, ok = 0;
	char lnk[4200], mv[4200];
	snprintf(lnk, sizeof lnk, "%s.lnk", good);
	snprintf(mv, sizeof mv, "%s.mv", good);
	for (; n < tries; n++) {
		if ((n & 63) == 0) {
			clock_gettime(CLOCK_MONOTONIC, &now);
			if ((double)(now.tv_sec - t0.tv_sec) + (double)(now.tv_nsec - t0.tv_nsec) / 1e9 > secs)
				break;
		}
		long r = -1;
		if (!strcmp(op, "connect")) {
			long s = syscall(SYS_socket, AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
			r = syscall(SYS_connect, s, &sa, sizeof sa);
			close((int)s);
		} else if (!strcmp(op, "chmod")) {
			r = syscall(SYS_fchmodat, AT_FDCWD, buf, 0666);
		} else if (!strcmp(op, "open")) {
			r = syscall(SYS_openat, AT_FDCWD, buf, O_RDONLY, 0);
			if (r >= 0) {
				char b[256];
				long k = syscall(SYS_read, r, b, sizeof b);
				if (k > 0)
					(void)!write(1, b, (size_t)k);
				close((int)r);
			}
		} else if (!strcmp(op, "sendto")) {
			r = syscall(SYS_sendto, ds, "race", 4, MSG_DONTWAIT, &sa, sizeof sa);
		} else if (!strcmp(op, "sendmsg")) {
			struct iovec io = {.iov_base = "race", .iov_len = 4};
			struct msghdr mh = {.msg_name = &sa, .msg_namelen = sizeof sa, .msg_iov = &io, .msg_iovlen = 1};
			r = syscall(SYS_sendmsg, ds, &mh, MSG_DONTWAIT);
		} else if (!strcmp(op, "unlink")) {
			r = syscall(SYS_unlinkat, AT_FDCWD, buf, 0);
		} else if (!strcmp(op, "linkread") || !strcmp(op, "renameread")) {
			bool ln = op[0] == 'l';
			const char *second = ln ? lnk : mv;
			r = ln ? syscall(SYS_linkat, AT_FDCWD, buf, AT_FDCWD, lnk, 0)
			       : syscall(SYS_renameat, AT_FDCWD, buf, AT_FDCWD, mv);
			if (r == 0) {
				long fd = syscall(SYS_openat, AT_FDCWD, second, O_RDONLY, 0);
				if (fd >= 0) {
					char b[256];
					long k = syscall(SYS_read, fd, b, sizeof b);
					if (k > 0)
						(void)!write(1, b, (size_t)k);
					close((int)fd);
				}
				if (ln)
					syscall(SYS_unlinkat, AT_FDCWD, lnk, 0);
				else
					syscall(SYS_renameat, AT_FDCWD, mv, AT_FDCWD, good);
			}
		} else if (!strcmp(op, "link")) {
			r = syscall(SYS_linkat, AT_FDCWD, buf, AT_FDCWD, lnk, 0);
			if (r == 0)
				syscall(SYS_unlinkat, AT_FDCWD, lnk, 0);
		}
		if (r >= 0)
			ok++;
	}
	atomic_store(&stop, 1);
	pthread_join(t, NULL);
	fprintf(stderr, "tries=%ld ok=%ld\n", n, ok);
	return 0;
}
