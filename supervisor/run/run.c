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
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/socket.h>
#include <sys/timerfd.h>
#include <sys/un.h>
#include <unistd.h>

#include "bwrap_layer.h"
#include "cmd.h"
#include "elfcheck.h"
#include "env.h"
#include "lifetime.h"
#include "plan.h"
#include "policy_build.h"
#include "run_int.h"

extern char **environ;

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

/* The run's report address (SBXSUP_REPORT_ADDR): a datagram socket bound in a private directory
 * (0700, named like the tmp dir so the janitor and the stale sweep remove it), read by the event
 * loop like the inherited socketpair. The preload sends there when its inherited descriptor is
 * gone (a raw close of every fd) or its environment was stripped (bwrap mode: bound at
 * /run/sbxsup/report). Only with the preload layer; a failure is said, and the run goes on with
 * the socketpair alone. */
static void open_report_addr(struct run *r)
{
	if (r->repsrv >= 0 || r->o.dry_run || r->o.disabled || !sbx_layer_on(&r->L, SBX_L_PRELOAD))
		return;
	sweep_stale_tmp();
	snprintf(r->repdir, sizeof r->repdir, "/tmp/sbxsup-%d-XXXXXX", (int)getpid());
	if (!mkdtemp(r->repdir)) {
		sbx_msg("warning: cannot create the report socket's dir: %s (denials after a raw close of "
			"every fd will not be reported)", strerror(errno));
		r->repdir[0] = 0;
		return;
	}
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	snprintf(r->repsock, sizeof r->repsock, "%s/report", r->repdir);
	snprintf(a.sun_path, sizeof a.sun_path, "%s", r->repsock);
	int one = 1, rcv = 1 << 20;
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &one, sizeof one) < 0 ||
	    bind(fd, (struct sockaddr *)&a, sizeof a) < 0 || chmod(r->repsock, 0600) < 0) {
		sbx_msg("warning: cannot bind the report socket %s: %s (denials after a raw close of "
			"every fd will not be reported)", r->repsock, strerror(errno));
		if (fd >= 0)
			close(fd);
		r->repsock[0] = 0;
		return;
	}
	(void)setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &rcv, sizeof rcv);
	r->repsrv = fd;
}

/* Compile the policy for the mode: bwrap gives the sandbox a private /tmp; the other modes get a
 * private per-run directory (0700, removed at the end) as their tmp and TMPDIR. */
static int build_policy(struct run *r, bool bwrap_mode)
{
	char err[512] = "";
	/* the preload's own connect to the report socket is a write of it (probes, preload) */
	open_report_addr(r);
	const char *wextra[3] = {NULL, NULL, NULL};
	size_t nw = 0;
	if (r->repsock[0]) {
		wextra[nw++] = r->repsock;
		if (bwrap_mode)
			wextra[nw++] = SBX_RUN_REPORT;
	}
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
	struct pol_build_opts bo = {.resolve = true, .uid = getuid(), .extra_read = extra,
				    .extra_write = wextra, .tmp_dir = tmp};
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
	return run_require_missing(r) ? -1 : 0;
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
	struct itimerspec it = {.it_value = {.tv_sec = r->lim.wall_ms / 1000,
					     .tv_nsec = r->lim.wall_ms % 1000 * 1000000L}};
	return timerfd_settime(r->tfd, 0, &it, NULL);
}

/* Refusal before anything ran: record it (when there is a stream) and exit 125. */
static int refuse(struct run *r)
{
	if (r->audit_ok && run_emit_start(r) == 0)
		(void)run_emit_end(r, SBX_EXIT_INTERNAL, 0);
	return SBX_EXIT_INTERNAL;
}

static int run_main(struct run *r, int argc, char **argv)
{
	clock_gettime(CLOCK_MONOTONIC, &r->t0);
	int pr = run_args_parse(argc, argv, &r->o);
	if (pr != 0)
		return pr > 0 ? 0 : SBX_EXIT_INTERNAL;
	if (run_args_workspace(&r->o) < 0)
		return SBX_EXIT_INTERNAL;
	if (load_manifest(r) < 0)
		return SBX_EXIT_INTERNAL;
	limits_resolve(&r->m->limits, r->o.timeout_ms, &r->lim);

	/* SPEC: "rlimits always" — --layers selects the confinement layers; the limits always apply
	 * (only SBXSUP_SANDBOX=0 turns them off with everything else). */
	r->L.want = r->o.want | (1u << SBX_L_LIMITS);
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
		return run_require_missing(r) ? SBX_EXIT_INTERNAL : 0;
	}
	if (run_require_missing(r))
		return refuse(r);

	if (reseal_policy(r) < 0)
		return SBX_EXIT_INTERNAL;
	if (!r->o.disabled) {
		if (janitor_start(&r->jan) < 0)
			sbx_msg("warning: cannot start the cleanup helper (%s): if sbxsup is killed, its cgroups "
				"and tmp dir stay behind", strerror(errno));
		if (r->tmpdir[0])
			(void)janitor_add(&r->jan, 't', r->tmpdir);
		if (r->repdir[0])
			(void)janitor_add(&r->jan, 't', r->repdir);
		if (r->o.ws_tmp[0])
			(void)janitor_add(&r->jan, 't', r->o.ws_tmp);
		setup_limits_and_cgroups(r);
		start_kernel_layers(r);
		if (run_require_missing(r))
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
	enum attempt_result ar = run_attempt(r, bwrap_mode);
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
		if (!run_require_missing(r) && retry_prepare(r) == 0) {
			bwrap_mode = false;
			r->timed_out = false;
			ar = run_attempt(r, false);
		}
	}
	int code = SBX_EXIT_INTERNAL, sig = 0;
	if (ar == ATT_DONE)
		run_exit_status(r, bwrap_mode, &code, &sig);
	if (r->audit_failed)
		code = SBX_EXIT_INTERNAL;
	if (code == SBX_EXIT_NOTFOUND && !r->o.disabled)
		run_cmd_not_found(r->pol, r->o.cmd[0]);
	if (code == SBX_EXIT_TIMEOUT && r->timed_out)
		sbx_msg("timeout: the command ran longer than %ld.%03ld s (--timeout or limits.wall_s) and was killed",
			r->lim.wall_ms / 1000, r->lim.wall_ms % 1000);
	if (r->started && !r->audit_failed) {
		if (run_limit_events(r, sig) < 0 || run_emit_end(r, code, sig) < 0)
			code = SBX_EXIT_INTERNAL;
	} else if (!r->started && r->audit_ok && !r->audit_failed) {
		/* the command never got "go" (refused, or interrupted before the stage was ready) */
		if (run_emit_start(r) == 0)
			(void)run_emit_end(r, code, sig);
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
	stop_kernel_layers(r);
	cg_cleanup(&r->cg);
	if (r->tmpdir[0])
		remove_tree(r->tmpdir);
	if (r->repsrv >= 0)
		close(r->repsrv);
	if (r->repdir[0])
		remove_tree(r->repdir);
	janitor_done(&r->jan);
	run_args_release(&r->o);
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
	r->pol_fd = r->sfd = r->tfd = r->repsrv = -1;
	cg_init(&r->cg);
	janitor_init(&r->jan);
	int code = run_main(r, argc, argv);
	fflush(stdout);
	run_free(r);
	return code;
}

