/* grant_nest.c — see grant_nest.h. */
#include "grant_nest.h"

#include <string.h>
#include <sys/stat.h>

bool sbx_wr_inside(const char *outer, const char *path)
{
	size_t n = strlen(outer);
	struct stat a, b;
	return strcmp(outer, path) && !strncmp(outer, path, n) && path[n] == '/' && stat(outer, &a) == 0 &&
	       stat(path, &b) == 0 && S_ISDIR(b.st_mode) && a.st_uid == b.st_uid && a.st_gid == b.st_gid &&
	       a.st_dev == b.st_dev;
}
