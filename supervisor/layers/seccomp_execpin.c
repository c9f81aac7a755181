/* seccomp_execpin.c — an exec held to the binary the kernel loads (seccomp_execpin.h). */
#include "seccomp_execpin.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <unistd.h>

#include "actas.h"
#include "procids.h"

/* As ourselves, or where a root supervisor may not (no CAP_SYS_PTRACE: a container's defaults)
 * with the caller's real ids for that one call (sbx_retry_as): the tracer is this thread either
 * way, and what it asks of its tracee afterwards is not checked again. */
static long seize(pid_t tid, void *arg)
{
	(void)arg;
	return ptrace(PTRACE_SEIZE, tid, 0, (void *)(long)(PTRACE_O_TRACEEXEC | PTRACE_O_EXITKILL));
}

int execpin_arm(struct execpin_set *s, pid_t tid, char *why, size_t whylen)
{
	struct execpin *slot = NULL;
	for (size_t i = 0; i < EXECPIN_MAX; i++) {
		if (s->p[i].tid == tid && !s->p[i].killed)
			return 0; /* traced since an exec that failed: still ours */
		if (!s->p[i].tid && !slot)
			slot = &s->p[i];
	}
	if (!slot) {
		snprintf(why, whylen, "%d execs of the run are in flight", EXECPIN_MAX);
		return -1;
	}
	struct sbx_proc_ids ids;
	pid_t tgid = sbx_proc_ids(tid, &ids) == 0 ? ids.tgid : 0;
	if (tgid <= 0) {
		snprintf(why, whylen, "the caller left");
		return -1;
	}
	if (sbx_retry_as(tid, true, seize, NULL) < 0) {
		snprintf(why, whylen, "ptrace: %s", strerror(errno));
		return -1;
	}
	*slot = (struct execpin){.tid = tid, .tgid = tgid};
	return 0;
}

/* The exec stop of process `q` (the thread that called exec now has the process's pid): decided,
 * then detached or killed. */
static int exec_stop(struct execpin_set *s, struct execpin *e, pid_t q, execpin_decide decide, void *arg)
{
	unsigned long former = 0;
	if (ptrace(PTRACE_GETEVENTMSG, q, 0, &former) == 0)
		for (size_t i = 0; i < EXECPIN_MAX; i++)
			if (s->p[i].tid && s->p[i].tid == (pid_t)former && s->p[i].tgid == q)
				e = &s->p[i];
	/* another pin of the process is a thread de_thread ended, or had q's pid (the old leader) */
	for (size_t i = 0; i < EXECPIN_MAX; i++)
		if (&s->p[i] != e && s->p[i].tgid == q && s->p[i].tid == q)
			s->p[i] = (struct execpin){0};
	e->tid = e->tgid = q;
	int d = decide(arg, q);
	if (d != 0) {
		kill(q, SIGKILL); /* stopped before its first instruction: none runs */
		e->killed = true;
		return d < 0 ? -1 : 0;
	}
	(void)ptrace(PTRACE_DETACH, q, 0, 0);
	*e = (struct execpin){0};
	return 0;
}

static int on_status(struct execpin_set *s, struct execpin *e, pid_t q, int status, execpin_decide decide,
		     void *arg)
{
	if (WIFEXITED(status) || WIFSIGNALED(status)) {
		if (q == e->tid)
			*e = (struct execpin){0};
		return 0;
	}
	if (!WIFSTOPPED(status))
		return 0;
	int ev = (int)((unsigned)status >> 16);
	if (ev == PTRACE_EVENT_EXEC)
		return exec_stop(s, e, q, decide, arg);
	/* a signal on its way (delivered as we detach) or a stop (PTRACE_EVENT_STOP: it stays one) */
	int sig = ev == PTRACE_EVENT_STOP || e->killed ? 0 : WSTOPSIG(status);
	(void)ptrace(PTRACE_DETACH, q, 0, (void *)(long)sig);
	if (!e->killed)
		*e = (struct execpin){0};
	return 0;
}

/* Every pending status of pin e: its thread's, then (after an exec from a thread that was not the
 * leader) its process's. */
static int collect(struct execpin_set *s, struct execpin *e, execpin_decide decide, void *arg)
{
	int rc = 0;
	for (int round = 0; e->tid && round < 16; round++) {
		int st;
		pid_t r = waitpid(e->tid, &st, __WALL | WNOHANG);
		if (r < 0 && errno == ECHILD && e->tgid != e->tid)
			r = waitpid(e->tgid, &st, __WALL | WNOHANG);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			*e = (struct execpin){0}; /* not ours any more: ended and reaped */
			break;
		}
		if (r == 0)
			break;
		if (on_status(s, e, r, st, decide, arg) < 0)
			rc = -1;
	}
	return rc;
}

int execpin_reap(struct execpin_set *s, pid_t pid, int status, execpin_decide decide, void *arg)
{
	if (pid == 0) {
		int rc = 0;
		for (size_t i = 0; i < EXECPIN_MAX; i++)
			if (s->p[i].tid && collect(s, &s->p[i], decide, arg) < 0)
				rc = -1;
		return rc;
	}
	for (size_t i = 0; i < EXECPIN_MAX; i++)
		if (s->p[i].tid && (s->p[i].tid == pid || s->p[i].tgid == pid))
			return on_status(s, &s->p[i], pid, status, decide, arg) < 0 ? -1 : 1;
	return 0;
}

void execpin_release(struct execpin_set *s)
{
	for (size_t i = 0; i < EXECPIN_MAX; i++) {
		struct execpin *e = &s->p[i];
		if (!e->tid)
			continue;
		int st;
		(void)ptrace(PTRACE_DETACH, e->tid, 0, 0);
		(void)waitpid(e->tid, &st, __WALL | WNOHANG);
		*e = (struct execpin){0};
	}
}
