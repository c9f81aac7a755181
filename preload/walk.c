/* walk.c — the directory walkers glibc implements with internal (non-interposable) calls: glob,
 * nftw/ftw and fts.
 *
 * Promise: a walk reveals no more than the same program would see by calling opendir(3) itself,
 * directory by directory, through workspace symlinks included:
 *   - glob: every directory glob lists is opened through our opendir (GLOB_ALTDIRFUNC with the
 *     interposed opendir/stat/lstat), so each is decided like a direct call; a refused directory
 *     is an unreadable one for glob (its error callback, GLOB_ERR). A caller that brings its own
 *     GLOB_ALTDIRFUNC functions keeps them (its opendir is decided when it is libc's, interposed).
 *   - nftw/ftw: the root is decided before the walk; then each directory is decided when the walk
 *     reports it (FTW_D: refused -> reported, handed to the callback as FTW_DNR, its subtree
 *     skipped), and an entry is handed to the callback only when the directory that listed it may
 *     be read (covers FTW_DEPTH, where a directory comes after its contents). The caller's
 *     FTW_ACTIONRETVAL or plain return values are preserved.
 *   - fts: roots decided at fts_open; fts_read decides each FTS_D before fts lists it (refused:
 *     FTS_DNR with fts_errno set, FTS_SKIP) and drops entries of a directory that may not be read.
 * Decisions follow symbolic links as the walk does (a directory reached through a link in the
 * workspace is decided on its target). Each refused directory is reported once per walk step.
 */
#undef _FORTIFY_SOURCE
#include "pl.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fts.h>
#include <ftw.h>
#include <glob.h>
#include <string.h>
#include <sys/stat.h>

#define RD(op, dirfd, path) sbx_check_path(op, dirfd, path, POL_READ, 0, SBX_K_DATA)

REAL_DECL(glob); REAL_DECL(glob64); REAL_DECL(nftw); REAL_DECL(nftw64); REAL_DECL(ftw);
REAL_DECL(ftw64); REAL_DECL(fts_open); REAL_DECL(fts64_open); REAL_DECL(fts_read);
REAL_DECL(fts64_read); REAL_DECL(readdir); REAL_DECL(readdir64); REAL_DECL(closedir);

/* ---- glob ------------------------------------------------------------------------------------------ */

static void *glob_opendir(const char *dir) { return opendir(dir); }          /* interposed */
static struct dirent *glob_readdir(void *d) { return REAL(readdir)(d); }
static struct dirent64 *glob_readdir64(void *d) { return REAL(readdir64)(d); }
static void glob_closedir(void *d) { REAL(closedir)(d); }
static int glob_stat(const char *p, struct stat *st) { return stat(p, st); }  /* interposed */
static int glob_lstat(const char *p, struct stat *st) { return lstat(p, st); }
static int glob_stat64(const char *p, struct stat64 *st) { return stat64(p, st); }
static int glob_lstat64(const char *p, struct stat64 *st) { return lstat64(p, st); }

SBX_EXPORT int glob(const char *pattern, int flags, int (*err)(const char *, int), glob_t *g)
{
	if (sbx_pl_passive() || !g || (flags & GLOB_ALTDIRFUNC))
		return REAL(glob)(pattern, flags, err, g);
	g->gl_opendir = glob_opendir;
	g->gl_readdir = glob_readdir;
	g->gl_closedir = glob_closedir;
	g->gl_stat = glob_stat;
	g->gl_lstat = glob_lstat;
	return REAL(glob)(pattern, flags | GLOB_ALTDIRFUNC, err, g);
}

SBX_EXPORT int glob64(const char *pattern, int flags, int (*err)(const char *, int), glob64_t *g)
{
	if (sbx_pl_passive() || !g || (flags & GLOB_ALTDIRFUNC))
		return REAL(glob64)(pattern, flags, err, g);
	g->gl_opendir = glob_opendir;
	g->gl_readdir = glob_readdir64;
	g->gl_closedir = glob_closedir;
	g->gl_stat = glob_stat64;
	g->gl_lstat = glob_lstat64;
	return REAL(glob64)(pattern, flags | GLOB_ALTDIRFUNC, err, g);
}

/* ---- shared: may the directory that listed `path` (its first `dirlen` bytes) be read? --------- */

/* The last directory refused in this thread's current walk (FNV-1a hash; 0 = none), so that its
 * entries are dropped without one report each. A collision can only hide an entry (never show
 * one). Initial-exec TLS: no __tls_get_addr, nothing allocated per thread beyond 16 bytes. */
#define SBX_TLS __attribute__((tls_model("initial-exec")))
static __thread uint64_t walk_denied SBX_TLS;

static uint64_t path_hash(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ull;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
	return h | 1;
}

static bool dir_readable(const char *path, size_t dirlen)
{
	char dir[PATH_MAX];
	if (dirlen == 0)
		return true;
	if (dirlen >= sizeof dir)
		dirlen = sizeof dir - 1;
	memcpy(dir, path, dirlen);
	dir[dirlen] = 0;
	while (dirlen > 1 && dir[dirlen - 1] == '/')
		dir[--dirlen] = 0;
	uint64_t h = path_hash(dir, dirlen);
	if (walk_denied == h)
		return false;
	int saved = errno;
	int r = RD(SBX_OP_OPENDIR, AT_FDCWD, dir);
	errno = saved;
	if (r != 0) {
		walk_denied = h;
		return false;
	}
	return true;
}

/* A directory the walk is about to list: 0, or -1 (refused, reported, errno set). */
static int dir_check(const char *path)
{
	size_t n = strlen(path);
	while (n > 1 && path[n - 1] == '/')
		n--;
	uint64_t h = path_hash(path, n);
	if (walk_denied == h) {
		errno = EACCES;
		return -1;
	}
	int r = RD(SBX_OP_OPENDIR, AT_FDCWD, path);
	if (r != 0)
		walk_denied = h;
	return r;
}

/* ---- nftw / ftw ------------------------------------------------------------------------------------ */

struct walk_state {
	__nftw_func_t nfn;
	__nftw64_func_t nfn64;
	__ftw_func_t fn;
	__ftw64_func_t fn64;
	int flags;       /* the caller's */
	int ret;         /* the caller's non-zero return that stopped the walk */
};
static __thread struct walk_state *walk_cur SBX_TLS;

/* One entry: 1 = hand it to the caller (with *type possibly FTW_DNR), 0 = drop it; *skip set when
 * its subtree must not be walked. */
static int walk_filter(const char *path, int *type, const struct FTW *f, bool *skip)
{
	*skip = false;
	if (f->level > 0 && !dir_readable(path, (size_t)f->base))
		return 0;
	if (*type == FTW_D && f->level > 0 && dir_check(path) != 0) {
		*type = FTW_DNR;
		*skip = true;
	}
	return 1;
}

/* The caller's return value -> ours (FTW_ACTIONRETVAL is always on for glibc). */
static int walk_ret(struct walk_state *w, int r, bool skip)
{
	if (w->flags & FTW_ACTIONRETVAL)
		return r == FTW_CONTINUE && skip ? FTW_SKIP_SUBTREE : r;
	if (r != 0) {
		w->ret = r;
		return FTW_STOP;
	}
	return skip ? FTW_SKIP_SUBTREE : FTW_CONTINUE;
}

static int nftw_cb(const char *path, const struct stat *sb, int type, struct FTW *f)
{
	struct walk_state *w = walk_cur;
	bool skip;
	if (!walk_filter(path, &type, f, &skip))
		return FTW_CONTINUE;
	int r = w->nfn ? w->nfn(path, sb, type, f) : w->fn(path, sb, type);
	return walk_ret(w, r, skip);
}

static int nftw64_cb(const char *path, const struct stat64 *sb, int type, struct FTW *f)
{
	struct walk_state *w = walk_cur;
	bool skip;
	if (!walk_filter(path, &type, f, &skip))
		return FTW_CONTINUE;
	int r = w->nfn64 ? w->nfn64(path, sb, type, f) : w->fn64(path, sb, type);
	return walk_ret(w, r, skip);
}

/* Runs the walk with our callback; the caller's return value when it stopped it. */
static int walk_run(struct walk_state *w, const char *dir, int nfd, bool is64)
{
	struct walk_state *outer = walk_cur;     /* a walk started from inside a callback */
	walk_cur = w;
	walk_denied = 0;
	int flags = w->flags | FTW_ACTIONRETVAL;
	int r = is64 ? REAL(nftw64)(dir, nftw64_cb, nfd, flags) : REAL(nftw)(dir, nftw_cb, nfd, flags);
	walk_cur = outer;
	walk_denied = 0;
	if (!(w->flags & FTW_ACTIONRETVAL) && r == FTW_STOP)
		return w->ret;
	return r;
}

SBX_EXPORT int nftw(const char *dir, __nftw_func_t fn, int nfd, int flags)
{
	if (RD(SBX_OP_OPENDIR, AT_FDCWD, dir))
		return -1;
	if (sbx_pl_passive())
		return REAL(nftw)(dir, fn, nfd, flags);
	struct walk_state w = { .nfn = fn, .flags = flags };
	return walk_run(&w, dir, nfd, false);
}

SBX_EXPORT int nftw64(const char *dir, __nftw64_func_t fn, int nfd, int flags)
{
	if (RD(SBX_OP_OPENDIR, AT_FDCWD, dir))
		return -1;
	if (sbx_pl_passive())
		return REAL(nftw64)(dir, fn, nfd, flags);
	struct walk_state w = { .nfn64 = fn, .flags = flags };
	return walk_run(&w, dir, nfd, true);
}

/* ftw(dir, fn, nfd) is nftw with no flags and a callback without the FTW argument. */
SBX_EXPORT int ftw(const char *dir, __ftw_func_t fn, int nfd)
{
	if (RD(SBX_OP_OPENDIR, AT_FDCWD, dir))
		return -1;
	if (sbx_pl_passive())
		return REAL(ftw)(dir, fn, nfd);
	struct walk_state w = { .fn = fn };
	return walk_run(&w, dir, nfd, false);
}

SBX_EXPORT int ftw64(const char *dir, __ftw64_func_t fn, int nfd)
{
	if (RD(SBX_OP_OPENDIR, AT_FDCWD, dir))
		return -1;
	if (sbx_pl_passive())
		return REAL(ftw64)(dir, fn, nfd);
	struct walk_state w = { .fn64 = fn };
	return walk_run(&w, dir, nfd, true);
}

/* ---- fts ---------------------------------------------------------------------------------------- */

static int check_roots(char *const *paths)
{
	for (size_t i = 0; paths && paths[i]; i++)
		if (RD(SBX_OP_OPENDIR, AT_FDCWD, paths[i]))
			return -1;
	return 0;
}

SBX_EXPORT FTS *fts_open(char *const *paths, int options, int (*cmp)(const FTSENT **, const FTSENT **))
{
	if (check_roots(paths))
		return NULL;
	return REAL(fts_open)(paths, options, cmp);
}

SBX_EXPORT FTS64 *fts64_open(char *const *paths, int options, int (*cmp)(const FTSENT64 **, const FTSENT64 **))
{
	if (check_roots(paths))
		return NULL;
	return REAL(fts64_open)(paths, options, cmp);
}

/* fts lists a directory on the fts_read after the one that returned it as FTS_D: decide it then. */
#define FTS_READ_BODY(real, set, ent_t)                                                             \
	for (;;) {                                                                               \
		ent_t *e = real(ftsp);                                                           \
		if (!e || sbx_pl_passive())                                                      \
			return e;                                                                \
		size_t dl = e->fts_pathlen > e->fts_namelen ? e->fts_pathlen - e->fts_namelen : 0; \
		if (e->fts_level > 0 && !dir_readable(e->fts_path, dl)) {                        \
			if (e->fts_info == FTS_D)                                                \
				set(ftsp, e, FTS_SKIP);                      \
			continue;                                                                \
		}                                                                                \
		if (e->fts_info == FTS_D && e->fts_level > 0) {                                  \
			int saved = errno;                                                       \
			if (dir_check(e->fts_path) != 0) {                                       \
				e->fts_errno = errno;                                            \
				e->fts_info = FTS_DNR;                                           \
				set(ftsp, e, FTS_SKIP);                      \
			}                                                                        \
			errno = saved;                                                           \
		}                                                                                \
		return e;                                                                        \
	}

SBX_EXPORT FTSENT *fts_read(FTS *ftsp)
{
	FTS_READ_BODY(REAL(fts_read), fts_set, FTSENT)
}

SBX_EXPORT FTSENT64 *fts64_read(FTS64 *ftsp)
{
	FTS_READ_BODY(REAL(fts64_read), fts64_set, FTSENT64)
}
