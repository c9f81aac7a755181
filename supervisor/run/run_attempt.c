/* run_attempt.c — step 3 of a run, one attempt: start the command exactly once through the
 * attempt's wrapper entry (wrapper.h: bwrap, with the argv the wrapper layer builds, or direct, the
 * stage in-process in namespaces of the run's own), release it when the stage is ready (run.start
 * first), turn what the layers report into audit events while it runs (the event loop polls every
 * started layer's descriptor), forward signals, enforce the wall clock, and end the whole process
 * tree before returning. run_int.h. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "msg.h"
#include "ctl.h"
#include "lifetime.h"
#include "run_int.h"
#include "wrapper.h"


static void close_fd(int *fd)
{
	if (*fd >= 0) {
		close(*fd);
		*fd = -1;
	}
}

/* The descriptor in *fd, handed over: *fd becomes -1, so the cleanup path does not close it. */
static int take_fd(int *fd)
{
	int v = *fd;
	*fd = -1;
	return v;
}

/* ---- the event loop ----------------------------------------------------------------------------- */

static void on_ready(struct run *r)
{
	struct attempt *t = &r->att;
	char st[CTL_MAX];
	int lfd = -1;
	pid_t pid = 0;
	int got = ctl_recv_ready(t->ctl, st, sizeof st, &lfd, &pid, &t->stage_uid);
	pt_mark(&r->pt, "attempt.until_ready");
	if (got <= 0) {
		close_fd(&t->ctl); /* EOF: the stage died before being ready */
		return;
	}
	t->ready = true;
	t->stage_pid = pid > 0 ? pid : t->child;
	/* the layers confirm themselves from the stage's status; seccomp takes its listener */
	unsigned keep = layers_refuse_mask(&r->L); /* (refused if the stage turns one off) */
	layers_on_ready(&r->lc, &r->lrt, st, ctl_status_get, t->stage_pid, lfd);
	char cmdst[32];
	if (ctl_status_get(st, "command", cmdst, sizeof cmdst) == 0)
		run_reason(r, strcmp(cmdst, "not_found") ? SBX_REASON_NOT_EXECUTABLE : SBX_REASON_NOT_FOUND,
			   "%s: %s", r->o.cmd[0], strcmp(cmdst, "not_found") ? "not executable" : "not found");
	if (t->spawned_failed) {  /* set up for a layer that is now off: made again without it */
		life_kill_now(t->child, &r->cg);
		return;
	}
	if (r->o.warm && run_warm_wait(r, t->ctl) < 0) { /* pre-created: no call came */
		life_kill_now(t->child, &r->cg);
		return;
	}
	if (t->wrapper->on_ready)
		t->wrapper->on_ready(r);
	pt_mark(&r->pt, "attempt.on_ready");
	if (run_net_start(r) < 0 || run_layer_lost_refused(r, keep) || run_require_missing(r)) {
		t->refused = true;
		life_kill_now(t->child, &r->cg);
		return;
	}
	pt_mark(&r->pt, "attempt.net_start");
	run_warn_off(r);
	if (run_emit_start(r) < 0) {
		life_kill_now(t->child, &r->cg);
		return;
	}
	if ((r->o.warm ? run_warm_go(r, t->ctl) : ctl_send_go(t->ctl)) < 0)
		life_kill_now(t->child, &r->cg);
	close_fd(&t->ctl);
	pt_mark(&r->pt, "attempt.run_start_go");
}

static void reap(struct run *r)
{
	int st;
	pid_t p;
	/* the layers' tracees first (the seccomp entry's exec pins: threads, which waitpid(-1) does
	 * not report), then every status taken here that is a tracee's goes back to its layer */
	if (layers_reap(&r->lrt, &r->a, 0, 0) < 0)
		r->audit_failed = true;
	while ((p = waitpid(-1, &st, WNOHANG | WUNTRACED)) > 0) {
		int traced = layers_reap(&r->lrt, &r->a, p, st);
		if (traced < 0)
			r->audit_failed = true;
		if (traced)
			continue;
		if (WIFSTOPPED(st)) {
			/* Our child must never stay stopped (e.g. left stopped by a ptrace attach from the
			 * executor in a mode without seccomp): the run would hang. */
			kill(p, SIGCONT);
			continue;
		}
		if (p == r->att.child) {
			r->att.child_done = true;
			r->att.child_status = st;
		}
		if (p == r->att.net.gw) { /* the run's way out is closed, not opened: say so */
			r->att.net.gw = -1;
			sbx_msg("warning: the network gateway ended during the run (status %d): the run has no "
				"way out any more", WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
		}
	}
}

static void on_signal(struct run *r)
{
	struct attempt *t = &r->att;
	struct signalfd_siginfo si;
	while (read(r->sfd, &si, sizeof si) == (ssize_t)sizeof si) {
		int sig = (int)si.ssi_signo;
		if (sig == SIGCHLD)
			continue; /* reaped below */
		if (t->ready && t->stage_pid > 0) {
			kill(t->stage_pid, sig);
		} else {
			t->fwd_signal = sig;
			life_kill_now(t->child, &r->cg);
		}
	}
	reap(r);
}

/* The tree is dead (final) or ending: what is queued is all there is (bounded by the buffers). */
static void drain_all(struct run *r, bool final)
{
	struct attempt *t = &r->att;
	for (int i = 0; i < 64; i++) {
		uint64_t before = t->rx.acks + t->rx.denies + t->rx.rejected;
		if (report_rx_drain(&t->rx, &r->a) < 0) {
			r->audit_failed = true;
			break;
		}
		if (t->rx.acks + t->rx.denies + t->rx.rejected == before)
			break;
	}
	if (layers_drain(&r->lrt, NULL, NULL, &r->a, final) < 0 || run_net_drain(r) < 0)
		r->audit_failed = true;
}

static void read_wrap_err(struct attempt *t)
{
	char buf[512];
	ssize_t k = read(t->err_rd, buf, sizeof buf);
	if (k <= 0) {
		close_fd(&t->err_rd);
	} else if (!t->ready) {
		size_t room = sizeof t->wrap_err - 1 - t->wrap_err_len;
		size_t c = (size_t)k < room ? (size_t)k : room;
		memcpy(t->wrap_err + t->wrap_err_len, buf, c);
		t->wrap_err_len += c;
	} else {
		(void)!write(sbx_msg_fd(), buf, (size_t)k);
	}
}

static void loop(struct run *r)
{
	struct attempt *t = &r->att;
	while (!t->child_done) {
		struct pollfd p[8 + SBX_L__N];
		int n = 0, i_ctl = -1, i_err = -1, i_addr = -1, i_gw = -1, lidx[SBX_L__N];
		int i_sig = n++, i_tim = n++, i_rep = n++;
		p[i_sig] = (struct pollfd){.fd = r->sfd, .events = POLLIN};
		p[i_tim] = (struct pollfd){.fd = r->tfd, .events = POLLIN};
		p[i_rep] = (struct pollfd){.fd = t->rep, .events = POLLIN};
		if (t->ctl >= 0 && !t->ready)
			p[i_ctl = n++] = (struct pollfd){.fd = t->ctl, .events = POLLIN};
		if (t->rx.addr_fd >= 0)
			p[i_addr = n++] = (struct pollfd){.fd = t->rx.addr_fd, .events = POLLIN};
		if (t->err_rd >= 0)
			p[i_err = n++] = (struct pollfd){.fd = t->err_rd, .events = POLLIN};
		if (run_net_fd(r) >= 0) /* the gateway's records (dns.deny, net.deny, net.flow) */
			p[i_gw = n++] = (struct pollfd){.fd = run_net_fd(r), .events = POLLIN};
		int nl = layers_pollfds(&r->lrt, p + n, SBX_L__N, lidx);
		for (int l = 0; l < SBX_L__N; l++)
			if (lidx[l] >= 0)
				lidx[l] += n;
		n += nl;
		if (poll(p, (nfds_t)n, audit_poll_ms(&r->a)) < 0) {
			if (errno == EINTR)
				continue;
			sbx_msg("poll: %s", strerror(errno));
			life_kill_now(t->child, &r->cg);
			r->audit_failed = true; /* an internal failure: exit 125 */
			reap(r);
			continue;
		}
		if (p[i_tim].revents) {
			uint64_t x;
			(void)!read(r->tfd, &x, sizeof x);
			t->timed_out = true;
			life_kill_now(t->child, &r->cg);
		}
		if (i_ctl >= 0 && p[i_ctl].revents)
			on_ready(r);
		if ((p[i_rep].revents || (i_addr >= 0 && p[i_addr].revents)) &&
		    report_rx_drain(&t->rx, &r->a) < 0)
			r->audit_failed = true;
		if (i_err >= 0 && p[i_err].revents)
			read_wrap_err(t);
		if (i_gw >= 0 && p[i_gw].revents && run_net_drain(r) < 0)
			r->audit_failed = true;
		if (layers_drain(&r->lrt, p, lidx, &r->a, false) < 0)
			r->audit_failed = true;
		if (p[i_sig].revents)
			on_signal(r);
		if (audit_tick(&r->a) < 0) /* flow control's timer: a held (coalesced) line is due */
			r->audit_failed = true;
		if (r->audit_failed)
			life_kill_now(t->child, &r->cg);
	}
}

/* ---- one attempt ---------------------------------------------------------------------------------- */


static void attempt_init(struct attempt *t)
{
	memset(t, 0, sizeof *t);
	t->child = -1;
	t->stage_uid = (uid_t)-1;
	t->ctl = t->rep = t->status_rd = t->err_rd = t->alive_w = t->stderr_copy = -1;
	t->rx.fd = t->rx.addr_fd = -1;
	t->net.gw = t->net.gw_rep = -1;
}

enum attempt_result run_attempt(struct run *r)
{
	struct attempt *t = &r->att;
	enum attempt_result res = ATT_FAIL;
	int ctlp[2] = {-1, -1}, repp[2] = {-1, -1}, alive[2] = {-1, -1}, stp[2] = {-1, -1};
	struct attempt_io io = {.alive_r = -1, .ctl_c = -1, .rep_c = -1, .status_w = -1, .err_r = -1,
				.err_w = -1, .ldso = -1, .passwd = -1, .group = -1, .resolv = -1};
	attempt_init(t);
	/* the plan's mode (planned wrapped only while the wrapper layer is on, run.c replan) picks
	 * the wrapper entry for this attempt */
	const struct run_wrapper *w = t->wrapper = r->plan.wrapped ? &run_wrap_bwrap : &run_wrap_direct;
	if (r->plan.wrapped && !layers_wrapper(&r->L)) {
		sbx_msg("internal error: the run was planned in the wrapper layer, which is off");
		goto out;
	}

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, ctlp) < 0 ||
	    socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, repp) < 0 ||
	    pipe2(alive, O_CLOEXEC) < 0 || pipe2(stp, O_CLOEXEC | O_NONBLOCK) < 0) {
		sbx_msg("cannot create the run's sockets: %s", strerror(errno));
		goto out;
	}
	int one = 1;
	if (setsockopt(ctlp[0], SOL_SOCKET, SO_PASSCRED, &one, sizeof one) < 0 ||
	    setsockopt(repp[0], SOL_SOCKET, SO_PASSCRED, &one, sizeof one) < 0 ||
	    fcntl(repp[0], F_SETFL, O_NONBLOCK) < 0) {
		sbx_msg("cannot set up the report socket: %s", strerror(errno));
		goto out;
	}
	/* Bound the report queue so a flooding executor drops records instead of using our memory. */
	int rcv = 1 << 20;
	(void)setsockopt(repp[0], SOL_SOCKET, SO_RCVBUF, &rcv, sizeof rcv);
	io.alive_r = alive[0];
	io.ctl_c = ctlp[1];
	io.rep_c = repp[1];
	io.status_w = stp[1];
	res = w->prepare ? w->prepare(r, &io) : ATT_DONE; /* the wrapper's descriptors */
	if (res != ATT_DONE)
		goto out;
	res = ATT_FAIL;
	if (run_ctx_attempt(r, &io) < 0) /* what the layers see of this attempt, once */
		goto out;
	res = w->argv(r, &io);
	if (res != ATT_DONE)
		goto out;
	res = ATT_FAIL;
	pt_mark(&r->pt, "attempt.argv");

	pid_t pid = w->spawn(r, &io);
	if (pid < 0)
		goto out;
	if (pid == 0)
		w->child(r, &io);
	t->child = pid;
	pt_mark(&r->pt, "attempt.spawn");
	if (w->done)
		w->done(r); /* the child holds them now */
	close_fd(&alive[0]);
	close_fd(&ctlp[1]);
	close_fd(&repp[1]);
	close_fd(&stp[1]);
	close_fd(&io.err_w);
	close_fd(&io.ldso);
	close_fd(&io.passwd);
	close_fd(&io.group);
	close_fd(&io.resolv);
	close_fd(&t->stderr_copy);
	t->spawned_failed = layers_spawned(&r->lc, &r->lrt) < 0;   /* while the sandbox starts */
	pt_mark(&r->pt, "attempt.spawned");
	t->ctl = take_fd(&ctlp[0]);
	t->rep = take_fd(&repp[0]);
	t->status_rd = take_fd(&stp[0]);
	t->err_rd = take_fd(&io.err_r);
	t->alive_w = take_fd(&alive[1]);
	t->rx.fd = t->rep;
	t->rx.addr_fd = r->repsrv;
	t->rx.pol = r->plan.pol;

	loop(r);
	pt_mark(&r->pt, "attempt.command");

	/* The main child is gone: collect the stage's status (direct mode), drain, end the tree. */
	if (t->status_rd >= 0) {
		int st;
		if (read(t->status_rd, &st, sizeof st) == (ssize_t)sizeof st) {
			t->stage_status = st;
			t->have_stage_status = true;
		}
	}
	if (t->err_rd >= 0 && !t->ready) {
		ssize_t k;
		fcntl(t->err_rd, F_SETFL, O_NONBLOCK);
		while (t->wrap_err_len < sizeof t->wrap_err - 1 &&
		       (k = read(t->err_rd, t->wrap_err + t->wrap_err_len,
				 sizeof t->wrap_err - 1 - t->wrap_err_len)) > 0)
			t->wrap_err_len += (size_t)k;
	}
	drain_all(r, false);
	/* the wrapper (bwrap: --unshare-pid --die-with-parent, bwrap_layer.c) or our own init gives
	 * the run a pid namespace of its own */
	if (life_end(t->child, &t->child_done, &t->child_status, &r->cg, r->jan.pid,
		     w->pidns || t->pidns) > 0)
		sbx_msg("warning: some processes of the run could not be accounted for");
	drain_all(r, true);
	pt_mark(&r->pt, "attempt.end_tree");
	if (t->spawned_failed && !t->timed_out && !t->fwd_signal && !r->audit_failed)
		res = ATT_LAYER_OFF;
	else if (w->retry_without && !t->ready && !t->timed_out && !t->fwd_signal && !r->audit_failed)
		res = ATT_SETUP_FAILED;
	else
		res = ATT_DONE;
out:
	run_net_stop(r); /* the gateway lived for this attempt's namespace only */
	layers_stop(&r->lrt, true); /* what lived for this attempt only (seccomp's listener) */
	if (w->done)
		w->done(r);
	run_ctx_attempt_end(r);
	close_fd(&io.passwd);
	close_fd(&io.group);
	close_fd(&io.resolv);
	close_fd(&ctlp[0]);
	close_fd(&ctlp[1]);
	close_fd(&repp[0]);
	close_fd(&repp[1]);
	close_fd(&alive[0]);
	close_fd(&alive[1]);
	close_fd(&stp[0]);
	close_fd(&stp[1]);
	close_fd(&io.err_r);
	close_fd(&io.err_w);
	close_fd(&io.ldso);
	close_fd(&t->stderr_copy);
	close_fd(&t->ctl);
	close_fd(&t->rep);
	close_fd(&t->status_rd);
	close_fd(&t->err_rd);
	close_fd(&t->alive_w);
	strv_free(&io.env);
	strv_free(&io.argv);
	strv_free(&io.flags);
	pt_mark(&r->pt, "attempt.stop");
	return res;
}

/* ---- exit status -------------------------------------------------------------------------------- */

void run_exit_status(const struct run *r, int *code, int *sig)
{
	const struct attempt *t = &r->att;
	*sig = 0;
	*code = SBX_EXIT_INTERNAL;
	int st = t->child_status;
	const struct run_wrapper *w = t->wrapper ? t->wrapper : &run_wrap_direct;
	if (w->init_status && !t->have_stage_status) {
		*code = t->timed_out ? SBX_EXIT_TIMEOUT : SBX_EXIT_INTERNAL;
		if (t->fwd_signal)
			*code = 128 + t->fwd_signal, *sig = t->fwd_signal;
		return;
	}
	if (w->init_status)
		st = t->stage_status;
	if (WIFEXITED(st)) {
		*code = WEXITSTATUS(st);
		/* bwrap reports a command killed by signal N as 128+N */
		if (w->signal_as_128 && *code > 128 && *code < 128 + 65)
			*sig = *code - 128;
	} else if (WIFSIGNALED(st)) {
		*sig = WTERMSIG(st);
		*code = 128 + *sig;
	}
	if (t->timed_out)
		*code = SBX_EXIT_TIMEOUT;
	if (t->refused || r->audit_failed || (!t->ready && !t->timed_out && !t->fwd_signal))
		*code = SBX_EXIT_INTERNAL;
	if (t->fwd_signal && !t->ready)
		*code = 128 + t->fwd_signal, *sig = t->fwd_signal;
}
