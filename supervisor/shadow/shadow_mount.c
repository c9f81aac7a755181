/* shadow_mount.c — mounting the shadow workspace's overlay (shadow_mount.h). */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/mount.h>

#include "msg.h"
#include "shadow_mount.h"
#include "smallfile.h"

static int fail(const char *what)
{
	int e = errno;
	sbx_msg("shadow workspace: %s: %s", what, strerror(e));
	errno = e;
	return -1;
}

static int set_str(int fs, const char *k, const char *v)
{
	return (int)syscall(SYS_fsconfig, fs, FSCONFIG_SET_STRING, k, v, 0);
}

int shadow_overlay_fd(int lower_fd, const char *lower, int upper_fd, int work_fd, bool userxattr)
{
	int fs = (int)syscall(SYS_fsopen, "overlay", FSOPEN_CLOEXEC);
	if (fs < 0)
		return fail("fsopen overlay");
	/* one layer per key, by descriptor or by path: no option-string escaping of ':' or ',' */
	const char *step = "lowerdir";
	int rc = lower_fd >= 0 ? (int)syscall(SYS_fsconfig, fs, FSCONFIG_SET_FD, "lowerdir+", NULL, lower_fd)
			       : set_str(fs, "lowerdir+", lower);
	if (rc == 0 && (step = "upperdir"))
		rc = (int)syscall(SYS_fsconfig, fs, FSCONFIG_SET_FD, "upperdir", NULL, upper_fd);
	if (rc == 0 && (step = "workdir"))
		rc = (int)syscall(SYS_fsconfig, fs, FSCONFIG_SET_FD, "workdir", NULL, work_fd);
	if (rc == 0 && userxattr && (step = "userxattr"))
		rc = (int)syscall(SYS_fsconfig, fs, FSCONFIG_SET_FLAG, "userxattr", NULL, 0);
	if (rc == 0 && (step = "create"))
		rc = (int)syscall(SYS_fsconfig, fs, FSCONFIG_CMD_CREATE, NULL, NULL, 0);
	if (rc < 0) {
		int e = errno;
		char msg[256] = "";
		ssize_t k = read(fs, msg, sizeof msg - 1); /* the kernel's own words, when it has some */
		msg[k > 0 ? k : 0] = 0;
		close(fs);
		sbx_msg("shadow workspace: overlay %s: %s%s%s", step, strerror(e), k > 0 ? ": " : "", k > 0 ? msg : "");
		errno = e;
		return -1;
	}
	int m = (int)syscall(SYS_fsmount, fs, FSMOUNT_CLOEXEC, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV);
	int e = errno;
	close(fs);
	errno = e;
	if (m < 0)
		return fail("fsmount overlay");
	return m;
}

static int open_dir(const char *p)
{
	return open(p, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
}

/* The copy fallback: the store's tree bound over the workspace. */
static int bind_tree(const struct shadow_plan *sp)
{
	if (mount(sp->tree, sp->workspace, NULL, MS_BIND | MS_REC, NULL) < 0 ||
	    mount(NULL, sp->workspace, NULL, MS_REMOUNT | MS_BIND | MS_NOSUID | MS_NODEV, NULL) < 0)
		return fail(sp->workspace);
	return 0;
}

int shadow_mount_at(const struct shadow_plan *sp, bool userxattr)
{
	if (sp->copy)
		return bind_tree(sp);
	int up = open_dir(sp->upper), wk = open_dir(sp->work);
	if (up < 0 || wk < 0) {
		int e = errno;
		if (up >= 0)
			close(up);
		if (wk >= 0)
			close(wk);
		errno = e;
		return fail(sp->store);
	}
	int m = shadow_overlay_fd(-1, sp->workspace, up, wk, userxattr);
	close(up);
	close(wk);
	if (m < 0)
		return -1;
	int rc = (int)syscall(SYS_move_mount, m, "", AT_FDCWD, sp->workspace, MOVE_MOUNT_F_EMPTY_PATH);
	int e = errno;
	close(m);
	errno = e;
	return rc < 0 ? fail(sp->workspace) : 0;
}

int shadow_enter_bwrap(const struct shadow_plan *sp)
{
	bool root = geteuid() == 0;
	uid_t u = geteuid();
	gid_t g = getegid();
	if (unshare(CLONE_NEWNS | (root ? 0 : CLONE_NEWUSER)) < 0)
		return fail(root ? "unshare(mount namespace)" : "unshare(user + mount namespace)");
	if (!root) {
		char m[64];
		snprintf(m, sizeof m, "%u %u 1\n", (unsigned)u, (unsigned)u);
		if (sbx_write_small("/proc/self/uid_map", m) < 0)
			return fail("uid_map");
		if (sbx_write_small("/proc/self/setgroups", "deny") < 0 && errno != ENOENT)
			return fail("setgroups");
		snprintf(m, sizeof m, "%u %u 1\n", (unsigned)g, (unsigned)g);
		if (sbx_write_small("/proc/self/gid_map", m) < 0)
			return fail("gid_map");
	}
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0)
		return fail("make / private");
	return shadow_mount_at(sp, !root);
}
