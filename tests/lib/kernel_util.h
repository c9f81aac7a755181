/* kernel_util.h — small helpers shared by the kernel-layer unit tests (test_seccomp.c,
 * test_landlock.c, test_netfilter.c): temp audit streams read back, fd passing, child status. */
#ifndef SBX_TEST_KERNEL_UTIL_H
#define SBX_TEST_KERNEL_UTIL_H

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

/* Whole file into a malloc'd NUL-terminated buffer (NULL on error). */
static inline char *ku_slurp(const char *path)
{
	FILE *f = fopen(path, "re");
	if (!f)
		return NULL;
	size_t cap = 4096, n = 0;
	char *b = malloc(cap);
	size_t r;
	while (b && (r = fread(b + n, 1, cap - n - 1, f)) > 0) {
		n += r;
		if (cap - n < 2) {
			char *nb = realloc(b, cap * 2);
			if (!nb) {
				free(b);
				b = NULL;
				break;
			}
			b = nb;
			cap *= 2;
		}
	}
	fclose(f);
	if (b)
		b[n] = 0;
	return b;
}

/* True when some line of the file contains every one of the (NULL-terminated) needles. */
static inline bool ku_line_has(const char *path, ...)
{
	const char *need[16];
	size_t nn = 0;
	va_list ap;
	va_start(ap, path);
	const char *s;
	while (nn < 16 && (s = va_arg(ap, const char *)))
		need[nn++] = s;
	va_end(ap);
	char *buf = ku_slurp(path);
	if (!buf)
		return false;
	bool found = false;
	for (char *line = strtok(buf, "\n"); line && !found; line = strtok(NULL, "\n")) {
		size_t i;
		for (i = 0; i < nn && strstr(line, need[i]); i++)
			;
		found = i == nn;
	}
	free(buf);
	return found;
}

/* Pass descriptor `fd` to the process reading `sock` (ku_recv_fd) as the stage passes its seccomp
 * listener (supervisor/run/ctl.h): its number and our pid with send() — a filter notifies every
 * sendmsg, and nobody would answer before the listener arrived —, the reader takes it with
 * pidfd_getfd and acknowledges; `fd` stays open until then. 0, or -1. */
static inline int ku_send_fd(int sock, int fd)
{
	char msg[64], ack;
	int n = snprintf(msg, sizeof msg, "%d %d", (int)getpid(), fd);
	if (send(sock, msg, (size_t)n, 0) != n)
		return -1;
	return recv(sock, &ack, 1, 0) == 1 ? 0 : -1;
}

static inline int ku_recv_fd(int sock)
{
	char msg[64];
	ssize_t n = recv(sock, msg, sizeof msg - 1, 0);
	if (n <= 0)
		return -1;
	msg[n] = 0;
	int pid, num;
	if (sscanf(msg, "%d %d", &pid, &num) != 2)
		return -1;
	int pfd = (int)syscall(SYS_pidfd_open, pid, 0);
	int fd = pfd < 0 ? -1 : (int)syscall(SYS_pidfd_getfd, pfd, num, 0);
	if (pfd >= 0)
		close(pfd);
	if (send(sock, "k", 1, 0) != 1 && fd >= 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Wait for a child; its exit status, or 128+signal. */
static inline int ku_wait(pid_t pid)
{
	int st;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

#endif
