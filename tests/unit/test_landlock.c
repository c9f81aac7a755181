/* test_landlock.c — the Landlock layer alone, in a forked child per test: fs grants (read, write,
 * execute, missing entries skipped, file entries), TCP ports, signal and abstract-socket scoping,
 * the command exemption. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/un.h>

#include "landlock_layer.h"
#include "child_expect.h"

/* fails, EXPECT, EXPECT_OK, EXPECT_ERR: tests/lib/child_expect.h */

static char base[64];
static char p_ro[128], p_rw[128], p_secret[128], p_prog[128];

static int setup(void **state)
{
	(void)state;
	snprintf(base, sizeof base, "/tmp/sbx-test-landlock-XXXXXX");
	if (!mkdtemp(base))
		return -1;
	char f[200];
	snprintf(p_ro, sizeof p_ro, "%s/ro", base);
	snprintf(p_rw, sizeof p_rw, "%s/rw", base);
	snprintf(p_secret, sizeof p_secret, "%s/secret", base);
	snprintf(p_prog, sizeof p_prog, "%s/ro/prog", base);
	if (mkdir(p_ro, 0755) || mkdir(p_rw, 0755) || mkdir(p_secret, 0755))
		return -1;
	const char *files[] = {"ro/file", "rw/file", "secret/file"};
	for (size_t i = 0; i < 3; i++) {
		snprintf(f, sizeof f, "%s/%s", base, files[i]);
		int fd = open(f, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		if (fd < 0 || write(fd, "data\n", 5) != 5)
			return -1;
		close(fd);
	}
	/* an executable outside every executable directory */
	char cmd[300];
	snprintf(cmd, sizeof cmd, "cp /bin/true %s && chmod 755 %s", p_prog, p_prog);
	return system(cmd) == 0 ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf %s", base);
	return system(cmd) == 0 ? 0 : -1;
}

/* the system part every child needs to keep running */
static size_t sys_dirs(struct pol_dir *d)
{
	size_t n = 0;
	d[n++] = (struct pol_dir){"/usr", POL_READ | POL_EXEC, 0};
	d[n++] = (struct pol_dir){"/lib", POL_READ | POL_EXEC, 0};
	d[n++] = (struct pol_dir){"/lib64", POL_READ | POL_EXEC, 0};
	d[n++] = (struct pol_dir){"/bin", POL_READ | POL_EXEC, 0};
	d[n++] = (struct pol_dir){"/etc", POL_READ, 0};
	d[n++] = (struct pol_dir){"/dev/null", POL_READ | POL_WRITE, 0};
	d[n++] = (struct pol_dir){"/nonexistent-sbx-dir", POL_READ, 0};
	return n;
}

static int apply(const struct sbx_landlock_spec *s, struct sbx_landlock_result *r)
{
	char why[256] = "";
	if (sbx_landlock_apply_spec(s, r, why, sizeof why) < 0) {
		fprintf(stderr, "# child: apply: %s\n", why);
		return -1;
	}
	return 0;
}

static void test_probe(void **state)
{
	(void)state;
	char why[256] = "";
	int abi = sbx_landlock_probe(why, sizeof why);
	assert_true(abi >= 7); /* this host: Landlock ABI 7 */
}

static void test_fs(void **state)
{
	(void)state;
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct pol_dir d[16];
		size_t n = sys_dirs(d);
		d[n++] = (struct pol_dir){p_ro, POL_READ, 0};
		d[n++] = (struct pol_dir){p_rw, POL_READ | POL_WRITE, 0};
		struct sbx_landlock_spec s = {.dirs = d, .ndirs = n, .net_mode = POL_NET_NONE};
		struct sbx_landlock_result r;
		if (apply(&s, &r) < 0)
			_exit(90);
		fails = 0;
		if (!r.fs || !r.scope || r.abi < 7 || r.skipped != 1 || r.degraded[0] ||
		    strcmp(r.flags, "log_same_exec_off|log_new_exec_on")) {
			fprintf(stderr, "# child: result abi %d fs %d scope %d skipped %u degraded '%s' flags '%s'\n",
				r.abi, r.fs, r.scope, r.skipped, r.degraded, r.flags);
			fails++;
		}
		char f[200];
		snprintf(f, sizeof f, "%s/file", p_secret);
		EXPECT_ERR("read secret/file", open(f, O_RDONLY), EACCES);
		EXPECT_ERR("list secret/", open(p_secret, O_RDONLY | O_DIRECTORY), EACCES);
		snprintf(f, sizeof f, "%s/file", p_ro);
		int fd = open(f, O_RDONLY);
		EXPECT_OK("read ro/file", fd);
		if (fd >= 0)
			close(fd);
		EXPECT_ERR("write ro/file", open(f, O_WRONLY), EACCES);
		EXPECT_ERR("truncate ro/file", truncate(f, 0), EACCES);
		snprintf(f, sizeof f, "%s/new", p_ro);
		EXPECT_ERR("create ro/new", open(f, O_WRONLY | O_CREAT, 0644), EACCES);
		snprintf(f, sizeof f, "%s/new", p_rw);
		fd = open(f, O_WRONLY | O_CREAT, 0644);
		EXPECT_OK("create rw/new", fd);
		if (fd >= 0)
			close(fd);
		EXPECT_OK("unlink rw/new", unlink(f));
		EXPECT_OK("write /dev/null", open("/dev/null", O_WRONLY));
		EXPECT_ERR("read /tmp (not granted)", open("/tmp", O_RDONLY | O_DIRECTORY), EACCES);
		/* ro/ has read only, no execute */
		char *argv[] = {p_prog, NULL};
		EXPECT_ERR("exec ro/prog without execute", execv(p_prog, argv), EACCES);
		_exit(fails);
	}
	assert_int_equal(ku_wait(pid), 0);
}

/* The command exemption: the command itself gets read_file+execute. */
static void test_cmd_exempt(void **state)
{
	(void)state;
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct pol_dir d[16];
		size_t n = sys_dirs(d);
		struct sbx_landlock_spec s = {.dirs = d, .ndirs = n, .net_mode = POL_NET_NONE, .cmd = p_prog};
		struct sbx_landlock_result r;
		if (apply(&s, &r) < 0)
			_exit(90);
		char *argv[] = {p_prog, NULL};
		execv(p_prog, argv);
		fprintf(stderr, "# child: exec %s: %s\n", p_prog, strerror(errno));
		_exit(91);
	}
	assert_int_equal(ku_wait(pid), 0);
}

/* A process outside the sandbox cannot be signalled; one inside can. */
static void test_scope_signal(void **state)
{
	(void)state;
	pid_t victim = fork();
	assert_true(victim >= 0);
	if (victim == 0) {
		for (;;)
			pause();
	}
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct pol_dir d[16];
		size_t n = sys_dirs(d);
		struct sbx_landlock_spec s = {.dirs = d, .ndirs = n, .net_mode = POL_NET_NONE};
		struct sbx_landlock_result r;
		if (apply(&s, &r) < 0)
			_exit(90);
		fails = 0;
		EXPECT_ERR("kill(outside process, SIGKILL)", kill(victim, SIGKILL), EPERM);
		EXPECT_ERR("kill(parent, SIGTERM)", kill(getppid(), SIGTERM), EPERM);
		pid_t inner = fork();
		if (inner == 0) {
			for (;;)
				pause();
		}
		EXPECT_OK("kill(own child)", kill(inner, SIGKILL));
		ku_wait(inner);
		_exit(fails);
	}
	int rc = ku_wait(pid);
	/* the victim must still be alive: signal 0 succeeds */
	assert_int_equal(kill(victim, 0), 0);
	kill(victim, SIGKILL);
	ku_wait(victim);
	assert_int_equal(rc, 0);
}

static void test_scope_abstract_unix(void **state)
{
	(void)state;
	int srv = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_true(srv >= 0);
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int len = snprintf(sa.sun_path + 1, sizeof sa.sun_path - 1, "sbx-test-landlock-%d", (int)getpid());
	socklen_t sl = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + len);
	assert_int_equal(bind(srv, (struct sockaddr *)&sa, sl), 0);
	assert_int_equal(listen(srv, 4), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct pol_dir d[16];
		size_t n = sys_dirs(d);
		struct sbx_landlock_spec s = {.dirs = d, .ndirs = n, .net_mode = POL_NET_NONE};
		struct sbx_landlock_result r;
		if (apply(&s, &r) < 0)
			_exit(90);
		fails = 0;
		int c = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		EXPECT_ERR("connect to an outside abstract socket", connect(c, (struct sockaddr *)&sa, sl), EPERM);
		_exit(fails);
	}
	int rc = ku_wait(pid);
	close(srv);
	assert_int_equal(rc, 0);
}

/* /proc: the top-level files and the process's own /proc/<pid>; never another process's. */
static void test_proc_narrowed(void **state)
{
	(void)state;
	pid_t victim = fork();
	assert_true(victim >= 0);
	if (victim == 0) {
		for (;;)
			pause();
	}
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct pol_dir d[16];
		size_t n = sys_dirs(d);
		d[n++] = (struct pol_dir){"/proc", POL_READ, 0};
		d[n++] = (struct pol_dir){"/proc/self", POL_READ, 0};
		struct sbx_landlock_spec s = {.dirs = d, .ndirs = n, .net_mode = POL_NET_NONE};
		struct sbx_landlock_result r;
		if (apply(&s, &r) < 0)
			_exit(90);
		fails = 0;
		if (!strstr(r.notes, "/proc"))
			fails++;
		int fd = open("/proc/meminfo", O_RDONLY);
		EXPECT_OK("read /proc/meminfo", fd);
		if (fd >= 0)
			close(fd);
		fd = open("/proc/self/status", O_RDONLY);
		EXPECT_OK("read /proc/self/status", fd);
		if (fd >= 0)
			close(fd);
		char p[64];
		snprintf(p, sizeof p, "/proc/%d/environ", (int)victim);
		EXPECT_ERR("read another process's environ", open(p, O_RDONLY), EACCES);
		snprintf(p, sizeof p, "/proc/%d/environ", (int)getppid());
		EXPECT_ERR("read the parent's environ", open(p, O_RDONLY), EACCES);
		EXPECT_ERR("list /proc/sys (a subdirectory)", open("/proc/sys/kernel/hostname", O_RDONLY), EACCES);
		_exit(fails);
	}
	int rc = ku_wait(pid);
	kill(victim, SIGKILL);
	ku_wait(victim);
	assert_int_equal(rc, 0);
}

/* A smaller ABI degrades right by right, with the reasons, and still enforces what it has. */
static void test_abi3_degraded(void **state)
{
	(void)state;
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct pol_dir d[16];
		size_t n = sys_dirs(d);
		d[n++] = (struct pol_dir){p_ro, POL_READ, 0};
		struct sbx_landlock_spec s = {.dirs = d, .ndirs = n, .net_mode = POL_NET_NONE, .abi_cap = 3};
		struct sbx_landlock_result r;
		if (apply(&s, &r) < 0)
			_exit(90);
		fails = 0;
		if (r.abi != 3 || r.net || r.scope || !strstr(r.degraded, "no TCP port rules") ||
		    !strstr(r.degraded, "no signal / abstract unix socket scoping") ||
		    !strstr(r.degraded, "no IOCTL_DEV") || strstr(r.degraded, "TRUNCATE") ||
		    strcmp(r.flags, "none") || !strstr(r.net_why, "abi 3")) {
			fprintf(stderr, "# child: abi %d net %d scope %d degraded '%s' flags '%s' net_why '%s'\n", r.abi,
				r.net, r.scope, r.degraded, r.flags, r.net_why);
			fails++;
		}
		char f[200];
		snprintf(f, sizeof f, "%s/file", p_secret);
		EXPECT_ERR("read secret/file (abi 3)", open(f, O_RDONLY), EACCES);
		snprintf(f, sizeof f, "%s/file", p_ro);
		EXPECT_ERR("truncate ro/file (abi 3 has TRUNCATE)", truncate(f, 0), EACCES);
		_exit(fails);
	}
	assert_int_equal(ku_wait(pid), 0);
}

static int listen_lo(uint16_t *port)
{
	int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t l = sizeof a;
	if (s < 0 || bind(s, (struct sockaddr *)&a, sizeof a) || listen(s, 8) ||
	    getsockname(s, (struct sockaddr *)&a, &l))
		return -1;
	*port = ntohs(a.sin_port);
	return s;
}

static int connect_lo(uint16_t port)
{
	int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port),
				.sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	int rc = connect(s, (struct sockaddr *)&a, sizeof a);
	int e = errno;
	close(s);
	errno = e;
	return rc;
}

static int bind_lo(uint16_t port)
{
	int b = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port),
				.sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	int rc = bind(b, (struct sockaddr *)&a, sizeof a);
	int e = errno;
	close(b);
	errno = e;
	return rc;
}

/* mode: 0 list with port P only, 1 no network, 2 list with a port-less rule, 3 list with port P but
 * netfilter on (issue 15: TCP left to netfilter), 4 list with port P and loopback bind port Q */
static int net_child(int mode, uint16_t p, uint16_t q)
{
	struct pol_dir d[16];
	size_t n = sys_dirs(d);
	uint16_t ports[1] = {p}, bports[1] = {q};
	struct sbx_landlock_spec s = {.dirs = d, .ndirs = n, .net_mode = mode == 1 ? POL_NET_NONE : POL_NET_LIST,
				      .ports = ports, .nports = 1, .portless = mode == 2, .netfilter = mode == 3,
				      .bind_ports = bports, .nbind_ports = mode == 4};
	struct sbx_landlock_result r;
	if (apply(&s, &r) < 0)
		return 90;
	fails = 0;
	if (mode == 0) {
		if (!r.net)
			fails++;
		EXPECT_OK("connect to the granted port", connect_lo(p));
		EXPECT_ERR("connect to another port", connect_lo(q), EACCES);
		int b = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
		EXPECT_ERR("bind", bind(b, (struct sockaddr *)&a, sizeof a), EACCES);
	} else if (mode == 1) {
		if (!r.net)
			fails++;
		EXPECT_ERR("connect with no network capability", connect_lo(p), EACCES);
	} else if (mode == 3) {
		if (r.net || !strstr(r.net_why, "netfilter"))
			fails++;
		EXPECT_OK("connect to another port: netfilter's decision, not Landlock's", connect_lo(q));
	} else if (mode == 4) {
		EXPECT_ERR("bind the granted loopback port (in use: the kernel's answer)", bind_lo(q), EADDRINUSE);
		EXPECT_ERR("bind another port", bind_lo(0), EACCES);
		EXPECT_OK("connect to the granted port", connect_lo(p));
	} else {
		if (r.net || !r.net_why[0])
			fails++;
		EXPECT_OK("connect, TCP not handled", connect_lo(q));
	}
	return fails;
}

static void net_case(int mode)
{
	uint16_t p, q;
	int sp = listen_lo(&p), sq = listen_lo(&q);
	assert_true(sp >= 0 && sq >= 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0)
		_exit(net_child(mode, p, q));
	int rc = ku_wait(pid);
	close(sp);
	close(sq);
	assert_int_equal(rc, 0);
}

static void test_net_ports(void **state) { (void)state; net_case(0); }
static void test_net_none(void **state) { (void)state; net_case(1); }
static void test_net_portless(void **state) { (void)state; net_case(2); }
static void test_net_left_to_netfilter(void **state) { (void)state; net_case(3); }
static void test_net_loopback_bind(void **state) { (void)state; net_case(4); }


/* --- exec without code:exec (escape finding 1) ------------------------------------------- */

/* build-X/tests/progs/k_attack_static, next to this test binary (build-X/tests/test_landlock). */
static const char *attack_prog(void)
{
	static char p[4096];
	ssize_t n = readlink("/proc/self/exe", p, sizeof p - 40);
	if (n <= 0)
		return NULL;
	p[n] = 0;
	char *sl = strrchr(p, '/');
	if (!sl)
		return NULL;
	snprintf(sl, 40, "/progs/k_attack_static");
	return access(p, X_OK) == 0 ? p : NULL;
}

/* Apply with the system dirs (which carry POL_EXEC in the table) and `cmd`, then exec argv.
 * Returns the exec'd program's exit status; 90/91 for setup failures. `want_exec` is checked
 * against r.exec (a substring) when not NULL. */
static int run_exec_case(const char *cmd, char *const argv[], bool cmd_only, const char *want_exec,
			 bool strip_dirs_exec)
{
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct pol_dir d[16];
		size_t n = sys_dirs(d);
		if (strip_dirs_exec)
			for (size_t i = 0; i < n; i++)
				d[i].access &= ~(unsigned)POL_EXEC;
		d[n++] = (struct pol_dir){p_ro, POL_READ, 0};
		struct sbx_landlock_spec s = {.dirs = d, .ndirs = n, .net_mode = POL_NET_NONE, .cmd = cmd,
					      .exec_cmd_only = cmd_only};
		struct sbx_landlock_result r;
		if (apply(&s, &r) < 0)
			_exit(90);
		if (r.exec_cmd_only != cmd_only || (want_exec && !strstr(r.exec, want_exec))) {
			fprintf(stderr, "# child: exec_cmd_only %d, exec '%s', want '%s'\n", r.exec_cmd_only, r.exec,
				want_exec ? want_exec : "");
			_exit(92);
		}
		execv(argv[0], argv);
		fprintf(stderr, "# child: exec %s: %s\n", argv[0], strerror(errno));
		_exit(errno == EACCES ? 93 : 91);
	}
	return ku_wait(pid);
}

/* Without code:exec a static command's raw execve of /bin/true is refused (EACCES); with code:exec
 * (directory EXECUTE grants) it runs. k_attack_static exits with the number of attacks that
 * succeeded. */
static void test_exec_raw_static(void **state)
{
	(void)state;
	const char *k = attack_prog();
	assert_non_null(k);
	char *argv[] = {(char *)k, "exec", "/bin/true", "exec", "/usr/bin/env", NULL};
	assert_int_equal(run_exec_case(k, argv, true, k, false), 0);   /* both blocked */
	assert_int_equal(run_exec_case(k, argv, false, NULL, false), 2); /* code:exec: both ran */
}

/* The kernel opens a dynamic program's ELF interpreter with FMODE_EXEC, so Landlock checks
 * EXECUTE on it: the command file alone is not enough (93 = execve EACCES), the chain is. */
static void test_exec_dynamic_interp(void **state)
{
	(void)state;
	char *argv[] = {"/usr/bin/true", NULL};
	/* code:exec-style grant of the command file only, no directory EXECUTE: exec refused */
	assert_int_equal(run_exec_case("/usr/bin/true", argv, false, NULL, true), 93);
	/* cmd-only mode: command + its PT_INTERP as file rules: it runs */
	assert_int_equal(run_exec_case("/usr/bin/true", argv, true, "ld-linux", false), 0);
	/* ... and a program it starts does not (dash's fork+exec of id fails: 126 or 127) */
	char *sh[] = {"/bin/sh", "-c", "/usr/bin/id >/dev/null 2>&1; exit $?", NULL};
	int rc = run_exec_case("/bin/sh", sh, true, "/bin/sh", false);
	assert_true(rc == 126 || rc == 127);
}

static int write_script(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
	if (fd < 0)
		return -1;
	ssize_t n = write(fd, text, strlen(text));
	close(fd);
	return n == (ssize_t)strlen(text) ? 0 : -1;
}

/* A "#!" script starts (its interpreter and that one's loader are granted), through env too;
 * what the script then tries to exec is refused. */
static void test_exec_script(void **state)
{
	(void)state;
	char sc[200], envsc[200];
	snprintf(sc, sizeof sc, "%s/ro/script.sh", base);
	snprintf(envsc, sizeof envsc, "%s/ro/envscript.sh", base);
	assert_int_equal(write_script(sc, "#!/bin/sh\n/usr/bin/id >/dev/null 2>&1 && exit 1\nexit 7\n"), 0);
	assert_int_equal(write_script(envsc, "#!/usr/bin/env sh\n/usr/bin/id >/dev/null 2>&1 && exit 1\nexit 5\n"), 0);
	char *a1[] = {sc, NULL}, *a2[] = {envsc, NULL};
	assert_int_equal(run_exec_case(sc, a1, true, "/bin/sh", false), 7);
	assert_int_equal(run_exec_case(envsc, a2, true, "/usr/bin/env", false), 5);
	/* with code:exec the script's exec of id works */
	assert_int_equal(run_exec_case(sc, a1, false, NULL, false), 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_probe),
		cmocka_unit_test(test_fs),
		cmocka_unit_test(test_cmd_exempt),
		cmocka_unit_test(test_scope_signal),
		cmocka_unit_test(test_scope_abstract_unix),
		cmocka_unit_test(test_proc_narrowed),
		cmocka_unit_test(test_abi3_degraded),
		cmocka_unit_test(test_net_ports),
		cmocka_unit_test(test_net_left_to_netfilter),
		cmocka_unit_test(test_net_loopback_bind),
		cmocka_unit_test(test_net_none),
		cmocka_unit_test(test_net_portless),
		cmocka_unit_test(test_exec_raw_static),
		cmocka_unit_test(test_exec_dynamic_interp),
		cmocka_unit_test(test_exec_script),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
