/* exec_kills.h — the processes a layer killed at their exec stop, for the layers that see that
 * exec too.
 *
 * Promise: the seccomp entry's exec pins (seccomp_execpin.h) kill, at the exec stop and before its
 * first instruction, a process whose exec loaded a binary a manifest deny names. The kernel then
 * finishes the call, so the probes' sys_exit record of it says the exec succeeded. The pins call
 * exec_kills_add() before the kill; that record, decoded later, finds the pid with
 * exec_kills_take() (true once per add) and is not written as a breach: the kill's own event
 * (kernel.violation, sensor ptrace-exec-stop) says what happened. A ring of the last EXEC_KILLS_N
 * pids (a later kill takes the oldest slot).
 * Ownership: one per run (struct run), reached through layer_ctx.exec_kills (NULL: none); used by
 * the run's event loop only (one thread).
 */
#ifndef SBX_EXEC_KILLS_H
#define SBX_EXEC_KILLS_H

#include <stdbool.h>
#include <sys/types.h>

#define EXEC_KILLS_N 64

struct exec_kills {
	pid_t pid[EXEC_KILLS_N];
	unsigned next;
};

static inline void exec_kills_add(struct exec_kills *k, pid_t pid)
{
	if (k && pid > 0)
		k->pid[k->next++ % EXEC_KILLS_N] = pid;
}

static inline bool exec_kills_take(struct exec_kills *k, pid_t pid)
{
	for (unsigned i = 0; k && pid > 0 && i < EXEC_KILLS_N; i++)
		if (k->pid[i] == pid) {
			k->pid[i] = 0;
			return true;
		}
	return false;
}

#endif
