/* run_warm.c — a pre-created run (run.h struct run_warm, docs/serve.md): the sandbox is
 * ready, the call is awaited, then released with the call's argv and stdio. run_int.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "ctl.h"
#include "run_int.h"

/* While parked: references to the sandbox's namespaces (the stage's) and to the mount namespace of
 * the process that runs bwrap (a private copy of the host's mount table), so that their teardown
 * (unmounting every mount, the network namespace's clean-up on a kernel worker) happens when the
 * child drops them after its reply and the server's quiet period (serve_warm.c), not while the next
 * calls of a burst run. Best effort: what cannot be opened is torn down as before. The descriptors
 * are the supervisor's only (close-on-exec; nothing of the run is given them). */
static void hold_namespaces(struct run *r)
{
	static const char *const stage_ns[] = {"mnt", "net", "user", "ipc", "uts"};
	int n = 0;
	char p[64];
	if (!r->plan.wrapped) /* in bwrap (the plan owns the mode) */
		return;
	for (size_t i = 0; r->att.stage_pid > 0 && i < sizeof stage_ns / sizeof stage_ns[0]; i++) {
		snprintf(p, sizeof p, "/proc/%d/ns/%s", (int)r->att.stage_pid, stage_ns[i]);
		int fd = open(p, O_RDONLY | O_CLOEXEC);
		if (fd >= 0 && n < RUN_WARM_NS)
			r->warm.ns[n++] = fd;
	}
	snprintf(p, sizeof p, "/proc/%d/ns/mnt", (int)r->att.child);
	int fd = r->att.child > 0 && n < RUN_WARM_NS ? open(p, O_RDONLY | O_CLOEXEC) : -1;
	if (fd >= 0)
		r->warm.ns[n++] = fd;
}

void run_warm_release(struct run *r)
{
	for (size_t i = 0; i < RUN_WARM_NS; i++)
		if (r->warm.ns[i] >= 0) {
			close(r->warm.ns[i]);
			r->warm.ns[i] = -1;
		}
}

int run_warm_wait(struct run *r, int ctl)
{
	const int watch[2] = {r->sfd, ctl};
	char **cmd = NULL;
	const char *tag = NULL;
	hold_namespaces(r);
	if (r->o.warm->wait(r->o.warm->arg, watch, &cmd, &tag) < 0 || !cmd || !cmd[0] ||
	    strcmp(cmd[0], r->o.cmd[0])) {
		run_warm_release(r);
		r->warm.state = -1;
		return -1;
	}
	r->warm.state = 1;
	r->o.cmd = cmd;
	r->o.tag = tag;
	/* the call starts now: its duration and its wall clock */
	clock_gettime(CLOCK_MONOTONIC, &r->t0);
	struct itimerspec it = {.it_value = {.tv_sec = r->lim.wall_ms / 1000,
					     .tv_nsec = r->lim.wall_ms % 1000 * 1000000L}};
	if (timerfd_settime(r->tfd, 0, &it, NULL) < 0)
		return -1;
	return 0;
}

int run_warm_go(struct run *r, int ctl)
{
	static const int stdio[3] = {0, 1, 2};
	return ctl_send_go_call(ctl, r->o.cmd, stdio);
}
