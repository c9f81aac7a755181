/* serve.c — see serve.h: the accept loop, the live calls, the server's lifetime. */
#include "serve.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "fdpass.h"
#include "msg.h"
#include "quote.h"
#include "layer.h"
#include "result.h"
#include "serve_child.h"
#include "serve_peer.h"
#include "serve_sock.h"

struct call {
	pid_t pid;     /* 0: free slot */
	int conn;      /* the server's copy: watched for the client hanging up; -1 between calls */
	bool termed;   /* SIGTERM sent */
	int ch;        /* the channel to the child that may pre-create a sandbox (serve_warm.c), -1 */
	int pending;   /* a connection sent to it, not yet answered ('T'/'F'), -1 */
	bool ready;    /* it said 'R': a sandbox is parked (cleared when a connection is sent) */
	bool was_ready; /* ready when the pending connection was sent ('F' leaves it parked) */
	bool copying;  /* started from another child's template (fill), not parked yet */
	bool held;     /* it said 'H': answered, waiting for 'G' to clean up and prepare */
};

struct server {
	const struct serve_cfg *cfg;
	struct serve_sock sock;
	int sfd;
	struct call calls[SERVE_MAX_LIVE];
	int live;
	unsigned long served;
	struct layer_rt held; /* the layers' shared sets kept loaded (layers_hold) */
	int nwarm;     /* children that pre-create sandboxes (channel open): at most warm_max */
	int warm_max;  /* cfg->warm_max, else SERVE_WARM_MAX */
	long quiet_at; /* held children get 'G' at this time (ms, now_ms()) if no call is in flight; 0 */
};

static void hold_said(void *arg, const char *name, bool held, const char *text)
{
	const struct server *s = arg;
	if (!held)
		sbx_msg("serve: warning: %s not kept loaded: %s", name, text);
	else if (!s->cfg->quiet)
		sbx_msg("serve: %s kept loaded: %s", name, text);
}

/* Hold the layers' shared sets while the server lives (layer.h hold: the probes' — each run then
 * opens the pinned set instead of loading the programs itself). */
static void layers_keep(struct server *s)
{
	if (s->cfg->keep_probes)
		layers_hold(&s->held, hold_said, s);
}

static void start_cold(struct server *s, int conn);

/* Slot i's child is gone. A connection it was sent and never answered gets a cold run. */
static void forget(struct server *s, int i)
{
	struct call *c = &s->calls[i];
	int conn = c->pending;
	if (c->conn >= 0)
		close(c->conn);
	if (c->ch >= 0) {
		close(c->ch);
		s->nwarm--;
	}
	*c = (struct call){.conn = -1, .ch = -1, .pending = -1};
	s->live--;
	if (conn >= 0)
		start_cold(s, conn);
}

static void reap(struct server *s)
{
	int st;
	pid_t p;
	while ((p = waitpid(-1, &st, WNOHANG)) > 0)
		for (int i = 0; i < SERVE_MAX_LIVE; i++)
			if (s->calls[i].pid == p) {
				forget(s, i);
				break;
			}
}

/* Refuse a connection in the accept loop: reply, then read (and drop) the request the client is
 * sending, bounded by 200 ms, so that closing does not reset the connection and discard the reply
 * before the client reads it. Passed descriptors are dropped by the kernel (no control buffer). */
static void refuse_close(int conn, const char *code, const char *msg)
{
	serve_refuse(conn, code, msg);
	struct pollfd p = {.fd = conn, .events = POLLIN};
	char buf[512];
	if (poll(&p, 1, 200) > 0)
		while (recv(conn, buf, sizeof buf, MSG_DONTWAIT) > 0)
			;
	close(conn);
}

/* A child for the call (the first one while there is none also pre-creates sandboxes after it). */
static void start_cold(struct server *s, int conn)
{
	int slot = -1;
	for (int i = 0; i < SERVE_MAX_LIVE && slot < 0; i++)
		if (!s->calls[i].pid)
			slot = i;
	if (slot < 0) {
		refuse_close(conn, SBX_REASON_SERVER_REFUSED, "server busy: too many calls at once");
		return;
	}
	int ch[2] = {-1, -1};
	if (s->cfg->warm && s->nwarm < s->warm_max && socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, ch) < 0)
		ch[0] = ch[1] = -1;
	fflush(NULL);
	pid_t child = fork();
	if (child < 0) {
		sbx_msg("serve: fork: %s", strerror(errno));
		refuse_close(conn, SBX_REASON_INTERNAL, "the server cannot fork");
		if (ch[0] >= 0)
			close(ch[0]), close(ch[1]);
		return;
	}
	if (child == 0) {
		if (ch[0] >= 0)
			close(ch[0]);
		serve_child(conn, ch[1], s->cfg);
	}
	if (ch[1] >= 0) {
		close(ch[1]);
		s->nwarm++;
	}
	s->calls[slot] = (struct call){.pid = child, .conn = conn, .ch = ch[0], .pending = -1};
	s->live++;
}

/* 'C' + a connection, or 'D' + the end of a socket pair a new child reads a template from. */
static int send_fd(int ch, char b, int conn)
{
	return sbx_send_fds_flags(ch, &b, 1, &conn, 1, MSG_DONTWAIT) == 1 ? 0 : -1;
}

/* Fill: while fewer than warm_max children pre-create, child i (its sandbox just parked, so it has
 * a template) gives a copy of its template to a new child, which prepares a sandbox for it too; one
 * such child at a time. So a burst of up to warm_max calls finds parked sandboxes after the first
 * call, not only after that many calls once overlapped. */
static void fill(struct server *s, int i)
{
	if (!s->cfg->warm || s->nwarm >= s->warm_max)
		return;
	int slot = -1;
	for (int k = 0; k < SERVE_MAX_LIVE; k++) {
		if (s->calls[k].pid && s->calls[k].copying)
			return;
		if (!s->calls[k].pid && slot < 0)
			slot = k;
	}
	int tp[2], ch[2];
	if (slot < 0 || socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, tp) < 0)
		return;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, ch) < 0) {
		close(tp[0]), close(tp[1]);
		return;
	}
	pid_t child = -1;
	if (send_fd(s->calls[i].ch, 'D', tp[0]) == 0) {
		fflush(NULL);
		child = fork();
	}
	if (child == 0) {
		close(ch[0]);
		serve_child_copy(tp[1], ch[1], s->cfg);
	}
	close(tp[0]), close(tp[1]), close(ch[1]);
	if (child < 0) {
		close(ch[0]);
		return;
	}
	s->calls[slot] = (struct call){.pid = child, .conn = -1, .ch = ch[0], .pending = -1, .copying = true};
	s->live++;
	s->nwarm++;
}

/* What a pre-creating child says: 'R' a sandbox is parked, 'W' its call is answered (forget the
 * connection), 'T' it took the connection sent (watch it), 'F' it refused it (already answered). */
static void on_warm(struct server *s, int i)
{
	struct call *c = &s->calls[i];
	char b[8];
	ssize_t n;
	while ((n = recv(c->ch, b, sizeof b, MSG_DONTWAIT)) > 0) {
		if (b[0] == 'R') {
			c->ready = true;
			c->copying = false;
			fill(s, i);
		} else if (b[0] == 'H') {
			c->held = true;
		} else if (b[0] == 'W' && c->conn >= 0) {
			close(c->conn);
			c->conn = -1;
			c->termed = false;
		} else if ((b[0] == 'T' || b[0] == 'F') && c->pending >= 0) {
			if (b[0] == 'T')
				c->ready = false; /* its parked sandbox has the call */
			if (b[0] == 'T' && c->conn < 0)
				c->conn = c->pending;
			else
				close(c->pending);
			if (b[0] == 'F')
				c->ready = c->was_ready; /* still parked */
			c->pending = -1;
		}
	}
}

/* The pre-creating child a connection goes to: one with a parked sandbox; else, while fewer than
 * warm_max children pre-create, none (a cold child, which pre-creates after its call);
 * else one between calls, preparing rather than held (the call waits for the sandbox it is
 * preparing). -1: none. */
static int pick_warm(struct server *s)
{
	int idle = -1;
	for (int i = 0; i < SERVE_MAX_LIVE; i++) {
		struct call *c = &s->calls[i];
		if (!c->pid || c->ch < 0 || c->conn >= 0 || c->pending >= 0)
			continue;
		if (c->ready)
			return i;
		/* one already preparing is further along than a held one (which starts on this call) */
		if (idle < 0 || (s->calls[idle].held && !c->held))
			idle = i;
	}
	return s->nwarm < s->warm_max ? -1 : idle;
}

static void accept_one(struct server *s)
{
	int conn = accept4(s->sock.fd, NULL, NULL, SOCK_CLOEXEC);
	if (conn < 0)
		return;
	char msg[700];
	if (serve_peer_check(conn, msg, sizeof msg) != 1) {
		sbx_msg("serve: refused a connection: %s", msg);
		refuse_close(conn, SBX_REASON_SERVER_REFUSED, msg);
		return;
	}
	s->served++;
	/* a pre-creating child takes it when it is between calls and has none queued */
	int w = pick_warm(s);
	if (w >= 0 && send_fd(s->calls[w].ch, 'C', conn) == 0) {
		s->calls[w].held = false; /* (a held child takes it as its next call) */
		s->calls[w].pending = conn;
		s->calls[w].was_ready = s->calls[w].ready;
		s->calls[w].ready = false;
		return;
	}
	start_cold(s, conn);
}

static long now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* The held children (answered, serve_warm.c hold()) clean up and prepare their next sandbox once
 * no call has been in flight for SERVE_QUIET_MS: a burst does not share the CPUs with that work.
 * Returns poll's timeout: -1, or the ms until then. */
static int quiet(struct server *s)
{
	bool held = false, busy = false;
	for (int i = 0; i < SERVE_MAX_LIVE; i++) {
		const struct call *c = &s->calls[i];
		held |= c->pid && c->held && c->ch >= 0;
		busy |= c->pid && (c->conn >= 0 || c->pending >= 0);
	}
	if (!held || busy) {
		s->quiet_at = 0;
		return -1;
	}
	long now = now_ms();
	if (!s->quiet_at)
		s->quiet_at = now + SERVE_QUIET_MS;
	if (now < s->quiet_at)
		return (int)(s->quiet_at - now);
	for (int i = 0; i < SERVE_MAX_LIVE; i++) {
		struct call *c = &s->calls[i];
		if (c->pid && c->held && c->ch >= 0) {
			char g = 'G';
			(void)send(c->ch, &g, 1, MSG_NOSIGNAL | MSG_DONTWAIT);
			c->held = false;
		}
	}
	s->quiet_at = 0;
	return -1;
}

/* SIGTERM/SIGINT: every live run ends as a direct run on SIGTERM; SIGKILL after the grace. */
static void stop_calls(struct server *s)
{
	for (int i = 0; i < SERVE_MAX_LIVE; i++)
		if (s->calls[i].pending >= 0) { /* queued for a pre-created sandbox, never started */
			close(s->calls[i].pending);
			s->calls[i].pending = -1;
		}
	for (int i = 0; i < SERVE_MAX_LIVE; i++)
		if (s->calls[i].pid) {
			if (s->calls[i].ch >= 0) { /* EOF: the child prepares nothing more */
				close(s->calls[i].ch);
				s->calls[i].ch = -1;
			}
			kill(s->calls[i].pid, SIGTERM);
		}
	long end = now_ms() + SERVE_STOP_GRACE_MS;
	while (s->live > 0 && now_ms() < end) {
		struct pollfd p = {.fd = s->sfd, .events = POLLIN};
		(void)poll(&p, 1, 100);
		struct signalfd_siginfo si;
		while (read(s->sfd, &si, sizeof si) == (ssize_t)sizeof si)
			;
		reap(s);
	}
	for (int i = 0; i < SERVE_MAX_LIVE; i++)
		if (s->calls[i].pid) {
			sbx_msg("serve: run of pid %d did not end within %d ms of SIGTERM: killed",
				(int)s->calls[i].pid, SERVE_STOP_GRACE_MS);
			kill(s->calls[i].pid, SIGKILL);
		}
	while (s->live > 0) {
		int st;
		pid_t p = waitpid(-1, &st, 0);
		if (p < 0 && errno != EINTR)
			break;
		for (int i = 0; p > 0 && i < SERVE_MAX_LIVE; i++)
			if (s->calls[i].pid == p)
				forget(s, i);
	}
}

int serve_main(const struct serve_cfg *cfg)
{
	struct server *s = calloc(1, sizeof *s);
	char why[400];
	if (!s) {
		sbx_msg("serve: out of memory");
		return SBX_EXIT_INTERNAL;
	}
	s->cfg = cfg;
	s->warm_max = cfg->warm_max > 0 && cfg->warm_max <= SERVE_WARM_LIMIT ? cfg->warm_max : SERVE_WARM_MAX;
	for (int i = 0; i < SERVE_MAX_LIVE; i++)
		s->calls[i] = (struct call){.conn = -1, .ch = -1, .pending = -1};
	sigset_t set, old;
	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGHUP);
	signal(SIGPIPE, SIG_IGN);
	if (sigprocmask(SIG_BLOCK, &set, &old) < 0 ||
	    (s->sfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK)) < 0) {
		sbx_msg("serve: signals: %s", strerror(errno));
		free(s);
		return SBX_EXIT_INTERNAL;
	}
	if (serve_listen(cfg->socket, &s->sock, why, sizeof why) < 0) {
		sbx_msg("serve: %s", why);
		close(s->sfd);
		free(s);
		return SBX_EXIT_INTERNAL;
	}
	layers_keep(s);
	char q[SBX_Q_MAX];
	if (!cfg->quiet)
		sbx_msg("serve: listening on %s (pid %d)", sbx_q(cfg->socket, q, sizeof q), (int)getpid());
	bool stop = false;
	while (!stop) {
		struct pollfd p[2 + 2 * SERVE_MAX_LIVE];
		int map[2 + 2 * SERVE_MAX_LIVE], np = 0, nch;
		p[np++] = (struct pollfd){.fd = s->sfd, .events = POLLIN};
		p[np++] = (struct pollfd){.fd = s->sock.fd, .events = POLLIN};
		for (int i = 0; i < SERVE_MAX_LIVE; i++)
			if (s->calls[i].pid && s->calls[i].ch >= 0) {
				map[np] = i;
				p[np++] = (struct pollfd){.fd = s->calls[i].ch, .events = POLLIN};
			}
		nch = np;
		for (int i = 0; i < SERVE_MAX_LIVE; i++)
			if (s->calls[i].pid && !s->calls[i].termed && s->calls[i].conn >= 0) {
				map[np] = i;
				p[np++] = (struct pollfd){.fd = s->calls[i].conn, .events = 0}; /* HUP/ERR only */
			}
		if (poll(p, (nfds_t)np, quiet(s)) < 0) {
			if (errno == EINTR)
				continue;
			sbx_msg("serve: poll: %s", strerror(errno));
			break;
		}
		if (p[0].revents & POLLIN) {
			struct signalfd_siginfo si;
			while (read(s->sfd, &si, sizeof si) == (ssize_t)sizeof si)
				if (si.ssi_signo == SIGTERM || si.ssi_signo == SIGINT)
					stop = true;
			reap(s);
		}
		for (int k = 2; k < nch; k++) /* before the hang-ups: a 'W' means the call is answered */
			if (p[k].revents && s->calls[map[k]].ch == p[k].fd)
				on_warm(s, map[k]);
		for (int k = nch; k < np; k++)
			if (p[k].revents & (POLLHUP | POLLERR)) {
				struct call *c = &s->calls[map[k]];
				/* the client went away: its run ends as on SIGTERM (unless the call was answered
				 * just now: on_warm closed that connection) */
				if (c->pid && c->conn >= 0 && c->conn == p[k].fd) {
					kill(c->pid, SIGTERM);
					c->termed = true;
				}
			}
		if (!stop && (p[1].revents & POLLIN))
			accept_one(s);
	}
	serve_unlisten(&s->sock);
	stop_calls(s);
	layers_stop(&s->held, false);
	if (!cfg->quiet)
		sbx_msg("serve: stopped after %lu call%s", s->served, s->served == 1 ? "" : "s");
	close(s->sfd);
	sigprocmask(SIG_SETMASK, &old, NULL);
	free(s);
	return 0;
}
