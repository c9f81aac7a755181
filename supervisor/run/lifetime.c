/* lifetime.c — see lifetime.h. */
#include "lifetime.h"

#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

int life_subreaper(void)
{
	return prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
}

int life_child_setup(int alive_fd)
{
	if (setsid() < 0)
		return -1;
	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0)
		return -1;
	/* The supervisor may have died between fork and prctl: then the pipe is at EOF. */
	struct pollfd p = {.fd = alive_fd, .events = POLLIN};
	if (poll(&p, 1, 0) != 0)
		return -1;
	return 0;
}

void life_kill_now(pid_t child, const struct cg_run *cg)
{
	if (child > 0) {
		kill(-child, SIGKILL); /* its session / process group */
		kill(child, SIGKILL);
	}
	if (cg)
		cg_kill_all(cg);
}

/* SIGKILL every process whose parent is us (adopted orphans and the main child). */
static int kill_our_children(pid_t spare)
{
	DIR *d = opendir("/proc");
	if (!d)
		return 0;
	pid_t self = getpid();
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d))) {
		char *end;
		long pid = strtol(e->d_name, &end, 10);
		if (*end || pid <= 0)
			continue;
		char p[64], buf[512];
		snprintf(p, sizeof p, "/proc/%ld/stat", pid);
		FILE *f = fopen(p, "re");
		if (!f)
			continue;
		size_t len = fread(buf, 1, sizeof buf - 1, f);
		fclose(f);
		buf[len] = 0;
		char *rp = strrchr(buf, ')'); /* comm may contain anything: parse after the last ')' */
		char state;
		long ppid;
		if (!rp || sscanf(rp + 1, " %c %ld", &state, &ppid) != 2)
			continue;
		if (ppid == self && state != 'Z' && pid != spare) {
			kill((pid_t)pid, SIGKILL);
			n++;
		}
	}
	closedir(d);
	return n;
}

void life_kill_descendants(void)
{
	for (int round = 0; round < 5000; round++) {
		int n = kill_our_children(0);
		int st;
		pid_t p;
		while ((p = waitpid(-1, &st, WNOHANG)) > 0)
			;
		if (p < 0 && errno == ECHILD)
			return;
		if (!n)
			usleep(1000);
	}
}

int life_end(pid_t child, bool *child_done, int *child_status, const struct cg_run *cg, pid_t spare,
	     bool own_pidns)
{
	/* The common end of a run: the main child is reaped, the run has a pid namespace of its own
	 * (no process of it can be re-parented to us) and its cgroups report it empty. The tree is
	 * already gone: nothing to kill, nothing to scan; the check below is the loop's own exit
	 * test, only made before the kills instead of after them (saves a cgroup.kill write and the
	 * cgroup.procs read on every run; docs/serve.md "Where a warm call's time goes"). A
	 * run without a v2 cgroup keeps the loop: there, "populated" is not an event the kernel keeps. */
	if (*child_done && own_pidns && cg && cg->v2[0] && !cg_populated(cg))
		return 0;
	for (int round = 0; round < 5000; round++) {
		int listed = 0;
		if (!*child_done && child > 0)
			kill(child, SIGKILL);
		if (child > 0)
			kill(-child, SIGKILL);
		if (cg)
			listed = cg_kill_all(cg);
		/* With a pid namespace of the run's own no process of the run but its init can be
		 * re-parented to us, and the init dies with the namespace's parent (PDEATHSIG / the
		 * kernel): the O(host) /proc scan finds nothing and is skipped. */
		int ours = own_pidns ? 0 : kill_our_children(spare);
		/* Reap whatever is ours and already dead; never block on a live process. */
		int st;
		pid_t p;
		while ((p = waitpid(-1, &st, WNOHANG)) > 0) {
			if (p == child && !*child_done) {
				*child_done = true;
				*child_status = st;
			}
		}
		/* Done when no live child but `spare` is left (the /proc scan just counted them; a
		 * zombie is reaped by the loop above) and the cgroups are empty. */
		bool populated = cg && cg_populated(cg);
		if (!ours && !populated && (*child_done || child <= 0))
			return 0;
		(void)listed;
		/* SIGKILLed processes are still exiting. When all that is left is the cgroup emptying,
		 * wait for its event rather than sleeping out the round (the loop checks again either
		 * way; a round stays at most 1 ms, so the bound of the loop is unchanged). */
		if (!ours && cg && populated && (*child_done || child <= 0))
			cg_wait_empty(cg, 1);
		else
			usleep(1000);
	}
	return cg && cg_populated(cg) ? 1 : 0;
}
