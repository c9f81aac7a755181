/* fdpass.c — see fdpass.h. */
#include "fdpass.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

ssize_t sbx_recv_fds(int sock, void *buf, size_t cap, int *fds, int maxfds, int *nfds, int *mflags)
{
	union {
		struct cmsghdr h;
		char b[CMSG_SPACE(sizeof(int) * SBX_FDPASS_MAX)];
	} c;
	struct iovec iov = {.iov_base = buf, .iov_len = cap};
	struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = c.b, .msg_controllen = sizeof c.b};
	ssize_t n;
	*nfds = 0;
	if (mflags)
		*mflags = 0;
	do
		n = recvmsg(sock, &mh, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return -1;
	for (struct cmsghdr *cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm)) {
		if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
			continue;
		size_t k = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (size_t i = 0; i < k; i++) {
			int f;
			memcpy(&f, CMSG_DATA(cm) + i * sizeof(int), sizeof f);
			if (*nfds < maxfds && *nfds < SBX_FDPASS_MAX)
				fds[(*nfds)++] = f;
			else {
				close(f);
				mh.msg_flags |= MSG_CTRUNC; /* more than the caller takes */
			}
		}
	}
	if (mflags)
		*mflags = mh.msg_flags;
	return n;
}

ssize_t sbx_send_fds_flags(int sock, const void *buf, size_t len, const int *fds, int nfds, int flags)
{
	if (nfds < 0 || nfds > SBX_FDPASS_MAX) {
		errno = EINVAL;
		return -1;
	}
	union {
		char b[CMSG_SPACE(SBX_FDPASS_MAX * sizeof(int))];
		struct cmsghdr align;
	} u;
	memset(&u, 0, sizeof u);
	struct iovec iov = {(void *)buf, len};
	struct msghdr m = {.msg_iov = &iov, .msg_iovlen = 1};
	if (nfds > 0) {
		m.msg_control = u.b;
		m.msg_controllen = CMSG_SPACE((size_t)nfds * sizeof(int));
		struct cmsghdr *h = CMSG_FIRSTHDR(&m);
		h->cmsg_level = SOL_SOCKET;
		h->cmsg_type = SCM_RIGHTS;
		h->cmsg_len = CMSG_LEN((size_t)nfds * sizeof(int));
		memcpy(CMSG_DATA(h), fds, (size_t)nfds * sizeof(int));
	}
	ssize_t n;
	do
		n = sendmsg(sock, &m, MSG_NOSIGNAL | flags);
	while (n < 0 && errno == EINTR);
	return n;
}
