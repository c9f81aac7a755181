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

static inline int ku_send_fd(int sock, int fd)
{
	char c = 'L';
	struct iovec iov = {.iov_base = &c, .iov_len = 1};
	union { struct cmsghdr h; char b[CMSG_SPACE(sizeof(int))]; } u;
	memset(&u, 0, sizeof u);
	struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.b, .msg_controllen = sizeof u.b};
	struct cmsghdr *cm = CMSG_FIRSTHDR(&m);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(cm), &fd, sizeof fd);
	return sendmsg(sock, &m, 0) == 1 ? 0 : -1;
}

static inline int ku_recv_fd(int sock)
{
	char c;
	struct iovec iov = {.iov_base = &c, .iov_len = 1};
	union { struct cmsghdr h; char b[CMSG_SPACE(sizeof(int))]; } u;
	struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.b, .msg_controllen = sizeof u.b};
	if (recvmsg(sock, &m, MSG_CMSG_CLOEXEC) != 1)
		return -1;
	struct cmsghdr *cm = CMSG_FIRSTHDR(&m);
	if (!cm || cm->cmsg_type != SCM_RIGHTS)
		return -1;
	int fd;
	memcpy(&fd, CMSG_DATA(cm), sizeof fd);
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
