/* run_warm.c — a pre-created run (run.h struct run_warm, docs/serve.md): the sandbox is
 * ready, the call is awaited, then released with the call's argv and stdio. run_int.h. */
#include <errno.h>
#include <string.h>
#include <sys/timerfd.h>
#include <time.h>

#include "ctl.h"
#include "run_int.h"

int run_warm_wait(struct run *r, int ctl)
{
	const int watch[2] = {r->sfd, ctl};
	char **cmd = NULL;
	const char *tag = NULL;
	if (r->o.warm->wait(r->o.warm->arg, watch, &cmd, &tag) < 0 || !cmd || !cmd[0] ||
	    strcmp(cmd[0], r->o.cmd[0])) {
		r->warm = -1;
		return -1;
	}
	r->warm = 1;
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
