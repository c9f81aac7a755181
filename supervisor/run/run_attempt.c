/* run_attempt.c — one attempt of a run: start the command exactly once (in bwrap, or directly with
 * the stage in-process, as root in a pid namespace of its own), release it when the stage is ready
 * (run.start first), turn what the layers report into audit events while it runs, forward signals,
 * enforce the wall clock, and end the whole process tree before returning. See run_int.h. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bwrap_layer.h"
#include "cmd.h"
#include "ctl.h"
#include "env.h"
#include "lifetime.h"
#include "report.h"
#include "run_int.h"
#include "seccomp_layer.h"
#include "landlock_layer.h"
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

struct child_fds { int alive_r, ctl_c, rep_c, status_w, err_w, ldso; };

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
		if (sbx_layer_on(&r->L, SBX_L_LIMITS) && limits_apply(&r->lim, r->nproc_rlimit, r->data_rlimit) < 0)
			return -1;
	}
	return 0;
}

static __attribute__((noreturn)) void child_bwrap(struct run *r, const struct child_fds *f,
						  char **argv)
{
	child_signals(&r->oldmask);
	if (child_common(r, f) < 0) {
		dprintf(f->err_w, "child setup failed: %s", strerror(errno));
		_exit(SBX_EXIT_INTERNAL);
	}
	cloexec_all();
	keep_fd(r->pol_fd);
	keep_fd(f->rep_c);
	keep_fd(f->ctl_c);
	keep_fd(f->ldso);
	keep_fd(r->stderr_copy);
	if (dup2(f->err_w, 2) < 0)
		_exit(SBX_EXIT_INTERNAL);
	execv(argv[0], argv);
	dprintf(2, "exec %s: %s", argv[0], strerror(errno));
	_exit(SBX_EXIT_INTERNAL);
}

static __attribute__((noreturn)) void child_direct(struct run *r, const struct child_fds *f)
{
	child_signals(&r->oldmask);
	if (child_common(r, f) < 0) {
		sbx_msg("child setup failed: %s", strerror(errno));
		_exit(SBX_EXIT_INTERNAL);
	}
	cloexec_all();
	keep_fd(r->pol_fd);
	keep_fd(f->rep_c);
	/* The init of the run is not ptrace-attachable by the executor's uid (execve of the command
	 * resets this for the command itself). */
	if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) < 0)
		_exit(SBX_EXIT_INTERNAL);
	pid_t init = getpid();
	pid_t s = fork();
	if (s < 0) {
		sbx_msg("fork: %s", strerror(errno));
		_exit(SBX_EXIT_INTERNAL);
	}
	if (s == 0) {
		if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0 || getppid() != init)
			_exit(SBX_EXIT_INTERNAL);
		close(f->status_w);
		struct stage_args sa = {
			.ctl_fd = f->ctl_c,
			.landlock = sbx_layer_on(&r->L, SBX_L_LANDLOCK),
			.seccomp = sbx_layer_on(&r->L, SBX_L_SECCOMP),
			.pol = r->pol,
			.cmd = r->o.cmd,
			.envp = r->env.v,
			.stderr_fd = -1,
			.keep_caps = r->o.disabled,
			.netfilter = sbx_layer_on(&r->L, SBX_L_NETFILTER),
			.report_files = !sbx_layer_on(&r->L, SBX_L_PROBES) && !sbx_layer_on(&r->L, SBX_L_PRELOAD),
		};
		_exit(stage_exec(&sa));
	}
	/* The init of the run: hold nothing the stage's peer must see closed, reap, report. */
	close(f->ctl_c);
	close(f->rep_c);
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

static void apply_stage_status(struct run *r, const char *st)
{
	char v[512], w[512];
	static const struct { enum sbx_layer l; const char *k, *kl, *kw; } m[] = {
		{SBX_L_LANDLOCK, "landlock", "landlock_level", "landlock_why"},
		{SBX_L_SECCOMP, "seccomp", "seccomp_level", "seccomp_why"},
	};
	for (size_t i = 0; i < 2; i++) {
		if (!sbx_layer_on(&r->L, m[i].l))
			continue;
		if (ctl_status_get(st, m[i].k, v, sizeof v) < 0) {
			sbx_layer_set_off(&r->L, m[i].l, "the stage did not report it");
		} else if (!strcmp(v, "on")) {
			ctl_status_get(st, m[i].kl, w, sizeof w);
			if (w[0])
				sbx_layer_set_on(&r->L, m[i].l, "%s", w);
		} else {
			ctl_status_get(st, m[i].kw, w, sizeof w);
			sbx_layer_set_off(&r->L, m[i].l, "%s", w[0] ? w : "failed in the stage");
		}
	}
}

static void on_ready(struct run *r, bool bwrap_mode)
{
	char st[CTL_MAX];
	int lfd = -1;
	pid_t pid = 0;
	int got = ctl_recv_ready(r->ctl, st, sizeof st, &lfd, &pid);
	if (got <= 0) {
		close_fd(&r->ctl); /* EOF: the stage died before being ready */
		return;
	}
	r->ready = true;
	r->stage_pid = pid > 0 ? pid : r->child;
	r->listener = lfd;
	sbx_seccomp_state_init(&r->sc_state, r->pol, sbx_layer_on(&r->L, SBX_L_NETFILTER));
	apply_stage_status(r, st);
	if (sbx_layer_on(&r->L, SBX_L_LANDLOCK)) { /* kernel: where Landlock's refusals are reported */
		char lv[sizeof r->L.level[0]], d[64];
		bool pr = sbx_layer_on(&r->L, SBX_L_PROBES), pl = sbx_layer_on(&r->L, SBX_L_PRELOAD);
		snprintf(lv, sizeof lv, "%s", r->L.level[SBX_L_LANDLOCK]);
		sbx_layer_set_on(&r->L, SBX_L_LANDLOCK, "%s; denials: %s", lv,
				 sbx_landlock_denials(atoi(lv + 4), pr,
						      sbx_layer_on(&r->L, SBX_L_SECCOMP) &&
						      strstr(r->L.level[SBX_L_SECCOMP], "reporter"), pl, d, sizeof d));
	}
	if (bwrap_mode) {
		sbx_layer_set_on(&r->L, SBX_L_BWRAP, "%s: user, pid, ipc, uts, cgroup%s namespaces",
				 r->d.bwrap, pol_net_mode(r->pol) == POL_NET_NONE ? ", net" : "");
		if (r->bwrap_err_len) /* bwrap's own warnings during a good setup: pass them on */
			(void)!write(2, r->bwrap_err, r->bwrap_err_len);
		r->bwrap_err_len = 0;
	}
	if (r->pr && sbx_layer_on(&r->L, SBX_L_PROBES) && sbx_probes_arm(r->pr, r->stage_pid) < 0)
		sbx_layer_set_off(&r->L, SBX_L_PROBES, "arming the probes on pid %d failed", (int)r->stage_pid);
	if (run_require_missing(r)) {
		r->refused = true;
		life_kill_now(r->child, &r->cg);
		return;
	}
	run_warn_degraded(r);
	if (run_emit_start(r) < 0) {
		life_kill_now(r->child, &r->cg);
		return;
	}
	if (ctl_send_go(r->ctl) < 0)
		life_kill_now(r->child, &r->cg);
	close_fd(&r->ctl);
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
		if (p == r->child) {
			r->child_done = true;
			r->child_status = st;
		}
	}
}

static void on_signal(struct run *r)
{
	struct signalfd_siginfo si;
	while (read(r->sfd, &si, sizeof si) == (ssize_t)sizeof si) {
		int sig = (int)si.ssi_signo;
		if (sig == SIGCHLD)
			continue; /* reaped below */
		if (r->ready && r->stage_pid > 0) {
			kill(r->stage_pid, sig);
		} else {
			r->fwd_signal = sig;
			life_kill_now(r->child, &r->cg);
		}
	}
	reap(r);
}

static void drain_all(struct run *r)
{
	/* the tree is dead: what is queued is all there is (bounded by the socket buffer) */
	for (int i = 0; i < 64; i++) {
		uint64_t before = r->rx.acks + r->rx.denies + r->rx.rejected;
		if (report_rx_drain(&r->rx, &r->a) < 0) {
			r->audit_failed = true;
			break;
		}
		if (r->rx.acks + r->rx.denies + r->rx.rejected == before)
			break;
	}
	if (r->nf && sbx_netfilter_drain(r->nf, &r->a) < 0 && r->a.failed)
		r->audit_failed = true;
	if (r->pr && sbx_probes_drain(r->pr, &r->a) < 0 && r->a.failed)
		r->audit_failed = true;
}

static void loop(struct run *r, bool bwrap_mode)
{
	while (!r->child_done) {
		struct pollfd p[9];
		int n = 0, i_sig = -1, i_tim = -1, i_ctl = -1, i_rep = -1, i_err = -1, i_lst = -1,
		    i_nf = -1, i_pr = -1, i_addr = -1;
		p[i_sig = n++] = (struct pollfd){.fd = r->sfd, .events = POLLIN};
		p[i_tim = n++] = (struct pollfd){.fd = r->tfd, .events = POLLIN};
		if (r->ctl >= 0 && !r->ready)
			p[i_ctl = n++] = (struct pollfd){.fd = r->ctl, .events = POLLIN};
		p[i_rep = n++] = (struct pollfd){.fd = r->rep, .events = POLLIN};
		if (r->rx.addr_fd >= 0)
			p[i_addr = n++] = (struct pollfd){.fd = r->rx.addr_fd, .events = POLLIN};
		if (r->err_rd >= 0)
			p[i_err = n++] = (struct pollfd){.fd = r->err_rd, .events = POLLIN};
		if (r->listener >= 0)
			p[i_lst = n++] = (struct pollfd){.fd = r->listener, .events = POLLIN};
		if (r->nf && sbx_netfilter_fd(r->nf) >= 0)
			p[i_nf = n++] = (struct pollfd){.fd = sbx_netfilter_fd(r->nf), .events = POLLIN};
		if (r->pr && sbx_probes_fd(r->pr) >= 0)
			p[i_pr = n++] = (struct pollfd){.fd = sbx_probes_fd(r->pr), .events = POLLIN};
		if (poll(p, (nfds_t)n, -1) < 0) {
			if (errno == EINTR)
				continue;
			sbx_msg("poll: %s", strerror(errno));
			life_kill_now(r->child, &r->cg);
			r->audit_failed = true; /* an internal failure: exit 125 */
			reap(r);
			continue;
		}
		if (p[i_tim].revents) {
			uint64_t x;
			(void)!read(r->tfd, &x, sizeof x);
			r->timed_out = true;
			life_kill_now(r->child, &r->cg);
		}
		if (i_ctl >= 0 && p[i_ctl].revents)
			on_ready(r, bwrap_mode);
		if ((p[i_rep].revents || (i_addr >= 0 && p[i_addr].revents)) &&
		    report_rx_drain(&r->rx, &r->a) < 0)
			r->audit_failed = true;
		if (i_err >= 0 && p[i_err].revents) {
			char buf[512];
			ssize_t k = read(r->err_rd, buf, sizeof buf);
			if (k <= 0) {
				close_fd(&r->err_rd);
			} else if (!r->ready) {
				size_t room = sizeof r->bwrap_err - 1 - r->bwrap_err_len;
				size_t c = (size_t)k < room ? (size_t)k : room;
				memcpy(r->bwrap_err + r->bwrap_err_len, buf, c);
				r->bwrap_err_len += c;
			} else {
				(void)!write(2, buf, (size_t)k);
			}
		}
		if (i_lst >= 0 && p[i_lst].revents) {
			if (p[i_lst].revents & (POLLHUP | POLLERR | POLLNVAL) && !(p[i_lst].revents & POLLIN))
				close_fd(&r->listener);
			else if (sbx_seccomp_handle_state(r->listener, &r->a, &r->sc_state) < 0) {
				if (r->a.failed)
					r->audit_failed = true;
				close_fd(&r->listener);
			}
		}
		if (i_nf >= 0 && p[i_nf].revents && sbx_netfilter_drain(r->nf, &r->a) < 0 && r->a.failed)
			r->audit_failed = true;
		if (i_pr >= 0 && p[i_pr].revents && sbx_probes_drain(r->pr, &r->a) < 0 && r->a.failed)
			r->audit_failed = true;
		if (p[i_sig].revents)
			on_signal(r);
		if (r->audit_failed)
			life_kill_now(r->child, &r->cg);
	}
}

/* ---- one attempt ---------------------------------------------------------------------------------- */

static int make_env(struct run *r, struct strv *env, int rep_c, bool bwrap_mode)
{
	for (size_t i = 0; i < r->env.n; i++)
		if (strv_add(env, r->env.v[i]) < 0)
			return -1;
	if (r->o.disabled)
		return 0;
	char v[32];
	int rc = 0;
	snprintf(v, sizeof v, "%d", r->pol_fd);
	rc |= env_set(env, SBX_ENV_POLICY_FD, v);
	snprintf(v, sizeof v, "%d", rep_c);
	rc |= env_set(env, SBX_ENV_REPORT_FD, v);
	rc |= env_set(env, SBX_ENV_RUN, r->a.run);
	if (sbx_layer_on(&r->L, SBX_L_PRELOAD))
		rc |= env_set(env, "LD_PRELOAD", bwrap_mode ? SBX_RUN_PRELOAD : r->d.preload);
	if (sbx_layer_on(&r->L, SBX_L_PRELOAD) && r->repsrv >= 0)
		rc |= env_set(env, SBX_ENV_REPORT_ADDR, bwrap_mode ? SBX_RUN_REPORT : r->repsock);
	return rc;
}

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

/* Born inside the run cgroup v2 where the kernel allows it (no cgroup.procs write): cgroup.h. */
static pid_t clone_ns(struct cg_run *cg, unsigned long flags)
{
	return cg_spawn(cg, flags);
}

static int write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = write(fd, s, strlen(s));
	close(fd);
	return n == (ssize_t)strlen(s) ? 0 : -1;
}

/* The child's user namespace maps our own uid and gid to themselves: the executor keeps the
 * caller's identity (and loses every capability at its execve, like any non-root program). */
static int write_id_maps(pid_t pid)
{
	char p[64], m[64];
	snprintf(p, sizeof p, "/proc/%d/uid_map", (int)pid);
	snprintf(m, sizeof m, "%u %u 1\n", (unsigned)getuid(), (unsigned)getuid());
	if (write_str(p, m) < 0)
		return -1;
	snprintf(p, sizeof p, "/proc/%d/setgroups", (int)pid);
	if (write_str(p, "deny") < 0 && errno != ENOENT)
		return -1;
	snprintf(p, sizeof p, "/proc/%d/gid_map", (int)pid);
	snprintf(m, sizeof m, "%u %u 1\n", (unsigned)getgid(), (unsigned)getgid());
	return write_str(p, m);
}

/* Direct mode: the child in a pid namespace of its own, so that its death (SIGKILL of sbxsup ->
 * PDEATHSIG) takes the whole run with it. Root: CLONE_NEWPID. Others: CLONE_NEWUSER|CLONE_NEWPID
 * with identity maps (the child waits on `sync` until they are written). Returns like fork();
 * -1 when no namespace could be made (the caller then forks: cgroup / session / subreaper). */
static pid_t spawn_in_pidns(struct cg_run *cg)
{
	if (geteuid() == 0)
		return clone_ns(cg, CLONE_NEWPID);
	int sp[2];
	if (pipe2(sp, O_CLOEXEC) < 0)
		return -1;
	pid_t pid = clone_ns(cg, CLONE_NEWUSER | CLONE_NEWPID);
	if (pid == 0) {
		char c;
		close(sp[1]);
		if (read(sp[0], &c, 1) != 1)
			_exit(SBX_EXIT_INTERNAL);
		close(sp[0]);
		return 0;
	}
	close(sp[0]);
	if (pid > 0 && (write_id_maps(pid) < 0 || write(sp[1], "g", 1) != 1)) {
		kill(pid, SIGKILL);
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
		pid = -1;
	}
	close(sp[1]);
	return pid;
}

enum attempt_result run_attempt(struct run *r, bool bwrap_mode)
{
	enum attempt_result res = ATT_FAIL;
	int ctlp[2] = {-1, -1}, repp[2] = {-1, -1}, alive[2] = {-1, -1}, stp[2] = {-1, -1},
	    errp[2] = {-1, -1}, ldso = -1;
	struct strv env = {0}, argv = {0};
	r->child = -1;
	r->stage_pid = 0;
	r->ready = r->child_done = r->have_stage_status = r->pidns = false;
	r->ctl = r->rep = r->status_rd = r->err_rd = r->listener = r->alive_w = r->stderr_copy = -1;
	r->bwrap_err_len = 0;
	memset(&r->rx, 0, sizeof r->rx);
	r->rx.fd = r->rx.addr_fd = -1;

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
	if (make_env(r, &env, repp[1], bwrap_mode) < 0) {
		sbx_msg("out of memory building the environment");
		goto out;
	}
#if defined(__SANITIZE_ADDRESS__)
	/* ASan builds only: the instrumented stage starts behind /etc/ld.so.preload; it removes
	 * these two before exec'ing the command. */
	if (bwrap_mode && !r->o.disabled &&
	    (env_set(&env, "ASAN_OPTIONS", "verify_asan_link_order=0:detect_leaks=0") < 0 ||
	     env_set(&env, "SBXSUP_ASAN_STAGE", "1") < 0))
		goto out;
#endif
	if (bwrap_mode) {
		char err[256];
		if (pipe2(errp, O_CLOEXEC) < 0 || (r->stderr_copy = fcntl(2, F_DUPFD_CLOEXEC, 3)) < 0) {
			sbx_msg("pipe: %s", strerror(errno));
			goto out;
		}
		if (sbx_layer_on(&r->L, SBX_L_PRELOAD) && (ldso = ldso_memfd()) < 0) {
			sbx_msg("memfd: %s", strerror(errno));
			goto out;
		}
		struct bwrap_in bi = {
			.bwrap = r->d.bwrap, .self_exe = r->d.self,
			.preload_lib = sbx_layer_on(&r->L, SBX_L_PRELOAD) ? r->d.preload : NULL,
			.ldso_fd = ldso, .workspace = r->m->workspace,
			.share_net = pol_net_mode(r->pol) != POL_NET_NONE, .env = &env,
			.report_sock = sbx_layer_on(&r->L, SBX_L_PRELOAD) && r->repsrv >= 0 ? r->repsock : NULL,
		};
		if (bwrap_argv(r->pol, &bi, &argv, err, sizeof err) < 0) {
			sbx_msg("%s", err);
			goto out;
		}
		int rc = strv_addv(&argv, SBX_RUN_SBXSUP, "__stage", "--ctl-fd", NULL);
		rc |= strv_addf(&argv, "%d", ctlp[1]);
		rc |= strv_add(&argv, "--stderr-fd");
		rc |= strv_addf(&argv, "%d", r->stderr_copy);
		if (sbx_layer_on(&r->L, SBX_L_LANDLOCK))
			rc |= strv_add(&argv, "--landlock");
		if (sbx_layer_on(&r->L, SBX_L_SECCOMP))
			rc |= strv_add(&argv, "--seccomp");
		if (sbx_layer_on(&r->L, SBX_L_NETFILTER)) /* kernel: Landlock/seccomp leave hosts to it */
			rc |= strv_add(&argv, "--netfilter");
		if (!sbx_layer_on(&r->L, SBX_L_PROBES) && !sbx_layer_on(&r->L, SBX_L_PRELOAD))
			rc |= strv_add(&argv, "--report-files"); /* kernel: the seccomp reporter */
		rc |= strv_add(&argv, "--");
		for (size_t i = 0; r->o.cmd[i]; i++)
			rc |= strv_add(&argv, r->o.cmd[i]);
		if (rc) {
			sbx_msg("out of memory building the bwrap argv");
			goto out;
		}
	}
	if (!bwrap_mode) { /* the stage's environment in direct mode (bwrap mode: --setenv) */
		strv_free(&r->env);
		r->env = env;
		memset(&env, 0, sizeof env);
	}

	struct child_fds cf = {.alive_r = alive[0], .ctl_c = ctlp[1], .rep_c = repp[1],
			       .status_w = stp[1], .err_w = errp[1], .ldso = ldso};
	pid_t pid;
	if (bwrap_mode) {
		pid = cg_spawn(&r->cg, 0);
	} else {
		/* A pid namespace makes "the child died" mean "the whole run died", even on SIGKILL of
		 * sbxsup; without one the cgroup / session / subreaper do the job. */
		pid = !r->o.disabled ? spawn_in_pidns(&r->cg) : -1;
		if (pid < 0)
			pid = cg_spawn(&r->cg, 0);
		else
			r->pidns = true;
	}
	if (pid < 0) {
		sbx_msg("fork: %s", strerror(errno));
		goto out;
	}
	if (pid == 0) {
		if (bwrap_mode)
			child_bwrap(r, &cf, argv.v);
		child_direct(r, &cf);
	}
	r->child = pid;
	close_fd(&alive[0]);
	close_fd(&ctlp[1]);
	close_fd(&repp[1]);
	close_fd(&stp[1]);
	close_fd(&errp[1]);
	close_fd(&ldso);
	close_fd(&r->stderr_copy);
	r->ctl = take_fd(&ctlp[0]);
	r->rep = take_fd(&repp[0]);
	r->status_rd = take_fd(&stp[0]);
	r->err_rd = take_fd(&errp[0]);
	r->alive_w = take_fd(&alive[1]);
	r->rx.fd = r->rep;
	r->rx.addr_fd = r->repsrv;
	r->rx.pol = r->pol;

	loop(r, bwrap_mode);

	/* The main child is gone: collect the stage's status (direct mode), drain, end the tree. */
	if (r->status_rd >= 0) {
		int st;
		if (read(r->status_rd, &st, sizeof st) == (ssize_t)sizeof st) {
			r->stage_status = st;
			r->have_stage_status = true;
		}
	}
	if (r->err_rd >= 0 && !r->ready) {
		ssize_t k;
		fcntl(r->err_rd, F_SETFL, O_NONBLOCK);
		while (r->bwrap_err_len < sizeof r->bwrap_err - 1 &&
		       (k = read(r->err_rd, r->bwrap_err + r->bwrap_err_len,
				 sizeof r->bwrap_err - 1 - r->bwrap_err_len)) > 0)
			r->bwrap_err_len += (size_t)k;
	}
	drain_all(r);
	if (life_end(r->child, &r->child_done, &r->child_status, &r->cg, r->jan.pid) > 0)
		sbx_msg("warning: some processes of the run could not be accounted for");
	drain_all(r);
	if (r->listener >= 0) {
		/* Everything is dead: only already-queued notifications are left (bounded). */
		for (int i = 0; i < 4096 && sbx_seccomp_handle_state(r->listener, &r->a, &r->sc_state) == 0; i++)
			;
		if (r->a.failed)
			r->audit_failed = true;
		close_fd(&r->listener);
	}
	if (bwrap_mode && !r->ready && !r->timed_out && !r->fwd_signal && !r->audit_failed)
		res = ATT_SETUP_FAILED;
	else
		res = ATT_DONE;
out:
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
	close_fd(&r->stderr_copy);
	close_fd(&r->ctl);
	close_fd(&r->rep);
	close_fd(&r->status_rd);
	close_fd(&r->err_rd);
	close_fd(&r->alive_w);
	strv_free(&env);
	strv_free(&argv);
	return res;
}

/* ---- exit status -------------------------------------------------------------------------------- */

void run_exit_status(struct run *r, bool bwrap_mode, int *code, int *sig)
{
	*sig = 0;
	*code = SBX_EXIT_INTERNAL;
	int st = r->child_status;
	if (!bwrap_mode && !r->have_stage_status) {
		*code = r->timed_out ? SBX_EXIT_TIMEOUT : SBX_EXIT_INTERNAL;
		if (r->fwd_signal)
			*code = 128 + r->fwd_signal, *sig = r->fwd_signal;
		return;
	}
	if (!bwrap_mode)
		st = r->stage_status;
	if (WIFEXITED(st)) {
		*code = WEXITSTATUS(st);
		/* bwrap reports a command killed by signal N as 128+N */
		if (bwrap_mode && *code > 128 && *code < 128 + 65)
			*sig = *code - 128;
	} else if (WIFSIGNALED(st)) {
		*sig = WTERMSIG(st);
		*code = 128 + *sig;
	}
	if (r->timed_out)
		*code = SBX_EXIT_TIMEOUT;
	if (r->refused || r->audit_failed || (!r->ready && !r->timed_out && !r->fwd_signal))
		*code = SBX_EXIT_INTERNAL;
	if (r->fwd_signal && !r->ready)
		*code = 128 + r->fwd_signal, *sig = r->fwd_signal;
}
