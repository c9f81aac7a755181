/* gw_udp.c — see gw_udp.h. */
#include "gw_udp.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static uint8_t dgram[65536]; /* one datagram at a time: the loop is single-threaded */

int gw_udp_init(struct gw_udp *u, const int *lfds, size_t nl, const int *cfds, size_t nc,
		gw_udp_decide_fn d, gw_udp_record_fn r, void *ctx)
{
	memset(u, 0, sizeof *u);
	u->decide = d;
	u->record = r;
	u->ctx = ctx;
	for (size_t i = 0; i < nl + nc && u->nl < GW_UDP_LISTENERS_MAX; i++) {
		bool c = i >= nl;
		int one = 1, fd = c ? cfds[i - nl] : lfds[i];
		struct sockaddr_storage ss;
		socklen_t sl = sizeof ss;
		if (getsockname(fd, (struct sockaddr *)&ss, &sl) < 0 ||
		    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK) < 0)
			return -1;
		bool v4 = ss.ss_family == AF_INET;
		if (v4 ? setsockopt(fd, IPPROTO_IP, c ? IP_RECVORIGDSTADDR : IP_PKTINFO, &one, sizeof one)
		       : setsockopt(fd, IPPROTO_IPV6, c ? IPV6_RECVORIGDSTADDR : IPV6_RECVPKTINFO, &one, sizeof one))
			return -1;
		u->lcatch[u->nl] = c;
		u->lfds[u->nl++] = fd;
	}
	return 0;
}

size_t gw_udp_nslots(const struct gw_udp *u)
{
	return u->nl + u->nf;
}

size_t gw_udp_poll(struct gw_udp *u, struct pollfd *pf, long now, long *wait_ms)
{
	size_t n = 0;
	for (size_t i = 0; i < u->nl; i++)
		pf[n++] = (struct pollfd){u->lfds[i], POLLIN, 0};
	for (size_t i = 0; i < u->nf; i++) {
		pf[n++] = (struct pollfd){u->f[i]->ufd, POLLIN, 0};
		long w = u->f[i]->last + GW_UDP_IDLE_MS - now;
		if (w < 0)
			w = 0;
		if (*wait_ms < 0 || w < *wait_ms)
			*wait_ms = w;
	}
	return n;
}

static void rec_flow(struct gw_udp *u, const struct gw_udp_flow *f, long now)
{
	struct sbx_net_hdr h = {.kind = SBX_NET_FLOW, .port = f->dport, .proto = IPPROTO_UDP,
				.family = (uint8_t)f->ufam, .bytes_out = f->out, .bytes_in = f->in};
	long d = now - f->t0;
	h.duration_ms = d < 0 ? 0 : (uint32_t)d;
	memcpy(h.addr, f->uaddr, sizeof h.addr);
	u->record(u->ctx, &h, f->host);
}

static void flow_end(struct gw_udp *u, size_t i, long now)
{
	struct gw_udp_flow *f = u->f[i];
	rec_flow(u, f, now);
	close(f->ufd);
	free(f);
	u->f[i] = u->f[--u->nf];
}

/* A refusal, at most once per destination per GW_UDP_DENY_MS. */
static void deny(struct gw_udp *u, int fam, const uint8_t *a, uint16_t port, const char *host, long now,
		 enum sbx_net_reason why)
{
	size_t k, oldest = 0;
	for (k = 0; k < u->ndenied; k++) {
		struct gw_udp_denied *d = &u->denied[k];
		if (d->fam == fam && d->port == port && !memcmp(d->addr, a, 16))
			break;
		if (d->at < u->denied[oldest].at)
			oldest = k;
	}
	if (k < u->ndenied) {
		if (now - u->denied[k].at < GW_UDP_DENY_MS)
			return;
	} else {
		k = u->ndenied < GW_UDP_DENY_SLOTS ? u->ndenied++ : oldest;
		u->denied[k].fam = fam;
		u->denied[k].port = port;
		memcpy(u->denied[k].addr, a, 16);
	}
	u->denied[k].at = now;
	struct sbx_net_hdr h = {.kind = SBX_NET_DENY, .port = port, .proto = IPPROTO_UDP,
				.family = (uint8_t)fam, .reason = (uint16_t)why};
	memcpy(h.addr, a, 16);
	u->record(u->ctx, &h, host && host[0] ? host : NULL);
}

static struct gw_udp_flow *flow_find(struct gw_udp *u, int lfd, const struct sockaddr_storage *cl,
				     socklen_t cl_len, int fam, const uint8_t *a, uint16_t port)
{
	for (size_t i = 0; i < u->nf; i++) {
		struct gw_udp_flow *f = u->f[i];
		if (f->lfd == lfd && f->clen == cl_len && !memcmp(&f->client, cl, cl_len) && f->dfam == fam &&
		    f->dport == port && !memcmp(f->daddr, a, 16))
			return f;
	}
	return NULL;
}

static struct gw_udp_flow *flow_open(struct gw_udp *u, int lfd, const struct sockaddr_storage *cl,
				     socklen_t cl_len, int fam, const uint8_t *a, uint16_t port, long now)
{
	char host[GW_NAME_MAX] = "";
	int ufam = 0;
	uint8_t uaddr[16] = {0};
	if (!u->decide(u->ctx, fam, a, port, host, &ufam, uaddr)) {
		deny(u, fam, a, port, host, now, SBX_NR_ADDR_NOT_GRANTED);
		return NULL;
	}
	if (u->nf >= GW_UDP_FLOWS_MAX)
		return NULL;
	struct gw_udp_flow *f = calloc(1, sizeof *f);
	if (!f)
		return NULL;
	f->ufd = socket(ufam, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	struct sockaddr_storage ss;
	memset(&ss, 0, sizeof ss);
	socklen_t sl;
	if (ufam == AF_INET) {
		struct sockaddr_in *s = (void *)&ss;
		s->sin_family = AF_INET;
		memcpy(&s->sin_addr, uaddr, 4);
		s->sin_port = htons(port);
		sl = sizeof *s;
	} else {
		struct sockaddr_in6 *s = (void *)&ss;
		s->sin6_family = AF_INET6;
		memcpy(&s->sin6_addr, uaddr, 16);
		s->sin6_port = htons(port);
		sl = sizeof *s;
	}
	if (f->ufd < 0 || connect(f->ufd, (struct sockaddr *)&ss, sl) < 0) {
		if (f->ufd >= 0)
			close(f->ufd);
		free(f);
		return NULL;
	}
	f->lfd = lfd;
	memcpy(&f->client, cl, cl_len);
	f->clen = cl_len;
	f->dfam = fam;
	memcpy(f->daddr, a, 16);
	f->dport = port;
	f->ufam = ufam;
	memcpy(f->uaddr, uaddr, 16);
	memcpy(f->host, host, sizeof f->host);
	f->host[sizeof f->host - 1] = 0;
	f->t0 = f->last = now;
	u->f[u->nf++] = f;
	return f;
}

/* The destination the program sent to: the packet's own destination address (pktinfo) and the
 * listener's port. */
static int orig_dst(int lfd, struct msghdr *mh, int *fam, uint8_t a[16], uint16_t *port)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof ss;
	if (getsockname(lfd, (struct sockaddr *)&ss, &sl) < 0)
		return -1;
	memset(a, 0, 16);
	for (struct cmsghdr *cm = CMSG_FIRSTHDR(mh); cm; cm = CMSG_NXTHDR(mh, cm)) {
		if (cm->cmsg_level == IPPROTO_IP && cm->cmsg_type == IP_PKTINFO && ss.ss_family == AF_INET) {
			struct in_pktinfo pi;
			memcpy(&pi, CMSG_DATA(cm), sizeof pi);
			*fam = AF_INET;
			memcpy(a, &pi.ipi_addr, 4);
			*port = ntohs(((struct sockaddr_in *)&ss)->sin_port);
			return 0;
		}
		if (cm->cmsg_level == IPPROTO_IPV6 && cm->cmsg_type == IPV6_PKTINFO && ss.ss_family == AF_INET6) {
			struct in6_pktinfo pi;
			memcpy(&pi, CMSG_DATA(cm), sizeof pi);
			*fam = AF_INET6;
			memcpy(a, &pi.ipi6_addr, 16);
			*port = ntohs(((struct sockaddr_in6 *)&ss)->sin6_port);
			return 0;
		}
	}
	return -1;
}

/* A catch listener's datagram: its original destination (tproxy keeps it). */
static int caught_dst(struct msghdr *mh, int *fam, uint8_t a[16], uint16_t *port)
{
	memset(a, 0, 16);
	for (struct cmsghdr *cm = CMSG_FIRSTHDR(mh); cm; cm = CMSG_NXTHDR(mh, cm)) {
		if (cm->cmsg_level == IPPROTO_IP && cm->cmsg_type == IP_ORIGDSTADDR) {
			struct sockaddr_in s;
			memcpy(&s, CMSG_DATA(cm), sizeof s);
			*fam = AF_INET;
			memcpy(a, &s.sin_addr, 4);
			*port = ntohs(s.sin_port);
			return 0;
		}
		if (cm->cmsg_level == IPPROTO_IPV6 && cm->cmsg_type == IPV6_ORIGDSTADDR) {
			struct sockaddr_in6 s;
			memcpy(&s, CMSG_DATA(cm), sizeof s);
			*fam = AF_INET6;
			memcpy(a, &s.sin6_addr, 16);
			*port = ntohs(s.sin6_port);
			return 0;
		}
	}
	return -1;
}

static void from_client(struct gw_udp *u, size_t li, long now)
{
	int lfd = u->lfds[li];
	for (int k = 0; k < 64; k++) {
		struct sockaddr_storage cl;
		union {
			struct cmsghdr h;
			char b[CMSG_SPACE(sizeof(struct in6_pktinfo)) + CMSG_SPACE(sizeof(struct in_pktinfo)) +
			       CMSG_SPACE(sizeof(struct sockaddr_in6))];
		} cb;
		struct iovec iov = {dgram, sizeof dgram};
		struct msghdr mh = {.msg_name = &cl, .msg_namelen = sizeof cl, .msg_iov = &iov, .msg_iovlen = 1,
				    .msg_control = cb.b, .msg_controllen = sizeof cb.b};
		memset(&cl, 0, sizeof cl);
		ssize_t n = recvmsg(lfd, &mh, MSG_DONTWAIT);
		if (n < 0)
			return;
		int fam;
		uint8_t a[16];
		uint16_t port;
		if (u->lcatch[li]) {
			if (caught_dst(&mh, &fam, a, &port) == 0)
				deny(u, fam, a, port, NULL, now, SBX_NR_UDP_NOT_RELAYED);
			continue;
		}
		if (orig_dst(lfd, &mh, &fam, a, &port) < 0)
			continue;
		struct gw_udp_flow *f = flow_find(u, lfd, &cl, mh.msg_namelen, fam, a, port);
		if (!f)
			f = flow_open(u, lfd, &cl, mh.msg_namelen, fam, a, port, now);
		if (!f)
			continue;
		if (send(f->ufd, dgram, (size_t)n, MSG_DONTWAIT | MSG_NOSIGNAL) == n)
			f->out += (uint64_t)n;
		f->last = now;
	}
}

/* Replies: to the client, from the address it sent to. */
static void from_host(struct gw_udp_flow *f, long now)
{
	for (int k = 0; k < 64; k++) {
		ssize_t n = recv(f->ufd, dgram, sizeof dgram, MSG_DONTWAIT);
		if (n < 0)
			return;
		union {
			struct cmsghdr h;
			char b[CMSG_SPACE(sizeof(struct in6_pktinfo))];
		} rb;
		memset(&rb, 0, sizeof rb);
		struct iovec iov = {dgram, (size_t)n};
		struct msghdr mh = {.msg_name = &f->client, .msg_namelen = f->clen, .msg_iov = &iov,
				    .msg_iovlen = 1, .msg_control = rb.b};
		struct cmsghdr *o = (struct cmsghdr *)rb.b;
		if (f->dfam == AF_INET) {
			struct in_pktinfo pi = {0};
			memcpy(&pi.ipi_spec_dst, f->daddr, 4);
			mh.msg_controllen = CMSG_SPACE(sizeof pi);
			o->cmsg_level = IPPROTO_IP;
			o->cmsg_type = IP_PKTINFO;
			o->cmsg_len = CMSG_LEN(sizeof pi);
			memcpy(CMSG_DATA(o), &pi, sizeof pi);
		} else {
			struct in6_pktinfo pi = {0};
			memcpy(&pi.ipi6_addr, f->daddr, 16);
			mh.msg_controllen = CMSG_SPACE(sizeof pi);
			o->cmsg_level = IPPROTO_IPV6;
			o->cmsg_type = IPV6_PKTINFO;
			o->cmsg_len = CMSG_LEN(sizeof pi);
			memcpy(CMSG_DATA(o), &pi, sizeof pi);
		}
		if (sendmsg(f->lfd, &mh, MSG_DONTWAIT | MSG_NOSIGNAL) == n)
			f->in += (uint64_t)n;
		f->last = now;
	}
}

void gw_udp_serve(struct gw_udp *u, const struct pollfd *pf, size_t n, long now)
{
	/* flows first (their slots are those of the last poll; new ones are appended after them) */
	size_t nf = n > u->nl ? n - u->nl : 0;
	for (size_t i = 0; i < nf && i < u->nf; i++)
		if (pf[u->nl + i].revents && pf[u->nl + i].fd == u->f[i]->ufd)
			from_host(u->f[i], now);
	for (size_t i = 0; i < u->nl && i < n; i++)
		if (pf[i].revents & POLLIN)
			from_client(u, i, now);
	for (size_t i = u->nf; i-- > 0;)
		if (now - u->f[i]->last >= GW_UDP_IDLE_MS)
			flow_end(u, i, now);
}

void gw_udp_close(struct gw_udp *u, long now)
{
	while (u->nf)
		flow_end(u, u->nf - 1, now);
}
