/* ev_attack.c — evidence that must not be buried or raced away (tests/integration/evidence.sh).
 * A dynamic binary (the preload is loaded where the mode has it).
 *   ev_attack flood N DIR REAL HOW
 *                                N opens of distinct names DIR/decoy-<i> (each denied), then an open
 *                                + read of REAL; HOW: libc (open(3): the preload sees them) or raw
 *                                (the openat instruction: only kernel-side sensors see them); prints
 *                                "decoys N failed F; real: ok B bytes" or "real: <errno text>"
 *   ev_attack race SECRET OTHER MS
 *                                SECRET and OTHER differ in one byte: a second thread flips that byte
 *                                of a buffer between them for MS milliseconds while this one opens
 *                                the buffer with a raw openat system call (never the preload) in a
 *                                loop. Counted on the attack side, per open: the kernel used SECRET
 *                                when the fd is SECRET's file (device and inode, taken before) or
 *                                the call failed (OTHER always opens). Prints "opens N secret_opened
 *                                A secret_failed B other C".
 * Exit 0 when it did what it was told (what the supervisor records is the test's business). */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/syscall.h>

/* The syscall instruction, not libc's syscall(3) (the preload interposes that one). */
static long raw4(long nr, long a, long b, long c, long d)
{
#if defined(__x86_64__)
	long ret;
	register long r10 __asm__("r10") = d;
	__asm__ volatile("syscall" : "=a"(ret) : "a"(nr), "D"(a), "S"(b), "d"(c), "r"(r10)
			 : "rcx", "r11", "memory");
	return ret;
#else
	long r = syscall(nr, a, b, c, d);
	return r < 0 ? -errno : r;
#endif
}

static int open_how(const char *p, bool raw)
{
	if (!raw)
		return open(p, O_RDONLY);
	long fd = raw4(SYS_openat, AT_FDCWD, (long)p, O_RDONLY, 0);
	if (fd < 0) {
		errno = (int)-fd;
		return -1;
	}
	return (int)fd;
}

static int flood(long n, const char *dir, const char *real, bool raw)
{
	char p[4096];
	long failed = 0;
	for (long i = 0; i < n; i++) {
		snprintf(p, sizeof p, "%s/decoy-%ld", dir, i);
		int fd = open_how(p, raw);
		if (fd < 0)
			failed++;
		else
			close(fd);
	}
	printf("decoys %ld failed %ld; ", n, failed);
	int fd = open_how(real, raw);
	if (fd < 0) {
		printf("real: %s\n", strerror(errno));
		return 0;
	}
	char buf[256];
	ssize_t r = read(fd, buf, sizeof buf);
	close(fd);
	printf("real: ok %zd bytes\n", r);
	return 0;
}

static char name[4096];
static size_t flip_at;
static char flip_a, flip_b;
static atomic_int stop;

static void *flipper(void *arg)
{
	(void)arg;
	volatile char *c = &name[flip_at];
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		*c = flip_b;
		*c = flip_a;
	}
	return NULL;
}

static long ms_now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

static int race(const char *secret, const char *other, long ms)
{
	size_t n = strlen(secret);
	if (n != strlen(other) || n >= sizeof name)
		return 2;
	size_t diff = 0, at = 0;
	for (size_t i = 0; i < n; i++)
		if (secret[i] != other[i])
			diff++, at = i;
	if (diff != 1)
		return 2;
	struct stat ss;                         /* the secret's identity (hidden from the sandbox in
						 * some modes; a raw open: the preload may refuse it) */
	long sfd = raw4(SYS_openat, AT_FDCWD, (long)secret, O_RDONLY, 0);
	bool have = sfd >= 0 && fstat((int)sfd, &ss) == 0;
	if (sfd >= 0)
		close((int)sfd);
	memcpy(name, other, n + 1);
	flip_at = at;
	flip_a = other[at];
	flip_b = secret[at];
	pthread_t th;
	if (pthread_create(&th, NULL, flipper, NULL) != 0)
		return 2;
	/* the identity open above was an attempt on the secret too */
	long opens = 1, sec_open = have ? 1 : 0, sec_fail = sfd < 0 ? 1 : 0, oth = 0, end = ms_now() + ms;
	while (ms_now() < end) {
		for (int k = 0; k < 64; k++) {
			long fd = raw4(SYS_openat, AT_FDCWD, (long)name, O_RDONLY, 0);
			opens++;
			if (fd < 0) {
				sec_fail++;
				continue;
			}
			struct stat st;
			if (have && fstat((int)fd, &st) == 0 && st.st_dev == ss.st_dev && st.st_ino == ss.st_ino)
				sec_open++;
			else
				oth++;
			close((int)fd);
		}
	}
	atomic_store(&stop, 1);
	pthread_join(th, NULL);
	printf("opens %ld secret_opened %ld secret_failed %ld other %ld\n", opens, sec_open, sec_fail, oth);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 6 && !strcmp(argv[1], "flood"))
		return flood(atol(argv[2]), argv[3], argv[4], !strcmp(argv[5], "raw"));
	if (argc == 5 && !strcmp(argv[1], "race"))
		return race(argv[2], argv[3], atol(argv[4]));
	fprintf(stderr, "usage: ev_attack flood N DIR REAL libc|raw | race SECRET OTHER MS\n");
	return 2;
}
