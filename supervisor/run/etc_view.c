/* etc_view.c — see etc_view.h. */
#include "etc_view.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bwrap_layer.h"

/* Is a file system type in /proc/filesystems? */
static bool fs_known(const char *type)
{
	FILE *f = fopen("/proc/filesystems", "re");
	if (!f)
		return false;
	char line[128];
	bool found = false;
	while (!found && fgets(line, sizeof line, f)) {
		char *t = strrchr(line, '\t');
		t = t ? t + 1 : line;
		t[strcspn(t, "\n")] = 0;
		found = !strcmp(t, type);
	}
	fclose(f);
	return found;
}

/* Is anything mounted at or below /etc/ (field 5 of /proc/self/mountinfo)? */
static bool etc_has_mounts(void)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return true; /* cannot tell: do not hide what might be there */
	char *line = NULL;
	size_t cap = 0;
	bool any = false;
	while (!any && getline(&line, &cap, f) > 0) {
		char mp[4096];
		if (sscanf(line, "%*s %*s %*s %*s %4095s", mp) == 1)
			any = !strcmp(mp, "/etc") || !strncmp(mp, "/etc/", 5);
	}
	free(line);
	fclose(f);
	return any;
}

bool etc_view_wanted(const char *lower)
{
	const char *env = getenv("SBXSUP_ETC_OVERLAY");
	struct stat st;
	if ((env && !strcmp(env, "0")) || !lower || !lower[0] || strpbrk(lower, ",:\\"))
		return false;
	if (lstat(SBX_LDSO_PRELOAD, &st) == 0 || errno != ENOENT)
		return false;
	return fs_known("overlay") && !etc_has_mounts();
}

int etc_view_make(const char *lower, const char *view, const char *preload)
{
	char p[256];
	if (snprintf(p, sizeof p, "%s/ld.so.preload", lower) >= (int)sizeof p)
		return errno = ENAMETOOLONG, -1;
	if (mkdir(lower, 0755) < 0 || chmod(lower, 0755) < 0 || mkdir(view, 0755) < 0) /* chmod: the umask */
		return -1;
	int fd = open(p, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	if (fd < 0)
		return -1;
	size_t n = strlen(preload);
	int rc = write(fd, preload, n) == (ssize_t)n && write(fd, "\n", 1) == 1 && fchmod(fd, 0644) == 0 ? 0 : -1;
	int e = errno;
	close(fd);
	errno = e;
	return rc;
}

int etc_view_mount(const char *lower, const char *view)
{
	char opt[512];
	if (snprintf(opt, sizeof opt, "lowerdir=/etc:%s", lower) >= (int)sizeof opt)
		return errno = ENAMETOOLONG, -1;
	return mount("overlay", view, "overlay", MS_RDONLY | MS_NOSUID | MS_NODEV, opt);
}
