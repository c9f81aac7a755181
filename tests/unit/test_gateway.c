/* test_gateway.c — the network gateway end to end (supervisor/net/gateway.h), with real
 * namespaces and real sockets, nothing leaving the machine:
 *   - a child process makes its own network namespace (as root: unshare(CLONE_NEWNET); otherwise a
 *     user namespace with it), brings lo up, creates the listeners the run's namespace would have
 *     (one per port, bound to the any-address: destinations read with getsockname; UDP port 53)
 *     and hands them over; then it is the "executor": it runs the client side of each case on
 *     command and says what it saw;
 *   - servers on 127.0.0.x in the host's namespace record what reached them (host-side evidence);
 *   - the gateway is spawned with SBXSUP_GW_HOSTS mapping test names to those addresses (the
 *     test-only resolver), grants from a real manifest, its records drained into a real audit file.
 * Skipped (with the reason) only where no network namespace can be made. SBXSUP names the sbxsup
 * binary the gateway runs as (default build/sbxsup); SBX_GW_AUDIT_COPY=FILE keeps the audit stream. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <net/if.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <nftables/libnftables.h>

#include "audit.h"
#include "fdpass.h"
#include "gateway.h"
#include "gw_ns.h"
#include "gw_parse.h"
#include "gw_names.h"
#include "manifest.h"
#include "tls_hello.h"

/* ---- host-side servers ------------------------------------------------------------------------ */

#define SEEN_MAX 64
struct seen { char addr[16]; char first[256]; size_t len; uint64_t total; };
static struct { pthread_mutex_t mu; struct seen v[SEEN_MAX]; size_t n; } seen = {.mu = PTHREAD_MUTEX_INITIALIZER};

struct server { int fd; char addr[16]; };

static void *serve(void *arg)
{
	struct server *s = arg;
	for (;;) {
		int c = accept(s->fd, NULL, NULL);
		if (c < 0)
			return NULL;
		uint8_t buf[65536];
		size_t n = 0;
		uint64_t total = 0;
		struct pollfd p = {c, POLLIN, 0};
		bool bulk = false;
		while (poll(&p, 1, bulk ? 5000 : 300) > 0) {
			ssize_t r = recv(c, n < sizeof buf ? buf + n : buf, n < sizeof buf ? sizeof buf - n : sizeof buf, 0);
			if (r <= 0)
				break;
			total += (uint64_t)r;
			if (n < sizeof buf)
				n += (size_t)r;
			if (n >= 4 && !memcmp(buf, "BULK", 4))
				bulk = true;
			else if (n >= 12 && !memcmp(buf, "GET /v1/pipe", 12))
				continue; /* pipelined requests: read until the client is done */
			else if (n >= 4 && memmem(buf, n, "\r\n\r\n", 4))
				break;
		}
		/* a WebSocket handshake: /v1/ws switches (101), /v1/noup answers 200 and stays HTTP; either
		 * way, what the client sends after its answer is read until it is done */
		bool ws = n >= 10 && !memcmp(buf, "GET /v1/ws", 10), noup = n >= 12 && !memcmp(buf, "GET /v1/noup", 12);
		if (n >= 13 && !memcmp(buf, "GET /v1/short", 13)) { /* ends inside its status line */
			(void)!write(c, "HTTP/1.1", 8);
			shutdown(c, SHUT_WR);
			ws = false;
			while (poll(&p, 1, 3000) > 0 && recv(c, buf + n, sizeof buf - n, 0) > 0)
				;
			close(c);
			continue;
		}
		if (ws || noup) {
			static const char sw[] = "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n"
						 "Connection: Upgrade\r\n\r\n";
			static const char no[] = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";
			(void)!write(c, ws ? sw : no, ws ? sizeof sw - 1 : sizeof no - 1);
			while (poll(&p, 1, 3000) > 0) {
				ssize_t r = recv(c, buf + n, sizeof buf - n, 0);
				if (r <= 0)
					break;
				n += (size_t)r;
				total += (uint64_t)r;
			}
		}
		pthread_mutex_lock(&seen.mu);
		if (seen.n < SEEN_MAX) {
			struct seen *e = &seen.v[seen.n++];
			snprintf(e->addr, sizeof e->addr, "%s", s->addr);
			e->len = n < sizeof e->first ? n : sizeof e->first;
			memcpy(e->first, buf, e->len);
			e->total = total;
		}
		pthread_mutex_unlock(&seen.mu);
		if (ws || noup)
			(void)!write(c, "END\n", 4);
		else if (n >= 4 && !memcmp(buf, "GET ", 4))
			(void)!write(c, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok", 59);
		else
			(void)!write(c, "SRV-OK\n", 7);
		shutdown(c, SHUT_WR);
		close(c);
	}
}

/* addr:port as a socket address (IPv6 when addr holds ':'). Its length. */
static socklen_t sa_of(const char *addr, uint16_t port, struct sockaddr_storage *ss)
{
	memset(ss, 0, sizeof *ss);
	if (strchr(addr, ':')) {
		struct sockaddr_in6 *s6 = (void *)ss;
		s6->sin6_family = AF_INET6;
		s6->sin6_port = htons(port);
		inet_pton(AF_INET6, addr, &s6->sin6_addr);
		return sizeof *s6;
	}
	struct sockaddr_in *s4 = (void *)ss;
	s4->sin_family = AF_INET;
	s4->sin_port = htons(port);
	inet_pton(AF_INET, addr, &s4->sin_addr);
	return sizeof *s4;
}

static int listen_on(const char *addr, uint16_t port, uint16_t *got)
{
	struct sockaddr_storage ss;
	socklen_t sl = sa_of(addr, port, &ss);
	int fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	int one = 1;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	if (bind(fd, (struct sockaddr *)&ss, sl) < 0 || listen(fd, 64) < 0) {
		close(fd);
		return -1;
	}
	getsockname(fd, (struct sockaddr *)&ss, &sl);
	if (got)
		*got = ntohs(ss.ss_family == AF_INET6 ? ((struct sockaddr_in6 *)&ss)->sin6_port
						     : ((struct sockaddr_in *)&ss)->sin_port);
	return fd;
}

/* The servers listen at once (their ports go into the namespace child) and are served by threads
 * started only after that child is forked (start_servers): a child forked beside running threads
 * may find a lock (the allocator's, ASan's) held by one of them and wait forever in libnftables'
 * first malloc — seen under ASan as a setup that never ended. */
#define MAX_SERVERS 16
static struct server *pending[MAX_SERVERS];
static size_t npending;

static void start_server(const char *addr, uint16_t port, uint16_t *got)
{
	struct server *s = calloc(1, sizeof *s);
	assert_non_null(s);
	s->fd = listen_on(addr, port, got);
	assert_true(s->fd >= 0);
	snprintf(s->addr, sizeof s->addr, "%s", addr);
	assert_true(npending < MAX_SERVERS);
	pending[npending++] = s;
}

static void start_servers(void)
{
	for (size_t i = 0; i < npending; i++) {
		pthread_t t;
		assert_int_equal(pthread_create(&t, NULL, serve, pending[i]), 0);
		pthread_detach(t);
	}
	npending = 0;
}

/* What the server at addr saw last, or NULL. */
static const struct seen *seen_last(const char *addr)
{
	const struct seen *r = NULL;
	pthread_mutex_lock(&seen.mu);
	for (size_t i = 0; i < seen.n; i++)
		if (!strcmp(seen.v[i].addr, addr))
			r = &seen.v[i];
	pthread_mutex_unlock(&seen.mu);
	return r;
}

static size_t seen_count(void)
{
	pthread_mutex_lock(&seen.mu);
	size_t n = seen.n;
	pthread_mutex_unlock(&seen.mu);
	return n;
}

/* ---- the run's side (child in its own network namespace) -------------------------------------- */

static int ns_cmd;          /* parent end: commands to the child, answers back */
static pid_t ns_pid, gw_pid;
static int gw_report = -1;
static struct audit au;
static char dir[64], hosts[128], auditf[128];
static uint16_t P_TLS, P_HTTP, P_RAW, P_RED, P_V6;
static uint16_t ns_proxy_port, ns_redir_port; /* in the child: its proxy and REDIRECT listeners */
static bool have_redirect;                    /* the child's namespace REDIRECTs to the tcp_fd listener */
#define NFDS 9
static const char *skip_why;

static int tcp_to(const char *addr, uint16_t port)
{
	struct sockaddr_storage ss;
	socklen_t sl = sa_of(addr, port, &ss);
	int fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct timeval tv = {3, 0};
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
	if (connect(fd, (struct sockaddr *)&ss, sl) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Everything the peer sends until EOF (or an error: "reset"). */
static void read_all(int fd, char *out, size_t cap)
{
	size_t n = 0;
	for (;;) {
		ssize_t r = recv(fd, out + n, cap - 1 - n, 0);
		if (r < 0) {
			snprintf(out, cap, "%s", errno == ECONNRESET ? "reset" : "error");
			return;
		}
		if (r == 0 || (n += (size_t)r) >= cap - 1)
			break;
	}
	out[n] = '\0';
	if (n == 0)
		snprintf(out, cap, "eof");
}

static void child_cmd(const char *cmd, char *ans, size_t cap)
{
	char a[64], b[256], c[64], d[256];
	unsigned port, mb;
	if (sscanf(cmd, "tls %63s %u %255s", a, &port, b) == 3) {
		int fd = tcp_to(a, (uint16_t)port);
		if (fd < 0) {
			snprintf(ans, cap, "noconnect");
			return;
		}
		uint8_t ch[1024];
		size_t n = tls_hello(ch, b, 0);
		(void)!write(fd, ch, n);
		read_all(fd, ans, cap);
		close(fd);
	} else if (sscanf(cmd, "http %63s %u %255s %63s %255s", a, &port, b, c, d) == 5) {
		int fd = tcp_to(a, (uint16_t)port);
		if (fd < 0) {
			snprintf(ans, cap, "noconnect");
			return;
		}
		char req[1024];
		int n = snprintf(req, sizeof req, "%s %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n", c, d, b);
		(void)!write(fd, req, (size_t)n);
		read_all(fd, ans, cap);
		ans[strcspn(ans, "\r")] = '\0';
		close(fd);
	} else if (sscanf(cmd, "ws %63s %u %255s", a, &port, d) == 3) {
		/* a WebSocket handshake for path d, then (after the answer's head) a binary frame and the
		 * text of a request naming another host; the answer's status line and what followed it */
		int fd = tcp_to(a, (uint16_t)port);
		if (fd < 0) {
			snprintf(ans, cap, "noconnect");
			return;
		}
		char req[512], head[1024];
		int n = snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: web.example.test\r\nUpgrade: websocket\r\n"
				 "Connection: Upgrade\r\n\r\n", d);
		(void)!write(fd, req, (size_t)n);
		size_t hl = 0;
		while (hl < sizeof head - 1 && !memmem(head, hl, "\r\n\r\n", 4)) {
			ssize_t r = recv(fd, head + hl, sizeof head - 1 - hl, 0);
			if (r <= 0)
				break;
			hl += (size_t)r;
		}
		static const char after[] = "\x82\x05hello" "GET /v1/x HTTP/1.1\r\nHost: other.example.test\r\n\r\n";
		(void)!send(fd, after, sizeof after - 1, MSG_NOSIGNAL);
		shutdown(fd, SHUT_WR);
		char rest[512];
		read_all(fd, rest, sizeof rest);
		head[hl] = '\0';
		char *e = strstr(head, "\r\n\r\n");
		snprintf(ans, cap, "%.*s|%s", (int)strcspn(head, "\r"), head, e ? e + 4 : "");
		size_t al = strlen(ans);
		snprintf(ans + al, cap - al, "%s", rest);
		close(fd);
	} else if (sscanf(cmd, "touchn %63s %u %u", a, &port, &mb) == 3) { /* touch, mb times */
		unsigned ok = 0;
		for (unsigned k = 0; k < mb; k++) {
			int fd = tcp_to(a, (uint16_t)port);
			if (fd >= 0) {
				ok++;
				close(fd);
			}
		}
		snprintf(ans, cap, "closed %u", ok);
	} else if (sscanf(cmd, "touch %63s %u", a, &port) == 2) { /* connect, send nothing, close */
		int fd = tcp_to(a, (uint16_t)port);
		snprintf(ans, cap, fd < 0 ? "noconnect" : "closed");
		if (fd >= 0)
			close(fd);
	} else if (sscanf(cmd, "raw %63s %u", a, &port) == 2) {
		int fd = tcp_to(a, (uint16_t)port);
		if (fd < 0) {
			snprintf(ans, cap, "noconnect");
			return;
		}
		(void)!write(fd, "hello\n", 6);
		read_all(fd, ans, cap);
		close(fd);
	} else if (sscanf(cmd, "bulk %63s %u %u", a, &port, &mb) == 3) {
		struct timespec t0, t1, t2;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		int fd = tcp_to(a, (uint16_t)port);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		if (fd < 0) {
			snprintf(ans, cap, "noconnect");
			return;
		}
		static char blk[1 << 16];
		memcpy(blk, "BULK", 4);
		uint64_t left = (uint64_t)mb << 20;
		while (left) {
			ssize_t w = write(fd, blk, left < sizeof blk ? left : sizeof blk);
			if (w <= 0)
				break;
			left -= (uint64_t)w;
		}
		shutdown(fd, SHUT_WR);
		char tmp[64];
		read_all(fd, tmp, sizeof tmp);
		clock_gettime(CLOCK_MONOTONIC, &t2);
		close(fd);
		snprintf(ans, cap, "%s connect_us=%ld total_ms=%ld", tmp,
			 (t1.tv_sec - t0.tv_sec) * 1000000L + (t1.tv_nsec - t0.tv_nsec) / 1000,
			 (t2.tv_sec - t0.tv_sec) * 1000L + (t2.tv_nsec - t0.tv_nsec) / 1000000L);
	} else if (sscanf(cmd, "dns %255s %u", b, &port) == 2 || sscanf(cmd, "dns6 %255s %u", b, &port) == 2) {
		/* dns: to 127.0.0.53:53; dns6: over IPv6, to [::1]:53 */
		bool v6 = !strncmp(cmd, "dns6 ", 5);
		int fd = socket(v6 ? AF_INET6 : AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		struct sockaddr_storage sa;
		socklen_t sal = sa_of(v6 ? "::1" : "127.0.0.53", 53, &sa);
		uint8_t q[300] = {0x42, 0x42, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0};
		size_t n = 12;
		for (char *lab = strtok(b, "."); lab; lab = strtok(NULL, ".")) {
			q[n++] = (uint8_t)strlen(lab);
			memcpy(q + n, lab, strlen(lab));
			n += strlen(lab);
		}
		q[n++] = 0;
		q[n++] = 0; q[n++] = (uint8_t)port; q[n++] = 0; q[n++] = 1;
		struct timeval tv = {3, 0};
		setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
		sendto(fd, q, n, 0, (struct sockaddr *)&sa, sal);
		uint8_t r[1500];
		struct sockaddr_storage from;
		socklen_t fl = sizeof from;
		ssize_t rl = recvfrom(fd, r, sizeof r, 0, (struct sockaddr *)&from, &fl);
		close(fd);
		if (rl < 12) {
			snprintf(ans, cap, "noanswer");
			return;
		}
		char fa[INET6_ADDRSTRLEN];
		inet_ntop(from.ss_family, from.ss_family == AF_INET6 ? (void *)&((struct sockaddr_in6 *)&from)->sin6_addr
								      : (void *)&((struct sockaddr_in *)&from)->sin_addr,
			  fa, sizeof fa);
		int o = snprintf(ans, cap, "rcode=%d from=%s", r[3] & 0xf, fa);
		unsigned an = (unsigned)r[6] << 8 | r[7];
		size_t off = n; /* the question is echoed */
		for (unsigned i = 0; i < an && off + 12 <= (size_t)rl; i++) {
			unsigned rdl = (unsigned)r[off + 10] << 8 | r[off + 11];
			if ((rdl == 4 || rdl == 16) && off + 12 + rdl <= (size_t)rl) {
				char t[INET6_ADDRSTRLEN];
				inet_ntop(rdl == 4 ? AF_INET : AF_INET6, r + off + 12, t, sizeof t);
				o += snprintf(ans + o, cap - (size_t)o, " %s", t);
			}
			off += 12 + rdl;
		}
	} else if (sscanf(cmd, "ptls %255s %u %63s", b, &port, c) == 3) {
		/* through the HTTP proxy: CONNECT, then a ClientHello naming c */
		int fd = tcp_to("127.0.0.1", ns_proxy_port);
		if (fd < 0) {
			snprintf(ans, cap, "noconnect");
			return;
		}
		char req[512], head[1024];
		int n = snprintf(req, sizeof req, "CONNECT %s:%u HTTP/1.1\r\nHost: %s:%u\r\n\r\n", b, port, b, port);
		(void)!write(fd, req, (size_t)n);
		size_t hl = 0;
		while (hl < sizeof head - 1 && !(hl >= 4 && !memcmp(head + hl - 4, "\r\n\r\n", 4))) {
			ssize_t r = recv(fd, head + hl, 1, 0);
			if (r <= 0)
				break;
			hl++;
		}
		head[hl] = '\0';
		head[strcspn(head, "\r")] = '\0';
		char rest[512] = "";
		if (!strncmp(head, "HTTP/1.1 200", 12)) {
			uint8_t ch[1024];
			size_t cl = tls_hello(ch, c, 0);
			(void)!write(fd, ch, cl);
			read_all(fd, rest, sizeof rest);
		}
		snprintf(ans, cap, "%s|%s", head, rest);
		close(fd);
	} else if (sscanf(cmd, "pipe %63s %u %255s %u", a, &port, b, &mb) == 4) {
		/* two requests in one write: the second with Host b (mb = 1: the second inside the first's
		 * body, framed by Content-Length) */
		int fd = tcp_to(a, (uint16_t)port);
		if (fd < 0) {
			snprintf(ans, cap, "noconnect");
			return;
		}
		char second[512], req[1024];
		int sl = snprintf(second, sizeof second, "GET /v1/b HTTP/1.1\r\nHost: %s\r\n\r\n", b);
		int n = mb ? snprintf(req, sizeof req, "GET /v1/pipe HTTP/1.1\r\nHost: web.example.test\r\n"
					 "Content-Length: %d\r\n\r\n%s", sl, second)
			   : snprintf(req, sizeof req, "GET /v1/pipe HTTP/1.1\r\nHost: web.example.test\r\n\r\n%s", second);
		(void)!write(fd, req, (size_t)n);
		shutdown(fd, SHUT_WR);
		read_all(fd, ans, cap);
		ans[strcspn(ans, "\r")] = '\0';
		close(fd);
	} else if (sscanf(cmd, "pget %255s %255s", b, d) == 2) {
		/* through the HTTP proxy: an absolute-URI request */
		int fd = tcp_to("127.0.0.1", ns_proxy_port);
		if (fd < 0) {
			snprintf(ans, cap, "noconnect");
			return;
		}
		char req[1024];
		int n = snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n", b, d);
		(void)!write(fd, req, (size_t)n);
		read_all(fd, ans, cap);
		ans[strcspn(ans, "\r")] = '\0';
		close(fd);
	} else if (sscanf(cmd, "dnstcp %255s %u", b, &port) == 2) {
		int fd = tcp_to("127.0.0.53", 53);
		if (fd < 0) {
			snprintf(ans, cap, "noconnect");
			return;
		}
		uint8_t q[300] = {0, 0, 0x43, 0x43, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0};
		size_t n = 14;
		for (char *lab = strtok(b, "."); lab; lab = strtok(NULL, ".")) {
			q[n++] = (uint8_t)strlen(lab);
			memcpy(q + n, lab, strlen(lab));
			n += strlen(lab);
		}
		q[n++] = 0;
		q[n++] = 0; q[n++] = (uint8_t)port; q[n++] = 0; q[n++] = 1;
		q[0] = (uint8_t)((n - 2) >> 8);
		q[1] = (uint8_t)(n - 2);
		(void)!write(fd, q, n);
		uint8_t r[600];
		size_t rl = 0;
		for (ssize_t k; rl < sizeof r && (k = recv(fd, r + rl, sizeof r - rl, 0)) > 0;)
			rl += (size_t)k;
		close(fd);
		if (rl < 2 + 12) {
			snprintf(ans, cap, "noanswer");
			return;
		}
		unsigned an = (unsigned)r[2 + 6] << 8 | r[2 + 7];
		int o = snprintf(ans, cap, "rcode=%d", r[2 + 3] & 0xf);
		size_t off = n; /* length prefix + header + question, echoed */
		for (unsigned i = 0; i < an && off + 12 <= rl; i++) {
			unsigned rdl = (unsigned)r[off + 10] << 8 | r[off + 11];
			if (rdl == 4 && off + 16 <= rl) {
				char t[32];
				inet_ntop(AF_INET, r + off + 12, t, sizeof t);
				o += snprintf(ans + o, cap - (size_t)o, " %s", t);
			}
			off += 12 + rdl;
		}
	} else if (sscanf(cmd, "udp %63s %u %255[^\n]", a, &port, b) == 3) {
		/* one socket, one datagram per space-separated payload, each reply awaited (1 s) */
		struct sockaddr_storage ss;
		socklen_t sl = sa_of(a, (uint16_t)port, &ss);
		int fd = socket(ss.ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		struct timeval tv = {1, 0};
		setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
		size_t o = 0;
		ans[0] = '\0';
		for (char *save = NULL, *pl = strtok_r(b, " ", &save); pl; pl = strtok_r(NULL, " ", &save)) {
			(void)sendto(fd, pl, strlen(pl), 0, (struct sockaddr *)&ss, sl);
			char r[512];
			struct sockaddr_storage from;
			socklen_t fl = sizeof from;
			ssize_t rl = recvfrom(fd, r, sizeof r - 1, 0, (struct sockaddr *)&from, &fl);
			if (rl < 0) {
				o += (size_t)snprintf(ans + o, cap - o, "%snoanswer", o ? "|" : "");
				continue;
			}
			r[rl] = '\0';
			char fa[64];
			inet_ntop(from.ss_family, from.ss_family == AF_INET ? (void *)&((struct sockaddr_in *)&from)->sin_addr
									      : (void *)&((struct sockaddr_in6 *)&from)->sin6_addr,
				  fa, sizeof fa);
			o += (size_t)snprintf(ans + o, cap - o, "%s%s:%u %s", o ? "|" : "", fa,
					      ntohs(((struct sockaddr_in *)&from)->sin_port), r);
		}
		close(fd);
	} else {
		snprintf(ans, cap, "?");
	}
}

static uint16_t port_of(int fd)
{
	struct sockaddr_in sa;
	socklen_t sl = sizeof sa;
	return getsockname(fd, (struct sockaddr *)&sa, &sl) == 0 ? ntohs(sa.sin_port) : 0;
}

/* UDP [::]:53, IPv6 only (the run's namespace makes the same). */
static int udp6_53(void)
{
	int fd = socket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0), one = 1;
	struct sockaddr_in6 sa = {.sin6_family = AF_INET6, .sin6_port = htons(53)};
	if (fd < 0 || setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof one) < 0 ||
	    bind(fd, (struct sockaddr *)&sa, sizeof sa) < 0) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

static void child_main(int sock, bool userns)
{
	int fds[NFDS] = {-1, -1, -1, -1, -1, -1, -1, -1, -1};
	if (gwns_enter(userns) == 0) {
		fds[0] = gwns_listener(P_TLS, false);
		fds[1] = gwns_listener(P_HTTP, false);
		fds[2] = gwns_listener(P_RAW, false);
		fds[3] = gwns_listener(0, true);   /* DNS, UDP 53 */
		fds[4] = gwns_listener(0, false);  /* the HTTP proxy */
		fds[5] = gwns_listener(53, false); /* DNS over TCP */
		fds[6] = gwns_listener(0, false);  /* where the REDIRECT rule sends */
		fds[7] = listen_on("::", P_V6, NULL); /* IPv6, any address */
		fds[8] = udp6_53();                   /* DNS over IPv6, UDP [::]:53 */
	}
	for (int i = 0; i < NFDS; i++)
		if (fds[i] < 0) {
			(void)!write(sock, "x", 1);
			_exit(1);
		}
	ns_proxy_port = port_of(fds[4]);
	ns_redir_port = port_of(fds[6]);
	/* an nftables REDIRECT of one destination to the transparent listener (SO_ORIGINAL_DST), made
	 * with libnftables (a build dependency; no nft or iptables command needed) */
	char rule[320];
	snprintf(rule, sizeof rule,
		 "table ip gwtest {\n chain out {\n  type nat hook output priority -100; policy accept;\n"
		 "  ip daddr 127.0.0.5 tcp dport %u redirect to :%u\n }\n}\n", P_RED, ns_redir_port);
	struct nft_ctx *nft = nft_ctx_new(NFT_CTX_DEFAULT);
	int sr = -1;
	if (nft) {
		nft_ctx_buffer_output(nft);
		nft_ctx_buffer_error(nft);
		sr = nft_run_cmd_from_buffer(nft, rule);
		if (sr != 0 && getenv("SBX_GW_DEBUG"))
			fprintf(stderr, "# nftables: %s\n", nft_ctx_get_error_buffer(nft));
		nft_ctx_free(nft);
	}
	char redir = sr == 0 ? 'r' : 'n';
	if (gwns_send_fds(sock, fds, NFDS) < 0 || write(sock, &redir, 1) != 1)
		_exit(1);
	for (int i = 0; i < NFDS; i++)
		close(fds[i]);
	char cmd[512], ans[4096];
	for (;;) {
		ssize_t n = recv(sock, cmd, sizeof cmd - 1, 0);
		if (n <= 0)
			_exit(0);
		cmd[n] = '\0';
		unsigned lp;
		if (sscanf(cmd, "listen %u", &lp) == 1) { /* one more listener for another gateway */
			int lfd = gwns_listener((uint16_t)lp, false);
			if (lfd < 0 || gwns_send_fds(sock, &lfd, 1) < 0)
				(void)!send(sock, "x", 1, 0);
			if (lfd >= 0)
				close(lfd);
			continue;
		}
		if (sscanf(cmd, "udplisten %u", &lp) == 1) { /* a UDP socket on the any-address */
			int ufd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
			struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)lp)};
			if (ufd < 0 || bind(ufd, (struct sockaddr *)&sa, sizeof sa) < 0 || gwns_send_fds(sock, &ufd, 1) < 0)
				(void)!send(sock, "x", 1, 0);
			if (ufd >= 0)
				close(ufd);
			continue;
		}
		child_cmd(cmd, ans, sizeof ans);
		(void)!send(sock, ans, strlen(ans), 0);
	}
}

static void ask(const char *cmd, char *ans, size_t cap)
{
	assert_true(send(ns_cmd, cmd, strlen(cmd), 0) > 0);
	ssize_t n = recv(ns_cmd, ans, cap - 1, 0);
	assert_true(n > 0);
	ans[n] = '\0';
}

/* ---- audit ---------------------------------------------------------------------------------- */

static void drain(void)
{
	usleep(100 * 1000);
	assert_int_equal(sbx_gw_drain_calls(gw_report, &au, NULL, 0), 0);
}

static size_t audit_count(const char *a, const char *b, const char *c);

/* A line of the audit file holding every one of the NULL-terminated fragments. */
static bool audit_has(const char *frag, ...)
{
	drain();
	FILE *f = fopen(auditf, "r");
	assert_non_null(f);
	char line[8192];
	bool found = false;
	while (!found && fgets(line, sizeof line, f)) {
		found = strstr(line, frag) != NULL;
		va_list ap;
		va_start(ap, frag);
		for (const char *s; found && (s = va_arg(ap, const char *));)
			found = strstr(line, s) != NULL;
		va_end(ap);
	}
	fclose(f);
	return found;
}

static void write_hosts(const char *text)
{
	char tmp[160];
	snprintf(tmp, sizeof tmp, "%s.new", hosts);
	FILE *f = fopen(tmp, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	chmod(tmp, 0644);
	assert_int_equal(rename(tmp, hosts), 0);
}

static int setup(void **st)
{
	(void)st;
	snprintf(dir, sizeof dir, "/tmp/sbxsup-gwtest.XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	chmod(dir, 0755); /* the gateway gives up root: it reads the hosts file as nobody */
	snprintf(hosts, sizeof hosts, "%s/hosts", dir);
	snprintf(auditf, sizeof auditf, "%s/audit.jsonl", dir);
	start_server("127.0.0.5", 0, &P_TLS);
	start_server("127.0.0.6", P_TLS, NULL);
	start_server("127.0.0.7", P_TLS, NULL);
	start_server("127.0.0.5", 0, &P_HTTP);
	start_server("127.0.0.8", 0, &P_RAW);
	start_server("127.0.0.5", P_RAW, NULL);
	start_server("127.0.0.5", 0, &P_RED);
	start_server("::1", 0, &P_V6);
	write_hosts("127.0.0.5 api.example.test 30\n127.0.0.5 web.example.test 30\n"
		    "127.0.0.7 a.wild.test 30\n127.0.0.5 rot.example.test 1\n127.0.0.5 other.example.test 30\n"
		    "::1 api6.example.test 30\n");
	setenv("SBXSUP_GW_HOSTS", hosts, 1);

	int sp[2];
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sp) < 0)
		return -1;
	int fds[NFDS], nfds = 0;
	char b[8];
	for (int attempt = 0; attempt < 2 && nfds != NFDS; attempt++) {
		bool userns = attempt == 1 || geteuid() != 0;
		ns_pid = fork();
		if (ns_pid == 0) {
			close(sp[0]);
			child_main(sp[1], userns);
		}
		ssize_t n = sbx_recv_fds(sp[0], b, sizeof b, fds, NFDS, &nfds, NULL);
		if (n == 1 && nfds == NFDS) {
			have_redirect = read(sp[0], b, 1) == 1 && b[0] == 'r';
			break;
		}
		waitpid(ns_pid, NULL, 0);
		nfds = 0;
		if (geteuid() != 0)
			break;
	}
	close(sp[1]);
	start_servers(); /* (after the fork: see start_server) */
	if (nfds != NFDS) {
		skip_why = "no network namespace can be made here (unshare CLONE_NEWNET, with or without a user namespace)";
		return 0;
	}
	ns_cmd = sp[0];

	char manifest[2048], err[256];
	snprintf(manifest, sizeof manifest,
		 "{\"sbxsup\":1,\"name\":\"gw\",\"capabilities\":["
		 "{\"cap\":\"network:https\",\"hosts\":[\"api.example.test:%u\",\"*.wild.test:%u\",\"rot.example.test:%u\",\"api.example.test:%u\",\"api6.example.test:%u\"]},"
		 "{\"cap\":\"network:http\",\"hosts\":[{\"host\":\"web.example.test:%u\",\"methods\":[\"GET\"],\"paths\":[\"/v1/\"]}]},"
		 "{\"cap\":\"network:tcp\",\"hosts\":[\"127.0.0.8:%u\"]}]}",
		 P_TLS, P_TLS, P_TLS, P_RED, P_V6, P_HTTP, P_RAW);
	struct mf_ctx ctx = {.home = dir, .workspace = dir, .uid = getuid()};
	struct manifest *m = NULL;
	struct mf_errors e = {0};
	if (manifest_parse(manifest, strlen(manifest), "gw.json", &ctx, &m, &e) < 0) {
		for (size_t i = 0; i < e.n; i++)
			fprintf(stderr, "# %s\n", e.msg[i]);
		return -1;
	}
	struct sbx_gw_spec spec;
	sbx_gw_spec_init(&spec);
	if (sbx_gw_spec_from_manifest(&spec, m, err, sizeof err) < 0)
		return -1;
	manifest_free(m);
	mf_errors_free(&e);
	int rp[2];
	if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, rp) < 0)
		return -1;
	const char *exe = getenv("SBXSUP");
	spec.exe = exe && *exe ? exe : "build/sbxsup";
	spec.dst_mode = SBX_GW_DST_ORIGDST; /* tcp_fd: behind the REDIRECT rule */
	spec.tcp_fd = fds[6];
	spec.proxy_fd = fds[4];
	spec.dns_tcp_fd = fds[5];
	spec.port_fds[0] = fds[0];
	spec.port_fds[1] = fds[1];
	spec.port_fds[2] = fds[2];
	spec.port_fds[3] = fds[7];
	spec.nport_fds = 4;
	spec.dns_fd = fds[3];
	spec.dns6_fd = fds[8];
	spec.report_fd = rp[1];
	if (sbx_gw_spawn(&spec, &gw_pid, err, sizeof err) < 0) {
		fprintf(stderr, "# %s\n", err);
		return -1;
	}
	sbx_gw_spec_free(&spec);
	for (int i = 0; i < NFDS; i++)
		close(fds[i]);
	close(rp[1]);
	gw_report = rp[0];
	if (audit_open(&au, auditf, "gw", err, sizeof err) < 0)
		return -1;
	return 0;
}

static int teardown(void **st)
{
	(void)st;
	if (gw_pid > 0)
		sbx_gw_stop(gw_pid, 2000, &(struct sbx_gw_sink){.fd = gw_report, .a = &au});
	if (ns_pid > 0) {
		close(ns_cmd);
		kill(ns_pid, SIGKILL);
		waitpid(ns_pid, NULL, 0);
	}
	if (gw_report >= 0) {
		sbx_gw_drain(gw_report, &au, NULL);
		audit_close(&au);
	}
	const char *keep = getenv("SBX_GW_AUDIT_COPY"); /* gateway.sh checks the stream afterwards */
	if (keep && *keep && rename(auditf, keep) < 0)
		fprintf(stderr, "# cannot keep the audit file as %s\n", keep);
	if (getenv("SBX_GW_KEEP") == NULL) {
		unlink(hosts);
		unlink(auditf);
		rmdir(dir);
	}
	return 0;
}

#define NEED_NS() do { if (skip_why) { fprintf(stderr, "# SKIP: %s\n", skip_why); skip(); } } while (0)

static void t_dns_granted(void **st)
{
	(void)st;
	NEED_NS();
	char a[512];
	ask("dns api.example.test 1", a, sizeof a);
	assert_string_equal(a, "rcode=0 from=127.0.0.53 127.0.0.5");
	ask("dns api.example.test 28", a, sizeof a); /* AAAA: no IPv6 answer, not an error */
	assert_string_equal(a, "rcode=0 from=127.0.0.53");
	/* a name resolved on the host side for the run is recorded, once (info) */
	assert_true(audit_has("\"event\":\"dns.answer\"", "\"src\":\"gateway\"", "\"name\":\"api.example.test\"",
			      "\"qtype\":1", "\"addr\":\"127.0.0.5\"", "\"sev\":\"info\"", NULL));
	assert_int_equal(audit_count("\"event\":\"dns.answer\"", "\"name\":\"api.example.test\"", "\"qtype\""), 1);
}

static void t_dns_deny(void **st)
{
	(void)st;
	NEED_NS();
	char a[512];
	ask("dns evil.example.test 1", a, sizeof a);
	assert_string_equal(a, "rcode=5 from=127.0.0.53");
	assert_true(audit_has("\"event\":\"dns.deny\"", "\"src\":\"gateway\"", "\"name\":\"evil.example.test\"",
			      "\"qtype\":1", "\"sev\":\"medium\"", NULL));
	/* a wildcard grant is not its own apex */
	ask("dns wild.test 1", a, sizeof a);
	assert_string_equal(a, "rcode=5 from=127.0.0.53");
}

static void t_tls_sni(void **st)
{
	(void)st;
	NEED_NS();
	char a[4096], cmd[128];
	snprintf(cmd, sizeof cmd, "tls 127.0.0.5 %u api.example.test", P_TLS);
	ask(cmd, a, sizeof a);
	assert_string_equal(a, "SRV-OK\n");
	const struct seen *s = seen_last("127.0.0.5");
	assert_non_null(s);
	char sni[GW_NAME_MAX];
	assert_int_equal(gw_tls_sni((const uint8_t *)s->first, s->len, sni), GW_OK);
	assert_string_equal(sni, "api.example.test"); /* what the server saw */

	/* the same address, another name (granted nowhere, though it resolves there): refused */
	size_t before = seen_count();
	snprintf(cmd, sizeof cmd, "tls 127.0.0.5 %u other.example.test", P_TLS);
	ask(cmd, a, sizeof a);
	assert_true(!strcmp(a, "reset") || !strcmp(a, "eof"));
	usleep(200 * 1000);
	assert_int_equal(seen_count(), before); /* nothing reached any server */
	assert_true(audit_has("\"event\":\"net.deny\"", "\"host\":\"api.example.test\"", "\"addr\":\"127.0.0.5\"",
			      "\"peer\":\"other.example.test\"", "\"reason\":\"name-not-granted\"", "\"sev\":\"high\"", NULL));
}

static void t_http_host(void **st)
{
	(void)st;
	NEED_NS();
	char a[4096], cmd[160];
	snprintf(cmd, sizeof cmd, "http 127.0.0.5 %u web.example.test GET /v1/items", P_HTTP);
	ask(cmd, a, sizeof a);
	assert_string_equal(a, "HTTP/1.1 200 OK");
	const struct seen *s = seen_last("127.0.0.5");
	assert_non_null(s);
	assert_non_null(memmem(s->first, s->len, "Host: web.example.test", 22));

	size_t before = seen_count();
	snprintf(cmd, sizeof cmd, "http 127.0.0.5 %u other.example.test GET /v1/items", P_HTTP);
	ask(cmd, a, sizeof a);
	assert_string_equal(a, "HTTP/1.1 403 Forbidden");
	assert_true(audit_has("\"event\":\"net.deny\"", "\"peer\":\"other.example.test\"", "\"reason\":\"name-not-granted\"", NULL));
	/* HTTP rules: method and path prefix, no way around the prefix with dot segments */
	snprintf(cmd, sizeof cmd, "http 127.0.0.5 %u web.example.test POST /v1/items", P_HTTP);
	ask(cmd, a, sizeof a);
	assert_string_equal(a, "HTTP/1.1 403 Forbidden");
	snprintf(cmd, sizeof cmd, "http 127.0.0.5 %u web.example.test GET /v1/../admin", P_HTTP);
	ask(cmd, a, sizeof a);
	assert_string_equal(a, "HTTP/1.1 403 Forbidden");
	snprintf(cmd, sizeof cmd, "http 127.0.0.5 %u web.example.test GET /admin", P_HTTP);
	ask(cmd, a, sizeof a);
	assert_string_equal(a, "HTTP/1.1 403 Forbidden");
	usleep(200 * 1000);
	assert_int_equal(seen_count(), before);
	assert_true(audit_has("\"event\":\"net.deny\"", "\"peer\":\"web.example.test\"", "\"reason\":\"http-rule\"", NULL));
}

/* Every request of a plain-HTTP connection is checked, not only the first: no fronting by a second
 * request on a kept-alive connection; a body that looks like a request is a body. */
static void t_http_keepalive(void **st)
{
	(void)st;
	NEED_NS();
	char a[4096], cmd[160];
	snprintf(cmd, sizeof cmd, "pipe 127.0.0.5 %u web.example.test 0", P_HTTP);
	ask(cmd, a, sizeof a);
	assert_string_equal(a, "HTTP/1.1 200 OK");
	const struct seen *s = seen_last("127.0.0.5");
	assert_non_null(memmem(s->first, s->len, "GET /v1/b HTTP/1.1\r\nHost: web.example.test", 42));

	snprintf(cmd, sizeof cmd, "pipe 127.0.0.5 %u other.example.test 0", P_HTTP);
	ask(cmd, a, sizeof a);
	s = seen_last("127.0.0.5");
	assert_non_null(memmem(s->first, s->len, "GET /v1/pipe", 12));
	assert_null(memmem(s->first, s->len, "other.example.test", 18)); /* the second never left */
	assert_true(audit_has("\"event\":\"net.deny\"", "\"host\":\"web.example.test\"", "\"peer\":\"other.example.test\"",
			      "\"reason\":\"name-not-granted\"", NULL));

	snprintf(cmd, sizeof cmd, "pipe 127.0.0.5 %u other.example.test 1", P_HTTP);
	ask(cmd, a, sizeof a);
	assert_string_equal(a, "HTTP/1.1 200 OK");
	s = seen_last("127.0.0.5");
	assert_non_null(memmem(s->first, s->len, "Host: other.example.test", 24)); /* as the first's body */
}

/* A WebSocket upgrade on plain HTTP: after the server's 101 the relay carries the rest unchecked
 * (the frames are not HTTP); without a 101 the client's next request is checked as ever. */
static void t_websocket(void **st)
{
	(void)st;
	NEED_NS();
	char a[4096], cmd[160];
	snprintf(cmd, sizeof cmd, "ws 127.0.0.5 %u /v1/ws", P_HTTP);
	ask(cmd, a, sizeof a);
	assert_string_equal(a, "HTTP/1.1 101 Switching Protocols|END\n");
	const struct seen *s = seen_last("127.0.0.5");
	assert_non_null(s);
	assert_non_null(memmem(s->first, s->len, "\r\n\r\n\x82\x05hello", 11)); /* the frame, as sent */
	assert_non_null(memmem(s->first, s->len, "Host: other.example.test", 24)); /* its payload is no request */
	assert_true(audit_has("\"event\":\"net.flow\"", "\"host\":\"web.example.test\"", NULL));

	snprintf(cmd, sizeof cmd, "ws 127.0.0.5 %u /v1/noup", P_HTTP);
	ask(cmd, a, sizeof a);
	assert_string_equal(a, "HTTP/1.1 200 OK|okEND\n");
	s = seen_last("127.0.0.5");
	assert_non_null(memmem(s->first, s->len, "GET /v1/noup", 12));
	assert_null(memmem(s->first, s->len, "hello", 5)); /* not HTTP: refused, nothing after it left */
	assert_null(memmem(s->first, s->len, "other.example.test", 18));
	assert_true(audit_has("\"event\":\"net.deny\"", "\"host\":\"web.example.test\"", "\"reason\":\"bad-request\"", NULL));

	/* a server that ends inside its status line: no switch, and the gateway does not spin on it */
	snprintf(cmd, sizeof cmd, "ws 127.0.0.5 %u /v1/short", P_HTTP);
	ask(cmd, a, sizeof a);
	assert_int_equal(strncmp(a, "HTTP/1.1|", 9), 0);
	char statp[64];
	snprintf(statp, sizeof statp, "/proc/%d/stat", (int)gw_pid);
	unsigned long long t[2];
	for (int k = 0; k < 2; k++) {
		FILE *f = fopen(statp, "r");
		assert_non_null(f);
		unsigned long long ut = 0, stt = 0;
		assert_int_equal(fscanf(f, "%*d %*s %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut, &stt), 2);
		fclose(f);
		t[k] = ut + stt;
		if (!k)
			usleep(500 * 1000);
	}
	assert_true(t[1] - t[0] < 20); /* clock ticks (1/100 s) in half a second: idle, not spinning */
}

static void t_wildcard(void **st)
{
	(void)st;
	NEED_NS();
	char a[4096], cmd[128];
	ask("dns a.wild.test 1", a, sizeof a);
	assert_string_equal(a, "rcode=0 from=127.0.0.53 127.0.0.7");
	snprintf(cmd, sizeof cmd, "tls 127.0.0.7 %u a.wild.test", P_TLS);
	ask(cmd, a, sizeof a);
	assert_string_equal(a, "SRV-OK\n");
	const struct seen *s = seen_last("127.0.0.7");
	assert_non_null(s);
	char sni[GW_NAME_MAX];
	assert_int_equal(gw_tls_sni((const uint8_t *)s->first, s->len, sni), GW_OK);
	assert_string_equal(sni, "a.wild.test");
	/* a wildcard's names are the executor's: each one resolved on the host side is in the stream */
	assert_true(audit_has("\"event\":\"dns.answer\"", "\"name\":\"a.wild.test\"", "\"addr\":\"127.0.0.7\"", NULL));
}

static void t_answer_changes(void **st)
{
	(void)st;
	NEED_NS();
	char a[4096], cmd[128];
	ask("dns rot.example.test 1", a, sizeof a);
	assert_string_equal(a, "rcode=0 from=127.0.0.53 127.0.0.5");
	write_hosts("127.0.0.5 api.example.test 30\n127.0.0.5 web.example.test 30\n"
		    "127.0.0.7 a.wild.test 30\n127.0.0.6 rot.example.test 1\n127.0.0.5 other.example.test 30\n"
		    "::1 api6.example.test 30\n");
	usleep(1300 * 1000); /* the answer's TTL (1 s) runs out */
	ask("dns rot.example.test 1", a, sizeof a);
	assert_string_equal(a, "rcode=0 from=127.0.0.53 127.0.0.6");
	snprintf(cmd, sizeof cmd, "tls 127.0.0.6 %u rot.example.test", P_TLS);
	ask(cmd, a, sizeof a);
	assert_string_equal(a, "SRV-OK\n");
	assert_non_null(seen_last("127.0.0.6"));
	assert_true(audit_has("\"event\":\"net.flow\"", "\"host\":\"rot.example.test\"", "\"addr\":\"127.0.0.6\"", NULL));
}

static void t_raw_tcp(void **st)
{
	(void)st;
	NEED_NS();
	char a[4096], cmd[128];
	snprintf(cmd, sizeof cmd, "raw 127.0.0.8 %u", P_RAW); /* an address granted as such */
	ask(cmd, a, sizeof a);
	assert_string_equal(a, "SRV-OK\n");
	const struct seen *s = seen_last("127.0.0.8");
	assert_non_null(s);
	assert_memory_equal(s->first, "hello\n", 6);
	size_t before = seen_count();
	snprintf(cmd, sizeof cmd, "raw 127.0.0.5 %u", P_RAW); /* no name, no address grant */
	ask(cmd, a, sizeof a);
	assert_true(!strcmp(a, "reset") || !strcmp(a, "eof"));
	usleep(200 * 1000);
	assert_int_equal(seen_count(), before);
	assert_true(audit_has("\"event\":\"net.deny\"", "\"addr\":\"127.0.0.5\"", "\"reason\":\"no-name\"", NULL));
}

static void t_flows(void **st)
{
	(void)st;
	NEED_NS();
	char a[4096], cmd[128];
	snprintf(cmd, sizeof cmd, "bulk 127.0.0.8 %u 8", P_RAW);
	ask(cmd, a, sizeof a);
	assert_non_null(strstr(a, "SRV-OK"));
	const struct seen *s = seen_last("127.0.0.8");
	assert_int_equal(s->total, 8u << 20);
	assert_true(audit_has("\"event\":\"net.flow\"", "\"src\":\"gateway\"", "\"host\":\"127.0.0.8\"",
			      "\"bytes_out\":8388608", "\"bytes_in\":7", "\"sev\":\"info\"", NULL));
	assert_true(audit_has("\"event\":\"net.flow\"", "\"host\":\"api.example.test\"", "\"addr\":\"127.0.0.5\"",
			      "\"proto\":\"tcp\"", "\"bytes_in\":7", "\"duration_ms\":", NULL));
}

static void t_proxy(void **st)
{
	(void)st;
	NEED_NS();
	char a[4096], cmd[160];
	snprintf(cmd, sizeof cmd, "ptls api.example.test %u api.example.test", P_TLS);
	ask(cmd, a, sizeof a);
	assert_string_equal(a, "HTTP/1.1 200 Connection established|SRV-OK\n");
	char sni[GW_NAME_MAX];
	const struct seen *s = seen_last("127.0.0.5");
	assert_int_equal(gw_tls_sni((const uint8_t *)s->first, s->len, sni), GW_OK);
	assert_string_equal(sni, "api.example.test");
	size_t before = seen_count();
	/* a CONNECT to a name not granted, and a granted CONNECT carrying another SNI */
	snprintf(cmd, sizeof cmd, "ptls evil.example.test %u x", P_TLS);
	ask(cmd, a, sizeof a);
	assert_string_equal(a, "HTTP/1.1 403 Forbidden|");
	snprintf(cmd, sizeof cmd, "ptls api.example.test %u other.example.test", P_TLS);
	ask(cmd, a, sizeof a);
	assert_true(!strcmp(a, "HTTP/1.1 200 Connection established|reset") ||
		    !strcmp(a, "HTTP/1.1 200 Connection established|eof"));
	usleep(200 * 1000);
	assert_int_equal(seen_count(), before);
	assert_true(audit_has("\"event\":\"net.deny\"", "\"peer\":\"evil.example.test\"", "\"reason\":\"name-not-granted\"", NULL));
	/* an absolute-URI request: Host and the HTTP rules as for a transparent one */
	snprintf(cmd, sizeof cmd, "pget http://web.example.test:%u/v1/x web.example.test:%u", P_HTTP, P_HTTP);
	ask(cmd, a, sizeof a);
	assert_string_equal(a, "HTTP/1.1 200 OK");
	s = seen_last("127.0.0.5");
	assert_non_null(memmem(s->first, s->len, "GET http://web.example.test", 27));
	snprintf(cmd, sizeof cmd, "pget http://web.example.test:%u/admin web.example.test:%u", P_HTTP, P_HTTP);
	ask(cmd, a, sizeof a);
	assert_string_equal(a, "HTTP/1.1 403 Forbidden");
}

static void t_dns_tcp(void **st)
{
	(void)st;
	NEED_NS();
	char a[512];
	ask("dnstcp api.example.test 1", a, sizeof a);
	assert_string_equal(a, "rcode=0 127.0.0.5");
	ask("dnstcp tcp.evil.example.test 1", a, sizeof a);
	assert_string_equal(a, "rcode=5");
	assert_true(audit_has("\"event\":\"dns.deny\"", "\"name\":\"tcp.evil.example.test\"", NULL));
}

/* IPv6 end to end: an AAAA answer, a connection to [::1] inside the run, the host's [::1]. */
static void t_ipv6(void **st)
{
	(void)st;
	NEED_NS();
	char a[4096], cmd[128];
	ask("dns api6.example.test 1", a, sizeof a);
	assert_string_equal(a, "rcode=0 from=127.0.0.53"); /* no IPv4 address: an empty answer */
	ask("dns api6.example.test 28", a, sizeof a); /* AAAA: what the gateway resolved */
	assert_string_equal(a, "rcode=0 from=127.0.0.53 ::1");
	ask("dns evil6.example.test 28", a, sizeof a); /* refused and reported as an A query is */
	assert_string_equal(a, "rcode=5 from=127.0.0.53");
	assert_true(audit_has("\"event\":\"dns.deny\"", "\"name\":\"evil6.example.test\"", "\"qtype\":28",
			      "\"sev\":\"medium\"", NULL));
	/* the same queries sent over IPv6 (to [::1]:53): answered from the address asked */
	ask("dns6 api6.example.test 28", a, sizeof a);
	assert_string_equal(a, "rcode=0 from=::1 ::1");
	ask("dns6 api.example.test 1", a, sizeof a);
	assert_string_equal(a, "rcode=0 from=::1 127.0.0.5");
	ask("dns6 evil7.example.test 28", a, sizeof a);
	assert_string_equal(a, "rcode=5 from=::1");
	assert_true(audit_has("\"event\":\"dns.deny\"", "\"name\":\"evil7.example.test\"", "\"qtype\":28", NULL));
	snprintf(cmd, sizeof cmd, "tls ::1 %u api6.example.test", P_V6);
	ask(cmd, a, sizeof a);
	assert_string_equal(a, "SRV-OK\n");
	const struct seen *s = seen_last("::1");
	assert_non_null(s);
	char sni[GW_NAME_MAX];
	assert_int_equal(gw_tls_sni((const uint8_t *)s->first, s->len, sni), GW_OK);
	assert_string_equal(sni, "api6.example.test");
	size_t before = seen_count();
	snprintf(cmd, sizeof cmd, "tls ::1 %u other.example.test", P_V6);
	ask(cmd, a, sizeof a);
	assert_true(!strcmp(a, "reset") || !strcmp(a, "eof"));
	usleep(200 * 1000);
	assert_int_equal(seen_count(), before);
	assert_true(audit_has("\"event\":\"net.flow\"", "\"host\":\"api6.example.test\"", "\"addr\":\"::1\"", NULL));
	assert_true(audit_has("\"event\":\"net.deny\"", "\"addr\":\"::1\"", "\"peer\":\"other.example.test\"", NULL));
}

/* The transparent listener behind an nftables REDIRECT: SO_ORIGINAL_DST. */
static void t_redirect(void **st)
{
	(void)st;
	NEED_NS();
	if (!have_redirect) {
		fprintf(stderr, "# SKIP: nftables cannot add a REDIRECT rule in the test's namespace\n");
		skip();
	}
	char a[4096], cmd[128];
	size_t before = seen_count();
	snprintf(cmd, sizeof cmd, "tls 127.0.0.5 %u api.example.test", P_RED);
	ask(cmd, a, sizeof a);
	assert_string_equal(a, "SRV-OK\n");
	assert_int_equal(seen_count(), before + 1);
	snprintf(cmd, sizeof cmd, "tls 127.0.0.5 %u other.example.test", P_RED);
	ask(cmd, a, sizeof a);
	assert_true(!strcmp(a, "reset") || !strcmp(a, "eof"));
	usleep(200 * 1000);
	assert_int_equal(seen_count(), before + 1);
	char port[32];
	snprintf(port, sizeof port, "\"port\":%u", P_RED);
	assert_true(audit_has("\"event\":\"net.flow\"", "\"host\":\"api.example.test\"", port, NULL));
}

/* A second gateway on a listener of the namespace's own (`port`, 0: any free one; *lport its
 * port), its report socket in *report. Returns its pid. */
static pid_t second_gateway(uint16_t port, bool net_any, int *report, uint16_t *lport)
{
	char cmd[64], err[256], b[8];
	snprintf(cmd, sizeof cmd, "listen %u", port);
	assert_true(send(ns_cmd, cmd, strlen(cmd), 0) > 0);
	int lfd = -1, nfd = 0;
	assert_int_equal(sbx_recv_fds(ns_cmd, b, sizeof b, &lfd, 1, &nfd, NULL), 1);
	assert_int_equal(nfd, 1);
	*lport = port_of(lfd);
	int rp[2];
	assert_int_equal(socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, rp), 0);
	struct sbx_gw_spec spec;
	sbx_gw_spec_init(&spec);
	const char *exe = getenv("SBXSUP");
	spec.exe = exe && *exe ? exe : "build/sbxsup";
	spec.net_any = net_any;
	spec.port_fds[0] = lfd;
	spec.nport_fds = 1;
	spec.report_fd = rp[1];
	pid_t pid;
	assert_int_equal(sbx_gw_spawn(&spec, &pid, err, sizeof err), 0);
	close(lfd);
	close(rp[1]);
	*report = rp[0];
	return pid;
}

/* Stop it (it must exit, not be killed) and write what it reported into the test's stream. */
static void second_gateway_stop(pid_t pid, int report)
{
	struct sbx_gw_sink sink = {.fd = report, .a = &au};
	assert_true(WIFEXITED(sbx_gw_stop(pid, 2000, &sink)));
	assert_false(sink.failed);
	close(report);
}

/* An unrestricted grant (net_any: autonomy full, or a network capability without hosts): every
 * TCP connection goes to its destination, named or not, and is still recorded. A second gateway. */
static void t_net_any(void **st)
{
	(void)st;
	NEED_NS();
	uint16_t pany = 0, lport;
	start_server("127.0.0.11", 0, &pany);
	start_servers();
	char cmd[128], a[4096];
	int rep;
	pid_t pid = second_gateway(pany, true, &rep, &lport);
	snprintf(cmd, sizeof cmd, "raw 127.0.0.11 %u", pany);
	ask(cmd, a, sizeof a);
	assert_string_equal(a, "SRV-OK\n");
	snprintf(cmd, sizeof cmd, "tls 127.0.0.11 %u anything.example.org", pany);
	ask(cmd, a, sizeof a);
	assert_string_equal(a, "SRV-OK\n");
	const struct seen *s = seen_last("127.0.0.11");
	char sni[GW_NAME_MAX];
	assert_int_equal(gw_tls_sni((const uint8_t *)s->first, s->len, sni), GW_OK);
	assert_string_equal(sni, "anything.example.org");
	second_gateway_stop(pid, rep);
	char port[32];
	snprintf(port, sizeof port, "\"port\":%u", pany);
	assert_true(audit_has("\"event\":\"net.flow\"", "\"addr\":\"127.0.0.11\"", port, "\"bytes_out\":6", NULL));
}

/* Asked to stop while a client's connect and close are still queued (the run's last moments):
 * the gateway decides them before it exits — accepted, read, refused and reported (no-name) — not
 * dropped unreported. The gateway is held stopped (SIGSTOP) while the client connects and leaves,
 * so its stop request and the client's arrive in one poll. */
/* The child's `cmd` (its answer `want`) while the gateway is held stopped (SIGSTOP), then its stop
 * request, so the clients and the request come in one poll; stopped and drained. */
static void stop_after_queued(pid_t pid, int rep, const char *cmd, const char *want)
{
	char a[4096];
	assert_int_equal(kill(pid, SIGSTOP), 0);
	ask(cmd, a, sizeof a);
	assert_string_equal(a, want);
	assert_int_equal(kill(pid, SIGTERM), 0);
	assert_int_equal(kill(pid, SIGCONT), 0);
	second_gateway_stop(pid, rep);
}

static void t_stop_decides_queued(void **st)
{
	(void)st;
	NEED_NS();
	char cmd[128], a[4096];
	uint16_t lport;
	int rep;
	pid_t pid = second_gateway(0, false, &rep, &lport);
	/* serving (its loop answers): one refused at once */
	snprintf(cmd, sizeof cmd, "raw 127.0.0.5 %u", lport);
	ask(cmd, a, sizeof a);
	assert_true(!strcmp(a, "reset") || !strcmp(a, "eof"));
	snprintf(cmd, sizeof cmd, "touch 127.0.0.6 %u", lport);
	stop_after_queued(pid, rep, cmd, "closed");
	char port[32];
	snprintf(port, sizeof port, "\"port\":%u", lport);
	assert_true(audit_has("\"event\":\"net.deny\"", "\"addr\":\"127.0.0.6\"", port, "\"reason\":\"no-name\"", NULL));
}

/* More records than the report socket holds, all at the run's end (300 clients queued while the
 * gateway is held stopped, each refused no-name when it is asked to stop): the gateway waits for
 * room instead of dropping them, and the stop reads them as they come — every refusal is in the
 * stream (the old gateway sent without waiting and the stop read only after its exit: about two
 * hundred fit, the rest were lost unreported). */
static void t_stop_records_burst(void **st)
{
	(void)st;
	NEED_NS();
	char cmd[128];
	uint16_t lport;
	int rep;
	pid_t pid = second_gateway(0, false, &rep, &lport);
	snprintf(cmd, sizeof cmd, "touchn 127.0.0.8 %u 300", lport);
	stop_after_queued(pid, rep, cmd, "closed 300");
	char port[32];
	snprintf(port, sizeof port, "\"port\":%u", lport);
	assert_int_equal(audit_count("\"event\":\"net.deny\"", "\"addr\":\"127.0.0.8\"", port), 300);
}

/* ---- UDP ------------------------------------------------------------------------------------ */

struct udp_echo { int fd; _Atomic unsigned got; };

static void *udp_echo(void *arg)
{
	struct udp_echo *e = arg;
	for (;;) {
		char b[600];
		struct sockaddr_storage from;
		socklen_t fl = sizeof from;
		ssize_t n = recvfrom(e->fd, b + 5, sizeof b - 5, 0, (struct sockaddr *)&from, &fl);
		if (n < 0)
			return NULL;
		e->got++;
		memcpy(b, "ECHO:", 5);
		(void)sendto(e->fd, b, (size_t)n + 5, 0, (struct sockaddr *)&from, fl);
	}
}

static struct udp_echo *udp_server(const char *addr, uint16_t port, uint16_t *got)
{
	struct udp_echo *e = calloc(1, sizeof *e);
	struct sockaddr_storage ss;
	socklen_t sl = sa_of(addr, port, &ss);
	e->fd = socket(ss.ss_family, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	assert_int_equal(bind(e->fd, (struct sockaddr *)&ss, sl), 0);
	getsockname(e->fd, (struct sockaddr *)&ss, &sl);
	if (got)
		*got = ntohs(((struct sockaddr_in *)&ss)->sin_port);
	pthread_t t;
	pthread_create(&t, NULL, udp_echo, e);
	pthread_detach(t);
	return e;
}

static int udp_listener_in_ns(uint16_t port)
{
	char cmd[64], b[8];
	snprintf(cmd, sizeof cmd, "udplisten %u", port);
	assert_true(send(ns_cmd, cmd, strlen(cmd), 0) > 0);
	int fd = -1, nfd = 0;
	assert_int_equal(sbx_recv_fds(ns_cmd, b, sizeof b, &fd, 1, &nfd, NULL), 1);
	assert_int_equal(nfd, 1);
	return fd;
}

static size_t audit_count(const char *a, const char *b, const char *c)
{
	drain();
	FILE *f = fopen(auditf, "r");
	assert_non_null(f);
	char line[8192];
	size_t n = 0;
	while (fgets(line, sizeof line, f))
		n += strstr(line, a) && strstr(line, b) && strstr(line, c);
	fclose(f);
	return n;
}

/* A network:udp grant: datagrams to the address the gateway resolved for the granted name and port
 * are relayed and answered from that address; another address or another port is dropped and
 * reported once per destination; each flow is recorded with its exact bytes. A grant without a port
 * is refused at validation, naming the manifest path. */
static void t_udp(void **st)
{
	(void)st;
	NEED_NS();
	uint16_t p1 = 0, p2 = 0;
	udp_server("127.0.0.12", 0, &p1);
	struct udp_echo *other = udp_server("127.0.0.13", p1, NULL); /* same port, address not granted */
	struct udp_echo *e2 = udp_server("127.0.0.12", 0, &p2);      /* the granted address, port not granted */
	udp_server("127.0.0.14", p2, NULL);
	FILE *hf = fopen(hosts, "a");
	assert_non_null(hf);
	fputs("127.0.0.12 udp.example.test 30\n127.0.0.14 other.udp.test 30\n", hf);
	fclose(hf);

	char manifest[512], err[256];
	struct mf_ctx ctx = {.home = dir, .workspace = dir, .uid = getuid()};
	struct manifest *m = NULL;
	struct mf_errors me = {0};
	snprintf(manifest, sizeof manifest, "{\"sbxsup\":1,\"name\":\"u\",\"capabilities\":["
		 "{\"cap\":\"network:udp\",\"hosts\":[\"udp.example.test\"]}]}");
	assert_true(manifest_parse(manifest, strlen(manifest), "u.json", &ctx, &m, &me) < 0);
	assert_true(me.n >= 1);
	assert_non_null(strstr(me.msg[0], "capabilities[0].hosts[0]"));
	assert_non_null(strstr(me.msg[0], "needs a port"));
	mf_errors_free(&me);
	memset(&me, 0, sizeof me);
	snprintf(manifest, sizeof manifest, "{\"sbxsup\":1,\"name\":\"u\",\"capabilities\":["
		 "{\"cap\":\"network:udp\",\"hosts\":[\"udp.example.test:%u\",\"other.udp.test:%u\"]}]}", p1, p2);
	assert_int_equal(manifest_parse(manifest, strlen(manifest), "u.json", &ctx, &m, &me), 0);
	struct sbx_gw_spec spec;
	sbx_gw_spec_init(&spec);
	assert_int_equal(sbx_gw_spec_from_manifest(&spec, m, err, sizeof err), 0);
	manifest_free(m);
	mf_errors_free(&me);
	int u1 = udp_listener_in_ns(p1), u2 = udp_listener_in_ns(p2);
	int rp[2];
	assert_int_equal(socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, rp), 0);
	const char *exe = getenv("SBXSUP");
	spec.exe = exe && *exe ? exe : "build/sbxsup";
	spec.udp_fds[0] = u1;
	spec.udp_fds[1] = u2;
	spec.nudp_fds = 2;
	spec.report_fd = rp[1];
	pid_t pid;
	assert_int_equal(sbx_gw_spawn(&spec, &pid, err, sizeof err), 0);
	sbx_gw_spec_free(&spec);
	close(u1);
	close(u2);
	close(rp[1]);

	char cmd[160], a[1024], want[256];
	snprintf(cmd, sizeof cmd, "udp 127.0.0.12 %u ping1 ping22", p1);
	ask(cmd, a, sizeof a);
	snprintf(want, sizeof want, "127.0.0.12:%u ECHO:ping1|127.0.0.12:%u ECHO:ping22", p1, p1);
	assert_string_equal(a, want); /* answered, from the address the program sent to */
	/* not granted: another address on the port, the granted name's address on another port */
	snprintf(cmd, sizeof cmd, "udp 127.0.0.13 %u x1 x2 x3", p1);
	ask(cmd, a, sizeof a);
	assert_string_equal(a, "noanswer|noanswer|noanswer");
	snprintf(cmd, sizeof cmd, "udp 127.0.0.12 %u y", p2);
	ask(cmd, a, sizeof a);
	assert_string_equal(a, "noanswer");
	assert_int_equal(other->got, 0); /* host-side evidence: nothing reached them */
	assert_int_equal(e2->got, 0);

	struct sbx_gw_sink sink = {.fd = rp[0], .a = &au};
	assert_true(WIFEXITED(sbx_gw_stop(pid, 2000, &sink)));
	assert_false(sink.failed);
	close(rp[0]);
	char port[32];
	snprintf(port, sizeof port, "\"port\":%u", p1);
	assert_true(audit_has("\"event\":\"net.flow\"", "\"host\":\"udp.example.test\"", "\"addr\":\"127.0.0.12\"",
			      port, "\"proto\":\"udp\"", "\"bytes_out\":11,", "\"bytes_in\":21,", NULL));
	/* three datagrams to one refused destination: one event (rate-limited per destination) */
	assert_int_equal(audit_count("\"event\":\"net.deny\"", "\"addr\":\"127.0.0.13\"", "\"proto\":\"udp\""), 1);
	assert_true(audit_has("\"event\":\"net.deny\"", "\"addr\":\"127.0.0.13\"", port, "\"reason\":\"addr-not-granted\"",
			      NULL));
	snprintf(port, sizeof port, "\"port\":%u", p2);
	assert_true(audit_has("\"event\":\"net.deny\"", "\"host\":\"udp.example.test\"", "\"addr\":\"127.0.0.12\"",
			      port, "\"proto\":\"udp\"", NULL));
}

/* The names the gateway resolves are the executor's (every name under a wildcard): the cache holds
 * GW_NAMES_MAX of them and past that the least recently asked makes room, so a flood of distinct
 * names cannot grow the gateway without bound (each entry is ~2 KiB). No namespace needed. */
static void t_names_bounded(void **st)
{
	(void)st;
	char hf[128];
	snprintf(hf, sizeof hf, "%s/names-hosts", dir);
	FILE *f = fopen(hf, "w");
	assert_non_null(f);
	fputs("127.0.0.5 keep.example.test 3600\n", f);
	fclose(f);
	struct gw_names ns = {.hosts_file = hf};
	char name[64];
	assert_non_null(gw_names_get(&ns, "keep.example.test"));
	for (unsigned k = 0; k < GW_NAMES_MAX + 500; k++) {
		snprintf(name, sizeof name, "x%u.wild.test", k);
		assert_non_null(gw_names_get(&ns, name));
		if (k % 64 == 0) /* asked all along: never the least recent */
			assert_int_equal(gw_names_get(&ns, "keep.example.test")->ncur, 1);
	}
	assert_int_equal(ns.n, GW_NAMES_MAX);
	assert_true(ns.cap <= GW_NAMES_MAX);
	bool found_first = false, found_last = false, found_keep = false;
	snprintf(name, sizeof name, "x%u.wild.test", GW_NAMES_MAX + 499);
	for (size_t i = 0; i < ns.n; i++) {
		found_first |= !strcmp(ns.v[i].name, "x0.wild.test");
		found_last |= !strcmp(ns.v[i].name, name);
		found_keep |= !strcmp(ns.v[i].name, "keep.example.test");
	}
	assert_false(found_first); /* the oldest made room */
	assert_true(found_last);
	assert_true(found_keep);
	gw_names_free(&ns);
	unlink(hf);
}

/* A configuration the gateway refuses makes the spawn fail (the run then refuses to start). */
static void t_spawn_fails(void **st)
{
	(void)st;
	struct sbx_gw_spec spec;
	sbx_gw_spec_init(&spec);
	char err[256];
	pid_t pid = 0;
	int rp[2];
	assert_int_equal(socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, rp), 0);
	spec.report_fd = rp[1];
	spec.exe = "/bin/false"; /* not a gateway: never says it is ready */
	assert_int_equal(sbx_gw_spawn(&spec, &pid, err, sizeof err), -1);
	assert_non_null(strstr(err, "gateway failed to start"));
	struct sbx_gw_grant g = {.name = "bad name", .proto = SBX_GW_TCP};
	const char *exe = getenv("SBXSUP");
	spec.exe = exe && *exe ? exe : "build/sbxsup";
	spec.grants = &g; /* a name that could split the configuration */
	spec.ngrants = 1;
	assert_int_equal(sbx_gw_spawn(&spec, &pid, err, sizeof err), -1);
	spec.ngrants = 0;
	spec.report_fd = -1;
	assert_int_equal(sbx_gw_spawn(&spec, &pid, err, sizeof err), -1);
	close(rp[0]);
	close(rp[1]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(t_dns_granted), cmocka_unit_test(t_dns_deny), cmocka_unit_test(t_stop_records_burst),   cmocka_unit_test(t_tls_sni),
		cmocka_unit_test(t_http_host),   cmocka_unit_test(t_http_keepalive), cmocka_unit_test(t_websocket), cmocka_unit_test(t_wildcard),   cmocka_unit_test(t_answer_changes),
		cmocka_unit_test(t_raw_tcp),     cmocka_unit_test(t_proxy),      cmocka_unit_test(t_dns_tcp),
		cmocka_unit_test(t_redirect),    cmocka_unit_test(t_ipv6),    cmocka_unit_test(t_net_any),    cmocka_unit_test(t_stop_decides_queued),    cmocka_unit_test(t_udp),    cmocka_unit_test(t_spawn_fails), cmocka_unit_test(t_names_bounded),
		cmocka_unit_test(t_flows),
	};
	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, setup, teardown);
}
