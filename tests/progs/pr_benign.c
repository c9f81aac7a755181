/* pr_benign.c — ordinary program behaviour the probes once reported as breaches (issue 17's list).
 * Each subcommand does what real programs and stress tools do; none of it may be reported as a
 * breach (the deep walk only as "undecidable"). Calls go through libc: the unit harness runs
 * without the preload, so every call reaches the kernel and the probes.
 *   stdin            stdin made a pipe, then open("/dev/stdin") and open("/dev/fd/0")
 *   procfd           open("/proc/self/fd/N") of a pipe's write end (bash process substitution)
 *   ns               open("/proc/self/ns/net"), open("/proc/self/ns/mnt")
 *   zombie           kill(child, 0) of an exited, not yet reaped child
 *   unixat DIR       in DIR: bind and connect an AF_UNIX socket file named "@sock" (a path)
 *   clonesig         raw clone() whose exit signal has bit 0x80 (CLONE_NEWTIME's value)
 *   ebadf N          N renameat() calls on a dirfd that does not exist (EBADF)
 *   deep DIR N LEN   in DIR: N nested directories of LEN-byte names, then create "f" in the deepest
 * Exit 0 when everything behaved as expected, 1 otherwise, 2 on usage. */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>

static int open_close(const char *p, int flags)
{
	int fd = open(p, flags);
	if (fd < 0) {
		fprintf(stderr, "pr_benign: open %s: %s\n", p, strerror(errno));
		return 1;
	}
	close(fd);
	return 0;
}

static int do_stdin(void)
{
	int p[2];
	if (pipe(p) != 0 || dup2(p[0], 0) < 0)
		return 1;
	if (write(p[1], "x", 1) != 1)
		return 1;
	return open_close("/dev/stdin", O_RDONLY) | open_close("/dev/fd/0", O_RDONLY);
}

static int do_procfd(void)
{
	int p[2];
	char path[64];
	if (pipe(p) != 0)
		return 1;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", p[1]);
	int rc = open_close(path, O_WRONLY);
	snprintf(path, sizeof(path), "/dev/fd/%d", p[0]);
	return rc | open_close(path, O_RDONLY);
}

static int do_ns(void)
{
	return open_close("/proc/self/ns/net", O_RDONLY) | open_close("/proc/self/ns/mnt", O_RDONLY);
}

static int do_zombie(void)
{
	pid_t c = fork();
	if (c < 0)
		return 1;
	if (c == 0)
		_exit(0);
	siginfo_t si;
	memset(&si, 0, sizeof(si));
	if (waitid(P_PID, (id_t)c, &si, WEXITED | WNOWAIT) != 0)   /* exited, still a zombie */
		return 1;
	int rc = kill(c, 0) == 0 ? 0 : 1;
	waitpid(c, NULL, 0);
	return rc;
}

static int do_unixat(const char *dir)
{
	if (chdir(dir) != 0)
		return 1;
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	snprintf(a.sun_path, sizeof(a.sun_path), "@sock");
	unlink("@sock");
	int s = socket(AF_UNIX, SOCK_STREAM, 0), c = socket(AF_UNIX, SOCK_STREAM, 0);
	if (s < 0 || c < 0)
		return 1;
	socklen_t len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + strlen(a.sun_path) + 1);
	if (bind(s, (struct sockaddr *)&a, len) != 0 || listen(s, 1) != 0 ||
	    connect(c, (struct sockaddr *)&a, len) != 0) {
		fprintf(stderr, "pr_benign: unix @sock: %s\n", strerror(errno));
		return 1;
	}
	close(c);
	close(s);
	unlink("@sock");
	return 0;
}

static int do_clonesig(void)
{
	long pid = syscall(SYS_clone, (unsigned long)(0x80 | SIGCHLD), 0UL, 0UL, 0UL, 0UL);
	if (pid == 0)
		_exit(0);
	if (pid > 0)
		waitpid((pid_t)pid, NULL, __WALL);
	return 0;                       /* accepted or refused by the kernel: either is fine */
}

static int do_ebadf(long n)
{
	for (long i = 0; i < n; i++)
		if (renameat(987, "a", 987, "b") == 0 || errno != EBADF)
			return 1;
	return 0;
}

static int do_deep(const char *dir, int n, int len)
{
	char name[256];
	if (len < 1 || len > 255)
		return 2;
	memset(name, 'd', (size_t)len);
	name[len] = 0;
	int fd = open(dir, O_RDONLY | O_DIRECTORY);
	for (int i = 0; fd >= 0 && i < n; i++) {
		if (mkdirat(fd, name, 0700) != 0 && errno != EEXIST)
			return 1;
		int nfd = openat(fd, name, O_RDONLY | O_DIRECTORY);
		close(fd);
		fd = nfd;
	}
	if (fd < 0)
		return 1;
	int f = openat(fd, "f", O_WRONLY | O_CREAT | O_TRUNC, 0600);
	close(fd);
	if (f < 0)
		return 1;
	close(f);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	const char *c = argv[1];
	if (!strcmp(c, "stdin"))
		return do_stdin();
	if (!strcmp(c, "procfd"))
		return do_procfd();
	if (!strcmp(c, "ns"))
		return do_ns();
	if (!strcmp(c, "zombie"))
		return do_zombie();
	if (!strcmp(c, "unixat") && argc == 3)
		return do_unixat(argv[2]);
	if (!strcmp(c, "clonesig"))
		return do_clonesig();
	if (!strcmp(c, "ebadf") && argc == 3)
		return do_ebadf(atol(argv[2]));
	if (!strcmp(c, "deep") && argc == 5)
		return do_deep(argv[2], atoi(argv[3]), atoi(argv[4]));
	return 2;
}
