/* net.c — network interposers: peers and name resolution.
 *
 * Promise: socket() creates only what the one socket allowlist allows (policy.h pol_socket_ok:
 * AF_UNIX, TCP and UDP over IPv4/IPv6, ping with an unrestricted network, NETLINK_ROUTE): AF_VSOCK,
 * AF_PACKET, raw sockets, UDP-Lite, SCTP, ... fail with the kernel layers' errno and are reported.
 * connect, sendto and sendmsg/sendmmsg (with a destination), and bind are decided by
 * sbx_check_sockaddr() before the real call; a denial is -1/EPERM, reported with the peer.
 * getaddrinfo and gethostbyname(2)(_r) are decided by sbx_check_name(): a refused name is never
 * looked up (no DNS query leaves the process) and fails with EAI_FAIL (gethostbyname*: NULL,
 * h_errno NO_RECOVERY); the addresses an allowed resolution returns are remembered, so a later
 * connect to them is allowed (for the ports the name is granted with).
 */
#undef _FORTIFY_SOURCE
#include "pl.h"

#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

REAL_DECL(socket); REAL_DECL(connect); REAL_DECL(sendto); REAL_DECL(sendmsg); REAL_DECL(sendmmsg); REAL_DECL(bind);
REAL_DECL(getaddrinfo); REAL_DECL(gethostbyname); REAL_DECL(gethostbyname2);
REAL_DECL(gethostbyname_r); REAL_DECL(gethostbyname2_r);

SBX_EXPORT int socket(int domain, int type, int protocol)
{
	if (sbx_check_socket(domain, type, protocol) != 0)
		return -1;
	return REAL(socket)(domain, type, protocol);
}

SBX_EXPORT int connect(int fd, const struct sockaddr *sa, socklen_t len)
{
	if (sbx_check_sockaddr(SBX_OP_CONNECT, sa, len) != 0)
		return -1;
	return REAL(connect)(fd, sa, len);
}

SBX_EXPORT ssize_t sendto(int fd, const void *buf, size_t n, int flags, const struct sockaddr *sa,
			  socklen_t len)
{
	if (sa && sbx_check_sockaddr(SBX_OP_SENDTO, sa, len) != 0)
		return -1;
	return REAL(sendto)(fd, buf, n, flags, sa, len);
}

SBX_EXPORT ssize_t sendmsg(int fd, const struct msghdr *m, int flags)
{
	if (m && m->msg_name && sbx_check_sockaddr(SBX_OP_SENDTO, m->msg_name, m->msg_namelen) != 0)
		return -1;
	return REAL(sendmsg)(fd, m, flags);
}

SBX_EXPORT int sendmmsg(int fd, struct mmsghdr *v, unsigned int n, int flags)
{
	for (unsigned i = 0; v && i < n; i++) {
		const struct msghdr *m = &v[i].msg_hdr;
		if (m->msg_name && sbx_check_sockaddr(SBX_OP_SENDTO, m->msg_name, m->msg_namelen) != 0)
			return -1;
	}
	return REAL(sendmmsg)(fd, v, n, flags);
}

SBX_EXPORT int bind(int fd, const struct sockaddr *sa, socklen_t len)
{
	if (sbx_check_sockaddr(SBX_OP_BIND, sa, len) != 0)
		return -1;
	return REAL(bind)(fd, sa, len);
}

/* A numeric service is a port; a named one ("https") asks for "any port". */
static uint16_t service_port(const char *service)
{
	if (!service || !*service)
		return 0;
	unsigned long v = 0;
	for (const char *s = service; *s; s++) {
		if (*s < '0' || *s > '9')
			return 0;
		v = v * 10 + (unsigned long)(*s - '0');
		if (v > 65535)
			return 0;
	}
	return (uint16_t)v;
}

SBX_EXPORT int getaddrinfo(const char *node, const char *service, const struct addrinfo *hints,
			   struct addrinfo **res)
{
	if (node && sbx_check_name(node, service_port(service)) != 0)
		return EAI_FAIL;
	int r = REAL(getaddrinfo)(node, service, hints, res);
	if (r == 0 && node && res && sbx_pl_mode() == SBX_PL_ENFORCE) {
		for (const struct addrinfo *ai = *res; ai; ai = ai->ai_next) {
			if (ai->ai_family == AF_INET && ai->ai_addrlen >= sizeof(struct sockaddr_in))
				sbx_pl_addr_add(node, AF_INET, &((struct sockaddr_in *)ai->ai_addr)->sin_addr);
			else if (ai->ai_family == AF_INET6 && ai->ai_addrlen >= sizeof(struct sockaddr_in6))
				sbx_pl_addr_add(node, AF_INET6, &((struct sockaddr_in6 *)ai->ai_addr)->sin6_addr);
		}
	}
	return r;
}

static void remember_hostent(const char *name, const struct hostent *h)
{
	if (!h || sbx_pl_mode() != SBX_PL_ENFORCE)
		return;
	if (h->h_addrtype != AF_INET && h->h_addrtype != AF_INET6)
		return;
	for (char **a = h->h_addr_list; a && *a; a++)
		sbx_pl_addr_add(name, h->h_addrtype, *a);
}

SBX_EXPORT struct hostent *gethostbyname(const char *name)
{
	if (sbx_check_name(name, 0) != 0) {
		h_errno = NO_RECOVERY;
		return NULL;
	}
	struct hostent *h = REAL(gethostbyname)(name);
	remember_hostent(name, h);
	return h;
}

SBX_EXPORT struct hostent *gethostbyname2(const char *name, int af)
{
	if (sbx_check_name(name, 0) != 0) {
		h_errno = NO_RECOVERY;
		return NULL;
	}
	struct hostent *h = REAL(gethostbyname2)(name, af);
	remember_hostent(name, h);
	return h;
}

SBX_EXPORT int gethostbyname_r(const char *name, struct hostent *ret, char *buf, size_t buflen,
			       struct hostent **result, int *h_errnop)
{
	if (sbx_check_name(name, 0) != 0) {
		if (result)
			*result = NULL;
		if (h_errnop)
			*h_errnop = NO_RECOVERY;
		return EACCES;
	}
	int r = REAL(gethostbyname_r)(name, ret, buf, buflen, result, h_errnop);
	if (r == 0 && result)
		remember_hostent(name, *result);
	return r;
}

SBX_EXPORT int gethostbyname2_r(const char *name, int af, struct hostent *ret, char *buf, size_t buflen,
				struct hostent **result, int *h_errnop)
{
	if (sbx_check_name(name, 0) != 0) {
		if (result)
			*result = NULL;
		if (h_errnop)
			*h_errnop = NO_RECOVERY;
		return EACCES;
	}
	int r = REAL(gethostbyname2_r)(name, af, ret, buf, buflen, result, h_errnop);
	if (r == 0 && result)
		remember_hostent(name, *result);
	return r;
}
