/* fs_more.c — libc entry points that take a path and do their file-system work with glibc's
 * internal (non-interposable) calls, so they must be decided at their own entry:
 *   mkstemp family, mkdtemp (create: write on the template path), remove (unlink/rmdir),
 *   xattr family (set/remove: write; get/list: metadata), statfs/statvfs (metadata),
 *   scandir(at), and the _FORTIFY_SOURCE variants __readlink_chk, __readlinkat_chk, __realpath_chk.
 *   The directory walkers (glob, nftw/ftw, fts) are in walk.c.
 */
#undef _FORTIFY_SOURCE
#include "pl.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fts.h>
#include <ftw.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/xattr.h>
#include <sys/inotify.h>
#include <sys/fanotify.h>
#include <unistd.h>

#define NOF SBX_R_NOFOLLOW
#define WR(op, path, rf) sbx_check_path(op, AT_FDCWD, path, POL_WRITE, rf, SBX_K_DATA)
#define MT(path, rf) sbx_check_path(SBX_OP_STAT, AT_FDCWD, path, POL_READ, rf, SBX_K_META)
#define RD(op, dirfd, path) sbx_check_path(op, dirfd, path, POL_READ, 0, SBX_K_DATA)

/* ---- temporary files --------------------------------------------------------------------------- */

REAL_DECL(mkstemp); REAL_DECL(mkstemp64); REAL_DECL(mkostemp); REAL_DECL(mkostemp64);
REAL_DECL(mkstemps); REAL_DECL(mkstemps64); REAL_DECL(mkostemps); REAL_DECL(mkostemps64);
REAL_DECL(mkdtemp); REAL_DECL(remove);

SBX_EXPORT int mkstemp(char *t)
{
	if (WR(SBX_OP_OPEN, t, NOF))
		return -1;
	return REAL(mkstemp)(t);
}

SBX_EXPORT int mkstemp64(char *t)
{
	if (WR(SBX_OP_OPEN, t, NOF))
		return -1;
	return REAL(mkstemp64)(t);
}

SBX_EXPORT int mkostemp(char *t, int flags)
{
	if (WR(SBX_OP_OPEN, t, NOF))
		return -1;
	return REAL(mkostemp)(t, flags);
}

SBX_EXPORT int mkostemp64(char *t, int flags)
{
	if (WR(SBX_OP_OPEN, t, NOF))
		return -1;
	return REAL(mkostemp64)(t, flags);
}

SBX_EXPORT int mkstemps(char *t, int suffixlen)
{
	if (WR(SBX_OP_OPEN, t, NOF))
		return -1;
	return REAL(mkstemps)(t, suffixlen);
}

SBX_EXPORT int mkstemps64(char *t, int suffixlen)
{
	if (WR(SBX_OP_OPEN, t, NOF))
		return -1;
	return REAL(mkstemps64)(t, suffixlen);
}

SBX_EXPORT int mkostemps(char *t, int suffixlen, int flags)
{
	if (WR(SBX_OP_OPEN, t, NOF))
		return -1;
	return REAL(mkostemps)(t, suffixlen, flags);
}

SBX_EXPORT int mkostemps64(char *t, int suffixlen, int flags)
{
	if (WR(SBX_OP_OPEN, t, NOF))
		return -1;
	return REAL(mkostemps64)(t, suffixlen, flags);
}

SBX_EXPORT char *mkdtemp(char *t)
{
	if (WR(SBX_OP_MKDIR, t, NOF))
		return NULL;
	return REAL(mkdtemp)(t);
}

SBX_EXPORT int remove(const char *path)
{
	if (WR(SBX_OP_UNLINK, path, NOF))
		return -1;
	return REAL(remove)(path);
}

/* ---- extended attributes, file-system statistics ------------------------------------------------ */

REAL_DECL(setxattr); REAL_DECL(lsetxattr); REAL_DECL(removexattr); REAL_DECL(lremovexattr);
REAL_DECL(getxattr); REAL_DECL(lgetxattr); REAL_DECL(listxattr); REAL_DECL(llistxattr);
REAL_DECL(fsetxattr); REAL_DECL(fremovexattr); REAL_DECL(inotify_add_watch); REAL_DECL(fanotify_mark);
REAL_DECL(statfs); REAL_DECL(statfs64); REAL_DECL(statvfs); REAL_DECL(statvfs64);

SBX_EXPORT int setxattr(const char *path, const char *name, const void *v, size_t n, int flags)
{
	if (sbx_check_priv_xattr(AT_FDCWD, path, name, false) || WR(SBX_OP_XATTR, path, 0))
		return -1;
	return REAL(setxattr)(path, name, v, n, flags);
}

SBX_EXPORT int lsetxattr(const char *path, const char *name, const void *v, size_t n, int flags)
{
	if (sbx_check_priv_xattr(AT_FDCWD, path, name, true) || WR(SBX_OP_XATTR, path, NOF))
		return -1;
	return REAL(lsetxattr)(path, name, v, n, flags);
}

SBX_EXPORT int removexattr(const char *path, const char *name)
{
	if (WR(SBX_OP_XATTR, path, 0))
		return -1;
	return REAL(removexattr)(path, name);
}

SBX_EXPORT int lremovexattr(const char *path, const char *name)
{
	if (WR(SBX_OP_XATTR, path, NOF))
		return -1;
	return REAL(lremovexattr)(path, name);
}

/* Through a descriptor: a write of the file it names (a POSIX ACL on a readable secret). */
SBX_EXPORT int fsetxattr(int fd, const char *name, const void *v, size_t n, int flags)
{
	if (sbx_check_priv_xattr(fd, NULL, name, false) || sbx_check_fd(SBX_OP_XATTR, fd, POL_WRITE))
		return -1;
	return REAL(fsetxattr)(fd, name, v, n, flags);
}

SBX_EXPORT int fremovexattr(int fd, const char *name)
{
	if (sbx_check_fd(SBX_OP_XATTR, fd, POL_WRITE))
		return -1;
	return REAL(fremovexattr)(fd, name);
}

/* ---- file-system watches ------------------------------------------------------------------------ */

/* A watch reports what happens to a file: allowed where the path may be read. */
SBX_EXPORT int inotify_add_watch(int fd, const char *path, uint32_t mask)
{
	if (sbx_check_path(SBX_OP_WATCH, AT_FDCWD, path, POL_READ,
			   (mask & IN_DONT_FOLLOW) ? NOF : 0, SBX_K_DATA))
		return -1;
	return REAL(inotify_add_watch)(fd, path, mask);
}

SBX_EXPORT int fanotify_mark(int fd, unsigned int flags, uint64_t mask, int dirfd, const char *path)
{
	if ((flags & (FAN_MARK_MOUNT | FAN_MARK_FILESYSTEM)) && !(flags & (FAN_MARK_REMOVE | FAN_MARK_FLUSH)) &&
	    sbx_refuse(SBX_OP_WATCH, "(fanotify mount/filesystem mark)", POL_READ))
		return -1; /* a whole mount or file system: no path decision covers it */
	if (!(flags & (FAN_MARK_REMOVE | FAN_MARK_FLUSH)) &&
	    sbx_check_at(SBX_OP_WATCH, dirfd, path, POL_READ,
			 (flags & FAN_MARK_DONT_FOLLOW) ? NOF : 0, 0))
		return -1;
	return REAL(fanotify_mark)(fd, flags, mask, dirfd, path);
}

SBX_EXPORT ssize_t getxattr(const char *path, const char *name, void *v, size_t n)
{
	if (MT(path, 0))
		return -1;
	return REAL(getxattr)(path, name, v, n);
}

SBX_EXPORT ssize_t lgetxattr(const char *path, const char *name, void *v, size_t n)
{
	if (MT(path, NOF))
		return -1;
	return REAL(lgetxattr)(path, name, v, n);
}

SBX_EXPORT ssize_t listxattr(const char *path, char *list, size_t n)
{
	if (MT(path, 0))
		return -1;
	return REAL(listxattr)(path, list, n);
}

SBX_EXPORT ssize_t llistxattr(const char *path, char *list, size_t n)
{
	if (MT(path, NOF))
		return -1;
	return REAL(llistxattr)(path, list, n);
}

SBX_EXPORT int statfs(const char *path, struct statfs *b)
{
	if (MT(path, 0))
		return -1;
	return REAL(statfs)(path, b);
}

SBX_EXPORT int statfs64(const char *path, struct statfs64 *b)
{
	if (MT(path, 0))
		return -1;
	return REAL(statfs64)(path, b);
}

SBX_EXPORT int statvfs(const char *path, struct statvfs *b)
{
	if (MT(path, 0))
		return -1;
	return REAL(statvfs)(path, b);
}

SBX_EXPORT int statvfs64(const char *path, struct statvfs64 *b)
{
	if (MT(path, 0))
		return -1;
	return REAL(statvfs64)(path, b);
}

/* ---- directory walks ---------------------------------------------------------------------------- */

typedef int (*sel_fn)(const struct dirent *);
typedef int (*cmp_fn)(const struct dirent **, const struct dirent **);
typedef int (*sel64_fn)(const struct dirent64 *);
typedef int (*cmp64_fn)(const struct dirent64 **, const struct dirent64 **);

REAL_DECL(scandir); REAL_DECL(scandir64); REAL_DECL(scandirat); REAL_DECL(scandirat64);

SBX_EXPORT int scandir(const char *dir, struct dirent ***list, sel_fn sel, cmp_fn cmp)
{
	if (RD(SBX_OP_OPENDIR, AT_FDCWD, dir))
		return -1;
	return REAL(scandir)(dir, list, sel, cmp);
}

SBX_EXPORT int scandir64(const char *dir, struct dirent64 ***list, sel64_fn sel, cmp64_fn cmp)
{
	if (RD(SBX_OP_OPENDIR, AT_FDCWD, dir))
		return -1;
	return REAL(scandir64)(dir, list, sel, cmp);
}

SBX_EXPORT int scandirat(int dirfd, const char *dir, struct dirent ***list, sel_fn sel, cmp_fn cmp)
{
	if (RD(SBX_OP_OPENDIR, dirfd, dir))
		return -1;
	return REAL(scandirat)(dirfd, dir, list, sel, cmp);
}

SBX_EXPORT int scandirat64(int dirfd, const char *dir, struct dirent64 ***list, sel64_fn sel, cmp64_fn cmp)
{
	if (RD(SBX_OP_OPENDIR, dirfd, dir))
		return -1;
	return REAL(scandirat64)(dirfd, dir, list, sel, cmp);
}

/* ---- _FORTIFY_SOURCE variants of the metadata calls ------------------------------------------------ */

ssize_t __readlink_chk(const char *path, char *buf, size_t len, size_t buflen);
ssize_t __readlinkat_chk(int dirfd, const char *path, char *buf, size_t len, size_t buflen);
char *__realpath_chk(const char *path, char *resolved, size_t resolvedlen);
REAL_DECL(__readlink_chk); REAL_DECL(__readlinkat_chk); REAL_DECL(__realpath_chk);

SBX_EXPORT ssize_t __readlink_chk(const char *path, char *buf, size_t len, size_t buflen)
{
	if (sbx_check_path(SBX_OP_READLINK, AT_FDCWD, path, POL_READ, NOF, SBX_K_META))
		return -1;
	return REAL(__readlink_chk)(path, buf, len, buflen);
}

SBX_EXPORT ssize_t __readlinkat_chk(int dirfd, const char *path, char *buf, size_t len, size_t buflen)
{
	if (sbx_check_path(SBX_OP_READLINK, dirfd, path, POL_READ, NOF, SBX_K_META))
		return -1;
	return REAL(__readlinkat_chk)(dirfd, path, buf, len, buflen);
}

SBX_EXPORT char *__realpath_chk(const char *path, char *resolved, size_t resolvedlen)
{
	if (sbx_check_path(SBX_OP_READLINK, AT_FDCWD, path, POL_READ, 0, SBX_K_META))
		return NULL;
	return REAL(__realpath_chk)(path, resolved, resolvedlen);
}
