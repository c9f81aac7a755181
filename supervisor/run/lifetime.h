/* lifetime.h — the run is one process tree the supervisor owns, and none of it outlives the run.
 *
 * Promise: the supervisor is a child subreaper (orphans of the run are re-parented to it, not to
 * init); life_child_setup() (in the child, after fork) makes the child a session leader with
 * PR_SET_PDEATHSIG(SIGKILL) and closes the race where the supervisor died before the prctl
 * (`alive_fd` is the read end of a pipe whose write end only the supervisor holds: EOF = dead).
 * life_end() kills and reaps everything that is left of the run — the cgroups (cgroup.kill where
 * present, else SIGKILL to every listed pid), the process group, every process whose parent is
 * the supervisor (adopted orphans; not looked for when the run has its own pid namespace) — and returns only when none is left (or after a bounded
 * number of rounds, reporting the survivors). The main child's wait status is captured if it is
 * reaped here. Without a pid namespace of the run's own (no namespace could be made: a container's
 * default profile), the run's init is a child subreaper too and outlives the supervisor by design:
 * on its death or the command's end it kills every descendant (life_kill_descendants;
 * wrap_direct.c orphan_guard), so a double-forked setsid daemon never survives a SIGKILL of sbxsup.
 */
#ifndef SBX_LIFETIME_H
#define SBX_LIFETIME_H

#include <stdbool.h>
#include <sys/types.h>
#include "cgroup.h"

int life_subreaper(void);
/* In the child. Returns 0, or -1 when the supervisor is already gone. Async-signal-safe. */
int life_child_setup(int alive_fd);
/* SIGKILL to the whole run now (timeout, fail-closed): main child, its process group, cgroups. */
void life_kill_now(pid_t child, const struct cg_run *cg);
/* Kill and reap what is left. Returns the number of processes that could not be accounted for. */
/* `spare` (e.g. the janitor, which is not part of the run) is never killed. `own_pidns`: the run
 * lives in a pid namespace of its own whose init is `child` or a child of `child` that dies with it
 * (bwrap --unshare-pid --die-with-parent): no orphan of the run can be re-parented to the
 * supervisor, so the scan of every host process for adopted orphans is skipped (the cgroups and
 * the namespace's end do the killing; zombies are still reaped). */
int life_end(pid_t child, bool *child_done, int *child_status, const struct cg_run *cg, pid_t spare,
	     bool own_pidns);

/* In a child subreaper (the run's init when the run has no pid namespace of its own): SIGKILL
 * every child, reap, and again, until no child is left — orphans of the killed are re-parented to
 * the caller, so the whole subtree goes, generation by generation (bounded rounds). */
void life_kill_descendants(void);

#endif
