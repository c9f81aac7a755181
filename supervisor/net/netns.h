/* netns.h — the run's network namespace: its loopback, the routes that leave the gateway as the
 * only way out, and the gateway's listeners, made inside it (docs/network.md).
 *
 * Promise: sbx_netns_setup() works on the network namespace of process `member` (a process of the
 * run already in it: the stage, waiting for "go"), from a short-lived child of the supervisor that
 * joins it (/proc/PID/ns/net, and, when sbxsup is not root, first the user namespace owning it
 * (NS_GET_USERNS); the supervisor itself never changes namespace). In it the child
 *   - brings `lo` up (sbx_netns_lo_up, also used by the direct mode's init);
 *   - adds a `local` route for 0.0.0.0/0 (and ::/0 where the namespace has IPv6) on lo, in the
 *     local table: every address is then this namespace's own. The namespace has no other
 *     interface, so nothing leaves it by any route: a TCP connect to any address and a granted port
 *     reaches the gateway's listener for that port (its getsockname() is the address the program
 *     asked for: SBX_GW_DST_SOCKNAME), UDP to port 53 of any IPv4 address reaches the DNS socket,
 *     every other datagram and connect is answered inside (port unreachable, RST);
 *   - creates the listeners asked for, bound to the any-address: TCP on each port (IPv4, and an
 *     IPv6-only twin where there is IPv6), UDP on each granted UDP port (the same twins; a
 *     datagram to any address on that port reaches it, pktinfo names the address), UDP and TCP port 53 for DNS (UDP with IP_PKTINFO, so
 *     replies leave from the address queried; and UDP [::]:53 where there is IPv6), the HTTP
 *     proxy on 127.0.0.1:proxy_port, and with udp_catch two transparent UDP sockets (see there).
 * The descriptors come back over SCM_RIGHTS (a socket stays in the namespace it was made in,
 * whoever holds it). Bounded: the child is waited for at most 5 s, then killed.
 *   - with `redirect`: one more TCP listener (the any-address, an ephemeral port, IPv4 and IPv6 on
 *     one socket) and an nftables table `inet sbxsup` (libnftables) whose nat output chain
 *     redirects every TCP connect to a non-loopback address (port 53 aside: the DNS socket has it)
 *     to that listener whatever the port (`redirect_all`: an unrestricted network, a host granted
 *     without a port), and every TCP connect to any address, the loopback too, on one of lo_ports
 *     (a granted port on the run's loopback is the gateway's, as with per-port listeners; other
 *     ports are answered inside, RST) (the gateway reads SO_ORIGINAL_DST: SBX_GW_DST_ORIGDST).
 *     Where nftables is unusable in the namespace, the per-port listeners are made instead
 *     (out->redirect_fd -1, out->nft_why says why), or, with `redirect_required`, the set-up fails.
 * Works as root (the namespace owned by the run's user namespace or by the host's) and as a normal
 * user (owned by the user namespace bwrap or the direct mode made), with rtnetlink (libmnl) and,
 * for `redirect`, nf_tables (libnftables).
 *
 * Ownership: the caller owns every descriptor in struct sbx_netns_out (sbx_netns_close). No global
 * state.
 */
#ifndef SBX_NETNS_H
#define SBX_NETNS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define SBX_NETNS_MAX_PORTS 8          /* TCP ports with listeners (each IPv4 + IPv6: 16 fds) */
#define SBX_NETNS_MAX_LO_PORTS 64      /* granted ports the redirect takes */
#define SBX_NETNS_DNS_ADDR "127.0.0.53" /* the run's /etc/resolv.conf nameserver (any address on
					 * port 53 reaches the same socket) */

struct sbx_netns_req {
	uint16_t ports[SBX_NETNS_MAX_PORTS]; /* TCP listeners on the any-address */
	size_t nports;
	uint16_t udp_ports[SBX_NETNS_MAX_PORTS]; /* UDP sockets on the any-address (not 53: DNS) */
	size_t nudp_ports;
	bool dns;                            /* UDP + TCP port 53 on the any-address (and UDP on the
					      * IPv6 any-address where the namespace has IPv6) */
	uint16_t proxy_port;                 /* TCP 127.0.0.1:proxy_port, 0: none */
	bool redirect;                       /* TCP through one listener (nftables) */
	bool redirect_all;                   /* every port of every non-loopback address */
	uint16_t lo_ports[SBX_NETNS_MAX_LO_PORTS]; /* with redirect: the granted ports (any address) */
	size_t nlo_ports;
	bool redirect_required;              /* no per-port fallback: fail without nftables */
	bool udp_catch;                      /* with redirect: every other UDP datagram (not to the
					      * loopback, not port 53 or udp_ports) to a transparent
					      * socket (nftables tproxy), for the gateway to refuse and
					      * report; not made where tproxy is unusable (level says) */
};

struct sbx_netns_out {
	int port_fds[2 * SBX_NETNS_MAX_PORTS]; /* listening TCP sockets (IPv4 and IPv6 per port) */
	size_t nport_fds;
	int udp_fds[2 * SBX_NETNS_MAX_PORTS];  /* UDP sockets (IPv4 with IP_PKTINFO, IPv6 per port) */
	size_t nudp_fds;
	int dns_fd, dns_tcp_fd, proxy_fd;      /* -1: none */
	int dns6_fd;                           /* UDP [::]:53 (IPv6-only) where there is IPv6, -1: none */
	int redirect_fd;                       /* the nftables redirect's listener, -1: none */
	int udp_catch_fds[2];                  /* udp_catch's sockets (IPv4, IPv6), IP_TRANSPARENT */
	size_t nudp_catch_fds;
	char nft_why[160];                     /* redirect asked, not made: why */
	bool ipv6;                             /* the namespace has IPv6 (route and listeners made) */
	char level[256];                       /* what was made, for run.start.level.network */
};

/* Bring the loopback interface of the caller's network namespace up. 0, or -1 (errno). */
int sbx_netns_lo_up(void);

/* See above. 0 with *out filled, or -1 with why (nothing left open). */
int sbx_netns_setup(pid_t member, const struct sbx_netns_req *rq, struct sbx_netns_out *out, char *why,
		    size_t whylen);

/* Whether nftables can redirect in a network namespace like the run's: a short-lived child makes
 * a throwaway one (and, not root, the user namespace owning it) and loads the same table there.
 * Bounded (5 s). true, or false with why. */
bool sbx_netns_nft_probe(char *why, size_t whylen);

/* Close every descriptor of out (each set to -1). */
void sbx_netns_close(struct sbx_netns_out *out);

#endif
