/* dirnames.c — see dirnames.h. */
#include "dirnames.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

char **sbx_dir_names(int dirfd, bool (*keep)(const char *name))
{
	int dup = fcntl(dirfd, F_DUPFD_CLOEXEC, 3);
	DIR *d = dup >= 0 ? fdopendir(dup) : NULL;
	if (!d) {
		int e = errno;
		if (dup >= 0)
			close(dup);
		errno = e;
		return NULL;
	}
	size_t n = 0, cap = 16;
	char **v = calloc(cap + 1, sizeof *v);
	struct dirent *e;
	while (v && (e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..") || (keep && !keep(e->d_name)))
			continue;
		if (n == cap) {
			char **nv = realloc(v, (cap * 2 + 1) * sizeof *v);
			if (!nv) {
				sbx_names_free(v);
				v = NULL;
				break;
			}
			v = nv;
			cap *= 2;
		}
		if (!(v[n] = strdup(e->d_name))) {
			sbx_names_free(v);
			v = NULL;
			break;
		}
		v[++n] = NULL;
	}
	closedir(d);
	if (!v) {
		errno = ENOMEM;
		return NULL;
	}
	qsort(v, n, sizeof *v, cmp_str);
	return v;
}

void sbx_names_free(char **v)
{
	for (size_t i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

bool sbx_names_has(char *const *v, const char *name)
{
	size_t n = 0;
	while (v && v[n])
		n++;
	return n && bsearch(&name, v, n, sizeof *v, cmp_str) != NULL;
}
