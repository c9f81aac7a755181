/* cgroup.h — the run's cgroups: one v2 cgroup (scope for netfilter/probes, cgroup.kill) and, where
 * the v2 hierarchy lacks the controllers, per-run children of our own v1 memory/pids/cpu cgroups.
 *
 * Promise: everything is found from /proc/self/mountinfo and /proc/self/cgroup (no assumed paths).
 * cg_setup() creates `sbxsup-<run>` (mode 0700) under our own cgroup in each hierarchy it can
 * write, sets the limits it was given, and keeps an O_CLOEXEC fd on each cgroup.procs so the child
 * can join with cg_join() (after fork, before exec). v1 cgroups are only made for a limit that was
 * asked for (a run without memory/pids/cpu limits touches no v1 hierarchy). cg_spawn() starts the
 * child directly inside the run cgroup v2 (clone3 CLONE_INTO_CGROUP): no cgroup.procs write, no
 * migration (a migration waits for an RCU grace period: 5-20 ms per run); where the kernel refuses
 * it, the child is forked as before and cg_join() writes cgroup.procs. Linux 6.18 SIGKILLs a child
 * born by CLONE_INTO_CGROUP when the parent's cgroup and the target have seen a different number of
 * cgroup.kill writes, so cg_setup() first checks with a throw-away child that one born in the new
 * cgroup survives, and cg_spawn() uses clone3 only for the first child of the run (a retry comes
 * after cg_kill_all() wrote cgroup.kill). Whatever could not be done is recorded in
 * `why` (never fatal here: the limits layer records what it got). cg_kill_all() kills every process
 * of the run that any of the cgroups still holds; cg_cleanup() removes the directories (after the
 * tree is dead). cg_events() reads the OOM-kill and pids-refusal counters for `limit.hit`.
 */
#ifndef SBX_CGROUP_H
#define SBX_CGROUP_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>
#include <linux/limits.h>
#include <sys/types.h>
#include "janitor.h"

enum cg_ctl { CG_MEMORY = 0, CG_PIDS, CG_CPU, CG__N };

#define CG_RUN_PREFIX "sbxsup-"  /* a run's cgroup is CG_RUN_PREFIX<run id>, in every hierarchy */

struct cg_limits {       /* <= 0: not set */
	long memory_mb, pids, cpu_pct;
};

struct cg_run {
	char v2[PATH_MAX];         /* run cgroup v2 dir, "" when none */
	int v2_fd;                 /* O_DIRECTORY fd on it (for netfilter), -1 */
	uint64_t v2_id;            /* cgroup id (for probes), 0 */
	bool v2_kill;              /* cgroup.kill exists */
	char v1[CG__N][PATH_MAX];  /* per-run v1 dirs, "" when none */
	bool ctl_v2[CG__N];        /* the controller is enforced through v2 */
	bool ctl_on[CG__N];        /* the limit is enforced (v2 or v1) */
	int procs_fd[1 + CG__N];   /* cgroup.procs fds to join: [0] v2, [1+c] v1 */
	char why[512];             /* what is missing and why */
	bool v2_born_in;           /* set in the child by cg_spawn(): born in the v2 cgroup, no join */
	bool v2_clone3;            /* clone3 into the v2 cgroup works (probed by cg_setup); used once */
};

void cg_init(struct cg_run *c);
/* `j` (may be NULL) is told about each directory before it is created. */
int cg_setup(struct cg_run *c, const char *run_id, const struct cg_limits *lim, struct janitor *j);
/* Like fork() (flags == 0) or clone(flags | SIGCHLD) (flags: CLONE_NEW* namespace flags), the
 * child starting inside the run cgroup v2 when there is one and the kernel allows it (clone3 with
 * CLONE_INTO_CGROUP, Linux >= 5.7); otherwise exactly fork() / clone(). Returns like fork(); in the
 * child, c->v2_born_in says whether it was born in the cgroup (cg_join() then skips the v2 write).
 * The supervisor is single-threaded; the child only does async-signal-safe work before exec. */
pid_t cg_spawn(struct cg_run *c, unsigned long flags);
/* In the child: join every run cgroup. Returns 0, or -1 (errno). Async-signal-safe. */
int cg_join(const struct cg_run *c);
/* Kill every process listed in the run's cgroups (cgroup.kill where present). Returns the number
 * of processes still listed after the attempt (0: empty). */
int cg_kill_all(const struct cg_run *c);
bool cg_populated(const struct cg_run *c);
/* Wait until the run cgroup v2 holds no process (its cgroup.events says "populated 0"), at most
 * timeout_ms; returns at once when it is empty. Without a v2 cgroup: sleeps 1 ms. The caller checks
 * again (a v1 cgroup or a process outside the cgroups may still be there). */
void cg_wait_empty(const struct cg_run *c, int timeout_ms);
struct cg_events { uint64_t oom_kill, pids_max; };
void cg_events(const struct cg_run *c, struct cg_events *ev);
void cg_cleanup(struct cg_run *c);

/* Is the process whose /proc/PID directory is `procdir` in a run's cgroup (a CG_RUN_PREFIX
 * directory anywhere in its cgroup path, in any hierarchy, v2 or v1, except in the part of the path
 * it shares with our own cgroup)? 1 (which: its cgroup path), 0 no,
 * -1 cannot be read (the process is gone, or /proc is not ours): the caller fails closed. Made by
 * any sbxsup, since every supervisor names its runs' cgroups so. */
int cg_proc_in_run(int procdir, char *which, size_t wlen);

/* For `status`: which hierarchies we could create a cgroup in ("v2 (no controllers), v1 memory pids cpu"). */
void cg_describe(char *out, size_t outlen);

#endif
