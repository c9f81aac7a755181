/* pr_attack.c — bypass attempts for the probes tests (a dynamic binary, so the preload is loaded;
 * every attack here goes around it with raw syscalls or by stripping it). "raw" means the syscall
 * instruction itself (inline assembly on x86-64): the preload interposes libc's syscall(3) too.
 *   rawopen PATH            raw openat(AT_FDCWD, PATH, O_RDONLY)
 *   libcsyscall PATH        syscall(3)(SYS_openat, ...) (the preload sees this one)
 *   libcopen PATH           open(3) (the preload sees and may deny this one)
 *   rel DIR NAME            chdir(DIR), raw openat(AT_FDCWD, NAME)
 *   dirfd DIR NAME          raw openat(open(DIR, O_PATH), NAME)
 *   rawwrite PATH           raw openat(PATH, O_WRONLY|O_CREAT)
 *   connect IP PORT         raw connect(2) of a TCP socket (IPv4 or IPv6)
 *   flood PATH N            N raw openat(PATH) calls (each fd closed)
 *   flood-then P N Q M      N raw openat(P), then M raw openat(Q) (a few breaches after a flood)
 *   int80 PATH              32-bit int 0x80 open(PATH) (x86-64 only; PATH copied below 4 GiB)
 *   exec-stripped PROG ARG... unsetenv LD_PRELOAD and execv(PROG) (no preload in PROG)
 *   uring                   io_uring_setup(2)
 *   uring-open PATH         an IORING_OP_OPENAT of PATH submitted through io_uring (no open syscall)
 *   uring-read PATH         IORING_OP_OPENAT of PATH, then IORING_OP_READ of the fd; prints the bytes
 *   uring-connect IP PORT   IORING_OP_CONNECT of a TCP socket (IPv4) through io_uring
 *   unshare                 raw unshare(CLONE_NEWUSER)
 *   memfd-exec PROG         copy PROG into a memfd, raw execveat(memfd, "", AT_EMPTY_PATH)
 * Exit 0 when the attacked call succeeded, 1 when it failed, 2 on usage. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <netinet/in.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <linux/io_uring.h>

static int report(const char *what, long rc)
{
	if (rc < 0) {
		fprintf(stderr, "%s: %s\n", what, strerror(errno));
		return 1;
	}
	printf("%s: ok\n", what);
	return 0;
}

/* The syscall instruction, not libc's syscall(3). Returns -1 with errno like libc. */
static long raw(long nr, long a, long b, long c, long d)
{
#if defined(__x86_64__)
	long ret;
	register long r10 __asm__("r10") = d;
	__asm__ volatile("syscall" : "=a"(ret) : "a"(nr), "D"(a), "S"(b), "d"(c), "r"(r10)
			 : "rcx", "r11", "memory");
	if (ret < 0 && ret > -4096) {
		errno = (int)-ret;
		return -1;
	}
	return ret;
#else
	return syscall(nr, a, b, c, d);
#endif
}

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

/* A minimal ring (raw system calls, no liburing): set up once, one operation at a time. */
struct ring {
	long fd;
	char *mem;
	struct io_uring_sqe *sqes;
	struct io_uring_params p;
};

static long ring_setup(struct ring *r)
{
	memset(r, 0, sizeof(*r));
	r->fd = raw6(__NR_io_uring_setup, 4, (long)&r->p, 0, 0, 0, 0);
	if (r->fd < 0)
		return -errno;
	size_t sqlen = r->p.sq_off.array + r->p.sq_entries * sizeof(unsigned);
	size_t cqlen = r->p.cq_off.cqes + r->p.cq_entries * sizeof(struct io_uring_cqe);
	size_t len = sqlen > cqlen ? sqlen : cqlen;
	r->mem = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, (int)r->fd, IORING_OFF_SQ_RING);
	r->sqes = mmap(NULL, r->p.sq_entries * sizeof(struct io_uring_sqe), PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_POPULATE, (int)r->fd, IORING_OFF_SQES);
	if (r->mem == MAP_FAILED || r->sqes == MAP_FAILED || !(r->p.features & IORING_FEAT_SINGLE_MMAP))
		return -ENOSYS;
	return 0;
}

/* Submit *sqe, wait for its completion; returns the completion's result. */
static long ring_op(struct ring *r, const struct io_uring_sqe *sqe)
{
	unsigned *tail = (unsigned *)(r->mem + r->p.sq_off.tail), mask = *(unsigned *)(r->mem + r->p.sq_off.ring_mask);
	unsigned *array = (unsigned *)(r->mem + r->p.sq_off.array);
	unsigned i = *tail & mask;
	r->sqes[i] = *sqe;
	array[i] = i;
	__atomic_store_n(tail, *tail + 1, __ATOMIC_RELEASE);
	if (raw6(__NR_io_uring_enter, r->fd, 1, 1, IORING_ENTER_GETEVENTS, 0, 0) < 0)
		return -errno;
	unsigned *chead = (unsigned *)(r->mem + r->p.cq_off.head);
	struct io_uring_cqe *cqes = (struct io_uring_cqe *)(r->mem + r->p.cq_off.cqes);
	unsigned cmask = *(unsigned *)(r->mem + r->p.cq_off.ring_mask);
	long res = cqes[*chead & cmask].res;
	__atomic_store_n(chead, *chead + 1, __ATOMIC_RELEASE);
	return res;
}

/* One IORING_OP_OPENAT through the ring; returns the completion's result (fd or -errno). */
static long ring_open(struct ring *r, const char *path)
{
	struct io_uring_sqe sqe;
	memset(&sqe, 0, sizeof(sqe));
	sqe.opcode = IORING_OP_OPENAT;
	sqe.fd = AT_FDCWD;
	sqe.addr = (unsigned long)path;
	sqe.open_flags = O_RDONLY;
	return ring_op(r, &sqe);
}

static long uring_open(const char *path)
{
	struct ring r;
	long e = ring_setup(&r);
	return e < 0 ? e : ring_open(&r, path);
}

/* IORING_OP_CONNECT of a TCP socket to IP:PORT (IPv4). */
static int uring_connect(const char *ip, int port)
{
	struct ring r;
	long e = ring_setup(&r);
	if (e < 0) {
		errno = (int)-e;
		return report("uring-connect", -1);
	}
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
	inet_pton(AF_INET, ip, &sa.sin_addr);
	struct io_uring_sqe sqe;
	memset(&sqe, 0, sizeof(sqe));
	sqe.opcode = IORING_OP_CONNECT;
	sqe.fd = fd;
	sqe.addr = (unsigned long)&sa;
	sqe.off = sizeof(sa);                  /* addr2: the address length */
	long res = ring_op(&r, &sqe);
	if (res < 0) {
		errno = (int)-res;
		return report("uring-connect", -1);
	}
	return report("uring-connect", 0);
}

/* IORING_OP_OPENAT then IORING_OP_READ of the fd: prints what was read. */
static int uring_read(const char *path)
{
	struct ring r;
	long fd = ring_setup(&r);
	if (fd == 0)
		fd = ring_open(&r, path);
	if (fd < 0) {
		errno = (int)-fd;
		return report("uring-read: open", -1);
	}
	char buf[256];
	struct io_uring_sqe sqe;
	memset(&sqe, 0, sizeof(sqe));
	sqe.opcode = IORING_OP_READ;
	sqe.fd = (int)fd;
	sqe.addr = (unsigned long)buf;
	sqe.len = sizeof(buf) - 1;
	long n = ring_op(&r, &sqe);
	if (n < 0) {
		errno = (int)-n;
		return report("uring-read: read", -1);
	}
	buf[n] = 0;
	printf("uring-read: ok %ld bytes: %s\n", n, buf);
	return 0;
}

static long raw_openat(int dirfd, const char *p, int flags)
{
	return raw(SYS_openat, dirfd, (long)p, flags, 0600);
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	const char *c = argv[1];
	if (!strcmp(c, "rawopen") && argc == 3)
		return report("rawopen", raw_openat(AT_FDCWD, argv[2], O_RDONLY));
	if (!strcmp(c, "libcsyscall") && argc == 3)
		return report("libcsyscall", syscall(SYS_openat, AT_FDCWD, argv[2], O_RDONLY));
	if (!strcmp(c, "libcopen") && argc == 3)
		return report("libcopen", open(argv[2], O_RDONLY));
	if (!strcmp(c, "rawwrite") && argc == 3)
		return report("rawwrite", raw_openat(AT_FDCWD, argv[2], O_WRONLY | O_CREAT));
	if (!strcmp(c, "rel") && argc == 4) {
		if (raw(SYS_chdir, (long)argv[2], 0, 0, 0) != 0)
			return report("chdir", -1);
		return report("rel", raw_openat(AT_FDCWD, argv[3], O_RDONLY));
	}
	if (!strcmp(c, "dirfd") && argc == 4) {
		long d = raw_openat(AT_FDCWD, argv[2], O_PATH | O_DIRECTORY);
		if (d < 0)
			return report("dirfd open", -1);
		return report("dirfd", raw_openat((int)d, argv[3], O_RDONLY));
	}
	if (!strcmp(c, "connect") && argc == 4) {
		struct sockaddr_storage ss;
		socklen_t len;
		memset(&ss, 0, sizeof(ss));
		struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;
		struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;
		if (inet_pton(AF_INET, argv[2], &s4->sin_addr) == 1) {
			s4->sin_family = AF_INET;
			s4->sin_port = htons((uint16_t)atoi(argv[3]));
			len = sizeof(*s4);
		} else if (inet_pton(AF_INET6, argv[2], &s6->sin6_addr) == 1) {
			s6->sin6_family = AF_INET6;
			s6->sin6_port = htons((uint16_t)atoi(argv[3]));
			len = sizeof(*s6);
		} else {
			return 2;
		}
		long s = raw(SYS_socket, ss.ss_family, SOCK_STREAM, 0, 0);
		if (s < 0)
			return report("socket", -1);
		return report("connect", raw(SYS_connect, s, (long)&ss, len, 0));
	}
	if (!strcmp(c, "flood-then") && argc == 6) {
		long n = atol(argv[3]), m = atol(argv[5]), ok = 0;
		for (long i = 0; i < n; i++) {
			long fd = raw_openat(AT_FDCWD, argv[2], O_RDONLY);
			if (fd >= 0)
				raw(SYS_close, fd, 0, 0, 0);
		}
		for (long i = 0; i < m; i++) {
			long fd = raw_openat(AT_FDCWD, argv[4], O_RDONLY);
			if (fd >= 0) {
				ok++;
				raw(SYS_close, fd, 0, 0, 0);
			}
		}
		printf("flood-then: %ld of %ld opened\n", ok, m);
		return ok == m ? 0 : 1;
	}
	if (!strcmp(c, "flood") && argc == 4) {
		long n = atol(argv[3]), ok = 0;
		for (long i = 0; i < n; i++) {
			long fd = raw_openat(AT_FDCWD, argv[2], O_RDONLY);
			if (fd >= 0) {
				ok++;
				raw(SYS_close, fd, 0, 0, 0);
			}
		}
		printf("flood: %ld of %ld opened\n", ok, n);
		return 0;
	}
#if defined(__x86_64__)
	if (!strcmp(c, "int80") && argc == 3) {
		/* int 0x80 takes 32-bit pointers: copy the path into memory below 4 GiB */
		char *low = mmap((void *)0x10000000, 4096, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
		if (low == MAP_FAILED)
			return report("mmap low", -1);
		snprintf(low, 4096, "%s", argv[2]);
		long ret;
		/* i386 open = 5 */
		__asm__ volatile("int $0x80" : "=a"(ret) : "a"(5L), "b"((long)low), "c"(0L), "d"(0L) : "memory");
		if (ret < 0) {
			errno = (int)-ret;
			return report("int80", -1);
		}
		return report("int80", ret);
	}
#endif
	if (!strcmp(c, "exec-stripped") && argc >= 3) {
		unsetenv("LD_PRELOAD");
		execv(argv[2], argv + 2);
		return report("exec", -1);
	}
	if (!strcmp(c, "uring") && argc == 2) {
		unsigned char params[120];
		memset(params, 0, sizeof(params));
		return report("io_uring_setup", raw(425, 4, (long)params, 0, 0));
	}
	if (!strcmp(c, "uring-open") && argc == 3) {
		long r = uring_open(argv[2]);
		if (r < 0) {
			errno = (int)-r;
			return report("uring-open", -1);
		}
		return report("uring-open", r);
	}
	if (!strcmp(c, "uring-read") && argc == 3)
		return uring_read(argv[2]);
	if (!strcmp(c, "uring-connect") && argc == 4)
		return uring_connect(argv[2], atoi(argv[3]));
	if (!strcmp(c, "unshare") && argc == 2)
		return report("unshare", raw(SYS_unshare, 0x10000000 /* CLONE_NEWUSER */, 0, 0, 0));
	if (!strcmp(c, "memfd-exec") && argc == 3) {
		int src = open(argv[2], O_RDONLY | O_CLOEXEC);
		long mfd = raw(SYS_memfd_create, (long)"payload", 0, 0, 0);
		if (src < 0 || mfd < 0)
			return report("memfd setup", -1);
		char buf[65536];
		ssize_t n;
		while ((n = read(src, buf, sizeof(buf))) > 0)
			if (write((int)mfd, buf, (size_t)n) != n)
				return report("memfd write", -1);
		char *av[] = { argv[2], NULL }, *ev[] = { NULL };
#if defined(__x86_64__)
		long ret;
		register long r10 __asm__("r10") = (long)ev;
		register long r8 __asm__("r8") = AT_EMPTY_PATH;
		__asm__ volatile("syscall" : "=a"(ret) : "a"((long)SYS_execveat), "D"(mfd), "S"(""), "d"(av),
				 "r"(r10), "r"(r8) : "rcx", "r11", "memory");
		errno = (int)-ret;
#else
		syscall(SYS_execveat, mfd, "", av, ev, AT_EMPTY_PATH);
#endif
		return report("execveat", -1);
	}
	fprintf(stderr, "pr_attack: bad usage\n");
	return 2;
}
