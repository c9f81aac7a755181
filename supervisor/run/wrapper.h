/* wrapper.h — how an attempt starts the sandbox: one entry per wrapper, all of the same shape.
 *
 * Promise: an attempt (run_attempt.c) picks its wrapper once, from the plan (run_plan.wrapped:
 * run_wrap_bwrap, else run_wrap_direct), keeps it in struct attempt, and reaches it only through
 * these ops; it names neither. bwrap (wrap_bwrap.c) execs the argv the wrapper layer builds
 * (layers_wrap), with the executor's identity from sandbox_direct.h (sd_bwrap_*); direct
 * (wrap_direct.c) is the run's own init in namespaces of its own (sandbox_direct.h), running the
 * stage in-process. The child helpers both share are attempt_child.c's.
 * Ownership: struct attempt_io belongs to the attempt: every descriptor in it and its vectors are
 * closed and freed by run_attempt() whatever an op did (-1 / empty when unused); an op that hands
 * one over sets it to -1.
 */
#ifndef SBX_WRAPPER_H
#define SBX_WRAPPER_H

#include <stdbool.h>
#include <sys/types.h>

#include "run_int.h"
#include "strv.h"

/* What one attempt gives its child (run_attempt.c makes the sockets and the environment; the
 * wrapper's prepare adds its own). */
struct attempt_io {
	int alive_r, ctl_c, rep_c, status_w; /* the child's ends of the attempt's sockets and pipes */
	int err_r, err_w;          /* bwrap: its stderr before the sandbox is ready (t->err_rd), -1 */
	int ldso, passwd, group, resolv; /* bwrap: memfds it binds (layer_fds), -1 */
	struct strv env;           /* the command's environment (plan_attempt_env) */
	struct strv argv;          /* bwrap: the argv the child execs */
	struct strv flags;         /* direct: the stage's layer flags (as `__stage` takes them) */
};

struct run_wrapper {
	const char *name;
	bool pidns;                /* the run always gets a pid namespace of its own (else: t->pidns) */
	bool retry_without;        /* the child ending before "ready" is a set-up failure: the run
				    * tries again without this wrapper (ATT_SETUP_FAILED) */
	bool init_status;          /* the run's init writes the stage's wait status on status_w: the
				    * child's own status is not the command's */
	bool signal_as_128;        /* a command killed by signal N ends the child with exit 128+N */
	/* Parent, before the spawn: the descriptors the child needs (NULL: none). ATT_DONE: go on;
	 * ATT_SETUP_FAILED (t->wrap_err
	 * says why); ATT_FAIL: said. */
	enum attempt_result (*prepare)(struct run *r, struct attempt_io *io);
	/* Parent, after the layers' view of the attempt was built from what prepare made (run_ctx.c
	 * run_ctx_attempt): the argv the child execs (bwrap), the stage's flags (direct). ATT_DONE or
	 * ATT_FAIL (said). */
	enum attempt_result (*argv)(struct run *r, struct attempt_io *io);
	/* Start the child: its pid in the parent, 0 in the child (which then runs `child`), -1 when
	 * nothing started (said). */
	pid_t (*spawn)(struct run *r, struct attempt_io *io);
	__attribute__((noreturn)) void (*child)(struct run *r, const struct attempt_io *io);
	/* The stage said "ready" (may be NULL). */
	void (*on_ready)(struct run *r);
	/* Parent: the child holds what prepare made, or the attempt ends: close it (may be NULL;
	 * called once after the spawn and once at the end). */
	void (*done)(struct run *r);
};

extern const struct run_wrapper run_wrap_bwrap, run_wrap_direct;

/* attempt_child.c: what every wrapper's child does first. */
void att_child_signals(const sigset_t *oldmask);
/* Every descriptor above stderr close-on-exec; att_keep_fd re-opens one. Async-signal-safe. */
void att_cloexec_all(void);
void att_keep_fd(int fd);
/* The life line, the cgroup and, with `layer_ops`, the layers' child ops (the limits among them:
 * a wrapper whose child still opens descriptors before its exec — the direct sandbox's mounts,
 * with every descriptor of the supervisor still open — calls att_child_layers after that work, so
 * a manifest's low `nofile` cannot fail it). 0 or -1 (errno). */
int att_child_common(struct run *r, const struct attempt_io *f, bool layer_ops);
int att_child_layers(struct run *r);
/* The library's stdio (run_opts.stdio) as 0, 1 and (with_stderr) 2. Async-signal-safe. */
int att_child_stdio(const struct run *r, bool with_stderr);

#endif
