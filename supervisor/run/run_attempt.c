/* run_attempt.c — step 3 of a run, one attempt: start the command exactly once (in bwrap, with the
 * argv the bwrap layer builds, or directly with the stage in-process, in a pid namespace of its
 * own), release it when the stage is ready (run.start first), turn what the layers report into
 * audit events while it runs (the event loop polls every started layer's descriptor), forward
 * signals, enforce the wall clock, and end the whole process tree before returning. run_int.h. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bwrap_layer.h"
#include "caps.h"
#include "msg.h"
#include "ctl.h"
#include "env.h"
#include "bwrap_etc.h"
#include "mntns.h"
#include "lifetime.h"
#include "report.h"
#include "run_int.h"
#include "sandbox_direct.h"
#include "stage.h"

extern char **environ;

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

/* ---- the child ---------------------------------------------------------------------------------- */

static void child_signals(const sigset_t *oldmask)
{
	signal(SIGPIPE, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	sigprocmask(SIG_SETMASK, oldmask, NULL);
}

/* Nothing the caller of sbxsup left open (a directory fd would be a way out of bwrap's mount
 * namespace) reaches the command: every fd above stderr becomes close-on-exec; keep_fd() then
 * re-opens the few the sandbox must inherit. Async-signal-safe. */
static void cloexec_all(void)
{
	if (syscall(SYS_close_range, 3u, ~0u, 4u /* CLOSE_RANGE_CLOEXEC */) == 0)
		return;
	for (int fd = 3; fd < 65536; fd++) {
		int fl = fcntl(fd, F_GETFD);
		if (fl >= 0 && !(fl & FD_CLOEXEC))
			fcntl(fd, F_SETFD, fl | FD_CLOEXEC);
	}
}

static void keep_fd(int fd)
{
	if (fd >= 0) {
		int fl = fcntl(fd, F_GETFD);
		if (fl >= 0)
			fcntl(fd, F_SETFD, fl & ~FD_CLOEXEC);
	}
}

struct child_fds {
	int alive_r, ctl_c, rep_c, status_w, err_w, ldso, passwd, group, resolv;
	char **argv;               /* wrapped: the bwrap argv to exec */
	char **envp;               /* direct: the command's environment */
	char **stage_flags;        /* direct: the layers the stage applies (as `__stage` takes them) */
};

/* The stage's layer flags, read the way `sbxsup __stage` reads them (stage.c cmd_stage). */
static void stage_flags(char **flags, struct stage_args *sa)
{
	for (size_t i = 0; flags && flags[i]; i++)
		(void)stage_flag_parse(flags[i], sa);
}

static int child_common(struct run *r, const struct child_fds *f)
{
	if (life_child_setup(f->alive_r) < 0)
		return -1;
	close(f->alive_r);
	if (r->repsrv >= 0) /* the receiving end stays with the supervisor only (direct mode's init
			     * never execs) */
		close(r->repsrv);
	if (!r->o.disabled) {
		if (cg_join(&r->cg) < 0)
			return -1;
		if (layers_child(&r->lc, &r->lrt) < 0)
			return -1;
	}
	return 0;
}

/* The library's stdio (run_opts.stdio, each > 2) becomes the child's 0/1 and, without bwrap, 2 (with
 * bwrap, 2 is bwrap's own pipe and the stage restores the executor's stderr from stderr_copy, which
 * the attempt took from stdio[2]). Async-signal-safe. */
static int child_stdio(const struct run *r, bool with_stderr)
{
	for (int i = 0; r->o.stdio && i < (with_stderr ? 3 : 2); i++)
		if (dup2(r->o.stdio[i], i) < 0)
			return -1;
	return 0;
}

/* bwrap joining a user namespace (--userns) switches to the sandbox uid in its sandbox's init, which
 * then outlives bwrap's own death (bwrap 0.8): a SIGKILL of sbxsup would leave the run behind where
 * no cgroup can end it. So bwrap runs as the init of a pid namespace of ours, bound to this child by
 * PDEATHSIG: when this child dies (sbxsup's death, life_child_setup), bwrap dies and the kernel ends
 * everything in that namespace. This child then only relays bwrap's exit status. Returns in the
 * process that execs bwrap; never in this one. */
static void bwrap_as_init(void)
{
	if (unshare(CLONE_NEWPID) < 0)
		return; /* (refused, e.g. by a container's seccomp profile: bwrap's own binding only) */
	pid_t b = fork();
	if (b < 0) {
		dprintf(2, "child setup failed: fork: %s", strerror(errno));
		_exit(SBX_EXIT_INTERNAL);
	}
	if (b == 0) {
		/* the namespace's own procfs, in this child's private mount namespace: bwrap reads its
		 * children's /proc/PID by the pids it sees */
		if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0 ||
		    mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0)
			_exit(SBX_EXIT_INTERNAL);
		return;
	}
	/* nothing of the run stays open here (EOF on the control socket and bwrap's stderr is bwrap's) */
	(void)syscall(SYS_close_range, 0u, ~0u, 0u);
	int st;
	while (waitpid(b, &st, 0) < 0)
		if (errno != EINTR)
			_exit(SBX_EXIT_INTERNAL);
	_exit(WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st));
}

static __attribute__((noreturn)) void child_bwrap(struct run *r, const struct child_fds *f)
{
	char **argv = f->argv;
	child_signals(&r->oldmask);
	if (child_common(r, f) < 0) {
		dprintf(f->err_w, "child setup failed: %s", strerror(errno));
		_exit(SBX_EXIT_INTERNAL);
	}
	/* --shadow's overlay over the workspace and the /etc view (bwrap_etc.h), in a mount namespace of
	 * this child only, which bwrap then binds from */
	if (r->sp.on || r->lc.etc_view || r->lc.own_userns) {
		const char *what = "";
		if (sbx_mntns_private(&what) < 0) {
			dprintf(f->err_w, "child setup failed: %s: %s", what, strerror(errno));
			_exit(SBX_EXIT_INTERNAL);
		}
	}
	/* (root, the workspace staged: the overlay is its staged mount, sd_bwrap_child) */
	bool ws_staged = false;
	for (size_t i = 0; r->lc.stage_dir && i < r->lc.nstaged; i++)
		ws_staged |= !strcmp(r->lc.staged[i], r->sp.workspace);
	if (r->sp.on && !ws_staged && shadow_mount_at(&r->sp, geteuid() != 0) < 0)
		_exit(SBX_EXIT_INTERNAL);
	/* root: the write grants' idmapped mounts where bwrap binds them from, no supplementary groups */
	if (r->lc.own_userns && sd_bwrap_child(&r->sd, r->lc.stage_dir, r->d.stage[0] ? r->d.stage : r->d.self,
						 sbx_layer_on(&r->L, layer_preload.id) ? r->d.preload : NULL) < 0)
		_exit(SBX_EXIT_INTERNAL);
	if (r->lc.etc_view && bwrap_etc_mount(r->plan.pol, r->plan.etclow, r->lc.etc_view, SBX_RUN_PRELOAD) < 0) {
		dprintf(f->err_w, "child setup failed: the /etc view (an overlay adding ld.so.preload) could "
			"not be mounted: %s (SBXSUP_ETC_OVERLAY=0 binds /etc entry by entry instead)", strerror(errno));
		_exit(SBX_EXIT_INTERNAL);
	}
	/* A non-root sbxsup holding capabilities (file capabilities for the BPF layers, or a container
	 * that grants them to its non-root user): bwrap refuses to run with capabilities unless setuid
	 * ("Unexpected capabilities but not setuid"), and needs none — its user namespace gives it
	 * what it uses. Cleared here, after the layers' set-up and before exec. */
	if (getuid() != 0 && geteuid() != 0 && sbx_caps_clear() < 0) {
		dprintf(f->err_w, "child setup failed: clear capabilities before bwrap: %s", strerror(errno));
		_exit(SBX_EXIT_INTERNAL);
	}
	cloexec_all();
	keep_fd(r->pol_fd);
	if (r->lc.fixed_channel) {
		/* bwrap copies the policy to /run/sbxsup/policy (--ro-bind-data) from the current
		 * offset, and closes it; the report socket is reached at /run/sbxsup/report */
		if (lseek(r->pol_fd, 0, SEEK_SET) < 0)
			_exit(SBX_EXIT_INTERNAL);
	} else {
		keep_fd(f->rep_c);
	}
	keep_fd(f->ctl_c);
	keep_fd(f->ldso);
	keep_fd(r->sd.userns_fd); /* bwrap joins it (--userns) and closes it */
	keep_fd(f->passwd);
	keep_fd(f->group);
	keep_fd(f->resolv);
	keep_fd(r->att.stderr_copy);
	if (child_stdio(r, false) < 0 || dup2(f->err_w, 2) < 0)
		_exit(SBX_EXIT_INTERNAL);
	if (r->lc.own_userns)
		bwrap_as_init();
	execv(argv[0], argv);
	dprintf(2, "exec %s: %s", argv[0], strerror(errno));
	_exit(SBX_EXIT_INTERNAL);
}

/* The init of a run without a pid namespace of its own (no namespace could be made): a child
 * subreaper, so every orphan of the run (a double-forked setsid daemon) is re-parented to it, not
 * to whatever is above sbxsup. It outlives sbxsup by design: when sbxsup dies (its parent-death
 * signal, SIGUSR2 here) or the command ends, it kills every descendant, then exits. It keeps the
 * invoker's identity (the stage switches, sd_child_identity), so an executor that was switched to
 * the unprivileged identity cannot signal it. Returns the blocked set's previous mask in *prev. */
static int orphan_guard(pid_t sup, sigset_t *prev)
{
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigaddset(&set, SIGUSR2);
	if (sigprocmask(SIG_BLOCK, &set, prev) < 0 || prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) < 0 ||
	    prctl(PR_SET_PDEATHSIG, SIGUSR2, 0, 0, 0) < 0)
		return -1;
	return getppid() == sup ? 0 : -1; /* sbxsup died before the prctl */
}

static __attribute__((noreturn)) void guard_loop(pid_t sup, pid_t stage, int status_w)
{
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigaddset(&set, SIGUSR2);
	for (;;) {
		int st;
		pid_t p;
		while ((p = waitpid(-1, &st, WNOHANG)) > 0)
			if (p == stage) {
				/* the command ended: nothing it started outlives it here either (sbxsup's
				 * life_end would kill them, but not if sbxsup died meanwhile) */
				life_kill_descendants();
				if (write(status_w, &st, sizeof st) != (ssize_t)sizeof st)
					_exit(SBX_EXIT_INTERNAL);
				_exit(0);
			}
		if (getppid() != sup) {
			life_kill_descendants();
			_exit(SBX_EXIT_INTERNAL);
		}
		siginfo_t si;
		if (sigwaitinfo(&set, &si) < 0 && errno != EINTR)
			_exit(SBX_EXIT_INTERNAL);
	}
}

static __attribute__((noreturn)) void child_direct(struct run *r, const struct child_fds *f)
{
	pid_t sup = getppid();
	child_signals(&r->oldmask);
	if (child_common(r, f) < 0) {
		sbx_msg("child setup failed: %s", strerror(errno));
		_exit(SBX_EXIT_INTERNAL);
	}
	if (r->att.pidns && sd_child_setup(&r->sd) < 0)
		_exit(SBX_EXIT_INTERNAL);
	if (child_stdio(r, true) < 0)
		_exit(SBX_EXIT_INTERNAL);
	cloexec_all();
	if (!r->lc.fixed_channel) {
		keep_fd(r->pol_fd);
		keep_fd(f->rep_c);
	}
	/* The init of the run is not ptrace-attachable by the executor's uid (execve of the command
	 * resets this for the command itself). */
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
		_exit(SBX_EXIT_INTERNAL);
	pid_t init = getpid();
	/* no pid namespace: the init guards against orphans (orphan_guard) */
	bool guard = !r->att.pidns && !r->o.disabled;
	sigset_t prev;
	if (guard && orphan_guard(sup, &prev) < 0)
		_exit(SBX_EXIT_INTERNAL);
	pid_t s = fork();
	if (s < 0) {
		sbx_msg("fork: %s", strerror(errno));
		_exit(SBX_EXIT_INTERNAL);
	}
	if (s == 0) {
		if (guard && (sigprocmask(SIG_SETMASK, &prev, NULL) < 0 ||
			      prctl(PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0) < 0 || sd_child_identity(&r->sd) < 0))
			_exit(SBX_EXIT_INTERNAL);
		if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0 || getppid() != init)
			_exit(SBX_EXIT_INTERNAL);
		/* a normal user's sbxsup reaches the run's network namespace through /proc/PID/ns of
		 * the stage (netns.h); the executor has the invoker's uid anyway, and the command's
		 * exec resets dumpable itself */
		if (!r->sd.root && prctl(PR_SET_DUMPABLE, 1, 0, 0, 0) < 0)
			_exit(SBX_EXIT_INTERNAL);
		close(f->status_w);
		struct stage_args sa = {
			.ctl_fd = f->ctl_c,
			.pol = r->plan.pol,
			.cmd = r->o.cmd,
			.envp = f->envp,
			.stderr_fd = -1,
			.keep_caps = r->o.disabled,
		};
		stage_flags(f->stage_flags, &sa);
		_exit(stage_exec(&sa));
	}
	/* The init of the run: hold nothing the stage's peer must see closed, reap, report. */
	close(f->ctl_c);
	close(f->rep_c);
	if (guard)
		guard_loop(sup, s, f->status_w);
	for (;;) {
		int st;
		pid_t p = waitpid(-1, &st, 0);
		if (p == s) {
			if (write(f->status_w, &st, sizeof st) != (ssize_t)sizeof st)
				_exit(SBX_EXIT_INTERNAL);
			_exit(0);
		}
		if (p < 0 && errno != EINTR)
			_exit(SBX_EXIT_INTERNAL);
	}
}

/* ---- the event loop ----------------------------------------------------------------------------- */

static void on_ready(struct run *r)
{
	struct attempt *t = &r->att;
	char st[CTL_MAX];
	int lfd = -1;
	pid_t pid = 0;
	int got = ctl_recv_ready(t->ctl, st, sizeof st, &lfd, &pid, &t->stage_uid);
	if (got <= 0) {
		close_fd(&t->ctl); /* EOF: the stage died before being ready */
		return;
	}
	t->ready = true;
	t->stage_pid = pid > 0 ? pid : t->child;
	/* the layers confirm themselves from the stage's status; seccomp takes its listener */
	bool preload = sbx_layer_on(&r->L, layer_preload.id);
	layers_on_ready(&r->lc, &r->lrt, st, ctl_status_get, t->stage_pid, lfd);
	char cmdst[32];
	if (ctl_status_get(st, "command", cmdst, sizeof cmdst) == 0)
		run_reason(r, strcmp(cmdst, "not_found") ? SBX_REASON_NOT_EXECUTABLE : SBX_REASON_NOT_FOUND,
			   "%s: %s", r->o.cmd[0], strcmp(cmdst, "not_found") ? "not executable" : "not found");
	if (r->o.warm && run_warm_wait(r, t->ctl) < 0) { /* pre-created: no call came */
		life_kill_now(t->child, &r->cg);
		return;
	}
	if (r->plan.wrapped) {
		if (t->wrap_err_len) /* bwrap's own warnings during a good setup: pass them on */
			(void)!write(sbx_msg_fd(), t->wrap_err, t->wrap_err_len);
		t->wrap_err_len = 0;
	}
	if (run_net_start(r) < 0 || run_preload_refused(r, preload) || run_require_missing(r)) {
		t->refused = true;
		life_kill_now(t->child, &r->cg);
		return;
	}
	run_warn_off(r);
	if (run_emit_start(r) < 0) {
		life_kill_now(t->child, &r->cg);
		return;
	}
	if ((r->o.warm ? run_warm_go(r, t->ctl) : ctl_send_go(t->ctl)) < 0)
		life_kill_now(t->child, &r->cg);
	close_fd(&t->ctl);
}

static void reap(struct run *r)
{
	int st;
	pid_t p;
	while ((p = waitpid(-1, &st, WNOHANG | WUNTRACED)) > 0) {
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

static int ldso_memfd(void)
{
	int fd = memfd_create("sbxsup-ld.so.preload", MFD_CLOEXEC);
	if (fd < 0)
		return -1;
	static const char line[] = SBX_RUN_PRELOAD "\n";
	if (write(fd, line, sizeof line - 1) != (ssize_t)(sizeof line - 1) || lseek(fd, 0, SEEK_SET) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Direct mode where the run will see the host's /proc after all (no namespace could be made, or a
 * procfs of its own cannot be mounted over a host /proc with mounts below it: a container's masked
 * /proc): its other pids are not the run's, so the policy must not grant their listing files
 * (builtin:proc-pidns). The policy is compiled again without them, sealed again, and the layers
 * follow it (as after a retry without bwrap); nothing has started yet. 0, or -1 with a message. */
static int policy_without_pidns(struct run *r)
{
	char err[512] = "";
	r->plan.no_pidns = true;
	if (plan_policy(&r->plan, r->m, &r->d, err, sizeof err) < 0) {
		sbx_msg("cannot compile the policy: %s", err);
		return -1;
	}
	if (run_setup_policy_fd(r) < 0)
		return -1;
	r->lc.pol = r->plan.pol;
	layers_replan(&r->lc, &r->lrt);
	return run_require_missing(r) ? -1 : 0;
}

/* Direct mode: the run's init in namespaces of its own (sandbox_direct.h): its death (SIGKILL of
 * sbxsup -> PDEATHSIG) takes the whole run with it, it never holds the host's uid 0, and it sees
 * a private /tmp, /dev/shm and /proc. Returns like fork() (the child also drops the PATH entries
 * it cannot see from env); -1 when no namespace could be made (the caller then forks: cgroup /
 * session / subreaper). */
static pid_t direct_spawn(struct run *r, struct strv *env)
{
	struct sd_plan *p = &r->sd;
	if (pol_own_pidns(r->plan.pol) && sd_proc_overmounted() && policy_without_pidns(r) < 0)
		return -1;
	const struct policy *pol = r->plan.pol;
	p->proc_own = pol_own_pidns(pol); /* the run's init must then mount its own /proc, or fail */
	p->netns = pol_own_netns(pol); /* plan_own_netns decided it */
	p->nexpose = 0; /* (the writable dirs: planned, run.c plan_writable; none beyond the limit here) */
	p->shadow = r->sp.on ? &r->sp : NULL;
	if (!getcwd(p->cwd, sizeof p->cwd))
		p->cwd[0] = 0;
	int rc = sd_prepare_dirs(p, r->plan.tmpdir, r->plan.repdir, r->plan.repsock);
	rc |= sd_expose(p, r->m->workspace, true) | sd_expose(p, r->plan.repdir, false);
	rc |= sd_writable(p, r->m->workspace);
	for (size_t i = 0, n = pol_dir_count(pol); i < n; i++) {
		struct pol_dir d;
		if (pol_dir_get(pol, i, &d) < 0 || !d.path || !strcmp(d.path, r->plan.tmpdir))
			continue;
		rc |= sd_expose(p, d.path, d.access & POL_WRITE);
		if (d.access & POL_WRITE)
			rc |= sd_writable(p, d.path);
	}
	rc |= sd_expose_cmd(p, r->o.cmd[0]);
	/* what the executor's own machinery loads (the preload library, sbxsup for a nested run) when
	 * it lives under the host's /tmp, which the run's private /tmp hides (a checkout in /tmp) */
	rc |= sd_expose_cmd(p, r->d.preload[0] ? r->d.preload : NULL) | sd_expose_cmd(p, r->d.self[0] ? r->d.self : NULL);
	if (rc < 0) {
		sbx_msg("run setup: %s", p->why[0] ? p->why : "too many granted paths under /tmp");
		return -1;
	}
	struct etc_identity id = {.uid = p->in_uid, .gid = p->in_gid,
				  .home = r->lc.home_dir ? r->lc.home_dir : pol_home(pol),
				  .resolv = pol_gateway(pol)};
	bwrap_etc_identity_free(&p->etc_id);
	if (bwrap_etc_identity_text(&id, &p->etc_id) < 0) {
		sbx_msg("run setup: the executor's passwd and group entries: %s", strerror(errno));
		return -1;
	}
	p->fixed = (struct sd_fixed){.on = r->lc.fixed_channel && p->mnt, .blob = r->plan.blob,
				     .bloblen = r->plan.bloblen, .report_sock = r->plan.repsock,
				     .preload_lib = r->d.preload};
	sd_fixed_open_lib(&p->fixed); /* the library, reachable whatever its directories' modes */
	pid_t pid = sd_spawn(p, &r->cg);
	if (pid != 0) {
		sd_fixed_close_lib(&p->fixed);
		bwrap_etc_identity_free(&p->etc_id); /* the child has its copy */
	}
	if (pid == 0 && sd_filter_path(p, env) < 0) /* the stage's PATH, in the child */
		_exit(SBX_EXIT_INTERNAL);
	return pid;
}

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
	int ctlp[2] = {-1, -1}, repp[2] = {-1, -1}, alive[2] = {-1, -1}, stp[2] = {-1, -1},
	    errp[2] = {-1, -1}, ldso = -1, pwfd = -1, grfd = -1, rsfd = -1;
	struct strv env = {0}, argv = {0}, flags = {0};
	/* the plan's mode: planned wrapped only while the wrapper layer is on (run.c replan) */
	const struct layer_ops *w = r->plan.wrapped ? layers_wrapper(&r->L) : NULL;
	attempt_init(t);
	if (r->plan.wrapped && !w) {
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
	r->lc.report_sock = r->repsrv >= 0 ? r->plan.repsock : NULL;
	if (!r->lc.report_sock)
		r->lc.fixed_channel = false;
	if (plan_attempt_env(&r->plan, &r->lc, r->pol_fd, repp[1], r->a.run, r->o.disabled, &env) < 0) {
		sbx_msg("out of memory building the environment");
		goto out;
	}
	r->lc.env = &env;
	if (w) {
		char err[256];
		int err_fd = r->o.stdio ? r->o.stdio[2] : 2; /* the executor's stderr, which the stage restores */
		if (pipe2(errp, O_CLOEXEC) < 0 || (t->stderr_copy = fcntl(err_fd, F_DUPFD_CLOEXEC, 3)) < 0) {
			sbx_msg("pipe: %s", strerror(errno));
			goto out;
		}
		/* the executor's identity (root: a user namespace onto an unprivileged host identity, the
		 * write grants' idmapped mounts; sandbox_direct.h) */
		r->sd.shadow = r->sp.on ? &r->sp : NULL;
		if (!r->o.disabled && sd_bwrap_prepare(&r->sd, r->plan.repdir, r->plan.repsock) < 0) {
			/* as a bwrap set-up failure: the run goes on without bwrap (where the executor
			 * still never runs as host root) unless bwrap is required */
			t->wrap_err_len = (size_t)snprintf(t->wrap_err, sizeof t->wrap_err, "the executor's host "
							   "identity (uid %u): %s", (unsigned)r->sd.host_uid, r->sd.why);
			if (t->wrap_err_len >= sizeof t->wrap_err)
				t->wrap_err_len = sizeof t->wrap_err - 1;
			res = ATT_SETUP_FAILED;
			goto out;
		}
		/* ld.so.preload's text for --ro-bind-data, unless the /etc view holds the file */
		if (sbx_layer_on(&r->L, layer_preload.id) && !r->lc.etc_view && (ldso = ldso_memfd()) < 0) {
			sbx_msg("memfd: %s", strerror(errno));
			goto out;
		}
		/* the executor's own passwd and group entries (bwrap_etc.h), bound over the host's */
		struct etc_identity id = {.uid = r->lc.uid, .gid = r->lc.gid,
					  .home = r->lc.home_dir ? r->lc.home_dir : pol_home(r->plan.pol)};
		if (bwrap_etc_identity_memfds(&id, &pwfd, &grfd) < 0 ||
		    (pol_gateway(r->plan.pol) && (rsfd = bwrap_etc_resolv_memfd()) < 0)) {
			sbx_msg("the executor's passwd and group entries: %s", strerror(errno));
			goto out;
		}
		r->lc.fds = (struct layer_fds){.ctl = ctlp[1], .stderr_copy = t->stderr_copy, .ldso = ldso,
					       .policy = r->lc.fixed_channel ? r->pol_fd : -1,
					       .userns = r->sd.userns_fd, .passwd = pwfd, .group = grfd,
					       .resolv = rsfd};
		if (layers_wrap(&r->lc, &argv, err, sizeof err) < 0) {
			sbx_msg("%s", err);
			goto out;
		}
	} else if (layers_stage_flags(&r->L, &flags) < 0) {
		sbx_msg("out of memory");
		goto out;
	}

	struct child_fds cf = {.alive_r = alive[0], .ctl_c = ctlp[1], .rep_c = repp[1],
			       .status_w = stp[1], .err_w = errp[1], .ldso = ldso, .passwd = pwfd, .group = grfd,
			       .resolv = rsfd,
			       .argv = argv.v, .envp = env.v, .stage_flags = flags.v};
	pid_t pid;
	if (w) {
		pid = cg_spawn(&r->cg, 0);
	} else {
		/* A pid namespace makes "the child died" mean "the whole run died", even on SIGKILL of
		 * sbxsup; without one the cgroup / session / subreaper do the job. */
		pid = !r->o.disabled ? direct_spawn(r, &env) : -1;
		if (pid < 0 && r->sp.on) { /* never the real workspace instead of the shadow */
			sbx_msg("--shadow: the run's namespaces could not be made: not running");
			run_reason(r, SBX_REASON_SHADOW_UNAVAILABLE, "--shadow: no mount namespace for the overlay");
			goto out;
		}
		bool was_gw = pol_gateway(r->plan.pol);
		if (pid < 0 && !r->o.disabled && (pol_own_pidns(r->plan.pol) || pol_own_netns(r->plan.pol))) {
			/* no namespace after all: the host's /proc and the host's loopback, no gateway
			 * (the network is enforced by address only: run_net_level) */
			r->plan.no_netns = true;
			if (policy_without_pidns(r) < 0)
				goto out;
		}
		if (pid < 0 && (r->lc.fixed_channel || was_gw)) {
			/* no mount namespace after all: the environment is the preload's channel (and
			 * names no gateway proxy) */
			r->lc.fixed_channel = false;
			strv_free(&env);
			if (plan_attempt_env(&r->plan, &r->lc, r->pol_fd, repp[1], r->a.run, r->o.disabled,
					     &env) < 0) {
				sbx_msg("out of memory building the environment");
				goto out;
			}
			r->lc.env = &env;
			cf.envp = env.v;
		}
		bool accepted = false;
		if (pid < 0 && !r->o.disabled && sd_root_executor(&r->sd, &accepted) && !accepted) {
			/* never silently the host's uid 0 */
			sbx_msg("refused: %s; the executor would run as the host's uid 0 (grant CAP_SETUID and "
				"CAP_SETGID, or accept it with SBXSUP_ALLOW_ROOT_EXECUTOR=1)", r->sd.identity);
			run_reason(r, SBX_REASON_IDENTITY, "no unprivileged identity: %s", r->sd.identity);
			goto out;
		}
		if (pid < 0)
			pid = cg_spawn(&r->cg, 0);
		else
			t->pidns = true;
	}
	if (pid < 0) {
		sbx_msg("fork: %s", strerror(errno));
		goto out;
	}
	if (pid == 0) {
		if (w)
			child_bwrap(r, &cf);
		child_direct(r, &cf);
	}
	t->child = pid;
	if (w)
		sd_bwrap_done(&r->sd); /* the child holds them now */
	close_fd(&alive[0]);
	close_fd(&ctlp[1]);
	close_fd(&repp[1]);
	close_fd(&stp[1]);
	close_fd(&errp[1]);
	close_fd(&ldso);
	close_fd(&pwfd);
	close_fd(&grfd);
	close_fd(&rsfd);
	close_fd(&t->stderr_copy);
	t->ctl = take_fd(&ctlp[0]);
	t->rep = take_fd(&repp[0]);
	t->status_rd = take_fd(&stp[0]);
	t->err_rd = take_fd(&errp[0]);
	t->alive_w = take_fd(&alive[1]);
	t->rx.fd = t->rep;
	t->rx.addr_fd = r->repsrv;
	t->rx.pol = r->plan.pol;

	loop(r);

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
		     w != NULL || t->pidns) > 0)
		sbx_msg("warning: some processes of the run could not be accounted for");
	drain_all(r, true);
	if (w && !t->ready && !t->timed_out && !t->fwd_signal && !r->audit_failed)
		res = ATT_SETUP_FAILED;
	else
		res = ATT_DONE;
out:
	run_net_stop(r); /* the gateway lived for this attempt's namespace only */
	layers_stop(&r->lrt, true); /* what lived for this attempt only (seccomp's listener) */
	if (w)
		sd_bwrap_done(&r->sd);
	r->lc.env = &r->plan.env;
	r->lc.fds = (struct layer_fds){.ctl = -1, .stderr_copy = -1, .ldso = -1, .policy = -1, .userns = -1,
				       .passwd = -1, .group = -1, .resolv = -1};
	close_fd(&pwfd);
	close_fd(&grfd);
	close_fd(&rsfd);
	close_fd(&ctlp[0]);
	close_fd(&ctlp[1]);
	close_fd(&repp[0]);
	close_fd(&repp[1]);
	close_fd(&alive[0]);
	close_fd(&alive[1]);
	close_fd(&stp[0]);
	close_fd(&stp[1]);
	close_fd(&errp[0]);
	close_fd(&errp[1]);
	close_fd(&ldso);
	close_fd(&t->stderr_copy);
	close_fd(&t->ctl);
	close_fd(&t->rep);
	close_fd(&t->status_rd);
	close_fd(&t->err_rd);
	close_fd(&t->alive_w);
	strv_free(&env);
	strv_free(&argv);
	strv_free(&flags);
	return res;
}

/* ---- exit status -------------------------------------------------------------------------------- */

void run_exit_status(const struct run *r, int *code, int *sig)
{
	const struct attempt *t = &r->att;
	*sig = 0;
	*code = SBX_EXIT_INTERNAL;
	int st = t->child_status;
	bool wrapped = r->plan.wrapped;
	if (!wrapped && !t->have_stage_status) {
		*code = t->timed_out ? SBX_EXIT_TIMEOUT : SBX_EXIT_INTERNAL;
		if (t->fwd_signal)
			*code = 128 + t->fwd_signal, *sig = t->fwd_signal;
		return;
	}
	if (!wrapped)
		st = t->stage_status;
	if (WIFEXITED(st)) {
		*code = WEXITSTATUS(st);
		/* bwrap reports a command killed by signal N as 128+N */
		if (wrapped && *code > 128 && *code < 128 + 65)
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
