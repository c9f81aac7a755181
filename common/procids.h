/* procids.h — a process's identity as /proc/PID/status shows it: the one reader of its Uid, Gid,
 * Groups, Umask and Tgid lines (the seccomp emulation acting as its target, the memory read as the
 * target's fs ids, the network set-up joining a member's namespace, the exec pins' process of a
 * thread).
 *
 * Promise: one open and one read of /proc/PID/status (O_CLOEXEC), nothing kept open, no
 * allocation (fit for a forked child of a threaded process). Ids are as the reader's pid and user
 * namespaces see them. The caller owns `out`.
 */
#ifndef SBX_PROCIDS_H
#define SBX_PROCIDS_H

#include <sys/types.h>

#define SBX_PROCIDS_MAX_GROUPS 256

struct sbx_proc_ids {
	uid_t uid[4];              /* real, effective, saved, fs */
	gid_t gid[4];
	int ngroups;               /* supplementary groups kept (the first SBX_PROCIDS_MAX_GROUPS) */
	gid_t groups[SBX_PROCIDS_MAX_GROUPS];
	mode_t umask;              /* 022 where the kernel shows none */
	pid_t tgid;                /* the thread's process (0 where the kernel shows none) */
};

/* Fill `out` from /proc/PID/status. 0, or -1 with errno (EINVAL: no complete Uid or Gid line). */
int sbx_proc_ids(pid_t pid, struct sbx_proc_ids *out);

#endif
