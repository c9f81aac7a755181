/* janitor.h — what a run creates on the host (its cgroups, its private tmp dir) is removed even when
 * the supervisor is killed by SIGKILL.
 *
 * Promise: janitor_start() forks a small process that is NOT part of the run (started before any
 * run cgroup exists, ignores INT/TERM/HUP, holds no fd but a pipe's read end). The supervisor
 * announces each path before (cgroups) or right after (tmp dir) creating it. If the pipe reaches EOF
 * without "done" — the supervisor died — the janitor kills every process still in the announced
 * cgroups, waits (bounded) until they are empty, removes them, removes the tmp dir tree, and exits.
 * After a normal end the supervisor has removed everything itself and calls janitor_done(): the
 * janitor exits at once. A killed supervisor's reference on the automatic shared probe set goes with
 * its descriptors; the janitor then releases it on its behalf when no other run holds it (stamps the
 * idle deadline, or unpins: probes_share.h). The janitor first has the layers expire their idle shared
 * sets past the deadline (layers_expire_idle: a run without the probes unloads an idle probe set;
 * netfilter's), off the run's path. A janitor
 * that could not be started is reported, never fatal (the next run's tmp sweep and a manual rmdir
 * remain).
 */
#ifndef SBX_JANITOR_H
#define SBX_JANITOR_H

#include <stdbool.h>
#include <sys/types.h>

struct janitor {
	int fd;       /* write end, O_CLOEXEC; -1 when no janitor */
	pid_t pid;
	unsigned layers; /* set before janitor_start: the run's active layers (their idle shared sets
			  * past the deadline are expired: layer.h expire_idle) */
};

void janitor_init(struct janitor *j);
int janitor_start(struct janitor *j);
/* kind: 'c' a cgroup directory, 't' a directory tree to remove. Returns 0 or -1. */
int janitor_add(struct janitor *j, char kind, const char *path);
/* Normal end: tell the janitor there is nothing to do, and reap it. */
void janitor_done(struct janitor *j);

#endif
