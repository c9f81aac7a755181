/* run.c — `sbxsup run`: one run, step by step (docs/ARCHITECTURE.md "One run, step by step").
 *
 * Promise: nothing runs unless the manifest is valid, the audit stream is open and every required
 * layer is active (else exit 125 before anything starts). The command is started once on the good
 * path: in bwrap mode the stage inside bwrap tells us (its "ready" message) that the sandbox setup
 * succeeded; bwrap exiting without a "ready" is a setup failure, and the run is retried once
 * without bwrap (recorded in why.bwrap, one warning on stderr) unless bwrap is required.
 * run.start is written when the stage is ready (the layers that are really in place), the command
 * is released with "go", the event loop turns preload records, seccomp notifications, netfilter and
 * probe events into audit lines, and run.end is written only after every process of the run is
 * gone. An audit write failure kills the run (exit 125: fail closed).
 */
#include <errno.h>
#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
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
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "audit.h"
#include "bwrap.h"
#include "cgroup.h"
#include "cmd.h"
#include "ctl.h"
#include "detect.h"
#include "elfcheck.h"
#include "janitor.h"
#include "env.h"
#include "layers.h"
#include "lifetime.h"
#include "rlimits.h"
#include "manifest.h"
#include "netfilter_layer.h"
#include "plan.h"
#include "policy.h"
#include "policy_build.h"
#include "probes_layer.h"
#include "report.h"
#include "report_rx.h"
#include "run_args.h"
#include "seccomp_layer.h"
#include "stage.h"
#include "strv.h"

extern char **environ;

enum attempt_result { ATT_DONE = 0, ATT_SETUP_FAILED = 1, ATT_FAIL = 2 };

struct run {
	struct run_opts o;
	struct manifest *m;
	void *blob;
	size_t bloblen;
	const struct policy *pol;
	int pol_fd;
	struct audit a;
	bool audit_ok;
	struct sbx_layers L;
	struct detect d;
	struct run_limits lim;
	bool nproc_rlimit;
	bool data_rlimit;          /* RLIMIT_DATA: no memory cgroup enforces memory_mb */
	struct cg_run cg;
	struct janitor jan;        /* removes cgroups + tmp dir if we are killed */
	struct sbx_netfilter *nf;
	struct sbx_probes *pr;
	struct strv env, dropped;
	struct timespec t0;
	int sfd, tfd;
	char tmpdir[80];           /* private tmp of the non-bwrap modes, "" when none */
	sigset_t oldmask;
	bool started;              /* run.start written */
	bool timed_out;
	bool audit_failed;
	bool refused;              /* a required layer failed in the stage */
	int fwd_signal;            /* a signal we forwarded before the stage was ready */
	/* per attempt */
	pid_t child, stage_pid;
	bool ready, child_done, pidns;
	int child_status, stage_status;
	bool have_stage_status;
	int ctl, rep, status_rd, err_rd, listener, alive_w, stderr_copy;
	char bwrap_err[512];
	size_t bwrap_err_len;
	struct report_rx rx;
};

static long elapsed_ms(const struct timespec *t0)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) * 1000 + (t.tv_nsec - t0->tv_nsec) / 1000000;
}

static void close_fd(int *fd)
{
	if (*fd >= 0) {
		close(*fd);
		*fd = -1;
	}
}

static const char *autonomy_name(enum mf_autonomy a)
{
	return a == MF_AUTONOMY_READONLY ? "readonly" : a == MF_AUTONOMY_FULL ? "full" : "supervised";
}

/* Emit; on failure the run fails closed. */
static int emit(struct run *r, cJSON *ev)
{
	if (!ev || audit_emit(&r->a, ev) < 0) {
		if (!r->audit_failed)
			sbx_msg("audit stream write failed: stopping the run (fail closed)");
		r->audit_failed = true;
		return -1;
	}
	return 0;
}

/* ---- run.start / run.end ------------------------------------------------------------------- */

static int emit_start(struct run *r)
{
	cJSON *ev = audit_event(&r->a, "run.start", "kernel");
	if (!ev)
		return emit(r, NULL);
	cJSON *argv = cJSON_AddArrayToObject(ev, "argv");
	for (size_t i = 0; r->o.cmd[i]; i++)
		cJSON_AddItemToArray(argv, cJSON_CreateString(r->o.cmd[i]));
	cJSON *man = cJSON_AddObjectToObject(ev, "manifest");
	audit_add_str(man, "path", r->m->source ? r->m->source : "", 4096);
	cJSON_AddStringToObject(man, "sha256", r->m->sha256_hex);
	cJSON_AddNumberToObject(ev, "uid", getuid());
	cJSON *layers = cJSON_AddObjectToObject(ev, "layers");
	cJSON *why = cJSON_AddObjectToObject(ev, "why");
	cJSON *level = cJSON_AddObjectToObject(ev, "level");
	for (int l = 0; l < SBX_L__N; l++) {
		bool on = sbx_layer_on(&r->L, l);
		cJSON_AddBoolToObject(layers, sbx_layer_name(l), on);
		if (on)
			audit_add_str(level, sbx_layer_name(l), r->L.level[l], 256);
		else
			audit_add_str(why, sbx_layer_name(l), r->L.why[l], 256);
	}
	cJSON_AddStringToObject(ev, "autonomy", autonomy_name(r->m->autonomy));
	audit_add_str(ev, "workspace", r->m->workspace ? r->m->workspace : "", 4096);
	if (emit(r, ev) < 0)
		return -1;
	r->started = true;
	for (size_t i = 0; i < r->dropped.n; i++) {
		cJSON *d = audit_event(&r->a, "env.drop", "kernel");
		if (!d)
			return emit(r, NULL);
		audit_add_str(d, "name", r->dropped.v[i], 256);
		if (emit(r, d) < 0)
			return -1;
	}
	return 0;
}

static int emit_limit(struct run *r, const char *limit, long value)
{
	cJSON *ev = audit_event(&r->a, "limit.hit", "kernel");
	if (!ev)
		return emit(r, NULL);
	cJSON_AddStringToObject(ev, "limit", limit);
	cJSON_AddNumberToObject(ev, "value", (double)value);
	return emit(r, ev);
}

static int emit_end(struct run *r, int code, int sig)
{
	cJSON *ev = audit_event(&r->a, "run.end", "kernel");
	if (!ev)
		return emit(r, NULL);
	cJSON_AddNumberToObject(ev, "exit", code);
	cJSON_AddNumberToObject(ev, "signal", sig);
	cJSON_AddNumberToObject(ev, "duration_ms", (double)elapsed_ms(&r->t0));
	cJSON *counts = audit_counts(&r->a);
	if (counts)
		cJSON_AddItemToObject(ev, "counts", counts);
	uint64_t lost = (r->pr ? sbx_probes_lost(r->pr) : 0) + (r->nf ? sbx_netfilter_lost(r->nf) : 0);
	cJSON_AddNumberToObject(ev, "lost", (double)lost);
	if (r->rx.dropped)
		cJSON_AddNumberToObject(ev, "preload_dropped", (double)r->rx.dropped);
	if (r->rx.suppressed)
		cJSON_AddNumberToObject(ev, "preload_suppressed", (double)r->rx.suppressed);
	if (r->rx.rejected)
		cJSON_AddNumberToObject(ev, "preload_rejected", (double)r->rx.rejected);
	return emit(r, ev);
}

/* ---- layer bookkeeping ----------------------------------------------------------------------- */

/* Print one line per missing required layer; true when something required is missing. */
static bool require_missing(const struct run *r)
{
	unsigned miss = r->L.require & ~r->L.active;
	for (int l = 0; l < SBX_L__N; l++)
		if ((miss >> l) & 1u)
			sbx_msg("required layer '%s' is not active: %s (refusing to run)", sbx_layer_name(l),
				r->L.why[l][0] ? r->L.why[l] : "unavailable");
	return miss != 0;
}

static void warn_degraded(const struct run *r)
{
	if (r->o.disabled) {
		sbx_msg("warning: SBXSUP_SANDBOX disables every layer: the command runs unconfined");
		return;
	}
	if (((r->L.want >> SBX_L_BWRAP) & 1u) && !sbx_layer_on(&r->L, SBX_L_BWRAP)) {
		char act[160] = "";
		for (int l = 0; l < SBX_L__N; l++)
			if (sbx_layer_on(&r->L, l)) {
				size_t n = strlen(act);
				snprintf(act + n, sizeof act - n, "%s%s", n ? "," : "", sbx_layer_name(l));
			}
		sbx_msg("warning: running without bwrap (%s); active layers: %s", r->L.why[SBX_L_BWRAP],
			act[0] ? act : "none");
	}
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
	apply_stage_status(r, st);
	if (bwrap_mode) {
		sbx_layer_set_on(&r->L, SBX_L_BWRAP, "%s: user, pid, ipc, uts, cgroup%s namespaces",
				 r->d.bwrap, pol_net_mode(r->pol) == POL_NET_NONE ? ", net" : "");
		if (r->bwrap_err_len) /* bwrap's own warnings during a good setup: pass them on */
			(void)!write(2, r->bwrap_err, r->bwrap_err_len);
		r->bwrap_err_len = 0;
	}
	if (r->pr && sbx_layer_on(&r->L, SBX_L_PROBES) && sbx_probes_arm(r->pr, r->stage_pid) < 0)
		sbx_layer_set_off(&r->L, SBX_L_PROBES, "arming the probes on pid %d failed", (int)r->stage_pid);
	if (require_missing(r)) {
		r->refused = true;
		life_kill_now(r->child, &r->cg);
		return;
	}
	warn_degraded(r);
	if (emit_start(r) < 0) {
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
		struct pollfd p[8];
		int n = 0, i_sig = -1, i_tim = -1, i_ctl = -1, i_rep = -1, i_err = -1, i_lst = -1,
		    i_nf = -1, i_pr = -1;
		p[i_sig = n++] = (struct pollfd){.fd = r->sfd, .events = POLLIN};
		p[i_tim = n++] = (struct pollfd){.fd = r->tfd, .events = POLLIN};
		if (r->ctl >= 0 && !r->ready)
			p[i_ctl = n++] = (struct pollfd){.fd = r->ctl, .events = POLLIN};
		p[i_rep = n++] = (struct pollfd){.fd = r->rep, .events = POLLIN};
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
		if (p[i_rep].revents && report_rx_drain(&r->rx, &r->a) < 0)
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
			else if (sbx_seccomp_handle(r->listener, &r->a) < 0) {
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

static pid_t clone_newpid(void)
{
	return (pid_t)syscall(SYS_clone, CLONE_NEWPID | SIGCHLD, NULL, NULL, NULL, NULL);
}

static enum attempt_result attempt(struct run *r, bool bwrap_mode)
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
		pid = fork();
	} else {
		/* A pid namespace makes "the child died" mean "the whole run died", even on SIGKILL of
		 * sbxsup; it needs privilege, so without it the cgroup / session / subreaper do the job. */
		pid = (!r->o.disabled && geteuid() == 0) ? clone_newpid() : -1;
		if (pid < 0)
			pid = fork();
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
	r->ctl = ctlp[0];
	ctlp[0] = -1;
	r->rep = repp[0];
	repp[0] = -1;
	r->status_rd = stp[0];
	stp[0] = -1;
	r->err_rd = errp[0];
	errp[0] = -1;
	r->alive_w = alive[1];
	alive[1] = -1;
	r->rx.fd = r->rep;
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
		for (int i = 0; i < 4096 && sbx_seccomp_handle(r->listener, &r->a) == 0; i++)
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

static void exit_status(struct run *r, bool bwrap_mode, int *code, int *sig)
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

static int limit_events(struct run *r, int sig)
{
	int rc = 0;
	struct cg_events ev;
	cg_events(&r->cg, &ev);
	if (r->timed_out)
		rc |= emit_limit(r, "wall_s", r->lim.wall_s);
	if (sig == SIGXCPU)
		rc |= emit_limit(r, "cpu_s", r->lim.cpu_s);
	if (sig == SIGXFSZ)
		rc |= emit_limit(r, "fsize_mb", r->lim.fsize_mb);
	if (ev.oom_kill)
		rc |= emit_limit(r, "memory_mb", r->lim.memory_mb);
	if (ev.pids_max)
		rc |= emit_limit(r, "pids", r->lim.pids);
	return rc;
}

/* ---- preparation ------------------------------------------------------------------------------- */

static int load_manifest(struct run *r)
{
	struct mf_ctx ctx;
	struct mf_errors errs;
	char err[512];
	memset(&errs, 0, sizeof errs);
	if (mf_ctx_init(&ctx, r->o.workspace, err, sizeof err) < 0) {
		sbx_msg("%s", err[0] ? err : "cannot determine the workspace / home directory");
		return -1;
	}
	int rc = r->o.manifest ? manifest_load(r->o.manifest, &ctx, &r->m, &errs)
			       : manifest_load_default(&ctx, &r->m, &errs);
	if (rc < 0 || !r->m) {
		const char *src = r->o.manifest ? r->o.manifest : "(built-in default)";
		for (size_t i = 0; i < errs.n; i++)
			sbx_msg("%s: %s", src, errs.msg[i]);
		if (!errs.n)
			sbx_msg("%s: cannot load the manifest", src);
		mf_errors_free(&errs);
		return -1;
	}
	mf_errors_free(&errs);
	return 0;
}

static void remove_tree(const char *dir);

/* A run killed by SIGKILL cannot remove its private tmp dir; the next run does: directories named
 * sbxsup-<pid>-XXXXXX, owned by us, whose sbxsup process no longer exists. */
static void sweep_stale_tmp(void)
{
	DIR *d = opendir("/tmp");
	if (!d)
		return;
	struct dirent *e;
	while ((e = readdir(d))) {
		char *end;
		if (strncmp(e->d_name, "sbxsup-", 7))
			continue;
		long pid = strtol(e->d_name + 7, &end, 10);
		if (end == e->d_name + 7 || *end != '-' || strlen(end + 1) != 6 || pid <= 0)
			continue;
		char path[300];
		struct stat st;
		snprintf(path, sizeof path, "/tmp/%s", e->d_name);
		if (lstat(path, &st) < 0 || !S_ISDIR(st.st_mode) || st.st_uid != geteuid())
			continue;
		if (kill((pid_t)pid, 0) < 0 && errno == ESRCH)
			remove_tree(path);
	}
	closedir(d);
}

/* Compile the policy for the mode: bwrap gives the sandbox a private /tmp; the other modes get a
 * private per-run directory (0700, removed at the end) as their tmp and TMPDIR. */
static int build_policy(struct run *r, bool bwrap_mode)
{
	char err[512] = "";
	const char *extra[5] = {NULL, NULL, NULL, NULL, NULL};
	size_t ne = 0;
	if (r->d.preload[0])
		extra[ne++] = r->d.preload;
	if (r->d.self[0])
		extra[ne++] = r->d.self;
	if (bwrap_mode) { /* where bwrap binds them inside the sandbox */
		extra[ne++] = SBX_RUN_PRELOAD;
		extra[ne++] = SBX_RUN_SBXSUP;
	}
	const char *tmp = "/tmp";
	if (!bwrap_mode && !r->o.disabled) {
		if (r->o.dry_run) {
			tmp = "/tmp/sbxsup-XXXXXX";
		} else {
			if (!r->tmpdir[0]) {
				sweep_stale_tmp();
				snprintf(r->tmpdir, sizeof r->tmpdir, "/tmp/sbxsup-%d-XXXXXX", (int)getpid());
				if (!mkdtemp(r->tmpdir)) {
					sbx_msg("cannot create the run's private tmp dir: %s", strerror(errno));
					r->tmpdir[0] = 0;
					return -1;
				}
			}
			tmp = r->tmpdir;
		}
	}
	free(r->blob);
	r->blob = NULL;
	r->pol = NULL;
	struct pol_build_opts bo = {.resolve = true, .uid = getuid(), .extra_read = extra, .tmp_dir = tmp};
	if (pol_build(r->m, &bo, &r->blob, &r->bloblen, err, sizeof err) < 0) {
		sbx_msg("cannot compile the policy: %s", err[0] ? err : "unknown error");
		return -1;
	}
	const char *why = "";
	if (!(r->pol = pol_open(r->blob, r->bloblen, &why))) {
		sbx_msg("compiled policy is invalid: %s", why);
		return -1;
	}
	return 0;
}

/* The sealed memfd the preload maps (close-on-exec here; the child clears the flag). */
static int reseal_policy(struct run *r)
{
	if (r->pol_fd >= 0)
		close(r->pol_fd);
	if ((r->pol_fd = pol_to_sealed_memfd(r->blob, r->bloblen)) < 0) {
		sbx_msg("cannot seal the compiled policy: %s", strerror(errno));
		return -1;
	}
	if (fcntl(r->pol_fd, F_SETFD, FD_CLOEXEC) < 0) {
		sbx_msg("fcntl: %s", strerror(errno));
		return -1;
	}
	return 0;
}

static void setup_limits_and_cgroups(struct run *r)
{
	bool lim_on = sbx_layer_on(&r->L, SBX_L_LIMITS);
	bool need_cg = lim_on || sbx_layer_on(&r->L, SBX_L_NETFILTER) || sbx_layer_on(&r->L, SBX_L_PROBES);
	if (!need_cg)
		return;
	struct cg_limits cl = {
		.memory_mb = lim_on ? r->lim.memory_mb : -1,
		.pids = lim_on ? r->lim.pids : -1,
		.cpu_pct = -1,
	};
	cg_setup(&r->cg, r->a.run, &cl, &r->jan);
	if (!lim_on)
		return;
	r->nproc_rlimit = r->lim.pids > 0 && !r->cg.ctl_on[CG_PIDS];
	r->data_rlimit = r->lim.memory_mb > 0 && !r->cg.ctl_on[CG_MEMORY];
	char lv[320], rl[160];
	limits_describe(&r->lim, r->nproc_rlimit, r->data_rlimit, rl, sizeof rl);
	snprintf(lv, sizeof lv, "%s%s%s%s%s", rl,
		 r->cg.ctl_on[CG_MEMORY] ? (r->cg.ctl_v2[CG_MEMORY] ? "; memory cg2" : "; memory cg1") : "",
		 r->cg.ctl_on[CG_PIDS] ? (r->cg.ctl_v2[CG_PIDS] ? "; pids cg2" : "; pids cg1") : "",
		 r->nproc_rlimit ? (geteuid() == 0 ? "; nproc rlimit (not enforced for root)" : "; nproc rlimit (per uid)") : "",
		 r->cg.v2[0] ? "; run cg2" : "");
	sbx_layer_set_on(&r->L, SBX_L_LIMITS, "%s", lv);
	if (r->cg.why[0] && ((r->lim.memory_mb > 0 && !r->cg.ctl_on[CG_MEMORY]) ||
			     (r->lim.pids > 0 && !r->cg.ctl_on[CG_PIDS])))
		sbx_msg("warning: limits partly unenforced: %s", r->cg.why);
}

static void start_kernel_layers(struct run *r)
{
	char why[256], level[96];
	if (sbx_layer_on(&r->L, SBX_L_NETFILTER)) {
		why[0] = 0;
		int rc;
		if (r->cg.v2_fd < 0) {
			sbx_layer_set_off(&r->L, SBX_L_NETFILTER, "no run cgroup v2: %s",
					  r->cg.why[0] ? r->cg.why : "cgroup v2 not writable");
		} else if ((rc = sbx_netfilter_start(r->pol, r->cg.v2_fd, &r->nf, why, sizeof why)) != 0) {
			if (r->nf)
				sbx_netfilter_stop(r->nf);
			r->nf = NULL;
			sbx_layer_set_off(&r->L, SBX_L_NETFILTER, "%s",
					  why[0] ? why : rc > 0 ? "not needed" : "start failed");
		}
	}
	if (sbx_layer_on(&r->L, SBX_L_PROBES)) {
		why[0] = level[0] = 0;
		if (sbx_probes_start(r->pol, r->cg.v2_id, &r->pr, level, sizeof level, why, sizeof why) < 0) {
			r->pr = NULL;
			sbx_layer_set_off(&r->L, SBX_L_PROBES, "%s", why[0] ? why : "start failed");
		} else if (level[0]) {
			sbx_layer_set_on(&r->L, SBX_L_PROBES, "%s", level);
		}
	}
}

/* Before the policy is rebuilt (retry without bwrap): the layers hold pointers into the blob. */
static void stop_kernel_layers(struct run *r)
{
	if (r->nf)
		sbx_netfilter_stop(r->nf);
	if (r->pr)
		sbx_probes_stop(r->pr);
	r->nf = NULL;
	r->pr = NULL;
}

/* Before the retry without bwrap: the policy for the direct mode (private tmp dir), its memfd, and
 * the kernel layers restarted on it. Returns 0, or -1 (refuse: a required layer is gone, or an
 * internal failure). */
static int retry_prepare(struct run *r)
{
	stop_kernel_layers(r);
	if (build_policy(r, false) < 0)
		return -1;
	if (r->tmpdir[0])
		(void)janitor_add(&r->jan, 't', r->tmpdir);
	if (reseal_policy(r) < 0 || env_set(&r->env, "TMPDIR", r->tmpdir) < 0)
		return -1;
	start_kernel_layers(r);
	return require_missing(r) ? -1 : 0;
}

static int setup_signals(struct run *r)
{
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	signal(SIGPIPE, SIG_IGN);
	if (sigprocmask(SIG_BLOCK, &set, &r->oldmask) < 0)
		return -1;
	r->sfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	r->tfd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (r->sfd < 0 || r->tfd < 0)
		return -1;
	struct itimerspec it = {.it_value = {.tv_sec = r->lim.wall_s}};
	return timerfd_settime(r->tfd, 0, &it, NULL);
}

/* Refusal before anything ran: record it (when there is a stream) and exit 125. */
static int refuse(struct run *r)
{
	if (r->audit_ok && emit_start(r) == 0)
		(void)emit_end(r, SBX_EXIT_INTERNAL, 0);
	return SBX_EXIT_INTERNAL;
}

static int run_main(struct run *r, int argc, char **argv)
{
	clock_gettime(CLOCK_MONOTONIC, &r->t0);
	int pr = run_args_parse(argc, argv, &r->o);
	if (pr != 0)
		return pr > 0 ? 0 : SBX_EXIT_INTERNAL;
	if (load_manifest(r) < 0)
		return SBX_EXIT_INTERNAL;
	limits_resolve(&r->m->limits, r->o.timeout_s, &r->lim);

	r->L.want = r->o.want;
	r->L.require = r->o.require;
	if (r->o.disabled) {
		r->L.want = 0;
		for (int l = 0; l < SBX_L__N; l++)
			sbx_layer_set_off(&r->L, l, "disabled via SBXSUP_SANDBOX");
	} else {
		detect_layers(&r->L, &r->d);
	}
	if (build_policy(r, sbx_layer_on(&r->L, SBX_L_BWRAP)) < 0)
		return SBX_EXIT_INTERNAL;
	if (!r->o.dry_run) {
		char err[512] = "";
		if (audit_open(&r->a, r->o.audit, r->m->name, err, sizeof err) < 0) {
			sbx_msg("audit stream %s: %s", r->o.audit ? r->o.audit : "(none)",
				err[0] ? err : "cannot open");
			return SBX_EXIT_INTERNAL;
		}
		r->audit_ok = true;
	}
	if (r->o.disabled) {
		for (size_t i = 0; environ && environ[i]; i++)
			if (strv_add(&r->env, environ[i]) < 0)
				return SBX_EXIT_INTERNAL;
	} else if (env_build(r->m, environ, &r->env, &r->dropped) < 0 ||
		   (r->tmpdir[0] && env_set(&r->env, "TMPDIR", r->tmpdir) < 0) ||
		   env_filter_path(&r->env, r->pol) < 0) {
		sbx_msg("out of memory building the environment");
		return SBX_EXIT_INTERNAL;
	}
	if (sbx_layer_on(&r->L, SBX_L_PRELOAD)) {
		/* A static or non-glibc command never loads the preload: say so instead of pretending. */
		struct sbx_elf_info *ei = calloc(1, sizeof *ei);
		if (!ei)
			return SBX_EXIT_INTERNAL;
		if (sbx_elf_inspect_env(r->o.cmd[0], strv_getenv(&r->env, "PATH"), ei) == 0 && !ei->preload_ok)
			sbx_layer_set_off(&r->L, SBX_L_PRELOAD, "%s", ei->why[0] ? ei->why : "the command cannot load it");
		free(ei);
	}
	if (r->o.dry_run) {
		struct plan_in pi = {.m = r->m, .pol = r->pol, .L = &r->L, .d = &r->d, .env = &r->env,
				     .dropped = &r->dropped, .lim = &r->lim, .cmd = r->o.cmd};
		cJSON *plan = plan_build(&pi);
		char *s = plan ? cJSON_Print(plan) : NULL;
		cJSON_Delete(plan);
		if (!s) {
			sbx_msg("cannot build the plan");
			return SBX_EXIT_INTERNAL;
		}
		puts(s);
		free(s);
		return require_missing(r) ? SBX_EXIT_INTERNAL : 0;
	}
	if (require_missing(r))
		return refuse(r);

	if (reseal_policy(r) < 0)
		return SBX_EXIT_INTERNAL;
	if (!r->o.disabled) {
		if (janitor_start(&r->jan) < 0)
			sbx_msg("warning: cannot start the cleanup helper (%s): if sbxsup is killed, its cgroups "
				"and tmp dir stay behind", strerror(errno));
		if (r->tmpdir[0])
			(void)janitor_add(&r->jan, 't', r->tmpdir);
		setup_limits_and_cgroups(r);
		start_kernel_layers(r);
		if (require_missing(r))
			return refuse(r);
	}
	if (life_subreaper() < 0) {
		sbx_msg("prctl(PR_SET_CHILD_SUBREAPER): %s", strerror(errno));
		return SBX_EXIT_INTERNAL;
	}
	if (setup_signals(r) < 0) {
		sbx_msg("cannot set up signal handling: %s", strerror(errno));
		return SBX_EXIT_INTERNAL;
	}

	bool bwrap_mode = sbx_layer_on(&r->L, SBX_L_BWRAP);
	enum attempt_result ar = attempt(r, bwrap_mode);
	if (ar == ATT_SETUP_FAILED) {
		while (r->bwrap_err_len && (r->bwrap_err[r->bwrap_err_len - 1] == '\n'))
			r->bwrap_err_len--;
		r->bwrap_err[r->bwrap_err_len] = 0;
		for (char *c = r->bwrap_err; *c; c++)
			if (*c == '\n')
				*c = ' ';
		sbx_layer_set_off(&r->L, SBX_L_BWRAP, "bwrap setup failed: %s",
				  r->bwrap_err[0] ? r->bwrap_err : "exited before the sandbox was ready");
		ar = ATT_FAIL;
		if (!require_missing(r) && retry_prepare(r) == 0) {
			bwrap_mode = false;
			r->timed_out = false;
			ar = attempt(r, false);
		}
	}
	int code = SBX_EXIT_INTERNAL, sig = 0;
	if (ar == ATT_DONE)
		exit_status(r, bwrap_mode, &code, &sig);
	if (r->audit_failed)
		code = SBX_EXIT_INTERNAL;
	if (r->started && !r->audit_failed) {
		if (limit_events(r, sig) < 0 || emit_end(r, code, sig) < 0)
			code = SBX_EXIT_INTERNAL;
	} else if (!r->started && r->audit_ok && !r->audit_failed) {
		(void)refuse(r);
	}
	return code;
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if ((flag == FTW_DP ? rmdir(path) : unlink(path)) < 0)
		sbx_msg("warning: cannot remove %s: %s", path, strerror(errno));
	return 0;
}

/* Remove the private tmp dir (the run's tree is dead; never follow symlinks out of it). */
static void remove_tree(const char *dir)
{
	(void)nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
}

static void run_free(struct run *r)
{
	if (r->nf)
		sbx_netfilter_stop(r->nf);
	if (r->pr)
		sbx_probes_stop(r->pr);
	cg_cleanup(&r->cg);
	if (r->tmpdir[0])
		remove_tree(r->tmpdir);
	janitor_done(&r->jan);
	if (r->audit_ok)
		audit_close(&r->a);
	if (r->pol_fd >= 0)
		close(r->pol_fd);
	if (r->sfd >= 0)
		close(r->sfd);
	if (r->tfd >= 0)
		close(r->tfd);
	free(r->blob);
	if (r->m)
		manifest_free(r->m);
	strv_free(&r->env);
	strv_free(&r->dropped);
	free(r);
}

int cmd_run(int argc, char **argv)
{
	struct run *r = calloc(1, sizeof *r);
	if (!r) {
		sbx_msg("out of memory");
		return SBX_EXIT_INTERNAL;
	}
	r->pol_fd = r->sfd = r->tfd = -1;
	cg_init(&r->cg);
	janitor_init(&r->jan);
	int code = run_main(r, argc, argv);
	fflush(stdout);
	run_free(r);
	return code;
}
