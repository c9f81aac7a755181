/* netns.c — see netns.h. */
#include "netns.h"
#include "fdpass.h"
#include "procids.h"

#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <grp.h>
#include <sys/fsuid.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <libmnl/libmnl.h>
#include <nftables/libnftables.h>
#include <linux/nsfs.h>
#include <linux/rtnetlink.h>

#define MAX_FDS (4 * SBX_NETNS_MAX_PORTS + 8)

int sbx_netns_lo_up(void)
{
	int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		return -1;
	struct ifreq ifr;
	memset(&ifr, 0, sizeof ifr);
	snprintf(ifr.ifr_name, sizeof ifr.ifr_name, "lo");
	int rc = ioctl(s, SIOCGIFFLAGS, &ifr);
	if (rc == 0 && !(ifr.ifr_flags & IFF_UP)) {
		ifr.ifr_flags |= IFF_UP;
		rc = ioctl(s, SIOCSIFFLAGS, &ifr);
	}
	int e = errno;
	close(s);
	errno = e;
	return rc;
}

void sbx_netns_close(struct sbx_netns_out *o)
{
	if (o->redirect_fd >= 0)
		close(o->redirect_fd);
	o->redirect_fd = -1;
	for (size_t i = 0; i < o->nport_fds; i++)
		if (o->port_fds[i] >= 0)
			close(o->port_fds[i]);
	o->nport_fds = 0;
	for (size_t i = 0; i < o->nudp_fds; i++)
		if (o->udp_fds[i] >= 0)
			close(o->udp_fds[i]);
	o->nudp_fds = 0;
	for (size_t i = 0; i < o->nudp_catch_fds; i++)
		if (o->udp_catch_fds[i] >= 0)
			close(o->udp_catch_fds[i]);
	o->nudp_catch_fds = 0;
	int *one[4] = {&o->dns_fd, &o->dns_tcp_fd, &o->proxy_fd, &o->dns6_fd};
	for (int i = 0; i < 4; i++) {
		if (*one[i] >= 0)
			close(*one[i]);
		*one[i] = -1;
	}
}

/* ---- the child, inside the namespace ------------------------------------------------------------- */

/* RTM_NEWROUTE: `local` 0/0 of family on lo, table local (what `ip route add local default dev lo
 * table local` does). 0 or -1 (errno). */
static int local_default(struct mnl_socket *nl, int family, unsigned ifindex, unsigned seq)
{
	char buf[8192]; /* (MNL_SOCKET_BUFFER_SIZE is the page size: a VLA) */
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = RTM_NEWROUTE;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_CREATE | NLM_F_REPLACE | NLM_F_ACK;
	nlh->nlmsg_seq = seq;
	struct rtmsg *rtm = mnl_nlmsg_put_extra_header(nlh, sizeof *rtm);
	rtm->rtm_family = (unsigned char)family;
	rtm->rtm_dst_len = 0;
	rtm->rtm_table = RT_TABLE_LOCAL;
	rtm->rtm_protocol = RTPROT_STATIC;
	rtm->rtm_scope = RT_SCOPE_HOST;
	rtm->rtm_type = RTN_LOCAL;
	mnl_attr_put_u32(nlh, RTA_OIF, ifindex);
	if (mnl_socket_sendto(nl, nlh, nlh->nlmsg_len) < 0)
		return -1;
	ssize_t n = mnl_socket_recvfrom(nl, buf, sizeof buf);
	if (n < 0)
		return -1;
	return mnl_cb_run(buf, (size_t)n, seq, mnl_socket_get_portid(nl), NULL, NULL) < 0 ? -1 : 0;
}

static int listener(int family, int type, const void *addr, uint16_t port, bool pktinfo)
{
	int s = socket(family, type | SOCK_CLOEXEC, 0);
	if (s < 0)
		return -1;
	int one = 1;
	struct sockaddr_in a4 = {.sin_family = AF_INET, .sin_port = htons(port)};
	struct sockaddr_in6 a6 = {.sin6_family = AF_INET6, .sin6_port = htons(port)};
	const struct sockaddr *sa = (const struct sockaddr *)&a4;
	socklen_t len = sizeof a4;
	if (family == AF_INET) {
		if (addr)
			memcpy(&a4.sin_addr, addr, 4);
	} else {
		sa = (const struct sockaddr *)&a6;
		len = sizeof a6;
		if (setsockopt(s, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one) < 0)
			goto fail;
	}
	if (pktinfo && setsockopt(s, IPPROTO_IP, IP_PKTINFO, &one, sizeof one) < 0)
		goto fail;
	if (bind(s, sa, len) < 0 || (type == SOCK_STREAM && listen(s, 128) < 0))
		goto fail;
	return s;
fail:;
	int e = errno;
	close(s);
	errno = e;
	return -1;
}

struct reply {
	int ok;
	int ipv6;
	int redirect, nport_fds, nudp_fds, dns, dns_tcp, dns6, proxy, nudp_catch;
	char why[200];
	char nft_why[160];
};

/* The redirect's table in the caller's namespace, to :port: with `all`, every TCP connect to a
 * non-loopback address (port 53 aside: the DNS socket on the any-address has it, by the local
 * route); and a connect to any address, the loopback too, on one of lo_ports (a granted port on
 * the run's loopback is the gateway's, as with the per-port listeners). 0, or -1 with why
 * (nftables' first error line). */
static int nft_redirect(uint16_t port, bool ipv6, bool all, const uint16_t *lo_ports, size_t nlo, char *why,
			size_t whylen)
{
	char set[SBX_NETNS_MAX_LO_PORTS * 7 + 8] = "", granted[sizeof set + 80] = "", rest[256] = "";
	size_t k = 0, m = 0;
	for (size_t i = 0; i < nlo && i < SBX_NETNS_MAX_LO_PORTS; i++)
		if (lo_ports[i] != 53) {
			k += (size_t)snprintf(set + k, sizeof set - k, "%s%u", m ? ", " : "", lo_ports[i]);
			m++;
		}
	if (m)
		snprintf(granted, sizeof granted, "  tcp dport { %s } redirect to :%u\n", set, port);
	if (all && ipv6)
		snprintf(rest, sizeof rest, "  ip daddr != 127.0.0.0/8 tcp dport != 53 redirect to :%u\n"
					    "  ip6 daddr != ::1 tcp dport != 53 redirect to :%u\n", port, port);
	else if (all)
		snprintf(rest, sizeof rest, "  ip daddr != 127.0.0.0/8 tcp dport != 53 redirect to :%u\n", port);
	char cmd[sizeof granted + sizeof rest + 256];
	snprintf(cmd, sizeof cmd,
		 "table inet sbxsup {\n chain out {\n  type nat hook output priority -100; policy accept;\n%s%s }\n}\n",
		 granted, rest);
	struct nft_ctx *n = nft_ctx_new(NFT_CTX_DEFAULT);
	if (!n) {
		snprintf(why, whylen, "nftables: no context");
		return -1;
	}
	nft_ctx_buffer_output(n);
	nft_ctx_buffer_error(n);
	int rc = nft_run_cmd_from_buffer(n, cmd) == 0 ? 0 : -1;
	if (rc < 0) {
		const char *e = nft_ctx_get_error_buffer(n);
		size_t l = e ? strcspn(e, "\n") : 0;
		snprintf(why, whylen, "nftables: %.*s", (int)(l > 140 ? 140 : l), l ? e : "failed");
	}
	nft_ctx_free(n);
	return rc;
}

/* udp_catch: a transparent UDP socket of family on the any-address, an ephemeral port (*port). */
static int catch_socket(int family, uint16_t *port)
{
	int s = socket(family, SOCK_DGRAM | SOCK_CLOEXEC, 0), one = 1;
	if (s < 0)
		return -1;
	struct sockaddr_storage ss;
	memset(&ss, 0, sizeof ss);
	ss.ss_family = (sa_family_t)family;
	socklen_t len = family == AF_INET6 ? sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in);
	if ((family == AF_INET6 ? setsockopt(s, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one) < 0 ||
				      setsockopt(s, IPPROTO_IPV6, IPV6_TRANSPARENT, &one, sizeof one) < 0
				: setsockopt(s, IPPROTO_IP, IP_TRANSPARENT, &one, sizeof one) < 0) ||
	    bind(s, (struct sockaddr *)&ss, len) < 0 || getsockname(s, (struct sockaddr *)&ss, &len) < 0) {
		close(s);
		return -1;
	}
	*port = ntohs(family == AF_INET6 ? ((struct sockaddr_in6 *)&ss)->sin6_port : ((struct sockaddr_in *)&ss)->sin_port);
	return s;
}

/* udp_catch: the table `inet sbxsup_udp`: in prerouting (a datagram to any address loops through lo,
 * the local route), every UDP datagram not to the loopback, not to port 53 nor a granted UDP port,
 * and not an answer (ct direction original: the DNS stub's and the UDP relay's replies go to the
 * program's own address and port, which may be any address), goes to the catch socket of its family
 * (tproxy keeps its destination). 0, or -1. */
static int nft_udp_catch(uint16_t p4, uint16_t p6, const uint16_t *udp_ports, size_t nudp)
{
	char set[SBX_NETNS_MAX_PORTS * 7 + 8] = "53";
	size_t k = 2;
	for (size_t i = 0; i < nudp && i < SBX_NETNS_MAX_PORTS; i++)
		k += (size_t)snprintf(set + k, sizeof set - k, ", %u", udp_ports[i]);
	char r6[sizeof set + 128] = "", cmd[2 * sizeof set + 384];
	int n6 = p6 ? snprintf(r6, sizeof r6,
			       "  meta l4proto udp ip6 daddr != ::1 udp dport != { %s } ct direction original "
			       "tproxy ip6 to :%u\n",
			       set, p6)
		    : 0;
	int nc = snprintf(cmd, sizeof cmd,
			  "table inet sbxsup_udp {\n chain pre {\n  type filter hook prerouting priority -150; policy accept;\n"
			  "  meta l4proto udp ip daddr != 127.0.0.0/8 udp dport != { %s } ct direction original tproxy ip to :%u\n"
			  "%s }\n}\n",
			  set, p4, r6);
	if (n6 < 0 || (size_t)n6 >= sizeof r6 || nc < 0 || (size_t)nc >= sizeof cmd)
		return -1; /* cannot happen: sized for SBX_NETNS_MAX_PORTS ports */
	struct nft_ctx *n = nft_ctx_new(NFT_CTX_DEFAULT);
	if (!n)
		return -1;
	nft_ctx_buffer_output(n);
	nft_ctx_buffer_error(n);
	int rc = nft_run_cmd_from_buffer(n, cmd) == 0 ? 0 : -1;
	nft_ctx_free(n);
	return rc;
}

/* The redirect's listener: the any-address on an ephemeral port, IPv4 and IPv6 on one socket where
 * there is IPv6. The fd and *port, or -1. */
static int redirect_listener(bool ipv6, uint16_t *port)
{
	int s = socket(ipv6 ? AF_INET6 : AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		return -1;
	int zero = 0;
	struct sockaddr_storage ss;
	memset(&ss, 0, sizeof ss);
	ss.ss_family = ipv6 ? AF_INET6 : AF_INET;
	socklen_t len = ipv6 ? sizeof(struct sockaddr_in6) : sizeof(struct sockaddr_in);
	if ((ipv6 && setsockopt(s, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof zero) < 0) ||
	    bind(s, (struct sockaddr *)&ss, len) < 0 || listen(s, 512) < 0 ||
	    getsockname(s, (struct sockaddr *)&ss, &len) < 0) {
		int e = errno;
		close(s);
		errno = e;
		return -1;
	}
	*port = ntohs(ipv6 ? ((struct sockaddr_in6 *)&ss)->sin6_port : ((struct sockaddr_in *)&ss)->sin_port);
	return s;
}

static int child_fail(struct reply *r, const char *what)
{
	snprintf(r->why, sizeof r->why, "%s: %s", what, strerror(errno));
	return -1;
}

/* Inside the namespace: the routes and the listeners. fds[] gets them in reply order. */
static int child_build(const struct sbx_netns_req *rq, struct reply *r, int *fds, int *nfds)
{
	*nfds = 0;
	if (sbx_netns_lo_up() < 0)
		return child_fail(r, "bring lo up");
	unsigned lo = if_nametoindex("lo");
	if (!lo)
		return child_fail(r, "lo: no such interface");
	struct mnl_socket *nl = mnl_socket_open(NETLINK_ROUTE);
	if (!nl)
		return child_fail(r, "rtnetlink socket");
	if (mnl_socket_bind(nl, 0, MNL_SOCKET_AUTOPID) < 0) {
		mnl_socket_close(nl);
		return child_fail(r, "rtnetlink bind");
	}
	unsigned seq = (unsigned)time(NULL);
	if (local_default(nl, AF_INET, lo, seq) < 0) {
		int e = errno;
		mnl_socket_close(nl);
		errno = e;
		return child_fail(r, "route local 0.0.0.0/0 dev lo");
	}
	/* IPv6 where the namespace has it (no IPv6, no address to leave by either) */
	int probe = socket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	if (probe >= 0) {
		close(probe);
		if (local_default(nl, AF_INET6, lo, seq + 1) < 0) {
			int e = errno;
			mnl_socket_close(nl);
			errno = e;
			return child_fail(r, "route local ::/0 dev lo");
		}
		r->ipv6 = 1;
	}
	mnl_socket_close(nl);
	if (rq->redirect) {
		uint16_t port = 0;
		int fd = redirect_listener(r->ipv6, &port);
		if (fd < 0)
			snprintf(r->nft_why, sizeof r->nft_why, "the redirect's listener: %s", strerror(errno));
		else if (nft_redirect(port, r->ipv6, rq->redirect_all, rq->lo_ports, rq->nlo_ports, r->nft_why,
					sizeof r->nft_why) < 0) {
			close(fd);
			fd = -1;
		}
		if (fd >= 0) {
			fds[(*nfds)++] = fd;
			r->redirect = 1;
		} else if (rq->redirect_required) {
			snprintf(r->why, sizeof r->why, "every TCP port through the gateway: %s", r->nft_why);
			return -1;
		}
	}
	for (size_t i = 0; !r->redirect && i < rq->nports && i < SBX_NETNS_MAX_PORTS; i++) {
		char what[64];
		snprintf(what, sizeof what, "listen on port %u", rq->ports[i]);
		if ((fds[(*nfds)++] = listener(AF_INET, SOCK_STREAM, NULL, rq->ports[i], false)) < 0)
			return child_fail(r, what);
		r->nport_fds++;
		if (r->ipv6) {
			if ((fds[(*nfds)++] = listener(AF_INET6, SOCK_STREAM, NULL, rq->ports[i], false)) < 0)
				return child_fail(r, what);
			r->nport_fds++;
		}
	}
	for (size_t i = 0; i < rq->nudp_ports && i < SBX_NETNS_MAX_PORTS; i++) {
		char what[64];
		snprintf(what, sizeof what, "UDP socket on port %u", rq->udp_ports[i]);
		if ((fds[(*nfds)++] = listener(AF_INET, SOCK_DGRAM, NULL, rq->udp_ports[i], true)) < 0)
			return child_fail(r, what);
		r->nudp_fds++;
		if (r->ipv6) {
			if ((fds[(*nfds)++] = listener(AF_INET6, SOCK_DGRAM, NULL, rq->udp_ports[i], false)) < 0)
				return child_fail(r, what);
			r->nudp_fds++;
		}
	}
	if (rq->dns) {
		if ((fds[(*nfds)++] = listener(AF_INET, SOCK_DGRAM, NULL, 53, true)) < 0)
			return child_fail(r, "DNS socket on port 53/udp");
		r->dns = 1;
		if ((fds[(*nfds)++] = listener(AF_INET, SOCK_STREAM, NULL, 53, false)) < 0)
			return child_fail(r, "DNS socket on port 53/tcp");
		r->dns_tcp = 1;
		if (r->ipv6) {
			if ((fds[(*nfds)++] = listener(AF_INET6, SOCK_DGRAM, NULL, 53, false)) < 0)
				return child_fail(r, "DNS socket on [::]:53/udp");
			r->dns6 = 1;
		}
	}
	if (rq->proxy_port) {
		static const uint8_t lo4[4] = {127, 0, 0, 1};
		if ((fds[(*nfds)++] = listener(AF_INET, SOCK_STREAM, lo4, rq->proxy_port, false)) < 0)
			return child_fail(r, "HTTP proxy listener");
		r->proxy = 1;
	}
	if (rq->udp_catch && r->redirect) {
		uint16_t p4 = 0, p6 = 0;
		int c4 = catch_socket(AF_INET, &p4), c6 = r->ipv6 && c4 >= 0 ? catch_socket(AF_INET6, &p6) : -1;
		if (c4 >= 0 && (!r->ipv6 || c6 >= 0) && nft_udp_catch(p4, p6, rq->udp_ports, rq->nudp_ports) == 0) {
			fds[(*nfds)++] = c4;
			r->nudp_catch = 1;
			if (c6 >= 0) {
				fds[(*nfds)++] = c6;
				r->nudp_catch = 2;
			}
		} else { /* no tproxy here: such UDP stays inside unreported (the level says) */
			if (c4 >= 0)
				close(c4);
			if (c6 >= 0)
				close(c6);
		}
	}
	return 0;
}

/* The member's real uid and gid as this namespace sees them (/proc/PID/status), -1 when unread. */
static int member_ids(pid_t member, uid_t *uid, gid_t *gid)
{
	struct sbx_proc_ids id;
	if (sbx_proc_ids(member, &id) < 0)
		return -1;
	*uid = id.uid[0];
	*gid = id.gid[0];
	return 0;
}

/* Join the network namespace of `member`, and (not root) first the user namespace that owns it:
 * bwrap as a normal user runs the sandbox in a user namespace nested in the one owning its network
 * namespace, whose capabilities would not reach the routes. /proc/PID/ns/net needs the member to
 * be dumpable to a normal user (the direct mode's stage is, run/wrap_direct.c child_direct).
 * Root without CAP_SYS_PTRACE (a container's default) reaches a member of another uid only with
 * that uid as its fs ids (the ptrace check compares them); where root also holds no capability in
 * the namespace's owner (a user namespace the executor's identity made), this child — forked for
 * this alone — becomes that owner, which has every capability there, and joins as a normal user
 * does. */
static int join(pid_t member, struct reply *r)
{
	char p[64];
	snprintf(p, sizeof p, "/proc/%d/ns/net", (int)member);
	int net = open(p, O_RDONLY | O_CLOEXEC);
	uid_t mu = (uid_t)-1;
	gid_t mg = (gid_t)-1;
	if (net < 0 && (errno == EACCES || errno == EPERM) && geteuid() == 0 && member_ids(member, &mu, &mg) == 0) {
		setfsgid(mg);
		setfsuid(mu);
		net = open(p, O_RDONLY | O_CLOEXEC);
		int e = errno;
		setfsuid(0);
		setfsgid(0);
		errno = e;
	}
	if (net < 0)
		return child_fail(r, "open the run's network namespace");
	if (geteuid() == 0 && setns(net, CLONE_NEWNET) == 0) {
		close(net);
		return 0;
	}
	/* Not root, or root without CAP_SYS_ADMIN here or in the owning user namespace: join the
	 * owning user namespace first (its owner has every capability there); root that is not the
	 * owner becomes it (this child exists for this alone). */
	int user = ioctl(net, NS_GET_USERNS);
	uid_t owner = 0;
	int bad = user < 0;
	if (!bad && geteuid() == 0 && ioctl(user, NS_GET_OWNER_UID, &owner) == 0 && owner != 0)
		bad = (mg == (gid_t)-1 && member_ids(member, &mu, &mg) < 0) || setgroups(0, NULL) < 0 ||
		      setresgid(mg, mg, mg) < 0 || setresuid(owner, owner, owner) < 0;
	if (bad || setns(user, CLONE_NEWUSER) < 0) {
		int e = errno;
		if (user >= 0)
			close(user);
		close(net);
		errno = e;
		return child_fail(r, "join the user namespace owning the run's network namespace");
	}
	close(user);
	int rc = setns(net, CLONE_NEWNET);
	int e = errno;
	close(net);
	errno = e;
	return rc < 0 ? child_fail(r, "setns (the run's network namespace)") : 0;
}

static __attribute__((noreturn)) void child(int sock, pid_t member, const struct sbx_netns_req *rq)
{
	struct reply r;
	memset(&r, 0, sizeof r);
	int fds[MAX_FDS], nfds = 0;
	if (join(member, &r) == 0 && child_build(rq, &r, fds, &nfds) == 0)
		r.ok = 1;
	if (!r.ok)
		nfds = 0; /* nothing handed over */
	_exit(sbx_send_fds(sock, &r, sizeof r, fds, nfds) < 0 ? 1 : 0);
}

/* ---- the supervisor ------------------------------------------------------------------------------ */

static void reap(pid_t pid, bool kill_it)
{
	if (kill_it)
		kill(pid, SIGKILL);
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
}

int sbx_netns_setup(pid_t member, const struct sbx_netns_req *rq, struct sbx_netns_out *out, char *why,
		    size_t whylen)
{
	memset(out, 0, sizeof *out);
	out->dns_fd = out->dns_tcp_fd = out->proxy_fd = out->redirect_fd = out->dns6_fd = -1;
	out->udp_catch_fds[0] = out->udp_catch_fds[1] = -1;
	if ((rq->nports > SBX_NETNS_MAX_PORTS && !rq->redirect) || rq->nudp_ports > SBX_NETNS_MAX_PORTS) {
		snprintf(why, whylen, "more than %d granted %s ports", SBX_NETNS_MAX_PORTS,
			 rq->nudp_ports > SBX_NETNS_MAX_PORTS ? "UDP" : "TCP");
		return -1;
	}
	int sp[2];
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sp) < 0) {
		snprintf(why, whylen, "socketpair: %s", strerror(errno));
		return -1;
	}
	pid_t pid = fork();
	if (pid < 0) {
		snprintf(why, whylen, "fork: %s", strerror(errno));
		close(sp[0]);
		close(sp[1]);
		return -1;
	}
	if (pid == 0) {
		close(sp[0]);
		child(sp[1], member, rq);
	}
	close(sp[1]);
	struct pollfd pfd = {.fd = sp[0], .events = POLLIN};
	int pr;
	while ((pr = poll(&pfd, 1, 5000)) < 0 && errno == EINTR)
		;
	struct reply r;
	memset(&r, 0, sizeof r);
	int fds[MAX_FDS], nfds = 0, mflags = 0;
	ssize_t n = pr > 0 ? sbx_recv_fds(sp[0], &r, sizeof r, fds, MAX_FDS, &nfds, &mflags) : -1;
	int e = errno;
	close(sp[0]);
	reap(pid, n < 0);
	int want = r.redirect + r.nport_fds + r.nudp_fds + r.dns + r.dns_tcp + r.dns6 + r.proxy + r.nudp_catch;
	if (n != (ssize_t)sizeof r || !r.ok || nfds != want || r.nport_fds > 2 * SBX_NETNS_MAX_PORTS ||
	    r.nudp_fds > 2 * SBX_NETNS_MAX_PORTS || r.nudp_catch < 0 || r.nudp_catch > 2 ||
	    (mflags & MSG_CTRUNC)) {
		for (int i = 0; i < nfds; i++)
			close(fds[i]);
		r.why[sizeof r.why - 1] = 0;
		if (n < 0)
			snprintf(why, whylen, "the namespace set-up gave no answer: %s",
				 pr == 0 ? "timed out" : strerror(e));
		else
			snprintf(why, whylen, "%s", r.why[0] ? r.why : "the namespace set-up failed");
		return -1;
	}
	int k = 0;
	if (r.redirect)
		out->redirect_fd = fds[k++];
	r.nft_why[sizeof r.nft_why - 1] = 0;
	snprintf(out->nft_why, sizeof out->nft_why, "%s", rq->redirect && !r.redirect ? r.nft_why : "");
	for (int i = 0; i < r.nport_fds; i++)
		out->port_fds[out->nport_fds++] = fds[k++];
	for (int i = 0; i < r.nudp_fds; i++)
		out->udp_fds[out->nudp_fds++] = fds[k++];
	if (r.dns)
		out->dns_fd = fds[k++];
	if (r.dns_tcp)
		out->dns_tcp_fd = fds[k++];
	if (r.dns6)
		out->dns6_fd = fds[k++];
	if (r.proxy)
		out->proxy_fd = fds[k++];
	for (int i = 0; i < r.nudp_catch; i++)
		out->udp_catch_fds[out->nudp_catch_fds++] = fds[k++];
	out->ipv6 = r.ipv6;
	char udp[48] = "";
	if (rq->nudp_ports)
		snprintf(udp, sizeof udp, ", %zu UDP port%s", rq->nudp_ports, rq->nudp_ports == 1 ? "" : "s");
	if (r.redirect)
		snprintf(out->level, sizeof out->level,
			 "local route 0.0.0.0/0%s on lo; nftables redirect: %s%s%s%s%s",
			 r.ipv6 ? " and ::/0" : "", rq->redirect_all ? "every TCP port" : "the granted TCP ports", udp,
			 r.dns ? ", DNS on port 53" : "", r.proxy ? ", HTTP proxy" : "",
			 r.nudp_catch ? ", other UDP refused (tproxy)" : rq->udp_catch ? ", other UDP unreported (no tproxy)" : "");
	else
		snprintf(out->level, sizeof out->level, "local route 0.0.0.0/0%s on lo; %zu TCP port%s%s%s%s",
			 r.ipv6 ? " and ::/0" : "", rq->nports, rq->nports == 1 ? "" : "s", udp,
			 r.dns ? ", DNS on port 53" : "", r.proxy ? ", HTTP proxy" : "");
	return 0;
}

bool sbx_netns_nft_probe(char *why, size_t whylen)
{
	int p[2];
	if (pipe2(p, O_CLOEXEC) < 0) {
		snprintf(why, whylen, "pipe: %s", strerror(errno));
		return false;
	}
	pid_t pid = fork();
	if (pid < 0) {
		snprintf(why, whylen, "fork: %s", strerror(errno));
		close(p[0]);
		close(p[1]);
		return false;
	}
	if (pid == 0) {
		close(p[0]);
		char w[160] = "";
		int ok = 0;
		if (unshare(CLONE_NEWNET | (geteuid() != 0 ? CLONE_NEWUSER : 0)) < 0)
			snprintf(w, sizeof w, "a network namespace: %s", strerror(errno));
		else {
			int s6 = socket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0);
			if (s6 >= 0)
				close(s6);
			static const uint16_t lo[] = {80};
			ok = nft_redirect(1, s6 >= 0, true, lo, 1, w, sizeof w) == 0;
		}
		ssize_t wr = write(p[1], w, strlen(w) + 1);
		_exit(ok && wr > 0 ? 0 : 1);
	}
	close(p[1]);
	struct pollfd pfd = {.fd = p[0], .events = POLLIN};
	int pr;
	while ((pr = poll(&pfd, 1, 5000)) < 0 && errno == EINTR)
		;
	char w[160] = "";
	ssize_t n = pr > 0 ? read(p[0], w, sizeof w - 1) : -1;
	close(p[0]);
	w[n > 0 ? n : 0] = 0;
	if (n < 0)
		kill(pid, SIGKILL);
	int st = 0;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	bool ok = n > 0 && WIFEXITED(st) && WEXITSTATUS(st) == 0;
	if (!ok)
		snprintf(why, whylen, "%s", w[0] ? w : pr == 0 ? "the probe timed out" : "the probe failed");
	return ok;
}
