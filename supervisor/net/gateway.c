/* gateway.c — the supervisor's side of the gateway (see gateway.h): the spec from the manifest,
 * spawning and stopping the process, and turning its records into audit events. The process
 * itself is gw_main.c. */
#include "gateway.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "audit.h"
#include "manifest.h"
#include "report.h"

void sbx_gw_spec_init(struct sbx_gw_spec *spec)
{
	memset(spec, 0, sizeof *spec);
	spec->tcp_fd = spec->dns_fd = spec->dns_tcp_fd = spec->proxy_fd = spec->report_fd = spec->dns6_fd = -1;
	for (size_t i = 0; i < SBX_GW_MAX_PORT_FDS; i++)
		spec->port_fds[i] = spec->udp_fds[i] = -1;
	spec->udp_catch_fds[0] = spec->udp_catch_fds[1] = -1;
}

static void grant_free(struct sbx_gw_grant *g)
{
	free(g->name);
	free(g->jpath);
	for (size_t i = 0; i < g->nmethods; i++)
		free(g->methods[i]);
	free(g->methods);
	for (size_t i = 0; i < g->npaths; i++)
		free(g->paths[i]);
	free(g->paths);
	memset(g, 0, sizeof *g);
}

void sbx_gw_spec_free(struct sbx_gw_spec *spec)
{
	for (size_t i = 0; i < spec->ngrants; i++)
		grant_free(&spec->grants[i]);
	free(spec->grants);
	spec->grants = NULL;
	spec->ngrants = 0;
}

static char **strv_copy(char *const *v, size_t n)
{
	char **o = calloc(n ? n : 1, sizeof *o);
	for (size_t i = 0; o && i < n; i++)
		if (!(o[i] = strdup(v[i]))) {
			while (i--)
				free(o[i]);
			free(o);
			return NULL;
		}
	return o;
}

static unsigned proto_of_mode(const char *mode)
{
	if (!mode)
		return SBX_GW_TCP;
	if (!strcmp(mode, "udp"))
		return SBX_GW_UDP;
	if (!strcmp(mode, "any"))
		return SBX_GW_ANYPROTO;
	if (!strcmp(mode, "dns"))
		return 0; /* the name resolves (through the stub); no connection */
	return SBX_GW_TCP;
}

int sbx_gw_spec_from_manifest(struct sbx_gw_spec *spec, const struct manifest *m, char *err,
			      size_t errlen)
{
	sbx_gw_spec_free(spec);
	spec->net_any = m->net_any;
	if (m->nhosts == 0)
		return 0;
	spec->grants = calloc(m->nhosts, sizeof *spec->grants);
	if (!spec->grants)
		goto oom;
	for (size_t i = 0; i < m->nhosts; i++) {
		const struct mf_host *h = &m->hosts[i];
		struct sbx_gw_grant *g = &spec->grants[spec->ngrants++];
		g->port = h->port;
		g->proto = proto_of_mode(h->mode);
		if (h->kind == MF_HOST_NAME) {
			if (!(g->name = strdup(h->name)))
				goto oom;
		} else {
			g->family = h->kind == MF_HOST_V4 ? AF_INET : AF_INET6;
			memcpy(g->addr, h->addr, sizeof g->addr);
			g->prefix = h->prefix;
		}
		if (h->jpath && !(g->jpath = strdup(h->jpath)))
			goto oom;
		if (h->nmethods && !(g->methods = strv_copy(h->methods, h->nmethods)))
			goto oom;
		g->nmethods = h->nmethods;
		if (h->npaths && !(g->paths = strv_copy(h->paths, h->npaths)))
			goto oom;
		g->npaths = h->npaths;
	}
	return 0;
oom:
	snprintf(err, errlen, "gateway: out of memory");
	sbx_gw_spec_free(spec);
	errno = ENOMEM;
	return -1;
}

/* ---- the configuration handed to the process ------------------------------------------------ */

/* One token without spaces or control bytes (names, jpaths, methods and paths are validated by the
 * manifest; this is a second check so a line can never split). */
static int tok_ok(const char *s)
{
	if (!s || !*s)
		return 0;
	for (const unsigned char *p = (const unsigned char *)s; *p; p++)
		if (*p <= 0x20 || *p == 0x7f)
			return 0;
	return 1;
}

static int write_config(FILE *f, const struct sbx_gw_spec *s)
{
	fprintf(f, "sbxgw 1\nany %d\ndst %d\n", s->net_any ? 1 : 0, (int)s->dst_mode);
	fprintf(f, "fd report %d\nfd tcp %d\nfd dns %d\nfd dnstcp %d\nfd proxy %d\nfd dns6 %d\n", s->report_fd,
		s->tcp_fd, s->dns_fd, s->dns_tcp_fd, s->proxy_fd, s->dns6_fd);
	for (size_t i = 0; i < s->nport_fds; i++)
		fprintf(f, "fd port %d\n", s->port_fds[i]);
	for (size_t i = 0; i < s->nudp_fds; i++)
		fprintf(f, "fd udp %d\n", s->udp_fds[i]);
	for (size_t i = 0; i < s->nudp_catch_fds; i++)
		fprintf(f, "fd udpcatch %d\n", s->udp_catch_fds[i]);
	for (size_t i = 0; i < s->ngrants; i++) {
		const struct sbx_gw_grant *g = &s->grants[i];
		char hex[33] = "-";
		if (g->family)
			for (int k = 0; k < 16; k++)
				snprintf(hex + 2 * k, 3, "%02x", g->addr[k]);
		if ((g->name && !tok_ok(g->name)) || (g->jpath && !tok_ok(g->jpath)))
			return -1;
		fprintf(f, "grant %u %u %d %s %u %s %s\n", g->proto, g->port, g->family, hex, g->prefix,
			g->name ? g->name : "-", g->jpath ? g->jpath : "-");
		for (size_t k = 0; k < g->nmethods; k++)
			if (!tok_ok(g->methods[k]) || fprintf(f, "method %s\n", g->methods[k]) < 0)
				return -1;
		for (size_t k = 0; k < g->npaths; k++)
			if (!tok_ok(g->paths[k]) || fprintf(f, "path %s\n", g->paths[k]) < 0)
				return -1;
	}
	fputs("end\n", f);
	return fflush(f) == 0 && !ferror(f) ? 0 : -1;
}

static int keep_fd(int fd)
{
	if (fd < 0)
		return 0;
	int fl = fcntl(fd, F_GETFD);
	return fl < 0 ? -1 : fcntl(fd, F_SETFD, fl & ~FD_CLOEXEC);
}

int sbx_gw_spawn(const struct sbx_gw_spec *spec, pid_t *pid, char *err, size_t errlen)
{
	if (spec->report_fd < 0) {
		snprintf(err, errlen, "gateway: no report socket");
		errno = EINVAL;
		return -1;
	}
	int mfd = memfd_create("sbxsup-gateway", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (mfd < 0) {
		snprintf(err, errlen, "gateway: memfd_create: %s", strerror(errno));
		return -1;
	}
	FILE *f = fdopen(dup(mfd), "w");
	int wr = f ? write_config(f, spec) : -1;
	if (f)
		fclose(f);
	/* (the dup shares the offset: the gateway reads from the start) */
	if (wr < 0 || fcntl(mfd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) < 0 ||
	    lseek(mfd, 0, SEEK_SET) < 0) {
		snprintf(err, errlen, "gateway: cannot write its configuration");
		close(mfd);
		errno = EIO;
		return -1;
	}
	const char *exe = spec->exe ? spec->exe : "/proc/self/exe";
	int exe_fd = open(exe, O_PATH | O_CLOEXEC);
	if (exe_fd < 0) {
		snprintf(err, errlen, "gateway: %s: %s", exe, strerror(errno));
		close(mfd);
		return -1;
	}
	int ready[2];
	if (pipe2(ready, O_CLOEXEC) < 0) {
		snprintf(err, errlen, "gateway: pipe: %s", strerror(errno));
		close(mfd);
		close(exe_fd);
		return -1;
	}
	pid_t p = fork();
	if (p < 0) {
		snprintf(err, errlen, "gateway: fork: %s", strerror(errno));
		close(mfd);
		close(exe_fd);
		close(ready[0]);
		close(ready[1]);
		return -1;
	}
	if (p == 0) {
		/* only the spec's descriptors and the configuration cross the exec */
		(void)syscall(SYS_close_range, 3u, ~0u, 4u /* CLOSE_RANGE_CLOEXEC */);
		int keep[] = {mfd,		ready[1],	spec->report_fd, spec->tcp_fd,
			      spec->dns_fd,	spec->dns6_fd, spec->dns_tcp_fd, spec->proxy_fd};
		for (size_t i = 0; i < sizeof keep / sizeof keep[0]; i++)
			if (keep_fd(keep[i]) < 0)
				_exit(127);
		for (size_t i = 0; i < spec->nport_fds && i < SBX_GW_MAX_PORT_FDS; i++)
			if (keep_fd(spec->port_fds[i]) < 0)
				_exit(127);
		for (size_t i = 0; i < spec->nudp_fds && i < SBX_GW_MAX_PORT_FDS; i++)
			if (keep_fd(spec->udp_fds[i]) < 0)
				_exit(127);
		for (size_t i = 0; i < spec->nudp_catch_fds && i < 2; i++)
			if (keep_fd(spec->udp_catch_fds[i]) < 0)
				_exit(127);
		int devnull = open("/dev/null", O_RDWR);
		if (devnull >= 0) {
			dup2(devnull, 0);
			dup2(devnull, 1);
			if (devnull > 2)
				close(devnull);
		}
		char fdarg[16], rdarg[16];
		snprintf(fdarg, sizeof fdarg, "%d", mfd);
		snprintf(rdarg, sizeof rdarg, "%d", ready[1]);
		char *argv[] = {"sbxsup", "__gateway", fdarg, rdarg, NULL};
		extern char **environ;
		/* the environment passes through only SBXSUP_GW_HOSTS (tests) and the resolver's own */
		char *envp[4];
		size_t ne = 0;
		for (char **e = environ; e && *e && ne < 3; e++)
			if (!strncmp(*e, "SBXSUP_GW_HOSTS=", 16) || !strncmp(*e, "RES_OPTIONS=", 12) ||
			    !strncmp(*e, "LOCALDOMAIN=", 12))
				envp[ne++] = *e;
		envp[ne] = NULL;
		syscall(SYS_execveat, exe_fd, "", argv, envp, AT_EMPTY_PATH);
		_exit(127);
	}
	close(mfd);
	close(exe_fd);
	close(ready[1]);
	/* ready: one byte once the configuration is read and the process locked down; EOF = it died */
	struct pollfd pf = {ready[0], POLLIN, 0};
	char b = 0;
	int pr = poll(&pf, 1, 10000);
	ssize_t got = pr > 0 ? read(ready[0], &b, 1) : -1;
	close(ready[0]);
	if (got != 1 || b != 'R') {
		int st = sbx_gw_stop(p, 100, NULL);
		snprintf(err, errlen, "gateway failed to start%s",
			 st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 2 ? " (configuration refused)"
			 : st >= 0 && WIFEXITED(st) && WEXITSTATUS(st) == 126 ? " (could not lock itself down)"
			 : pr == 0 ? " (no answer in 10 s)" : "");
		errno = ECHILD;
		return -1;
	}
	*pid = p;
	return 0;
}

static long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

int sbx_gw_drain_calls(int fd, struct audit *a, uint64_t *rejected, int calls)
{
	for (int i = 0; calls <= 0 || i < calls; i++) {
		int got = sbx_gw_drain(fd, a, rejected);
		if (got <= 0)
			return got;
	}
	return 0;
}

/* Everything the sink's socket holds now, into the stream. */
static void sink_drain(struct sbx_gw_sink *s)
{
	if (s && s->fd >= 0 && !s->failed && sbx_gw_drain_calls(s->fd, s->a, s->rejected, 0) < 0)
		s->failed = true;
}

int sbx_gw_stop(pid_t pid, int timeout_ms, struct sbx_gw_sink *sink)
{
	if (pid <= 0)
		return -1;
	int st;
	kill(pid, SIGTERM);
	long end = now_ms() + (timeout_ms > 0 ? timeout_ms : 0);
	for (;;) {
		pid_t r = waitpid(pid, &st, WNOHANG);
		if (r == pid) {
			sink_drain(sink);
			return st;
		}
		if (r < 0 && errno != EINTR)
			return -1;
		long left = end - now_ms();
		if (left <= 0)
			break;
		/* what it sends meanwhile is read as it comes: it may wait for room on its socket */
		if (sink && sink->fd >= 0 && !sink->failed) {
			struct pollfd p = {.fd = sink->fd, .events = POLLIN};
			if (poll(&p, 1, left < 5 ? (int)left : 5) > 0)
				sink_drain(sink);
		} else {
			struct timespec ts = {0, 5 * 1000 * 1000};
			nanosleep(&ts, NULL);
		}
	}
	kill(pid, SIGKILL);
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	sink_drain(sink);
	return st;
}

/* ---- records -> events ---------------------------------------------------------------------- */

static void add_addr(cJSON *ev, const struct sbx_net_hdr *h)
{
	char txt[INET6_ADDRSTRLEN] = "";
	if (h->family == AF_INET || h->family == AF_INET6)
		inet_ntop(h->family, h->addr, txt, sizeof txt);
	if (txt[0])
		cJSON_AddStringToObject(ev, "addr", txt);
	if (h->port)
		cJSON_AddNumberToObject(ev, "port", h->port);
}

static int emit(struct audit *a, const struct sbx_net_rec *r)
{
	const struct sbx_net_hdr *h = &r->h;
	static const char *const names[] = {[SBX_NET_DNS_DENY] = "dns.deny", [SBX_NET_DENY] = "net.deny",
					    [SBX_NET_FLOW] = "net.flow", [SBX_NET_DNS_ANSWER] = "dns.answer"};
	const char *name = names[h->kind]; /* (sbx_net_decode accepts these kinds only) */
	cJSON *ev = audit_event(a, name, "gateway");
	if (!ev)
		return -1;
	switch (h->kind) {
	case SBX_NET_DNS_DENY:
		audit_add_str(ev, "name", r->host, SBX_NET_STR_MAX);
		cJSON_AddNumberToObject(ev, "qtype", h->qtype);
		break;
	case SBX_NET_DNS_ANSWER:
		audit_add_str(ev, "name", r->host, SBX_NET_STR_MAX);
		cJSON_AddNumberToObject(ev, "qtype", h->qtype);
		add_addr(ev, h); /* the first address answered; none: the name has no address */
		break;
	case SBX_NET_DENY:
		if (r->host[0])
			audit_add_str(ev, "host", r->host, SBX_NET_STR_MAX);
		add_addr(ev, h);
		cJSON_AddStringToObject(ev, "proto", h->proto == 17 ? "udp" : "tcp");
		if (r->peer[0])
			audit_add_str(ev, "peer", r->peer, SBX_NET_STR_MAX);
		cJSON_AddStringToObject(ev, "reason", sbx_net_reason_name(h->reason));
		break;
	default:
		audit_add_str(ev, "host", r->host[0] ? r->host : "", SBX_NET_STR_MAX);
		add_addr(ev, h);
		cJSON_AddStringToObject(ev, "proto", h->proto == 17 ? "udp" : "tcp");
		cJSON_AddNumberToObject(ev, "bytes_out", (double)h->bytes_out);
		cJSON_AddNumberToObject(ev, "bytes_in", (double)h->bytes_in);
		cJSON_AddNumberToObject(ev, "duration_ms", h->duration_ms);
		break;
	}
	return audit_emit(a, ev);
}

int sbx_gw_drain(int fd, struct audit *a, uint64_t *rejected)
{
	int i;
	for (i = 0; i < 256; i++) {
		_Alignas(8) unsigned char buf[SBX_NET_REC_MAX + 64];
		ssize_t n = recv(fd, buf, sizeof buf, MSG_DONTWAIT | MSG_TRUNC);
		if (n < 0)
			return i;
		struct sbx_net_rec rec;
		if ((size_t)n > sizeof buf || sbx_net_decode(buf, (size_t)n, &rec) < 0) {
			if (rejected)
				(*rejected)++;
			continue;
		}
		if (emit(a, &rec) < 0)
			return -1;
	}
	return i;
}
