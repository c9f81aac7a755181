/* resolve.c — path resolution as the kernel does it, before the call is made.
 *
 * Promise: sbx_resolve() turns (dirfd, path) into the canonical absolute path the kernel would
 * reach: the base is "/" for an absolute path, the cwd (getcwd(2)) for AT_FDCWD, else the target
 * of /proc/self/fd/N; then each component is walked: "." skipped, ".." pops the already-resolved
 * (physical) prefix, every symlink is read and spliced in (absolute targets restart at "/"), at
 * most 40 links (ELOOP), the final component not followed under SBX_R_NOFOLLOW (unless the path
 * ends in "/"). /proc magic links behave as links to their target (/proc/self/fd/N, cwd, root,
 * exe); a magic link to a pipe/socket/anon inode names no path (returns 1: the kernel decides).
 * " (deleted)" targets are decided on their former path. Another process's /proc/<pid>/ tree is
 * not followed into (it is decided as the lexical /proc/<pid>/... path the policy denies).
 * /proc/<own pid> (as /proc numbers it: readlink /proc/self) is rewritten to /proc/self. A component that does not exist ends the walk; the
 * rest is joined lexically (O_CREAT, mkdir: the parent is resolved, the new name appended).
 *
 * Cost: no allocation; stack buffers only. A path already proven symlink-free, where neither it
 * nor any ancestor may be written under the policy (so this process cannot plant a link there
 * through libc), is not read again (sbx_pl_dir_*): a second open of a file under /usr costs no
 * system call at all; a new file in a known directory one readlink(2); a relative path getcwd(2)
 * plus one readlink(2) per component not known.
 */
#include "pl.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>

#define MAX_LINKS 40

struct walk {
	char res[PATH_MAX];          /* resolved so far: "" means "/" */
	size_t rlen;
	char rest[PATH_MAX];         /* still to walk */
	pid_t self;                  /* 0 until needed */
};

static int append(struct walk *w, const char *c, size_t n)
{
	if (w->rlen + 1 + n >= PATH_MAX) {
		errno = ENAMETOOLONG;
		return -1;
	}
	w->res[w->rlen++] = '/';
	memcpy(w->res + w->rlen, c, n);
	w->rlen += n;
	w->res[w->rlen] = 0;
	return 0;
}

static void pop(struct walk *w)
{
	while (w->rlen > 0 && w->res[w->rlen - 1] != '/')
		w->rlen--;
	if (w->rlen > 0)
		w->rlen--;
	w->res[w->rlen] = 0;
}

static int set_base(struct walk *w, const char *abs)
{
	size_t n = strlen(abs);
	if (n >= PATH_MAX) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(w->res, abs, n + 1);
	w->rlen = n;
	while (w->rlen > 0 && w->res[w->rlen - 1] == '/')
		w->res[--w->rlen] = 0;
	return 0;
}

/* "/proc/<digits>" followed by "/" or end: returns the pid, or 0. */
static long proc_pid(const char *p, const char **tail)
{
	if (strncmp(p, "/proc/", 6) != 0 || p[6] < '1' || p[6] > '9')
		return 0;
	long v = 0;
	const char *s = p + 6;
	for (; *s >= '0' && *s <= '9'; s++)
		if ((v = v * 10 + (*s - '0')) > 1L << 30)
			return 0;
	if (*s != '/' && *s != 0)
		return 0;
	*tail = s;
	return v;
}

/* Our pid as the mounted /proc numbers it (the executor may live in a pid namespace whose /proc
 * is the parent's: getpid() would not match). */
static pid_t self_pid(struct walk *w)
{
	if (!w->self) {
		char b[24];
		ssize_t n = sbx_readlinkat(AT_FDCWD, "/proc/self", b, sizeof b - 1);
		long v = 0;
		for (ssize_t i = 0; n > 0 && i < n && b[i] >= '0' && b[i] <= '9'; i++)
			v = v * 10 + (b[i] - '0');
		w->self = v > 0 ? (pid_t)v : -1;
	}
	return w->self;
}

static void strip_deleted(char *t, ssize_t *n)
{
	static const char del[] = " (deleted)";
	size_t dl = sizeof del - 1;
	if ((size_t)*n > dl && memcmp(t + *n - dl, del, dl) == 0) {
		*n -= (ssize_t)dl;
		t[*n] = 0;
	}
}

/* Base directory of a relative path. Returns 0, 1 (kernel decides), -1 (errno). */
static int base_of(struct walk *w, int dirfd)
{
	char *buf = w->rest;         /* not in use yet: saves a PATH_MAX of stack */
	if (dirfd == AT_FDCWD) {
		if (sbx_getcwd(buf, PATH_MAX) != 0) {
			if (errno == ENAMETOOLONG)
				return 2;    /* deeper than PATH_MAX: decided by sbx_check_deep */
			errno = EACCES;  /* unreachable cwd: undecidable, fail closed */
			return -1;
		}
		return set_base(w, buf);
	}
	char link[40];
	snprintf(link, sizeof link, "/proc/self/fd/%d", dirfd);
	ssize_t n = sbx_readlinkat(AT_FDCWD, link, buf, PATH_MAX - 1);
	if (n < 0) {
		if (!sbx_fd_valid(dirfd))
			return 1;        /* EBADF from the kernel */
		if (errno == ENAMETOOLONG)
			return 2;        /* a directory deeper than PATH_MAX */
		errno = EACCES;      /* no /proc: cannot decide, fail closed */
		return -1;
	}
	buf[n] = 0;
	if (buf[0] != '/')
		return 1;            /* not a directory: ENOTDIR from the kernel */
	strip_deleted(buf, &n);
	return set_base(w, buf);
}

/* Rewrite /proc/<own pid>... to /proc/self... in place. */
static void rewrite_self(struct walk *w)
{
	const char *tail;
	long pid = proc_pid(w->res, &tail);
	if (!pid || pid != self_pid(w))
		return;
	char tmp[PATH_MAX];
	int n = snprintf(tmp, sizeof tmp, "/proc/self%s", tail);
	if (n > 0 && (size_t)n < sizeof tmp) {
		memcpy(w->res, tmp, (size_t)n + 1);
		w->rlen = (size_t)n;
	}
}

/* Is this (just appended, existing, non-link) path cacheable: parent is "/" or cached, and the
 * policy does not let it be written. */
static void maybe_cache(struct walk *w, size_t parent_len)
{
	if (sbx_pl_mode() != SBX_PL_ENFORCE)
		return;
	if (parent_len != 0 && !sbx_pl_dir_known(w->res, parent_len))
		return;
	struct pol_decision d;
	if (sbx_pol_path(w->res, POL_WRITE, &d) == POL_DENY)
		sbx_pl_dir_add(w->res, w->rlen);
}

/* The next component at or after p (leading slashes skipped): its start, with *end set to the
 * byte after it; NULL when only slashes (or nothing) are left. */
static const char *next_comp(const char *p, const char **end)
{
	while (*p == '/')
		p++;
	if (!*p)
		return NULL;
	*end = strchrnul(p, '/');
	return p;
}

/* The component c[0..n) when it is "." (skipped) or ".." (pops res): applied, true. Any other
 * name: false, w untouched. */
static bool walk_dots(struct walk *w, const char *c, size_t n)
{
	if (n == 1 && c[0] == '.')
		return true;
	if (n == 2 && c[0] == '.' && c[1] == '.') {
		pop(w);
		return true;
	}
	return false;
}

/* Join the unwalked rest lexically onto res. */
static int join_rest(struct walk *w, const char *p)
{
	const char *e;
	while ((p = next_comp(p, &e)) != NULL) {
		size_t n = (size_t)(e - p);
		if (!walk_dots(w, p, n) && append(w, p, n) != 0)
			return -1;
		p = e;
	}
	return 0;
}

static int resolve_walk(int dirfd, const char *path, unsigned rflags, char *out);

int sbx_resolve(int dirfd, const char *path, unsigned rflags, char *out)
{
	int r = resolve_walk(dirfd, path, rflags, out);
	/* a short relative path whose full name would not fit PATH_MAX (a deep base): the kernel
	 * resolves it relative to the base; we cannot name it -> sbx_check_deep */
	if (r < 0 && errno == ENAMETOOLONG && path[0] != '/' && strnlen(path, PATH_MAX) < PATH_MAX)
		return 2;
	return r;
}

static int resolve_walk(int dirfd, const char *path, unsigned rflags, char *out)
{
	struct walk w;
	int links = 0;

	w.self = 0;
	size_t plen = strnlen(path, PATH_MAX);
	if (plen >= PATH_MAX) {
		errno = ENAMETOOLONG;
		return -1;
	}
	if (path[0] == '/') {
		w.res[0] = 0;
		w.rlen = 0;
	} else {
		int r = base_of(&w, dirfd);
		if (r != 0)
			return r;
	}
	memcpy(w.rest, path, plen + 1);
	bool trailing_slash = plen > 0 && path[plen - 1] == '/';

	const char *p = w.rest;
	const char *e;
	while ((p = next_comp(p, &e)) != NULL) {
		size_t n = (size_t)(e - p);
		const char *q = e;
		while (*q == '/')
			q++;
		bool last = *q == 0;
		if (walk_dots(&w, p, n)) {
			p = e;
			continue;
		}
		size_t parent_len = w.rlen;
		if (append(&w, p, n) != 0)
			return -1;
		if (last && (rflags & SBX_R_NOFOLLOW) && !trailing_slash)
			break;
		/* Another process's /proc tree: do not follow into it; decided lexically. */
		const char *tail;
		long pid = proc_pid(w.res, &tail);
		if (pid && pid != self_pid(&w) && *tail == 0) {
			if (join_rest(&w, e) != 0)
				return -1;
			break;
		}
		if (sbx_pl_dir_known(w.res, w.rlen)) {
			p = e;
			continue;
		}
		char t[PATH_MAX];
		ssize_t tn = sbx_readlinkat(AT_FDCWD, w.res, t, sizeof t - 1);
		if (tn < 0) {
			if (errno == EINVAL) {        /* exists, not a link */
				maybe_cache(&w, parent_len);
				p = e;
				continue;
			}
			/* missing or unreadable: the rest is lexical (the kernel fails or creates it) */
			if (join_rest(&w, e) != 0)
				return -1;
			break;
		}
		t[tn] = 0;
		if (++links > MAX_LINKS) {
			errno = ELOOP;
			return -1;
		}
		bool in_proc = strncmp(w.res, "/proc/", 6) == 0;
		if (in_proc && t[0] != '/' && strchr(t, ':'))
			return 1;                     /* magic link to a pipe/socket/anon inode */
		if (in_proc)
			strip_deleted(t, &tn);
		/* new rest = target + "/" + what was left after this component */
		size_t left = strlen(e);
		if ((size_t)tn + 1 + left >= PATH_MAX) {
			errno = ENAMETOOLONG;
			return -1;
		}
		memmove(w.rest + tn + 1, e, left + 1);   /* e points into w.rest: overlap-safe */
		memcpy(w.rest, t, (size_t)tn);
		w.rest[tn] = '/';
		if (t[0] == '/') {
			w.rlen = 0;
			w.res[0] = 0;
		} else {
			pop(&w);
		}
		p = w.rest;
	}
	if (w.rlen == 0) {
		w.res[0] = '/';
		w.res[1] = 0;
		w.rlen = 1;
	}
	rewrite_self(&w);
	memcpy(out, w.res, w.rlen + 1);
	return 0;
}
