/* pl.h — internal interfaces of libsbxpreload.so (not installed).
 *
 * Promise: every interposed call is decided by policy/ before the real call is made, and a denied
 * call never reaches the kernel; a denial is reported to the supervisor without blocking.
 *
 * Module map:
 *   preload.c  the one process-wide struct (policy view, report fd, saved environment, resolved
 *              address table, path cache), its initialisation (constructor, or lazily from the
 *              first call), passive mode in the stage, the ack and the exit-time drop count
 *   real.c     the next definitions of interposed symbols (dlsym RTLD_NEXT, once per symbol,
 *              lock-free) and the raw system calls the library itself uses
 *   resolve.c  path resolution as the kernel does it (cwd, dirfds, "..", symlinks, /proc magic links)
 *   decide.c   decisions: path / exec / network peer / name, each through policy.h, reported
 *   report.c   records to the supervisor (one datagram each, never blocking, no locks, no malloc)
 *   fs.c       file-system interposers          exec.c  exec family, posix_spawn, system, popen
 *   fs_more.c  path functions whose work glibc does with internal calls (mkstemp, remove, xattr,
 *              statfs, scandir, glob, nftw, fts_open)
 *   net.c      connect/sendto/sendmsg/bind, name resolution
 *   sysc.c     syscall(2) for path and network syscall numbers
 *   fdguard.c  close/close_range/dup2/dup3 cannot remove the policy and report descriptors
 *
 * Rules for every interposer: resolve nothing and decide nothing when the library is passive;
 * decide BEFORE calling the real function; on allow, errno is what the caller had; on deny, the
 * real function is not called, the denial is reported, and errno is the denial errno.
 */
#ifndef SBX_PL_H
#define SBX_PL_H

#include <limits.h>
#include <linux/limits.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

#include "policy.h"
#include "report.h"

#define SBX_EXPORT __attribute__((visibility("default")))

/* libc declares most path arguments nonnull; callers pass NULL anyway (e.g. futimesat(fd, NULL)):
 * hide the pointer from the optimiser so NULL checks in interposers stay. */
static inline const char *sbx_launder(const char *p)
{
	__asm__("" : "+r"(p));
	return p;
}

/* ---- state (preload.c) ------------------------------------------------------------------------ */

#define SBX_PL_ENV_N 5           /* LD_PRELOAD + the SBXSUP_* variables (sbx_pl_env_names) */
#define SBX_PL_ENV_MAX 1024      /* bytes per saved "NAME=value" */
#define SBX_PL_ADDRS 64          /* addresses remembered from allowed name resolutions */
#define SBX_PL_NAME_MAX 256
#define SBX_PL_DIRCACHE 1024     /* paths known symlink-free and not writable (entry pool) */
#define SBX_PL_DIRSLOTS 2048     /* hash slots over the pool (entry number + 1, 0 = empty) */
#define SBX_PL_DIRPATH 240       /* longer paths are not cached */
/* Where the supervisor binds its report socket inside the bwrap sandbox (supervisor/layers/bwrap_layer.h
 * SBX_RUN_REPORT): used when SBXSUP_REPORT_ADDR is not in the environment, so a program exec'd with
 * a stripped environment (the library loaded by /etc/ld.so.preload) still reports its denials. */
#define SBX_PL_REPORT_FIXED "/run/sbxsup/report"
/* The sealed policy at a fixed path (bwrap: --ro-bind-data; no-bwrap with a mount namespace: a
 * read-only tmpfs of the run's own, sandbox_direct.c). Trusted only on a read-only mount (making one
 * needs mount rights, which the executor never has), and then always enforced: an environment
 * policy (SBXSUP_POLICY_FD: a nested run's) is enforced in addition, never instead. */
#define SBX_PL_POLICY_FIXED "/run/sbxsup/policy"
/* Fixed channel: how long one report may wait for room in the supervisor's queue (report.c). */
#define SBX_PL_FIXED_WAIT_US 50000

struct sbx_pl_addr {
	atomic_uint seq;             /* odd while being written */
	int family;
	uint8_t addr[16];
	char name[SBX_PL_NAME_MAX];  /* the allowed name that returned it */
};

struct sbx_pl_dir {
	uint32_t hash;
	uint16_t len;
	char path[SBX_PL_DIRPATH];
};

enum sbx_pl_mode {
	SBX_PL_UNINIT = 0,
	SBX_PL_PASSIVE,              /* the stage: no enforcement, no ack */
	SBX_PL_ENFORCE,              /* policy mapped and valid */
	SBX_PL_CLOSED,               /* policy absent or invalid: every decision denies */
};

struct sbx_pl {
	atomic_int mode;             /* enum sbx_pl_mode */
	const struct policy *pol;    /* NULL unless ENFORCE */
	const struct policy *pol2;   /* the fixed-path policy when SBXSUP_POLICY_FD also gave one (a
	                              * nested run): both must allow; else NULL */
	bool fixed;                  /* the channel is the fixed paths only (no SBXSUP_* in the
	                              * environment): no descriptor is kept, the environment is not
	                              * repaired, each report is a datagram from a fresh socket */
	bool code_exec;
	enum pol_net_mode net_mode;
	int policy_fd, report_fd;    /* -1 when absent */
	dev_t report_dev;            /* identity of the report socket (checked before each send) */
	ino_t report_ino;
	atomic_int reconnecting;
	char report_addr[110];       /* SBXSUP_REPORT_ADDR, else SBX_PL_REPORT_FIXED when that exists
	                              * (bwrap mode, environment stripped), "" when neither */
	dev_t policy_dev; ino_t policy_ino;
	char env[SBX_PL_ENV_N][SBX_PL_ENV_MAX];  /* "NAME=value" saved at load, "" when unset */
	atomic_uint dropped;         /* denials neither sent nor kept, not yet counted on a record */
	_Atomic uint64_t last_urgent; /* hash of the last critical denial that waited for the queue
				      * (report.c: a repeat of it does not wait again) */
	atomic_uint pend_state;      /* the first denial that could not be sent (report.c) */
	uint16_t pend_len;
	unsigned char pend[SBX_REC_MAX];
	atomic_uint addr_next;
	struct sbx_pl_addr addrs[SBX_PL_ADDRS];
	atomic_uint dir_next;        /* next free entry of dirs[] */
	atomic_uint dir_slot[SBX_PL_DIRSLOTS];
	struct sbx_pl_dir dirs[SBX_PL_DIRCACHE];
};

extern struct sbx_pl sbx_pl;
/* Names of the saved variables, index-aligned with sbx_pl.env: LD_PRELOAD, SBXSUP_POLICY_FD,
 * SBXSUP_REPORT_FD, SBXSUP_RUN, SBXSUP_REPORT_ADDR. */
extern const char *const sbx_pl_env_names[SBX_PL_ENV_N];
enum { SBX_PL_ENV_PRELOAD = 0, SBX_PL_ENV_POLICY_FD = 1, SBX_PL_ENV_REPORT_FD = 2,
       SBX_PL_ENV_REPORT_ADDR = 4 };

/* Initialise once (from the constructor with argv, or lazily with argv == NULL). Returns the mode. */
int sbx_pl_init(int argc, char **argv);
static inline int sbx_pl_mode(void)
{
	int m = atomic_load_explicit(&sbx_pl.mode, memory_order_acquire);
	return m != SBX_PL_UNINIT ? m : sbx_pl_init(0, NULL);
}
static inline bool sbx_pl_passive(void) { return sbx_pl_mode() == SBX_PL_PASSIVE; }

/* Remember the addresses of an allowed resolution of `name`; look one up (returns the name, copied
 * into namebuf, or false). Lock-free (per-entry sequence counter). */
void sbx_pl_addr_add(const char *name, int family, const void *addr);
bool sbx_pl_addr_find(int family, const void *addr, char *namebuf, size_t len);

/* Path cache: canonical paths without symlink components, where neither the path nor any ancestor
 * may be written under the policy (so this process cannot plant a link there through libc).
 * Open-addressing hash table, insert-only, lock-free (per-slot state). */
bool sbx_pl_dir_known(const char *path, size_t len);
void sbx_pl_dir_add(const char *path, size_t len);

/* ---- next symbols and raw syscalls (real.c) ---------------------------------------------------- */

void *sbx_real_sym(void *_Atomic *slot, const char *name);
/* Each slot is filled by a constructor at load (dlsym takes the loader lock: resolving lazily in a
 * fork child of a threaded parent could deadlock); REAL() still resolves on first use if an
 * interposer runs before the constructors (another library's constructor calling open...). */
#define REAL_DECL(fn)                                                                   \
	static void *_Atomic sbx_real_##fn;                                             \
	__attribute__((constructor(101))) static void sbx_prime_##fn(void)              \
	{                                                                               \
		(void)sbx_real_sym(&sbx_real_##fn, #fn);                                \
	}                                                                               \
	static void *_Atomic sbx_real_##fn
#define REAL(fn) ((__typeof__(&fn))sbx_real_sym(&sbx_real_##fn, #fn))

long sbx_sys(long nr, long a, long b, long c, long d, long e, long f); /* -1 + errno like syscall(2) */
ssize_t sbx_readlinkat(int dirfd, const char *path, char *buf, size_t len);
int sbx_getcwd(char *buf, size_t len);
pid_t sbx_getpid(void);
void sbx_comm(char out[17]);
int sbx_fd_valid(int fd);

/* ---- resolution (resolve.c) -------------------------------------------------------------------- */

enum {
	SBX_R_NOFOLLOW = 1,          /* the final component is not followed (O_NOFOLLOW, lstat, unlink...) */
};
/* Resolve (dirfd, path) to a canonical absolute path in out[PATH_MAX].
 * Returns 0; 2 when path is relative and its base (cwd or dirfd) lies deeper than PATH_MAX (the
 * caller decides with sbx_check_deep); 1 when the path names no file-system object the policy can speak about (a magic
 * link to a pipe/socket/anon inode, a bad dirfd, a dirfd that is not a directory): the kernel
 * decides, nothing to check; -1 with errno (ELOOP, ENAMETOOLONG, EACCES when it cannot be decided). */
int sbx_resolve(int dirfd, const char *path, unsigned rflags, char *out);

/* ---- the policy questions (policies.c) --------------------------------------------------------- */

/* Asked of sbx_pl.pol and, when set, sbx_pl.pol2 (a refusal by either wins). */
int sbx_pol_path(const char *path, unsigned access, struct pol_decision *d);
int sbx_pol_net_addr(int family, const void *addr, uint16_t port, struct pol_decision *d);
int sbx_pol_net_name(const char *name, uint16_t port, struct pol_decision *d);

/* ---- decisions (decide.c) ---------------------------------------------------------------------- */

enum sbx_kind {
	SBX_K_DATA = 0,              /* reading/writing contents: the policy decides as it is */
	SBX_K_META,                  /* metadata (stat, access, readlink, realpath, O_PATH opens):
	                              * denied only by an explicit deny rule. These system calls are
	                              * not data accesses for the probes either. */
};
/* 0 = allowed (errno untouched); -1 = denied or undecidable (reported when denied; errno set). */
int sbx_check_path(unsigned op, int dirfd, const char *path, unsigned access, unsigned rflags,
		   enum sbx_kind kind);
int sbx_check_exec(unsigned op, int dirfd, const char *path, unsigned rflags);
/* A call whose effect cannot be decided (e.g. openat2 RESOLVE_IN_ROOT): refused (EACCES) and
 * reported with the subject as given. 0 when passive. */
int sbx_refuse(unsigned op, const char *subject, unsigned access);
/* Network peer (struct sockaddr). 0 allowed, -1 denied (EPERM, reported). */
int sbx_check_sockaddr(unsigned op, const void *sa, socklen_t len);
/* socket(): link-layer / raw sockets only with an unrestricted network. 0 or -1 (EPERM, reported). */
int sbx_check_socket(int domain, int type, int protocol);
/* Name resolution; port in host order (0 = any). 0 allowed, -1 denied (reported; caller maps the
 * errno to EAI_FAIL / NO_RECOVERY). */
int sbx_check_name(const char *name, uint16_t port);

/* A call on an open descriptor (fchmod, fchown, fsetxattr, futimens...): decided on the file the
 * descriptor names (/proc/self/fd/N, as the kernel reached it). A bad fd or one that names no
 * path (pipe, socket) is left to the kernel. AT_FDCWD: the current directory. */
int sbx_check_fd(unsigned op, int fd, unsigned access);
/* The *at form: an empty path with AT_EMPTY_PATH in at_flags, or a NULL path where the call
 * then acts on dirfd itself (utimensat, futimesat, fanotify_mark), goes to sbx_check_fd. */
int sbx_check_at(unsigned op, int dirfd, const char *path, unsigned access, unsigned rflags,
		 int at_flags);
/* The result of a chown-family call, its errno made the kernel's answer to a process without
 * CAP_CHOWN: EINVAL for an id (u or g, -1 = unchanged) this user namespace does not map becomes
 * EPERM (the run's user namespace maps few ids; outside one, and for a mapped id, nothing
 * changes). Returns rc. */
long sbx_chown_errno(long rc, uid_t u, gid_t g);

/* The privilege guard (policy.h pol_priv_mode / pol_priv_xattr), asked before the path decision:
 * a setuid/setgid mode (chmod family, the mode of a creating open/creat, mknod), a device node
 * (mknod) or a security.* attribute / an ACL on a setuid/setgid file (setxattr family) is refused
 * with EPERM and reported (preload.deny, rule "privilege: ..."), wherever the object is. path NULL
 * or "": the descriptor dirfd. 0 allowed (or passive), -1 refused. */
int sbx_check_priv_mode(unsigned op, int dirfd, const char *path, enum pol_priv_call call, int flags,
			mode_t mode);
int sbx_check_priv_xattr(int dirfd, const char *path, const char *name, bool nofollow);

/* open(2) flags -> access, symlink handling and kind; then sbx_check_path (fs.c). */
int sbx_check_open(int dirfd, const char *path, int flags);
/* The same for a call that carries the creation mode (open/openat/creat, their syscall() forms):
 * the privilege guard first (sbx_check_priv_mode). */
int sbx_check_open_mode(int dirfd, const char *path, int flags, mode_t mode);

/* ---- posix_spawn file actions (spawn_fa.c) ---------------------------------------------------- */

/* The errno a posix_spawn with these actions must fail with (a refused open action), or 0. */
int sbx_fa_err(const void *fa);
/* The directory the actions change to (absolute, or relative to our cwd), if any. */
bool sbx_fa_chdir(const void *fa, char out[PATH_MAX]);
bool sbx_fa_join(const char *dir, const char *path, char out[PATH_MAX]);

/* ---- reporting (report.c) ---------------------------------------------------------------------- */

void sbx_report(const struct sbx_rec_hdr *h, const char *subject);
void sbx_report_ack(void);
/* At exit: send the kept denial and the count of dropped ones, if any (bounded retry). */
void sbx_report_flush(void);
/* In a fork child: the kept denial and the count belong to the parent. */
void sbx_report_forked(void);

/* ---- descriptors the children need (fdguard.c: the guard; fdmove.c: the moves) ------------------ */

/* True if fd is the policy or the report descriptor (not when passive). */
bool sbx_pl_fd_protected(int fd);
/* At load: move the policy and report descriptors to high numbers (the program's first open()
 * gets 3), updating the saved SBXSUP_*_FD values. */
void sbx_pl_fds_relocate(void);
/* Move one of them to another high number before the program takes its number (the old number
 * stays open). 0, or -1 with no free descriptor. */
int sbx_pl_fd_move_away(int fd);

#endif
