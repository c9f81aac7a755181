/* gw_main.c — the gateway process (`sbxsup __gateway CONFIG_FD`, spawned by sbx_gw_spawn; the
 * contract is gateway.h).
 *
 * Promise: one single-threaded poll loop serves the DNS stub, every TCP connection the run
 * makes and the UDP flows to granted UDP ports (gw_udp.c); no connection leaves before its name is checked, and every allowed one is recorded when
 * it closes (or at SIGTERM, after that poll's events, the connections still queued and one more
 * read of each not yet named are decided: a refusal at the run's end is reported too). Bounded: at most GW_CONN_MAX connections at once (more are refused,
 * reported and closed), GW_PEEK_MAX bytes and GW_PEEK_MS milliseconds to carry a name, GW_CONNECT_MS to reach
 * the host. Relaying moves bytes with splice(2) through a pipe per direction (no copy through this
 * process). After reading its configuration it sets no_new_privs, gives up root (nobody) when it
 * has it, makes itself not dumpable (no ptrace, no /proc/PID/mem for a process of the same uid) and
 * loads a seccomp filter refusing exec, ptrace, mounts and namespaces.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <linux/netfilter_ipv4.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <seccomp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "gateway.h"
#include "gw_names.h"
#include "gw_parse.h"
#include "gw_udp.h"
#include "policy.h"
#include "report.h"

#ifndef IP6T_SO_ORIGINAL_DST
#define IP6T_SO_ORIGINAL_DST 80
#endif

#define GW_CONN_MAX 512
#define GW_STOP_ROUNDS 64  /* at the end, listen queues read in rounds of 64 per listener */
#define GW_PEEK_MS 10000
#define GW_CONNECT_MS 10000

struct cfg {
	bool any;
	int dst_mode;
	int report, tcp, dns, dns6, dnstcp, proxy;
	int ports[SBX_GW_MAX_PORT_FDS];
	size_t nports;
	int udp[SBX_GW_MAX_PORT_FDS];
	size_t nudp;
	int ucatch[2];
	size_t nucatch;
	struct sbx_gw_grant *g;
	size_t ng;
};

enum cstate { ST_PEEK, ST_CONNECT, ST_RELAY };
enum ckind { K_TRANSPARENT, K_PROXY, K_DNSTCP };

struct dir {
	int from, to;
	int pipe[2];
	size_t inpipe;
	bool eof, shut;
	uint64_t bytes;
};

struct conn {
	enum cstate st;
	enum ckind kind;
	int cfd, ufd;
	int family;              /* destination as the client meant it (0 = only a name, proxy) */
	uint8_t addr[16];
	uint16_t port;
	int ufamily;             /* where the gateway connects */
	uint8_t uaddr[16];
	char host[GW_NAME_MAX];  /* the granted name the flow is recorded under */
	uint8_t buf[GW_PEEK_MAX];
	size_t blen, boff;       /* peeked bytes; boff: how many already sent upstream */
	long t0, deadline;
	struct dir up, down;     /* client -> host, host -> client */
	bool tls;
	/* plain HTTP: the client's bytes go through the request scanner (every head checked), not
	 * splice; buf[0..hok) is cleared to be sent */
	bool hscan;
	struct gw_http_stream hs;
	size_t hok;
	const struct sbx_gw_grant *agrant; /* an address grant with HTTP rules: its rules apply */
};

struct gw {
	struct cfg c;
	struct gw_names names;
	struct gw_udp udp;
	struct conn *conns[GW_CONN_MAX];
	size_t nconns;
	size_t pipe_cap;
	int parent_fd; /* pidfd of the process that spawned the gateway (its exit ends the gateway) */
};

static long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

/* ---- configuration ------------------------------------------------------------------------- */

static int hexaddr(const char *s, uint8_t a[16])
{
	if (strlen(s) != 32)
		return -1;
	for (int i = 0; i < 16; i++) {
		unsigned v;
		if (sscanf(s + 2 * i, "%2x", &v) != 1)
			return -1;
		a[i] = (uint8_t)v;
	}
	return 0;
}

static int push_str(char ***v, size_t *n, const char *s)
{
	char **nv = realloc(*v, (*n + 1) * sizeof *nv);
	if (!nv)
		return -1;
	*v = nv;
	if (!(nv[*n] = strdup(s)))
		return -1;
	(*n)++;
	return 0;
}

static int read_config(int fd, struct cfg *c)
{
	memset(c, 0, sizeof *c);
	c->report = c->tcp = c->dns = c->dns6 = c->dnstcp = c->proxy = -1;
	FILE *f = fdopen(fd, "r");
	if (!f)
		return -1;
	char line[2048];
	bool ended = false, head = false;
	while (fgets(line, sizeof line, f)) {
		line[strcspn(line, "\n")] = '\0';
		char k[16], a[1024], b[1024], name[512], jp[512], hex[64];
		unsigned proto, port, prefix;
		int fam, v;
		if (sscanf(line, "sbxgw %d", &v) == 1 && v == 1) {
			head = true;
		} else if (sscanf(line, "any %d", &v) == 1) {
			c->any = v != 0;
		} else if (sscanf(line, "dst %d", &v) == 1) {
			c->dst_mode = v;
		} else if (sscanf(line, "fd %15s %d", k, &v) == 2) {
			if (!strcmp(k, "report")) c->report = v;
			else if (!strcmp(k, "tcp")) c->tcp = v;
			else if (!strcmp(k, "dns")) c->dns = v;
			else if (!strcmp(k, "dns6")) c->dns6 = v;
			else if (!strcmp(k, "dnstcp")) c->dnstcp = v;
			else if (!strcmp(k, "proxy")) c->proxy = v;
			else if (!strcmp(k, "port") && c->nports < SBX_GW_MAX_PORT_FDS) c->ports[c->nports++] = v;
			else if (!strcmp(k, "udp") && c->nudp < SBX_GW_MAX_PORT_FDS) c->udp[c->nudp++] = v;
			else if (!strcmp(k, "udpcatch") && c->nucatch < 2) c->ucatch[c->nucatch++] = v;
			else goto bad;
		} else if (sscanf(line, "grant %u %u %d %63s %u %511s %511s", &proto, &port, &fam, hex, &prefix,
				  name, jp) == 7) {
			struct sbx_gw_grant *ng = realloc(c->g, (c->ng + 1) * sizeof *ng);
			if (!ng)
				goto bad;
			c->g = ng;
			struct sbx_gw_grant *g = &c->g[c->ng++];
			memset(g, 0, sizeof *g);
			g->proto = proto;
			g->port = (uint16_t)port;
			g->family = fam;
			g->prefix = (uint8_t)prefix;
			if (fam && hexaddr(hex, g->addr) < 0)
				goto bad;
			if (!fam && !(g->name = strdup(name)))
				goto bad;
			if (!(g->jpath = strdup(jp)))
				goto bad;
		} else if (sscanf(line, "method %1023s", a) == 1 && c->ng) {
			if (push_str(&c->g[c->ng - 1].methods, &c->g[c->ng - 1].nmethods, a) < 0)
				goto bad;
		} else if (sscanf(line, "path %1023s", b) == 1 && c->ng) {
			if (push_str(&c->g[c->ng - 1].paths, &c->g[c->ng - 1].npaths, b) < 0)
				goto bad;
		} else if (!strcmp(line, "end")) {
			ended = true;
			break;
		} else {
			goto bad;
		}
	}
	fclose(f);
	return head && ended && c->report >= 0 ? 0 : -1;
bad:
	fclose(f);
	return -1;
}

/* ---- records ------------------------------------------------------------------------------- */

/* A record to the supervisor. A burst larger than the socket holds (refusals, the flows still open
 * when the run ends) waits for room, GW_REC_WAIT_MS at most: the supervisor reads them as they come,
 * also while the gateway ends (sbx_gw_stop's sink), so none is dropped for want of room. */
#define GW_REC_WAIT_MS 2000
static void rec_send(struct gw *g, struct sbx_net_hdr *h, const char *host, const char *peer)
{
	_Alignas(8) unsigned char buf[SBX_NET_REC_MAX];
	size_t n = sbx_net_encode(buf, h, host, peer);
	int waited = 0;
	while (send(g->c.report, buf, n, MSG_DONTWAIT | MSG_NOSIGNAL) < 0) {
		if (errno == EINTR)
			continue;
		if ((errno != EAGAIN && errno != ENOBUFS) || waited >= GW_REC_WAIT_MS)
			return;
		struct pollfd p = {.fd = g->c.report, .events = POLLOUT};
		(void)poll(&p, 1, 50);
		waited += 50;
	}
}

static void rec_deny(struct gw *g, const struct conn *c, enum sbx_net_reason why, const char *host,
		     const char *peer)
{
	struct sbx_net_hdr h = {.kind = SBX_NET_DENY, .port = c->port, .proto = IPPROTO_TCP,
				.family = (uint8_t)c->family, .reason = (uint16_t)why};
	memcpy(h.addr, c->addr, sizeof h.addr);
	rec_send(g, &h, host, peer);
}

static void rec_flow(struct gw *g, const struct conn *c)
{
	struct sbx_net_hdr h = {.kind = SBX_NET_FLOW, .port = c->port, .proto = IPPROTO_TCP,
				.family = (uint8_t)c->ufamily, .bytes_out = c->up.bytes + c->boff,
				.bytes_in = c->down.bytes};
	long d = now_ms() - c->t0;
	h.duration_ms = d < 0 ? 0 : (uint32_t)d;
	memcpy(h.addr, c->uaddr, sizeof h.addr);
	rec_send(g, &h, c->host, NULL);
}

/* ---- grants -------------------------------------------------------------------------------- */

static bool prefix_match(const uint8_t *net, const uint8_t *a, unsigned prefix)
{
	unsigned full = prefix / 8, rest = prefix % 8;
	if (memcmp(net, a, full))
		return false;
	return !rest || ((net[full] ^ a[full]) & (uint8_t)(0xff << (8 - rest))) == 0;
}

static const struct sbx_gw_grant *grant_addr_p(const struct cfg *c, int fam, const uint8_t *a, uint16_t port,
					       unsigned proto)
{
	for (size_t i = 0; i < c->ng; i++) {
		const struct sbx_gw_grant *g = &c->g[i];
		if (g->family == fam && (g->proto & proto) && (!g->port || g->port == port) &&
		    prefix_match(g->addr, a, g->prefix))
			return g;
	}
	return NULL;
}

static const struct sbx_gw_grant *grant_addr(const struct cfg *c, int fam, const uint8_t *a, uint16_t port)
{
	return grant_addr_p(c, fam, a, port, SBX_GW_TCP);
}

static const struct sbx_gw_grant *grant_name(const struct cfg *c, const char *name, uint16_t port, bool tcp)
{
	for (size_t i = 0; i < c->ng; i++) {
		const struct sbx_gw_grant *g = &c->g[i];
		if (!g->name || !pol_host_match(g->name, name, strlen(name)))
			continue;
		if (!tcp || ((g->proto & SBX_GW_TCP) && (!g->port || g->port == port)))
			return g;
	}
	return NULL;
}

/* ---- UDP (gw_udp.c relays; the decision is here) ------------------------------------------- */

static bool udp_name_granted(const struct cfg *c, const char *name, uint16_t port)
{
	for (size_t i = 0; i < c->ng; i++) {
		const struct sbx_gw_grant *g = &c->g[i];
		if (g->name && (g->proto & SBX_GW_UDP) && g->port == port &&
		    pol_host_match(g->name, name, strlen(name)))
			return true;
	}
	return false;
}

/* UDP carries no name: a flow is allowed to an address granted as such, or to an address the
 * gateway resolved (now or earlier in the run) for a name granted for UDP on that port. The
 * datagrams go to that same address: it is one the gateway's own resolution gave. */
static int udp_decide(void *ctx, int fam, const uint8_t *a, uint16_t port, char host[GW_NAME_MAX],
		      int *ufam, uint8_t uaddr[16])
{
	struct gw *g = ctx;
	*ufam = fam;
	memcpy(uaddr, a, 16);
	if (g->c.any || grant_addr_p(&g->c, fam, a, port, SBX_GW_UDP)) {
		const char *n = gw_names_by_addr(&g->names, fam, a);
		if (n)
			snprintf(host, GW_NAME_MAX, "%s", n);
		else
			inet_ntop(fam, a, host, GW_NAME_MAX);
		return 1;
	}
	/* names granted as such: resolved by the gateway (cached for their TTL) */
	for (size_t i = 0; i < g->c.ng; i++) {
		const struct sbx_gw_grant *gr = &g->c.g[i];
		if (!gr->name || gr->name[0] == '*' || !(gr->proto & SBX_GW_UDP) || gr->port != port)
			continue;
		struct gw_name_ent *e = gw_names_get(&g->names, gr->name);
		if (e && gw_names_has(e, fam, a)) {
			snprintf(host, GW_NAME_MAX, "%s", e->name);
			return 1;
		}
	}
	/* wildcards: the names the gateway answered for them */
	for (size_t i = 0; i < g->names.n; i++) {
		const struct gw_name_ent *e = &g->names.v[i];
		if (gw_names_has(e, fam, a) && udp_name_granted(&g->c, e->name, port)) {
			snprintf(host, GW_NAME_MAX, "%s", e->name);
			return 1;
		}
	}
	const char *n = gw_names_by_addr(&g->names, fam, a);
	if (n)
		snprintf(host, GW_NAME_MAX, "%s", n);
	return 0;
}

static void udp_record(void *ctx, const struct sbx_net_hdr *h, const char *host)
{
	struct sbx_net_hdr c = *h;
	rec_send(ctx, &c, host, NULL);
}

static bool http_rules_ok(const struct sbx_gw_grant *g, const struct gw_http_req *r)
{
	if (g->nmethods) {
		bool ok = false;
		for (size_t i = 0; i < g->nmethods && !ok; i++)
			ok = !strcmp(g->methods[i], r->method);
		if (!ok)
			return false;
	}
	if (g->npaths) {
		if (!r->path || !gw_path_plain(r->path, r->path_len))
			return false;
		for (size_t i = 0; i < g->npaths; i++) {
			size_t pl = strlen(g->paths[i]);
			if (r->path_len >= pl && !memcmp(r->path, g->paths[i], pl))
				return true;
		}
		return false;
	}
	return true;
}

/* ---- connections --------------------------------------------------------------------------- */

static void dir_close(struct dir *d)
{
	if (d->pipe[0] >= 0)
		close(d->pipe[0]);
	if (d->pipe[1] >= 0)
		close(d->pipe[1]);
	d->pipe[0] = d->pipe[1] = -1;
}

static void conn_free(struct gw *g, size_t i, bool flow)
{
	struct conn *c = g->conns[i];
	if (flow)
		rec_flow(g, c);
	if (c->cfd >= 0)
		close(c->cfd);
	if (c->ufd >= 0)
		close(c->ufd);
	dir_close(&c->up);
	dir_close(&c->down);
	free(c);
	g->conns[i] = g->conns[--g->nconns];
}

static void rst_close(int fd)
{
	struct linger l = {1, 0};
	setsockopt(fd, SOL_SOCKET, SO_LINGER, &l, sizeof l);
}

static void refuse(struct gw *g, size_t i, enum sbx_net_reason why, const char *host, const char *peer,
		   bool http)
{
	struct conn *c = g->conns[i];
	rec_deny(g, c, why, host, peer);
	if (http) {
		static const char r403[] = "HTTP/1.1 403 Forbidden\r\nContent-Type: text/plain\r\n"
					   "Content-Length: 31\r\nConnection: close\r\n\r\n"
					   "refused by the sbxsup gateway\r\n";
		(void)send(c->cfd, r403, sizeof r403 - 1, MSG_DONTWAIT | MSG_NOSIGNAL);
	} else {
		rst_close(c->cfd);
	}
	conn_free(g, i, false);
}

/* A later request of a plain-HTTP connection is refused: what was cleared before it still goes
 * (the earlier requests and their answers), nothing after it is read; the connection then ends
 * as a normal one (its flow recorded). */
static void refuse_mid(struct gw *g, struct conn *c, enum sbx_net_reason why, const char *peer)
{
	rec_deny(g, c, why, c->host, peer);
	c->blen = c->hok;
	c->up.eof = true;
}

/* Scan the client's bytes of a plain-HTTP connection from hok on: bodies pass as framed, every
 * request head is checked as the first was (the same host, the grant's HTTP rules). Always 0 (a
 * refused request ends the connection after what was cleared, refuse_mid). */
static int http_check_more(struct gw *g, size_t i)
{
	struct conn *c = g->conns[i];
	for (;;) {
		int head;
		struct gw_http_req rq;
		c->hok += gw_http_stream_scan(&c->hs, c->buf + c->hok, c->blen - c->hok, &head, &rq);
		if (head == GW_MORE || c->hok == c->blen || c->up.eof)
			return 0;
		if (head == GW_BAD || rq.connect) {
			refuse_mid(g, c, SBX_NR_BAD_REQUEST, NULL);
			return 0;
		}
		const struct sbx_gw_grant *gr = c->agrant;
		if (!gr && strcmp(rq.host, c->host) == 0)
			gr = grant_name(&g->c, rq.host, c->port, true);
		if (!gr && !g->c.any) {
			refuse_mid(g, c, SBX_NR_NAME_NOT_GRANTED, rq.host);
			return 0;
		}
		if (gr && !http_rules_ok(gr, &rq)) {
			refuse_mid(g, c, SBX_NR_HTTP_RULE, rq.host);
			return 0;
		}
		c->hok += gw_http_stream_head(&c->hs, &rq);
	}
}

/* A plain-HTTP connection whose first request asked for a WebSocket upgrade (GW_HS_UPWAIT: the
 * client's later bytes are held, the server's not relayed yet): the server's first bytes say whether
 * it switched (101: the rest of the client's stream is carried unchecked) or not (requests are still
 * checked). Then the held bytes go on. While the status line is incomplete, SO_RCVLOWAT keeps poll
 * from waking for less. */
static void upgrade_answer(struct gw *g, size_t i, short urev)
{
	struct conn *c = g->conns[i];
	if (c->hs.st != GW_HS_UPWAIT || !(urev & (POLLIN | POLLHUP | POLLERR)))
		return;
	uint8_t b[16];
	ssize_t n = c->down.bytes ? 0 : recv(c->ufd, b, sizeof b, MSG_PEEK | MSG_DONTWAIT);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n > 0 && gw_http_stream_answer(&c->hs, b, (size_t)n) == GW_MORE) {
		if (!(urev & (POLLRDHUP | POLLHUP | POLLERR))) {
			int lowat = 13;
			(void)setsockopt(c->ufd, SOL_SOCKET, SO_RCVLOWAT, &lowat, sizeof lowat);
			return;
		}
		c->hs.st = GW_HS_HEAD; /* the server ended inside its status line: no switch */
	}
	if (n <= 0) /* the server spoke first, ended or failed: no switch */
		c->hs.st = GW_HS_HEAD;
	int one = 1;
	(void)setsockopt(c->ufd, SOL_SOCKET, SO_RCVLOWAT, &one, sizeof one);
	(void)http_check_more(g, i);
}

/* The client -> host direction of a plain-HTTP connection. 0, or -1 when the connection is over. */
static int http_up(struct gw *g, size_t i, short crev)
{
	struct conn *c = g->conns[i];
	if (c->hok == 0 && !c->up.eof && c->blen < sizeof c->buf && (crev & (POLLIN | POLLHUP | POLLERR))) {
		ssize_t n = recv(c->cfd, c->buf + c->blen, sizeof c->buf - c->blen, MSG_DONTWAIT);
		if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR))
			c->up.eof = true;
		else if (n > 0) {
			c->blen += (size_t)n;
			if (http_check_more(g, i) < 0)
				return -1;
		}
	}
	if (c->hok > 0) {
		ssize_t n = send(c->ufd, c->buf, c->hok, MSG_DONTWAIT | MSG_NOSIGNAL);
		if (n < 0 && errno != EAGAIN && errno != EINTR) {
			conn_free(g, i, true);
			return -1;
		}
		if (n > 0) {
			memmove(c->buf, c->buf + n, c->blen - (size_t)n);
			c->blen -= (size_t)n;
			c->hok -= (size_t)n;
			c->up.bytes += (uint64_t)n;
		}
	}
	if (c->up.eof && c->hok == 0 && !c->up.shut) {
		shutdown(c->ufd, SHUT_WR);
		c->up.shut = true;
	}
	return 0;
}

static void norm_mapped(int *fam, uint8_t *a)
{
	static const uint8_t mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
	if (*fam == AF_INET6 && !memcmp(a, mapped, 12)) {
		memmove(a, a + 12, 4);
		memset(a + 4, 0, 12);
		*fam = AF_INET;
	}
}

static int sa_split(const struct sockaddr_storage *ss, int *fam, uint8_t *a, uint16_t *port)
{
	memset(a, 0, 16);
	if (ss->ss_family == AF_INET) {
		const struct sockaddr_in *s = (const void *)ss;
		*fam = AF_INET;
		memcpy(a, &s->sin_addr, 4);
		*port = ntohs(s->sin_port);
	} else if (ss->ss_family == AF_INET6) {
		const struct sockaddr_in6 *s = (const void *)ss;
		*fam = AF_INET6;
		memcpy(a, &s->sin6_addr, 16);
		*port = ntohs(s->sin6_port);
		norm_mapped(fam, a);
	} else {
		return -1;
	}
	return 0;
}

static int start_connect(struct gw *g, struct conn *c)
{
	struct sockaddr_storage ss;
	memset(&ss, 0, sizeof ss);
	socklen_t sl;
	if (c->ufamily == AF_INET) {
		struct sockaddr_in *s = (void *)&ss;
		s->sin_family = AF_INET;
		memcpy(&s->sin_addr, c->uaddr, 4);
		s->sin_port = htons(c->port);
		sl = sizeof *s;
	} else {
		struct sockaddr_in6 *s = (void *)&ss;
		s->sin6_family = AF_INET6;
		memcpy(&s->sin6_addr, c->uaddr, 16);
		s->sin6_port = htons(c->port);
		sl = sizeof *s;
	}
	c->ufd = socket(c->ufamily, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (c->ufd < 0)
		return -1;
	int one = 1;
	setsockopt(c->ufd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	if (connect(c->ufd, (struct sockaddr *)&ss, sl) < 0 && errno != EINPROGRESS)
		return -1;
	c->st = ST_CONNECT;
	c->deadline = now_ms() + GW_CONNECT_MS;
	(void)g;
	return 0;
}

/* Choose where to connect for `name` (granted): the client's destination when the gateway gave it
 * out for that name, else the name's current first address. */
static int pick_upstream(struct gw *g, struct conn *c, const char *name)
{
	struct gw_name_ent *e = gw_names_get(&g->names, name);
	if (!e)
		return -1;
	if (c->family && gw_names_has(e, c->family, c->addr)) {
		c->ufamily = c->family;
		memcpy(c->uaddr, c->addr, 16);
		return 0;
	}
	if (e->ncur == 0)
		return -1;
	size_t k = 0;
	for (size_t i = 0; i < e->ncur; i++)
		if (e->cur[i].family == (c->family ? c->family : AF_INET)) {
			k = i;
			break;
		}
	c->ufamily = e->cur[k].family;
	memcpy(c->uaddr, e->cur[k].addr, 16);
	return 0;
}

static void allow_addr(struct gw *g, size_t i)
{
	struct conn *c = g->conns[i];
	c->ufamily = c->family;
	memcpy(c->uaddr, c->addr, 16);
	const char *n = gw_names_by_addr(&g->names, c->family, c->addr);
	if (n && !c->host[0])
		snprintf(c->host, sizeof c->host, "%s", n);
	if (!c->host[0])
		inet_ntop(c->family, c->addr, c->host, sizeof c->host);
	if (start_connect(g, c) < 0)
		refuse(g, i, SBX_NR_UPSTREAM, c->host, NULL, false);
}

/* The first bytes are in; decide. Returns 1 when more bytes are needed. */
static int decide(struct gw *g, size_t i, bool timed_out)
{
	struct conn *c = g->conns[i];
	const char *dname = c->family ? gw_names_by_addr(&g->names, c->family, c->addr) : NULL;
	char name[GW_NAME_MAX] = "";
	struct gw_http_req rq;
	bool http = false;
	if (c->blen == 0 && !timed_out)
		return 1;
	if (gw_is_tls(c->buf, c->blen)) {
		int r = gw_tls_sni(c->buf, c->blen, name);
		if (r == GW_MORE && !timed_out && c->blen < GW_PEEK_MAX)
			return 1;
		if (r != GW_OK) {
			refuse(g, i, r == GW_NONAME ? SBX_NR_NO_NAME : r == GW_MORE ? SBX_NR_TIMEOUT : SBX_NR_BAD_REQUEST,
			       dname, NULL, false);
			return 0;
		}
		c->tls = true;
	} else if (gw_is_http(c->buf, c->blen)) {
		int r = gw_http_parse(c->buf, c->blen, &rq);
		if (r == GW_MORE && !timed_out && c->blen < GW_PEEK_MAX)
			return 1;
		if (r != GW_OK || rq.connect) {
			refuse(g, i, r == GW_MORE ? SBX_NR_TIMEOUT : SBX_NR_BAD_REQUEST, dname, NULL, true);
			return 0;
		}
		http = true;
		memcpy(name, rq.host, sizeof name);
		if (rq.port && c->kind == K_PROXY)
			c->port = rq.port;
		else if (c->kind == K_PROXY)
			c->port = 80;
	} else {
		refuse(g, i, timed_out ? SBX_NR_TIMEOUT : SBX_NR_NO_NAME, dname, NULL, false);
		return 0;
	}
	/* A literal address as the name (Host: 10.0.0.1): decided as that address. */
	uint8_t lit[16] = {0};
	int lfam = inet_pton(AF_INET, name, lit) == 1 ? AF_INET : 0;
	if (!lfam && name[0] == '[') {
		char v6[GW_NAME_MAX];
		snprintf(v6, sizeof v6, "%s", name + 1);
		v6[strcspn(v6, "]")] = '\0';
		if (inet_pton(AF_INET6, v6, lit) == 1)
			lfam = AF_INET6;
	}
	if (lfam) {
		norm_mapped(&lfam, lit);
		const struct sbx_gw_grant *ga = grant_addr(&g->c, lfam, lit, c->port);
		if (!g->c.any && !ga) {
			refuse(g, i, SBX_NR_ADDR_NOT_GRANTED, dname, name, http);
			return 0;
		}
		if (http && ga && !http_rules_ok(ga, &rq)) {
			refuse(g, i, SBX_NR_HTTP_RULE, dname, name, true);
			return 0;
		}
		c->family = lfam;
		memcpy(c->addr, lit, 16);
		if (http) {
			c->hscan = true;
			c->agrant = ga;
		}
		allow_addr(g, i);
		return 0;
	}
	const struct sbx_gw_grant *gr = grant_name(&g->c, name, c->port, true);
	if (!gr && !g->c.any) {
		refuse(g, i, SBX_NR_NAME_NOT_GRANTED, dname, name, http);
		return 0;
	}
	if (http && gr && !http_rules_ok(gr, &rq)) {
		refuse(g, i, SBX_NR_HTTP_RULE, dname ? dname : name, name, true);
		return 0;
	}
	snprintf(c->host, sizeof c->host, "%s", name);
	c->hscan = http;
	if (pick_upstream(g, c, name) < 0 || start_connect(g, c) < 0) {
		refuse(g, i, SBX_NR_UPSTREAM, name, name, http);
		return 0;
	}
	return 0;
}

/* Proxy: the request head is in. CONNECT: answer 200 and go on as a transparent connection to
 * the named destination (its first bytes are checked the same way); absolute-URI: decide now. */
static int proxy_head(struct gw *g, size_t i, bool timed_out)
{
	struct conn *c = g->conns[i];
	struct gw_http_req rq;
	int r = gw_http_parse(c->buf, c->blen, &rq);
	if (r == GW_MORE && !timed_out && c->blen < GW_PEEK_MAX)
		return 1;
	if (r != GW_OK || (!rq.connect && !rq.absolute)) {
		refuse(g, i, r == GW_MORE ? SBX_NR_TIMEOUT : SBX_NR_BAD_REQUEST, NULL, NULL, true);
		return 0;
	}
	if (!rq.connect) {
		c->kind = K_TRANSPARENT;
		c->port = rq.port ? rq.port : 80;
		return decide(g, i, timed_out);
	}
	c->port = rq.port;
	uint8_t lit[16] = {0};
	char h[GW_NAME_MAX];
	const char *hs = rq.host[0] == '[' ? rq.host + 1 : rq.host;
	size_t hl = strcspn(hs, "]");
	memcpy(h, hs, hl);
	h[hl] = '\0';
	if (inet_pton(AF_INET, h, lit) == 1 || inet_pton(AF_INET6, h, lit) == 1) {
		c->family = strchr(h, ':') ? AF_INET6 : AF_INET;
		memcpy(c->addr, lit, 16);
		norm_mapped(&c->family, c->addr);
	} else {
		if (!grant_name(&g->c, rq.host, c->port, true) && !g->c.any) {
			rec_deny(g, c, SBX_NR_NAME_NOT_GRANTED, NULL, rq.host);
			static const char r403[] = "HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n";
			(void)send(c->cfd, r403, sizeof r403 - 1, MSG_DONTWAIT | MSG_NOSIGNAL);
			conn_free(g, i, false);
			return 0;
		}
		struct gw_name_ent *e = gw_names_get(&g->names, rq.host);
		if (!e || e->ncur == 0) {
			refuse(g, i, SBX_NR_UPSTREAM, rq.host, rq.host, true);
			return 0;
		}
		gw_names_served(e);
		c->family = e->cur[0].family;
		memcpy(c->addr, e->cur[0].addr, 16);
	}
	static const char ok[] = "HTTP/1.1 200 Connection established\r\n\r\n";
	(void)send(c->cfd, ok, sizeof ok - 1, MSG_DONTWAIT | MSG_NOSIGNAL);
	memmove(c->buf, c->buf + rq.head_len, c->blen - rq.head_len);
	c->blen -= rq.head_len;
	c->kind = K_TRANSPARENT;
	c->deadline = now_ms() + GW_PEEK_MS;
	if (grant_addr(&g->c, c->family, c->addr, c->port) || g->c.any) {
		allow_addr(g, i);
		return 0;
	}
	return c->blen ? decide(g, i, false) : 1;
}

static int dir_init(struct gw *g, struct dir *d, int from, int to)
{
	d->from = from;
	d->to = to;
	if (pipe2(d->pipe, O_NONBLOCK | O_CLOEXEC) < 0)
		return -1;
	if (g->pipe_cap == 0) {
		int sz = fcntl(d->pipe[1], F_SETPIPE_SZ, 1 << 20);
		if (sz < 0)
			sz = fcntl(d->pipe[1], F_GETPIPE_SZ);
		g->pipe_cap = sz > 0 ? (size_t)sz : 65536;
	} else {
		(void)fcntl(d->pipe[1], F_SETPIPE_SZ, (int)g->pipe_cap);
	}
	return 0;
}

/* Move what can move. -1: the connection is over (an error on either side). */
static int dir_step(struct gw *g, struct dir *d)
{
	for (int round = 0; round < 16; round++) {
		bool moved = false;
		if (!d->eof && d->inpipe < g->pipe_cap) {
			ssize_t n = splice(d->from, NULL, d->pipe[1], NULL, g->pipe_cap - d->inpipe,
					   SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
			if (n > 0) {
				d->inpipe += (size_t)n;
				d->bytes += (uint64_t)n;
				moved = true;
			} else if (n == 0) {
				d->eof = true;
			} else if (errno != EAGAIN && errno != EINTR) {
				d->eof = true;
				if (errno != ECONNRESET)
					return -1;
				return -1;
			}
		}
		if (d->inpipe > 0) {
			ssize_t n = splice(d->pipe[0], NULL, d->to, NULL, d->inpipe,
					   SPLICE_F_MOVE | SPLICE_F_NONBLOCK);
			if (n > 0) {
				d->inpipe -= (size_t)n;
				moved = true;
			} else if (n < 0 && errno != EAGAIN && errno != EINTR) {
				return -1;
			}
		}
		if (d->eof && d->inpipe == 0 && !d->shut) {
			shutdown(d->to, SHUT_WR);
			d->shut = true;
		}
		if (!moved)
			break;
	}
	return 0;
}

static void on_connected(struct gw *g, size_t i)
{
	struct conn *c = g->conns[i];
	int err = 0;
	socklen_t el = sizeof err;
	if (getsockopt(c->ufd, SOL_SOCKET, SO_ERROR, &err, &el) < 0 || err) {
		refuse(g, i, SBX_NR_UPSTREAM, c->host, NULL, false);
		return;
	}
	if (dir_init(g, &c->up, c->cfd, c->ufd) < 0 || dir_init(g, &c->down, c->ufd, c->cfd) < 0) {
		refuse(g, i, SBX_NR_UPSTREAM, c->host, NULL, false);
		return;
	}
	c->st = ST_RELAY;
	if (c->hscan)
		(void)http_check_more(g, i); /* the first request, checked again with the same rules */
}

/* ---- DNS ----------------------------------------------------------------------------------- */

static size_t dns_answer(struct gw *g, const uint8_t *q, size_t n, uint8_t *out, size_t cap)
{
	struct gw_dns_q dq;
	int r = gw_dns_parse(q, n, &dq);
	if (r == GW_BAD)
		return 0;
	struct sbx_net_hdr h = {.kind = SBX_NET_DNS_DENY, .qtype = dq.qtype};
	if (r == GW_NONAME) {
		rec_send(g, &h, dq.text[0] ? dq.text : "(malformed query)", NULL);
		return gw_dns_reply(q, &dq, GW_DNS_FORMERR, NULL, 0, 0, out, cap);
	}
	bool ok = dq.name[0] && dq.qclass == 1 && (g->c.any || grant_name(&g->c, dq.name, 0, false));
	if (!ok) {
		rec_send(g, &h, dq.text, NULL);
		return gw_dns_reply(q, &dq, GW_DNS_REFUSED, NULL, 0, 0, out, cap);
	}
	struct gw_name_ent *e = gw_names_get(&g->names, dq.name);
	if (!e)
		return gw_dns_reply(q, &dq, GW_DNS_SERVFAIL, NULL, 0, 0, out, cap);
	if (!e->answered) { /* resolved on the host side for the run: recorded once per name */
		e->answered = true;
		struct sbx_net_hdr ah = {.kind = SBX_NET_DNS_ANSWER, .qtype = dq.qtype};
		if (e->ncur) {
			ah.family = (uint8_t)e->cur[0].family;
			memcpy(ah.addr, e->cur[0].addr, sizeof ah.addr);
		}
		rec_send(g, &ah, dq.text, NULL);
	}
	if (e->ncur == 0)
		return gw_dns_reply(q, &dq, GW_DNS_NXDOMAIN, NULL, 0, 0, out, cap);
	gw_names_served(e);
	return gw_dns_reply(q, &dq, GW_DNS_NOERROR, e->cur, e->ncur, gw_names_ttl_left(e), out, cap);
}

static void dns_udp(struct gw *g, int fd)
{
	for (int k = 0; k < 64; k++) {
		uint8_t q[1500], out[1232];
		struct sockaddr_storage from;
		union {
			struct cmsghdr h;
			char b[CMSG_SPACE(sizeof(struct in6_pktinfo)) + CMSG_SPACE(sizeof(struct in_pktinfo))];
		} cb;
		struct iovec iov = {q, sizeof q};
		struct msghdr mh = {.msg_name = &from, .msg_namelen = sizeof from, .msg_iov = &iov,
				    .msg_iovlen = 1, .msg_control = cb.b, .msg_controllen = sizeof cb.b};
		ssize_t n = recvmsg(fd, &mh, MSG_DONTWAIT);
		if (n < 0)
			return;
		size_t rl = dns_answer(g, q, (size_t)n, out, sizeof out);
		if (!rl)
			continue;
		/* reply from the address queried: the pktinfo we got, sent back */
		union {
			struct cmsghdr h;
			char b[CMSG_SPACE(sizeof(struct in6_pktinfo))];
		} rb;
		memset(&rb, 0, sizeof rb);
		struct iovec riov = {out, rl};
		struct msghdr rm = {.msg_name = &from, .msg_namelen = mh.msg_namelen, .msg_iov = &riov,
				    .msg_iovlen = 1};
		for (struct cmsghdr *cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm)) {
			if (cm->cmsg_level == IPPROTO_IP && cm->cmsg_type == IP_PKTINFO) {
				struct in_pktinfo pi;
				memcpy(&pi, CMSG_DATA(cm), sizeof pi);
				pi.ipi_spec_dst = pi.ipi_addr;
				pi.ipi_ifindex = 0;
				rm.msg_control = rb.b;
				rm.msg_controllen = CMSG_SPACE(sizeof pi);
				struct cmsghdr *o = CMSG_FIRSTHDR(&rm);
				o->cmsg_level = IPPROTO_IP;
				o->cmsg_type = IP_PKTINFO;
				o->cmsg_len = CMSG_LEN(sizeof pi);
				memcpy(CMSG_DATA(o), &pi, sizeof pi);
			} else if (cm->cmsg_level == IPPROTO_IPV6 && cm->cmsg_type == IPV6_PKTINFO) {
				struct in6_pktinfo pi;
				memcpy(&pi, CMSG_DATA(cm), sizeof pi);
				rm.msg_control = rb.b;
				rm.msg_controllen = CMSG_SPACE(sizeof pi);
				struct cmsghdr *o = CMSG_FIRSTHDR(&rm);
				o->cmsg_level = IPPROTO_IPV6;
				o->cmsg_type = IPV6_PKTINFO;
				o->cmsg_len = CMSG_LEN(sizeof pi);
				memcpy(CMSG_DATA(o), &pi, sizeof pi);
			}
		}
		(void)sendmsg(fd, &rm, MSG_DONTWAIT | MSG_NOSIGNAL);
	}
}

/* DNS over TCP: one length-prefixed query per connection, answered, closed. */
static int dns_tcp(struct gw *g, size_t i)
{
	struct conn *c = g->conns[i];
	if (c->blen < 2)
		return 1;
	size_t ql = (size_t)c->buf[0] << 8 | c->buf[1];
	if (c->blen < 2 + ql)
		return 1;
	uint8_t out[2 + 4096];
	size_t rl = dns_answer(g, c->buf + 2, ql, out + 2, sizeof out - 2);
	if (rl) {
		out[0] = (uint8_t)(rl >> 8);
		out[1] = (uint8_t)rl;
		(void)send(c->cfd, out, rl + 2, MSG_DONTWAIT | MSG_NOSIGNAL);
	}
	conn_free(g, i, false);
	return 0;
}

/* ---- the loop ------------------------------------------------------------------------------ */

/* Where a transparent listener's connection was going: its own address (a `local` route) or the
 * original destination of the REDIRECT. 0, or -1. */
static int conn_dest(int fd, bool sockname, int *family, uint8_t addr[16], uint16_t *port)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof ss;
	memset(&ss, 0, sizeof ss);
	int r;
	if (sockname) {
		r = getsockname(fd, (struct sockaddr *)&ss, &sl);
	} else {
		r = getsockopt(fd, SOL_IP, SO_ORIGINAL_DST, &ss, &sl);
		if (r < 0) {
			sl = sizeof ss;
			r = getsockopt(fd, SOL_IPV6, IP6T_SO_ORIGINAL_DST, &ss, &sl);
		}
	}
	return r < 0 ? -1 : sa_split(&ss, family, addr, port);
}

/* Accept what a listener has queued, 64 at most. Past GW_CONN_MAX open connections a new one is
 * refused (RST) and reported (`too-many-connections`, its destination when known), never closed
 * unreported. Returns how many were accepted. */
static int accept_on(struct gw *g, int lfd, enum ckind kind, bool sockname)
{
	int k;
	for (k = 0; k < 64; k++) {
		int fd = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd < 0)
			return k;
		struct conn *c = g->nconns < GW_CONN_MAX ? calloc(1, sizeof *c) : NULL;
		if (!c) {
			struct conn full = {.kind = kind};
			if (kind == K_TRANSPARENT)
				(void)conn_dest(fd, sockname, &full.family, full.addr, &full.port);
			rec_deny(g, &full, SBX_NR_CONN_LIMIT, NULL, NULL);
			rst_close(fd);
			close(fd);
			continue;
		}
		c->cfd = fd;
		c->ufd = -1;
		c->up.pipe[0] = c->up.pipe[1] = c->down.pipe[0] = c->down.pipe[1] = -1;
		c->kind = kind;
		c->t0 = now_ms();
		c->deadline = c->t0 + GW_PEEK_MS;
		g->conns[g->nconns++] = c;
		size_t i = g->nconns - 1;
		if (kind != K_TRANSPARENT)
			continue;
		if (conn_dest(fd, sockname, &c->family, c->addr, &c->port) < 0) {
			refuse(g, i, SBX_NR_ADDR_NOT_GRANTED, NULL, NULL, false);
			continue;
		}
		/* an address granted as such needs no name: connect now */
		const struct sbx_gw_grant *ga = grant_addr(&g->c, c->family, c->addr, c->port);
		if ((ga && !ga->nmethods && !ga->npaths) || g->c.any)
			allow_addr(g, i);
	}
	return k;
}

static volatile sig_atomic_t stop_now;

static void lockdown(void)
{
	(void)prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
	if (geteuid() == 0) {
		/* nothing here needs root: connect out, read resolv.conf */
		if (setgroups(0, NULL) < 0 || setresgid(65534, 65534, 65534) < 0 ||
		    setresuid(65534, 65534, 65534) < 0)
			_exit(126);
	}
	/* not dumpable: no process of the same uid (the executor may run as nobody too) can ptrace it
	 * or read its memory through /proc and borrow its host-side network */
	(void)prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
	scmp_filter_ctx f = seccomp_init(SCMP_ACT_ALLOW);
	if (!f)
		return;
	static const char *const deny[] = {"execve", "execveat", "ptrace", "process_vm_readv",
					    "process_vm_writev", "mount", "umount2", "pivot_root", "chroot",
					    "unshare", "setns", "bpf", "kexec_load", "init_module",
					    "finit_module", "delete_module", "keyctl", "add_key",
					    "request_key", "perf_event_open", "userfaultfd", "io_uring_setup",
					    "open_by_handle_at", "fsopen", "fsmount", "move_mount",
					    "open_tree", "mount_setattr", "personality"};
	for (size_t i = 0; i < sizeof deny / sizeof deny[0]; i++) {
		int nr = seccomp_syscall_resolve_name(deny[i]);
		if (nr != __NR_SCMP_ERROR)
			seccomp_rule_add(f, SCMP_ACT_ERRNO(EPERM), nr, 0);
	}
	if (seccomp_load(f) < 0)
		_exit(126);
	seccomp_release(f);
}

static void relay_events(struct conn *c, short *ce, short *ue)
{
	*ce = *ue = 0;
	if (c->hscan) {
		if (c->hok == 0 && !c->up.eof && c->blen < sizeof c->buf)
			*ce |= POLLIN;
		if (c->hok > 0)
			*ue |= POLLOUT;
	} else if (c->boff < c->blen) {
		*ue |= POLLOUT;
		return;
	}
	if (!c->hscan && !c->up.eof && c->up.inpipe == 0)
		*ce |= POLLIN;
	if (!c->hscan && c->up.inpipe > 0)
		*ue |= POLLOUT;
	if (!c->down.eof && c->down.inpipe == 0)
		*ue |= POLLIN;
	if (c->down.inpipe > 0)
		*ce |= POLLOUT;
	if (c->hscan && c->hs.st == GW_HS_UPWAIT)
		*ue |= POLLRDHUP; /* the server ending inside its status line decides it (upgrade_answer) */
}

static void serve_conn(struct gw *g, size_t i, short crev, short urev, long now)
{
	struct conn *c = g->conns[i];
	bool timed_out = c->st != ST_RELAY && now >= c->deadline;
	if (c->st == ST_PEEK) {
		if (crev & (POLLIN | POLLHUP | POLLERR)) {
			ssize_t n = recv(c->cfd, c->buf + c->blen, sizeof c->buf - c->blen, 0);
			if (n <= 0 && !(n < 0 && errno == EAGAIN)) {
				if (c->kind == K_TRANSPARENT && c->blen == 0 && c->family &&
				    !gw_names_by_addr(&g->names, c->family, c->addr)) {
					/* closed before naming a host, to an address no granted name
					 * resolved to (a probe of what answers): refused and reported.
					 * One to a granted name's address (the loser of a happy-eyeballs
					 * race) closes quietly below. */
					refuse(g, i, SBX_NR_NO_NAME, NULL, NULL, false);
					return;
				}
				if (c->kind == K_DNSTCP || c->blen == 0) {
					conn_free(g, i, false);
					return;
				}
				timed_out = true; /* the client finished sending without a name */
			} else if (n > 0) {
				c->blen += (size_t)n;
			}
		}
		if (!timed_out && !(crev & POLLIN))
			return;
		if (c->kind == K_DNSTCP) {
			if (dns_tcp(g, i) && timed_out)
				conn_free(g, i, false);
			return;
		}
		if (c->kind == K_PROXY)
			(void)proxy_head(g, i, timed_out);
		else
			(void)decide(g, i, timed_out);
		return;
	}
	if (c->st == ST_CONNECT) {
		if (urev & (POLLOUT | POLLERR | POLLHUP))
			on_connected(g, i);
		else if (timed_out)
			refuse(g, i, SBX_NR_UPSTREAM, c->host, NULL, false);
		return;
	}
	/* relay */
	if (c->hscan) {
		upgrade_answer(g, i, urev);
		if (http_up(g, i, crev) < 0)
			return;
		if (c->hs.st == GW_HS_UPWAIT) /* the server's answer stays queued until read above */
			return;
		if (dir_step(g, &c->down) < 0 || (c->up.shut && c->down.shut))
			conn_free(g, i, true);
		return;
	}
	if (c->boff < c->blen) {
		if (!(urev & (POLLOUT | POLLERR | POLLHUP)))
			return;
		ssize_t n = send(c->ufd, c->buf + c->boff, c->blen - c->boff, MSG_DONTWAIT | MSG_NOSIGNAL);
		if (n < 0 && errno != EAGAIN) {
			conn_free(g, i, true);
			return;
		}
		if (n > 0)
			c->boff += (size_t)n;
		if (c->boff < c->blen)
			return;
	}
	if (dir_step(g, &c->up) < 0 || dir_step(g, &c->down) < 0 ||
	    (c->up.shut && c->down.shut)) {
		conn_free(g, i, true);
		return;
	}
}

/* The signals that ask the gateway to stop, blocked: the loop reads them from a signalfd. */
static void stop_signals(sigset_t *ss)
{
	sigemptyset(ss);
	sigaddset(ss, SIGTERM);
	sigaddset(ss, SIGINT);
	sigaddset(ss, SIGHUP);
	sigprocmask(SIG_BLOCK, ss, NULL);
}

static int serve_loop(struct gw *g)
{
	sigset_t ss;
	stop_signals(&ss);
	signal(SIGPIPE, SIG_IGN);
	int sfd = signalfd(-1, &ss, SFD_CLOEXEC | SFD_NONBLOCK);
	if (sfd < 0)
		return 1;
	struct { int fd; enum ckind kind; bool sockname; } ls[4 + SBX_GW_MAX_PORT_FDS];
	size_t nls = 0;
	if (g->c.tcp >= 0)
		ls[nls++] = (typeof(ls[0])){g->c.tcp, K_TRANSPARENT, g->c.dst_mode == SBX_GW_DST_SOCKNAME};
	for (size_t i = 0; i < g->c.nports; i++)
		ls[nls++] = (typeof(ls[0])){g->c.ports[i], K_TRANSPARENT, true};
	if (g->c.proxy >= 0)
		ls[nls++] = (typeof(ls[0])){g->c.proxy, K_PROXY, true};
	if (g->c.dnstcp >= 0)
		ls[nls++] = (typeof(ls[0])){g->c.dnstcp, K_DNSTCP, true};
	for (size_t i = 0; i < nls; i++)
		if (fcntl(ls[i].fd, F_SETFL, fcntl(ls[i].fd, F_GETFL) | O_NONBLOCK) < 0)
			return 1;
	int dfd[2] = {g->c.dns, g->c.dns6};
	for (int k = 0; k < 2; k++)
		if (dfd[k] >= 0) {
			int one = 1;
			(void)setsockopt(dfd[k], IPPROTO_IP, IP_PKTINFO, &one, sizeof one);
			(void)setsockopt(dfd[k], IPPROTO_IPV6, IPV6_RECVPKTINFO, &one, sizeof one);
		}
	if (gw_udp_init(&g->udp, g->c.udp, g->c.nudp, g->c.ucatch, g->c.nucatch, udp_decide, udp_record, g) < 0)
		return 1;
	static struct pollfd pf[4 + 4 + SBX_GW_MAX_PORT_FDS + 2 * GW_CONN_MAX + GW_UDP_LISTENERS_MAX +
				GW_UDP_FLOWS_MAX];
	while (!stop_now) {
		size_t np = 0;
		pf[np++] = (struct pollfd){sfd, POLLIN, 0};
		pf[np++] = (struct pollfd){g->c.dns, POLLIN, 0};
		pf[np++] = (struct pollfd){g->c.dns6, POLLIN, 0};
		pf[np++] = (struct pollfd){g->parent_fd, POLLIN, 0};
		for (size_t i = 0; i < nls; i++)
			pf[np++] = (struct pollfd){ls[i].fd, POLLIN, 0};
		size_t base = np;
		long now = now_ms(), wait = -1;
		for (size_t i = 0; i < g->nconns; i++) {
			struct conn *c = g->conns[i];
			short ce = 0, ue = 0;
			if (c->st == ST_PEEK)
				ce = POLLIN;
			else if (c->st == ST_CONNECT)
				ue = POLLOUT;
			else
				relay_events(c, &ce, &ue);
			pf[np++] = (struct pollfd){c->cfd, ce, 0};
			pf[np++] = (struct pollfd){c->ufd, ue, 0};
			if (c->st != ST_RELAY) {
				long w = c->deadline - now;
				if (w < 0)
					w = 0;
				if (wait < 0 || w < wait)
					wait = w;
			}
		}
		size_t ubase = np;
		size_t nu = gw_udp_poll(&g->udp, pf + ubase, now, &wait);
		np += nu;
		int n = poll(pf, np, (int)(wait < 0 ? -1 : wait + 1));
		if (n < 0 && errno != EINTR)
			return 1;
		bool stopping = false; /* asked to stop: this poll's events are still served (a client's
					* last bytes or close often come with the run's end) */
		if (pf[0].revents) {
			struct signalfd_siginfo si;
			if (read(sfd, &si, sizeof si) > 0)
				stopping = true;
		}
		if (pf[3].revents)
			break; /* the spawner is gone (a sbxsup killed): never outlive the run */
		if (pf[1].revents & POLLIN)
			dns_udp(g, g->c.dns);
		if (pf[2].revents & POLLIN)
			dns_udp(g, g->c.dns6);
		now = now_ms();
		gw_udp_serve(&g->udp, pf + ubase, nu, now);
		/* connections first (their slots are those of this poll), newest last */
		size_t nc = g->nconns;
		struct conn *seen[GW_CONN_MAX];
		memcpy(seen, g->conns, nc * sizeof *seen);
		for (size_t k = 0; k < nc; k++) {
			size_t i;
			for (i = 0; i < g->nconns && g->conns[i] != seen[k]; i++)
				;
			if (i == g->nconns)
				continue; /* freed meanwhile */
			short crev = pf[base + 2 * k].revents, urev = pf[base + 2 * k + 1].revents;
			if (crev || urev || (seen[k]->st != ST_RELAY && now >= seen[k]->deadline))
				serve_conn(g, i, crev, urev, now);
		}
		for (size_t i = 0; i < nls; i++)
			if (pf[4 + i].revents & POLLIN)
				accept_on(g, ls[i].fd, ls[i].kind, ls[i].sockname);
		if (stopping)
			break;
	}
	/* stopping: what the run's last moments left is still decided — the connections waiting in
	 * the listen queues accepted, every one not yet named read once more (one closed before
	 * naming a host is refused and reported, as at any time) — then every open flow is recorded */
	for (int round = 0; round < GW_STOP_ROUNDS; round++) {
		int got = 0;
		for (size_t i = 0; i < nls; i++)
			got += accept_on(g, ls[i].fd, ls[i].kind, ls[i].sockname);
		long last = now_ms();
		for (size_t k = g->nconns; k-- > 0;) /* (a freed slot takes the last one: seen) */
			if (k < g->nconns && g->conns[k]->st == ST_PEEK)
				serve_conn(g, k, POLLIN, 0, last);
		if (!got)
			break; /* the queues are empty (the run's processes are gone: no more come) */
	}
	gw_udp_close(&g->udp, now_ms());
	while (g->nconns) {
		struct conn *c = g->conns[g->nconns - 1];
		conn_free(g, g->nconns - 1, c->st == ST_RELAY);
	}
	return 0;
}

int sbx_gw_main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	char *end;
	long cfd = strtol(argv[1], &end, 10);
	if (*end || cfd < 3 || cfd > INT_MAX)
		return 2;
	struct gw *g = calloc(1, sizeof *g);
	if (!g || read_config((int)cfd, &g->c) < 0) {
		fprintf(stderr, "sbxsup: gateway: unusable configuration\n");
		return 2;
	}
	const char *hf = getenv("SBXSUP_GW_HOSTS");
	g->names.hosts_file = hf && *hf ? hf : NULL;
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		(void)setrlimit(RLIMIT_NOFILE, &rl);
	}
	/* the spawner's lifetime is ours: a pidfd of the process that started us (POLLIN when it has
	 * exited, whichever of its threads spawned us); already gone (reparented): leave at once */
	pid_t pp = getppid();
	g->parent_fd = pp > 1 ? (int)syscall(SYS_pidfd_open, pp, 0) : -1;
	if (g->parent_fd < 0 || getppid() != pp)
		return 1;
	/* the stop request is read by the loop (signalfd): blocked before the spawner is told, so a
	 * stop that comes at once still lets the gateway decide what is queued */
	sigset_t ss;
	stop_signals(&ss);
	lockdown();
	/* tell the spawner the gateway is up (gateway.c waits for this byte) */
	long rfd = argc > 2 ? strtol(argv[2], &end, 10) : -1;
	if (rfd >= 3 && rfd <= INT_MAX) {
		(void)!write((int)rfd, "R", 1);
		close((int)rfd);
	}
	int rc = serve_loop(g);
	gw_names_free(&g->names);
	return rc;
}
