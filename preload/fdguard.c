/* fdguard.c — the policy and report descriptors outlive the program's fd hygiene.
 *
 * Promise: children find their policy and report channel at the numbers named in SBXSUP_*_FD.
 * At load both are moved to high numbers (SBX_FD_HIGH below the open-files limit), so the
 * program's own first open() gets 3 as without the library. close() of one of them really closes
 * that number and returns the kernel's answer (ours moves to another high number first: no fake
 * success, a second close() is EBADF); dup2()/dup3() onto one of them do the same before doing
 * what the program asked. close_range()/closefrom() skip them (also for CLOSE_RANGE_CLOEXEC):
 * every number in the range may be closed, there is nowhere inside it to move to. Each move
 * updates the saved SBXSUP_* value the exec interposers hand on. A program using raw system calls can still close them: its children then fail
 * closed (no policy -> every decision denies) and the kernel layers remain.
 */
#undef _FORTIFY_SOURCE
#include "pl.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef CLOSE_RANGE_CLOEXEC
#define CLOSE_RANGE_CLOEXEC (1U << 2)
#endif

REAL_DECL(close); REAL_DECL(dup2); REAL_DECL(dup3);

bool sbx_pl_fd_protected(int fd)
{
	int m = sbx_pl_mode();
	if (m == SBX_PL_PASSIVE || fd < 0)
		return false;
	return fd == sbx_pl.policy_fd || fd == sbx_pl.report_fd;
}

static int move_away(int fd);

SBX_EXPORT int close(int fd)
{
	if (sbx_pl_fd_protected(fd) && move_away(fd) != 0)
		return 0; /* nowhere to move it (no free descriptor): keep it, as before */
	return REAL(close)(fd);
}

static int range(unsigned lo, unsigned hi, unsigned flags)
{
	if (lo > hi)
		return 0;
	return (int)sbx_sys(SYS_close_range, lo, hi, flags, 0, 0, 0);
}

SBX_EXPORT int close_range(unsigned lo, unsigned hi, int flags)
{
	if (sbx_pl_mode() == SBX_PL_PASSIVE)
		return range(lo, hi, (unsigned)flags);
	int p[2] = { sbx_pl.policy_fd, sbx_pl.report_fd };
	if (p[0] > p[1]) {
		int t = p[0];
		p[0] = p[1];
		p[1] = t;
	}
	unsigned from = lo;
	for (int i = 0; i < 2; i++) {
		if (p[i] < 0 || (unsigned)p[i] < from || (unsigned)p[i] > hi)
			continue;
		if (range(from, (unsigned)p[i] - 1u, (unsigned)flags) != 0 && (unsigned)p[i] > from)
			return -1;
		from = (unsigned)p[i] + 1u;
		if (from == 0)   /* wrapped */
			return 0;
	}
	return range(from, hi, (unsigned)flags);
}

SBX_EXPORT void closefrom(int lo)
{
	if (lo < 0)
		lo = 0;
	(void)close_range((unsigned)lo, ~0u, 0);
}

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
static int move_away(int fd)
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
		if (fds[i] >= 0 && fds[i] < hi && move_away(fds[i]) == 0)
			sbx_sys(SYS_close, fds[i], 0, 0, 0, 0, 0);
}

SBX_EXPORT int dup2(int oldfd, int newfd)
{
	if (oldfd != newfd && sbx_pl_fd_protected(newfd) && move_away(newfd) != 0)
		return -1;
	return REAL(dup2)(oldfd, newfd);
}

SBX_EXPORT int dup3(int oldfd, int newfd, int flags)
{
	if (oldfd != newfd && sbx_pl_fd_protected(newfd) && move_away(newfd) != 0)
		return -1;
	return REAL(dup3)(oldfd, newfd, flags);
}
