/* sd_child.c — the forked child's side of sandbox_direct.h: direct mode's run init (its mounts in
 * the run's namespaces, its identity: sd_child_setup, sd_child_identity) and, bwrap mode as root,
 * the write grants and binaries staged where bwrap binds them from (sd_bwrap_child). Everything
 * here runs in the child, before the stage. See sandbox_direct.h. */
#include "sandbox_direct.h"
#include "netns.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/fsuid.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/mount.h>

#include "sandbox_paths.h"
#include "mkdirp.h"
#include "mntns.h"
#include "msg.h"

static int fail(const char *what)
{
	int e = errno;
	sbx_msg("run setup: %s: %s", what, strerror(e));
	errno = e;
	return -1;
}


static int drop_bounding_set(void)
{
	for (int c = 0; c < 64; c++)
		if (prctl(PR_CAPBSET_DROP, (unsigned long)c, 0, 0, 0) < 0 && errno != EINVAL)
			return -1;
	return 0;
}

/* A file bound (read-only) at stage_dir/name, on an empty file made there as its mount point. */
static int stage_file(const char *stage_dir, const char *name, const char *src)
{
	char at[160];
	snprintf(at, sizeof at, "%s/%s", stage_dir, name);
	int fd = open(at, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0444);
	if (fd < 0)
		return fail(at);
	close(fd);
	if (mount(src, at, NULL, MS_BIND, NULL) < 0 ||
	    mount(NULL, at, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV, NULL) < 0)
		return fail(src);
	return 0;
}

int sd_bwrap_child(const struct sd_plan *p, const char *stage_dir, const char *self, const char *preload)
{
	if (!p->root)
		return 0;
	/* root's supplementary groups never reach the executor */
	if (setgroups(0, NULL) < 0)
		return fail("drop the supplementary groups");
	if (!stage_dir || !*stage_dir) /* nothing staged: bwrap binds the paths themselves */
		return 0;
	if (mount("tmpfs", stage_dir, "tmpfs", MS_NOSUID | MS_NODEV | MS_NOEXEC, "mode=0711,size=64k") < 0)
		return fail(stage_dir);
	if ((self && stage_file(stage_dir, SBX_STAGE_SBXSUP, self) < 0) ||
	    (preload && stage_file(stage_dir, SBX_STAGE_PRELOAD, preload) < 0))
		return -1;
	for (size_t i = 0; i < p->nwr; i++) {
		char at[160];
		snprintf(at, sizeof at, "%s/w%zu", stage_dir, i);
		if (mkdir(at, 0700) < 0)
			return fail(at);
		if (p->wr_fd[i] >= 0) {
			if (syscall(SYS_move_mount, p->wr_fd[i], "", AT_FDCWD, at, MOVE_MOUNT_F_EMPTY_PATH) < 0)
				return fail(p->wr[i]);
		} else if (mount(p->wr[i], at, NULL, MS_BIND | MS_REC, NULL) < 0 ||
			   mount(NULL, at, NULL, MS_REMOUNT | MS_BIND | MS_NOSUID | MS_NODEV, NULL) < 0) {
			return fail(p->wr[i]); /* not idmapped: the grant as it is (never root: the userns) */
		}
	}
	return 0;
}

/* path will be an idmapped mount (moved in after the binds) */
static bool idmapped(const struct sd_plan *p, const char *path)
{
	for (size_t i = 0; i < p->nwr; i++)
		if (p->wr_fd[i] >= 0 && !strcmp(p->wr[i], path))
			return true;
	return false;
}

/* An empty file as the mount point of a file bind (its directories made first). */
static int make_file(const char *path)
{
	char d[sizeof ((struct sd_plan *)0)->expose[0]];
	snprintf(d, sizeof d, "%s", path);
	char *sl = strrchr(d, '/');
	if (sl && sl != d) {
		*sl = 0;
		if (sbx_mkdir_p(d, 0755) < 0)
			return -1;
	}
	int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

/* A write grant that is not an idmapped mount (a normal user's, or one the kernel would not
 * idmap) bound over itself nosuid,nodev, like the idmapped ones: nothing in it is setuid or a
 * device inside the run. mount_setattr adds only these two flags (locked ones stay). */
static int nosuid_bind(const char *path)
{
	struct mount_attr a = {.attr_set = MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV};
	if (mount(path, path, NULL, MS_BIND | MS_REC, NULL) < 0)
		return -1;
	return (int)syscall(SYS_mount_setattr, AT_FDCWD, path, AT_RECURSIVE, &a, sizeof a);
}

/* The private /tmp hides the host's: what the run needs from there (the workspace, granted dirs,
 * the report socket's dir) is bound again at the same path, from descriptors opened before. */
static int private_tmp(const struct sd_plan *p)
{
	int fds[SD_MAX_EXPOSE];
	size_t ord[SD_MAX_EXPOSE];
	for (size_t i = 0; i < p->nexpose; i++) { /* parents before what lies inside them */
		size_t j = i;
		for (; j > 0 && strlen(p->expose[ord[j - 1]]) > strlen(p->expose[i]); j--)
			ord[j] = ord[j - 1];
		ord[j] = i;
	}
	for (size_t i = 0; i < p->nexpose; i++)
		fds[i] = idmapped(p, p->expose[i]) ? -1 : open(p->expose[i], O_PATH | O_CLOEXEC);
	if (mount(p->tmp_host, "/tmp", NULL, MS_BIND, NULL) < 0 ||
	    mount(NULL, "/tmp", NULL, MS_REMOUNT | MS_BIND | MS_NOSUID | MS_NODEV, NULL) < 0)
		return fail("bind the run's tmp dir at /tmp");
	for (size_t k = 0; k < p->nexpose; k++) {
		size_t i = ord[k];
		char src[64];
		if (fds[i] < 0)
			continue;
		snprintf(src, sizeof src, "/proc/self/fd/%d", fds[i]);
		struct stat st;
		if (fstat(fds[i], &st) < 0)
			return fail(p->expose[i]);
		if (S_ISDIR(st.st_mode) ? sbx_mkdir_p(p->expose[i], 0755) < 0 : make_file(p->expose[i]) < 0)
			return fail(p->expose[i]);
		/* read-only unless granted for writing: the policy's tmp grant is all of /tmp here */
		if (mount(src, p->expose[i], NULL, MS_BIND | MS_REC, NULL) < 0 ||
		    (!p->expose_rw[i] && mount(NULL, p->expose[i], NULL, MS_REMOUNT | MS_BIND | MS_RDONLY |
					       MS_NOSUID | MS_NODEV, NULL) < 0))
			return fail(p->expose[i]);
		close(fds[i]);
	}
	return 0;
}

bool sd_proc_overmounted(void)
{
	return sbx_mounted_below("/proc", false, "/proc/sys/fs/binfmt_misc");
}

int sd_child_setup(const struct sd_plan *p)
{
	if (p->flags & CLONE_NEWNS) {
		if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
			return fail("make / private");
		if (p->tmp_host[0] && private_tmp(p) < 0)
			return -1;
		/* --shadow as a normal user: the overlay, mounted here in the run's own namespaces */
		if (p->shadow && !p->root && shadow_mount_at(p->shadow, true) < 0)
			return -1;
		struct stat st;
		if (stat("/dev/shm", &st) == 0 &&
		    mount("tmpfs", "/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777,size=64m") < 0)
			return fail("tmpfs at /dev/shm");
		/* the idmapped writable dirs, parents first */
		for (size_t len = 1, left = p->nwr; left && len < sizeof p->wr[0]; len++)
			for (size_t i = 0; i < p->nwr; i++) {
				if (strlen(p->wr[i]) != len)
					continue;
				left--;
				if (p->wr_fd[i] < 0) { /* not idmapped (a normal user, or refused) */
					if (nosuid_bind(p->wr[i]) < 0)
						return fail(p->wr[i]);
					continue;
				}
				if ((sd_under_tmp(p->wr[i]) && sbx_mkdir_p(p->wr[i], 0755) < 0) ||
				    syscall(SYS_move_mount, p->wr_fd[i], "", AT_FDCWD, p->wr[i],
					    MOVE_MOUNT_F_EMPTY_PATH) < 0)
					return fail(p->wr[i]);
			}
		/* the pid namespace's own procfs; refused (e.g. a masked host /proc): keep the host's,
		 * unless the policy lists the run's processes (proc_own): it would list the host's */
		if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL) < 0 && p->proc_own)
			return fail("mount the run's own /proc (the policy grants listing its processes)");
		/* re-enter the cwd through the new mounts (else the workspace) */
		if (p->cwd[0] && chdir(p->cwd) < 0 && chdir(p->ws_path) < 0)
			return fail("chdir");
		/* the preload's /run/sbxsup and /etc/ld.so.preload. In a user namespace made by root our
		 * own uid is unmapped there (files cannot be created: EOVERFLOW): create them as the
		 * executor's identity, which the setresuid below makes ours anyway. */
		if (p->fixed.on && p->userns) {
			(void)setfsgid(p->in_gid);
			(void)setfsuid(p->in_uid);
		}
		if (sd_fixed_setup(&p->fixed) < 0)
			return -1;
		if (p->userns) {
			(void)setfsgid(p->in_gid);
			(void)setfsuid(p->in_uid);
		}
		if (sd_fixed_identity(&p->etc_id) < 0)
			return -1;
	}
	if (p->shadow && !(p->flags & CLONE_NEWNS)) {
		errno = EPERM;
		return fail("--shadow needs the run's mount namespace");
	}
	for (size_t i = 0; i < p->nwr; i++)
		if (p->wr_fd[i] >= 0)
			close(p->wr_fd[i]);
	if (p->flags & CLONE_NEWNET)
		(void)sbx_netns_lo_up(); /* (the gateway's set-up does it again, sbx_netns_setup) */
	if (p->userns) {
		if ((p->root && setgroups(0, NULL) < 0) || /* root's supplementary groups stay behind */
		    setresgid(p->in_gid, p->in_gid, p->in_gid) < 0 || setresuid(p->in_uid, p->in_uid, p->in_uid) < 0)
			return fail("set the identity in the user namespace");
	} else if (p->setid) {
		return sd_child_identity(p);
	}
	/* A change of credentials clears the parent-death signal (lifetime.h): arm it again. If the
	 * supervisor died in between, the stage never gets its "go" and the command never starts. */
	if (p->userns && prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0)
		return fail("PR_SET_PDEATHSIG");
	return 0;
}

int sd_child_identity(const struct sd_plan *p)
{
	if (!p->setid)
		return 0;
	if (!p->keep_bset && drop_bounding_set() < 0)
		return fail("empty the bounding set");
	if (setgroups(0, NULL) < 0 || setresgid(p->host_gid, p->host_gid, p->host_gid) < 0 ||
	    setresuid(p->host_uid, p->host_uid, p->host_uid) < 0)
		return fail("become the unprivileged identity");
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return fail("PR_SET_NO_NEW_PRIVS");
	/* the change of credentials cleared the parent-death signal: arm it again */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) < 0)
		return fail("PR_SET_PDEATHSIG");
	return 0;
}
