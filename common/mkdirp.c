/* mkdirp.c — see mkdirp.h. */
#include "mkdirp.h"

#include <errno.h>
#include <limits.h>
#include <string.h>
#include <sys/stat.h>

int sbx_mkdir_p(const char *path, mode_t mode)
{
	char b[PATH_MAX];
	size_t n = strlen(path);
	if (n >= sizeof b) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(b, path, n + 1);
	for (char *s = b + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = 0;
		if (mkdir(b, mode) < 0 && errno != EEXIST)
			return -1;
		*s = '/';
	}
	return mkdir(b, mode) < 0 && errno != EEXIST ? -1 : 0;
}
