/* syspaths.c — what is never writable (contract: syspaths.h). */
#include "syspaths.h"

#include <stdio.h>
#include <string.h>

#include "policy.h"
#include "policy_format.h"

static const char *const sys_paths[] = {
	"/usr", "/bin", "/sbin", "/lib", "/lib64", "/lib32", "/opt", "/var/lib/python3", NULL,
};
/* never writable: the system paths, then /etc (readable except its secrets) */
static const char *const etc_path = "/etc";

const char *sys_path(size_t i)
{
	return i < sizeof sys_paths / sizeof sys_paths[0] ? sys_paths[i] : NULL;
}

const char *never_writable(size_t i)
{
	size_t n = sizeof sys_paths / sizeof sys_paths[0] - 1;
	return i < n ? sys_paths[i] : i == n ? etc_path : NULL;
}

bool path_under(const char *path, const char *dir)
{
	size_t n = dir ? strlen(dir) : 0;
	if (!path || !n)
		return false;
	if (n == 1 && dir[0] == '/')
		return path[0] == '/';
	return strncmp(path, dir, n) == 0 && (path[n] == '/' || path[n] == '\0');
}

/* Does some path at or below `root` match `glob`? The glob matches root itself, or one of its
 * leading parts (cut at a '/') matches root and the rest can match the path's remainder (any glob
 * component matches some name). */
static bool glob_reaches(const char *glob, const char *root)
{
	char buf[POL_GLOB_MAX + 1];
	size_t n = strlen(glob);
	if (pol_glob_match(glob, root))
		return true;
	if (n > POL_GLOB_MAX)
		return true; /* cannot tell: say it may */
	for (size_t i = 1; i < n; i++) {
		if (glob[i] != '/')
			continue;
		memcpy(buf, glob, i);
		buf[i] = '\0';
		if (pol_glob_match(buf, root))
			return true;
	}
	return false;
}

size_t sys_write_conflicts(const char *glob, const char *workspace, char *out, size_t len)
{
	size_t k = 0, o = 0;
	if (out && len)
		out[0] = '\0';
	if (!glob || glob[0] != '/')
		return 0;
	size_t lp = pol_glob_literal_prefix(glob);
	if (workspace && workspace[0] == '/' && strcmp(workspace, "/") != 0) {
		size_t wl = strlen(workspace);
		if (lp >= wl && strncmp(glob, workspace, wl) == 0 && (glob[wl] == '/' || glob[wl] == '\0'))
			return 0;
	}
	for (size_t i = 0; never_writable(i); i++) {
		if (!glob_reaches(glob, never_writable(i)))
			continue;
		k++;
		if (out && o < len) {
			int w = snprintf(out + o, len - o, "%s%s", o ? " " : "", never_writable(i));
			o += w > 0 ? (size_t)w : 0;
		}
	}
	return k;
}

const char *learn_write_refused(const char *path, const char *home)
{
	static const char *const more[] = {"/boot", "/var/lib", "/root", NULL};
	if (!path || path[0] != '/' || !path[1])
		return "the root directory: never proposed";
	for (size_t i = 0; never_writable(i); i++)
		if (path_under(path, never_writable(i)))
			return "a system path: never writable";
	for (size_t i = 0; more[i]; i++)
		if (path_under(path, more[i]))
			return "a system path: never proposed for writing";
	if (!strncmp(path, "/lib", 4))
		return "a system path: never writable";
	if (path_under(path, "/home") && !(home && home[0] == '/' && home[1] && path_under(path, home)))
		return "another user's home: never proposed for writing";
	return NULL;
}
