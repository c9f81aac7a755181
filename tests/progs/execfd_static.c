/* execfd_static.c — an exec raced onto a denied file that a binfmt_misc handler with the `O` flag
 * (open-binary: the kernel opens the binary and hands it to the interpreter as AT_EXECFD, as
 * qemu-user's registrations do) runs; the attack of tests/integration/deny_execfd.sh (issue 28).
 * One program, two roles:
 *
 *   execfd_static race GOOD BAD SECONDS
 *     waits until BAD exists (the host creates it during the run), then forks children, each of
 *     which runs a second thread flipping a name buffer between GOOD (this program: allowed) and
 *     BAD while it calls execve on that buffer by raw system call, again and again. Stops when a
 *     child read BAD's content through the handler (exit 42), or a child was killed (SIGKILL: the
 *     supervisor's exec stop refused the image), or SECONDS passed. Prints "tries=N got=N killed=N"
 *     on stderr; exit 0. The judge is the host (the bytes printed, the audit stream), not this exit.
 *   as the handler's interpreter (AT_EXECFD in the auxv): reads the descriptor the kernel gave it
 *     and prints what it read on stdout; exit 42.
 *   as GOOD exec'd by a child (argv[0] "execfd-again"): exit 7.
 * Static and raw (no libc wrapper the preload could see).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char buf[4096], good[4096], bad[4096];

static void *flipper(void *arg)
{
	(void)arg;
	size_t gl = strlen(good) + 1, bl = strlen(bad) + 1;
	for (;;) { /* (the barriers: each store is made, none is dropped as dead) */
		memcpy(buf, good, gl);
		__asm__ volatile("" ::: "memory");
		for (volatile int i = 0; i < 50; i++)
			;
		memcpy(buf, bad, bl);
		__asm__ volatile("" ::: "memory");
		for (volatile int i = 0; i < 50; i++)
			;
	}
	return NULL;
}

static __attribute__((noreturn)) void child(void)
{
	pthread_t t;
	if (pthread_create(&t, NULL, flipper, NULL))
		_exit(2);
	char *args[] = {"execfd-again", NULL};
	char *envp[] = {NULL};
	for (int i = 0; i < 3000; i++)
		syscall(SYS_execve, buf, args, envp);
	_exit(3);
}

static double since(const struct timespec *t0)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - t0->tv_sec) + (double)(now.tv_nsec - t0->tv_nsec) / 1e9;
}

int main(int argc, char **argv)
{
	errno = 0;
	unsigned long efd = getauxval(AT_EXECFD);
	if (errno == 0) { /* the interpreter of an `O` handler: the binary is ours to read */
		char b[512];
		ssize_t n;
		while ((n = read((int)efd, b, sizeof b)) > 0)
			(void)!write(1, b, (size_t)n);
		return 42;
	}
	if (argc >= 1 && !strcmp(argv[0], "execfd-again"))
		return 7;
	if (argc != 5 || strcmp(argv[1], "race")) {
		fprintf(stderr, "usage: execfd_static race GOOD BAD SECONDS\n");
		return 2;
	}
	snprintf(good, sizeof good, "%s", argv[2]);
	snprintf(bad, sizeof bad, "%s", argv[3]);
	double secs = atof(argv[4]);
	struct timespec t0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	struct stat st;
	while (syscall(SYS_newfstatat, AT_FDCWD, bad, &st, 0) < 0 && since(&t0) < secs) {
		struct timespec ts = {0, 50 * 1000 * 1000};
		nanosleep(&ts, NULL);
	}
	int got = 0, killed = 0, tries = 0, good_ran = 0;
	while (!got && !killed && since(&t0) < secs) {
		fflush(stdout);
		pid_t c = fork();
		if (c < 0)
			return 2;
		if (c == 0)
			child();
		int ws;
		if (waitpid(c, &ws, 0) < 0)
			return 2;
		tries++;
		got = WIFEXITED(ws) && WEXITSTATUS(ws) == 42;
		killed = WIFSIGNALED(ws) && WTERMSIG(ws) == SIGKILL;
		good_ran += WIFEXITED(ws) && WEXITSTATUS(ws) == 7;
	}
	fprintf(stderr, "tries=%d got=%d killed=%d (good ran %d)\n", tries, got, killed, good_ran);
	return 0;
}
