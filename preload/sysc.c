/* sysc.c — syscall(2) called through libc for a path or network system call.
 *
 * Promise: syscall(SYS_open/openat/openat2/creat/execve/execveat/connect/sendto/sendmsg/
 * sendmmsg/bind/stat family/access family/unlink/rename/mkdir/rmdir/link/symlink/chmod/chown/
 * truncate/utime(s)/utimensat/readlink/mknod, fchmod/fchown/xattr family/inotify_add_watch/
 * fanotify_mark, close/close_range/dup2/dup3) is decided exactly like the libc
 * wrapper of the same call (same access, same symlink handling, same errno, same report), and
 * exec goes through the exec interposers (so the environment is repaired too). Every other number
 * is passed through untouched. A raw `syscall` instruction is not seen here — that is what the
 * kernel layers and the probes are for.
 */
#undef _FORTIFY_SOURCE
#include "pl.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/openat2.h>
#include <sys/fanotify.h>
#include <sys/inotify.h>

#define NOF SBX_R_NOFOLLOW
#define P(x) ((const char *)(x))
#define AT_RF(flags) (((flags) & AT_SYMLINK_NOFOLLOW) ? NOF : 0u)

static int meta(unsigned op, long dirfd, long path, unsigned rf)
{
	return sbx_check_path(op, (int)dirfd, P(path), POL_READ, rf, SBX_K_META);
}

static int wr(unsigned op, long dirfd, long path, unsigned rf)
{
	return sbx_check_path(op, (int)dirfd, P(path), POL_WRITE, rf, SBX_K_DATA);
}

/* the privilege guard for a mode register (0 or -1) */
#define PRIV(op, dirfd, path, call, mode) \
	sbx_check_priv_mode(op, (int)(dirfd), P(path), call, 0, (mode_t)(mode))

/* 0: pass through; -1: denied (errno set). */
static int decide(long nr, long a[6])
{
	switch (nr) {
#ifdef SYS_open
	case SYS_open: return sbx_check_open_mode(AT_FDCWD, P(a[0]), (int)a[1], (mode_t)a[2]);
#endif
#ifdef SYS_creat
	case SYS_creat: return sbx_check_open_mode(AT_FDCWD, P(a[0]), O_WRONLY | O_CREAT | O_TRUNC, (mode_t)a[1]);
#endif
	case SYS_openat: return sbx_check_open_mode((int)a[0], P(a[1]), (int)a[2], (mode_t)a[3]);
#ifdef SYS_openat2
	case SYS_openat2: {
		const struct open_how *how = (const struct open_how *)a[2];
		if (!how || (size_t)a[3] < sizeof(struct open_how))
			return 0;   /* EINVAL / EFAULT from the kernel */
		/* RESOLVE_IN_ROOT makes the kernel resolve under dirfd as "/": not the walk the
		 * decision is made on, so it is refused (RESOLVE_BENEATH and the others only make
		 * the kernel stricter). */
		if (how->resolve & RESOLVE_IN_ROOT)
			return sbx_refuse(SBX_OP_OPEN, P(a[1]), POL_READ);
		return sbx_check_open_mode((int)a[0], P(a[1]), (int)how->flags, (mode_t)how->mode);
	}
#endif
	case SYS_socket: return sbx_check_socket((int)a[0], (int)a[1], (int)a[2]);
	case SYS_connect: return sbx_check_sockaddr(SBX_OP_CONNECT, (const void *)a[1], (socklen_t)a[2]);
	case SYS_bind: return sbx_check_sockaddr(SBX_OP_BIND, (const void *)a[1], (socklen_t)a[2]);
	case SYS_sendto:
		return a[4] ? sbx_check_sockaddr(SBX_OP_SENDTO, (const void *)a[4], (socklen_t)a[5]) : 0;
	case SYS_sendmsg: {
		const struct msghdr *m = (const struct msghdr *)a[1];
		return m && m->msg_name ? sbx_check_sockaddr(SBX_OP_SENDTO, m->msg_name, m->msg_namelen) : 0;
	}
	case SYS_sendmmsg: {
		const struct mmsghdr *v = (const struct mmsghdr *)a[1];
		for (unsigned i = 0; v && i < (unsigned)a[2]; i++)
			if (v[i].msg_hdr.msg_name &&
			    sbx_check_sockaddr(SBX_OP_SENDTO, v[i].msg_hdr.msg_name, v[i].msg_hdr.msg_namelen))
				return -1;
		return 0;
	}
#ifdef SYS_stat
	case SYS_stat: return meta(SBX_OP_STAT, AT_FDCWD, a[0], 0);
#endif
#ifdef SYS_lstat
	case SYS_lstat: return meta(SBX_OP_STAT, AT_FDCWD, a[0], NOF);
#endif
#ifdef SYS_newfstatat
	case SYS_newfstatat: return meta(SBX_OP_STAT, a[0], a[1], AT_RF(a[3]));
#endif
#ifdef SYS_statx
	case SYS_statx: return meta(SBX_OP_STAT, a[0], a[1], AT_RF(a[2]));
#endif
#ifdef SYS_access
	case SYS_access: return meta(SBX_OP_ACCESS, AT_FDCWD, a[0], 0);
#endif
	case SYS_faccessat: return meta(SBX_OP_ACCESS, a[0], a[1], 0);
#ifdef SYS_faccessat2
	case SYS_faccessat2: return meta(SBX_OP_ACCESS, a[0], a[1], AT_RF(a[3]));
#endif
#ifdef SYS_readlink
	case SYS_readlink: return meta(SBX_OP_READLINK, AT_FDCWD, a[0], NOF);
#endif
	case SYS_readlinkat: return meta(SBX_OP_READLINK, a[0], a[1], NOF);
#ifdef SYS_unlink
	case SYS_unlink: return wr(SBX_OP_UNLINK, AT_FDCWD, a[0], NOF);
#endif
	case SYS_unlinkat: return wr((a[2] & AT_REMOVEDIR) ? SBX_OP_RMDIR : SBX_OP_UNLINK, a[0], a[1], NOF);
#ifdef SYS_rmdir
	case SYS_rmdir: return wr(SBX_OP_RMDIR, AT_FDCWD, a[0], NOF);
#endif
#ifdef SYS_mkdir
	case SYS_mkdir: return wr(SBX_OP_MKDIR, AT_FDCWD, a[0], NOF);
#endif
	case SYS_mkdirat: return wr(SBX_OP_MKDIR, a[0], a[1], NOF);
#ifdef SYS_rename
	case SYS_rename:
		return wr(SBX_OP_RENAME, AT_FDCWD, a[0], NOF) || wr(SBX_OP_RENAME, AT_FDCWD, a[1], NOF) ? -1 : 0;
#endif
#ifdef SYS_renameat
	case SYS_renameat:
#endif
	case SYS_renameat2:
		return wr(SBX_OP_RENAME, a[0], a[1], NOF) || wr(SBX_OP_RENAME, a[2], a[3], NOF) ? -1 : 0;
#ifdef SYS_link
	case SYS_link:
		if (sbx_check_path(SBX_OP_LINK, AT_FDCWD, P(a[0]), POL_READ, NOF, SBX_K_DATA))
			return -1;
		return wr(SBX_OP_LINK, AT_FDCWD, a[1], NOF);
#endif
	case SYS_linkat:
		if (!((a[4] & AT_EMPTY_PATH) && a[1] && !P(a[1])[0]) &&
		    sbx_check_path(SBX_OP_LINK, (int)a[0], P(a[1]), POL_READ,
				   (a[4] & AT_SYMLINK_FOLLOW) ? 0u : NOF, SBX_K_DATA))
			return -1;
		return wr(SBX_OP_LINK, a[2], a[3], NOF);
#ifdef SYS_symlink
	case SYS_symlink: return wr(SBX_OP_SYMLINK, AT_FDCWD, a[1], NOF);
#endif
	case SYS_symlinkat: return wr(SBX_OP_SYMLINK, a[1], a[2], NOF);
#ifdef SYS_chmod
	case SYS_chmod: return PRIV(SBX_OP_CHMOD, AT_FDCWD, a[0], POL_PRIV_CHMOD, a[1]) ?: wr(SBX_OP_CHMOD, AT_FDCWD, a[0], 0);
#endif
	case SYS_fchmodat: return PRIV(SBX_OP_CHMOD, a[0], a[1], POL_PRIV_CHMOD, a[2]) ?: wr(SBX_OP_CHMOD, a[0], a[1], 0);
	case SYS_fchmod: return PRIV(SBX_OP_CHMOD, a[0], 0, POL_PRIV_CHMOD, a[1]) ?: sbx_check_fd(SBX_OP_CHMOD, (int)a[0], POL_WRITE);
	case SYS_fchown: return sbx_check_fd(SBX_OP_CHOWN, (int)a[0], POL_WRITE);
	case SYS_setxattr: if (sbx_check_priv_xattr(AT_FDCWD, P(a[0]), P(a[1]), false)) return -1; /* fall through */
	case SYS_removexattr: return wr(SBX_OP_XATTR, AT_FDCWD, a[0], 0);
	case SYS_lsetxattr: if (sbx_check_priv_xattr(AT_FDCWD, P(a[0]), P(a[1]), true)) return -1; /* fall through */
	case SYS_lremovexattr: return wr(SBX_OP_XATTR, AT_FDCWD, a[0], NOF);
	case SYS_fsetxattr: if (sbx_check_priv_xattr((int)a[0], NULL, P(a[1]), false)) return -1; /* fall through */
	case SYS_fremovexattr: return sbx_check_fd(SBX_OP_XATTR, (int)a[0], POL_WRITE);
	case SYS_inotify_add_watch:
		return sbx_check_path(SBX_OP_WATCH, AT_FDCWD, P(a[1]), POL_READ,
				      ((uint32_t)a[2] & IN_DONT_FOLLOW) ? NOF : 0, SBX_K_DATA);
	case SYS_fanotify_mark:
		if ((a[1] & (FAN_MARK_REMOVE | FAN_MARK_FLUSH)))
			return 0;
		if (a[1] & (FAN_MARK_MOUNT | FAN_MARK_FILESYSTEM))
			return sbx_refuse(SBX_OP_WATCH, "(fanotify mount/filesystem mark)", POL_READ);
		return sbx_check_at(SBX_OP_WATCH, (int)a[3], P(a[4]), POL_READ,
				    (a[1] & FAN_MARK_DONT_FOLLOW) ? NOF : 0, 0);
#ifdef SYS_fchmodat2
	case SYS_fchmodat2:
		return PRIV(SBX_OP_CHMOD, a[0], a[1], POL_PRIV_CHMOD, a[2]) ?:
		       sbx_check_at(SBX_OP_CHMOD, (int)a[0], P(a[1]), POL_WRITE, AT_RF(a[3]), (int)a[3]);
#endif
#ifdef SYS_chown
	case SYS_chown: return wr(SBX_OP_CHOWN, AT_FDCWD, a[0], 0);
#endif
#ifdef SYS_lchown
	case SYS_lchown: return wr(SBX_OP_CHOWN, AT_FDCWD, a[0], NOF);
#endif
	case SYS_fchownat: return sbx_check_at(SBX_OP_CHOWN, (int)a[0], P(a[1]), POL_WRITE, AT_RF(a[4]), (int)a[4]);
	case SYS_truncate: return wr(SBX_OP_TRUNCATE, AT_FDCWD, a[0], 0);
#ifdef SYS_utime
	case SYS_utime: return wr(SBX_OP_UTIME, AT_FDCWD, a[0], 0);
#endif
#ifdef SYS_utimes
	case SYS_utimes: return wr(SBX_OP_UTIME, AT_FDCWD, a[0], 0);
#endif
#ifdef SYS_futimesat
	case SYS_futimesat: return sbx_check_at(SBX_OP_UTIME, (int)a[0], P(a[1]), POL_WRITE, 0, 0);
#endif
	case SYS_utimensat:
		return sbx_check_at(SBX_OP_UTIME, (int)a[0], P(a[1]), POL_WRITE, AT_RF(a[3]), (int)a[3]);
#ifdef SYS_mknod
	case SYS_mknod: return PRIV(SBX_OP_MKNOD, AT_FDCWD, a[0], POL_PRIV_MKNOD, a[1]) ?: wr(SBX_OP_MKNOD, AT_FDCWD, a[0], NOF);
#endif
	case SYS_mknodat: return PRIV(SBX_OP_MKNOD, a[0], a[1], POL_PRIV_MKNOD, a[2]) ?: wr(SBX_OP_MKNOD, a[0], a[1], NOF);
	case SYS_name_to_handle_at:
		return (a[4] & AT_EMPTY_PATH) && a[1] && !P(a[1])[0] ? 0
			: meta(SBX_OP_STAT, a[0], a[1], (a[4] & AT_SYMLINK_FOLLOW) ? 0u : NOF);
	case SYS_open_by_handle_at: return sbx_refuse(SBX_OP_OPEN, "(file handle)", POL_READ);
	case SYS_chroot: return sbx_refuse(SBX_OP_CHROOT, P(a[0]), POL_READ);
	default: return 0;
	}
}

SBX_EXPORT long syscall(long nr, ...)
{
	long a[6];
	va_list ap;
	va_start(ap, nr);
	for (int i = 0; i < 6; i++)
		a[i] = va_arg(ap, long);
	va_end(ap);

	if (sbx_pl_mode() != SBX_PL_PASSIVE) {
		switch (nr) {
		case SYS_execve:
			return execve(P(a[0]), (char *const *)a[1], (char *const *)a[2]);
		case SYS_execveat:
			return execveat((int)a[0], P(a[1]), (char *const *)a[2], (char *const *)a[3], (int)a[4]);
		case SYS_close:
			return close((int)a[0]);
		case SYS_close_range:
			return close_range((unsigned)a[0], (unsigned)a[1], (int)a[2]);
#ifdef SYS_dup2
		case SYS_dup2:
			return dup2((int)a[0], (int)a[1]);
#endif
		case SYS_dup3:
			return dup3((int)a[0], (int)a[1], (int)a[2]);
		default:
			if (decide(nr, a) != 0)
				return -1;
		}
	}
	long rc = sbx_sys(nr, a[0], a[1], a[2], a[3], a[4], a[5]);
	switch (nr) {
#ifdef SYS_chown
	case SYS_chown:
#endif
#ifdef SYS_lchown
	case SYS_lchown:
#endif
	case SYS_fchown:
		return sbx_chown_errno(rc, (uid_t)a[1], (gid_t)a[2]);
	case SYS_fchownat:
		return sbx_chown_errno(rc, (uid_t)a[2], (gid_t)a[3]);
	default:
		return rc;
	}
}
