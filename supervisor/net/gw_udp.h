/* gw_udp.h — the gateway's UDP relay (granted UDP ports other than DNS; contract in gateway.h).
 *
 * Promise: datagrams arrive on listeners made in the run's namespace (one per granted UDP port and
 * family, bound to the any-address; a `local` route for 0/0 brings every address there), with
 * IP_PKTINFO / IPV6_RECVPKTINFO giving the address the program sent to. A flow is keyed by the
 * listener, the client's address:port and that destination. Its first datagram is decided by the
 * caller's `decide` (address + port only: no name is carried by UDP); an allowed flow gets a
 * host-side socket of its own, connected to the address the gateway chose, and replies go back to
 * the client with the original destination as their source (IP_PKTINFO / IPV6_PKTINFO). A flow idle
 * for GW_UDP_IDLE_MS ends and is recorded (net.flow, proto udp, exact payload bytes each way); so is
 * every open flow at gw_udp_close(). A refused datagram is dropped and reported as net.deny (proto
 * udp, reason addr-not-granted) at most once per destination per GW_UDP_DENY_MS (a flood to one
 * destination is one event per window, not one per datagram). At most GW_UDP_FLOWS_MAX flows:
 * datagrams that would open more are dropped.
 * Catch listeners (an unrestricted network's UDP, other than DNS and granted UDP ports, steered
 * there by an nftables tproxy rule in the run's namespace, netns.h): the datagram's original
 * destination is IP_ORIGDSTADDR / IPV6_ORIGDSTADDR (set here); it cannot be relayed (a reply would
 * need a socket in the run's namespace bound to that address and port), so it is dropped and
 * reported as net.deny proto udp, reason udp-not-relayed, with the same once-per-destination limit.
 * Owns the flows' sockets, not the listeners.
 */
#ifndef SBX_GW_UDP_H
#define SBX_GW_UDP_H

#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "gw_parse.h"
#include "report.h"

#define GW_UDP_FLOWS_MAX 256
#define GW_UDP_IDLE_MS 30000
#define GW_UDP_DENY_MS 10000
#define GW_UDP_DENY_SLOTS 64
#define GW_UDP_LISTENERS_MAX 18 /* SBX_GW_MAX_PORT_FDS + 2 catch listeners */

/* Decide a new flow to fam/addr:port (the program's destination). 1 = allowed, with host (the
 * granted name or the literal, for the record) and where to send (ufam/uaddr); 0 = refused (host
 * may name the granted name the address belongs to, for the refusal). */
typedef int (*gw_udp_decide_fn)(void *ctx, int fam, const uint8_t *addr, uint16_t port,
				char host[GW_NAME_MAX], int *ufam, uint8_t uaddr[16]);
/* Send one record (net.flow / net.deny) to the supervisor. */
typedef void (*gw_udp_record_fn)(void *ctx, const struct sbx_net_hdr *h, const char *host);

struct gw_udp_flow {
	int lfd;                          /* the listener it came in on */
	struct sockaddr_storage client;
	socklen_t clen;
	int dfam;                         /* the program's destination */
	uint8_t daddr[16];
	uint16_t dport;
	int ufd, ufam;                    /* host side */
	uint8_t uaddr[16];
	char host[GW_NAME_MAX];
	uint64_t out, in;
	long t0, last;
};

struct gw_udp_denied {
	int fam;
	uint8_t addr[16];
	uint16_t port;
	long at;
};

struct gw_udp {
	int lfds[GW_UDP_LISTENERS_MAX];
	bool lcatch[GW_UDP_LISTENERS_MAX]; /* a catch listener (see above) */
	size_t nl;
	struct gw_udp_flow *f[GW_UDP_FLOWS_MAX];
	size_t nf;
	struct gw_udp_denied denied[GW_UDP_DENY_SLOTS];
	size_t ndenied;
	gw_udp_decide_fn decide;
	gw_udp_record_fn record;
	void *ctx;
};

/* Set up with the listeners and the catch listeners (non-blocking, pktinfo / origdstaddr set here).
 * 0, or -1 (a listener unusable). */
int gw_udp_init(struct gw_udp *u, const int *lfds, size_t nl, const int *cfds, size_t nc,
		gw_udp_decide_fn d, gw_udp_record_fn r, void *ctx);
/* The number of pollfd slots gw_udp_poll may fill (listeners + flows). */
size_t gw_udp_nslots(const struct gw_udp *u);
/* Fill pf (listeners, then flows' host-side sockets); *wait_ms lowered to the next expiry. */
size_t gw_udp_poll(struct gw_udp *u, struct pollfd *pf, long now, long *wait_ms);
/* Serve the events of the slots filled by the last gw_udp_poll (n of them), then expire idle flows. */
void gw_udp_serve(struct gw_udp *u, const struct pollfd *pf, size_t n, long now);
/* Record and close every flow. */
void gw_udp_close(struct gw_udp *u, long now);

#endif
