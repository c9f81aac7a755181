/* gw_ns.h — a run-like network namespace for the gateway's tests and bench: enter a new network
 * namespace (with a user namespace when not root), bring lo up, make the listeners a run's
 * namespace hands to the gateway, and pass them to the parent over a unix socket (SCM_RIGHTS).
 * Header-only (static inline): shared by tests/unit/test_gateway.c and bench/gw_bench.c. */
#ifndef SBX_TEST_GW_NS_H
#define SBX_TEST_GW_NS_H

#include <arpa/inet.h>
#include <net/if.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>

static inline int gwns_write(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	if (!f)
		return -1;
	int r = fputs(text, f) < 0 ? -1 : 0;
	return fclose(f) < 0 ? -1 : r;
}

/* unshare the network namespace (and the user namespace when `userns`: the caller becomes its
 * root, uid and gid mapped to its own, so namespace tools such as iptables run), then lo up. */
static inline int gwns_enter(bool userns)
{
	uid_t uid = geteuid();
	gid_t gid = getegid();
	if (unshare(userns ? CLONE_NEWUSER | CLONE_NEWNET : CLONE_NEWNET) < 0)
		return -1;
	if (userns) {
		char m[64];
		snprintf(m, sizeof m, "0 %u 1\n", (unsigned)uid);
		if (gwns_write("/proc/self/uid_map", m) < 0)
			return -1;
		(void)gwns_write("/proc/self/setgroups", "deny");
		snprintf(m, sizeof m, "0 %u 1\n", (unsigned)gid);
		if (gwns_write("/proc/self/gid_map", m) < 0)
			return -1;
	}
	int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	struct ifreq ifr;
	memset(&ifr, 0, sizeof ifr);
	snprintf(ifr.ifr_name, sizeof ifr.ifr_name, "lo");
	int r = ioctl(s, SIOCGIFFLAGS, &ifr);
	ifr.ifr_flags |= IFF_UP;
	r = r < 0 ? r : ioctl(s, SIOCSIFFLAGS, &ifr);
	close(s);
	return r;
}

/* A listening TCP socket on the any-address, `port` (the gateway reads each destination with
 * getsockname), or a UDP socket bound to port 53 when udp53. -1 on failure. */
static inline int gwns_listener(uint16_t port, bool udp53)
{
	int fd = socket(AF_INET, (udp53 ? SOCK_DGRAM : SOCK_STREAM) | SOCK_CLOEXEC, 0);
	int one = 1;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons(udp53 ? 53 : port)};
	if (bind(fd, (struct sockaddr *)&sa, sizeof sa) < 0 || (!udp53 && listen(fd, 512) < 0)) {
		close(fd);
		return -1;
	}
	return fd;
}

/* One byte and n descriptors. 0 or -1. */
static inline int gwns_send_fds(int sock, const int *fds, int n)
{
	char c = 'k';
	struct iovec iov = {&c, 1};
	union { struct cmsghdr h; char b[CMSG_SPACE(sizeof(int) * 16)]; } cb;
	if (n > 16)
		return -1;
	struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = cb.b,
			    .msg_controllen = CMSG_SPACE(sizeof(int) * (size_t)n)};
	struct cmsghdr *cm = CMSG_FIRSTHDR(&mh);
	cm->cmsg_level = SOL_SOCKET;
	cm->cmsg_type = SCM_RIGHTS;
	cm->cmsg_len = CMSG_LEN(sizeof(int) * (size_t)n);
	memcpy(CMSG_DATA(cm), fds, sizeof(int) * (size_t)n);
	return sendmsg(sock, &mh, 0) < 0 ? -1 : 0;
}

#endif
