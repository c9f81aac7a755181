/* actas.c — acting as another process, one thread at a time (see actas.h). */
#include "actas.h"
#include "procids.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef PIDFD_THREAD
#define PIDFD_THREAD O_EXCL
#endif

int sbx_act_ids_of(pid_t pid, struct sbx_act_ids *t)
{
	struct sbx_proc_ids id;
	if (sbx_proc_ids(pid, &id) < 0)
		return -1;
	t->ruid = id.uid[0];
	t->rgid = id.gid[0];
	t->euid = id.uid[1];
	t->fsuid = id.uid[3];
	t->egid = id.gid[1];
	t->fsgid = id.gid[3];
	t->ngroups = id.ngroups;
	memcpy(t->groups, id.groups, (size_t)id.ngroups * sizeof id.groups[0]);
	t->umask = id.umask;
	return 0;
}


long sbx_cap_eff(void)
{
	struct __user_cap_header_struct h = {.version = _LINUX_CAPABILITY_VERSION_3};
	struct __user_cap_data_struct d[2];
	if (syscall(SYS_capget, &h, d))
		return -1;
	return (long)(d[0].effective | d[1].effective);
}

/* Back to the caller's own identity; a failure aborts (this thread must never go on as the
 * target). */
void sbx_act_self(struct sbx_act_saved *s)
{
	if (!s->switched)
		return;
	if (syscall(SYS_setresuid, s->ruid, s->euid, -1) || syscall(SYS_setresgid, s->rgid, s->egid, -1) ||
	    syscall(SYS_setgroups, (size_t)s->ngroups, s->groups))
		abort();
	syscall(SYS_setfsuid, s->fsuid);
	syscall(SYS_setfsgid, s->fsgid);
	if (syscall(SYS_capset, &s->h, s->caps) || geteuid() != s->euid)
		abort();
	s->switched = false;
}

/* The calling thread takes the target's identity (raw per-thread calls): fs and effective ids,
 * groups; with `real` also the real ids (what the kernel compares for access to another process's
 * memory and descriptors: a root without CAP_SYS_PTRACE reaches the target only so; the saved ids
 * stay the supervisor's, so the target can neither trace nor write to it meanwhile). 0, or -1
 * (EPERM: cannot be done faithfully here). Already the target (nested): nothing to do. */
int sbx_act_as(const struct sbx_act_ids *t, struct sbx_act_saved *s, bool real)
{
	memset(s, 0, sizeof *s);
	s->switched = false;
	uid_t my_fsuid = (uid_t)syscall(SYS_setfsuid, -1);
	gid_t my_fsgid = (gid_t)syscall(SYS_setfsgid, -1);
	if (t->euid == 0 || t->fsuid == 0) {
		errno = EPERM; /* the executor is never host root (sandbox_direct.h): never act as it */
		return -1;
	}
	if (geteuid() != 0) {
		/* not root: act as ourselves only if that is who the target is */
		if (t->euid == geteuid() && t->fsuid == my_fsuid && t->egid == getegid() && t->fsgid == my_fsgid &&
		    sbx_cap_eff() == 0)
			return 0;
		errno = EPERM;
		return -1;
	}
	uid_t su;
	gid_t sg;
	if (getresuid(&s->ruid, &s->euid, &su) || getresgid(&s->rgid, &s->egid, &sg))
		return -1;
	s->fsuid = my_fsuid;
	s->fsgid = my_fsgid;
	s->ngroups = getgroups(256, s->groups);
	s->h.version = _LINUX_CAPABILITY_VERSION_3;
	if (s->ngroups < 0 || syscall(SYS_capget, &s->h, s->caps))
		return -1;
	s->switched = true;
	if (syscall(SYS_setgroups, (size_t)t->ngroups, t->groups) ||
	    syscall(SYS_setresgid, real ? (long)t->rgid : -1L, t->egid, -1))
		goto back;
	syscall(SYS_setfsgid, t->fsgid);
	if (syscall(SYS_setresuid, real ? (long)t->ruid : -1L, t->euid, -1))
		goto back;
	syscall(SYS_setfsuid, t->fsuid);
	/* euid 0 -> non-zero clears the effective set; SECBIT_NO_SETUID_FIXUP would keep it: check */
	if ((uid_t)syscall(SYS_setfsuid, -1) != t->fsuid || (gid_t)syscall(SYS_setfsgid, -1) != t->fsgid ||
	    sbx_cap_eff() != 0)
		goto back;
	return 0;
back:;
	int e = errno ? errno : EPERM;
	sbx_act_self(s);
	errno = e;
	return -1;
}


int sbx_pidfd_of(pid_t pid)
{
	int p = (int)syscall(SYS_pidfd_open, pid, PIDFD_THREAD);
	if (p < 0)
		p = (int)syscall(SYS_pidfd_open, pid, 0);
	return p;
}

/* The target's descriptor `tfd` as one of ours (pidfd_getfd), or -1 with errno. */
int sbx_pidfd_getfd(pid_t pid, int tfd)
{
	int p = sbx_pidfd_of(pid);
	if (p < 0)
		return -1;
	int fd = (int)syscall(SYS_pidfd_getfd, p, tfd, 0);
	int e = errno;
	close(p);
	errno = e;
	if (fd >= 0)
		(void)fcntl(fd, F_SETFD, FD_CLOEXEC);
	return fd;
}

long sbx_retry_as(pid_t pid, bool real, long (*fn)(pid_t pid, void *arg), void *arg)
{
	long r = fn(pid, arg);
	if (r >= 0 || (errno != EPERM && errno != EACCES) || geteuid() != 0)
		return r;
	int e = errno;
	struct sbx_act_ids cr;
	struct sbx_act_saved sv;
	if (sbx_act_ids_of(pid, &cr) < 0 || sbx_act_as(&cr, &sv, real) < 0) {
		errno = e;
		return -1;
	}
	r = fn(pid, arg);
	e = errno;
	sbx_act_self(&sv);
	errno = e;
	return r;
}

static long getfd_num(pid_t pid, void *arg)
{
	return sbx_pidfd_getfd(pid, *(const int *)arg);
}

int sbx_take_fd(pid_t pid, int num)
{
	return (int)sbx_retry_as(pid, true, getfd_num, &num);
}
