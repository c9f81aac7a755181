/* run_ctx.c — what the layers see of a run (layer.h struct layer_ctx, struct layer_attempt): the
 * one writer of r->lc, of the plan's attempt view (r->lc_plan) and of each attempt's (r->att.lc).
 *
 * Promise: every field a layer reads is derived here from its owner — the plan (run_plan), the
 * set-up's cgroup (cg_run), the identity plan (sd_plan), the attempt's descriptors (attempt_io) —
 * and from nothing else; no other file assigns to them, so a layer's view can only change by one of
 * these derivations (include_graph.sh `layer_ctx_one_writer`). The layers get the context read-only
 * (every op takes a const struct layer_ctx).
 *   run_ctx_init         the run's start: no descriptor, no cgroup, the run's timing and kill list;
 *   run_ctx_from_plan    after every (re-)plan and after the set-up gave up part of the plan;
 *   run_ctx_cgroup       after the cgroup set-up;
 *   run_ctx_attempt      once per attempt, after its wrapper made its descriptors: the attempt's
 *                        report socket, the preload's channel, its environment (plan_attempt_env)
 *                        and descriptors; made again only by a re-plan of that attempt (the direct
 *                        wrapper's fallback when no namespace could be made: plan.no_mntns);
 *   run_ctx_attempt_end  the attempt is over: the plan's view again.
 * Ownership: r->lc points into struct run; the attempt's environment is io->env (the attempt's).
 */
#include "msg.h"
#include "run_int.h"
#include "wrapper.h"

static const struct layer_fds no_fds = {.ctl = -1, .stderr_copy = -1, .ldso = -1, .policy = -1,
					.userns = -1, .passwd = -1, .group = -1, .resolv = -1};

void run_ctx_init(struct run *r)
{
	r->lc_plan.fds = no_fds;
	r->lc.att = &r->lc_plan;
	r->lc.cg = (struct layer_cg){.v2_fd = -1};
	r->lc.pt = &r->pt;
	r->lc.exec_kills = &r->exec_kills;
}

void run_ctx_from_plan(struct run *r)
{
	r->lc.pol = r->plan.pol;
	r->lc.d = &r->d;
	r->lc.L = &r->L;
	r->lc.lim = &r->lim;
	r->lc.plan_wrapped = &r->plan.wrapped; /* (read through; the plan owns it) */
	r->lc.workspace = r->m->workspace;
	r->lc.cmd = r->o.cmd;
	r->lc.etc_view = r->plan.etcview[0] ? r->plan.etcview : NULL;
	r->lc.etc_lower = r->plan.etclow[0] ? r->plan.etclow : NULL;
	sd_inside_ids(&r->sd, &r->lc.uid, &r->lc.gid);
	r->lc.home_dir = r->sd.real_home || r->o.disabled ? NULL : "/tmp/" SD_HOME_NAME;
	/* bwrap as root: its own user namespace, the write grants bound from their staged idmapped
	 * mounts (sandbox_direct.h sd_bwrap_prepare / sd_bwrap_child) */
	r->lc.own_userns = r->plan.wrapped && !r->o.disabled && r->sd.root;
	r->lc.stage_dir = r->lc.own_userns && r->plan.stagedir[0] ? r->plan.stagedir : NULL;
	for (size_t i = 0; i < r->sd.nwr; i++)
		r->staged[i] = r->sd.wr[i];
	r->lc.staged = r->staged;
	r->lc.nstaged = r->lc.own_userns ? r->sd.nwr : 0;
	r->lc.unreachable = r->lc.own_userns ? &r->unreach : NULL;
	r->lc.links = &r->plan.links;

	/* the plan's attempt view (admission, --dry-run): the plan's environment, no descriptor */
	struct layer_attempt *p = &r->lc_plan;
	p->env = &r->plan.env;
	p->report_sock = r->plan.repsock[0] ? r->plan.repsock : NULL;
	/* The preload's fixed channel (/run/sbxsup + /etc/ld.so.preload): wherever the run has a mount
	 * tree of its own (bwrap, or direct mode with a mount namespace) and a report socket. Without
	 * any mount namespace the environment stays the channel. */
	p->fixed_channel = !r->o.disabled && p->report_sock && layers_want_report(&r->L) &&
			   (r->plan.wrapped || (r->plan.tmp_ns && !r->plan.no_mntns));
	p->fds = no_fds;
}

void run_ctx_cgroup(struct run *r)
{
	r->lc.cg = (struct layer_cg){
		.v2_fd = r->cg.v2_fd,
		.v2_id = r->cg.v2_id,
		.memory = r->cg.ctl_on[CG_MEMORY] ? (r->cg.ctl_v2[CG_MEMORY] ? 2 : 1) : 0,
		.pids = r->cg.ctl_on[CG_PIDS] ? (r->cg.ctl_v2[CG_PIDS] ? 2 : 1) : 0,
		.run_v2 = r->cg.v2[0] != 0,
		.why = r->cg.why,
	};
}

int run_ctx_attempt(struct run *r, struct attempt_io *io)
{
	struct layer_attempt *a = &r->att.lc;
	/* the report socket only when the set-up made it */
	a->report_sock = r->repsrv >= 0 ? r->lc_plan.report_sock : NULL;
	a->fixed_channel = r->lc_plan.fixed_channel && a->report_sock;
	a->fds = (struct layer_fds){.ctl = io->ctl_c, .stderr_copy = r->att.stderr_copy, .ldso = io->ldso,
				    .policy = a->fixed_channel ? r->pol_fd : -1, .userns = r->sd.userns_fd,
				    .passwd = io->passwd, .group = io->group, .resolv = io->resolv};
	a->env = &r->plan.env; /* (while its own is built from it) */
	r->lc.att = a;
	strv_free(&io->env);
	if (plan_attempt_env(&r->plan, &r->lc, r->pol_fd, io->rep_c, r->a.run, r->o.disabled, &io->env) < 0) {
		sbx_msg("out of memory building the environment");
		return -1;
	}
	a->env = &io->env;
	return 0;
}

void run_ctx_attempt_end(struct run *r)
{
	r->lc.att = &r->lc_plan;
	r->att.lc = (struct layer_attempt){.fds = no_fds};
}
