/* actas.h — acting as another process, one thread at a time: its ids, and its descriptors.
 * Used by the seccomp emulation (supervisor/layers/seccomp_emulate.c: calls performed on the
 * executor's behalf) and by the run's control channel (supervisor/run/ctl.c: the stage's listener).
 *
 * Promise:
 *   - sbx_act_as() switches only the calling thread (raw per-thread system calls, never glibc's
 *     process-wide set*id wrappers), to the target's fs and effective ids and groups, with `real`
 *     also its real ids; the saved ids stay the caller's. It refuses (EPERM) to act as a target
 *     whose effective or fs uid is 0, and, when the caller is not root, anything but what the
 *     caller already is. sbx_act_self() goes back, and aborts the process if it cannot: a thread
 *     never goes on as the target by mistake.
 *   - sbx_take_fd() takes a descriptor of another process (pidfd_getfd, close-on-exec), as the
 *     caller, or where a root caller may not reach it (no CAP_SYS_PTRACE, as in a container with
 *     Docker's defaults) with the target's real ids for that one call.
 * Ownership: the structs are the caller's (on its stack); descriptors returned are the caller's.
 */
#ifndef SBX_ACTAS_H
#define SBX_ACTAS_H

#include <linux/capability.h>
#include <stdbool.h>
#include <sys/types.h>

/* A process's ids, groups and umask, as /proc/PID/status shows them. */
struct sbx_act_ids {
	uid_t ruid, euid, fsuid;
	gid_t rgid, egid, fsgid;
	int ngroups;
	gid_t groups[256];
	mode_t umask;
};

/* What sbx_act_as() changed, to go back. */
struct sbx_act_saved {
	bool switched;
	uid_t ruid, euid, fsuid;
	gid_t rgid, egid, fsgid;
	int ngroups;
	gid_t groups[256];
	struct __user_cap_header_struct h;
	struct __user_cap_data_struct caps[2];
};

/* The ids of process `pid`. 0, or -1 (errno). */
int sbx_act_ids_of(pid_t pid, struct sbx_act_ids *t);

/* The calling thread's effective capabilities (both words), or -1. */
long sbx_cap_eff(void);

/* The calling thread takes `t`'s identity (see the promise). 0, or -1 (EPERM: cannot be done
 * faithfully here). Already the target (nested): nothing to do, s->switched stays false. */
int sbx_act_as(const struct sbx_act_ids *t, struct sbx_act_saved *s, bool real);

/* Back to the caller's own identity; a failure aborts. Nothing to do unless s->switched. */
void sbx_act_self(struct sbx_act_saved *s);

/* A pidfd for the thread `pid` (PIDFD_THREAD where the kernel has it), or -1. */
int sbx_pidfd_of(pid_t pid);

/* The descriptor `tfd` of `pid` as one of ours (pidfd_getfd, close-on-exec), as we are; -1 errno. */
int sbx_pidfd_getfd(pid_t pid, int tfd);

/* The descriptor `num` of process `pid` as one of ours, as we are or with `pid`'s real ids for
 * that one call (see the promise). -1 with errno when neither can. */
int sbx_take_fd(pid_t pid, int num);

/* `fn(pid, arg)` as we are; where that is refused (EPERM, EACCES) to a root caller — no
 * CAP_SYS_PTRACE over `pid`, as in a container with Docker's defaults — again with `pid`'s ids
 * (its real ones too with `real`) for that one call. fn's result (< 0: failed, errno set; the
 * first refusal's errno when acting as `pid` cannot be done). Used for the descriptors above, the
 * exec pins' attach and the reading of /proc/PID links. */
long sbx_retry_as(pid_t pid, bool real, long (*fn)(pid_t pid, void *arg), void *arg);

#endif
