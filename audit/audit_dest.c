/* audit_dest.c — see audit_dest.h. */
#include "audit_dest.h"
#include "audit_int.h"
#include "dest_guard.h"

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

#include "quote.h"

__attribute__((format(printf, 3, 4)))
static int refuse(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -1;
}

static int check_path(const struct audit_run_cfg *c, char *err, size_t errlen)
{
	return dest_refuse_writable(c->pol, c->dest, c->private_tmp, "the audit stream", err, errlen);
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
	struct stat st;
	int fd = dest_open(c->dest, O_APPEND, &st, err, errlen);
	if (fd < 0)
		return -1;
	char abs[PATH_MAX], res[PATH_MAX];
	if (dest_paths(c->dest, abs, res) < 0 || !(a->path = strdup(res[0] ? res : abs))) {
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
		char which[PATH_MAX], qk[SBX_Q_MAX], qw[SBX_Q_MAX];
		sbx_q(kpath, qk, sizeof qk);
		/* readable, or in a writable directory (a path-based deny of the key is no help there:
		 * the executor renames a parent and reads it under another name) */
		const char *rule = dest_grant(c->pol, kpath, POL_READ, false, which, sizeof which);
		if (rule)
			return refuse(err, errlen, "refused: the executor could read the audit key %s (%s)",
				      qk, rule);
		if ((rule = dest_grant(c->pol, kpath, POL_WRITE, c->private_tmp, which, sizeof which)))
			return refuse(err, errlen, "refused: the executor could read the audit key %s (it "
				      "could move it: %s is writable, %s)", qk, sbx_q(which, qw, sizeof qw), rule);
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
