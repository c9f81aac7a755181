/* gw_bench.c — `make bench` helper: what the network gateway adds. A child in its own network
 * namespace (tests/lib/gw_ns.h) is the client; the server runs in the host's namespace on
 * 127.0.0.9 for the gateway's path and inside the namespace on 127.0.0.1 for the direct path
 * (both loopback). The client's first bytes are a TLS ClientHello naming bench.test (granted, and
 * mapped to 127.0.0.9 by the gateway's test resolver), so the gateway's path includes the name
 * check. Figures, per round:
 *   connect: ms from connect() to the server's one-byte answer to the ClientHello (set-up
 *            latency as a client sees it), the median of CALLS connections;
 *   tput:    MB/s of one MB-megabyte transfer client -> server (until the server's answer).
 * Usage: gw_bench SBXSUP ROUNDS CALLS MB   Output: one JSON line
 *   {"connect_direct":[ms...],"connect_gw":[ms...],"tput_direct":[MB/s...],"tput_gw":[MB/s...]}
 */
#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fdpass.h"
#include "gateway.h"
#include "gw_ns.h"
#include "tls_hello.h"

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* The server: reads the ClientHello; 'L' after it = answer now; else read to EOF, then answer. */
static void *serve(void *arg)
{
	int lfd = (int)(intptr_t)arg;
	static char buf[1 << 20];
	for (;;) {
		int c = accept(lfd, NULL, NULL);
		if (c < 0)
			return NULL;
		uint8_t hello[2048];
		size_t n = 0;
		bool bulk = false;
		for (;;) {
			ssize_t r = recv(c, hello + n, sizeof hello - n, 0);
			if (r <= 0)
				break;
			n += (size_t)r;
			if (n >= 5 && n >= 5u + ((unsigned)hello[3] << 8 | hello[4]) + 1) {
				bulk = hello[5u + ((unsigned)hello[3] << 8 | hello[4])] == 'B';
				break;
			}
		}
		if (bulk)
			while (recv(c, buf, sizeof buf, 0) > 0)
				;
		(void)!write(c, "K", 1);
		close(c);
	}
}

static int listen_on(const char *addr, uint16_t port, uint16_t *got)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	int one = 1;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons(port)};
	inet_pton(AF_INET, addr, &sa.sin_addr);
	if (bind(fd, (struct sockaddr *)&sa, sizeof sa) < 0 || listen(fd, 512) < 0)
		return -1;
	socklen_t sl = sizeof sa;
	getsockname(fd, (struct sockaddr *)&sa, &sl);
	if (got)
		*got = ntohs(sa.sin_port);
	pthread_t t;
	pthread_create(&t, NULL, serve, (void *)(intptr_t)fd);
	pthread_detach(t);
	return fd;
}

/* The gateway's report socket, read and discarded (its records are not what is measured). */
static void *discard(void *arg)
{
	int fd = (int)(intptr_t)arg;
	char buf[4096];
	for (;;) {
		ssize_t n = recv(fd, buf, sizeof buf, 0);
		if (n <= 0 && !(n < 0 && errno == EINTR))
			return NULL;
	}
}

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* One connection: ClientHello + mark (+ MB megabytes), until the answer. ms, or -1. */
static double one(const char *addr, uint16_t port, unsigned mb)
{
	static uint8_t blk[1 << 20];
	uint8_t ch[1024];
	size_t n = tls_hello(ch, "bench.test", 0);
	ch[n++] = mb ? 'B' : 'L';
	double t0 = now_ms();
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons(port)};
	inet_pton(AF_INET, addr, &sa.sin_addr);
	if (connect(fd, (struct sockaddr *)&sa, sizeof sa) < 0 || write(fd, ch, n) != (ssize_t)n) {
		close(fd);
		return -1;
	}
	for (uint64_t left = (uint64_t)mb << 20; left;) {
		ssize_t w = write(fd, blk, left < sizeof blk ? left : sizeof blk);
		if (w <= 0) {
			close(fd);
			return -1;
		}
		left -= (uint64_t)w;
	}
	if (mb)
		shutdown(fd, SHUT_WR);
	char k;
	ssize_t r = read(fd, &k, 1);
	double t = now_ms() - t0;
	close(fd);
	return r == 1 ? t : -1;
}

static void child(int sock, uint16_t pgw, unsigned rounds, unsigned calls, unsigned mb)
{
	int fd = -1;
	if (gwns_enter(geteuid() != 0) == 0)
		fd = gwns_listener(pgw, false);
	uint16_t pd = 0;
	if (fd < 0 || gwns_send_fds(sock, &fd, 1) < 0 || listen_on("127.0.0.1", 0, &pd) < 0)
		_exit(1);
	close(fd);
	char go;
	if (read(sock, &go, 1) != 1)
		_exit(1);
	double *v = calloc(calls, sizeof *v);
	char out[4096];
	int o = 0;
	const char *names[4] = {"connect_direct", "connect_gw", "tput_direct", "tput_gw"};
	double res[4][64];
	for (unsigned r = 0; r < rounds && r < 64; r++) {
		for (int path = 0; path < 2; path++) {
			const char *a = path ? "127.0.0.9" : "127.0.0.1";
			uint16_t p = path ? pgw : pd;
			for (unsigned i = 0; i < calls; i++)
				v[i] = one(a, p, 0);
			qsort(v, calls, sizeof *v, cmp);
			res[path][r] = v[calls / 2];
			double t = one(a, p, mb);
			res[2 + path][r] = t > 0 ? mb / (t / 1e3) : -1;
		}
	}
	o += snprintf(out + o, sizeof out - (size_t)o, "{");
	for (int k = 0; k < 4; k++) {
		o += snprintf(out + o, sizeof out - (size_t)o, "%s\"%s\":[", k ? "," : "", names[k]);
		for (unsigned r = 0; r < rounds && r < 64; r++)
			o += snprintf(out + o, sizeof out - (size_t)o, "%s%.4f", r ? "," : "", res[k][r]);
		o += snprintf(out + o, sizeof out - (size_t)o, "]");
	}
	snprintf(out + o, sizeof out - (size_t)o, "}\n");
	(void)!write(sock, out, strlen(out));
	_exit(0);
}

int main(int argc, char **argv)
{
	if (argc != 5) {
		fprintf(stderr, "usage: gw_bench SBXSUP ROUNDS CALLS MB\n");
		return 2;
	}
	unsigned rounds = (unsigned)atoi(argv[2]), calls = (unsigned)atoi(argv[3]), mb = (unsigned)atoi(argv[4]);
	if (!rounds || !calls)
		return 2;
	signal(SIGPIPE, SIG_IGN);
	char dir[] = "/tmp/sbxsup-gwbench.XXXXXX", hosts[64];
	if (!mkdtemp(dir))
		return 1;
	chmod(dir, 0755);
	snprintf(hosts, sizeof hosts, "%s/hosts", dir);
	FILE *f = fopen(hosts, "w");
	fputs("127.0.0.9 bench.test 3600\n", f);
	fclose(f);
	chmod(hosts, 0644);
	setenv("SBXSUP_GW_HOSTS", hosts, 1);
	uint16_t pgw = 0;
	if (listen_on("127.0.0.9", 0, &pgw) < 0)
		return 1;
	int sp[2];
	socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sp);
	pid_t c = fork();
	if (c == 0) {
		close(sp[0]);
		child(sp[1], pgw, rounds, calls, mb);
	}
	close(sp[1]);
	int fd = -1, nfd = 0, rc = 1;
	char b[4096], err[256];
	pid_t gw = -1;
	int rp[2] = {-1, -1};
	if (sbx_recv_fds(sp[0], b, sizeof b, &fd, 1, &nfd, NULL) != 1 || nfd != 1) {
		fprintf(stderr, "gw_bench: no network namespace\n");
		goto out;
	}
	socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, rp);
	struct sbx_gw_grant g = {.name = "bench.test", .port = pgw, .proto = SBX_GW_TCP, .jpath = "bench"};
	struct sbx_gw_spec spec;
	sbx_gw_spec_init(&spec);
	spec.exe = argv[1];
	spec.grants = &g;
	spec.ngrants = 1;
	spec.dst_mode = SBX_GW_DST_SOCKNAME;
	spec.port_fds[0] = fd;
	spec.nport_fds = 1;
	spec.report_fd = rp[1];
	if (sbx_gw_spawn(&spec, &gw, err, sizeof err) < 0) {
		fprintf(stderr, "gw_bench: %s\n", err);
		goto out;
	}
	close(fd);
	close(rp[1]);
	/* the records are read and dropped here (the gateway waits for room rather than lose one) */
	pthread_t dt;
	if (pthread_create(&dt, NULL, discard, (void *)(intptr_t)rp[0]) == 0)
		pthread_detach(dt);
	(void)!write(sp[0], "g", 1);
	ssize_t n = read(sp[0], b, sizeof b - 1);
	if (n > 0) {
		b[n] = '\0';
		fputs(b, stdout);
		rc = 0;
	}
out:
	if (gw > 0)
		sbx_gw_stop(gw, 2000, NULL);
	kill(c, SIGKILL);
	waitpid(c, NULL, 0);
	unlink(hosts);
	rmdir(dir);
	return rc;
}
