/* run.c — `sbxsup run`: one run as the list of steps it takes (docs/ARCHITECTURE.md "One run").
 *
 * Promise: nothing runs unless the manifest is valid, the audit stream is open and every required
 * layer is active (else exit 125 before anything starts). The steps:
 *   1. plan      manifest -> host probes (the layer table, cheap) -> names, policy, environment,
 *                layer admission — pure (plan.h); --dry-run prints this plan and stops;
 *   2. set-up    audit stream, refusal of a missing required layer, the dirs and the report socket
 *                named by the plan, the sealed policy memfd, the janitor, the cgroups, the layers'
 *                supervisor-side starts (netfilter, probes), subreaper, signals (run_setup.c);
 *   3. attempt   start the command once, in bwrap (or directly); the stage's "ready" confirms the
 *                layers, run.start is written, "go" releases the command, the event loop turns what
 *                the layers report into audit lines, and the whole tree is ended (run_attempt.c);
 *                when bwrap's own set-up fails (no "ready"), the run re-plans only what changes
 *                without bwrap (tmp dir, policy, environment), keeps the kernel layers running on the
 *                new policy, and attempts once more — unless bwrap is required;
 *   4. end       exit status, limit.hit, run.end (only after every process of the run is gone),
 *                clean-up. An audit write failure kills the run (exit 125: fail closed).
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "msg.h"
#include "quote.h"
#include "grant_link.h"
#include "lifetime.h"
#include "etc_view.h"
#include "container_env.h"
#include "dest_guard.h"
#include "plan.h"
#include "netns.h"
#include "run_int.h"

extern char **environ;

/* ---- 1. plan ------------------------------------------------------------------------------------ */

static int load_manifest(struct run *r)
{
	struct mf_ctx ctx;
	struct mf_errors errs;
	char err[512];
	memset(&errs, 0, sizeof errs);
	if (mf_ctx_init(&ctx, r->o.workspace, err, sizeof err) < 0) {
		sbx_msg("%s", err[0] ? err : "cannot determine the workspace / home directory");
		run_reason(r, SBX_REASON_BAD_ARGUMENTS, "%s", err[0] ? err : "cannot determine the workspace");
		return -1;
	}
	int rc = r->o.manifest ? manifest_load(r->o.manifest, &ctx, &r->m, &errs)
			       : manifest_load_default(&ctx, &r->m, &errs);
	if (rc < 0 || !r->m) {
		const char *src = r->o.manifest ? r->o.manifest : "(built-in default)";
		char q[SBX_Q_MAX];
		const char *qsrc = r->o.manifest ? sbx_q(src, q, sizeof q) : src;
		for (size_t i = 0; i < errs.n; i++)
			sbx_msg("%s: %s", qsrc, errs.msg[i]);
		if (!errs.n)
			sbx_msg("%s: cannot load the manifest", qsrc);
		run_reason(r, SBX_REASON_BAD_MANIFEST, "%s: %s", src, errs.n ? errs.msg[0] : "cannot load the manifest");
		mf_errors_free(&errs);
		return -1;
	}
	mf_errors_free(&errs);
	return 0;
}

/* Which layers this host gives the run (the table's cheap probes; SBXSUP_SANDBOX=0: none). */
static void detect_layers(struct run *r)
{
	r->L.want = r->o.want;
	r->L.require = r->o.require;
	r->L.sensor_off = r->o.sensor_off;
	if (r->o.helper && !realpath(r->o.helper, r->d.self)) /* the library checked it; gone since: */
		snprintf(r->d.self, sizeof r->d.self, "%s", r->o.helper); /* never the caller's program */
	if (!r->o.disabled) {
		layers_detect(&r->L, &r->d);
		return;
	}
	layers_disable(&r->L, "disabled via SBXSUP_SANDBOX");
}

/* Root: the directories granted for writing (the workspace first), which get idmapped mounts
 * (sd_writable). Beyond SD_MAX_EXPOSE the rest stay as they are (direct mode refuses then). With
 * bwrap, also the granted paths its unprivileged identity cannot look up (sd_unreachable). */
static void plan_writable(struct run *r, bool wrapped)
{
	struct sd_plan *p = &r->sd;
	p->nwr = 0;
	strv_free(&r->unreach);
	if (r->o.disabled || !p->root)
		return;
	size_t nd = pol_dir_count(r->plan.pol), n = 0;
	const char **paths = wrapped ? calloc(nd + 1, sizeof *paths) : NULL;
	bool *bad = wrapped ? calloc(nd + 1, sizeof *bad) : NULL;
	for (size_t i = 0; paths && bad && i < nd; i++) {
		struct pol_dir d;
		if (pol_dir_get(r->plan.pol, i, &d) == 0 && d.path && d.path[0] == '/')
			paths[n++] = d.path;
	}
	if (paths && bad && sd_unreachable(p, paths, n, bad) == 0)
		for (size_t i = 0; i < n; i++)
			if (bad[i])
				(void)strv_add(&r->unreach, paths[i]);
	free(paths);
	free(bad);
	(void)sd_writable(p, r->m->workspace);
	for (size_t i = 0; i < nd; i++) {
		struct pol_dir d;
		if (pol_dir_get(r->plan.pol, i, &d) == 0 && d.path && (d.access & POL_WRITE) &&
		    strcmp(d.path, r->plan.tmpdir) && sbx_grant_links_followed(&r->plan.links, i))
			(void)sd_writable(p, d.path);
	}
}

/* Names, policy, environment for the mode; pure. */
static int replan(struct run *r, bool wrapped)
{
	char err[512] = "";
	bool active = !r->o.disabled;
	r->plan.wrapped = wrapped;
	r->plan.cmd = r->o.cmd[0];
	bool report = active && !r->rep_failed && layers_want_report(&r->L);
	bool stage = active && wrapped && !r->rep_failed && geteuid() == 0;
	if (plan_names(&r->plan, report, stage, active && !wrapped) < 0) {
		sbx_msg("cannot choose the run's private directory names: %s", strerror(errno));
		return -1;
	}
	pt_mark(&r->pt, "plan.names");
	if (active && sd_probe(&r->sd, !r->m->net_granted, sd_manifest_grants_home(r->m), r->m->workspace) < 0) {
		/* an identity sbxsup cannot lend the executor: never run it as root instead */
		sbx_msg("%s (refusing to run)", r->sd.why);
		run_reason(r, SBX_REASON_IDENTITY, "%s", r->sd.why);
		return -1;
	}
	pt_mark(&r->pt, "plan.identity");
	r->plan.tmp_ns = !wrapped && r->sd.mnt; /* "/tmp": the run's own, in its mount namespace */
	r->plan.no_pidns = false;  /* (set by the attempt when no namespace could be made after all) */
	r->plan.no_netns = false;
	r->plan.no_mntns = false;
	if (active && plan_wants_nft(r->m) && (wrapped || r->plan.tmp_ns) && !r->plan.nft) {
		/* an unrestricted network gets a namespace of its own only where nftables can send every
		 * TCP connection to the gateway (run_net.c), and a host granted without a port is
		 * reachable on every port only there; probed once per run */
		const char *e = getenv("SBXSUP_NFT");
		if (e && !strcmp(e, "0")) {
			r->plan.nft = -1;
			snprintf(r->plan.nft_why, sizeof r->plan.nft_why, "SBXSUP_NFT=0");
		} else {
			char why[160] = "";
			r->plan.nft = sbx_netns_nft_probe(why, sizeof why) ? 1 : -1;
			snprintf(r->plan.nft_why, sizeof r->plan.nft_why, "%s%s", r->plan.nft < 0 ? "nftables unusable: " : "",
				 r->plan.nft < 0 ? why : "");
		}
	}
	pt_mark(&r->pt, "plan.nft_probe");
	r->plan.etclow[0] = r->plan.etcview[0] = 0;
	if (wrapped && r->plan.repdir[0]) {
		/* the view's lower layer lives in the child's tmpfs at the view (etc_view.h) */
		snprintf(r->plan.etclow, sizeof r->plan.etclow, "%s/etcview/lower", r->plan.repdir);
		snprintf(r->plan.etcview, sizeof r->plan.etcview, "%s/etcview", r->plan.repdir);
		if (!etc_view_wanted(r->plan.etclow))
			r->plan.etclow[0] = r->plan.etcview[0] = 0;
	}
	if (plan_policy(&r->plan, r->m, &r->d, err, sizeof err) < 0) {
		sbx_msg("%s%s", strncmp(err, "compiled", 8) ? "cannot compile the policy: " : "", err);
		return -1;
	}
	pt_mark(&r->pt, "plan.policy");
	plan_writable(r, wrapped);
	pt_mark(&r->pt, "plan.writable");
	if (plan_env(&r->plan, r->m, environ, r->o.disabled) < 0 ||
	    (active && sd_env(&r->sd, &r->plan.env, wrapped ? "/tmp" : sd_tmp_path(&r->sd, r->plan.tmpdir)) < 0)) {
		sbx_msg("out of memory building the environment");
		return -1;
	}
	run_ctx_from_plan(r);
	pt_mark(&r->pt, "plan.env");
	return 0;
}

static int make_plan(struct run *r)
{
	if (load_manifest(r) < 0)
		return -1;
	pt_mark(&r->pt, "plan.manifest");
	limits_resolve(&r->m->limits, r->o.timeout_ms, &r->lim);
	detect_layers(r);
	pt_mark(&r->pt, "plan.detect");
	if (replan(r, layers_wrapper(&r->L) != NULL) < 0)
		return -1;
	bool report = layers_want_report(&r->L);
	layers_admit(&r->lc); /* e.g. a static command cannot load the preload */
	/* what the plan named for a reporting layer alone (the report socket) goes with it */
	if (report && !layers_want_report(&r->L) && replan(r, r->plan.wrapped) < 0)
		return -1;
	pt_mark(&r->pt, "plan.admit");
	int sp = run_shadow_plan(r) < 0 ? -2 : 0;
	pt_mark(&r->pt, "plan.shadow");
	return sp;
}

static int print_plan(struct run *r)
{
	struct strv env = {0};
	if (plan_attempt_env(&r->plan, &r->lc, -1, -1, NULL, r->o.disabled, &env) < 0) {
		sbx_msg("out of memory building the environment");
		strv_free(&env);
		return SBX_EXIT_INTERNAL;
	}
	/* the plan's view with the environment an attempt would give (placeholders) */
	struct layer_attempt att = *r->lc.att;
	att.env = &env;
	struct layer_ctx c = r->lc;
	c.att = &att;
	cJSON *plan = plan_json(&c, r->m, &r->plan.dropped);
	cJSON *shadow = plan ? run_shadow_plan_json(r) : NULL;
	if (shadow)
		cJSON_AddItemToObject(plan, "shadow", shadow);
	char *s = plan ? cJSON_Print(plan) : NULL;
	cJSON_Delete(plan);
	strv_free(&env);
	if (!s) {
		sbx_msg("cannot build the plan");
		return SBX_EXIT_INTERNAL;
	}
	if (r->o.plan_out)
		*r->o.plan_out = s;
	else {
		puts(s);
		free(s);
	}
	return run_require_missing(r) ? SBX_EXIT_INTERNAL : 0;
}

/* ---- 2. set-up ---------------------------------------------------------------------------------- */

static int open_audit(struct run *r)
{
	char err[512] = "";
	struct audit_run_cfg ac = {
		.dest = r->o.audit, .executor = r->m->name,
		.pol = r->o.disabled ? NULL : r->plan.pol, /* SBXSUP_SANDBOX=0: nothing is confined */
		.private_tmp = r->plan.wrapped || r->plan.tmp_ns, /* the executor's /tmp is its own */
		.budget_mb = r->o.audit_budget_mb >= 0 ? r->o.audit_budget_mb
			     : r->m->limits.audit_mb >= 0 ? r->m->limits.audit_mb : AUDIT_DEFAULT_BUDGET_MB};
	if (audit_run_open(&r->a, &ac, err, sizeof err) < 0) {
		char q[SBX_Q_MAX];
		sbx_msg("audit stream %s: %s (fail closed: nothing runs)",
			r->o.audit ? sbx_q(r->o.audit, q, sizeof q) : "(none)", err[0] ? err : "cannot open");
		/* refused by what it is (where the executor could write it, a symlink, stderr, ...), or unwritable */
		bool dest = r->o.audit && (!strcmp(r->o.audit, "-") || errno == ELOOP || strstr(err, "refus") ||
					   strstr(err, "executor") || strstr(err, "owned") || strstr(err, "regular"));
		run_reason(r, dest ? SBX_REASON_AUDIT_DESTINATION : SBX_REASON_AUDIT_UNWRITABLE, "audit stream %s: %s",
			   r->o.audit ? r->o.audit : "(none)", err[0] ? err : "cannot open");
		return -1;
	}
	r->audit_ok = true;
	return 0;
}

/* --result where the executor could replace it (result.h result_check; the plan's mode decides
 * whether /tmp is its own): -1 with the reason set. The serve child's copy of the call's own
 * --result (o.result_extra) is checked the same way. */
static int check_result(struct run *r)
{
	const struct policy *pol = r->o.disabled ? NULL : r->plan.pol;
	bool ptmp = r->plan.wrapped || r->plan.tmp_ns;
	char err[PATH_MAX + 512];
	if (result_check(r->o.result, r->result_fd, pol, ptmp, err, sizeof err) < 0 ||
	    (r->o.result_extra &&
	     result_check(r->o.result_extra, r->o.result_extra_fd, pol, ptmp, err, sizeof err) < 0)) {
		sbx_msg("%s (fail closed: nothing runs)", err);
		run_reason(r, SBX_REASON_RESULT_DESTINATION, "%s", err);
		return -1;
	}
	/* the audit file by the same rule (checked when it was opened; again after a re-plan) */
	if (r->audit_ok && r->a.path &&
	    dest_refuse_writable(pol, r->a.path, ptmp, "the audit stream", err, sizeof err) < 0) {
		char q[SBX_Q_MAX];
		sbx_msg("audit stream %s: %s (fail closed: nothing runs)", sbx_q(r->a.path, q, sizeof q), err);
		run_reason(r, SBX_REASON_AUDIT_DESTINATION, "audit stream %s: %s", r->a.path, err);
		return -1;
	}
	return 0;
}

/* Refusal before anything ran: record it (when there is a stream) and exit 125. */
static int refuse(struct run *r)
{
	run_reason(r, SBX_REASON_LAYER_REQUIRED, "a required layer is not active (see stderr)");
	if (r->audit_ok && !run_warm_idle(r) && run_emit_start(r) == 0)
		(void)run_emit_end(r, SBX_EXIT_INTERNAL, 0);
	return SBX_EXIT_INTERNAL;
}

/* Returns 0, 1 (refuse: a required layer did not start), or -1. */
static int set_up(struct run *r)
{
	if (!r->o.disabled) {
		r->jan.layers = r->L.active;
		if (janitor_start(&r->jan) < 0)
			sbx_msg("warning: cannot start the cleanup helper (%s): if sbxsup is killed, its cgroups "
				"and tmp dir stay behind", strerror(errno));
		pt_mark(&r->pt, "setup.janitor");
		if (run_setup_dirs(r) < 0)
			return -1;
		if (r->o.ws_tmp[0])
			(void)janitor_add(&r->jan, 't', r->o.ws_tmp);
		if (r->rep_failed && replan(r, r->plan.wrapped) < 0)
			return -1; /* the report socket could not be made: plan without it */
	}
	pt_mark(&r->pt, "setup.dirs");
	if (run_setup_policy_fd(r) < 0)
		return -1;
	pt_mark(&r->pt, "setup.policy_fd");
	if (!r->o.disabled && r->sd.root && !r->o.warm) { /* (a warm call's stdio comes with the call) */
		int fds[3] = {0, 1, 2};
		if (r->o.stdio)
			memcpy(fds, r->o.stdio, sizeof fds);
		stdio_lend(&r->lend, fds, r->sd.host_uid);
	}
	if (!r->o.disabled) {
		run_setup_cgroups(r);
		if (run_require_missing(r))
			return 1;
	}
	if (life_subreaper() < 0) {
		sbx_msg("prctl(PR_SET_CHILD_SUBREAPER): %s", strerror(errno));
		return -1;
	}
	if (run_setup_signals(r) < 0) {
		sbx_msg("cannot set up signal handling: %s", strerror(errno));
		return -1;
	}
	pt_mark(&r->pt, "setup.signals");
	return 0;
}

/* ---- 3. attempts -------------------------------------------------------------------------------- */

/* bwrap's own set-up failed: record why, re-plan what changes without it (the private tmp dir, the
 * policy, the environment), let the running layers follow the new policy, attempt once more. */
/* run_attempt(), again with fewer layers while one fails after the spawn (ATT_LAYER_OFF: its
 * sandbox had been set up for it on): graceful degradation, as when it fails before; --require
 * refuses. */
static enum attempt_result attempt(struct run *r)
{
	enum attempt_result ar = run_attempt(r);
	for (int i = 0; ar == ATT_LAYER_OFF && i < SBX_L__N; i++)
		ar = run_require_missing(r) ? ATT_FAIL : run_attempt(r);
	return ar == ATT_LAYER_OFF ? ATT_FAIL : ar;
}

static enum attempt_result retry_direct(struct run *r)
{
	struct attempt *t = &r->att;
	const struct layer_ops *w = layers_wrapper(&r->L);
	while (t->wrap_err_len && t->wrap_err[t->wrap_err_len - 1] == '\n')
		t->wrap_err_len--;
	t->wrap_err[t->wrap_err_len] = 0;
	for (char *c = t->wrap_err; *c; c++)
		if (*c == '\n')
			*c = ' ';
	/* bwrap blames the kernel's sysctl for any EPERM of clone(CLONE_NEWUSER); inside a container
	 * the seccomp profile or the capabilities refuse it: say that instead */
	char cwhat[200];
	bool cont = container_bwrap_blame(t->wrap_err, cwhat, sizeof cwhat);
	if (w)
		sbx_layer_set_off(&r->L, w->id, "%s setup failed: %s%s%s%s", w->name,
				  t->wrap_err[0] ? t->wrap_err : "exited before the sandbox was ready",
				  cont ? "; in a container (" : "", cont ? cwhat : "",
				  cont ? "): its seccomp profile, capabilities or masked /proc refuse what bwrap "
					 "needs (sbxsup status; docs/deployment.md)" : "");
	if (run_require_missing(r) || replan(r, false) < 0 || check_result(r) < 0 || run_setup_dirs(r) < 0 ||
	    run_setup_policy_fd(r) < 0)
		return ATT_FAIL; /* (check_result: without bwrap the executor's /tmp is the host's) */
	layers_replan(&r->lc, &r->lrt);
	if (run_require_missing(r))
		return ATT_FAIL;
	return attempt(r);
}

/* ---- 4. end ------------------------------------------------------------------------------------- */

static int finish(struct run *r, enum attempt_result ar)
{
	int code = SBX_EXIT_INTERNAL, sig = 0;
	if (ar == ATT_DONE)
		run_exit_status(r, &code, &sig);
	r->end_sig = sig;
	if (ar != ATT_DONE)
		run_reason(r, SBX_REASON_SETUP_FAILED, "the sandbox could not be set up (see stderr)");
	if (r->audit_failed) {
		code = SBX_EXIT_INTERNAL;
		run_reason(r, SBX_REASON_AUDIT_UNWRITABLE, "a write to the audit stream failed: the run was ended");
	}
	/* (126/127 said by the stage, which resolves the command before "ready", set their reason in
	 * the attempt; the command's own 126/127 are its exit status) */
	if (!r->started && code == SBX_EXIT_INTERNAL)
		run_reason(r, r->att.refused ? SBX_REASON_LAYER_REQUIRED : SBX_REASON_SETUP_FAILED,
			   "the command was not started (see stderr)");
	if (code == SBX_EXIT_NOTFOUND && !r->o.disabled)
		run_cmd_not_found(r->plan.pol, r->o.cmd[0]);
	if (code == SBX_EXIT_TIMEOUT && r->att.timed_out)
		sbx_msg("timeout: the command ran longer than %ld.%03ld s (--timeout or limits.wall_s) and was killed",
			r->lim.wall_ms / 1000, r->lim.wall_ms % 1000);
	(void)run_shadow_end(r); /* every process of the run is gone: list what it changed */
	if (r->started && !r->audit_failed) {
		if (run_limit_events(r, sig) < 0 || run_emit_end(r, code, sig) < 0)
			code = SBX_EXIT_INTERNAL;
	} else if (!r->started && r->audit_ok && !r->audit_failed && !run_warm_idle(r)) {
		/* the command never got "go" (refused, or interrupted before the stage was ready) */
		if (run_emit_start(r) == 0)
			(void)run_emit_end(r, code, sig);
	}
	return code;
}

static int run_main(struct run *r, int pr)
{
	clock_gettime(CLOCK_MONOTONIC, &r->t0);
	if (r->o.result && !r->o.dry_run) { /* even for bad arguments: the caller waits for a record */
		char err[300];
		if (result_open(r->o.result, &r->result_fd, err, sizeof err) < 0) {
			sbx_msg("%s", err);
			return SBX_EXIT_INTERNAL;
		}
	}
	if (pr != 0) {
		run_reason(r, SBX_REASON_BAD_ARGUMENTS, "bad arguments (see sbxsup run --help)");
		return SBX_EXIT_INTERNAL;
	}

	int mp = make_plan(r);                                  /* 1. plan */
	if (mp < 0) {
		run_reason(r, SBX_REASON_INTERNAL, "the run could not be planned (see stderr)");
		return SBX_EXIT_INTERNAL;
	}
	if (r->o.dry_run)
		return print_plan(r);

	if (open_audit(r) < 0)                                  /* 2. set-up */
		return SBX_EXIT_INTERNAL;
	pt_mark(&r->pt, "setup.audit");
	if (check_result(r) < 0)
		return refuse(r);
	if (run_shadow_setup(r) < 0)
		return refuse(r);
	if (run_require_missing(r))
		return refuse(r);
	pt_mark(&r->pt, "setup.checks");
	int su = set_up(r);
	if (su != 0) {
		run_reason(r, su > 0 ? SBX_REASON_LAYER_REQUIRED : SBX_REASON_SETUP_FAILED,
			   "the sandbox could not be set up (see stderr)");
		return su > 0 ? refuse(r) : SBX_EXIT_INTERNAL;
	}

	enum attempt_result ar = attempt(r); /* 3. attempt(s) */
	if (ar == ATT_SETUP_FAILED)
		ar = retry_direct(r);

	int code = finish(r, ar);                               /* 4. end */
	pt_mark(&r->pt, "end.events");
	return code;
}

/* The result record (--result): one JSON object, whether the run ran or was refused. */
static void write_result(struct run *r, int code)
{
	if ((r->result_fd < 0 && !r->o.result_out) || run_warm_idle(r))
		return;
	struct timespec t1;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	cJSON *events = r->audit_ok ? audit_counts(&r->a) : NULL;
	struct result_in in = {
		.run = r->a.run[0] ? r->a.run : NULL,
		.tag = r->o.tag,
		.executor = r->m ? r->m->name : NULL,
		.exit = code,
		.signal = r->end_sig,
		.timeout = r->att.timed_out,
		.reason_code = code == SBX_EXIT_INTERNAL || r->reason ? r->reason ? r->reason : SBX_REASON_INTERNAL : NULL,
		.reason_msg = r->reason ? r->reason_msg : NULL,
		.L = r->m ? &r->L : NULL,
		.events = events,
		.sev = r->audit_ok ? r->a.sev_count : NULL,
		.breaches = r->audit_ok ? r->a.breaches : 0,
		.lost = layers_lost_events(&r->lrt),
		.duration_ms = (t1.tv_sec - r->t0.tv_sec) * 1000 + (t1.tv_nsec - r->t0.tv_nsec) / 1000000,
		.audit_dest = r->audit_ok ? r->o.audit : NULL,
		.key = r->audit_ok && r->a.keyed ? r->a.key.id : NULL,
		.shadow = r->shadow.sum,
	};
	cJSON *rec = result_build(&in);
	if (r->result_fd >= 0 && (!rec || result_write(r->result_fd, rec) < 0))
		sbx_msg("warning: cannot write the result record: %s", strerror(errno));
	if (r->o.result_out && rec) { /* a struct until its holder prints it (lib: sbx_result_json) */
		*r->o.result_out = rec;
		rec = NULL;
	} else if (r->o.result_out) {
		sbx_msg("warning: cannot build the result record: out of memory");
	}
	cJSON_Delete(rec);
	cJSON_Delete(events);
	result_close(&r->result_fd);
}

static void run_free(struct run *r)
{
	pt_mark(&r->pt, "end.result");
	run_shadow_drop_unused(r);
	layers_stop(&r->lrt, false);
	pt_mark(&r->pt, "end.layers_stop");
	run_setup_undo(r);
	stdio_return(&r->lend);
	pt_mark(&r->pt, "end.setup_undo");
	if (r->audit_ok)
		audit_close(&r->a);
	plan_free(&r->plan);
	strv_free(&r->unreach);
	cJSON_Delete(r->shadow.sum);
	if (r->m)
		manifest_free(r->m);
	pt_mark(&r->pt, "end.cleanup");
	pt_report(&r->pt, sbx_msg_fd());
	free(r);
}

int run_execute(struct run_opts *o, int parsed)
{
	struct run *r = calloc(1, sizeof *r);
	if (!r) {
		sbx_msg("out of memory");
		return SBX_EXIT_INTERNAL;
	}
	r->pol_fd = r->sfd = r->tfd = r->repsrv = r->result_fd = -1;
	r->sd.userns_fd = -1;
	for (size_t i = 0; i < RUN_WARM_NS; i++)
		r->warm.ns[i] = -1;
	cg_init(&r->cg);
	janitor_init(&r->jan);
	r->o = *o;
	pt_init(&r->pt, getenv("SBXSUP_TIMING"));
	run_ctx_init(r);
	int code = run_main(r, parsed);
	fflush(stdout);
	write_result(r, code);
	if (r->o.warm && r->warm.state == 1 && r->o.warm->done) /* answered before the clean-up */
		r->o.warm->done(r->o.warm->arg, code);
	run_warm_release(r);
	run_free(r);
	return code;
}
