/* run_int.h — internal to `sbxsup run` (run.c, run_setup.c, run_attempt.c, run_events.c): the state
 * of one run and of one attempt.
 *
 * Promise: a run is plan (plan.h: pure) -> set-up (run_setup.c: acts on the plan) -> attempt
 * (run_attempt.c: starts the command once, event loop, ends the process tree) -> end (run.c:
 * run.end, clean-up). A run has at most two attempts (the second without bwrap, after bwrap's
 * set-up failed); everything that lives for one attempt is in struct attempt, reset by each.
 * run_events.c writes what the run records (run.start, env.drop, limit.hit, run.end) and says
 * (refusals, the per-layer off-warnings).
 * Ownership: struct run owns everything it points to (run.c run_free); struct attempt owns its
 * descriptors until run_attempt() returns (all closed then, except what a layer took).
 */
#ifndef SBX_RUN_INT_H
#define SBX_RUN_INT_H

#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "phase_time.h"
#include "exec_kills.h"
#include "audit.h"
#include "audit_dest.h"
#include "cgroup.h"
#include "janitor.h"
#include "layer.h"
#include "manifest.h"
#include "plan.h"
#include "report_rx.h"
#include "result.h"
#include "rlimits.h"
#include "run.h"
#include "sandbox_direct.h"
#include "shadow_mount.h"
#include "stdio_lend.h"
#include "strv.h"

/* ATT_LAYER_OFF: a layer failed after the spawn (layers_spawned), now off: the sandbox had been set
 * up for it on, so the command was not started; the run makes the attempt again without it. */
enum attempt_result { ATT_DONE = 0, ATT_SETUP_FAILED = 1, ATT_FAIL = 2, ATT_LAYER_OFF = 3 };

/* run_net.c: the run's network (docs/network.md), for one attempt. */
struct run_net {
	pid_t gw;                  /* the gateway process (gateway.h), -1 none */
	int gw_rep;                /* the supervisor's end of its report socketpair, -1 none */
	uint64_t gw_rejected;      /* malformed records from it */
	char how[256];             /* what the namespace's set-up made (netns.h level) */
};

struct run_wrapper;

/* One start of the command. */
struct attempt {
	const struct run_wrapper *wrapper; /* how this attempt starts the sandbox (wrapper.h): chosen by
				    * run_attempt() from the plan (run_plan.wrapped) */
	pid_t child, stage_pid;
	uid_t stage_uid;           /* the stage's uid from its "ready" (SCM_CREDENTIALS), (uid_t)-1 */
	bool ready;                /* the stage said "ready" */
	bool child_done, pidns, have_stage_status;
	int child_status, stage_status;
	bool timed_out;
	bool refused;              /* a required layer failed in the stage */
	bool spawned_failed;       /* a layer's set-up after the spawn failed (layers_spawned) */
	int fwd_signal;            /* a signal we forwarded before the stage was ready */
	int ctl, rep, status_rd, err_rd, alive_w, stderr_copy;
	char wrap_err[512];        /* what bwrap said before the sandbox was ready */
	size_t wrap_err_len;
	struct report_rx rx;
	struct run_net net;
	struct layer_attempt lc;   /* what the layers see of this attempt (run_ctx.c run_ctx_attempt) */
};

#define RUN_WARM_NS 6 /* run_warm.c: the stage's mnt, net, user, ipc, uts; bwrap's launcher's mnt */

/* --shadow (run_shadow.c owns these; the wrappers read sp to mount the overlay) */
struct run_shadow {
	struct shadow_plan sp;
	int64_t t0;                /* the run's start for commit's conflict check (ns, realtime) */
	cJSON *sum;                /* the change set's summary for run.end and the result record, owned */
};

/* A pre-created run (run_warm.c owns these) */
struct run_warm_state {
	int state;                 /* 0 waiting for the call, 1 the call came, -1 none came */
	int ns[RUN_WARM_NS];       /* the sandbox's namespaces, held until after the reply, -1 */
};

struct run {
	struct run_opts o;
	struct manifest *m;
	struct sbx_layers L;
	struct detect d;           /* host facts the probes found */
	struct run_limits lim;
	struct run_plan plan;
	struct layer_ctx lc;       /* what the layers see (points into this struct; run_ctx.c writes it) */
	struct layer_attempt lc_plan; /* lc.att outside an attempt: the plan's (run_ctx.c) */
	struct layer_rt lrt;       /* the started layers' state */
	struct exec_kills exec_kills; /* lc.exec_kills: processes killed at their exec stop */
	/* set-up */
	struct audit a;
	bool audit_ok;
	int pol_fd;                /* sealed memfd of the compiled policy, -1 */
	struct cg_run cg;
	struct janitor jan;        /* removes cgroups + dirs if we are killed */
	int repsrv;                /* the report socket bound at plan.repsock, -1 when none */
	char made_tmp[80];         /* the private tmp dir the set-up created, "" none (removed at the end) */
	char made_rep[80];         /* the report socket's dir the set-up created, "" none */
	bool rep_failed;           /* the report socket could not be made: planned without it */
	bool swept;                /* the stale private dirs in /tmp were swept (once per run) */
	int sfd, tfd;
	sigset_t oldmask;
	struct timespec t0;
	struct phase_time pt;      /* SBXSUP_TIMING=1: ms per phase on stderr at the end (phase_time.h) */
	/* outcome */
	int result_fd;             /* --result: the record's descriptor (result.h), -1 when none */
	const char *reason;        /* SBX_REASON_* when sbxsup refused or failed, NULL (the first one wins) */
	char reason_msg[300];      /* its one line */
	int end_sig;               /* the signal that ended the executor, 0 when none */
	bool started;              /* run.start written */
	bool audit_failed;
	struct attempt att;        /* the current (last) attempt */
	struct sd_plan sd;         /* identity / namespaces / HOME (sandbox_direct.h) */
	struct stdio_lend lend;    /* root: the executor's stdio pipes lent to its identity (stdio_lend.h) */
	const char *staged[SD_MAX_EXPOSE]; /* bwrap as root: sd.wr[] as lc.staged */
	struct strv unreach;       /* bwrap as root: granted paths its identity cannot look up */
	struct run_shadow shadow;  /* --shadow: owned by run_shadow.c */
	struct run_warm_state warm; /* o.warm: owned by run_warm.c */
};

/* run_net.c: after "ready", before run.start and "go": with pol_gateway, the routes and listeners
 * in the run's own network namespace (netns.h) and the gateway serving them (gateway.h); where no
 * namespace could be made for a network grant, a warning that the network is enforced by address
 * only. 0, or -1 with the reason set (gateway_unavailable: the run is refused, 125, never an open
 * network). */
int run_net_start(struct run *r);
/* The gateway's report socket for poll, or -1; drain its records into the audit (-1: audit failed). */
int run_net_fd(const struct run *r);
int run_net_drain(struct run *r);
/* End of the attempt: stop the gateway (its open flows are written), drain the last records. */
void run_net_stop(struct run *r);
/* run.start.level.network: which walls are up. */
void run_net_level(struct run *r, cJSON *level);

/* run_ctx.c: the one writer of what the layers see (r->lc, r->lc_plan, r->att.lc; its promise
 * block). from_plan after every (re-)plan; cgroup after the cgroup set-up; attempt once per attempt
 * after its wrapper's prepare (io's descriptors; builds io->env: 0, or -1 said); attempt_end when
 * it is over. */
struct attempt_io;
void run_ctx_init(struct run *r);
void run_ctx_from_plan(struct run *r);
void run_ctx_cgroup(struct run *r);
int run_ctx_attempt(struct run *r, struct attempt_io *io);
void run_ctx_attempt_end(struct run *r);

/* run_setup.c: set-up acts on the plan. Each returns 0, or -1 (said on stderr). */
int run_setup_dirs(struct run *r);        /* report socket dir + socket, private tmp dir; what it
					   * cannot make leaves the plan, and r->lc follows */
int run_setup_policy_fd(struct run *r);   /* the sealed memfd the preload and the stage map */
void run_setup_cgroups(struct run *r);    /* the run's cgroups, then the layers' starts */
int run_setup_signals(struct run *r);
void run_setup_undo(struct run *r);       /* everything the set-up made, removed */

/* run_events.c */
int run_emit_start(struct run *r);                 /* run.start, then one env.drop per dropped name */
int run_emit_end(struct run *r, int code, int sig);
int run_limit_events(struct run *r, int sig);      /* limit.hit for what ended or refused something */
bool run_require_missing(struct run *r);           /* prints one line per missing required layer */
bool run_executor_root(const struct run *r);      /* the executor's host uid is (would be) 0 */
void run_warn_off(const struct run *r);            /* one stderr warning per layer that is off */
/* The stage turned off a layer of `was_on` (layers_refuse_mask before "ready"; the preload: the
 * command cannot load it): a layer that was selected and found must act, so the run refuses (true:
 * exit 125, the entry's reason code — preload_unavailable —, one line naming what could not be
 * loaded and the executor's identity; run.start says the layer false with that why). Whoever wants
 * to run without it leaves it out (--layers). */
bool run_layer_lost_refused(struct run *r, unsigned was_on);

/* run_reason.c: remember why sbxsup refused or failed (the first reason wins) for the result record. */
void run_reason(struct run *r, const char *code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* run_shadow.c: the shadow workspace. plan: pure (-1: refused, reason set); setup: the store
 * (needs the run id); level: run.start.level.shadow; end: list the change set (after the tree is
 * gone) into r->shadow.sum (nothing when the stage never got ready); plan_json: its --dry-run section (NULL when off). */
int run_shadow_plan(struct run *r);
int run_shadow_setup(struct run *r);
void run_shadow_level(const struct run *r, cJSON *level);
int run_shadow_end(struct run *r);
void run_shadow_drop_unused(struct run *r); /* the store of a run whose command never started */
cJSON *run_shadow_plan_json(const struct run *r);

/* run_notfound.c: after a 127 for a command named by a path that exists on the host and that the
 * policy does not show to the sandbox (not granted, denied, or in the host's /tmp, which the
 * sandbox replaces): one more line, "PATH exists but is not visible in the sandbox (RULE): add it
 * to the manifest or run it from the workspace". */
void run_cmd_not_found(const struct policy *p, const char *cmd);

/* run_warm.c: a pre-created run (run.h struct run_warm). wait: the call (0), else -1 (r->warm.state = -1:
 * end the sandbox, audit nothing); go: the stage's "go" with the call's argv and stdio. */
int run_warm_wait(struct run *r, int ctl);
int run_warm_go(struct run *r, int ctl);
/* After the reply (o.warm->done): drop the namespaces run_warm_wait held, so their teardown (mount
 * tables, the network namespace's clean-up, which the kernel runs on a worker) comes here, after
 * the server's burst, not between the command's exit and the reply or during the next call. */
void run_warm_release(struct run *r);
/* A pre-created run that got no call: nothing of it is audited or recorded. */
static inline bool run_warm_idle(const struct run *r) { return r->o.warm && r->warm.state != 1; }

/* run_attempt.c */
/* One attempt in the plan's mode (r->plan.wrapped: in the wrapper layer, else direct). */
enum attempt_result run_attempt(struct run *r);
void run_exit_status(const struct run *r, int *code, int *sig);

#endif
