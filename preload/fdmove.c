/* fdmove.c — where the policy and report descriptors live: moved to high numbers.
 *
 * Promise: sbx_pl_fds_relocate() (the library's start, preload.c) moves both descriptors from low
 * numbers to high numbers below the soft open-files limit, so the program's first open
 * gets 3 as without the library; sbx_pl_fd_move_away() (fdguard.c's close/dup2 interposers, before
 * the program takes a number) moves one elsewhere. Each move updates the saved SBXSUP_* value the
 * exec interposers hand on. Only raw system calls: nothing here starts the library or enters an
 * interposer, so the start and the guard both use it without using each other.
 * Ownership: sbx_pl.policy_fd, sbx_pl.report_fd and their saved variables; callers hold no lock
 * (the start runs once, the guard's moves are the program's own descriptor calls).
 */
#undef _FORTIFY_SOURCE
#include "pl.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/syscall.h>

/* Where our descriptors live: high, below the soft open-files limit (64 under it when that is
 * at least 256, else from 100). */
static int fd_high(void)
{
	struct rlimit rl;
	if (sbx_sys(SYS_prlimit64, 0, RLIMIT_NOFILE, 0, (long)&rl, 0, 0) == 0 &&
	    rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur >= 256 && rl.rlim_cur <= (1u << 20))
		return (int)rl.rlim_cur - 64;
	return 100;
}

/* Move a protected descriptor out of the way before the program takes its number (the old
 * number stays open; the caller closes or reuses it). */
int sbx_pl_fd_move_away(int fd)
{
	int saved = errno;
	int nfd = (int)sbx_sys(SYS_fcntl, fd, F_DUPFD, fd_high(), 0, 0, 0);
	if (nfd < 0)
		nfd = (int)sbx_sys(SYS_fcntl, fd, F_DUPFD, 3, 0, 0, 0);
	if (nfd < 0) {
		errno = saved;
		return -1;
	}
	int idx = fd == sbx_pl.policy_fd ? 1 : 2;
	const char *name = idx == 1 ? SBX_ENV_POLICY_FD : SBX_ENV_REPORT_FD;
	if (idx == 1)
		sbx_pl.policy_fd = nfd;
	else
		sbx_pl.report_fd = nfd;
	if (sbx_pl.env[idx][0])
		snprintf(sbx_pl.env[idx], SBX_PL_ENV_MAX, "%s=%d", name, nfd);
	errno = saved;
	return 0;
}

void sbx_pl_fds_relocate(void)
{
	int hi = fd_high();
	int fds[2] = { sbx_pl.policy_fd, sbx_pl.report_fd };
	for (int i = 0; i < 2; i++)
		if (fds[i] >= 0 && fds[i] < hi && sbx_pl_fd_move_away(fds[i]) == 0)
			sbx_sys(SYS_close, fds[i], 0, 0, 0, 0, 0);
}
