/* fdpass.h — send or receive one message and the descriptors passed with it (SCM_RIGHTS): the one
 * builder and reader of such messages (the stage's control socket, the network namespace's set-up
 * child, the seccomp emulation's connector, serve's calls).
 *
 * Promise: one sendmsg (retried on EINTR, MSG_NOSIGNAL) with up to SBX_FDPASS_MAX descriptors, the
 * kernel's own bound (SCM_MAX_FD). One recvmsg (retried on EINTR) with MSG_CMSG_CLOEXEC, so every received descriptor is
 * close-on-exec. The first `maxfds` descriptors (at most SBX_FDPASS_MAX) are the caller's, in the
 * order they arrived; any beyond are closed here and the message counts as truncated (MSG_CTRUNC
 * in *mflags), so a caller that refuses truncated messages refuses one with too many descriptors. Control messages other than SCM_RIGHTS are
 * ignored. The caller owns buf, fds and every descriptor handed back; nothing is kept.
 */
#ifndef SBX_FDPASS_H
#define SBX_FDPASS_H

#include <stddef.h>
#include <sys/types.h>

#define SBX_FDPASS_MAX 253 /* the kernel's SCM_MAX_FD */

/* Receive into buf (cap bytes) from `sock`. *nfds gets the number of descriptors kept in fds;
 * *mflags (may be NULL) the message flags (MSG_TRUNC, MSG_CTRUNC: a longer message, more
 * descriptors than SBX_FDPASS_MAX — the kernel dropped those). Returns recvmsg's result: the
 * byte count (0 at end of stream), or -1 with errno and no descriptor kept. */
ssize_t sbx_recv_fds(int sock, void *buf, size_t cap, int *fds, int maxfds, int *nfds, int *mflags);

/* Send buf (len bytes) with nfds descriptors (at most SBX_FDPASS_MAX; 0: none) in one sendmsg
 * (MSG_NOSIGNAL, and `flags`, e.g. MSG_DONTWAIT). Returns sendmsg's result, or -1 with errno
 * (EINVAL: too many descriptors). */
ssize_t sbx_send_fds_flags(int sock, const void *buf, size_t len, const int *fds, int nfds, int flags);
static inline ssize_t sbx_send_fds(int sock, const void *buf, size_t len, const int *fds, int nfds)
{
	return sbx_send_fds_flags(sock, buf, len, fds, nfds, 0);
}

#endif
