/* serve_child.c — see serve_child.h. */
#include "serve_child.h"
#include "serve_call.h"
#include "serve_warm.h"

#include <signal.h>
#include <unistd.h>

#include "result.h"

static void child_signals(void)
{
	sigset_t all;
	sigemptyset(&all);
	for (int s = 1; s < NSIG; s++)
		if (s != SIGKILL && s != SIGSTOP)
			signal(s, SIG_DFL);
	sigprocmask(SIG_SETMASK, &all, NULL);
}

void serve_child(int conn, int ch, const struct serve_cfg *cfg)
{
	child_signals();
	struct serve_call *c = serve_call_new();
	if (!c) {
		serve_refuse(conn, SBX_REASON_INTERNAL, "out of memory");
		_exit(0);
	}
	if (serve_call_recv(c, conn) < 0)
		_exit(0);
	ch = serve_call_cold(c, ch, cfg);
	if (ch >= 0)
		serve_warm_loop(c, ch, cfg);
	_exit(0);
}
