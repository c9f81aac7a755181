/* mntns.c — see mntns.h. */
#include "mntns.h"

#include "smallfile.h"

#include <errno.h>
#include <sched.h>
#include <stdio.h>
#include <sys/mount.h>
#include <unistd.h>

int sbx_mntns_private(const char **what)
{
	uid_t u = geteuid();
	gid_t g = getegid();
	if (unshare(CLONE_NEWNS | (u == 0 ? 0 : CLONE_NEWUSER)) < 0) {
		*what = u == 0 ? "unshare(mount namespace)" : "unshare(user + mount namespace)";
		return -1;
	}
	if (u != 0) {
		char m[64];
		snprintf(m, sizeof m, "%u %u 1\n", (unsigned)u, (unsigned)u);
		if (sbx_write_small("/proc/self/uid_map", m) < 0) {
			*what = "uid_map";
			return -1;
		}
		if (sbx_write_small("/proc/self/setgroups", "deny") < 0 && errno != ENOENT) {
			*what = "setgroups";
			return -1;
		}
		snprintf(m, sizeof m, "%u %u 1\n", (unsigned)g, (unsigned)g);
		if (sbx_write_small("/proc/self/gid_map", m) < 0) {
			*what = "gid_map";
			return -1;
		}
	}
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) < 0) {
		*what = "make / private";
		return -1;
	}
	return 0;
}
