/* audit_dest.c — see audit_dest.h. */
#include "audit_dest.h"
#include "audit_int.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sodium.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

__attribute__((format(printf, 3, 4)))
static int refuse(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

/* The grant (rule text) that lets the executor do `access` on abs or any ancestor of it
 * (ancestors only for WRITE: whoever can write a directory can rename what is in it), or NULL. */
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

/* abs (lexical) and the same path with its directory resolved by realpath (resolved[0] = 0 when
 * the directory does not exist: the open will fail and say so). */
static int paths_of(const char *dest, char abs[PATH_MAX], char resolved[PATH_MAX])
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

static int check_path(const struct audit_run_cfg *c, char *err, size_t errlen)
{
	char abs[PATH_MAX], res[PATH_MAX], which[PATH_MAX];
	if (paths_of(c->dest, abs, res) < 0)
		return refuse(err, errlen, "cannot make the path absolute: %s", strerror(errno));
	const char *cand[2] = {abs, res};
	for (int i = 0; i < 2; i++) {
		if (!cand[i][0] || !c->pol)
			continue;
		const char *rule = granted(c->pol, cand[i], POL_WRITE, c->private_tmp, which, sizeof which);
		if (rule)
			return refuse(err, errlen,
				      "refused: the executor can write %s (%s), so it could replace or forge "
				      "the stream; put the audit file outside every writable grant (e.g. not in "
				      "the workspace)", which, rule);
	}
	return 0;
}

static bool same_file(int fd, int other)
{
	struct stat a, b;
	return fstat(fd, &a) == 0 && fstat(other, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

static int check_fd_dest(const struct audit_run_cfg *c, const char *dest, char *err, size_t errlen)
{
	char *end;
	errno = 0;
	long n = strtol(dest + 3, &end, 10);
	if (errno || end == dest + 3 || *end || n < 0 || n > INT_MAX)
		return 0; /* audit_open says what is wrong with it */
	if (n <= 2)
		return refuse(err, errlen, "refused: descriptor %ld is the executor's %s, which could forge "
			      "lines into the stream; use another descriptor", n,
			      n == 0 ? "stdin" : n == 1 ? "stdout" : "stderr");
	for (int s = 0; s <= 2; s++)
		if (same_file((int)n, s))
			return refuse(err, errlen, "refused: descriptor %ld names the same file or pipe as the "
				      "executor's %s, which could forge lines into the stream", n,
				      s == 0 ? "stdin" : s == 1 ? "stdout" : "stderr");
	/* a regular file: the same rule as for a path (the executor must not be able to write it) */
	struct stat st;
	char link[64], path[PATH_MAX];
	snprintf(link, sizeof link, "/proc/self/fd/%ld", n);
	ssize_t k;
	if (fstat((int)n, &st) == 0 && S_ISREG(st.st_mode) && (k = readlink(link, path, sizeof path - 1)) > 0 &&
	    path[0] == '/') {
		path[k] = '\0';
		struct audit_run_cfg pc = *c;
		pc.dest = path;
		return check_path(&pc, err, errlen);
	}
	return 0;
}

static int open_file(struct audit *a, const struct audit_run_cfg *c, char *err, size_t errlen)
{
	if (check_path(c, err, errlen) < 0)
		return -1;
	int fd = open(c->dest, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW | O_NONBLOCK,
		      0600);
	if (fd < 0) {
		int e = errno;
		struct stat lst;
		if (e == ELOOP)
			return refuse(err, errlen, "refused: it is a symbolic link (never followed)");
		if (lstat(c->dest, &lst) == 0 && !S_ISREG(lst.st_mode))
			return refuse(err, errlen, "refused: not a regular file");
		errno = e;
		return refuse(err, errlen, "%s", strerror(errno));
	}
	struct stat st;
	const char *bad = NULL;
	if (fstat(fd, &st) < 0)
		bad = strerror(errno);
	else if (!S_ISREG(st.st_mode))
		bad = "refused: not a regular file";
	else if (st.st_uid != getuid())
		bad = "refused: the file is not owned by the invoking user";
	else if (st.st_nlink != 1)
		bad = "refused: the file has other hard links";
	else if (st.st_mode & 022)
		bad = "refused: the file is group- or world-writable";
	if (bad) {
		close(fd);
		return refuse(err, errlen, "%s", bad);
	}
	int fl = fcntl(fd, F_GETFL);
	if (fl >= 0)
		(void)fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
	char abs[PATH_MAX], res[PATH_MAX];
	if (paths_of(c->dest, abs, res) < 0 || !(a->path = strdup(res[0] ? res : abs))) {
		close(fd);
		return refuse(err, errlen, "out of memory");
	}
	a->fd = fd;
	a->dev = st.st_dev;
	a->ino = st.st_ino;
	return 0;
}

/* The host key, after asking the policy whether the executor could read it (before creating it). */
static int load_key(struct audit *a, const struct audit_run_cfg *c, char *err, size_t errlen)
{
	struct audit_key k;
	char dir[PATH_MAX], kpath[PATH_MAX + 16], msg[600];
	if (audit_key_dir(dir, sizeof dir, msg, sizeof msg) < 0)
		return refuse(err, errlen, "%s", msg);
	snprintf(kpath, sizeof kpath, "%s/%s", dir, AUDIT_KEY_FILE);
	if (c->pol) {
		char abs[PATH_MAX], res[PATH_MAX], which[PATH_MAX];
		if (paths_of(kpath, abs, res) < 0)
			return refuse(err, errlen, "audit key %s: %s", kpath, strerror(errno));
		const char *cand[2] = {abs, res};
		/* readable, or in a writable directory (a path-based deny of the key is no help there:
		 * the executor renames a parent and reads it under another name) */
		for (int i = 0; i < 2; i++) {
			if (!cand[i][0])
				continue;
			const char *rule = granted(c->pol, cand[i], POL_READ, false, which, sizeof which);
			if (rule)
				return refuse(err, errlen, "refused: the executor could read the audit key %s (%s)",
					      kpath, rule);
			if ((rule = granted(c->pol, cand[i], POL_WRITE, c->private_tmp, which, sizeof which)))
				return refuse(err, errlen, "refused: the executor could read the audit key %s (it "
					      "could move it: %s is writable, %s)", kpath, which, rule);
		}
	}
	if (audit_key_host(&k, true, NULL, 0, msg, sizeof msg) < 0)
		return refuse(err, errlen, "%s", msg);
	audit_set_key(a, &k);
	sodium_memzero(&k, sizeof k);
	return 0;
}

int audit_run_open(struct audit *a, const struct audit_run_cfg *c, char *err, size_t errlen)
{
	const char *d = c->dest;
	if (d && strcmp(d, "-") == 0) {
		memset(a, 0, sizeof *a);
		a->fd = -1;
		return refuse(err, errlen, "refused: \"-\" would share sbxsup's stderr with the executor, which "
			      "could forge lines into the stream; use -a FILE or -a fd:N (N > 2)");
	}
	if (d && strncmp(d, "fd:", 3) == 0 && check_fd_dest(c, d, err, errlen) < 0) {
		memset(a, 0, sizeof *a);
		a->fd = -1;
		return -1;
	}
	bool file = d && *d && strncmp(d, "fd:", 3) != 0;
	/* a file is opened here, the rest by the writer */
	if (audit_open(a, file ? NULL : d, c->executor, err, errlen) < 0)
		return -1;
	if (!d)
		return 0;
	if ((file && open_file(a, c, err, errlen) < 0) || load_key(a, c, err, errlen) < 0 ||
	    audit_set_flow(a, c->budget_mb) < 0) {
		if (!err[0])
			refuse(err, errlen, "out of memory");
		audit_close(a);
		return -1;
	}
	return 0;
}
