/* serve_call.c — see serve_call.h. */
#include "serve_call.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include "fdpass.h"
#include "msg.h"
#include "result.h"
#include "serve_proto.h"

extern char **environ;

void serve_send_reply(int conn, int code, const char *rec, size_t reclen)
{
	static char buf[SBX_SERVE_REP_MAX];
	long n = serve_rep_encode(buf, sizeof buf, code, rec, reclen);
	if (n < 0) /* a record that does not fit: the status alone */
		n = serve_rep_encode(buf, sizeof buf, code, "", 0);
	if (n >= 0)
		(void)send(conn, buf, (size_t)n, MSG_NOSIGNAL);
}

void serve_refuse(int conn, const char *code, const char *msg)
{
	struct result_in in = {.exit = SBX_EXIT_INTERNAL, .reason_code = code, .reason_msg = msg};
	cJSON *rec = result_build(&in);
	char *s = rec ? cJSON_PrintUnformatted(rec) : NULL;
	serve_send_reply(conn, SBX_EXIT_INTERNAL, s ? s : "", s ? strlen(s) : 0);
	free(s);
	cJSON_Delete(rec);
}

/* Receive the request and its descriptors (CLOEXEC). Returns the length, -1 with why. */
long serve_recv_req(int conn, char *buf, size_t cap, int *fds, unsigned *nfds, char *why, size_t whylen)
{
	struct timeval tv = {.tv_sec = SERVE_REQ_TIMEOUT_S};
	(void)setsockopt(conn, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
	int got = 0, mflags = 0;
	ssize_t n = sbx_recv_fds(conn, buf, cap, fds, (int)SBX_SERVE_MAX_FDS + 1, &got, &mflags);
	*nfds = (unsigned)got;
	if (n < 0) {
		snprintf(why, whylen, "no request within %d s: %s", SERVE_REQ_TIMEOUT_S, strerror(errno));
		return -1;
	}
	if (n == 0) {
		snprintf(why, whylen, "the client closed without a request");
		return -1;
	}
	if (mflags & (MSG_TRUNC | MSG_CTRUNC)) {
		snprintf(why, whylen, "request or its descriptors truncated (more than %u bytes / %u fds)",
			 SBX_SERVE_REQ_MAX, SBX_SERVE_MAX_FDS);
		return -1;
	}
	return n;
}

/* Close every descriptor except those in keep[0..n). */
void serve_close_all_but(const int *keep, size_t n)
{
	DIR *d = opendir("/proc/self/fd");
	if (!d) { /* no /proc: by number */
		for (int fd = 0; fd < 65536; fd++) {
			bool k = false;
			for (size_t i = 0; i < n && !k; i++)
				k = keep[i] == fd;
			if (!k)
				close(fd);
		}
		return;
	}
	int dfd = dirfd(d);
	struct dirent *e;
	int list[4096];
	size_t nl = 0;
	while ((e = readdir(d)) && nl < sizeof list / sizeof list[0]) {
		char *end;
		long fd = strtol(e->d_name, &end, 10);
		if (*end || end == e->d_name || fd == dfd)
			continue;
		bool k = false;
		for (size_t i = 0; i < n && !k; i++)
			k = keep[i] == fd;
		if (!k)
			list[nl++] = (int)fd;
	}
	closedir(d);
	for (size_t i = 0; i < nl; i++)
		close(list[i]);
}

/* Move fd above every target number (`base`), so placing the client's descriptors at their numbers
 * never overwrites one the child keeps. (Not a fixed high number: RLIMIT_NOFILE may be 1024.) */
static int park(int fd, int base)
{
	if (fd >= base)
		return fd;
	int hi = fcntl(fd, F_DUPFD_CLOEXEC, base);
	if (hi >= 0)
		close(fd);
	return hi;
}

void serve_reply_record(int conn, int code, int rec)
{
	char *out = malloc(SBX_SERVE_REP_MAX);
	ssize_t got = out && rec >= 0 ? pread(rec, out, SBX_SERVE_REP_MAX - SBX_SERVE_REP_HDR_LEN, 0) : -1;
	if (got < 0)
		got = 0;
	while (got > 0 && out[got - 1] == '\n')
		got--;
	serve_send_reply(conn, code, out ? out : "", (size_t)got);
	free(out);
}

int serve_call_recv(struct serve_call *c, int conn)
{
	char why[256];
	c->conn = conn;
	c->nfds = 0;
	long n = serve_recv_req(conn, c->buf, SBX_SERVE_REQ_MAX + 1, c->fds, &c->nfds, why, sizeof why);
	if (n < 0 || serve_req_parse(c->buf, (size_t)n, c->nfds, c->rq, why, sizeof why) < 0) {
		sbx_msg("serve: request refused: %s", why);
		char msg[300];
		snprintf(msg, sizeof msg, "malformed request: %s", why);
		serve_refuse(conn, SBX_REASON_SERVER_REFUSED, msg);
		for (unsigned i = 0; i < c->nfds; i++)
			close(c->fds[i]);
		c->nfds = 0;
		return -1;
	}
	return 0;
}

struct serve_call *serve_call_new(void)
{
	struct serve_call *c = calloc(1, sizeof *c);
	if (c && (!(c->buf = malloc(SBX_SERVE_REQ_MAX + 1)) || !(c->rq = malloc(sizeof *c->rq)))) {
		free(c->buf);
		free(c);
		return NULL;
	}
	if (c)
		c->conn = -1;
	return c;
}

int serve_call_cold(struct serve_call *c, int ch, const struct serve_cfg *cfg)
{
	struct serve_req *rq = c->rq;
	int *fds = c->fds, conn = c->conn;
	unsigned nfds = c->nfds;
	/* park what the child keeps above every target, then close everything else */
	int keep[SBX_SERVE_MAX_FDS + 3], base = 3;
	size_t nk = 0;
	for (unsigned i = 0; i < nfds; i++)
		if (rq->target[i] >= base)
			base = rq->target[i] + 1;
	if (ch >= 0 && (ch = park(ch, base)) < 0) { /* the server's channel (warm: serve_warm.c) */
		serve_refuse(conn, SBX_REASON_INTERNAL, "cannot place the call's descriptors");
		return -1;
	}
	int c2 = park(conn, base);
	if (c2 < 0) {
		serve_refuse(conn, SBX_REASON_INTERNAL, "cannot place the call's descriptors");
		return -1;
	}
	c->conn = conn = c2;
	keep[nk++] = conn;
	int rec = memfd_create("sbxsup-result", MFD_CLOEXEC);
	rec = rec >= 0 ? park(rec, base) : -1;
	keep[nk++] = rec;
	for (unsigned i = 0; i < nfds; i++)
		keep[nk++] = fds[i] = park(fds[i], base);
	if (ch >= 0)
		keep[nk++] = ch;
	bool parked = conn >= 0 && rec >= 0;
	for (unsigned i = 0; i < nfds; i++)
		parked = parked && fds[i] >= 0;
	serve_close_all_but(keep, nk);
	if (!parked) {
		serve_refuse(conn, SBX_REASON_INTERNAL, "cannot place the call's descriptors");
		return -1;
	}
	/* the client's working directory, descriptors, environment */
	struct stat st;
	int cwd = fds[rq->cwd_index];
	if (fstat(cwd, &st) < 0 || !S_ISDIR(st.st_mode) || fchdir(cwd) < 0) {
		serve_refuse(conn, SBX_REASON_SERVER_REFUSED, "malformed request: the working directory descriptor is not a directory");
		return -1;
	}
	close(cwd);
	for (unsigned i = 0; i < nfds; i++) {
		if (i == rq->cwd_index)
			continue;
		if (dup2(fds[i], rq->target[i]) < 0) {
			serve_refuse(conn, SBX_REASON_INTERNAL, "cannot place a passed descriptor");
			return -1;
		}
		close(fds[i]);
	}
	c->nfds = 0;
	for (int fd = 0; fd <= 2; fd++)
		if (fcntl(fd, F_GETFD) < 0) {
			int nul = open("/dev/null", fd ? O_WRONLY : O_RDONLY);
			if (nul >= 0 && nul != fd) {
				dup2(nul, fd);
				close(nul);
			}
		}
	environ = (char **)rq->envp;
	int code = cfg->run((int)rq->argc, (char **)rq->argv, rec, cfg->arg);
	fflush(NULL);
	if (ch >= 0)
		serve_tell(ch, 'W'); /* before the reply: the server stops watching this connection */
	serve_reply_record(conn, code, rec);
	close(rec);
	return ch;
}

void serve_tell(int ch, char what)
{
	(void)send(ch, &what, 1, MSG_NOSIGNAL);
}
