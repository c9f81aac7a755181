/* serve_child.c — see serve_child.h. */
#include "serve_child.h"
#include "serve_call.h"
#include "serve_warm.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include "result.h"

extern char **environ;

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

void serve_child_copy(int tp, int ch, const struct serve_cfg *cfg)
{
	child_signals();
	int keep[2] = {tp, ch};
	serve_close_all_but(keep, 2);
	for (int fd = 0; fd <= 2; fd++) /* (a descriptor received next never lands on 0-2) */
		if (fcntl(fd, F_GETFD) < 0) {
			int nul = open("/dev/null", O_RDWR);
			if (nul >= 0 && nul != fd)
				_exit(0);
		}
	struct serve_call *c = serve_call_new();
	struct stat st;
	if (!c || serve_call_recv(c, tp) < 0)
		_exit(0);
	close(tp);
	c->conn = -1;
	int cwd = c->rq->nfds == 1 ? c->fds[c->rq->cwd_index] : -1;
	if (cwd < 0 || fstat(cwd, &st) < 0 || !S_ISDIR(st.st_mode) || fchdir(cwd) < 0)
		_exit(0);
	close(cwd);
	c->nfds = 0;
	environ = (char **)c->rq->envp;
	serve_warm_loop(c, ch, cfg); /* (0-2 onto /dev/null there) */
}
