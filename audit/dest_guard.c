/* dest_guard.c — see dest_guard.h. */
#include "dest_guard.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "quote.h"

/* The grant that lets the executor do `access` on abs or (POL_WRITE) any ancestor of it, or NULL. */
static const char *granted(const struct policy *pol, const char *abs, unsigned access, bool private_tmp,
			   char *which, size_t wlen)
{
	char p[PATH_MAX];
	snprintf(p, sizeof p, "%s", abs);
	for (;;) {
		struct pol_decision d;
		if (pol_path(pol, p, access, &d) == POL_ALLOW) {
			const char *t = pol_rule_text(pol, d.rule);
			if (!(private_tmp && strncmp(t, "builtin:tmp:", 12) == 0)) {
				snprintf(which, wlen, "%s", p);
				return t;
			}
		}
		if (access != POL_WRITE || strcmp(p, "/") == 0)
			return NULL;
		char *slash = strrchr(p, '/');
		if (slash == p)
			p[1] = '\0';
		else
			*slash = '\0';
	}
}

int dest_paths(const char *dest, char abs[PATH_MAX], char resolved[PATH_MAX])
{
	char cwd[PATH_MAX];
	if (!getcwd(cwd, sizeof cwd) || pol_normalize(cwd, dest, abs, PATH_MAX) < 0)
		return -1;
	resolved[0] = '\0';
	char dir[PATH_MAX], real[PATH_MAX];
	snprintf(dir, sizeof dir, "%s", abs);
	char *slash = strrchr(dir, '/');
	const char *base = slash + 1;
	if (slash == dir)
		dir[1] = '\0';
	else
		*slash = '\0';
	if (realpath(dir, real)) {
		char b[NAME_MAX + 1];
		snprintf(b, sizeof b, "%s", abs + (base - dir));
		if ((size_t)snprintf(resolved, PATH_MAX, "%s%s%s", real, strcmp(real, "/") ? "/" : "", b) >=
		    PATH_MAX)
			resolved[0] = '\0';
	}
	return 0;
}

const char *dest_grant(const struct policy *pol, const char *path, unsigned access, bool private_tmp,
		       char *which, size_t wlen)
{
	char abs[PATH_MAX], res[PATH_MAX];
	if (!pol)
		return NULL;
	if (dest_paths(path, abs, res) < 0) { /* fail closed: what cannot be placed cannot be cleared */
		snprintf(which, wlen, "%s", path);
		return "(the path cannot be made absolute)";
	}
	const char *cand[2] = {abs, res};
	for (int i = 0; i < 2; i++) {
		const char *rule = cand[i][0] ? granted(pol, cand[i], access, private_tmp, which, wlen) : NULL;
		if (rule)
			return rule;
	}
	return NULL;
}

int dest_refuse_writable(const struct policy *pol, const char *path, bool private_tmp, const char *what,
			 char *err, size_t errlen)
{
	char which[PATH_MAX];
	const char *rule = dest_grant(pol, path, POL_WRITE, private_tmp, which, sizeof which);
	if (!rule)
		return 0;
	char q[SBX_Q_MAX];
	snprintf(err, errlen, "refused: the executor can write %s (%s), so it could replace or forge %s; put "
		 "it outside every writable grant (e.g. not in the workspace)", sbx_q(which, q, sizeof q), rule, what);
	return -1;
}

int dest_open(const char *path, int extra_flags, struct stat *st, char *err, size_t errlen)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW | O_NONBLOCK | extra_flags,
		      0600);
	if (fd < 0) {
		int e = errno;
		struct stat lst;
		if (e == ELOOP)
			snprintf(err, errlen, "refused: it is a symbolic link (never followed)");
		else if (lstat(path, &lst) == 0 && !S_ISREG(lst.st_mode))
			snprintf(err, errlen, "refused: not a regular file");
		else
			snprintf(err, errlen, "%s", strerror(e));
		errno = e;
		return -1;
	}
	const char *bad = NULL;
	if (fstat(fd, st) < 0)
		bad = strerror(errno);
	else if (!S_ISREG(st->st_mode))
		bad = "refused: not a regular file";
	else if (st->st_uid != getuid())
		bad = "refused: the file is not owned by the invoking user";
	else if (st->st_nlink != 1)
		bad = "refused: the file has other hard links";
	else if (st->st_mode & 022)
		bad = "refused: the file is group- or world-writable";
	if (bad) {
		snprintf(err, errlen, "%s", bad);
		close(fd);
		return -1;
	}
	int fl = fcntl(fd, F_GETFL);
	if (fl >= 0)
		(void)fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
	return fd;
}
