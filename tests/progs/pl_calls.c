/* pl_calls.c — calls every interposed libc entry point once on a denied target and (for most)
 * once on an allowed one, and checks the outcome.
 *   usage: pl_calls SECRET_FILE SECRET_DIR WORKSPACE
 * SECRET_FILE/SECRET_DIR are denied by the policy (e.g. a fake ~/.ssh/id_rsa); WORKSPACE is
 * writable. Prints "BAD name: ..." for each unexpected outcome, "ok N calls" at the end; exits 1
 * if anything was unexpected. Write calls on the secret target only ever touch the fake secret. */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <fts.h>
#include <ftw.h>
#include <glob.h>
#include <netdb.h>
#include <netinet/in.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/statfs.h>
#include <sys/xattr.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>
#include <utime.h>

int __open_2(const char *path, int flags);
int __openat_2(int dirfd, const char *path, int flags);

static int bad, n;
extern char **environ;

/* r: the int result, denial means r == -1 && errno == e */
#define DENY(name, e, expr) do { errno = 0; long r_ = (long)(expr); int e_ = errno; n++; \
	if (!(r_ == -1 && e_ == (e))) { bad++; printf("BAD %s: r=%ld errno=%d (%s), want errno %d\n", \
		name, r_, e_, strerror(e_), e); } } while (0)
#define DENYP(name, e, expr) do { errno = 0; void *p_ = (void *)(expr); int e_ = errno; n++; \
	if (!(p_ == NULL && e_ == (e))) { bad++; printf("BAD %s: p=%p errno=%d, want NULL/%d\n", \
		name, p_, e_, e); } } while (0)
#define ALLOW(name, expr) do { errno = 0; long r_ = (long)(expr); int e_ = errno; n++; \
	if (r_ == -1) { bad++; printf("BAD %s: refused: errno=%d (%s)\n", name, e_, strerror(e_)); } } while (0)
#define ALLOWP(name, expr) do { errno = 0; void *p_ = (void *)(expr); int e_ = errno; n++; \
	if (p_ == NULL) { bad++; printf("BAD %s: refused: errno=%d (%s)\n", name, e_, strerror(e_)); } } while (0)

static int walk_cb(const char *p, const struct stat *st, int type, struct FTW *f)
{
	(void)p; (void)st; (void)type; (void)f;
	return 0;
}

static char *cat(const char *a, const char *b)
{
	static char buf[8][4096];
	static int i;
	char *o = buf[i++ % 8];
	snprintf(o, 4096, "%s/%s", a, b);
	return o;
}

int main(int argc, char **argv)
{
	if (argc != 4 && argc != 5) {
		fprintf(stderr, "usage: pl_calls SECRET_FILE SECRET_DIR WORKSPACE [abstract-inside]\n");
		return 2;
	}
	const char *S = argv[1], *SD = argv[2], *W = argv[3];
	struct stat st;
	struct statx stx;
	char buf[4096];
	struct timeval tv[2] = {{0, 0}, {0, 0}};
	struct timespec ts[2] = {{0, UTIME_OMIT}, {0, UTIME_OMIT}};
	FILE *devnull = fopen("/dev/null", "r");

	/* ---- open family ---- */
	DENY("open", EACCES, open(S, O_RDONLY));
	DENY("open64", EACCES, open64(S, O_RDONLY));
	DENY("openat", EACCES, openat(AT_FDCWD, S, O_RDONLY));
	DENY("openat64", EACCES, openat64(AT_FDCWD, S, O_RDONLY));
	DENY("__open_2", EACCES, __open_2(S, O_RDONLY));
	DENY("__openat_2", EACCES, __openat_2(AT_FDCWD, S, O_RDONLY));
	DENY("open-trunc", EACCES, open(S, O_WRONLY | O_TRUNC));
	DENY("creat", EACCES, creat(cat(SD, "new"), 0600));
	DENYP("fopen", EACCES, fopen(S, "r"));
	DENYP("fopen64", EACCES, fopen64(S, "r"));
	DENYP("freopen", EACCES, freopen(S, "r", devnull));
	DENYP("opendir", EACCES, opendir(SD));
	int dfd = open(W, O_RDONLY | O_DIRECTORY);
	DENY("openat-dirfd-dotdot", EACCES, openat(dfd, "../../../../../../../../../root", O_RDONLY) < 0 ? -1 : 0);
	/* ---- stat family ---- */
	DENY("stat", EACCES, stat(S, &st));
	DENY("lstat", EACCES, lstat(S, &st));
	DENY("fstatat", EACCES, fstatat(AT_FDCWD, S, &st, 0));
	DENY("statx", EACCES, statx(AT_FDCWD, S, 0, STATX_BASIC_STATS, &stx));
	DENY("access", EACCES, access(S, R_OK));
	DENY("faccessat", EACCES, faccessat(AT_FDCWD, S, R_OK, 0));
	DENY("eaccess", EACCES, eaccess(S, R_OK));
	DENY("euidaccess", EACCES, euidaccess(S, R_OK));
	DENY("readlink", EACCES, readlink(S, buf, sizeof buf));
	DENY("readlinkat", EACCES, readlinkat(AT_FDCWD, S, buf, sizeof buf));
	DENYP("realpath", EACCES, realpath(S, buf));
	/* ---- changes ---- */
	DENY("truncate", EACCES, truncate(S, 0));
	DENY("mkdir", EACCES, mkdir(cat(SD, "d"), 0700));
	DENY("mkdirat", EACCES, mkdirat(AT_FDCWD, cat(SD, "d"), 0700));
	DENY("rmdir", EACCES, rmdir(SD));
	DENY("unlink", EACCES, unlink(S));
	DENY("unlinkat", EACCES, unlinkat(AT_FDCWD, S, 0));
	DENY("rename", EACCES, rename(S, cat(W, "stolen")));
	DENY("rename-to", EACCES, rename(cat(W, "nonexistent"), cat(SD, "x")));
	DENY("renameat", EACCES, renameat(AT_FDCWD, S, AT_FDCWD, cat(W, "stolen")));
	DENY("renameat2", EACCES, renameat2(AT_FDCWD, S, AT_FDCWD, cat(W, "stolen"), 0));
	DENY("link", EACCES, link(S, cat(W, "hard")));
	DENY("linkat", EACCES, linkat(AT_FDCWD, S, AT_FDCWD, cat(W, "hard"), 0));
	DENY("symlink", EACCES, symlink("x", cat(SD, "s")));
	DENY("symlinkat", EACCES, symlinkat("x", AT_FDCWD, cat(SD, "s")));
	DENY("chmod", EACCES, chmod(S, 0644));
	DENY("fchmodat", EACCES, fchmodat(AT_FDCWD, S, 0644, 0));
	DENY("chown", EACCES, chown(S, 0, 0));
	DENY("lchown", EACCES, lchown(S, 0, 0));
	DENY("fchownat", EACCES, fchownat(AT_FDCWD, S, 0, 0, 0));
	DENY("utime", EACCES, utime(S, NULL));
	DENY("utimes", EACCES, utimes(S, tv));
	DENY("utimensat", EACCES, utimensat(AT_FDCWD, S, ts, 0));
	DENY("futimesat", EACCES, futimesat(AT_FDCWD, S, tv));
	DENY("mkfifo", EACCES, mkfifo(cat(SD, "fifo"), 0600));
	DENY("mknod", EACCES, mknod(cat(SD, "node"), S_IFREG | 0600, 0));
	/* ---- file handles ---- */
	struct { struct file_handle fh; unsigned char b[128]; } fh;
	fh.fh.handle_bytes = 128;
	int mnt;
	DENY("name_to_handle_at", EACCES, name_to_handle_at(AT_FDCWD, S, &fh.fh, &mnt, 0));
	DENY("open_by_handle_at", EACCES, open_by_handle_at(AT_FDCWD, &fh.fh, O_RDONLY));
	DENY("chroot", EACCES, chroot(W));
	/* ---- entry points that work through glibc-internal calls ---- */
	char tmpl[4200];
	snprintf(tmpl, sizeof tmpl, "%s/tmpXXXXXX", SD);
	DENY("mkstemp", EACCES, mkstemp(tmpl));
	snprintf(tmpl, sizeof tmpl, "%s/tmpXXXXXX", SD);
	DENY("mkostemp", EACCES, mkostemp(tmpl, 0));
	snprintf(tmpl, sizeof tmpl, "%s/tmpXXXXXX", SD);
	DENYP("mkdtemp", EACCES, mkdtemp(tmpl));
	DENY("remove", EACCES, remove(S));
	DENY("setxattr", EACCES, setxattr(S, "user.x", "1", 1, 0));
	DENY("removexattr", EACCES, removexattr(S, "user.x"));
	DENY("getxattr", EACCES, getxattr(S, "user.x", buf, sizeof buf));
	DENY("listxattr", EACCES, listxattr(S, buf, sizeof buf));
	struct statfs sfs;
	DENY("statfs", EACCES, statfs(S, &sfs));
	struct dirent **dl;
	DENY("scandir", EACCES, scandir(SD, &dl, NULL, alphasort));
	glob_t gl;
	n++;
	/* a refused directory is an unreadable one for glob: no match, or aborted under GLOB_ERR */
	if (glob(cat(SD, "*"), 0, NULL, &gl) != GLOB_NOMATCH ||
	    glob(cat(SD, "*"), GLOB_ERR, NULL, &gl) != GLOB_ABORTED) {
		bad++;
		printf("BAD glob: not refused\n");
	}
	DENY("nftw", EACCES, nftw(SD, walk_cb, 4, 0));
	char *roots[] = { (char *)SD, NULL };
	DENYP("fts_open", EACCES, fts_open(roots, FTS_PHYSICAL, NULL));
	/* ---- syscall() ---- */
	DENY("syscall-openat", EACCES, syscall(SYS_openat, AT_FDCWD, S, O_RDONLY, 0));
	DENY("syscall-open", EACCES, syscall(SYS_open, S, O_RDONLY, 0));
	DENY("syscall-unlinkat", EACCES, syscall(SYS_unlinkat, AT_FDCWD, S, 0));
	DENY("syscall-newfstatat", EACCES, syscall(SYS_newfstatat, AT_FDCWD, S, &st, 0));
	/* ---- exec ---- */
	char *av[] = { (char *)"x", NULL };
	DENY("execve", EACCES, execve(S, av, environ));
	DENY("execv", EACCES, execv(S, av));
	DENY("execl", EACCES, execl(S, "x", (char *)NULL));
	int mfd = memfd_create("payload", 0);
	DENY("fexecve-memfd", EACCES, fexecve(mfd, av, environ));
	close(mfd);
	pid_t pid;
	int pr = posix_spawn(&pid, S, NULL, NULL, av, environ);
	n++;
	if (pr != EACCES) {
		bad++;
		printf("BAD posix_spawn: %d\n", pr);
	}
	/* ---- network ---- */
	int s = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in in = { .sin_family = AF_INET, .sin_port = htons(9) };
	/* not loopback: in a network namespace of the run's own, loopback is the run's and allowed */
	inet_pton(AF_INET, "198.51.100.1", &in.sin_addr);
	DENY("connect", EPERM, connect(s, (struct sockaddr *)&in, sizeof in));
	DENY("syscall-connect", EPERM, syscall(SYS_connect, s, &in, sizeof in));
	close(s);
	int u = socket(AF_INET, SOCK_DGRAM, 0);
	DENY("sendto", EPERM, sendto(u, "x", 1, 0, (struct sockaddr *)&in, sizeof in));
	struct iovec iov = { (void *)"x", 1 };
	struct msghdr mh = { .msg_name = &in, .msg_namelen = sizeof in, .msg_iov = &iov, .msg_iovlen = 1 };
	DENY("sendmsg", EPERM, sendmsg(u, &mh, 0));
	close(u);
	int us = socket(AF_UNIX, SOCK_STREAM, 0);
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	snprintf(sun.sun_path, sizeof sun.sun_path, "%s/sock", SD);
	DENY("connect-unix", EPERM, connect(us, (struct sockaddr *)&sun, sizeof sun));
	DENY("bind-unix", EPERM, bind(us, (struct sockaddr *)&sun, sizeof sun));
	struct sockaddr_un abs_ = { .sun_family = AF_UNIX };
	memcpy(abs_.sun_path, "\0sbx-test-abstract", 18);
	/* refused (EPERM) where the run shares the host's network namespace; inside a namespace of
	 * its own abstract names are the run's (issue 17): allowed, and nothing listens there */
	DENY("connect-abstract", argc == 5 && !strcmp(argv[4], "abstract-inside") ? ECONNREFUSED : EPERM,
	     connect(us, (struct sockaddr *)&abs_, offsetof(struct sockaddr_un, sun_path) + 18));
	close(us);
	DENY("socket-packet", EPERM, socket(AF_PACKET, SOCK_RAW, 0));
	DENY("socket-raw", EPERM, socket(AF_INET, SOCK_RAW, IPPROTO_ICMP));
	struct addrinfo *ai = NULL;
	n++;
	int g = getaddrinfo("denied.invalid", "80", NULL, &ai);
	if (g != EAI_FAIL) {
		bad++;
		printf("BAD getaddrinfo: %d\n", g);
	}
	n++;
	h_errno = 0;
	if (gethostbyname("denied.invalid") != NULL || h_errno != NO_RECOVERY) {
		bad++;
		printf("BAD gethostbyname: h_errno %d\n", h_errno);
	}
	n++;
	if (gethostbyname2("denied.invalid", AF_INET) != NULL || h_errno != NO_RECOVERY) {
		bad++;
		printf("BAD gethostbyname2\n");
	}
	struct hostent he, *res = (struct hostent *)1;
	int herr = 0;
	n++;
	if (gethostbyname_r("denied.invalid", &he, buf, sizeof buf, &res, &herr) == 0 && res) {
		bad++;
		printf("BAD gethostbyname_r\n");
	}

	/* ---- allowed in the workspace ---- */
	ALLOW("ws-creat", creat(cat(W, "f"), 0600));
	ALLOW("ws-open-rw", open(cat(W, "f"), O_RDWR | O_APPEND));
	ALLOW("ws-stat", stat(cat(W, "f"), &st));
	ALLOW("ws-mkdir", mkdir(cat(W, "d"), 0700));
	ALLOW("ws-rename", rename(cat(W, "f"), cat(W, "d/g")));
	ALLOW("ws-symlink", symlink("g", cat(W, "d/l")));
	ALLOW("ws-readlink", readlink(cat(W, "d/l"), buf, sizeof buf));
	ALLOWP("ws-realpath", realpath(cat(W, "d/l"), buf));
	ALLOW("ws-chmod", chmod(cat(W, "d/g"), 0640));
	ALLOW("ws-utimensat", utimensat(AT_FDCWD, cat(W, "d/g"), ts, 0));
	ALLOW("ws-truncate", truncate(cat(W, "d/g"), 0));
	ALLOW("ws-link", link(cat(W, "d/g"), cat(W, "d/h")));
	ALLOWP("ws-opendir", opendir(cat(W, "d")));
	ALLOW("ws-unlink", unlink(cat(W, "d/l")));
	ALLOW("ws-unlink2", unlink(cat(W, "d/h")));
	ALLOW("ws-unlinkat", unlinkat(AT_FDCWD, cat(W, "d/g"), 0));
	ALLOW("ws-rmdir", rmdir(cat(W, "d")));
	snprintf(tmpl, sizeof tmpl, "%s/tmpXXXXXX", W);
	ALLOW("ws-mkstemp", mkstemp(tmpl));
	ALLOW("ws-remove", remove(tmpl));
	ALLOW("ws-scandir", scandir(W, &dl, NULL, alphasort));
	n++;
	if (glob(cat(W, "*"), GLOB_NOCHECK, NULL, &gl) != 0) {
		bad++;
		printf("BAD ws-glob\n");
	}
	ALLOWP("sys-fopen", fopen("/etc/passwd", "r"));
	ALLOW("sys-syscall-openat", syscall(SYS_openat, AT_FDCWD, "/etc/passwd", O_RDONLY, 0));
	ALLOW("stat-root", stat("/", &st));
	ALLOW("devnull-w", open("/dev/null", O_WRONLY));
	ALLOW("proc-self", open("/proc/self/status", O_RDONLY));
	char own[64], me[32] = "";
	ssize_t ml = readlink("/proc/self", me, sizeof me - 1);   /* our pid as /proc numbers it */
	me[ml > 0 ? ml : 0] = 0;
	snprintf(own, sizeof own, "/proc/%s/status", me);
	ALLOW("proc-ownpid", open(own, O_RDONLY));

	printf("%s %d calls, %d unexpected\n", bad ? "FAILED" : "ok", n, bad);
	return bad ? 1 : 0;
}
