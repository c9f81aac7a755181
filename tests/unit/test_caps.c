/* test_caps.c — sbx_caps_drop in a forked child per test: as root the executor keeps uid 0 but no
 * capability (capget empty, bounding set empty, hard rlimits cannot be raised, open_by_handle_at
 * refused, a program exec'd as root starts with no capability); an unprivileged caller succeeds
 * too, and a setuid binary does not change its euid afterwards (no_new_privs). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <linux/capability.h>
#include <grp.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>

#include "caps.h"
#include "child_expect.h"

/* fails, EXPECT, EXPECT_OK, EXPECT_ERR: tests/lib/child_expect.h */

static char base[64], suid_id[128];

static int setup(void **state)
{
	(void)state;
	snprintf(base, sizeof base, "/tmp/sbx-test-caps-XXXXXX");
	if (!mkdtemp(base) || chmod(base, 0755) < 0)
		return -1;
	/* `id` that is setuid root: a normal user running it would become euid 0 */
	snprintf(suid_id, sizeof suid_id, "%s/id", base);
	char cmd[512];
	snprintf(cmd, sizeof cmd, "cp /usr/bin/id %s && chown 0:0 %s && chmod 4755 %s", suid_id, suid_id, suid_id);
	return system(cmd) == 0 ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	char cmd[128];
	snprintf(cmd, sizeof cmd, "rm -rf %s", base);
	return system(cmd) == 0 ? 0 : -1;
}

/* Run argv (after the caller's own setup) and return its stdout (static buffer) or NULL. */
static const char *run_capture(char *const argv[])
{
	static char out[4096];
	int p[2];
	if (pipe(p) < 0)
		return NULL;
	pid_t pid = fork();
	if (pid < 0)
		return NULL;
	if (pid == 0) {
		dup2(p[1], 1);
		close(p[0]);
		close(p[1]);
		execv(argv[0], argv);
		_exit(127);
	}
	close(p[1]);
	size_t n = 0;
	ssize_t r;
	while (n < sizeof out - 1 && (r = read(p[0], out + n, sizeof out - 1 - n)) > 0)
		n += (size_t)r;
	out[n] = 0;
	close(p[0]);
	return ku_wait(pid) == 0 ? out : NULL;
}

static void test_last(void **state)
{
	(void)state;
	char why[256] = "", *s = ku_slurp("/proc/sys/kernel/cap_last_cap");
	assert_non_null(s);
	assert_int_equal(sbx_caps_last(why, sizeof why), atoi(s));
	free(s);
}

/* Root keeps uid 0 but nothing else. */
static void test_drop_root(void **state)
{
	(void)state;
	assert_int_equal(geteuid(), 0); /* this host: tests run as root */
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		fails = 0;
		/* a handle taken while privileged (name_to_handle_at itself needs no capability) */
		struct { struct file_handle fh; unsigned char b[128]; } h;
		h.fh.handle_bytes = sizeof h.b;
		int mnt;
		if (name_to_handle_at(AT_FDCWD, "/etc/hostname", &h.fh, &mnt, 0) < 0)
			_exit(90);
		int mfd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		/* control: with CAP_DAC_READ_SEARCH the handle opens (so the refusal below is the drop's) */
		int hfd = open_by_handle_at(mfd, &h.fh, O_RDONLY);
		EXPECT("control: open_by_handle_at before the drop", hfd >= 0);
		if (hfd >= 0)
			close(hfd);
		/* control for the rlimit check, where the host gives root CAP_SYS_RESOURCE (this CI
		 * container does not: there the capget/CapBnd checks below are the proof) */
		struct rlimit rl;
		getrlimit(RLIMIT_NOFILE, &rl);
		bool sys_resource = prctl(PR_CAPBSET_READ, CAP_SYS_RESOURCE, 0, 0, 0) == 1;
		rl.rlim_max -= 1;
		rl.rlim_cur = rl.rlim_cur > rl.rlim_max ? rl.rlim_max : rl.rlim_cur;
		EXPECT("lower hard NOFILE by one", setrlimit(RLIMIT_NOFILE, &rl) == 0);
		rl.rlim_max += 1;
		if (sys_resource) {
			EXPECT("control: raise hard NOFILE back (CAP_SYS_RESOURCE)", setrlimit(RLIMIT_NOFILE, &rl) == 0);
			rl.rlim_max -= 1;
			EXPECT("lower hard NOFILE by one again", setrlimit(RLIMIT_NOFILE, &rl) == 0);
			rl.rlim_max += 1;
		} else {
			fprintf(stderr, "# note: this host gives root no CAP_SYS_RESOURCE: the hard-limit raise "
					"below is refused with or without the drop\n");
		}
		char why[256] = "";
		if (sbx_caps_drop(why, sizeof why) < 0) {
			fprintf(stderr, "# child: sbx_caps_drop: %s\n", why);
			_exit(91);
		}
		EXPECT("level says dropped", strncmp(why, "dropped", 7) == 0);
		EXPECT("still uid 0", getuid() == 0 && geteuid() == 0);
		struct __user_cap_header_struct hd = {.version = _LINUX_CAPABILITY_VERSION_3};
		struct __user_cap_data_struct d[2];
		EXPECT("capget", syscall(SYS_capget, &hd, d) == 0);
		EXPECT("capget: empty sets", !d[0].effective && !d[0].permitted && !d[0].inheritable &&
						     !d[1].effective && !d[1].permitted && !d[1].inheritable);
		for (int c = 0; c <= CAP_LAST_CAP; c++)
			EXPECT("bounding set empty", prctl(PR_CAPBSET_READ, c, 0, 0, 0) == 0);
		EXPECT("no_new_privs", prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0) == 1);
		/* hard limits cannot be raised (CAP_SYS_RESOURCE) */
		EXPECT_ERR("setrlimit NOFILE above the hard limit", setrlimit(RLIMIT_NOFILE, &rl), EPERM);
		EXPECT_ERR("prlimit NOFILE above the hard limit", prlimit(0, RLIMIT_NOFILE, &rl, NULL), EPERM);
		struct rlimit core = {0, 0};
		if (setrlimit(RLIMIT_CORE, &core) == 0) { /* lowering is always allowed ... */
			core.rlim_cur = core.rlim_max = RLIM_INFINITY;
			EXPECT_ERR("raise RLIMIT_CORE", setrlimit(RLIMIT_CORE, &core), EPERM); /* ... raising not */
		}
		/* CAP_DAC_READ_SEARCH gone */
		EXPECT_ERR("open_by_handle_at", open_by_handle_at(mfd, &h.fh, O_RDONLY), EPERM);
		/* a program exec'd by uid 0 starts with no capability either */
		char *argv[] = {"/usr/bin/grep", "-E", "^(Cap|NoNewPrivs)", "/proc/self/status", NULL};
		const char *out = run_capture(argv);
		EXPECT("exec grep", out != NULL);
		if (out) {
			const char *want[] = {"CapInh:\t0000000000000000", "CapPrm:\t0000000000000000",
					      "CapEff:\t0000000000000000", "CapBnd:\t0000000000000000",
					      "CapAmb:\t0000000000000000", "NoNewPrivs:\t1"};
			for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
				if (!strstr(out, want[i])) {
					fprintf(stderr, "# child: exec'd program: no '%s' in:\n%s", want[i], out);
					fails++;
				}
		}
		/* not a secure-execution exec (AT_SECURE 0): LD_PRELOAD (the preload layer) still works */
		setenv("LD_SHOW_AUXV", "1", 1);
		char *tv[] = {"/usr/bin/true", NULL};
		out = run_capture(tv);
		const char *sec = out ? strstr(out, "AT_SECURE:") : NULL;
		if (sec)
			sec += strlen("AT_SECURE:") + strspn(sec + strlen("AT_SECURE:"), " \t");
		EXPECT("exec'd program has AT_SECURE 0", sec && !strncmp(sec, "0\n", 2));
		unsetenv("LD_SHOW_AUXV");
		_exit(fails);
	}
	assert_int_equal(ku_wait(pid), 0);
}

/* An unprivileged caller: nothing to drop, not an error; a setuid-root binary stays unprivileged. */
static void test_unprivileged_setuid(void **state)
{
	(void)state;
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		fails = 0;
		if (setgroups(0, NULL) < 0 || setresgid(65534, 65534, 65534) < 0 || setresuid(65534, 65534, 65534) < 0)
			_exit(90);
		/* control: without no_new_privs the setuid binary would give euid 0 */
		char *argv[] = {suid_id, "-u", NULL};
		const char *out = run_capture(argv);
		EXPECT("control: setuid id gives euid 0", out && !strcmp(out, "0\n"));
		char why[256] = "";
		if (sbx_caps_drop(why, sizeof why) < 0) {
			fprintf(stderr, "# child: sbx_caps_drop (unprivileged): %s\n", why);
			_exit(91);
		}
		EXPECT("level says none held", strncmp(why, "none held", 9) == 0);
		out = run_capture(argv);
		EXPECT("setuid id after drop: euid stays 65534", out && !strcmp(out, "65534\n"));
		if (out && strcmp(out, "65534\n"))
			fprintf(stderr, "# child: id -u printed '%s'\n", out);
		_exit(fails);
	}
	assert_int_equal(ku_wait(pid), 0);
}

/* sbx_caps_effective: what the no-namespace fallback asks before switching identity. Root holds
 * CAP_SETUID; after setresuid to 65534 (no keep-caps) nothing is effective any more. */
static void test_effective(void **state)
{
	(void)state;
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		fails = 0;
		EXPECT("root: CAP_SETUID effective", sbx_caps_effective(CAP_SETUID));
		EXPECT("root: CAP_SETPCAP effective", sbx_caps_effective(CAP_SETPCAP));
		EXPECT("out of range: false", !sbx_caps_effective(-1) && !sbx_caps_effective(64));
		if (setgroups(0, NULL) < 0 || setresgid(65534, 65534, 65534) < 0 || setresuid(65534, 65534, 65534) < 0)
			_exit(90);
		EXPECT("uid 65534: CAP_SETUID gone", !sbx_caps_effective(CAP_SETUID));
		EXPECT("uid 65534: CAP_SETGID gone", !sbx_caps_effective(CAP_SETGID));
		_exit(fails);
	}
	assert_int_equal(ku_wait(pid), 0);
}

int main(void)
{
	if (geteuid() != 0) { /* the fixture is a setuid-root copy of id(1); the tests drop root */
		printf("1..1\nok 1 - caps # SKIP needs root (a setuid-root test binary, dropping root)\n");
		return 0;
	}
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_last),
		cmocka_unit_test(test_drop_root),
		cmocka_unit_test(test_unprivileged_setuid),
		cmocka_unit_test(test_effective),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
