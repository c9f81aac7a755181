/* mntns.c — see mntns.h. */
#include "mntns.h"

#include "smallfile.h"

#include <errno.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
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

bool sbx_mounted_below(const char *dir, bool at_too, const char *except)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return true;
	size_t n = strlen(dir);
	char *line = NULL;
	size_t cap = 0;
	bool any = false;
	while (!any && getline(&line, &cap, f) > 0) {
		char mp[4096];
		if (sscanf(line, "%*s %*s %*s %*s %4095s", mp) != 1 || strncmp(mp, dir, n) ||
		    (except && !strcmp(mp, except)))
			continue;
		any = mp[n] == '/' ? mp[n + 1] != 0 : (!mp[n] && at_too);
	}
	free(line);
	fclose(f);
	return any;
}
