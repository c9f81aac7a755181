/* seccomp_execpin.h — an exec the seccomp decision lets continue, held to the binary the kernel
 * actually loads (issue 28).
 *
 * Promise: an exec cannot be performed for the executor the way an open is (seccomp_emulate.h):
 * after the supervisor decided its name, the call must continue, and the kernel then reads the name
 * again from the caller's memory and walks links other processes of the run can change. A second
 * thread rewriting the name, or a link swapped in between, could make the kernel load a binary a
 * manifest deny names. So in a run with a deny, execpin_arm() makes the calling thread a tracee of
 * the supervisor (PTRACE_SEIZE with PTRACE_O_TRACEEXEC and PTRACE_O_EXITKILL: if the supervisor
 * dies, the tracee dies) before the call continues. When the exec succeeds, the kernel stops the
 * process before its first instruction (PTRACE_EVENT_EXEC) and execpin_reap() asks `decide` about
 * what it loaded (the caller reads /proc/PID/exe, and every descriptor the new image holds: a
 * binfmt_misc handler with the `O` flag is handed the binary as AT_EXECFD, its interpreter being
 * the exe): a refusal kills the process there (SIGKILL: no instruction of that image runs),
 * anything else is detached and runs on. A failed
 * exec leaves the thread traced until its next exec, its next signal (detached with the signal
 * delivered; a stop stays a stop) or its end, whichever comes first. A script's binary is its
 * interpreter: the script itself is read by the interpreter's own open, which the open emulation
 * decides on its object.
 * A root supervisor without CAP_SYS_PTRACE over the caller (a container's defaults) seizes it with
 * the caller's real ids for that one call (actas.h); the tracer is the supervisor's thread either
 * way. Where it still cannot (the caller made itself not dumpable where the run has no user
 * namespace of its own, Yama's scope 3, EXECPIN_MAX execs in flight) execpin_arm() says why and
 * the caller refuses the exec: an exec no one can hold to its binary is not let through.
 * Ownership: struct execpin_set belongs to the seccomp entry's run state (seccomp_layer.c), one per
 * listener; pids are the supervisor's view (the notification's). Wait statuses of tracees reach it
 * through execpin_reap only: the run's reap hands on every status it takes (layer.h `reap`), and
 * execpin_reap(pid 0) collects its own (waitpid on each tracee, __WALL: a thread is not a child
 * that waitpid(-1) reports).
 */
#ifndef SBX_SECCOMP_EXECPIN_H
#define SBX_SECCOMP_EXECPIN_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define EXECPIN_MAX 256

struct execpin {
	pid_t tid;                 /* the thread that called exec (0: free slot) */
	pid_t tgid;                /* its process: the pid the exec stop comes on */
	bool killed;               /* refused at its exec stop: waiting to reap its end */
};

struct execpin_set {
	struct execpin p[EXECPIN_MAX];
	bool warned;               /* the "cannot trace" warning was said */
};

/* Trace `tid` until its exec lands (or fails, above). 0 traced (or already traced), -1 not (why). */
int execpin_arm(struct execpin_set *s, pid_t tid, char *why, size_t whylen);

/* Asked at an exec stop: 1 kill the process (the binary is refused: the callee reported it), 0 let
 * it run; -1 the stream failed (the process is killed too: fail closed). */
typedef int (*execpin_decide)(void *arg, pid_t pid);

/* A wait status for `pid` (the run's reap took it: 1 it was a tracee's, handled; 0 not ours), or
 * with pid 0 every tracee's pending status (returns 0). -1: `decide` failed. */
int execpin_reap(struct execpin_set *s, pid_t pid, int status, execpin_decide decide, void *arg);

/* Tracees left (the run ended): detach what can be, forget the rest. */
void execpin_release(struct execpin_set *s);

#endif
