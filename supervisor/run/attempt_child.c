/* attempt_child.c — what every wrapper's child does first (wrapper.h). */
#include <fcntl.h>
#include <signal.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "lifetime.h"
#include "wrapper.h"

void att_child_signals(const sigset_t *oldmask)
{
	signal(SIGPIPE, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
	sigprocmask(SIG_SETMASK, oldmask, NULL);
}

/* Nothing the caller of sbxsup left open (a directory fd would be a way out of bwrap's mount
 * namespace) reaches the command: every fd above stderr becomes close-on-exec; att_keep_fd() then
 * re-opens the few the sandbox must inherit. Async-signal-safe. */
void att_cloexec_all(void)
{
	if (syscall(SYS_close_range, 3u, ~0u, 4u /* CLOSE_RANGE_CLOEXEC */) == 0)
		return;
	for (int fd = 3; fd < 65536; fd++) {
		int fl = fcntl(fd, F_GETFD);
		if (fl >= 0 && !(fl & FD_CLOEXEC))
			fcntl(fd, F_SETFD, fl | FD_CLOEXEC);
	}
}

void att_keep_fd(int fd)
{
	if (fd >= 0) {
		int fl = fcntl(fd, F_GETFD);
		if (fl >= 0)
			fcntl(fd, F_SETFD, fl & ~FD_CLOEXEC);
	}
}

int att_child_layers(struct run *r)
{
	return r->o.disabled ? 0 : layers_child(&r->lc, &r->lrt);
}

int att_child_common(struct run *r, const struct attempt_io *f, bool layer_ops)
{
	if (life_child_setup(f->alive_r) < 0)
		return -1;
	close(f->alive_r);
	if (r->repsrv >= 0) /* the receiving end stays with the supervisor only (direct mode's init
			     * never execs) */
		close(r->repsrv);
	if (!r->o.disabled) {
		if (cg_join(&r->cg) < 0)
			return -1;
		if (layer_ops && layers_child(&r->lc, &r->lrt) < 0)
			return -1;
	}
	return 0;
}

/* The library's stdio (run_opts.stdio, each > 2) becomes the child's 0/1 and, without bwrap, 2 (with
 * bwrap, 2 is bwrap's own pipe and the stage restores the executor's stderr from stderr_copy, which
 * the attempt took from stdio[2]). Async-signal-safe. */
int att_child_stdio(const struct run *r, bool with_stderr)
{
	for (int i = 0; r->o.stdio && i < (with_stderr ? 3 : 2); i++)
		if (dup2(r->o.stdio[i], i) < 0)
			return -1;
	return 0;
}
