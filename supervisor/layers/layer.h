/* layer.h — the layer interface: one ops table per layer, all of them registered in one table
 * (layers.c, `sbx_layer_ops[]`).
 *
 * Promise: everything a layer does is reached through its entry — what works on this host
 * (probe: cheap for `run`, functional for `status`, with a reason and a remedy), its part of the
 * --dry-run plan (plan), what it adds to the executor's environment (env), the argv that starts
 * the sandbox (wrap: bwrap only — nothing else builds the bwrap argv), its supervisor-side start
 * and the descriptor the event loop polls and drains, what it does in the forked child (child:
 * async-signal-safe), what it does inside the sandbox in the exec stage just before the command
 * (stage), what it learns when the stage is ready (on_ready), and its stop; and what the run asks
 * of a layer (a layer it must not lose, the walls it reports, the library the loader loads, the
 * shared sets the janitor and `serve` look after), each a flag or op here. `detect`
 * (layers_detect), `status`, --dry-run, the exec stage (run/stage.c), the event loop and the
 * clean-up walk the table; no code in run/ or serve/ asks for an entry by name (what the command
 * line still reads by name: docs/ARCHITECTURE.md). `lost` is the one line said when the layer is
 * off (what protection is lost).
 *
 * Ownership: a started layer's state (`void *st`) belongs to the layer until its `stop`; the
 * walker keeps the pointer (struct layer_rt) and calls `stop` exactly once. A layer never owns the
 * context it is given.
 */
#ifndef SBX_LAYER_H
#define SBX_LAYER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <poll.h>
#include <sys/types.h>
#include <cjson/cJSON.h>

#include "phase_time.h"
#include "audit.h"
#include "detect.h"
#include "layer_set.h"
#include "policy.h"
struct run_limits; /* rlimits.h */
struct exec_kills; /* exec_kills.h */
#include "strv.h"

/* What a probe found on this host. */
struct layer_probe {
	bool available;
	char level[4600];          /* when available: "abi 7", "notify", the bwrap path, ... */
	char why[4600];            /* when not: the reason */
	char remedy[512];          /* how to make it work ("" when nothing to do) */
};

enum layer_depth {
	LAYER_CHEAP,               /* `run`: never forks, never loads a program it keeps */
	LAYER_FUNCTIONAL,          /* `status`: may start a real sandbox or load and discard BPF */
};

/* What the run's cgroup gives the layers (filled by the run's set-up; all zero/-1 without one). */
struct layer_cg {
	int v2_fd;                 /* the run's cgroup v2 directory, -1 when none */
	uint64_t v2_id;            /* its id, 0 when none */
	int memory, pids;          /* controller enforcing memory_mb / pids: 0 none, 1 cgroup v1, 2 v2 */
	bool run_v2;               /* the run has a cgroup v2 of its own */
	const char *why;           /* why a controller is missing ("" when none is) */
};

/* The attempt's descriptors the wrapper passes into the sandbox; -1 prints as "<fd>" (plan). */
struct layer_fds {
	int ctl;                   /* the stage's control socket */
	int stderr_copy;           /* the caller's real stderr, for the stage */
	int ldso;                  /* memfd holding /etc/ld.so.preload's text (preload + bwrap) */
	int policy;                /* the sealed policy memfd, bound at /run/sbxsup/policy (fixed channel) */
	int userns;                /* root: the user namespace the wrapper joins (own_userns), or -1 */
	int passwd, group;         /* memfds of the executor's /etc/passwd and /etc/group (etc_view.h) */
	int resolv;                /* memfd of the run's /etc/resolv.conf (pol_gateway; etc_view.h) */
};

/* What one attempt adds to the layers' view (run/run_ctx.c, its one writer): before any attempt and
 * for --dry-run the plan's (the plan's environment, no descriptor), during an attempt that
 * attempt's, built once after its wrapper made its descriptors. */
struct layer_attempt {
	const struct strv *env;    /* the command's environment (wrap: one --setenv each) */
	const char *report_sock;   /* host path of the run's report socket, NULL when none */
	bool fixed_channel;        /* the preload finds the policy, the report socket and itself at fixed
				    * paths (/run/sbxsup, /etc/ld.so.preload): no LD_PRELOAD / SBXSUP_*
				    * in the environment, no descriptor passed (preload/pl.h) */
	struct layer_fds fds;
};

/* What a layer sees of the run: built by the run (run/run_ctx.c alone, from the plan, the set-up and
 * the attempt), read-only for every layer (each op takes it const); never owned by a layer. */
struct layer_ctx {
	const struct policy *pol;
	struct detect *d;          /* host facts the probes found (paths of bwrap, sbxsup, the preload) */
	struct sbx_layers *L;      /* on/off bookkeeping: a layer records its own state here */
	const struct run_limits *lim;
	struct layer_cg cg;
	/* This run's stage runs inside the wrapper layer (bwrap): the plan's flag (run/plan.h
	 * run_plan.wrapped, its one owner, set by each (re-)plan), read through layer_wrapped().
	 * NULL: not wrapped. (A pointer named apart from the old bool `wrapped`, so code still
	 * reading c->wrapped does not build.) */
	const bool *plan_wrapped;
	const char *workspace;     /* the executor's working directory */
	char **cmd;                /* the command (NULL-terminated) */
	const struct layer_attempt *att; /* the attempt's environment, report socket, channel, fds */
	const char *etc_view;      /* where the wrapper's child mounts the /etc view (etc_view.h), bound
				    * at /etc; NULL: none */
	const char *etc_lower;     /* the view's upper lower layer (ld.so.preload, whiteouts) */
	unsigned uid, gid;         /* the executor's non-zero ids inside its namespace (sandbox_direct.h) */
	const char *home_dir;      /* the private HOME to make inside the wrapper, NULL: the real one */
	/* root: the wrapper joins a user namespace of the run's (fds.userns) mapping uid/gid to an
	 * unprivileged host identity, and binds the write grants staged[i] from stage_dir/w<i>
	 * (sandbox_direct.h sd_bwrap_child), where the child put their idmapped mounts */
	bool own_userns;
	const char *stage_dir;
	const char *const *staged;
	size_t nstaged;
	const struct strv *unreachable; /* root: granted paths that identity cannot look up: not bound */
	const struct sbx_grant_links *links; /* the policy's grants through links (the plan's, grant_link.h) */
	/* The stage's layer flags (layers_stage_flags), set by the walkers that call wrap and plan
	 * (layers_wrap, layers_plan) on their copy of the context; NULL elsewhere. */
	const struct strv *stage_flags;
	struct phase_time *pt;     /* SBXSUP_TIMING: each supervisor-side start is a phase; NULL: none */
	struct exec_kills *exec_kills; /* the run's processes killed at their exec stop (exec_kills.h):
					* the seccomp entry adds, the probes' entry takes; NULL: none */
};

/* Whether the stage runs inside the wrapper layer (c->plan_wrapped, the plan's). */
static inline bool layer_wrapped(const struct layer_ctx *c)
{
	return c->plan_wrapped && *c->plan_wrapped;
}

/* What a layer's stage op gets and gives, inside the sandbox (run/stage.c). */
enum layer_stage_when {
	LAYER_STAGE_BEFORE_CAPS = 1, /* before the capability drop (Landlock opens every granted path) */
	LAYER_STAGE_AFTER_CAPS,      /* after it, as the command will run (last: seccomp's filters) */
};
/* The layers' stage options beside their own flags (the kernel layers': the seccomp entry's
 * stage_options; the bwrap entry's /etc view), one bit each: layers_stage_option_flag()
 * is the flag an entry emits, layers_stage_option() reads it back (layer_stage.c). */
enum {
	LAYER_STAGE_OPT_NETFILTER = 1,    /* layer_stage.netfilter */
	LAYER_STAGE_OPT_REPORT_FILES = 2, /* layer_stage.report_files */
	LAYER_STAGE_OPT_SENSOR = 4,       /* layer_stage.sensor */
	LAYER_STAGE_OPT_ETC_VIEW = 8,     /* layer_stage.etc_view */
};
struct layer_stage {
	unsigned on;               /* the stage layers asked for (bit per enum sbx_layer: their flags) */
	bool netfilter;            /* options of the kernel layers (the seccomp entry's stage_options): */
	bool report_files;         /*   netfilter enforces the hosts; the file/exec reporter; */
	bool sensor;               /*   the report-only sensor (a mode of the seccomp entry) */
	bool keep_caps;            /* SBXSUP_SANDBOX=0: nothing is applied, not even the guard */
	bool etc_view;             /* /etc is bwrap's /etc view, the secrets absent ("--etc-view") */
	const struct policy *pol;  /* the compiled policy in the stage, NULL: none */
	const char *cmd_path;      /* the command as it will be exec'd, NULL: it does not resolve */
	char **envp;               /* the command's environment, NULL: environ */
	char *status;              /* "key=value\n" lines for the supervisor (ctl "ready") */
	size_t status_len;
	int listener;              /* the seccomp listener an op made, -1 */
	bool listener_by_number;   /* its filter notifies sendmsg: the supervisor takes it with
				    * pidfd_getfd (ctl.h ctl_send_ready), the stage is dumpable */
};

/* One "key=value" line of the stage's status. */
static inline void layer_stage_add(struct layer_stage *s, const char *key, const char *val)
{
	size_t l = strlen(s->status);
	if (l < s->status_len)
		snprintf(s->status + l, s->status_len - l, "%s=%s\n", key, val);
}

/* Reads one "key=value" line of the stage's status: 0 found (out set), -1 not (run/ctl.h
 * ctl_status_get). */
typedef int (*layer_status_get)(const char *status, const char *key, char *out, size_t outlen);

/* Placeholder printed for a descriptor (or run id) the plan cannot know before the attempt. */
#define LAYER_FD_PLACEHOLDER  "<fd>"
#define LAYER_RUN_PLACEHOLDER "<run>"

struct layer_ops {
	enum sbx_layer id;
	const char *name;
	const char *lost;          /* what protection is lost when off (the per-layer warning) */
	const char *event;         /* the audit event type its reports take (`audit --layer NAME`),
				    * NULL none */
	bool always;               /* wanted whatever --layers says (SPEC: "rlimits always") */
	bool needs_cgroup;         /* wants the run's cgroup (limits, netfilter, probes) */
	bool per_attempt;          /* its state ends with each attempt (seccomp's listener) */
	bool report_socket;        /* it reports over the run's report socket (run/report_rx.c; the
				    * preload): the run makes one, and its fixed channel, only for it */
	bool cgroup_limits;        /* it enforces the run's memory and pids limits through the run's
				    * cgroup: the cgroup set-up applies them only when it is on */
	/* Its network wall in run.start.level.network: the name said ("netfilter BPF"), its place in
	 * that list (1 first; 0: not a wall), and its state when not simply "on"/"off" for this
	 * policy (net_wall_state: NULL op or NULL return: as the layer is). */
	const char *net_wall;
	unsigned char net_wall_rank;
	const char *(*net_wall_state)(const struct layer_ctx *c);
	/* What is lost when it is off, for this run, when that is not `lost` (netfilter behind the
	 * network gateway). NULL op or NULL return: `lost`. */
	const char *(*lost_for)(const struct layer_ctx *c);
	/* The library the executor's dynamic loader loads for it (/etc/ld.so.preload, LD_PRELOAD): its
	 * host path, which the wrapper makes readable inside the sandbox (the preload's). NULL: none. */
	const char *(*ld_library)(const struct layer_ctx *c);
	/* The stage turned it off although it was on before (its status): the run refuses rather than
	 * go on without it. The entry records why it is off (sbx_layer_set_off, naming `who`, the
	 * executor's identity), writes the remedy said with the refusal, and returns the result
	 * record's reason code (run/result.h SBX_REASON_*). NULL op: the run goes on without it. */
	const char *(*refuse_lost)(const struct layer_ctx *c, const char *who, char *remedy,
				   size_t remedylen);
	/* Off the run's path (the janitor's child, run/janitor.c): expire an idle shared set of this
	 * layer's past its deadline; `on`: this run uses the layer. Never waits. */
	void (*expire_idle)(bool on);
	/* The supervisor died (the janitor's child, the run's cgroups removed): release its hold on
	 * this layer's shared set on its behalf. */
	void (*reclaim)(void);
	/* `serve`: keep this layer's shared set loaded while the server lives, so each run opens it
	 * instead of loading it (the probes). 0: held (*st, released by stop; level says what), -1:
	 * not (why, with what the runs do instead). */
	int (*hold)(void **st, char *level, size_t levellen, char *why, size_t whylen);

	void (*probe)(enum layer_depth depth, struct detect *d, struct layer_probe *out);
	/* With the command and its environment known: 0 keep, -1 off (why), 1 nothing to enforce for
	 * this run (off and silent, why; asked even when the probe found the layer unavailable, so a
	 * layer this run would not need is never warned about). Pure. */
	int (*admit)(const struct layer_ctx *c, char *why, size_t whylen);
	cJSON *(*plan)(const struct layer_ctx *c);              /* its section of --dry-run */
	int (*env)(const struct layer_ctx *c, struct strv *env); /* its variables: 0 or -1 (memory) */
	/* The whole argv the child execs (sandbox + stage + command). 0, or -1 (err). */
	int (*wrap)(const struct layer_ctx *c, struct strv *argv, char *err, size_t errlen);
	/* Supervisor-side start: 0 on (level may be set, "" keeps the probe's), 1 not needed (why),
	 * -1 failed (why). */
	int (*start)(const struct layer_ctx *c, void **st, char *level, size_t levellen, char *why,
		     size_t whylen);
	/* The attempt's child was spawned: set-up that is needed only by on_ready, done while the
	 * sandbox starts on another CPU instead of before the spawn. May update its level
	 * (sbx_layer_set_on). -1: it failed (the layer is turned off with why): the sandbox was set up
	 * for the layer on (the stage flags depend on the layers on: seccomp's file reports and sensor
	 * on probes), so the attempt is made again without it (run.c). NULL: none. */
	int (*spawned)(const struct layer_ctx *c, void *st, char *why, size_t whylen);
	/* The policy was re-planned (retry without the wrapper): follow it without a restart. */
	int (*replan)(const struct layer_ctx *c, void *st);
	int (*child)(const struct layer_ctx *c, void *st);      /* in the forked child; async-signal-safe */
	/* The stage is ready: its status line, its pid (the command's, after exec), and the seccomp
	 * listener it handed over (-1 none; a layer that takes it sets *st and owns it). */
	void (*on_ready)(const struct layer_ctx *c, void **st, const char *status, pid_t pid, int listener);
	/* What the stage said of it beyond on/off, read before every on_ready and whether it is on or
	 * not: the seccomp entry's report-only sensor, privilege guard and which filter holds the
	 * denies, into the bookkeeping (layer_set.h `sensor`, `privguard`, `denies`). */
	void (*stage_said)(const struct layer_ctx *c, const char *status, layer_status_get get);
	/* Its stage options beside the layers' flags (layers_stage_flags; LAYER_STAGE_OPT_*, which its
	 * own stage op reads back), asked whether it is on or not: the seccomp entry's --netfilter,
	 * --report-files, and --sensor, its report-only mode while the layer itself is off. 0 or -1
	 * (memory). */
	int (*stage_options)(const struct sbx_layers *L, struct strv *out);
	/* Its report-only sensor (a mode of the entry, installed by the stage while the layer is off):
	 * what --dry-run says of it when this run wants it, NULL when not. */
	const char *(*sensor)(const struct sbx_layers *L);
	int (*fd)(const void *st);                               /* to poll, -1 when none (any more) */
	/* Turn what is pending into audit lines; `final`: the run's processes are gone, empty it.
	 * Returns >= 0, or -1 (a->failed set: the stream failed, fail closed). */
	int (*drain)(void *st, struct audit *a, bool final);
	uint64_t (*lost_events)(const void *st);                 /* records the kernel dropped */
	/* A wait status the run took for `pid`: 1 it was one of the processes this layer traces
	 * (handled), 0 not; with pid 0: collect the layer's own pending ones (the seccomp entry's exec
	 * pins, seccomp_execpin.h). -1: the stream failed. */
	int (*reap)(void *st, struct audit *a, pid_t pid, int status);
	void (*stop)(void *st);
};

/* --dry-run's "sensor": what the report-only sensor (an entry's mode: `sensor`) will be. */
void layers_sensor_plan(const struct sbx_layers *L, char *out, size_t outlen);
/* The audit event type of the layer named `name` (its entry's `event`), NULL when none. */
const char *layers_event(const char *name);

/* One entry per layer, index = enum sbx_layer (layers.c). */
extern const struct layer_ops *const sbx_layer_ops[SBX_L__N];

/* A layer's part in the exec stage, apart from its other ops (layer_stage.c holds their table) so
 * that the stage binary (sbxsup-stage) links the stage's code only, not the supervisor's. */
struct layer_stage_ops {
	const char *flag;          /* its `__stage` flag; the supervisor passes it when the layer is on */
	/* In the exec stage, inside the sandbox, at `when`, for every entry (`on`: its flag was
	 * given): apply or check, and say the outcome in the status ("NAME=on|off", "NAME_level",
	 * "NAME_why", NAME the layer's name). 0, or -1: the stage must not go on (said). */
	int (*apply)(struct layer_stage *s, bool on);
	enum layer_stage_when when;
	bool policy;               /* it reads the compiled policy */
};

/* One entry per layer applied by the stage, index = enum sbx_layer, NULL for the others
 * (layer_stage.c); each defined beside its layer's code. */
extern const struct layer_stage_ops *const sbx_layer_stage_ops[SBX_L__N];
extern const struct layer_stage_ops stage_preload, stage_seccomp, stage_landlock;

/* The state the walkers keep per layer for a run. */
struct layer_rt {
	void *st[SBX_L__N];
};

/* The entries, defined beside each layer's code. */
extern const struct layer_ops layer_preload, layer_bwrap, layer_seccomp, layer_landlock,
	layer_netfilter, layer_probes, layer_limits;

/* ---- walkers (layers.c) ---------------------------------------------------------------------- */

/* `run`: the cheap probe of every wanted layer; every other one off, "not selected (--layers)". */
void layers_detect(struct sbx_layers *L, struct detect *d);
/* Every layer off with `why`, none wanted (SBXSUP_SANDBOX=0). */
void layers_disable(struct sbx_layers *L, const char *why);
/* `status`: the functional probe of every layer, st[l] per layer. */
void layers_probe_all(struct detect *d, struct layer_probe st[SBX_L__N]);
/* admit() of every active layer (the command is known). */
void layers_admit(const struct layer_ctx *c);
/* One section per layer with a plan, added to `o` under the layer's name. */
void layers_plan(const struct layer_ctx *c, cJSON *o);
int layers_env(const struct layer_ctx *c, struct strv *env);
/* The active wrapper layer (bwrap), NULL when the stage runs directly. */
const struct layer_ops *layers_wrapper(const struct sbx_layers *L);
/* The stage side (run/stage.c; layer_stage.c, which names no other op): the layer bit of a
 * `__stage` flag (0: not a layer's); whether an op at the stage needs the compiled policy; every
 * stage op of `when`, in table order (-1: stop). */
unsigned layers_stage_flag(const char *flag);
/* The option bit (LAYER_STAGE_OPT_*) of a stage flag, 0: not an option; the flag of one bit. */
unsigned layers_stage_option(const char *flag);
const char *layers_stage_option_flag(unsigned opt);
bool layers_stage_wants_policy(const struct layer_stage *s);
int layers_stage(struct layer_stage *s, enum layer_stage_when when);
/* wrap() of the active wrapper layer, with the stage flags in its context. Returns 0, or -1 (err). */
int layers_wrap(const struct layer_ctx *c, struct strv *argv, char *err, size_t errlen);
/* The stage flags of the active stage layers ("--landlock", "--seccomp"), in table order. */
int layers_stage_flags(const struct sbx_layers *L, struct strv *out);
bool layers_need_cgroup(const struct sbx_layers *L);
/* An active layer reports over the run's report socket (its entry's report_socket). */
bool layers_want_report(const struct sbx_layers *L);
/* start() of every active layer that has one and is not started; off with its reason on failure. */
void layers_start(const struct layer_ctx *c, struct layer_rt *rt);
void layers_replan(const struct layer_ctx *c, struct layer_rt *rt);
/* spawned() of every started layer that is on (after each attempt's spawn). 0, or -1 when one
 * failed (turned off, said on stderr): the attempt must not give the command "go" (ATT_LAYER_OFF). */
int layers_spawned(const struct layer_ctx *c, struct layer_rt *rt);
int layers_child(const struct layer_ctx *c, struct layer_rt *rt);
/* The stage is ready. A stage layer is confirmed or turned off from the stage's status ("NAME=on",
 * "NAME_level=...", "NAME_why=..."; `get` reads one key: 0 found, -1 not), then every on_ready. */
void layers_on_ready(const struct layer_ctx *c, struct layer_rt *rt, const char *status,
		     layer_status_get get, pid_t pid, int listener);
/* Fill pollfds for every started layer with a descriptor; idx[l] = its slot or -1. Returns n. */
int layers_pollfds(const struct layer_rt *rt, struct pollfd *p, int max, int idx[SBX_L__N]);
/* drain() of every started layer whose slot has events (all when p is NULL). -1: audit failed. */
int layers_drain(struct layer_rt *rt, const struct pollfd *p, const int idx[SBX_L__N],
		 struct audit *a, bool final);
uint64_t layers_lost_events(const struct layer_rt *rt);
/* reap() of every started layer: with pid 0 each collects its own; else 1 when `status` (the run's
 * waitpid took it) was a layer's, 0 not. -1: the stream failed (the status was a layer's). */
int layers_reap(struct layer_rt *rt, struct audit *a, pid_t pid, int status);
/* Whether an active layer enforces the run's limits through its cgroup (cgroup_limits). */
bool layers_cgroup_limits(const struct sbx_layers *L);
/* run.start.level.network's walls: "NAME: on|off|STATE" of every entry with a net_wall, by rank,
 * "; " between them. */
void layers_net_walls(const struct layer_ctx *c, char *out, size_t outlen);
/* What is lost with layer l off, for this run (lost_for, else lost). */
const char *layers_lost(const struct layer_ctx *c, enum sbx_layer l);
/* The host path of the library an active layer has the executor's loader load (ld_library), NULL
 * when none. */
const char *layers_ld_library(const struct layer_ctx *c);
/* The /etc view the wrapper binds at /etc (etc_view.h): c->etc_view when an active layer has the
 * loader load a library (ld_library), whose /etc/ld.so.preload the view exists to add; NULL
 * otherwise (/etc is bound entry by entry). The one test of it: the bwrap argv, the stage's
 * Landlock plan and the wrapper's child that mounts the view follow it. */
const char *layers_etc_view(const struct layer_ctx *c);
/* The active layers the run refuses to lose in the stage (refuse_lost): read before the stage's
 * status is applied (layers_on_ready). */
unsigned layers_refuse_mask(const struct sbx_layers *L);
/* The first layer of `was_on` the stage turned off: its refuse_lost op (reason code in *code,
 * remedy), and its id; -1 when none was lost. */
int layers_refuse_lost(const struct layer_ctx *c, unsigned was_on, const char *who, const char **code,
		       char *remedy, size_t remedylen);
/* The janitor's child: expire_idle of every entry with one (`on`: the run's active layers), the
 * last entry first (layers.c). */
void layers_expire_idle(unsigned on);
/* `serve`: hold of every entry with one (released by layers_stop); `said` is told each outcome
 * (held: its level, else why). */
typedef void (*layer_hold_said)(void *arg, const char *name, bool held, const char *text);
void layers_hold(struct layer_rt *rt, layer_hold_said said, void *arg);
/* The janitor's child, the supervisor dead: reclaim of every entry with one, the last first. */
void layers_reclaim(void);
/* stop() of the per-attempt layers (per_attempt) or of all of them. */
void layers_stop(struct layer_rt *rt, bool attempt_only);
#endif
