/* wrap_direct.c — the direct wrapper entry (wrapper.h): no bwrap; the run's own init in namespaces
 * of its own (sandbox_direct.h: identity, private /tmp, /proc, /dev/shm), which forks the stage
 * and runs it in-process (stage.h stage_exec). Where no namespace can be made at all, a plain fork
 * whose init guards against orphans, with the policy and the environment re-planned for the host's
 * /proc and network, and never a host-root executor unless the operator accepted it. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "grant_link.h"
#include "lifetime.h"
#include "msg.h"
#include "stage.h"
#include "wrapper.h"

/* The stage's layer flags, read the way `sbxsup __stage` reads them (stage.c cmd_stage). */
static void stage_flags(char **flags, struct stage_args *sa)
{
	for (size_t i = 0; flags && flags[i]; i++)
		(void)stage_flag_parse(flags[i], sa);
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

static __attribute__((noreturn)) void child_direct(struct run *r, const struct attempt_io *f)
{
	pid_t sup = getppid();
	att_child_signals(&r->oldmask);
	if (att_child_common(r, f, false) < 0) {
		sbx_msg("child setup failed: %s", strerror(errno));
		_exit(SBX_EXIT_INTERNAL);
	}
	if (r->att.pidns && sd_child_setup(&r->sd) < 0)
		_exit(SBX_EXIT_INTERNAL);
	if (att_child_layers(r) < 0) {
		sbx_msg("child setup failed: %s", strerror(errno));
		_exit(SBX_EXIT_INTERNAL);
	}
	if (att_child_stdio(r, true) < 0)
		_exit(SBX_EXIT_INTERNAL);
	att_cloexec_all();
	if (!r->lc.att->fixed_channel) {
		att_keep_fd(r->pol_fd);
		att_keep_fd(f->rep_c);
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
			.envp = f->env.v,
			.stderr_fd = -1,
			.keep_caps = r->o.disabled,
		};
		stage_flags(f->flags.v, &sa);
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
	run_ctx_from_plan(r);
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
	p->shadow = r->shadow.sp.on ? &r->shadow.sp : NULL;
	if (!getcwd(p->cwd, sizeof p->cwd))
		p->cwd[0] = 0;
	int rc = sd_prepare_dirs(p, r->plan.tmpdir, r->plan.repdir, r->plan.repsock);
	rc |= sd_expose(p, r->m->workspace, true) | sd_expose(p, r->plan.repdir, false);
	rc |= sd_writable(p, r->m->workspace);
	for (size_t i = 0, n = pol_dir_count(pol); i < n; i++) {
		struct pol_dir d;
		if (pol_dir_get(pol, i, &d) < 0 || !d.path || !strcmp(d.path, r->plan.tmpdir) ||
		    !sbx_grant_links_followed(&r->plan.links, i)) /* grant_link.h */
			continue;
		rc |= sd_expose(p, d.path, d.access & POL_WRITE);
		if (d.access & POL_WRITE)
			rc |= sd_writable(p, d.path);
	}
	for (size_t i = 0, n = pol_dir_count(pol); i < n; i++) { /* a hint naming one file */
		struct pol_dir d;
		if (pol_dir_get(pol, i, &d) == 0 && d.path && sbx_grant_links_followed(&r->plan.links, i))
			rc |= sd_expose_file(p, d.path, d.access & POL_WRITE);
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
	etc_identity_free(&p->etc_id);
	if (etc_identity_make(&id, &p->etc_id) < 0) {
		sbx_msg("run setup: the executor's passwd and group entries: %s", strerror(errno));
		return -1;
	}
	p->fixed = (struct sd_fixed){.on = r->lc.att->fixed_channel && p->mnt, .blob = r->plan.blob,
				     .bloblen = r->plan.bloblen, .report_sock = r->plan.repsock,
				     .preload_lib = r->d.preload};
	sd_fixed_open_lib(&p->fixed); /* the library, reachable whatever its directories' modes */
	pid_t pid = sd_spawn(p, &r->cg);
	if (pid != 0) {
		sd_fixed_close_lib(&p->fixed);
		etc_identity_free(&p->etc_id); /* the child has its copy */
	}
	if (pid == 0 && sd_filter_path(p, env) < 0) /* the stage's PATH, in the child */
		_exit(SBX_EXIT_INTERNAL);
	return pid;
}

/* The stage's layer flags (the stage runs in-process: no argv of a wrapper). */
static enum attempt_result dr_argv(struct run *r, struct attempt_io *io)
{
	if (layers_stage_flags(&r->L, &io->flags) < 0) {
		sbx_msg("out of memory");
		return ATT_FAIL;
	}
	return ATT_DONE;
}

/* A pid namespace makes "the child died" mean "the whole run died", even on SIGKILL of sbxsup;
 * without one the cgroup / session / subreaper do the job. */
static pid_t dr_spawn(struct run *r, struct attempt_io *io)
{
	struct attempt *t = &r->att;
	pid_t pid = !r->o.disabled ? direct_spawn(r, &io->env) : -1;
	if (pid < 0 && r->shadow.sp.on) { /* never the real workspace instead of the shadow */
		sbx_msg("--shadow: the run's namespaces could not be made: not running");
		run_reason(r, SBX_REASON_SHADOW_UNAVAILABLE, "--shadow: no mount namespace for the overlay");
		return -1;
	}
	if (pid < 0) {
		/* No namespace after all, a re-plan of the run and of this attempt: the host's /proc
		 * and the host's loopback, no gateway (the network is enforced by address only:
		 * run_net_level), no mount namespace, so the environment is the preload's channel
		 * (and names no gateway proxy). */
		r->plan.no_mntns = true;
		if (!r->o.disabled && (pol_own_pidns(r->plan.pol) || pol_own_netns(r->plan.pol))) {
			r->plan.no_netns = true;
			if (policy_without_pidns(r) < 0)
				return -1;
		}
		run_ctx_from_plan(r);
		if (run_ctx_attempt(r, io) < 0)
			return -1;
	}
	bool accepted = false;
	if (pid < 0 && !r->o.disabled && sd_root_executor(&r->sd, &accepted) && !accepted) {
		/* never silently the host's uid 0 */
		sbx_msg("refused: %s; the executor would run as the host's uid 0 (grant CAP_SETUID and "
			"CAP_SETGID, or accept it with SBXSUP_ALLOW_ROOT_EXECUTOR=1)", r->sd.identity);
		run_reason(r, SBX_REASON_IDENTITY, "no unprivileged identity: %s", r->sd.identity);
		return -1;
	}
	if (pid < 0)
		pid = cg_spawn(&r->cg, 0);
	else
		t->pidns = true;
	if (pid < 0)
		sbx_msg("fork: %s", strerror(errno));
	return pid;
}

const struct run_wrapper run_wrap_direct = {
	.name = "direct",
	.init_status = true,
	.argv = dr_argv,
	.spawn = dr_spawn,
	.child = child_direct,
};
