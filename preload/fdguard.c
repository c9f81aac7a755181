/* fdguard.c — the policy and report descriptors outlive the program's fd hygiene.
 *
 * Promise: children find their policy and report channel at the numbers named in SBXSUP_*_FD.
 * At load both are moved to high numbers (SBX_FD_HIGH below the open-files limit), so the
 * program's own first open() gets 3 as without the library. close() of one of them really closes
 * that number and returns the kernel's answer (ours moves to another high number first: no fake
 * success, a second close() is EBADF); dup2()/dup3() onto one of them do the same before doing
 * what the program asked. close_range()/closefrom() skip them (also for CLOSE_RANGE_CLOEXEC):
 * every number in the range may be closed, there is nowhere inside it to move to. Each move
 * updates the saved SBXSUP_* value the exec interposers hand on (the moves are fdmove.c's, which the
 * library's start uses too: the start and this guard do not call each other's code). A program
 * using raw system calls can still close them: its children then fail closed (no policy -> every
 * decision denies) and the kernel layers remain.
 */
#undef _FORTIFY_SOURCE
#include "pl.h"

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

SBX_EXPORT int close(int fd)
{
	if (sbx_pl_fd_protected(fd) && sbx_pl_fd_move_away(fd) != 0)
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

SBX_EXPORT int dup2(int oldfd, int newfd)
{
	if (oldfd != newfd && sbx_pl_fd_protected(newfd) && sbx_pl_fd_move_away(newfd) != 0)
		return -1;
	return REAL(dup2)(oldfd, newfd);
}

SBX_EXPORT int dup3(int oldfd, int newfd, int flags)
{
	if (oldfd != newfd && sbx_pl_fd_protected(newfd) && sbx_pl_fd_move_away(newfd) != 0)
		return -1;
	return REAL(dup3)(oldfd, newfd, flags);
}
