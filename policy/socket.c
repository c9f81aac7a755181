/* socket.c — the socket allowlist every layer asks (policy.h pol_socket_ok): the seccomp notify
 * handler decides raw socket()/socketpair() calls with it, the preload the libc calls. */
#include <errno.h>
#include <linux/netlink.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/socket.h>

#include "policy.h"

#ifndef AF_MCTP
#define AF_MCTP 45
#endif
#ifndef IPPROTO_MPTCP
#define IPPROTO_MPTCP 262
#endif

/* ---- names ------------------------------------------------------------------------------------ */

static const char *const fam_names[] = {
	[AF_UNSPEC] = "AF_UNSPEC", [AF_UNIX] = "AF_UNIX", [AF_INET] = "AF_INET", [AF_AX25] = "AF_AX25",
	[AF_IPX] = "AF_IPX", [AF_APPLETALK] = "AF_APPLETALK", [AF_NETROM] = "AF_NETROM",
	[AF_BRIDGE] = "AF_BRIDGE", [AF_ATMPVC] = "AF_ATMPVC", [AF_X25] = "AF_X25",
	[AF_INET6] = "AF_INET6", [AF_ROSE] = "AF_ROSE", [AF_DECnet] = "AF_DECnet",
	[AF_NETBEUI] = "AF_NETBEUI", [AF_SECURITY] = "AF_SECURITY", [AF_KEY] = "AF_KEY",
	[AF_NETLINK] = "AF_NETLINK", [AF_PACKET] = "AF_PACKET", [AF_ASH] = "AF_ASH",
	[AF_ECONET] = "AF_ECONET", [AF_ATMSVC] = "AF_ATMSVC", [AF_RDS] = "AF_RDS", [AF_SNA] = "AF_SNA",
	[AF_IRDA] = "AF_IRDA", [AF_PPPOX] = "AF_PPPOX", [AF_WANPIPE] = "AF_WANPIPE",
	[AF_LLC] = "AF_LLC", [AF_IB] = "AF_IB", [AF_MPLS] = "AF_MPLS", [AF_CAN] = "AF_CAN",
	[AF_TIPC] = "AF_TIPC", [AF_BLUETOOTH] = "AF_BLUETOOTH", [AF_IUCV] = "AF_IUCV",
	[AF_RXRPC] = "AF_RXRPC", [AF_ISDN] = "AF_ISDN", [AF_PHONET] = "AF_PHONET",
	[AF_IEEE802154] = "AF_IEEE802154", [AF_CAIF] = "AF_CAIF", [AF_ALG] = "AF_ALG",
	[AF_NFC] = "AF_NFC", [AF_VSOCK] = "AF_VSOCK", [AF_KCM] = "AF_KCM", [AF_QIPCRTR] = "AF_QIPCRTR",
	[AF_SMC] = "AF_SMC", [AF_XDP] = "AF_XDP", [AF_MCTP] = "AF_MCTP",
};

const char *pol_family_name(int domain, char *buf, size_t len)
{
	if (domain >= 0 && (size_t)domain < sizeof fam_names / sizeof fam_names[0] && fam_names[domain])
		return fam_names[domain];
	snprintf(buf, len, "AF_%d", domain);
	return buf;
}

static const char *type_name(int t, char *buf, size_t len)
{
	switch (t & 0xf) {
	case SOCK_STREAM: return "SOCK_STREAM";
	case SOCK_DGRAM: return "SOCK_DGRAM";
	case SOCK_RAW: return "SOCK_RAW";
	case SOCK_RDM: return "SOCK_RDM";
	case SOCK_SEQPACKET: return "SOCK_SEQPACKET";
	case SOCK_DCCP: return "SOCK_DCCP";
	case SOCK_PACKET: return "SOCK_PACKET";
	}
	snprintf(buf, len, "SOCK_%d", t & 0xf);
	return buf;
}

static const char *proto_name(int domain, int p, char *buf, size_t len)
{
	if (domain == AF_NETLINK) {
		switch (p) {
		case NETLINK_ROUTE: return "NETLINK_ROUTE";
		case NETLINK_SOCK_DIAG: return "NETLINK_SOCK_DIAG";
		case NETLINK_AUDIT: return "NETLINK_AUDIT";
		case NETLINK_KOBJECT_UEVENT: return "NETLINK_KOBJECT_UEVENT";
		case NETLINK_GENERIC: return "NETLINK_GENERIC";
		case NETLINK_NETFILTER: return "NETLINK_NETFILTER";
		case NETLINK_XFRM: return "NETLINK_XFRM";
		case NETLINK_SELINUX: return "NETLINK_SELINUX";
		case NETLINK_CONNECTOR: return "NETLINK_CONNECTOR";
		}
		snprintf(buf, len, "NETLINK_%d", p);
		return buf;
	}
	switch (p) {
	case 0: return "0";
	case IPPROTO_TCP: return "IPPROTO_TCP";
	case IPPROTO_UDP: return "IPPROTO_UDP";
	case IPPROTO_ICMP: return "IPPROTO_ICMP";
	case IPPROTO_ICMPV6: return "IPPROTO_ICMPV6";
	case IPPROTO_UDPLITE: return "IPPROTO_UDPLITE";
	case IPPROTO_SCTP: return "IPPROTO_SCTP";
	case IPPROTO_DCCP: return "IPPROTO_DCCP";
	case IPPROTO_MPTCP: return "IPPROTO_MPTCP";
	case IPPROTO_RAW: return "IPPROTO_RAW";
	}
	snprintf(buf, len, "IPPROTO_%d", p);
	return buf;
}

/* ---- the socket allowlist ------------------------------------------------------------------- */

bool pol_socket_ok(int domain, int type, int protocol, enum pol_net_mode net_mode, int *err,
		      char *what, size_t whatlen)
{
	char b1[24], b2[24], b3[24];
	int t = type & 0xf;
	const char *fam = pol_family_name(domain, b1, sizeof b1);
	*err = 0;
	if (domain == AF_UNIX)
		return true;
	if (domain == AF_NETLINK) {
		/* libc needs NETLINK_ROUTE only (getaddrinfo AI_ADDRCONFIG, if_nameindex, getifaddrs);
		 * audit, uevent, sock_diag, netfilter, xfrm, generic... reach host state: refused */
		if (protocol == NETLINK_ROUTE)
			return true;
		*err = EPROTONOSUPPORT;
		snprintf(what, whatlen, "%s %s", fam, proto_name(domain, protocol, b3, sizeof b3));
		return false;
	}
	if (domain == AF_INET || domain == AF_INET6) {
		bool ok = false;
		if (t == SOCK_STREAM)
			ok = protocol == 0 || protocol == IPPROTO_TCP;
		else if (t == SOCK_DGRAM && (protocol == 0 || protocol == IPPROTO_UDP))
			ok = true;
		else if (t == SOCK_DGRAM && protocol == (domain == AF_INET ? IPPROTO_ICMP : IPPROTO_ICMPV6)) {
			/* ping sockets: no cgroup hook filters their peers, so only an unrestricted network
			 * may have them (the kernel's own "not in ping_group_range" errno) */
			ok = net_mode == POL_NET_ANY;
			if (!ok)
				*err = EACCES;
		}
		if (ok)
			return true;
		if (!*err)
			*err = t == SOCK_RAW ? EPERM : EPROTONOSUPPORT;
		snprintf(what, whatlen, "%s %s %s", fam, type_name(type, b2, sizeof b2),
			 proto_name(domain, protocol, b3, sizeof b3));
		return false;
	}
	*err = domain == AF_PACKET ? EPERM : EAFNOSUPPORT;
	snprintf(what, whatlen, "%s", fam);
	return false;
}

