/* fs.c — interposers for every libc entry point that names a file.
 *
 * Promise: each decides before the real function runs (sbx_check_path), with the access the call
 * can have (open flags / fopen mode: O_WRONLY, O_RDWR, O_CREAT, O_TRUNC, O_APPEND, "w", "a", "+"
 * mean write; unlink, rename (both names), mkdir, rmdir, link (new name), symlink (new name),
 * chmod, chown, utime*, truncate are writes) and the symlink handling the kernel applies
 * (O_NOFOLLOW, O_CREAT|O_EXCL, AT_SYMLINK_NOFOLLOW, lstat, lchown, and the calls that act on the
 * last name itself: the final component is not followed). Metadata calls (stat family, access
 * family, readlink, realpath, O_PATH opens) are SBX_K_META. Listing a directory (opendir, an
 * O_DIRECTORY open) is a read like any other open — the probes see the openat(2) and decide it
 * the same way, so the layers agree.
 * open_by_handle_at() names no path and chroot() changes what every path means: both are
 * refused; name_to_handle_at() is metadata.
 * A denial returns -1/EACCES (fopen/freopen/opendir/realpath: NULL/EACCES) without calling libc.
 */
#undef _FORTIFY_SOURCE
#include "pl.h"
#include "idmap.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <unistd.h>
#include <utime.h>

/* Fortified entry points (declared by bits/fcntl2.h only under _FORTIFY_SOURCE). */
int __open_2(const char *path, int flags);
int __open64_2(const char *path, int flags);
int __openat_2(int dirfd, const char *path, int flags);
int __openat64_2(int dirfd, const char *path, int flags);

#define NEEDS_MODE(f) (((f) & O_CREAT) || ((f) & O_TMPFILE) == O_TMPFILE)

int sbx_check_open(int dirfd, const char *path, int flags)
{
	unsigned acc;
	int am = flags & O_ACCMODE;
	enum sbx_kind kind = SBX_K_DATA;
	unsigned rf = 0;

	if (am == O_RDONLY)
		acc = POL_READ;
	else if (am == O_WRONLY)
		acc = POL_WRITE;
	else
		acc = POL_READ | POL_WRITE;
	if (flags & (O_CREAT | O_TRUNC | O_APPEND))
		acc |= POL_WRITE;
	if (flags & O_PATH) {         /* no data access: what is opened through it is decided then */
		acc = POL_READ;
		kind = SBX_K_META;
	}
	if ((flags & O_NOFOLLOW) || (flags & (O_CREAT | O_EXCL)) == (O_CREAT | O_EXCL))
		rf |= SBX_R_NOFOLLOW;
	return sbx_check_path(SBX_OP_OPEN, dirfd, path, acc, rf, kind);
}

int sbx_check_open_mode(int dirfd, const char *path, int flags, mode_t mode)
{
	if (sbx_check_priv_mode(SBX_OP_OPEN, dirfd, path, POL_PRIV_CREATE, flags, mode))
		return -1;
	return sbx_check_open(dirfd, path, flags);
}

#define GET_MODE(flags, last)                                  \
	mode_t mode = 0;                                        \
	if (NEEDS_MODE(flags)) {                                \
		va_list ap;                                     \
		va_start(ap, last);                             \
		mode = (mode_t)va_arg(ap, int);                 \
		va_end(ap);                                     \
	}

REAL_DECL(open); REAL_DECL(open64); REAL_DECL(openat); REAL_DECL(openat64);
REAL_DECL(__open_2); REAL_DECL(__open64_2); REAL_DECL(__openat_2); REAL_DECL(__openat64_2);
REAL_DECL(creat); REAL_DECL(creat64);

SBX_EXPORT int open(const char *path, int flags, ...)
{
	GET_MODE(flags, flags);
	if (sbx_check_open_mode(AT_FDCWD, path, flags, mode))
		return -1;
	return REAL(open)(path, flags, mode);
}

SBX_EXPORT int open64(const char *path, int flags, ...)
{
	GET_MODE(flags, flags);
	if (sbx_check_open_mode(AT_FDCWD, path, flags, mode))
		return -1;
	return REAL(open64)(path, flags, mode);
}

SBX_EXPORT int openat(int dirfd, const char *path, int flags, ...)
{
	GET_MODE(flags, flags);
	if (sbx_check_open_mode(dirfd, path, flags, mode))
		return -1;
	return REAL(openat)(dirfd, path, flags, mode);
}

SBX_EXPORT int openat64(int dirfd, const char *path, int flags, ...)
{
	GET_MODE(flags, flags);
	if (sbx_check_open_mode(dirfd, path, flags, mode))
		return -1;
	return REAL(openat64)(dirfd, path, flags, mode);
}

SBX_EXPORT int __open_2(const char *path, int flags)
{
	if (sbx_check_open(AT_FDCWD, path, flags))
		return -1;
	return REAL(__open_2)(path, flags);
}

SBX_EXPORT int __open64_2(const char *path, int flags)
{
	if (sbx_check_open(AT_FDCWD, path, flags))
		return -1;
	return REAL(__open64_2)(path, flags);
}

SBX_EXPORT int __openat_2(int dirfd, const char *path, int flags)
{
	if (sbx_check_open(dirfd, path, flags))
		return -1;
	return REAL(__openat_2)(dirfd, path, flags);
}

SBX_EXPORT int __openat64_2(int dirfd, const char *path, int flags)
{
	if (sbx_check_open(dirfd, path, flags))
		return -1;
	return REAL(__openat64_2)(dirfd, path, flags);
}

SBX_EXPORT int creat(const char *path, mode_t mode)
{
	if (sbx_check_open_mode(AT_FDCWD, path, O_WRONLY | O_CREAT | O_TRUNC, mode))
		return -1;
	return REAL(creat)(path, mode);
}

SBX_EXPORT int creat64(const char *path, mode_t mode)
{
	if (sbx_check_open_mode(AT_FDCWD, path, O_WRONLY | O_CREAT | O_TRUNC, mode))
		return -1;
	return REAL(creat64)(path, mode);
}

/* ---- stdio / dirent ----------------------------------------------------------------------------- */

static int fmode_flags(const char *m)
{
	int f = O_RDONLY;
	if (!m)
		return f;
	switch (m[0]) {
	case 'w': f = O_WRONLY | O_CREAT | O_TRUNC; break;
	case 'a': f = O_WRONLY | O_CREAT | O_APPEND; break;
	default: break;
	}
	for (const char *c = m + 1; *c && *c != ','; c++) {
		if (*c == '+')
			f = (f & ~O_ACCMODE) | O_RDWR;
		else if (*c == 'x')
			f |= O_EXCL;
	}
	return f;
}

REAL_DECL(fopen); REAL_DECL(fopen64); REAL_DECL(freopen); REAL_DECL(freopen64); REAL_DECL(opendir);

SBX_EXPORT FILE *fopen(const char *path, const char *mode)
{
	if (sbx_check_open(AT_FDCWD, path, fmode_flags(mode)))
		return NULL;
	return REAL(fopen)(path, mode);
}

SBX_EXPORT FILE *fopen64(const char *path, const char *mode)
{
	if (sbx_check_open(AT_FDCWD, path, fmode_flags(mode)))
		return NULL;
	return REAL(fopen64)(path, mode);
}

/* freopen(NULL, mode, f) reopens f's own file with a new mode: decided on that file. */
static int check_freopen(const char *path, const char *mode, FILE *f)
{
	if (path)
		return sbx_check_open(AT_FDCWD, path, fmode_flags(mode));
	char self[40];
	int fd = f ? fileno(f) : -1;
	if (fd < 0)
		return 0;
	snprintf(self, sizeof self, "/proc/self/fd/%d", fd);
	return sbx_check_open(AT_FDCWD, self, fmode_flags(mode));
}

SBX_EXPORT FILE *freopen(const char *path, const char *mode, FILE *f)
{
	if (check_freopen(path, mode, f))
		return NULL;
	return REAL(freopen)(path, mode, f);
}

SBX_EXPORT FILE *freopen64(const char *path, const char *mode, FILE *f)
{
	if (check_freopen(path, mode, f))
		return NULL;
	return REAL(freopen64)(path, mode, f);
}

SBX_EXPORT DIR *opendir(const char *path)
{
	if (sbx_check_path(SBX_OP_OPENDIR, AT_FDCWD, path, POL_READ, 0, SBX_K_DATA))
		return NULL;
	return REAL(opendir)(path);
}

/* ---- stat / access family --------------------------------------------------------------------- */

#define META(op, dirfd, path, rf) \
	if (sbx_check_path(op, dirfd, path, POL_READ, rf, SBX_K_META)) return -1
#define AT_RF(flags) (((flags) & AT_SYMLINK_NOFOLLOW) ? SBX_R_NOFOLLOW : 0u)

REAL_DECL(stat); REAL_DECL(stat64); REAL_DECL(lstat); REAL_DECL(lstat64);
REAL_DECL(fstatat); REAL_DECL(fstatat64); REAL_DECL(statx);
REAL_DECL(access); REAL_DECL(faccessat); REAL_DECL(eaccess); REAL_DECL(euidaccess);

SBX_EXPORT int stat(const char *path, struct stat *st)
{
	META(SBX_OP_STAT, AT_FDCWD, path, 0);
	return REAL(stat)(path, st);
}

SBX_EXPORT int stat64(const char *path, struct stat64 *st)
{
	META(SBX_OP_STAT, AT_FDCWD, path, 0);
	return REAL(stat64)(path, st);
}

SBX_EXPORT int lstat(const char *path, struct stat *st)
{
	META(SBX_OP_STAT, AT_FDCWD, path, SBX_R_NOFOLLOW);
	return REAL(lstat)(path, st);
}

SBX_EXPORT int lstat64(const char *path, struct stat64 *st)
{
	META(SBX_OP_STAT, AT_FDCWD, path, SBX_R_NOFOLLOW);
	return REAL(lstat64)(path, st);
}

SBX_EXPORT int fstatat(int dirfd, const char *path, struct stat *st, int flags)
{
	META(SBX_OP_STAT, dirfd, path, AT_RF(flags));
	return REAL(fstatat)(dirfd, path, st, flags);
}

SBX_EXPORT int fstatat64(int dirfd, const char *path, struct stat64 *st, int flags)
{
	META(SBX_OP_STAT, dirfd, path, AT_RF(flags));
	return REAL(fstatat64)(dirfd, path, st, flags);
}

SBX_EXPORT int statx(int dirfd, const char *path, int flags, unsigned mask, struct statx *st)
{
	META(SBX_OP_STAT, dirfd, path, AT_RF(flags));
	return REAL(statx)(dirfd, path, flags, mask, st);
}

SBX_EXPORT int access(const char *path, int mode)
{
	META(SBX_OP_ACCESS, AT_FDCWD, path, 0);
	return REAL(access)(path, mode);
}

SBX_EXPORT int faccessat(int dirfd, const char *path, int mode, int flags)
{
	META(SBX_OP_ACCESS, dirfd, path, AT_RF(flags));
	return REAL(faccessat)(dirfd, path, mode, flags);
}

SBX_EXPORT int eaccess(const char *path, int mode)
{
	META(SBX_OP_ACCESS, AT_FDCWD, path, 0);
	return REAL(eaccess)(path, mode);
}

SBX_EXPORT int euidaccess(const char *path, int mode)
{
	META(SBX_OP_ACCESS, AT_FDCWD, path, 0);
	return REAL(euidaccess)(path, mode);
}

/* ---- readlink / realpath ------------------------------------------------------------------------ */

REAL_DECL(readlink); REAL_DECL(readlinkat); REAL_DECL(realpath); REAL_DECL(canonicalize_file_name);

SBX_EXPORT ssize_t readlink(const char *path, char *buf, size_t len)
{
	META(SBX_OP_READLINK, AT_FDCWD, path, SBX_R_NOFOLLOW);
	return REAL(readlink)(path, buf, len);
}

SBX_EXPORT ssize_t readlinkat(int dirfd, const char *path, char *buf, size_t len)
{
	META(SBX_OP_READLINK, dirfd, path, SBX_R_NOFOLLOW);
	return REAL(readlinkat)(dirfd, path, buf, len);
}

SBX_EXPORT char *realpath(const char *path, char *resolved)
{
	if (sbx_check_path(SBX_OP_READLINK, AT_FDCWD, path, POL_READ, 0, SBX_K_META))
		return NULL;
	return REAL(realpath)(path, resolved);
}

SBX_EXPORT char *canonicalize_file_name(const char *path)
{
	if (sbx_check_path(SBX_OP_READLINK, AT_FDCWD, path, POL_READ, 0, SBX_K_META))
		return NULL;
	return REAL(canonicalize_file_name)(path);
}

/* ---- calls that change the file system --------------------------------------------------------- */

#define WRITE(op, dirfd, path, rf) \
	if (sbx_check_path(op, dirfd, path, POL_WRITE, rf, SBX_K_DATA)) return -1
#define NOF SBX_R_NOFOLLOW

REAL_DECL(truncate); REAL_DECL(truncate64); REAL_DECL(mkdir); REAL_DECL(mkdirat); REAL_DECL(rmdir);
REAL_DECL(unlink); REAL_DECL(unlinkat); REAL_DECL(rename); REAL_DECL(renameat); REAL_DECL(renameat2);
REAL_DECL(link); REAL_DECL(linkat); REAL_DECL(symlink); REAL_DECL(symlinkat);
REAL_DECL(chmod); REAL_DECL(lchmod); REAL_DECL(fchmodat); REAL_DECL(chown); REAL_DECL(lchown);
REAL_DECL(fchownat); REAL_DECL(utime); REAL_DECL(utimes); REAL_DECL(lutimes); REAL_DECL(utimensat);
REAL_DECL(futimesat); REAL_DECL(fchmod); REAL_DECL(fchown); REAL_DECL(futimens); REAL_DECL(futimes);
REAL_DECL(mknod); REAL_DECL(mknodat); REAL_DECL(mkfifo); REAL_DECL(mkfifoat);

SBX_EXPORT int truncate(const char *path, off_t len)
{
	WRITE(SBX_OP_TRUNCATE, AT_FDCWD, path, 0);
	return REAL(truncate)(path, len);
}

SBX_EXPORT int truncate64(const char *path, off64_t len)
{
	WRITE(SBX_OP_TRUNCATE, AT_FDCWD, path, 0);
	return REAL(truncate64)(path, len);
}

/* A mkdir of a name that exists: the kernel answers EEXIST before any permission check and nothing
 * is written, so `mkdir -p` or CMake walking down an absolute path through directories outside the
 * grants gets the kernel's answer and is not reported as a write (looked up with the executor's
 * own identity: a directory it cannot search answers no, as the kernel's lookup would fail). */
static int mkdir_taken(int dirfd, const char *path)
{
	struct stat st;
	if (sbx_pl_mode() == SBX_PL_PASSIVE || !path || !path[0] ||
	    sbx_sys(SYS_newfstatat, dirfd, (long)path, (long)&st, AT_SYMLINK_NOFOLLOW, 0, 0) != 0)
		return 0;
	errno = EEXIST;
	return 1;
}

SBX_EXPORT int mkdir(const char *path, mode_t mode)
{
	int saved = errno;
	if (mkdir_taken(AT_FDCWD, path))
		return -1;
	errno = saved;
	WRITE(SBX_OP_MKDIR, AT_FDCWD, path, NOF);
	return REAL(mkdir)(path, mode);
}

SBX_EXPORT int mkdirat(int dirfd, const char *path, mode_t mode)
{
	int saved = errno;
	if (mkdir_taken(dirfd, path))
		return -1;
	errno = saved;
	WRITE(SBX_OP_MKDIR, dirfd, path, NOF);
	return REAL(mkdirat)(dirfd, path, mode);
}

SBX_EXPORT int rmdir(const char *path)
{
	WRITE(SBX_OP_RMDIR, AT_FDCWD, path, NOF);
	return REAL(rmdir)(path);
}

SBX_EXPORT int unlink(const char *path)
{
	WRITE(SBX_OP_UNLINK, AT_FDCWD, path, NOF);
	return REAL(unlink)(path);
}

SBX_EXPORT int unlinkat(int dirfd, const char *path, int flags)
{
	WRITE((flags & AT_REMOVEDIR) ? SBX_OP_RMDIR : SBX_OP_UNLINK, dirfd, path, NOF);
	return REAL(unlinkat)(dirfd, path, flags);
}

SBX_EXPORT int rename(const char *from, const char *to)
{
	WRITE(SBX_OP_RENAME, AT_FDCWD, from, NOF);
	WRITE(SBX_OP_RENAME, AT_FDCWD, to, NOF);
	return REAL(rename)(from, to);
}

SBX_EXPORT int renameat(int fromfd, const char *from, int tofd, const char *to)
{
	WRITE(SBX_OP_RENAME, fromfd, from, NOF);
	WRITE(SBX_OP_RENAME, tofd, to, NOF);
	return REAL(renameat)(fromfd, from, tofd, to);
}

SBX_EXPORT int renameat2(int fromfd, const char *from, int tofd, const char *to, unsigned flags)
{
	WRITE(SBX_OP_RENAME, fromfd, from, NOF);
	WRITE(SBX_OP_RENAME, tofd, to, NOF);
	return REAL(renameat2)(fromfd, from, tofd, to, flags);
}

/* A hard link makes the old file reachable under the new name: the old name must be readable. */
SBX_EXPORT int link(const char *from, const char *to)
{
	if (sbx_check_path(SBX_OP_LINK, AT_FDCWD, from, POL_READ, NOF, SBX_K_DATA))
		return -1;
	WRITE(SBX_OP_LINK, AT_FDCWD, to, NOF);
	return REAL(link)(from, to);
}

SBX_EXPORT int linkat(int fromfd, const char *from, int tofd, const char *to, int flags)
{
	unsigned rf = (flags & AT_SYMLINK_FOLLOW) ? 0u : NOF;
	if (!((flags & AT_EMPTY_PATH) && sbx_launder(from) && !from[0]) &&
	    sbx_check_path(SBX_OP_LINK, fromfd, from, POL_READ, rf, SBX_K_DATA))
		return -1;
	WRITE(SBX_OP_LINK, tofd, to, NOF);
	return REAL(linkat)(fromfd, from, tofd, to, flags);
}

SBX_EXPORT int symlink(const char *target, const char *linkpath)
{
	WRITE(SBX_OP_SYMLINK, AT_FDCWD, linkpath, NOF);
	return REAL(symlink)(target, linkpath);
}

SBX_EXPORT int symlinkat(const char *target, int dirfd, const char *linkpath)
{
	WRITE(SBX_OP_SYMLINK, dirfd, linkpath, NOF);
	return REAL(symlinkat)(target, dirfd, linkpath);
}

SBX_EXPORT int chmod(const char *path, mode_t mode)
{
	if (sbx_check_priv_mode(SBX_OP_CHMOD, AT_FDCWD, path, POL_PRIV_CHMOD, 0, mode))
		return -1;
	WRITE(SBX_OP_CHMOD, AT_FDCWD, path, 0);
	return REAL(chmod)(path, mode);
}

SBX_EXPORT int lchmod(const char *path, mode_t mode)
{
	if (sbx_check_priv_mode(SBX_OP_CHMOD, AT_FDCWD, path, POL_PRIV_CHMOD, 0, mode))
		return -1;
	WRITE(SBX_OP_CHMOD, AT_FDCWD, path, NOF);
	return REAL(lchmod)(path, mode);
}

SBX_EXPORT int fchmodat(int dirfd, const char *path, mode_t mode, int flags)
{
	if (sbx_check_priv_mode(SBX_OP_CHMOD, dirfd, path, POL_PRIV_CHMOD, 0, mode) ||
	    sbx_check_at(SBX_OP_CHMOD, dirfd, path, POL_WRITE, AT_RF(flags), flags))
		return -1;
	return REAL(fchmodat)(dirfd, path, mode, flags);
}

/* Permission and ownership changes through a descriptor are writes of the file it names (a
 * readable root-owned file opened read-only must not become setuid). */
SBX_EXPORT int fchmod(int fd, mode_t mode)
{
	if (sbx_check_priv_mode(SBX_OP_CHMOD, fd, NULL, POL_PRIV_CHMOD, 0, mode) ||
	    sbx_check_fd(SBX_OP_CHMOD, fd, POL_WRITE))
		return -1;
	return REAL(fchmod)(fd, mode);
}

/* Is `id` in this process's user namespace map (/proc/self/uid_map, gid_map)? Read with raw system
 * calls (not through this library's own wrappers); unreadable: true (the kernel's answer stands). */
static bool self_id_mapped(const char *map, uint32_t id)
{
	char buf[1024];
	int fd = (int)sbx_sys(SYS_openat, AT_FDCWD, (long)map, O_RDONLY | O_CLOEXEC, 0, 0, 0);
	if (fd < 0)
		return true;
	long n = sbx_sys(SYS_read, fd, (long)buf, sizeof buf - 1, 0, 0, 0);
	sbx_sys(SYS_close, fd, 0, 0, 0, 0, 0);
	if (n <= 0)
		return true;
	buf[n] = 0;
	return sbx_idmap_has(buf, id);
}

long sbx_chown_errno(long rc, uid_t u, gid_t g)
{
	if (rc != -1 || errno != EINVAL)
		return rc;
	if ((u != (uid_t)-1 && !self_id_mapped("/proc/self/uid_map", u)) ||
	    (g != (gid_t)-1 && !self_id_mapped("/proc/self/gid_map", g)))
		errno = EPERM;
	else
		errno = EINVAL;
	return rc;
}

SBX_EXPORT int fchown(int fd, uid_t u, gid_t g)
{
	if (sbx_check_fd(SBX_OP_CHOWN, fd, POL_WRITE))
		return -1;
	return (int)sbx_chown_errno(REAL(fchown)(fd, u, g), u, g);
}

SBX_EXPORT int futimens(int fd, const struct timespec t[2])
{
	if (sbx_check_fd(SBX_OP_UTIME, fd, POL_WRITE))
		return -1;
	return REAL(futimens)(fd, t);
}

SBX_EXPORT int futimes(int fd, const struct timeval t[2])
{
	if (sbx_check_fd(SBX_OP_UTIME, fd, POL_WRITE))
		return -1;
	return REAL(futimes)(fd, t);
}

SBX_EXPORT int chown(const char *path, uid_t u, gid_t g)
{
	WRITE(SBX_OP_CHOWN, AT_FDCWD, path, 0);
	return (int)sbx_chown_errno(REAL(chown)(path, u, g), u, g);
}

SBX_EXPORT int lchown(const char *path, uid_t u, gid_t g)
{
	WRITE(SBX_OP_CHOWN, AT_FDCWD, path, NOF);
	return (int)sbx_chown_errno(REAL(lchown)(path, u, g), u, g);
}

SBX_EXPORT int fchownat(int dirfd, const char *path, uid_t u, gid_t g, int flags)
{
	if (sbx_check_at(SBX_OP_CHOWN, dirfd, path, POL_WRITE, AT_RF(flags), flags))
		return -1;
	return (int)sbx_chown_errno(REAL(fchownat)(dirfd, path, u, g, flags), u, g);
}

SBX_EXPORT int utime(const char *path, const struct utimbuf *t)
{
	WRITE(SBX_OP_UTIME, AT_FDCWD, path, 0);
	return REAL(utime)(path, t);
}

SBX_EXPORT int utimes(const char *path, const struct timeval t[2])
{
	WRITE(SBX_OP_UTIME, AT_FDCWD, path, 0);
	return REAL(utimes)(path, t);
}

SBX_EXPORT int lutimes(const char *path, const struct timeval t[2])
{
	WRITE(SBX_OP_UTIME, AT_FDCWD, path, NOF);
	return REAL(lutimes)(path, t);
}

/* utimensat(fd, NULL, ...) is futimens(fd): decided on the file fd names. */
SBX_EXPORT int utimensat(int dirfd, const char *path, const struct timespec t[2], int flags)
{
	if (sbx_check_at(SBX_OP_UTIME, dirfd, path, POL_WRITE, AT_RF(flags), flags))
		return -1;
	return REAL(utimensat)(dirfd, path, t, flags);
}

SBX_EXPORT int futimesat(int dirfd, const char *path, const struct timeval t[2])
{
	if (sbx_check_at(SBX_OP_UTIME, dirfd, path, POL_WRITE, 0, 0))
		return -1;
	return REAL(futimesat)(dirfd, path, t);
}

SBX_EXPORT int mknod(const char *path, mode_t mode, dev_t dev)
{
	if (sbx_check_priv_mode(SBX_OP_MKNOD, AT_FDCWD, path, POL_PRIV_MKNOD, 0, mode))
		return -1;
	WRITE(SBX_OP_MKNOD, AT_FDCWD, path, NOF);
	return REAL(mknod)(path, mode, dev);
}

SBX_EXPORT int mknodat(int dirfd, const char *path, mode_t mode, dev_t dev)
{
	if (sbx_check_priv_mode(SBX_OP_MKNOD, dirfd, path, POL_PRIV_MKNOD, 0, mode))
		return -1;
	WRITE(SBX_OP_MKNOD, dirfd, path, NOF);
	return REAL(mknodat)(dirfd, path, mode, dev);
}

SBX_EXPORT int mkfifo(const char *path, mode_t mode)
{
	if (sbx_check_priv_mode(SBX_OP_MKNOD, AT_FDCWD, path, POL_PRIV_MKNOD, 0, mode))
		return -1;
	WRITE(SBX_OP_MKNOD, AT_FDCWD, path, NOF);
	return REAL(mkfifo)(path, mode);
}

SBX_EXPORT int mkfifoat(int dirfd, const char *path, mode_t mode)
{
	if (sbx_check_priv_mode(SBX_OP_MKNOD, dirfd, path, POL_PRIV_MKNOD, 0, mode))
		return -1;
	WRITE(SBX_OP_MKNOD, dirfd, path, NOF);
	return REAL(mkfifoat)(dirfd, path, mode);
}

/* ---- file handles --------------------------------------------------------------------------------- */

/* A handle names a file without a path: open_by_handle_at() cannot be decided, so it is refused.
 * name_to_handle_at() reveals a file's identity like stat(): a metadata access. */
REAL_DECL(name_to_handle_at); REAL_DECL(open_by_handle_at);

SBX_EXPORT int name_to_handle_at(int dirfd, const char *path, struct file_handle *h, int *mnt, int flags)
{
	if (!((flags & AT_EMPTY_PATH) && sbx_launder(path) && !path[0]))
		META(SBX_OP_STAT, dirfd, path, (flags & AT_SYMLINK_FOLLOW) ? 0u : SBX_R_NOFOLLOW);
	return REAL(name_to_handle_at)(dirfd, path, h, mnt, flags);
}

SBX_EXPORT int open_by_handle_at(int mountfd, struct file_handle *h, int flags)
{
	if (sbx_refuse(SBX_OP_OPEN, "(file handle)", (flags & O_ACCMODE) == O_RDONLY ? POL_READ : POL_WRITE))
		return -1;
	return REAL(open_by_handle_at)(mountfd, h, flags);
}

/* chroot changes what every later path means: the preload cannot decide under another root, so
 * the call is refused. */
REAL_DECL(chroot);

SBX_EXPORT int chroot(const char *path)
{
	if (sbx_refuse(SBX_OP_CHROOT, path, POL_READ))
		return -1;
	return REAL(chroot)(path);
}
