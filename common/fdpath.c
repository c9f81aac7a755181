/* fdpath.c — see fdpath.h. */
#include "fdpath.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define DELETED " (deleted)"

int fd_path(int fd, char *out, size_t outlen)
{
	char p[40];
	if (!outlen) {
		errno = ENAMETOOLONG;
		return -1;
	}
	snprintf(p, sizeof p, "/proc/self/fd/%d", fd);
	ssize_t n = readlink(p, out, outlen);
	if (n < 0)
		return -1;
	if ((size_t)n >= outlen) {
		errno = ENAMETOOLONG;
		return -1;
	}
	out[n] = 0;
	return 0;
}

void path_drop_deleted(char *path)
{
	size_t n = strlen(path), dl = strlen(DELETED);
	if (n > dl && !strcmp(path + n - dl, DELETED))
		path[n - dl] = 0;
}
