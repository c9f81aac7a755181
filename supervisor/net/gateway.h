/* gateway.h — the run's network gateway: the only way out of a run's network namespace.
 *
 * Promise (the contract between the run's namespace set-up and the gateway):
 *
 * - The gateway is a separate process. sbx_gw_spawn() forks and execs the sbxsup binary
 *   (`spec->exe`, NULL = /proc/self/exe) as `sbxsup __gateway`: it parses bytes the executor
 *   controls, so it never shares the supervisor's address space (no audit key, no policy writer).
 *   The child keeps only the descriptors named in the spec (their numbers unchanged), reads its
 *   grants from a sealed memfd, sets no_new_privs, gives up root (uid/gid 65534) when it has it,
 *   makes itself not dumpable, loads a seccomp filter (no exec, ptrace, mount, namespaces, BPF), says
 *   it is ready (sbx_gw_spawn waits for that) and serves until sbx_gw_stop().
 *   The spec is copied: the caller may free it and must close its own copies of the listener
 *   descriptors after the spawn (the run's namespace keeps them alive only through the gateway).
 * - Listeners are created by the caller INSIDE the run's network namespace, and handed over:
 *   `tcp_fd`: one listening TCP socket that receives every redirected TCP connection. The original
 *     destination comes from SO_ORIGINAL_DST / IP6T_SO_ORIGINAL_DST (SBX_GW_DST_ORIGDST: an
 *     nftables/iptables REDIRECT) or from getsockname() (SBX_GW_DST_SOCKNAME: a `local` route for
 *     0/0 with an IP_TRANSPARENT / any-address listener). -1 = none.
 *   `port_fds`: zero or more extra listening TCP sockets (one per granted port, bound to the
 *     any-address); the destination is their getsockname() (the `local` route case).
 *   `udp_fds`: zero or more UDP sockets (one per granted UDP port other than 53, and family, bound
 *     to the any-address): every datagram to that port reaches one; its destination is the packet's
 *     (IP_PKTINFO / IPV6_PKTINFO, set by the gateway). Relayed by gw_udp.c (see gw_udp.h).
 *   `udp_catch_fds`: zero to two transparent UDP sockets (IPv4, IPv6) an nftables tproxy rule in the
 *     run's namespace steers every other UDP datagram to (an unrestricted network: netns.h
 *     `udp_catch`); the original destination is the packet's (IP_ORIGDSTADDR). Such UDP cannot be
 *     relayed (a reply would need a socket in the run's namespace on that address and port): each
 *     datagram is dropped and reported as net.deny proto udp, reason udp-not-relayed (once per
 *     destination per 10 s).
 *   `dns_fd`: a UDP socket bound to port 53 inside the run (the address /etc/resolv.conf names, or
 *     the any-address: replies carry IP_PKTINFO so their source is the address queried).
 *   `dns6_fd`: optional UDP socket bound to [::]:53 (IPv6-only) for queries sent over IPv6 (-1 = none).
 *   `dns_tcp_fd`: optional listening TCP socket on port 53 (-1 = none).
 *   `proxy_fd`: optional listening TCP socket for HTTP_PROXY/HTTPS_PROXY (CONNECT host:port and
 *     absolute-URI requests; the host is checked as SNI/Host are) (-1 = none).
 *   `report_fd`: the gateway's end of an AF_UNIX SOCK_DGRAM socketpair that ONLY the gateway holds
 *     (never the executor's report socket: the executor must not be able to forge network records).
 *     Records use the codec of policy/report.h (struct sbx_net_rec, magic "SBXN"); the supervisor end
 *     is drained by sbx_gw_drain(), which writes the audit events (src "gateway").
 * - Events: `dns.deny {name, qtype}` (medium: a lookup of a name not granted is an attempt to reach a
 *   host), `net.deny {host, addr, port, proto, peer, reason}` (high: a connection refused by the
 *   gateway; `peer` = the SNI / Host / CONNECT name the client sent, `host` = the granted name the
 *   destination address belongs to, if any), `net.flow {host, addr, port, proto, bytes_out,
 *   bytes_in, duration_ms}` (info: one per allowed connection, written when it closes, or at
 *   sbx_gw_stop for those still open). Names are written as received; the audit writer escapes them.
 * - Decisions: DNS answers only granted names (`*.x` wildcards match one or more labels under x, not x
 *   itself), with the addresses the gateway resolved on the host side (TTL honoured, re-resolved when
 *   it expires; a granted name without any address: NXDOMAIN; none of the asked family: an empty
 *   answer); every other query gets REFUSED. TCP: the first bytes must carry a granted name for the
 *   destination port
 *   (TLS ClientHello SNI, HTTP Host, proxy CONNECT/absolute URI); then the gateway connects from the
 *   host side to an address it resolved itself for that name (the client's destination when it is
 *   one of them). Other TCP only to an IP literal / CIDR grant (or net_any). UDP (granted UDP ports): decided by
 *   address and port only, no name check (QUIC, DTLS carry none the gateway reads): the destination
 *   must be an address the gateway resolved for a name granted for UDP on that port, or a granted
 *   UDP address/CIDR; refused datagrams are dropped + net.deny proto udp (once per destination per
 *   10 s); each flow (client addr:port + destination, 30 s idle) is one net.flow proto udp. Every request of a
 *   plain-HTTP connection is checked (same host, HTTP rules: methods, path prefixes; 403 or the end of
 *   the connection + net.deny reason "http-rule"/"name-not-granted"). Design: docs/gateway.md.
 * - Test hook (tests only): SBXSUP_GW_HOSTS=FILE in the gateway's environment replaces host-side
 *   resolution by FILE, lines "ADDRESS NAME [TTL]" (TTL seconds, default 1), re-read whenever an
 *   answer expires; tests map names to 127.0.0.x servers. Never set it in production.
 * - Failure: sbx_gw_spawn() returns -1 with a reason (the run must then refuse to start: 125, never an
 *   open network). The gateway exits non-zero if a listener is unusable at start.
 *
 * Owns: the listener descriptors after spawn (the child's copies), the flows. The caller owns the
 * spec, the pid (reap it with sbx_gw_stop) and the supervisor end of the report socketpair.
 */
#ifndef SBX_GATEWAY_H
#define SBX_GATEWAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct manifest;
struct audit;

#define SBX_GW_MAX_PORT_FDS 16

enum sbx_gw_proto { SBX_GW_TCP = 1, SBX_GW_UDP = 2, SBX_GW_ANYPROTO = 3 };
enum sbx_gw_dst { SBX_GW_DST_ORIGDST = 0, SBX_GW_DST_SOCKNAME = 1 };

/* One granted destination (from one manifest host entry). */
struct sbx_gw_grant {
	char *name;          /* lower-case DNS name, "*.example.com" for a wildcard; NULL for an address */
	int family;          /* AF_INET / AF_INET6 for an address grant, 0 for a name */
	uint8_t addr[16];    /* network order */
	uint8_t prefix;      /* 32 / 128 = one address */
	uint16_t port;       /* 0 = any port */
	unsigned proto;      /* enum sbx_gw_proto bits */
	char **methods; size_t nmethods; /* HTTP methods ("GET"), none = any */
	char **paths;   size_t npaths;   /* HTTP path prefixes ("/v1/"), none = any */
	char *jpath;         /* "capabilities[3].hosts[0]" */
};

struct sbx_gw_spec {
	const char *exe;           /* sbxsup binary to exec; NULL = /proc/self/exe, right only inside the
				    * sbxsup binary: pass run_opts.helper (the library's callers) */
	bool net_any;              /* unrestricted grant: any TCP, any name resolved; still recorded */
	struct sbx_gw_grant *grants; size_t ngrants;
	enum sbx_gw_dst dst_mode;  /* how tcp_fd learns the original destination */
	int tcp_fd;                /* -1 = none */
	int port_fds[SBX_GW_MAX_PORT_FDS]; size_t nport_fds;
	int udp_fds[SBX_GW_MAX_PORT_FDS]; size_t nudp_fds; /* UDP sockets, one per granted UDP port and
				    * family, bound to the any-address (the `local` route case) */
	int udp_catch_fds[2]; size_t nudp_catch_fds; /* an unrestricted network's other UDP (IPv4, IPv6),
				    * steered by nftables tproxy: refused and reported (udp-not-relayed) */
	int dns_fd;                /* -1 = none */
	int dns6_fd;               /* UDP [::]:53 (IPv6-only), -1 = none */
	int dns_tcp_fd;            /* -1 = none */
	int proxy_fd;              /* -1 = none */
	int report_fd;             /* required */
};

/* Every descriptor -1, no grants. */
void sbx_gw_spec_init(struct sbx_gw_spec *spec);
/* The grants of a parsed manifest (hosts, wildcards, HTTP rules, protocols, net_any). -1 + err. */
int sbx_gw_spec_from_manifest(struct sbx_gw_spec *spec, const struct manifest *m, char *err,
			      size_t errlen);
/* Frees the grants (not the descriptors). */
void sbx_gw_spec_free(struct sbx_gw_spec *spec);

/* Fork + exec the gateway. 0 and *pid, or -1 with err (errno set). The spec's descriptors are
 * duplicated into the child; the caller closes its own. */
int sbx_gw_spawn(const struct sbx_gw_spec *spec, pid_t *pid, char *err, size_t errlen);
/* Where the records go while the gateway ends: the supervisor end of its report socket, drained
 * into the stream as sbx_gw_drain does (failed: the stream failed). */
struct sbx_gw_sink {
	int fd;
	struct audit *a;
	uint64_t *rejected;
	bool failed;
};
/* Ask the gateway to end (SIGTERM: it decides what is queued — a refusal is still reported —,
 * writes net.flow for open flows and exits), wait up to timeout_ms, then SIGKILL; reaps it. With a
 * sink, its records are drained while it ends and after (a gateway ending with more records than
 * the socket holds blocks on its send until they are read: none is dropped). Returns its exit
 * status (waitpid form), or -1. */
int sbx_gw_stop(pid_t pid, int timeout_ms, struct sbx_gw_sink *sink);

/* Supervisor side: read the pending records on the supervisor end of the report socketpair
 * (non-blocking), decode each as hostile input and write dns.deny / dns.answer / net.deny /
 * net.flow events. At most 256 per call: returns how many it read (call again while > 0).
 * *rejected (may be NULL) counts malformed records. -1 only when the audit stream failed. */
int sbx_gw_drain(int fd, struct audit *a, uint64_t *rejected);
/* sbx_gw_drain again while it reads something, `calls` times at most (<= 0: until the socket is
 * empty). 0, or -1 (the audit stream failed). */
int sbx_gw_drain_calls(int fd, struct audit *a, uint64_t *rejected, int calls);

/* The gateway process itself (`sbxsup __gateway`, called by main; never by hand). */
int sbx_gw_main(int argc, char **argv);

#endif
