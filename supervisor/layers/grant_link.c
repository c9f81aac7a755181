/* grant_link.c — see grant_link.h. */
#include "grant_link.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool kernel_fs(const char *path)
{
	static const char *const top[] = {"/proc", "/dev", "/sys"};
	for (size_t i = 0; i < sizeof top / sizeof top[0]; i++) {
		size_t n = strlen(top[i]);
		if (!strncmp(path, top[i], n) && (path[n] == '/' || !path[n]))
			return true;
	}
	return false;
}

bool sbx_grant_followed(const struct policy *p, const char *path, unsigned access, char *real,
			size_t reallen)
{
	char rp[PATH_MAX];
	if (real && reallen)
		real[0] = 0;
	if (!p || !path || path[0] != '/' || kernel_fs(path) || !realpath(path, rp) || !strcmp(rp, path))
		return true;
	if (real && reallen)
		snprintf(real, reallen, "%s", rp);
	unsigned want = access & (POL_READ | POL_WRITE);
	return pol_path(p, rp, want ? want : POL_READ, NULL) == POL_ALLOW;
}
