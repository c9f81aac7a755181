/* ctl.c — see ctl.h. */
#include "ctl.h"
#include "actas.h"
#include "fdpass.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "msg.h"

int ctl_send_ready(int fd, const char *status, int passfd, bool by_number)
{
	char buf[CTL_MAX];
	int n = passfd >= 0 && by_number ? snprintf(buf, sizeof buf, "ready\n" CTL_LISTENER "%d\n%s", passfd, status)
					 : snprintf(buf, sizeof buf, "ready\n%s", status);
	if (n < 0 || (size_t)n >= sizeof buf)
		n = (int)sizeof buf - 1;
	ssize_t r;
	if (by_number || passfd < 0) {
		/* one send() (sendto without an address, which no filter routes to the supervisor):
		 * a filter that notifies every sendmsg would wait for a supervisor that has not got
		 * its listener yet. The supervisor takes it with pidfd_getfd */
		do
			r = send(fd, buf, (size_t)n, MSG_NOSIGNAL);
		while (r < 0 && errno == EINTR);
		return r == n ? 0 : -1;
	}
	return sbx_send_fds(fd, buf, (size_t)n, &passfd, 1) == n ? 0 : -1;
}

/* The stage's descriptor `num`, taken from the stage `pid` (our pid namespace's number, from
 * SCM_CREDENTIALS; the stage waits for "go", so the number is still its). -1 when it cannot be. */
static int take_fd(pid_t pid, long num)
{
	if (pid <= 0 || num < 0 || num > 1 << 20) {
		errno = EINVAL;
		return -1;
	}
	/* as the supervisor, or (root without CAP_SYS_PTRACE, a stage of another uid) with the stage's
	 * real ids for that one call (actas.h) */
	return sbx_take_fd(pid, (int)num);
}

int ctl_recv_ready(int fd, char *status, size_t len, int *passfd, pid_t *pid, uid_t *uid)
{
	char buf[CTL_MAX + 1];
	struct iovec iov = {buf, CTL_MAX};
	union {
		struct cmsghdr h;
		char b[CMSG_SPACE(sizeof(int) * 4) + CMSG_SPACE(sizeof(struct ucred))];
	} c;
	struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = c.b,
			    .msg_controllen = sizeof c.b};
	*passfd = -1;
	*pid = 0;
	*uid = (uid_t)-1;
	ssize_t n;
	do
		n = recvmsg(fd, &mh, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -1;
	for (struct cmsghdr *cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm)) {
		if (cm->cmsg_level != SOL_SOCKET)
			continue;
		if (cm->cmsg_type == SCM_RIGHTS) {
			size_t nfd = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
			for (size_t i = 0; i < nfd; i++) {
				int f;
				memcpy(&f, CMSG_DATA(cm) + i * sizeof(int), sizeof f);
				if (*passfd < 0)
					*passfd = f;
				else
					close(f); /* more than announced: hostile or buggy, drop */
			}
		} else if (cm->cmsg_type == SCM_CREDENTIALS && cm->cmsg_len >= CMSG_LEN(sizeof(struct ucred))) {
			struct ucred uc;
			memcpy(&uc, CMSG_DATA(cm), sizeof uc);
			*pid = uc.pid;
			*uid = uc.uid;
		}
	}
	if (n == 0 && *passfd < 0)
		return 0;
	buf[n] = 0;
	if (n < 6 || memcmp(buf, "ready\n", 6)) {
		if (*passfd >= 0)
			close(*passfd);
		*passfd = -1;
		return -1;
	}
	const char *body = buf + 6;
	size_t ll = strlen(CTL_LISTENER);
	if (!strncmp(body, CTL_LISTENER, ll)) {
		char *end;
		long num = strtol(body + ll, &end, 10);
		if (end == body + ll || *end != '\n') {
			if (*passfd >= 0)
				close(*passfd);
			*passfd = -1;
			return -1;
		}
		body = end + 1;
		if (*passfd < 0 && (*passfd = take_fd(*pid, num)) < 0)
			sbx_msg("warning: cannot take the seccomp listener from the stage (pidfd_getfd: %s): "
				"its notified calls fail with ENOSYS", strerror(errno));
	}
	snprintf(status, len, "%s", body);
	return 1;
}

int ctl_send_go(int fd)
{
	ssize_t r;
	do
		r = send(fd, "go", 2, MSG_NOSIGNAL);
	while (r < 0 && errno == EINTR);
	return r == 2 ? 0 : -1;
}

int ctl_wait_go(int fd)
{
	char buf[16];
	ssize_t n;
	do
		n = recv(fd, buf, sizeof buf, 0);
	while (n < 0 && errno == EINTR);
	return n == 2 && !memcmp(buf, "go", 2) ? 0 : -1;
}

int ctl_send_go_call(int fd, char *const *argv, const int stdio[3])
{
	size_t len = 3;
	for (size_t i = 0; argv[i]; i++)
		len += strlen(argv[i]) + 1;
	if (len > CTL_CALL_MAX)
		return -1;
	char *buf = malloc(len), *p = buf;
	if (!buf)
		return -1;
	memcpy(p, "go\n", 3);
	p += 3;
	for (size_t i = 0; argv[i]; i++) {
		size_t l = strlen(argv[i]) + 1;
		memcpy(p, argv[i], l);
		p += l;
	}
	ssize_t r = sbx_send_fds(fd, buf, len, stdio, 3);
	free(buf);
	return r == (ssize_t)len ? 0 : -1;
}

int ctl_wait_go_call(int fd, char ***argv, int stdio[3])
{
	*argv = NULL;
	stdio[0] = stdio[1] = stdio[2] = -1;
	char *buf = malloc(CTL_CALL_MAX + 1);
	if (!buf)
		return -1;
	int got = 0, mflags = 0;
	ssize_t n = sbx_recv_fds(fd, buf, CTL_CALL_MAX + 1, stdio, 3, &got, &mflags);
	if (n == 2 && !memcmp(buf, "go", 2) && !got) {
		free(buf);
		return 0;
	}
	/* a call: "go\n", at least one string, every one NUL-terminated, three descriptors */
	size_t nargs = 0;
	bool ok = n > 3 && n <= CTL_CALL_MAX && !memcmp(buf, "go\n", 3) && buf[n - 1] == 0 && got == 3 &&
		  !(mflags & (MSG_TRUNC | MSG_CTRUNC));
	for (ssize_t i = 3; ok && i < n; i++)
		nargs += buf[i] == 0;
	char **v = ok ? malloc((nargs + 1) * sizeof *v + (size_t)n) : NULL;
	if (!v) {
		for (int i = 0; i < got; i++)
			close(stdio[i]);
		stdio[0] = stdio[1] = stdio[2] = -1;
		free(buf);
		return -1;
	}
	char *s = (char *)(v + nargs + 1);
	memcpy(s, buf + 3, (size_t)n - 3);
	for (size_t i = 0; i < nargs; i++) {
		v[i] = s;
		s += strlen(s) + 1;
	}
	v[nargs] = NULL;
	free(buf);
	*argv = v;
	return 1;
}

int ctl_status_get(const char *status, const char *key, char *out, size_t outlen)
{
	size_t kl = strlen(key);
	for (const char *p = status; p && *p;) {
		const char *nl = strchr(p, '\n');
		size_t ll = nl ? (size_t)(nl - p) : strlen(p);
		if (ll > kl && !strncmp(p, key, kl) && p[kl] == '=') {
			snprintf(out, outlen, "%.*s", (int)(ll - kl - 1), p + kl + 1);
			return 0;
		}
		p = nl ? nl + 1 : NULL;
	}
	if (outlen)
		out[0] = 0;
	return -1;
}
