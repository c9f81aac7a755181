/* files.bpf.h — the file syscalls: where their path arguments are, reading them, and the record of
 * each path argument at exit.
 *
 * Promise: layout_of(sc) says which arguments are paths and which dirfds they are relative to;
 * read_paths() copies the strings as given (at enter, and again at exit for a string whose page was
 * not yet faulted in); emit_path() writes one record per path argument with the kernel's view of
 * it: the file of the returned fd / the new exe (PR_PK_FULL), else the dirfd's or cwd's directory
 * for a relative string (PR_PK_BASE), else nothing (an absolute string, PR_PK_NONE).
 */
#ifndef SBX_PROBES_FILES_BPF_H
#define SBX_PROBES_FILES_BPF_H

/* Where the path arguments are: path arg index and dirfd arg index (-1: relative to the cwd).
 * p0 == PR_L_FD: no path, the object is the file of the fd in argument d0 (fchmod, fsetxattr...). */
struct layout { __s8 p0, d0, p1, d1; };
#define PR_L_FD (-2)

#define L1(p, d) { p, d, -1, -1 }
#define LFD(d) { PR_L_FD, d, -1, -1 }
static const struct layout layouts[PR_SC__MAX] = {
	[PR_SC_OPEN] = L1(0, -1), [PR_SC_CREAT] = L1(0, -1), [PR_SC_TRUNCATE] = L1(0, -1),
	[PR_SC_UNLINK] = L1(0, -1), [PR_SC_MKDIR] = L1(0, -1), [PR_SC_RMDIR] = L1(0, -1),
	[PR_SC_CHMOD] = L1(0, -1), [PR_SC_CHOWN] = L1(0, -1), [PR_SC_LCHOWN] = L1(0, -1),
	[PR_SC_EXECVE] = L1(0, -1),
	[PR_SC_OPENAT] = L1(1, 0), [PR_SC_OPENAT2] = L1(1, 0), [PR_SC_UNLINKAT] = L1(1, 0),
	[PR_SC_MKDIRAT] = L1(1, 0), [PR_SC_FCHMODAT] = L1(1, 0), [PR_SC_FCHMODAT2] = L1(1, 0),
	[PR_SC_FCHOWNAT] = L1(1, 0), [PR_SC_EXECVEAT] = L1(1, 0),
	[PR_SC_RENAME] = { 0, -1, 1, -1 }, [PR_SC_LINK] = { 0, -1, 1, -1 },
	[PR_SC_RENAMEAT] = { 1, 0, 3, 2 }, [PR_SC_RENAMEAT2] = { 1, 0, 3, 2 }, [PR_SC_LINKAT] = { 1, 0, 3, 2 },
	[PR_SC_SYMLINK] = L1(1, -1),          /* the target is only a string; the new link is written */
	[PR_SC_SYMLINKAT] = L1(2, 1),
	[PR_SC_UTIME] = L1(0, -1), [PR_SC_UTIMES] = L1(0, -1),
	[PR_SC_UTIMENSAT] = L1(1, 0), [PR_SC_FUTIMESAT] = L1(1, 0),
	[PR_SC_MKNOD] = L1(0, -1), [PR_SC_MKNODAT] = L1(1, 0),
	[PR_SC_SETXATTR] = L1(0, -1), [PR_SC_LSETXATTR] = L1(0, -1), [PR_SC_REMOVEXATTR] = L1(0, -1),
	[PR_SC_LREMOVEXATTR] = L1(0, -1), [PR_SC_GETXATTR] = L1(0, -1), [PR_SC_LGETXATTR] = L1(0, -1),
	[PR_SC_LISTXATTR] = L1(0, -1), [PR_SC_LLISTXATTR] = L1(0, -1),
	[PR_SC_FCHMOD] = LFD(0), [PR_SC_FCHOWN] = LFD(0), [PR_SC_FTRUNCATE] = LFD(0),
	[PR_SC_FSETXATTR] = LFD(0), [PR_SC_FREMOVEXATTR] = LFD(0),
	[PR_SC_INOTIFY_ADD_WATCH] = L1(1, -1),
	[PR_SC_FANOTIFY_MARK] = L1(4, 3),     /* i386 splits the 64-bit mask: see layout_of */
	[PR_SC_SENDMMSG] = { -1, -1, -1, -1 },
	/* everything else: no path argument */
	[PR_SC_CONNECT ... PR_SC_IO_URING_OP] = { -1, -1, -1, -1 },
	[PR_SC_SIG_FIRST ... PR_SC_ESC2_LAST] = { -1, -1, -1, -1 },
};

static __always_inline struct layout layout_of(__u32 sc, bool compat)
{
	struct layout none = { -1, -1, -1, -1 }, fan32 = { 5, 4, -1, -1 };
	if (sc >= PR_SC__MAX || sc == PR_SC_NONE)
		return none;
	if (compat && sc == PR_SC_FANOTIFY_MARK)
		return fan32;
	return layouts[sc];
}

/* Calls that follow a symlink (a magic link) in the final component. */
static __always_inline bool pr_follows(__u32 sc, __u64 aflags)
{
	if (sc == PR_SC_OPEN || sc == PR_SC_OPENAT || sc == PR_SC_OPENAT2)
		return !(aflags & 0400000 /* O_NOFOLLOW */);
	return sc == PR_SC_CREAT || sc == PR_SC_TRUNCATE || sc == PR_SC_CHMOD || sc == PR_SC_CHOWN ||
	       sc == PR_SC_EXECVE || sc == PR_SC_SETXATTR || sc == PR_SC_GETXATTR ||
	       sc == PR_SC_LISTXATTR || sc == PR_SC_REMOVEXATTR || sc == PR_SC_INOTIFY_ADD_WATCH;
}

/* Argument i (0..5) with constant offsets only; anything else reads as 0. */
static __always_inline __u64 argn(const struct pr_stash *s, int i)
{
	switch (i) {
	case 0: return s->args[0];
	case 1: return s->args[1];
	case 2: return s->args[2];
	case 3: return s->args[3];
	case 4: return s->args[4];
	case 5: return s->args[5];
	}
	return 0;
}

/* Copy the path strings not copied yet (req_ok == 0). */
static __always_inline void read_paths(struct pr_stash *s)
{
	struct layout l = layout_of(s->sc, s->compat);
	if (l.p0 >= 0 && l.p0 < 6 && !s->req_ok[0]) {
		long r = bpf_probe_read_user_str(s->req[0], PR_NAME_MAX, (const void *)argn(s, l.p0));
		s->req_ok[0] = r > 0 ? (__u32)r : 0;
	}
	if (l.p1 >= 0 && l.p1 < 6 && !s->req_ok[1]) {
		long r = bpf_probe_read_user_str(s->req[1], PR_NAME_MAX, (const void *)argn(s, l.p1));
		s->req_ok[1] = r > 0 ? (__u32)r : 0;
	}
}

/* At enter: the strings and the flags that decide the access (open flags, execveat flags), and
 * the mode the privilege guard judges (policy.h pol_priv_mode): opens carry the open flags in the
 * low 32 bits and the creation mode in bits 32..47; the chmod family and mknod the mode alone. */
#define PR_MODE_(m) (((__u64)(m) & 0xffff) << 32)
static __always_inline void files_enter(struct pr_stash *s)
{
	__u32 sc = s->sc;
	read_paths(s);
	if (sc == PR_SC_OPEN)
		s->aflags = (__u32)s->args[1] | PR_MODE_(s->args[2]);
	else if (sc == PR_SC_OPENAT)
		s->aflags = (__u32)s->args[2] | PR_MODE_(s->args[3]);
	else if (sc == PR_SC_OPENAT2) {
		__u64 f[2] = {0, 0};        /* struct open_how: flags, mode */
		bpf_probe_read_user(f, sizeof(f), (const void *)s->args[2]);
		s->aflags = (__u32)f[0] | PR_MODE_(f[1]);
	} else if (sc == PR_SC_CREAT)
		s->aflags = PR_MODE_(s->args[1]);
	else if (sc == PR_SC_CHMOD || sc == PR_SC_FCHMOD || sc == PR_SC_MKNOD)
		s->aflags = s->args[1] & 0xffff;
	else if (sc == PR_SC_FCHMODAT || sc == PR_SC_FCHMODAT2 || sc == PR_SC_MKNODAT)
		s->aflags = s->args[2] & 0xffff;
	else if (sc == PR_SC_EXECVEAT)
		s->aflags = s->args[4];
}

/* "/proc/self/fd/N" or "/dev/fd/N" (N decimal, nothing after it): N, else -1. The kernel follows
 * such a magic link to the fd's file: the record is decided on that file, even when the call failed
 * (the reopen of an O_PATH fd for reading). */
static __always_inline int magic_fd(const char *req)
{
	const char p1[] = "/proc/self/fd/", p2[] = "/dev/fd/";
	int off = 14;
	for (int i = 0; i < 14; i++)
		if (req[i] != p1[i]) {
			off = 0;
			break;
		}
	if (!off) {
		off = 8;
		for (int i = 0; i < 8; i++)
			if (req[i] != p2[i])
				return -1;
	}
	int n = 0;
	for (int i = 0; i < 8; i++) {
		char c = req[(off + i) & (PR_NAME_MAX - 1)];
		if (c == 0)
			return i ? n : -1;
		if (c < '0' || c > '9')
			return -1;
		n = n * 10 + (c - '0');
	}
	return -1;
}

/* Global subprogram (verified once, on its own): magic_fd() of the per-CPU record's string. */
__noinline int pr_magic_fd_ev(void)
{
	__u32 z = 0;
	struct pr_ovf *o = bpf_map_lookup_elem(&pr_evbuf, &z);
	return o ? magic_fd(o->ev.req) : -1;
}

/* The enter copy and the kernel's copy of argument i differ (both read; first PR_NAME_MAX - 1
 * bytes). A bpf_loop callback compares 8 bytes a step. */
struct nd_ctx {
	const char *a, *b;
	bool differ;
};

static long nd_step(__u32 i, void *arg)
{
	struct nd_ctx *c = arg;
	__u64 x, y;
	__u32 o = (i & (PR_NAME_MAX / 8 - 1)) * 8;
	__builtin_memcpy(&x, c->a + o, 8);
	__builtin_memcpy(&y, c->b + o, 8);
	__u64 zx = (x - 0x0101010101010101ull) & ~x & 0x8080808080808080ull;
	if (zx) {                                   /* the word holding a's NUL: compare up to it */
		__u64 low = zx & -zx;
		__u64 m = (low << 1) - 1;           /* bytes up to and including the NUL */
		if ((x & m) != (y & m))
			c->differ = true;
		return 1;
	}
	if (x != y) {
		c->differ = true;
		return 1;
	}
	return 0;
}

static __always_inline bool name_raced(const char *enter, const char *kern)
{
	struct nd_ctx c = { .a = enter, .b = kern, .differ = false };
	bpf_loop(PR_NAME_MAX / 8, nd_step, &c, 0);
	return c.differ;
}

static __always_inline void emit_path(struct pr_stash *s, long ret, __u32 i, __u16 sensor,
				      struct task_struct *t)
{
	__u32 slot = s->slot & (PR_SLOTS - 1);
	/* the kernel's own copy of the name (names.bpf.h): it decides when enter could not read the
	 * string; when enter's copy differs from it, another thread rewrote the buffer (raced) */
	__u32 ai = i & 1;
	bool raced = false;
	if (s->kname_ok[ai]) {
		if (!s->req_ok[ai]) {
			bpf_probe_read_kernel(s->req[ai], PR_NAME_MAX, s->kname[ai]);
			s->req_ok[ai] = s->kname_ok[ai];
		} else {
			raced = name_raced(s->req[ai], s->kname[ai]);
		}
	}
	/* a successful open the run's grants provably allow: decided on the walk alone, before any
	 * record is built (decide.bpf.h); anything else is walked again into the record below (a
	 * raced one always: its other name must be reported) */
	if ((s->sc == PR_SC_OPEN || s->sc == PR_SC_OPENAT || s->sc == PR_SC_OPENAT2 ||
	     s->sc == PR_SC_CREAT) && ret >= 0 && !raced && kd_on(slot) &&
	    pr_kd_open(slot, kd_open_want(s->sc == PR_SC_CREAT ? 01101 : s->aflags), ret)) {
		kd_count(slot);                     /* allowed in the kernel: no record */
		return;
	}
	void *rb;
	struct pr_event *ev = ev_begin(slot, t, sensor, &rb);
	if (!ev)
		return;
	ev_from_stash(ev, s, ret);
	ev->argi = (__u16)i;
	if (raced) {
		ev->flags |= PR_EVF_RACED;
		bpf_probe_read_kernel(ev->kname, sizeof(ev->kname), s->kname[ai]);
	}
	struct layout l = layout_of(s->sc, s->compat);
	int d = i ? l.d1 : l.d0;
	if (d >= 0 && d < 6)
		ev->dirfd = (int)argn(s, d);
	bool req_ok = s->req_ok[i & 1] != 0;
	if (req_ok) {
		bpf_probe_read_kernel(ev->req, sizeof(ev->req), s->req[i & 1]);
		if (s->req_ok[i & 1] >= PR_NAME_MAX) {
			/* longer than the stash holds: the whole string (up to PATH_MAX), read again
			 * now; user space decides on it only when it begins with what enter read */
			ev->flags |= PR_EVF_REQ_TRUNC;
			int p = i ? l.p1 : l.p0;
			if (p >= 0 && p < 6) {
				long r = bpf_probe_read_user_str(ev->req_long, PR_REQ_MAX,
								 (const void *)argn(s, p));
				if (r > 0 && r < PR_REQ_MAX)
					ev->flags |= PR_EVF_REQ_LONG;
			}
		}
	} else {
		ev->flags |= PR_EVF_NOPATH;
	}

	struct file *f = NULL;
	__u16 kind = PR_PK_NONE;
	__u32 sc = s->sc;
	if (l.p0 == PR_L_FD) {                      /* fchmod(fd), fsetxattr(fd)...: the fd's file */
		f = fd_file(t, ev->dirfd);
		if (!f)
			return;                     /* EBADF: no object */
		ev->path_kind = PR_PK_FULL;
		walk_file(ev, t, f);
		ev_send(rb, ev, slot);
		return;
	}
	bool opens = sc == PR_SC_OPEN || sc == PR_SC_OPENAT || sc == PR_SC_OPENAT2 || sc == PR_SC_CREAT;
	int mfd = req_ok && pr_follows(sc, s->aflags) ? pr_magic_fd_ev() : -1;   /* ev is pr_evbuf's */
	if (opens && ret >= 0) {
		f = fd_file(t, ret);
		kind = PR_PK_FULL;
	} else if (mfd >= 0 && (f = fd_file(t, mfd))) {
		kind = PR_PK_FULL;
	} else 	if ((sc == PR_SC_EXECVE || sc == PR_SC_EXECVEAT) && ret == 0) {
		f = BPF_CORE_READ(t, mm, exe_file);
		kind = PR_PK_FULL;
	} else if (req_ok && ev->req[0] == '/') {
		kind = PR_PK_NONE;
	} else if (sc == PR_SC_EXECVEAT && (!req_ok || ev->req[0] == 0) && (s->aflags & AT_EMPTY_PATH_)) {
		f = fd_file(t, ev->dirfd);
		kind = PR_PK_FULL;
	} else if (((sc == PR_SC_UTIMENSAT || sc == PR_SC_FUTIMESAT) && argn(s, 1) == 0) ||
		   (sc == PR_SC_FANOTIFY_MARK && l.p0 >= 0 && argn(s, l.p0) == 0)) {
		f = fd_file(t, ev->dirfd);          /* futimens(fd), a mark on dirfd: the fd's own file */
		kind = PR_PK_FULL;
	} else if (ev->dirfd != AT_FDCWD_) {
		f = fd_file(t, ev->dirfd);
		kind = PR_PK_BASE;
		if (!f && ret == -EBADF_)
			return;                     /* no such dirfd: the kernel resolved nothing */
	} else {
		ev->path_kind = PR_PK_BASE;
		walk_cwd(ev, t);
		ev_send(rb, ev, slot);
		return;
	}
	if (f) {
		ev->path_kind = kind;
		walk_file(ev, t, f);
	}
	ev_send(rb, ev, slot);
}

/* Global subprogram (verified once, on its own): the record of path argument i of the current
 * task's stashed call. */
__noinline int pr_emit_path(__u32 i, long ret, __u32 sensor)
{
	struct pr_stash *s = stash_cur();
	if (!s)
		return 0;
	emit_path(s, ret, i & 1, (__u16)sensor, (struct task_struct *)bpf_get_current_task());
	return 0;
}

/* At exit: one record per path argument. A string in a page not yet faulted in could not be read at
 * enter; the kernel has read (faulted) it by now, unless a successful exec replaced the memory. */
static __always_inline void files_exit(struct pr_stash *s, long ret, __u16 sensor)
{
	struct layout l = layout_of(s->sc, s->compat);
	bool execd = (s->sc == PR_SC_EXECVE || s->sc == PR_SC_EXECVEAT) && ret == 0;
	if (!execd)
		read_paths(s);
	if (l.p0 >= 0 || l.p0 == PR_L_FD || l.p1 >= 0)
		pr_emit_path(0, ret, sensor);
	if (l.p1 >= 0)
		pr_emit_path(1, ret, sensor);
}

#endif
