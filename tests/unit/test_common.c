/* test_common.c — shared helpers in common/ that have no other test: the one builder and reader of
 * SCM_RIGHTS messages (fdpass.h), the one reader of a process's ids in /proc/PID/status
 * (procids.h), `mkdir -p` (mkdirp.h) and the one reader of /proc/self/fd links (fdpath.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "fdpass.h"
#include "fdpath.h"
#include "mkdirp.h"
#include "procids.h"

/* More descriptors than the old bound of 16 (the network set-up passes up to 36, the emulated send
 * up to SCM_MAX_FD) arrive in order; more than the receiver takes are closed and flagged. */
static void t_many(void **st)
{
	(void)st;
	int sp[2];
	assert_int_equal(socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sp), 0);
	enum { N = 40 };
	int fds[N];
	for (int i = 0; i < N; i++)
		fds[i] = i % 2 ? sp[0] : sp[1];
	assert_int_equal(sbx_send_fds(sp[0], "hello", 5, fds, N), 5);
	char buf[16];
	int got[N], n = 0, mf = 0;
	assert_int_equal(sbx_recv_fds(sp[1], buf, sizeof buf, got, N, &n, &mf), 5);
	assert_int_equal(n, N);
	assert_false(mf & MSG_CTRUNC);
	assert_memory_equal(buf, "hello", 5);
	struct stat a, b;
	for (int i = 0; i < N; i++) {
		assert_int_equal(fcntl(got[i], F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);
		assert_int_equal(fstat(got[i], &a), 0);
		assert_int_equal(fstat(fds[i], &b), 0);
		assert_true(a.st_ino == b.st_ino);
		close(got[i]);
	}
	/* the receiver takes 3: the rest closed here, the message counts as truncated */
	assert_int_equal(sbx_send_fds_flags(sp[0], "x", 1, fds, 5, MSG_DONTWAIT), 1);
	assert_int_equal(sbx_recv_fds(sp[1], buf, sizeof buf, got, 3, &n, &mf), 1);
	assert_int_equal(n, 3);
	assert_true(mf & MSG_CTRUNC);
	for (int i = 0; i < 3; i++)
		close(got[i]);
	/* no descriptor at all; too many refused */
	assert_int_equal(sbx_send_fds(sp[0], "y", 1, NULL, 0), 1);
	assert_int_equal(sbx_recv_fds(sp[1], buf, sizeof buf, got, 3, &n, NULL), 1);
	assert_int_equal(n, 0);
	assert_int_equal(sbx_send_fds(sp[0], "z", 1, fds, SBX_FDPASS_MAX + 1), -1);
	assert_int_equal(errno, EINVAL);
	close(sp[0]);
	close(sp[1]);
}

static void t_proc_ids(void **st)
{
	(void)st;
	struct sbx_proc_ids id;
	assert_int_equal(sbx_proc_ids(getpid(), &id), 0);
	uid_t r, e, s;
	gid_t gr, ge, gs;
	assert_int_equal(getresuid(&r, &e, &s), 0);
	assert_int_equal(getresgid(&gr, &ge, &gs), 0);
	assert_true(id.uid[0] == r && id.uid[1] == e && id.uid[2] == s);
	assert_true(id.gid[0] == gr && id.gid[1] == ge && id.gid[2] == gs);
	gid_t g[SBX_PROCIDS_MAX_GROUPS];
	int ng = getgroups(SBX_PROCIDS_MAX_GROUPS, g);
	assert_int_equal(id.ngroups, ng);
	mode_t old = umask(027);
	assert_int_equal(sbx_proc_ids(getpid(), &id), 0);
	umask(old);
	assert_int_equal(id.umask, 027);
	assert_int_equal(sbx_proc_ids(0x7ffffff0, &id), -1);
	assert_int_equal(errno, ENOENT);
}

static void t_mkdir_p(void **st)
{
	(void)st;
	char base[] = "/tmp/test_common.XXXXXX", p[128];
	assert_non_null(mkdtemp(base));
	snprintf(p, sizeof p, "%s/a/b/c", base);
	mode_t old = umask(0);
	assert_int_equal(sbx_mkdir_p(p, 0750), 0);
	umask(old);
	struct stat s;
	assert_int_equal(stat(p, &s), 0);
	assert_true(S_ISDIR(s.st_mode));
	assert_int_equal(s.st_mode & 0777, 0750);
	assert_int_equal(sbx_mkdir_p(p, 0700), 0); /* existing: kept, no error */
	snprintf(p, sizeof p, "%s/f", base);
	int fd = open(p, O_CREAT | O_WRONLY | O_CLOEXEC, 0600);
	assert_true(fd >= 0);
	close(fd);
	snprintf(p, sizeof p, "%s/f/x", base); /* a file on the way */
	assert_int_equal(sbx_mkdir_p(p, 0700), -1);
	assert_int_equal(errno, ENOTDIR);
	char longp[5000];
	memset(longp, 'a', sizeof longp - 1);
	longp[0] = '/';
	longp[sizeof longp - 1] = 0;
	assert_int_equal(sbx_mkdir_p(longp, 0700), -1);
	assert_int_equal(errno, ENAMETOOLONG);
	char cmd[200];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", base);
	assert_int_equal(system(cmd), 0);
}

/* A file's path, whole or refused (never cut); a deleted file's mark dropped; no path for a pipe. */
static void t_fd_path(void **st)
{
	(void)st;
	char dir[] = "/tmp/sbx-fdpath.XXXXXX", f[64], out[128], small[8];
	assert_non_null(mkdtemp(dir));
	snprintf(f, sizeof f, "%s/a", dir);
	int fd = open(f, O_CREAT | O_RDWR | O_CLOEXEC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(fd_path(fd, out, sizeof out), 0);
	assert_string_equal(out, f);
	errno = 0;
	assert_int_equal(fd_path(fd, small, sizeof small), -1);
	assert_int_equal(errno, ENAMETOOLONG);
	assert_int_equal(unlink(f), 0);
	assert_int_equal(fd_path(fd, out, sizeof out), 0);
	char want[96];
	snprintf(want, sizeof want, "%s (deleted)", f);
	assert_string_equal(out, want);
	path_drop_deleted(out);
	assert_string_equal(out, f);
	char only[] = " (deleted)";
	path_drop_deleted(only);
	assert_string_equal(only, " (deleted)");
	close(fd);
	int pp[2];
	assert_int_equal(pipe(pp), 0);
	assert_int_equal(fd_path(pp[0], out, sizeof out), 0);
	assert_int_equal(strncmp(out, "pipe:[", 6), 0);
	close(pp[0]);
	close(pp[1]);
	assert_int_equal(fd_path(-1, out, sizeof out), -1);
	assert_int_equal(rmdir(dir), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(t_many),
		cmocka_unit_test(t_proc_ids),
		cmocka_unit_test(t_mkdir_p),
		cmocka_unit_test(t_fd_path),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
