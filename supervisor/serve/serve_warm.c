/* serve_warm.c — the pre-created sandbox of `sbxsup serve` (serve.h, docs/serve.md "What is
 * warm"), in the child of a call after it replied.
 *
 * Promise: the child keeps its last call's request as the template (command name, options,
 * working directory, environment) and prepares the next run for it (cfg->warm: plan, audit stream,
 * cgroups, layers, bwrap and the stage, which waits before anything is audited). Between calls it
 * holds nothing of a call: every descriptor but the server's channel is closed and 0-2 are
 * /dev/null. It says 'R' when a sandbox is parked. The server sends it one connection at a time; it
 * answers 'T' (taken) or 'F' (refused as malformed: already replied). A call whose options (minus --tag and --result), command name,
 * environment, working directory and manifest file are those of the template is released into
 * the parked sandbox: its stdio on 0-2, its argv and tag to the run, which writes run.start then;
 * a call with --result FILE (or a descriptor on a named file), which the run must check against its
 * policy before anything runs, and any other call end the parked sandbox (nothing audited, its
 * cgroups and directories removed)
 * and runs cold here, and becomes the template. A parked sandbox is never given a second call.
 * EOF on the channel or SIGTERM ends the parked sandbox and the child.
 * 'D' from the server (with one end of a socket pair) asks for a copy of the template, which a
 * new pre-creating child started by the server reads (serve_child_copy): the template's request
 * re-encoded as a client sends it, with the working directory as its one descriptor.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fdpass.h"
#include "ctl.h"
#include "msg.h"
#include "result.h"
#include "run.h"
#include "serve_warm.h"

extern char **environ;

struct warm {
	const struct serve_cfg *cfg;
	int ch;
	struct serve_call *t;          /* the template: the last call run cold */
	struct serve_call_info ti;
	struct stat cwd, mst;          /* the template's working directory and manifest file */
	bool mhave;
	struct serve_call *c;          /* the call that arrived */
	struct serve_call_info ci;
	bool hooked, called, pending, stop;
	int result_fd;                 /* the call's --result N descriptor (a pipe or an unnamed file), -1 */
	int fails;                     /* parked sandboxes in a row that ended without a call */
	int rec;                       /* the record's memfd of the current run */
	bool answered;
	int queued;                    /* a connection the server sent while this child was held, -1 */
};

static void info_free(struct serve_call_info *i)
{
	free(i->key);
	free(i->mem);
	memset(i, 0, sizeof *i);
}

static void set_template(struct warm *w)
{
	info_free(&w->ti);
	struct serve_req *rq = w->t->rq;
	if (w->cfg->inspect((int)rq->argc, (char **)rq->argv, w->cfg->arg, &w->ti) < 0 ||
	    stat(".", &w->cwd) < 0)
		info_free(&w->ti); /* key NULL: cold only */
	w->mhave = w->ti.manifest && stat(w->ti.manifest, &w->mst) == 0;
}

/* Between calls: nothing of a call is held. */
static void drop_call(struct warm *w)
{
	int keep[2] = {w->ch, w->queued};
	serve_close_all_but(keep, w->queued >= 0 ? 2 : 1);
	for (int fd = 0; fd <= 2; fd++) {
		int nul = open("/dev/null", fd ? O_WRONLY : O_RDONLY);
		if (nul >= 0 && nul != fd) {
			dup2(nul, fd);
			close(nul);
		}
	}
	w->result_fd = -1;
	info_free(&w->ci);
}

/* The server asks for a copy of the template on tp (a new pre-creating child reads it,
 * serve_child_copy): the template's request as a client sends it, with its working directory as the
 * one descriptor. Only a template a sandbox is prepared for is given; else tp is just closed. */
static void give_template(struct warm *w, int tp)
{
	char *buf = w->ti.key && w->fails < 3 ? malloc(SBX_SERVE_REQ_MAX) : NULL;
	int cwd = buf ? open(".", O_PATH | O_DIRECTORY | O_CLOEXEC) : -1;
	const int32_t target[1] = {-1};
	const struct serve_req *rq = w->t->rq;
	long n = cwd >= 0 ? serve_req_encode(buf, SBX_SERVE_REQ_MAX, (char *const *)rq->argv,
					     (char *const *)rq->envp, target, 1) : -1;
	if (n > 0)
		(void)sbx_send_fds(tp, buf, (size_t)n, &cwd, 1);
	if (cwd >= 0)
		close(cwd);
	free(buf);
	close(tp);
}

/* The next connection from the server: 0 (w->c received and parsed, 'T' sent), -1: the server
 * closed the channel (stop). poll_extra: descriptors that end the wait (returns 1). */
static int next_call(struct warm *w, const int *extra, int nextra)
{
	if (w->queued >= 0) { /* sent while held (hold()): it waited for this sandbox */
		int conn = w->queued;
		w->queued = -1;
		if (serve_call_recv(w->c, conn) < 0) {
			serve_tell(w->ch, 'F');
			close(conn);
		} else {
			serve_tell(w->ch, 'T');
			return 0;
		}
	}
	for (;;) {
		struct pollfd p[3] = {{.fd = w->ch, .events = POLLIN}};
		for (int i = 0; i < nextra; i++)
			p[1 + i] = (struct pollfd){.fd = extra[i], .events = POLLIN};
		if (poll(p, (nfds_t)(1 + nextra), -1) < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		for (int i = 0; i < nextra; i++)
			if (p[1 + i].revents)
				return 1;
		if (!p[0].revents)
			continue;
		char b;
		int conn = -1, got = 0, mflags = 0;
		ssize_t n = sbx_recv_fds(w->ch, &b, 1, &conn, 1, &got, &mflags);
		if (n <= 0)
			return -1;
		if (got != 1 || (mflags & MSG_CTRUNC)) { /* exactly one connection, or none taken */
			if (got)
				close(conn);
			continue;
		}
		if (b == 'D') { /* not a call: a copy of the template for a new pre-creating child */
			give_template(w, conn);
			continue;
		}
		if (serve_call_recv(w->c, conn) < 0) {
			serve_tell(w->ch, 'F');
			close(conn);
			continue;
		}
		serve_tell(w->ch, 'T');
		return 0;
	}
}

static bool same_env(const struct serve_req *a, const struct serve_req *b)
{
	if (a->envc != b->envc)
		return false;
	for (uint32_t i = 0; i < a->envc; i++)
		if (strcmp(a->envp[i], b->envp[i]))
			return false;
	return true;
}

/* May the parked sandbox (made for the template) run w->c? */
static bool matches(struct warm *w)
{
	const struct serve_req *rq = w->c->rq;
	struct stat st;
	if (!w->ti.key || w->cfg->inspect((int)rq->argc, (char **)rq->argv, w->cfg->arg, &w->ci) < 0 || !w->ci.key ||
	    w->ci.keylen != w->ti.keylen || memcmp(w->ci.key, w->ti.key, w->ti.keylen) || !same_env(rq, w->t->rq))
		return false;
	if (fstat(w->c->fds[rq->cwd_index], &st) < 0 || st.st_dev != w->cwd.st_dev || st.st_ino != w->cwd.st_ino)
		return false;
	if (w->ti.manifest && (!w->mhave || stat(w->ti.manifest, &st) < 0 || st.st_ino != w->mst.st_ino ||
			       st.st_dev != w->mst.st_dev || st.st_size != w->mst.st_size ||
			       st.st_mtim.tv_sec != w->mst.st_mtim.tv_sec || st.st_mtim.tv_nsec != w->mst.st_mtim.tv_nsec))
		return false;
	size_t len = 3;
	for (size_t i = 0; w->ci.cmd[i]; i++)
		len += strlen(w->ci.cmd[i]) + 1;
	if (len > CTL_CALL_MAX)
		return false;
	/* only stdio and the call's own --result N may be passed */
	int rn = -1;
	if (w->ci.result && strspn(w->ci.result, "0123456789") == strlen(w->ci.result)) {
		if (strlen(w->ci.result) > 4)
			return false;
		rn = atoi(w->ci.result);
	}
	/* --result FILE, or a descriptor on a named file: cold, where the run checks it against its
	 * policy before anything runs (result.h result_check) */
	if (w->ci.result && rn < 0)
		return false;
	bool rn_passed = false;
	for (unsigned i = 0; i < rq->nfds; i++) {
		if (i != rq->cwd_index && rq->target[i] > 2 && rq->target[i] != rn)
			return false;
		if (i != rq->cwd_index && rq->target[i] == rn) {
			if (result_named(w->c->fds[i]))
				return false;
			rn_passed = true;
		}
	}
	/* --result N names a descriptor the call passed, never one of this process (cold: EBADF) */
	return rn < 0 || rn_passed;
}

/* The call's stdio onto 0-2 (what it did not pass stays /dev/null), its --result kept aside. */
static int place(struct warm *w)
{
	struct serve_call *c = w->c;
	for (unsigned i = 0; i < c->nfds; i++) {
		int t = c->rq->target[i];
		if (i == c->rq->cwd_index) {
			close(c->fds[i]);
		} else if (t <= 2) {
			if (dup2(c->fds[i], t) < 0)
				return -1;
			close(c->fds[i]);
		} else {
			w->result_fd = c->fds[i];
		}
	}
	c->nfds = 0;
	return 0;
}

/* run.h struct run_warm: the parked sandbox waits here for its call. */
static int warm_wait(void *arg, const int watch[2], char ***cmd, const char **tag)
{
	struct warm *w = arg;
	w->hooked = true;
	serve_tell(w->ch, 'R'); /* parked: the server sends a connection here before an unprepared child */
	int r = next_call(w, watch, 2);
	if (r != 0) {
		/* EOF from the server, or SIGTERM/SIGINT/SIGHUP (still pending: the run reads them): stop;
		 * else (the stage died, a SIGCHLD) only this sandbox is given up */
		sigset_t pend;
		w->stop = r < 0 || (sigpending(&pend) == 0 && (sigismember(&pend, SIGTERM) ||
					sigismember(&pend, SIGINT) || sigismember(&pend, SIGHUP)));
		return -1;
	}
	if (!matches(w)) {
		w->pending = true;
		return -1;
	}
	if (place(w) < 0) { /* (dup2 onto 0-2 failed: nothing else to do) */
		serve_refuse(w->c->conn, SBX_REASON_INTERNAL, "cannot place the call's descriptors");
		return -1;
	}
	w->called = true;
	*cmd = w->ci.cmd;
	*tag = w->ci.tag;
	return 0;
}

/* The record of the call to its own --result too (as serve_run_one does for a cold call). */
static void client_result(struct warm *w, int rec)
{
	int fd = w->result_fd;
	if (w->ci.result && strspn(w->ci.result, "0123456789") == strlen(w->ci.result) && atoi(w->ci.result) <= 2)
		fd = atoi(w->ci.result); /* the call's own stdio, on 0-2 now */
	if (fd < 0)
		return;
	char *buf = malloc(SBX_SERVE_REP_MAX);
	ssize_t k = buf ? pread(rec, buf, SBX_SERVE_REP_MAX, 0) : -1;
	if (k > 0 && write(fd, buf, (size_t)k) != k)
		sbx_msg("warning: cannot write the result record: %s", strerror(errno));
	free(buf);
}

/* After a reply: the clean-up of this call's run and the next sandbox's preparation wait until the
 * server has had no call in flight for SERVE_QUIET_MS ('G'), so a burst of calls answered from
 * parked sandboxes does not share the CPUs with that work; at most SERVE_HOLD_MAX_MS. A connection
 * sent meanwhile ends the wait (it is this child's next call, queued for next_call); EOF (the server
 * stops) too. A 'D' is answered here as in next_call. */
static void hold(struct warm *w)
{
	serve_tell(w->ch, 'H');
	struct pollfd p = {.fd = w->ch, .events = POLLIN};
	for (;;) {
		int r = poll(&p, 1, SERVE_HOLD_MAX_MS);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return;
		char b;
		int fd = -1, got = 0, mflags = 0;
		ssize_t n = sbx_recv_fds(w->ch, &b, 1, &fd, 1, &got, &mflags);
		if (n <= 0)
			return;
		if (got != 1 || (mflags & MSG_CTRUNC)) {
			if (got)
				close(fd);
			if (b == 'G')
				return;
			continue;
		}
		if (b == 'D') {
			give_template(w, fd);
			continue;
		}
		w->queued = fd;
		return;
	}
}

/* run.h struct run_warm: the call is over, its record written: answer it before the clean-up. */
static void warm_done(void *arg, int code)
{
	struct warm *w = arg;
	fflush(NULL);
	client_result(w, w->rec);
	serve_tell(w->ch, 'W'); /* before the reply: the server stops watching the connection */
	serve_reply_record(w->c->conn, code, w->rec);
	w->answered = true;
	hold(w);
}

void serve_warm_loop(struct serve_call *c, int ch, const struct serve_cfg *cfg)
{
	struct warm w = {.cfg = cfg, .ch = ch, .t = c, .result_fd = -1, .queued = -1};
	struct run_warm rw = {.wait = warm_wait, .done = warm_done, .arg = &w};
	if (!(w.c = serve_call_new()))
		_exit(0);
	drop_call(&w);
	set_template(&w);
	for (;;) {
		if (!w.pending)
			drop_call(&w); /* (a pending call's descriptors are kept: it runs next) */
		if (w.pending) { /* a call the parked sandbox could not take: cold, and the new template */
			w.pending = false;
			if ((w.ch = serve_call_cold(w.c, w.ch, cfg)) < 0)
				_exit(0);
			struct serve_call *x = w.t;
			w.t = w.c;
			w.c = x;
			w.fails = 0;
			drop_call(&w);
			set_template(&w); /* (with 0-2 on /dev/null: its messages go nowhere, the run said them) */
			continue;
		}
		if (!w.ti.key || w.fails >= 3) { /* no sandbox can be made for this template: cold */
			if (next_call(&w, NULL, 0) < 0)
				_exit(0);
			w.pending = true;
			continue;
		}
		int rec = memfd_create("sbxsup-result", MFD_CLOEXEC);
		if (rec < 0)
			_exit(0);
		w.hooked = w.called = w.answered = false;
		w.rec = rec;
		struct serve_req *rq = w.t->rq;
		int code = cfg->warm((int)rq->argc, (char **)rq->argv, rec, &rw, cfg->arg);
		if (w.called) {
			w.fails = 0;
			if (!w.answered) /* refused before the run (bad arguments): no done() */
				warm_done(&w, code);
		} else if (!w.pending) {
			w.fails++;
		}
		close(rec);
		char b;
		if (w.stop || recv(w.ch, &b, 1, MSG_PEEK | MSG_DONTWAIT) == 0) /* the server stopped */
			_exit(0);
	}
}
