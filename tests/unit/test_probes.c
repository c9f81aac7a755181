/* test_probes.c — the probes layer with real BPF on this kernel (needs root / CAP_BPF+CAP_PERFMON).
 *
 * Harness: a policy built from a hand-made manifest (workspace = a temp dir, code:exec, network
 * 127.0.0.1:8080 only), sbx_probes_start in pid mode (and once in cgroup v2 mode), then for each
 * attack a forked child that waits for "go", is armed with sbx_probes_arm, and execs an attack
 * program from tests/progs. The audit stream is a temp file; each test asserts the attack's result
 * AND the kernel.violation fields (or their absence).
 * Also pure tests of the record decoder (path assembly, /proc/self rewrite, access, rules). */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <cmocka.h>
#include <cjson/cJSON.h>

#include "audit.h"
#include "policy.h"
#include "policy_build.h"
#include "probes_bpf.h"
#include "probes_decode.h"
#include "probes_layer.h"

struct env {
	char ws[64];
	char audit_path[128];
	void *blob;
	const struct policy *p;
	struct audit a;
	struct sbx_probes *pr;
	char progs[512];
	size_t audit_off;             /* bytes of the audit file already looked at */
};
static struct env E;

/* run_attack's child binds G_bind[0] onto G_bind[1] (and G_bind[2] onto G_bind[3], when set) in a
 * private mount namespace before its exec (the in-kernel decision's path check: a granted directory
 * reached through another path). */
static const char *G_bind[4];

static const char *progs_dir(void)
{
	const char *d = getenv("SBX_PROGS");
	if (d)
		return d;
	const char *b = getenv("B");
	static char buf[512];
	snprintf(buf, sizeof(buf), "%s/tests/progs", b ? b : "build");
	return buf;
}

static int build_policy(void)
{
	static struct mf_host host = { .kind = MF_HOST_V4, .text = "127.0.0.1:8080", .prefix = 32,
				       .port = 8080, .jpath = "capabilities[2].hosts[0]" };
	host.addr[0] = 127;
	host.addr[3] = 1;
	struct manifest m = {
		.version = 1, .name = "probes-test", .autonomy = MF_AUTONOMY_SUPERVISED,
		.code_exec = true, .workspace = E.ws, .home = "/home/nobody-probes-test",
		.net_granted = true, .hosts = &host, .nhosts = 1,
	};
	struct pol_build_opts o = { .resolve = false, .uid = getuid() };
	size_t len;
	char err[256];
	if (pol_build(&m, &o, &E.blob, &len, err, sizeof(err)) != 0) {
		fprintf(stderr, "pol_build: %s\n", err);
		return -1;
	}
	const char *why;
	E.p = pol_open(E.blob, len, &why);
	if (!E.p)
		fprintf(stderr, "pol_open: %s\n", why);
	return E.p ? 0 : -1;
}

static int group_setup(void **state)
{
	(void)state;
	snprintf(E.ws, sizeof(E.ws), "/tmp/sbxsup-probes-ws.XXXXXX");
	if (!mkdtemp(E.ws))
		return -1;
	snprintf(E.audit_path, sizeof(E.audit_path), "%s/audit.jsonl", E.ws);
	snprintf(E.progs, sizeof(E.progs), "%s", progs_dir());
	if (build_policy() != 0)
		return -1;
	char err[256];
	if (audit_open(&E.a, E.audit_path, "probes-test", err, sizeof(err)) != 0) {
		fprintf(stderr, "audit_open: %s\n", err);
		return -1;
	}
	return 0;
}

static int group_teardown(void **state)
{
	(void)state;
	audit_close(&E.a);
	free(E.blob);
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", E.ws);
	if (system(cmd) != 0)
		return -1;
	return 0;
}

static int start_pidmode(void **state)
{
	(void)state;
	char level[256], why[256] = "";
	if (sbx_probes_start(E.p, 0, &E.pr, level, sizeof(level), why, sizeof(why)) != 0) {
		fprintf(stderr, "sbx_probes_start: %s\n", why);
		return -1;
	}
	return 0;
}

static int stop_probes(void **state)
{
	(void)state;
	sbx_probes_stop(E.pr);
	E.pr = NULL;
	return 0;
}

static void drain_all(struct sbx_probes *pr)
{
	int n;
	while ((n = sbx_probes_drain(pr, &E.a)) > 0)
		;
	assert_int_equal(n, 0);
}

/* Fork, optionally join a cgroup, wait for "go", open pre_exec_path (must never be reported), exec
 * argv. The parent arms the child's pid, says go, drains while waiting. Returns the exit status. */
static int run_attack(struct sbx_probes *pr, const char *cgroup_procs, const char *pre_exec_path,
		      char *const argv[])
{
	int go[2];
	assert_int_equal(pipe(go), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(go[1]);
		if (cgroup_procs) {
			int fd = open(cgroup_procs, O_WRONLY);
			if (fd < 0 || dprintf(fd, "%d\n", getpid()) <= 0)
				_exit(99);
			close(fd);
		}
		if (G_bind[0] && (unshare(CLONE_NEWNS) != 0 ||
				  mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0 ||
				  mount(G_bind[0], G_bind[1], NULL, MS_BIND, NULL) != 0 ||
				  (G_bind[2] && mount(G_bind[2], G_bind[3], NULL, MS_BIND, NULL) != 0)))
			_exit(97);
		char c;
		if (read(go[0], &c, 1) != 1)
			_exit(98);
		if (pre_exec_path) {
			int fd = open(pre_exec_path, O_RDONLY);
			if (fd >= 0)
				close(fd);
		}
		execv(argv[0], argv);
		_exit(127);
	}
	close(go[0]);
	assert_int_equal(sbx_probes_arm(pr, pid), 0);
	assert_int_equal(write(go[1], "g", 1), 1);
	close(go[1]);
	struct pollfd pfd = { .fd = sbx_probes_fd(pr), .events = POLLIN };
	int st = 0;
	for (;;) {
		pid_t w = waitpid(pid, &st, WNOHANG);
		if (w == pid)
			break;
		assert_true(w == 0);
		if (poll(&pfd, 1, 50) > 0)
			assert_true(sbx_probes_drain(pr, &E.a) >= 0);
	}
	drain_all(pr);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* The kernel.violation lines written since the last call (caller frees with cJSON_Delete). */
static cJSON *new_violations(void)
{
	cJSON *arr = cJSON_CreateArray();
	FILE *f = fopen(E.audit_path, "r");
	assert_non_null(f);
	assert_int_equal(fseek(f, (long)E.audit_off, SEEK_SET), 0);
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	while ((n = getline(&line, &cap, f)) > 0) {
		E.audit_off += (size_t)n;
		cJSON *o = cJSON_Parse(line);
		assert_non_null(o);
		cJSON *ev = cJSON_GetObjectItem(o, "event");
		if (cJSON_IsString(ev) && !strcmp(ev->valuestring, "kernel.violation"))
			cJSON_AddItemToArray(arr, o);
		else
			cJSON_Delete(o);
	}
	free(line);
	fclose(f);
	return arr;
}

static const char *sget(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItem(o, k);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static double nget(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItem(o, k);
	return cJSON_IsNumber(v) ? v->valuedouble : -1;
}

/* Find a violation with syscall and path (or addr); NULL if none. */
static const cJSON *find(const cJSON *arr, const char *syscall, const char *key, const char *val)
{
	const cJSON *o;
	cJSON_ArrayForEach(o, arr) {
		const char *s = sget(o, "syscall"), *v = sget(o, key);
		if (s && v && !strcmp(s, syscall) && !strcmp(v, val))
			return o;
	}
	return NULL;
}

static void dump(const cJSON *arr)
{
	char *t = cJSON_Print(arr);
	fprintf(stderr, "violations: %s\n", t);
	free(t);
}

/* The violation that must be there: on failure the whole list goes to stderr before the assert. */
static const cJSON *must_find(const cJSON *arr, const char *syscall, const char *key, const char *val)
{
	const cJSON *o = find(arr, syscall, key, val);
	if (!o)
		dump(arr);
	assert_non_null(o);
	return o;
}

static void prog(char *out, size_t len, const char *name)
{
	snprintf(out, len, "%s/%s", E.progs, name);
}

/* ---- attacks ------------------------------------------------------------------------------------ */

static void test_static_reader_breach(void **state)
{
	(void)state;
	char p[600];
	prog(p, sizeof(p), "pr_static_reader_static");
	char *argv[] = { p, "/etc/shadow", NULL };
	assert_int_equal(run_attack(E.pr, NULL, "/etc/gshadow", argv), 0); /* root: the read succeeds */
	cJSON *v = new_violations();
	const cJSON *o = must_find(v, "openat", "path", "/etc/shadow");
	assert_string_equal(sget(o, "outcome"), "breach");
	assert_string_equal(sget(o, "access"), "read");
	assert_string_equal(sget(o, "requested"), "/etc/shadow");
	assert_string_equal(sget(o, "sensor"), "tp_btf:sys_exit");
	assert_string_equal(sget(o, "src"), "kernel");
	assert_non_null(sget(o, "rule"));
	assert_true(strstr(sget(o, "rule"), "shadow") || strstr(sget(o, "rule"), "secret"));
	assert_non_null(strstr(sget(o, "exe"), "pr_static_reader_static"));
	/* the child's own open before the exec is not the executor's: never reported */
	assert_null(find(v, "openat", "path", "/etc/gshadow"));
	assert_null(find(v, "execve", "syscall", "execve"));
	cJSON_Delete(v);
}

static void test_contained_errno(void **state)
{
	(void)state;
	char p[600];
	prog(p, sizeof(p), "pr_attack");
	char *argv[] = { p, "rawopen", "/root/definitely-not-here", NULL };
	assert_int_equal(run_attack(E.pr, NULL, NULL, argv), 1);
	cJSON *v = new_violations();
	const cJSON *o = must_find(v, "openat", "path", "/root/definitely-not-here");
	assert_string_equal(sget(o, "outcome"), "contained");
	assert_int_equal((int)nget(o, "errno"), ENOENT);
	cJSON_Delete(v);
}

static void test_raw_syscall_dynamic(void **state)
{
	(void)state;
	char p[600];
	prog(p, sizeof(p), "pr_attack");
	char *argv[] = { p, "rawopen", "/etc/shadow", NULL };
	assert_int_equal(run_attack(E.pr, NULL, NULL, argv), 0);
	cJSON *v = new_violations();
	const cJSON *o = must_find(v, "openat", "path", "/etc/shadow");
	assert_string_equal(sget(o, "comm"), "pr_attack");
	cJSON_Delete(v);
}

static void test_relative_and_dirfd(void **state)
{
	(void)state;
	char p[600];
	prog(p, sizeof(p), "pr_attack");
	char *a1[] = { p, "rel", "/etc/ssl", "../shadow", NULL };
	assert_int_equal(run_attack(E.pr, NULL, NULL, a1), 0);
	cJSON *v = new_violations();
	const cJSON *o = must_find(v, "openat", "path", "/etc/shadow");
	assert_string_equal(sget(o, "requested"), "../shadow");
	cJSON_Delete(v);

	/* a failed relative open: the path comes from the cwd walk + the requested string */
	char *a2[] = { p, "rel", "/etc", "shadow-nope", NULL };
	assert_int_equal(run_attack(E.pr, NULL, NULL, a2), 1);
	v = new_violations();
	o = must_find(v, "openat", "path", "/etc/shadow-nope");
	assert_string_equal(sget(o, "outcome"), "contained");
	cJSON_Delete(v);

	char *a3[] = { p, "dirfd", "/etc", "gshadow", NULL };
	assert_int_equal(run_attack(E.pr, NULL, NULL, a3), 0);
	v = new_violations();
	o = must_find(v, "openat", "path", "/etc/gshadow");
	assert_string_equal(sget(o, "requested"), "gshadow");
	cJSON_Delete(v);

	char *a4[] = { p, "dirfd", "/root", "nope/x", NULL };
	assert_int_equal(run_attack(E.pr, NULL, NULL, a4), 1);
	v = new_violations();
	o = must_find(v, "openat", "path", "/root/nope/x");
	cJSON_Delete(v);
}

static void test_allowed_not_reported(void **state)
{
	(void)state;
	char p[600], f[128];
	prog(p, sizeof(p), "pr_attack");
	snprintf(f, sizeof(f), "%s/out.txt", E.ws);
	char *a1[] = { p, "rawwrite", f, NULL };      /* the workspace is writable */
	assert_int_equal(run_attack(E.pr, NULL, NULL, a1), 0);
	char *a2[] = { p, "rawopen", "/usr/bin/env", NULL };
	assert_int_equal(run_attack(E.pr, NULL, NULL, a2), 0);
	char *a3[] = { p, "rawopen", "/proc/self/status", NULL }; /* /proc/<own pid> -> /proc/self */
	assert_int_equal(run_attack(E.pr, NULL, NULL, a3), 0);
	cJSON *v = new_violations();
	assert_null(find(v, "openat", "path", f));
	assert_null(find(v, "openat", "path", "/usr/bin/env"));
	const cJSON *o;
	cJSON_ArrayForEach(o, v) {
		const char *path = sget(o, "path");
		if (path && !strncmp(path, "/proc/", 6))
			dump(v);
		assert_false(path && !strncmp(path, "/proc/", 6));
	}
	cJSON_Delete(v);
}

static void test_write_denied(void **state)
{
	(void)state;
	char p[600];
	prog(p, sizeof(p), "pr_attack");
	char *a1[] = { p, "rawwrite", "/usr/sbxsup-probes-test-nope/x", NULL };
	assert_int_equal(run_attack(E.pr, NULL, NULL, a1), 1);
	cJSON *v = new_violations();
	const cJSON *o = must_find(v, "openat", "path", "/usr/sbxsup-probes-test-nope/x");
	assert_string_equal(sget(o, "access"), "write");
	assert_string_equal(sget(o, "outcome"), "contained");
	cJSON_Delete(v);
}

static void test_connect(void **state)
{
	(void)state;
	char p[600];
	prog(p, sizeof(p), "pr_attack");
	char *a1[] = { p, "connect", "127.0.0.2", "9", NULL };
	assert_int_equal(run_attack(E.pr, NULL, NULL, a1), 1);   /* nothing listens: refused */
	char *a2[] = { p, "connect", "127.0.0.1", "8080", NULL }; /* granted: never reported */
	run_attack(E.pr, NULL, NULL, a2);
	cJSON *v = new_violations();
	const cJSON *o = must_find(v, "connect", "addr", "127.0.0.2");
	assert_int_equal((int)nget(o, "port"), 9);
	assert_string_equal(sget(o, "access"), "connect");
	assert_string_equal(sget(o, "outcome"), "contained");
	assert_int_equal((int)nget(o, "errno"), ECONNREFUSED);
	assert_null(find(v, "connect", "addr", "127.0.0.1"));
	cJSON_Delete(v);

	/* a connect that succeeds to a non-granted port: breach, the peer read from the kernel socket */
	int ls = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_true(ls >= 0);
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t sl = sizeof(sa);
	assert_int_equal(bind(ls, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(listen(ls, 4), 0);
	assert_int_equal(getsockname(ls, (struct sockaddr *)&sa, &sl), 0);
	char port[16];
	snprintf(port, sizeof(port), "%u", ntohs(sa.sin_port));
	char *a3[] = { p, "connect", "127.0.0.1", port, NULL };
	assert_int_equal(run_attack(E.pr, NULL, NULL, a3), 0);
	close(ls);
	v = new_violations();
	o = must_find(v, "connect", "addr", "127.0.0.1");
	assert_int_equal((int)nget(o, "port"), ntohs(sa.sin_port));
	assert_string_equal(sget(o, "outcome"), "breach");
	cJSON_Delete(v);
}

static void test_int80(void **state)
{
	(void)state;
#if defined(__x86_64__)
	char p[600];
	prog(p, sizeof(p), "pr_attack");
	char *a1[] = { p, "int80", "/etc/shadow", NULL };
	int rc = run_attack(E.pr, NULL, NULL, a1);
	cJSON *v = new_violations();
	const cJSON *o = find(v, "open", "path", "/etc/shadow");
	if (rc == 1 && !o) {   /* kernel without ia32 emulation: int 0x80 returns ENOSYS */
		cJSON_Delete(v);
		skip();
	}
	if (!o)
		dump(v);
	assert_non_null(o);
	assert_true(cJSON_IsTrue(cJSON_GetObjectItem(o, "compat")));
	cJSON_Delete(v);
#else
	skip();
#endif
}

static void test_exec_stripped(void **state)
{
	(void)state;
	char p[600], r[600];
	prog(p, sizeof(p), "pr_attack");
	prog(r, sizeof(r), "pr_static_reader_static");
	char *a1[] = { p, "exec-stripped", r, "/etc/shadow", NULL };
	assert_int_equal(run_attack(E.pr, NULL, NULL, a1), 0);
	cJSON *v = new_violations();
	const cJSON *o = must_find(v, "openat", "path", "/etc/shadow");
	assert_string_equal(sget(o, "comm"), "pr_static_reade");
	/* the full exe, from the kernel's exec record (the process is gone by now) */
	char real[4096];
	assert_non_null(realpath(r, real));
	assert_string_equal(sget(o, "exe"), real);
	cJSON_Delete(v);
}

static void test_io_uring_escape(void **state)
{
	(void)state;
	char p[600];
	prog(p, sizeof(p), "pr_attack");
	char *a1[] = { p, "uring", NULL };
	run_attack(E.pr, NULL, NULL, a1);
	cJSON *v = new_violations();
	const cJSON *o = must_find(v, "io_uring_setup", "rule", KV_RULE_ESCAPE);
	assert_string_equal(sget(o, "access"), "escape");
	cJSON_Delete(v);

	/* an open that never is a syscall: seen at io_uring_submit_req, named as its openat twin
	 * (the kernel's copy of the name, taken at submit) */
	char *a2[] = { p, "uring-open", "/etc/shadow", NULL };
	assert_int_equal(run_attack(E.pr, NULL, NULL, a2), 0);
	v = new_violations();
	o = must_find(v, "io_uring_submit_req", "op", "openat");
	assert_string_equal(sget(o, "sensor"), "tp_btf:io_uring_submit_req");
	assert_string_equal(sget(o, "path"), "/etc/shadow");
	assert_string_equal(sget(o, "access"), "read");
	assert_true(strstr(sget(o, "rule"), "shadow") || strstr(sget(o, "rule"), "secret"));
	cJSON_Delete(v);

	/* openat + read through the ring: both ops name the file (the read: its fd's file) */
	char *a3[] = { p, "uring-read", "/etc/shadow", NULL };
	assert_int_equal(run_attack(E.pr, NULL, NULL, a3), 0);
	v = new_violations();
	o = must_find(v, "io_uring_submit_req", "op", "openat");
	assert_string_equal(sget(o, "path"), "/etc/shadow");
	o = must_find(v, "io_uring_submit_req", "op", "read");
	assert_string_equal(sget(o, "path"), "/etc/shadow");
	assert_string_equal(sget(o, "access"), "read");
	assert_true(strstr(sget(o, "rule"), "shadow") || strstr(sget(o, "rule"), "secret"));
	cJSON_Delete(v);

	/* a connect through the ring: decided on the kernel's copy of the address, as connect(2) */
	char *a5[] = { p, "uring-connect", "127.0.0.2", "9", NULL };
	run_attack(E.pr, NULL, NULL, a5);
	v = new_violations();
	o = must_find(v, "io_uring_submit_req", "op", "connect");
	assert_string_equal(sget(o, "addr"), "127.0.0.2");
	assert_int_equal((int)nget(o, "port"), 9);
	assert_string_equal(sget(o, "access"), "connect");
	assert_string_not_equal(sget(o, "rule"), KV_RULE_ESCAPE);
	cJSON_Delete(v);

	/* an allowed file through the ring: still reported (escape class), with its path */
	char *a4[] = { p, "uring-open", "/etc/hostname", NULL };
	run_attack(E.pr, NULL, NULL, a4);
	v = new_violations();
	o = must_find(v, "io_uring_submit_req", "op", "openat");
	assert_string_equal(sget(o, "rule"), KV_RULE_ESCAPE);
	assert_string_equal(sget(o, "path"), "/etc/hostname");
	cJSON_Delete(v);
}

static void test_unshare_and_memfd_exec(void **state)
{
	(void)state;
	char p[600];
	prog(p, sizeof(p), "pr_attack");
	char *a1[] = { p, "unshare", NULL };
	run_attack(E.pr, NULL, NULL, a1);
	char *a2[] = { p, "memfd-exec", "/bin/true", NULL };
	assert_int_equal(run_attack(E.pr, NULL, NULL, a2), 0);   /* /bin/true ran from the memfd */
	cJSON *v = new_violations();
	const cJSON *o = must_find(v, "unshare", "rule", KV_RULE_ESCAPE);
	o = must_find(v, "execveat", "rule", KV_RULE_ESCAPE);
	assert_non_null(strstr(sget(o, "path"), "/memfd:payload"));
	assert_string_equal(sget(o, "outcome"), "breach");
	cJSON_Delete(v);
}

/* Signals without a pid namespace (the harness runs the attack in the root namespace): a victim
 * outside the run gets signal 0 (breach, reported with target_pid and signal); pidfd_open and
 * pidfd_send_signal of it are reported; the attack's own child is a process of the run (silent). */
static void test_signals_outside(void **state)
{
	(void)state;
	pid_t victim = fork();
	assert_true(victim >= 0);
	if (victim == 0) {
		pause();
		_exit(0);
	}
	char p[600], vs[32];
	prog(p, sizeof(p), "pr_escape");
	snprintf(vs, sizeof(vs), "%d", (int)victim);
	char *a1[] = { p, "kill", vs, "0", NULL };
	int rc1 = run_attack(E.pr, NULL, NULL, a1);
	char *a2[] = { p, "pidfd", vs, "0", NULL };
	int rc2 = run_attack(E.pr, NULL, NULL, a2);
	char *a3[] = { p, "kill-child", NULL };
	int rc3 = run_attack(E.pr, NULL, NULL, a3);
	assert_int_equal(kill(victim, 0), 0);          /* signal 0 only: the victim is alive */
	kill(victim, SIGKILL);
	waitpid(victim, NULL, 0);
	assert_int_equal(rc1, 0);
	assert_int_equal(rc2, 0);
	assert_int_equal(rc3, 0);
	cJSON *v = new_violations();
	const cJSON *o = must_find(v, "kill", "rule", PR_RULE_SIGNAL);
	assert_string_equal(sget(o, "outcome"), "breach");
	assert_string_equal(sget(o, "access"), "signal");
	assert_int_equal(cJSON_GetObjectItem(o, "target_pid")->valueint, victim);
	assert_int_equal(cJSON_GetObjectItem(o, "signal")->valueint, 0);
	o = find(v, "pidfd_open", "rule", PR_RULE_SIGNAL);
	assert_non_null(o);
	assert_int_equal(cJSON_GetObjectItem(o, "target_pid")->valueint, victim);
	assert_null(cJSON_GetObjectItem(o, "signal"));
	o = must_find(v, "pidfd_send_signal", "rule", PR_RULE_SIGNAL);
	assert_int_equal(cJSON_GetObjectItem(o, "target_pid")->valueint, victim);
	assert_string_equal(sget(o, "outcome"), "breach");
	/* exactly one kill violation: the kill of the run's own child is not one */
	int kills = 0;
	cJSON_ArrayForEach(o, v) {
		const char *s = sget(o, "syscall");
		kills += s && !strcmp(s, "kill");
	}
	assert_int_equal(kills, 1);
	cJSON_Delete(v);
}

/* The seccomp deny list and AF_UNIX names from a dynamic binary with raw syscalls. */
static void test_denylist_and_unix(void **state)
{
	(void)state;
	char p[600];
	prog(p, sizeof(p), "pr_escape");
	char *a1[] = { p, "keyctl", NULL };
	run_attack(E.pr, NULL, NULL, a1);
	char *a2[] = { p, "packet", NULL };
	run_attack(E.pr, NULL, NULL, a2);
	char *a3[] = { p, "unix", "@sbxsup-unit-abstract", NULL };
	run_attack(E.pr, NULL, NULL, a3);
	char *a4[] = { p, "unix", "/run/sbxsup-unit-nonexistent.sock", NULL };
	run_attack(E.pr, NULL, NULL, a4);
	cJSON *v = new_violations();
	const cJSON *o = must_find(v, "keyctl", "rule", KV_RULE_ESCAPE);
	assert_string_equal(sget(o, "access"), "escape");
	o = find(v, "socket", "rule", KV_RULE_ESCAPE);
	assert_non_null(o);
	o = must_find(v, "connect", "path", "@sbxsup-unit-abstract");
	assert_string_equal(sget(o, "rule"), PR_RULE_ABSTRACT);
	o = find(v, "connect", "path", "/run/sbxsup-unit-nonexistent.sock");
	assert_non_null(o);
	assert_string_equal(sget(o, "outcome"), "contained");
	assert_int_equal(cJSON_GetObjectItem(o, "errno")->valueint, ENOENT);
	cJSON_Delete(v);
}

/* Issue 15's coverage: the rest of the write-class family (mknod, xattr, the fd-based fchmod decided
 * on the fd's file), metadata reads and watches (getxattr, inotify), sendmmsg's named peer. */
static void test_write_class_family(void **state)
{
	(void)state;
	char p[600];
	prog(p, sizeof(p), "pr_escape");
	char *a1[] = { p, "mknod", "/nonexistent-sbxsup/fifo", NULL };
	assert_int_equal(run_attack(E.pr, NULL, NULL, a1), 1);
	char *a2[] = { p, "setxattr", "/nonexistent-sbxsup/x", NULL };
	assert_int_equal(run_attack(E.pr, NULL, NULL, a2), 1);
	char *a3[] = { p, "getxattr", "/etc/shadow", NULL };
	run_attack(E.pr, NULL, NULL, a3);             /* ENODATA or ENOTSUP: either way reported */
	char *a4[] = { p, "fchmod", "/etc/hosts", NULL };
	assert_int_equal(run_attack(E.pr, NULL, NULL, a4), 1);   /* O_PATH fd: EBADF, nothing changed */
	char *a5[] = { p, "inotify", "/etc/shadow", NULL };
	assert_int_equal(run_attack(E.pr, NULL, NULL, a5), 0);
	char *a6[] = { p, "sendmmsg", "127.0.0.2", "9", NULL };
	assert_int_equal(run_attack(E.pr, NULL, NULL, a6), 0);
	cJSON *v = new_violations();
	const cJSON *o = must_find(v, "mknodat", "path", "/nonexistent-sbxsup/fifo");
	assert_string_equal(sget(o, "access"), "write");
	assert_string_equal(sget(o, "outcome"), "contained");
	o = must_find(v, "setxattr", "path", "/nonexistent-sbxsup/x");
	assert_string_equal(sget(o, "access"), "write");
	o = must_find(v, "getxattr", "path", "/etc/shadow");
	assert_string_equal(sget(o, "access"), "read");
	o = must_find(v, "fchmod", "path", "/etc/hosts");
	assert_string_equal(sget(o, "access"), "write");
	assert_int_equal((int)nget(o, "errno"), EBADF);
	o = must_find(v, "inotify_add_watch", "path", "/etc/shadow");
	assert_string_equal(sget(o, "outcome"), "breach");
	o = must_find(v, "sendmmsg", "addr", "127.0.0.2");
	assert_int_equal((int)nget(o, "port"), 9);
	assert_string_equal(sget(o, "outcome"), "breach");
	cJSON_Delete(v);
}

/* A call that failed through a symlink is decided on what the link reaches, not on the workspace
 * path as given: a dangling link to a denied place, a linked directory (issue 15). */
static void test_symlink_resolved(void **state)
{
	(void)state;
	char p[600], l1[200], l2[200], r2[260];
	prog(p, sizeof(p), "pr_escape");
	snprintf(l1, sizeof(l1), "%s/dangling", E.ws);
	snprintf(l2, sizeof(l2), "%s/etcdir", E.ws);
	assert_int_equal(symlink("/nonexistent-sbxsup/secret", l1), 0);
	assert_int_equal(symlink("/etc", l2), 0);
	snprintf(r2, sizeof(r2), "%s/shadow-sbxsup-nonexistent", l2);
	char *a1[] = { p, "open", l1, NULL };
	assert_int_equal(run_attack(E.pr, NULL, NULL, a1), 1);
	char *a2[] = { p, "open", r2, NULL };
	assert_int_equal(run_attack(E.pr, NULL, NULL, a2), 1);
	cJSON *v = new_violations();
	const cJSON *o = must_find(v, "openat", "path", "/nonexistent-sbxsup/secret");
	assert_string_equal(sget(o, "requested"), l1);
	assert_string_equal(sget(o, "outcome"), "contained");
	o = must_find(v, "openat", "path", "/etc/shadow-sbxsup-nonexistent");
	assert_non_null(strstr(sget(o, "rule"), "secret"));
	cJSON_Delete(v);
	unlink(l1);
	unlink(l2);
}

static void test_outside_process_silent(void **state)
{
	(void)state;
	/* this process and an unarmed child are outside the run */
	int fd = open("/etc/shadow", O_RDONLY);
	if (fd >= 0)
		close(fd);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		char p[600];
		prog(p, sizeof(p), "pr_static_reader_static");
		execl(p, p, "/etc/shadow", (char *)NULL);
		_exit(127);
	}
	int st;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	drain_all(E.pr);
	cJSON *v = new_violations();
	if (cJSON_GetArraySize(v) != 0)
		dump(v);
	assert_int_equal(cJSON_GetArraySize(v), 0);
	cJSON_Delete(v);
}

/* 1e6 opens of /etc/shadow (each a breach here: no other layer) overflow the ring: the records the
 * ring could not take are counted in the kernel under their decision key and written as ONE
 * kernel.violation summary with outcome "breach" and the exact count (issue 14): delivered +
 * summarised + lost == 1e6 exactly, and the breach is visible whatever was dropped. */
static void test_flood_lost_exact(void **state)
{
	(void)state;
	char p[600];
	prog(p, sizeof(p), "pr_attack");
	char *a1[] = { p, "flood", "/etc/shadow", "1000000", NULL };
	struct sbx_probes_counts c0, c1;
	sbx_probes_counts(E.pr, &c0);
	uint64_t ev0, vio0, bad0;
	sbx_probes_stats(E.pr, &ev0, &vio0, &bad0);
	assert_int_equal(run_attack(E.pr, NULL, NULL, a1), 0);
	sbx_probes_counts(E.pr, &c1);
	uint64_t ev1, vio1, bad1;
	sbx_probes_stats(E.pr, &ev1, &vio1, &bad1);
	uint64_t summarized = c1.summarized - c0.summarized, lost = c1.lost - c0.lost;
	fprintf(stderr, "flood: violations %llu, summarised %llu, lost %llu\n",
		(unsigned long long)(vio1 - vio0), (unsigned long long)summarized, (unsigned long long)lost);
	assert_true(summarized > 0);                  /* the ring did overflow */
	assert_int_equal(bad1, bad0);
	cJSON *v = new_violations();
	const cJSON *o, *sum = NULL;
	uint64_t lines = 0, shadow = 0, sum_count = 0;
	cJSON_ArrayForEach(o, v) {
		lines++;
		const char *path = sget(o, "path");
		if (sget(o, "summary")) {
			/* one summary per key; the key includes the object's identity (its dentry), so a
			 * file replaced during the flood (useradd/userdel rewrite /etc/shadow) gives several */
			sum = o;
			sum_count += (uint64_t)nget(o, "count");
		}
		if (path && !strcmp(path, "/etc/shadow")) {
			assert_string_equal(sget(o, "outcome"), "breach");
			shadow += sget(o, "summary") ? (uint64_t)nget(o, "count") : 1;
		}
	}
	assert_int_equal(lines, vio1 - vio0);         /* every violation written, the summary included */
	assert_non_null(sum);
	assert_string_equal(sget(sum, "summary"), "ring overflow");
	assert_string_equal(sget(sum, "outcome"), "breach");
	assert_string_equal(sget(sum, "path"), "/etc/shadow");
	assert_int_equal(sum_count, summarized);
	cJSON_Delete(v);
	/* every open is accounted for exactly: written one by one, in the summary, or lost */
	assert_int_equal(shadow + lost, 1000000);
	assert_true(c1.breach - c0.breach >= shadow);
}

/* A breach drowned in a flood of contained calls is still written, as a summary with outcome
 * "breach" and its count: 300 000 failed opens of a denied path, then 3 successful ones. */
static void test_flood_breach_visible(void **state)
{
	(void)state;
	char p[600];
	prog(p, sizeof(p), "pr_attack");
	char *a1[] = { p, "flood-then", "/etc/shadow-nonexistent", "300000", "/etc/gshadow", "3", NULL };
	struct sbx_probes_counts c0, c1;
	sbx_probes_counts(E.pr, &c0);
	assert_int_equal(run_attack(E.pr, NULL, NULL, a1), 0);
	sbx_probes_counts(E.pr, &c1);
	assert_int_equal(c1.lost, c0.lost);
	assert_int_equal(c1.breach - c0.breach, 3);
	assert_int_equal(c1.contained - c0.contained, 300000);
	cJSON *v = new_violations();
	const cJSON *o;
	uint64_t breach = 0;
	cJSON_ArrayForEach(o, v) {
		const char *path = sget(o, "path");
		if (path && !strcmp(path, "/etc/gshadow")) {
			assert_string_equal(sget(o, "outcome"), "breach");
			breach += sget(o, "summary") ? (uint64_t)nget(o, "count") : 1;
		}
	}
	assert_int_equal(breach, 3);
	cJSON_Delete(v);
}

/* cgroup v2 mode: the run's cgroup id is the first filter. */
static void test_cgroup_mode(void **state)
{
	(void)state;
	char root[256] = "";
	FILE *mi = fopen("/proc/self/mountinfo", "r");
	assert_non_null(mi);
	char line[1024];
	while (fgets(line, sizeof(line), mi)) {
		char *sep = strstr(line, " - cgroup2 ");
		if (!sep)
			continue;
		char mnt[256];
		if (sscanf(line, "%*s %*s %*s %*s %255s", mnt) == 1)
			snprintf(root, sizeof(root), "%s", mnt);
		break;
	}
	fclose(mi);
	if (!root[0])
		skip();
	char dir[400], procs[450];
	snprintf(dir, sizeof(dir), "%s/sbxsup-probes-test-%d", root, getpid());
	assert_int_equal(mkdir(dir, 0755), 0);
	snprintf(procs, sizeof(procs), "%s/cgroup.procs", dir);
	struct stat sb;
	assert_int_equal(stat(dir, &sb), 0);
	struct sbx_probes *pr = NULL;
	char level[256], why[256] = "";
	assert_int_equal(sbx_probes_start(E.p, (uint64_t)sb.st_ino, &pr, level, sizeof(level), why, sizeof(why)), 0);
	assert_non_null(strstr(level, "cgroup"));
	char p[600];
	prog(p, sizeof(p), "pr_static_reader_static");
	char *argv[] = { p, "/etc/shadow", NULL };
	assert_int_equal(run_attack(pr, procs, NULL, argv), 0);
	/* a process that moves itself out of the run's cgroup stays observed (the pid tree) */
	char rootprocs[300], esc[600];
	snprintf(rootprocs, sizeof(rootprocs), "%s/cgroup.procs", root);
	prog(esc, sizeof(esc), "pr_escape");
	char *argv2[] = { esc, "leave-cgroup", rootprocs, "/etc/gshadow", NULL };
	assert_int_equal(run_attack(pr, procs, NULL, argv2), 0);
	sbx_probes_stop(pr);
	rmdir(dir);
	cJSON *v = new_violations();
	(void)must_find(v, "openat", "path", "/etc/shadow");
	const cJSON *o = must_find(v, "openat", "path", "/etc/gshadow");
	assert_string_equal(sget(o, "outcome"), "breach");
	cJSON_Delete(v);
}

/* The raw_tp fallback tier loads, attaches and reports with its own sensor. */
static void test_raw_tp_tier(void **state)
{
	(void)state;
	setenv("SBXSUP_PROBES_TIER", "raw_tp", 1);
	struct sbx_probes *pr = NULL;
	char level[256], why[256] = "";
	int rc = sbx_probes_start(E.p, 0, &pr, level, sizeof(level), why, sizeof(why));
	unsetenv("SBXSUP_PROBES_TIER");
	if (rc != 0)
		fprintf(stderr, "raw_tp start: %s\n", why);
	assert_int_equal(rc, 0);
	assert_non_null(strstr(level, "raw_tp"));
	char p[600];
	prog(p, sizeof(p), "pr_static_reader_static");
	char *argv[] = { p, "/etc/shadow", NULL };
	assert_int_equal(run_attack(pr, NULL, NULL, argv), 0);
	sbx_probes_stop(pr);
	cJSON *v = new_violations();
	const cJSON *o = must_find(v, "openat", "path", "/etc/shadow");
	assert_string_equal(sget(o, "sensor"), "raw_tp:sys_exit");
	cJSON_Delete(v);
}

/* Issue 17's false breaches, each a regression test: ordinary behaviour is silent (pipes and
 * namespaces reached through /dev/stdin, /proc/self/fd/N, /dev/fd/N, /proc/self/ns/x; a signal to
 * the run's own zombie child; a socket file named "@sock"; clone() whose exit signal has bit 0x80;
 * 3000 EBADF renames, which also must not fill the ring), a 40-level path is decided, and a path
 * deeper than the walk bound is "undecidable" — never a breach. */
static void test_no_false_reports(void **state)
{
	(void)state;
	char p[600], deep[200], n3000[] = "3000";
	prog(p, sizeof(p), "pr_benign");
	uint64_t lost0 = sbx_probes_lost(E.pr);
	const char *simple[] = { "stdin", "procfd", "ns", "zombie", "clonesig" };
	for (size_t i = 0; i < sizeof(simple) / sizeof(simple[0]); i++) {
		char *a[] = { p, (char *)simple[i], NULL };
		int rc = run_attack(E.pr, NULL, NULL, a);
		if (rc != 0)
			fprintf(stderr, "pr_benign %s failed\n", simple[i]);
		assert_int_equal(rc, 0);
	}
	char *u[] = { p, "unixat", E.ws, NULL };
	assert_int_equal(run_attack(E.pr, NULL, NULL, u), 0);
	char *b[] = { p, "ebadf", n3000, NULL };
	assert_int_equal(run_attack(E.pr, NULL, NULL, b), 0);
	snprintf(deep, sizeof(deep), "%s/shallow", E.ws);
	assert_int_equal(mkdir(deep, 0700), 0);
	char *d1[] = { p, "deep", deep, "40", "1", NULL };
	assert_int_equal(run_attack(E.pr, NULL, NULL, d1), 0);
	cJSON *v = new_violations();
	if (cJSON_GetArraySize(v) != 0)
		dump(v);
	assert_int_equal(cJSON_GetArraySize(v), 0);
	cJSON_Delete(v);
	assert_int_equal(sbx_probes_lost(E.pr), lost0);

	snprintf(deep, sizeof(deep), "%s/deep", E.ws);
	assert_int_equal(mkdir(deep, 0700), 0);
	char *d2[] = { p, "deep", deep, "24", "200", NULL };
	assert_int_equal(run_attack(E.pr, NULL, NULL, d2), 0);
	v = new_violations();
	const cJSON *o;
	int n = 0;
	cJSON_ArrayForEach(o, v) {
		if (strcmp(sget(o, "outcome"), "undecidable") != 0)
			dump(v);
		assert_string_equal(sget(o, "outcome"), "undecidable");
		assert_non_null(strstr(sget(o, "rule"), "undecidable"));
		n++;
	}
	assert_true(n > 0);                           /* the create of "f" at ~4.8 KB at least */
	(void)must_find(v, "openat", "rule", PR_RULE_DEEP);
	cJSON_Delete(v);
	char cmd[300];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s' '%s/shallow'", deep, E.ws);
	assert_int_equal(system(cmd), 0);
}

/* ---- decoder (no BPF) ------------------------------------------------------------------------------ */

static void put_comps(struct pr_event *ev, const char *const *leaf_first, size_t n)
{
	size_t off = 0;
	for (size_t i = 0; i < n; i++) {
		size_t l = strlen(leaf_first[i]) + 1;
		memcpy(ev->path + off, leaf_first[i], l);
		off += l;
	}
	ev->ncomp = (unsigned short)n;
	ev->path_len = (unsigned short)off;
}

static void test_decode_paths(void **state)
{
	(void)state;
	struct pr_event *ev = calloc(1, sizeof(*ev));
	char out[4096];
	const char *c1[] = { "shadow", "etc" };
	ev->path_kind = PR_PK_FULL;
	put_comps(ev, c1, 2);
	assert_int_equal(pr_event_path(ev, out, sizeof(out)), 0);
	assert_string_equal(out, "/etc/shadow");

	const char *c2[] = { "ssl", "etc" };
	ev->path_kind = PR_PK_BASE;
	put_comps(ev, c2, 2);
	snprintf(ev->req, sizeof(ev->req), "../passwd");
	assert_int_equal(pr_event_path(ev, out, sizeof(out)), 0);
	assert_string_equal(out, "/etc/passwd");

	ev->path_kind = PR_PK_NONE;
	snprintf(ev->req, sizeof(ev->req), "/a//b/./c/..");
	assert_int_equal(pr_event_path(ev, out, sizeof(out)), 0);
	assert_string_equal(out, "/a/b");

	const char *c3[] = { "status", "4242", "proc" };
	ev->path_kind = PR_PK_FULL;
	ev->nstgid = 4242;
	put_comps(ev, c3, 3);
	assert_int_equal(pr_event_path(ev, out, sizeof(out)), 0);
	assert_string_equal(out, "/proc/self/status");
	ev->nstgid = 1;
	assert_int_equal(pr_event_path(ev, out, sizeof(out)), 0);
	assert_string_equal(out, "/proc/4242/status");

	ev->path_kind = PR_PK_FULL;                   /* the root itself */
	ev->ncomp = 0;
	ev->path_len = 0;
	assert_int_equal(pr_event_path(ev, out, sizeof(out)), 0);
	assert_string_equal(out, "/");

	ev->path_kind = 7;                            /* malformed */
	assert_int_equal(pr_event_path(ev, out, sizeof(out)), -1);
	free(ev);
}

static void test_decode_decisions(void **state)
{
	(void)state;
	struct pr_event *ev = calloc(1, sizeof(*ev));
	struct kv_view *v = malloc(sizeof(*v));
	ev->sc = PR_SC_OPENAT;
	ev->sensor = PR_SENSOR_TP_BTF_SYS_EXIT;
	ev->path_kind = PR_PK_NONE;
	snprintf(ev->req, sizeof(ev->req), "/usr/lib/x");
	ev->aflags = O_RDONLY;
	assert_int_equal(pr_decide(E.p, ev, v), 0);
	ev->aflags = O_WRONLY | O_TRUNC;
	ev->ret = -EACCES;
	assert_int_equal(pr_decide(E.p, ev, v), 1);
	assert_string_equal(v->access, "write");
	assert_true(v->contained);
	assert_int_equal(v->err, EACCES);

	/* the privilege guard's predicate: a setuid mode in the workspace (allowed for writing) is
	 * still a violation, critical by its rule; a plain mode is not */
	char wsreq[sizeof(ev->req)];
	snprintf(wsreq, sizeof(wsreq), "%s/plant", E.ws);
	snprintf(ev->req, sizeof(ev->req), "%s", wsreq);
	ev->sc = PR_SC_FCHMODAT;
	ev->aflags = 04755;
	ev->ret = -EPERM;
	assert_int_equal(pr_decide(E.p, ev, v), 1);
	assert_string_equal(v->rule, POL_PRIV_SETUID);
	assert_string_equal(v->access, "privilege");
	assert_true(v->contained);
	ev->aflags = 0755;
	ev->ret = 0;
	assert_int_equal(pr_decide(E.p, ev, v), 0);
	ev->sc = PR_SC_OPENAT;                        /* the creation mode rides in bits 32..47 */
	ev->aflags = (O_WRONLY | O_CREAT) | (06755ull << 32);
	ev->ret = 0;
	assert_int_equal(pr_decide(E.p, ev, v), 1);
	assert_string_equal(v->rule, POL_PRIV_SETUID);
	assert_string_equal(kv_outcome(v), "breach");
	ev->aflags = (O_WRONLY | O_CREAT) | (0644ull << 32);
	assert_int_equal(pr_decide(E.p, ev, v), 0);
	ev->sc = PR_SC_MKNODAT;
	ev->aflags = 020600;                          /* S_IFCHR */
	ev->ret = -EPERM;
	assert_int_equal(pr_decide(E.p, ev, v), 1);
	assert_string_equal(v->rule, POL_PRIV_DEVICE);
	snprintf(ev->req, sizeof(ev->req), "/usr/lib/x");
	ev->ret = 0;

	ev->sc = PR_SC_EXECVE;                        /* exec of a memfd: escape class */
	ev->path_kind = PR_PK_FULL;
	put_comps(ev, (const char *const[]){ "memfd:x" }, 1);
	ev->ret = 0;
	assert_int_equal(pr_decide(E.p, ev, v), 1);
	assert_string_equal(v->rule, KV_RULE_ESCAPE);

	ev->sc = PR_SC_OPENAT;                        /* truncated walk: never silently allowed */
	ev->aflags = O_RDONLY;
	put_comps(ev, (const char *const[]){ "x", "lib", "usr" }, 3);
	ev->flags = PR_EVF_TRUNC;
	assert_int_equal(pr_decide(E.p, ev, v), 1);
	assert_string_equal(v->rule, PR_RULE_DEEP);
	assert_true(v->undecidable);
	assert_string_equal(kv_outcome(v), "undecidable");   /* the open succeeded: never "breach" */
	ev->flags = 0;
	assert_int_equal(pr_decide(E.p, ev, v), 0);

	ev->sc = PR_SC_BIND;                          /* bind with network granted: not a violation */
	ev->family = 2;
	ev->addr[0] = 127;
	ev->addr[3] = 1;
	ev->port = 5000;
	assert_int_equal(pr_decide(E.p, ev, v), 0);
	ev->sc = PR_SC_CONNECT;
	ev->ret = -EINPROGRESS;
	assert_int_equal(pr_decide(E.p, ev, v), 1);   /* 127.0.0.1:5000 is not granted */
	assert_false(v->contained);                   /* in progress = it went out */
	ev->port = 8080;
	assert_int_equal(pr_decide(E.p, ev, v), 0);

	/* AF_UNIX: abstract names made printable, always a violation with this (listed) network */
	memset(ev, 0, sizeof(*ev));
	ev->sc = PR_SC_CONNECT;
	ev->sensor = PR_SENSOR_TP_BTF_SYS_EXIT;
	ev->family = 1;
	ev->flags = PR_EVF_UNIX | PR_EVF_ABSTRACT;
	memcpy(ev->req, "@a\001b", 5);
	ev->argi = 4;                                 /* 3 name bytes + 1 */
	assert_int_equal(pr_decide(E.p, ev, v), 1);
	assert_string_equal(v->path, "@a?b");
	assert_string_equal(v->rule, PR_RULE_ABSTRACT);
	ev->sc = PR_SC_BIND;                          /* an autobind (addrlen 2): the kernel names it */
	memcpy(ev->req, "@", 2);
	ev->argi = 1;
	assert_int_equal(pr_decide(E.p, ev, v), 1);
	assert_string_equal(v->path, "@ (autobind)");
	assert_string_equal(v->access, "bind");
	assert_string_equal(v->rule, PR_RULE_ABSTRACT);
	ev->sc = PR_SC_CONNECT;
	ev->argi = 200;                               /* claims more than a sun_path holds */
	assert_int_equal(pr_decide(E.p, ev, v), -1);
	ev->flags = PR_EVF_UNIX;                      /* "@sock" without the flag: a socket file */
	snprintf(ev->req, sizeof(ev->req), "%s/@sock", E.ws);
	ev->argi = 0;
	assert_int_equal(pr_decide(E.p, ev, v), 0);
	snprintf(ev->req, sizeof(ev->req), "%s/s.sock", E.ws);   /* a path in the workspace: granted */
	assert_int_equal(pr_decide(E.p, ev, v), 0);
	snprintf(ev->req, sizeof(ev->req), "/run/x.sock");
	ev->ret = -ENOENT;
	assert_int_equal(pr_decide(E.p, ev, v), 1);
	assert_string_equal(v->path, "/run/x.sock");
	assert_true(v->contained);

	/* signals: the BPF side sends only those aimed outside the run */
	memset(ev, 0, sizeof(*ev));
	ev->sc = PR_SC_TGKILL;
	ev->target = 4242;
	ev->sig = 9;
	ev->ret = -ESRCH;
	assert_int_equal(pr_decide(E.p, ev, v), 1);
	assert_string_equal(v->syscall, "tgkill");
	assert_string_equal(v->rule, PR_RULE_SIGNAL);
	assert_int_equal(v->target, 4242);
	assert_int_equal(v->err, ESRCH);

	/* the deny list: escape class; socket() with a listed network is one too */
	ev->sc = PR_SC_SOCKET;
	ev->ret = 3;
	assert_int_equal(pr_decide(E.p, ev, v), 1);
	assert_string_equal(v->rule, KV_RULE_ESCAPE);
	assert_false(v->contained);

	/* a path argument unreadable at enter and exit: EFAULT -> silent, else unverifiable; the
	 * kernel's own path (the returned fd's file) is decided whatever the string */
	memset(ev, 0, sizeof(*ev));
	ev->sc = PR_SC_OPENAT;
	ev->flags = PR_EVF_NOPATH;
	ev->ret = -EFAULT;
	assert_int_equal(pr_decide(E.p, ev, v), 0);
	ev->ret = -ENOENT;
	assert_int_equal(pr_decide(E.p, ev, v), 1);
	assert_string_equal(v->rule, PR_RULE_UNREADABLE);
	assert_true(v->undecidable && v->failed && v->err == ENOENT);
	ev->ret = 3;
	ev->path_kind = PR_PK_FULL;
	put_comps(ev, (const char *const[]){ "shadow", "etc" }, 2);
	assert_int_equal(pr_decide(E.p, ev, v), 1);
	assert_string_equal(v->path, "/etc/shadow");

	/* a requested string longer than the enter copy: decided on the whole string read again at
	 * exit (PR_EVF_REQ_LONG) when it begins with the enter copy; else undecidable */
	memset(ev, 0, sizeof(*ev));
	ev->sc = PR_SC_MKDIR;
	ev->path_kind = PR_PK_NONE;
	ev->ret = 0;
	{
		char longp[4096]; /* room for the climb below whatever the workspace path */
		int n = snprintf(longp, sizeof longp, "%s", E.ws);
		while (n < 2900)
			n += snprintf(longp + n, sizeof longp - (size_t)n, "/%s", "dddddddddddddddddddd");
		snprintf(ev->req_long, sizeof(ev->req_long), "%s", longp);
		memcpy(ev->req, longp, sizeof(ev->req) - 1);
		ev->req[sizeof(ev->req) - 1] = 0;
		ev->flags = PR_EVF_REQ_TRUNC;               /* no second read: undecidable */
		assert_int_equal(pr_decide(E.p, ev, v), 1);
		assert_string_equal(v->rule, PR_RULE_LONG);
		ev->flags = PR_EVF_REQ_TRUNC | PR_EVF_REQ_LONG; /* in the workspace: allowed */
		assert_int_equal(pr_decide(E.p, ev, v), 0);
		/* the tail climbs out of the workspace: decided on the whole string, a violation */
		snprintf(longp + n, sizeof longp - (size_t)n, "%s", "/../../../../../../../../../../../../../..");
		size_t k = strlen(longp);
		for (int up = 0; up < 200 && k + 4 < sizeof longp; up++, k += 3)
			memcpy(longp + k, "/..", 4);
		snprintf(longp + k, sizeof longp - k, "%s", "/etc/evil");
		snprintf(ev->req_long, sizeof(ev->req_long), "%s", longp);
		assert_int_equal(pr_decide(E.p, ev, v), 1);
		assert_string_equal(v->path, "/etc/evil");
		assert_false(v->undecidable);
		/* changed between enter and exit (another thread rewrote it): undecidable */
		ev->req_long[5] ^= 1;
		assert_int_equal(pr_decide(E.p, ev, v), 1);
		assert_string_equal(v->rule, PR_RULE_LONG);
		assert_true(v->undecidable);
	}

	/* a relative string whose directory was not walked: undecidable, not "/" + string */
	memset(ev, 0, sizeof(*ev));
	ev->sc = PR_SC_RENAMEAT;
	ev->path_kind = PR_PK_NONE;
	snprintf(ev->req, sizeof(ev->req), "a");
	ev->ret = 0;
	assert_int_equal(pr_decide(E.p, ev, v), 1);
	assert_string_equal(v->rule, PR_RULE_NOBASE);
	assert_string_equal(kv_outcome(v), "undecidable");
	ev->path_kind = PR_PK_BASE;                   /* a directory outside the task's tree */
	ev->flags = PR_EVF_DETACHED;
	put_comps(ev, (const char *const[]){ "x" }, 1);
	assert_int_equal(pr_decide(E.p, ev, v), 1);
	assert_string_equal(v->rule, PR_RULE_DETACHED);

	/* raced (issue 27): the kernel's copy of the name differs from the enter copy. A failed open:
	 * path = the kernel's name, path_raced = the buffer's at entry; a secret either way: denied */
	memset(ev, 0, sizeof(*ev));
	ev->sc = PR_SC_OPENAT;
	ev->path_kind = PR_PK_NONE;
	ev->flags = PR_EVF_RACED;
	snprintf(ev->req, sizeof(ev->req), "/usr/lib/x");
	snprintf(ev->kname, sizeof(ev->kname), "/etc/shadow");
	ev->ret = -EACCES;
	assert_int_equal(pr_decide(E.p, ev, v), 1);
	assert_true(v->raced && v->raced_denied);
	assert_string_equal(v->path, "/etc/shadow");
	assert_string_equal(v->path_raced, "/usr/lib/x");
	assert_string_equal(kv_outcome(v), "contained");
	assert_true(strstr(v->rule, "shadow") || strstr(v->rule, "secret"));
	/* the other way round, and the open succeeded on the allowed file: outcome raced */
	snprintf(ev->req, sizeof(ev->req), "/etc/shadow");
	snprintf(ev->kname, sizeof(ev->kname), "/usr/lib/x");
	ev->ret = 3;
	ev->path_kind = PR_PK_FULL;
	put_comps(ev, (const char *const[]){ "x", "lib", "usr" }, 3);
	assert_int_equal(pr_decide(E.p, ev, v), 1);
	assert_true(v->raced && v->raced_denied);
	assert_string_equal(v->path, "/usr/lib/x");
	assert_string_equal(v->path_raced, "/etc/shadow");
	assert_string_equal(kv_outcome(v), "raced");
	/* ... and on the secret itself: a breach */
	put_comps(ev, (const char *const[]){ "shadow", "etc" }, 2);
	snprintf(ev->kname, sizeof(ev->kname), "/etc/shadow");
	snprintf(ev->req, sizeof(ev->req), "/usr/lib/x");
	assert_int_equal(pr_decide(E.p, ev, v), 1);
	assert_string_equal(v->path, "/etc/shadow");
	assert_string_equal(v->path_raced, "/usr/lib/x");
	assert_string_equal(kv_outcome(v), "breach");
	/* two allowed names: still reported (never dropped), rule PR_RULE_RACED, not critical */
	ev->path_kind = PR_PK_NONE;
	ev->ret = -ENOENT;
	snprintf(ev->req, sizeof(ev->req), "/usr/lib/x");
	snprintf(ev->kname, sizeof(ev->kname), "/usr/lib/y");
	assert_int_equal(pr_decide(E.p, ev, v), 1);
	assert_true(v->raced && !v->raced_denied);
	assert_string_equal(v->rule, PR_RULE_RACED);

	/* io_uring (issue 27): an openat named by the kernel's copy, decided as its twin */
	memset(ev, 0, sizeof(*ev));
	ev->sc = PR_SC_IO_URING_OP;
	ev->flags = PR_EVF_URING_OBJ;
	ev->aflags = 18 | ((unsigned long long)O_RDONLY << PR_URING_OP_SHIFT);
	ev->path_kind = PR_PK_NONE;
	snprintf(ev->req, sizeof(ev->req), "/etc/shadow");
	assert_int_equal(pr_decide(E.p, ev, v), 1);
	assert_string_equal(v->path, "/etc/shadow");
	assert_string_equal(v->access, "read");
	assert_int_equal(v->io_op, 18);
	assert_true(strstr(v->rule, "shadow") || strstr(v->rule, "secret"));
	snprintf(ev->req, sizeof(ev->req), "/usr/lib/x");    /* allowed: the escape-class report, named */
	assert_int_equal(pr_decide(E.p, ev, v), 1);
	assert_string_equal(v->rule, KV_RULE_ESCAPE);
	assert_string_equal(v->path, "/usr/lib/x");

	ev->sc = 999;
	assert_int_equal(pr_decide(E.p, ev, v), -1);
	free(v);
	free(ev);
}

/* ---- the in-kernel decision ---------------------------------------------------------------------- */

/* An allowed open inside a run sends no ring record: decided in the kernel and counted there. */
static void test_kernel_allow_no_record(void **state)
{
	(void)state;
	char p[600], f[128];
	prog(p, sizeof(p), "pr_attack");
	snprintf(f, sizeof(f), "%s/allowed.txt", E.ws);
	int fd = open(f, O_WRONLY | O_CREAT, 0644);
	assert_true(fd >= 0);
	close(fd);
	struct sbx_probes_counts c0, c1;
	sbx_probes_counts(E.pr, &c0);
	char *a1[] = { p, "rawopen", "/usr/bin/env", NULL };   /* under /usr: read granted */
	assert_int_equal(run_attack(E.pr, NULL, NULL, a1), 0);
	char *a2[] = { p, "rawwrite", f, NULL };               /* the workspace: write granted */
	assert_int_equal(run_attack(E.pr, NULL, NULL, a2), 0);
	sbx_probes_counts(E.pr, &c1);
	/* pr_attack's own loading (ld.so.cache, libc) and both opens: allowed in the kernel */
	if (c1.records != c0.records || c1.kallowed < c0.kallowed + 2)
		fprintf(stderr, "records %llu -> %llu, kernel-allowed %llu -> %llu\n",
			(unsigned long long)c0.records, (unsigned long long)c1.records,
			(unsigned long long)c0.kallowed, (unsigned long long)c1.kallowed);
	assert_true(c1.records == c0.records);
	assert_true(c1.kallowed >= c0.kallowed + 2);
	cJSON *v = new_violations();
	assert_int_equal(cJSON_GetArraySize(v), 0);
	cJSON_Delete(v);
	unlink(f);
}

/* The same path table through the in-kernel decision (a real probed run over real files, with
 * the decision on, and again with it off) and through pol_path: a kernel.violation exactly for the
 * paths pol_path denies, the same events either way, and the kernel decided some of them. The
 * policy has what the kernel cannot express (a floating "**" "/.env" deny: its basename goes to user
 * space; a deny subtree inside the workspace: the workspace is not provable) and a granted
 * directory bound below a denied one (reached through another path: not the granted one) — once
 * on a path as long as its own (only the names' bytes tell them apart), once on a longer one. */
static void test_kernel_decision_equivalence(void **state)
{
	(void)state;
	char ws[64], rd[64];
	snprintf(ws, sizeof ws, "/tmp/sbxsup-kdec-ws.XXXXXX");
	snprintf(rd, sizeof rd, "/tmp/sbxsup-kdec-rd-01234567.XXXXXX");   /* as long as ws/secret/m */
	assert_non_null(mkdtemp(ws));
	assert_non_null(mkdtemp(rd));
	char t[40][200];
	const char *files[] = { "/a.txt", "/.env", "/secret/k", "/sub/b.txt", "/sub/.env" };
	char d1[100], d2[100], d3[100], d4[100], d5[100];
	snprintf(d1, sizeof d1, "%s/secret", ws);
	snprintf(d2, sizeof d2, "%s/sub", ws);
	snprintf(d3, sizeof d3, "%s/sub", rd);
	snprintf(d4, sizeof d4, "%s/secret/m", ws);
	snprintf(d5, sizeof d5, "%s/secret/nn", ws);
	assert_int_equal(strlen(d4), strlen(rd));
	assert_int_equal(mkdir(d1, 0755), 0);
	assert_int_equal(mkdir(d2, 0755), 0);
	assert_int_equal(mkdir(d3, 0755), 0);
	assert_int_equal(mkdir(d4, 0755), 0);
	assert_int_equal(mkdir(d5, 0755), 0);
	size_t nt = 0;
	for (size_t i = 0; i < sizeof files / sizeof files[0]; i++)
		for (int w = 0; w < 2; w++) {
			snprintf(t[nt], sizeof t[nt], "%s%s", w ? rd : ws, files[i]);
			if (!strncmp(t[nt], rd, strlen(rd)) && strstr(t[nt], "/secret/"))
				continue;
			int fd = open(t[nt], O_WRONLY | O_CREAT, 0644);
			assert_true(fd >= 0);
			close(fd);
			nt++;
		}
	snprintf(t[nt++], sizeof t[0], "%s/secret/m/a.txt", ws);  /* rd/a.txt through the bind */
	snprintf(t[nt++], sizeof t[0], "%s/a.txt", d5);            /* the same through a longer path */
	snprintf(t[nt++], sizeof t[0], "/etc/hostname");
	snprintf(t[nt++], sizeof t[0], "/etc/shadow");
	snprintf(t[nt++], sizeof t[0], "/usr/bin/env");

	/* the policy: workspace ws, read hint rd/ **, deny ** /.env and ws/secret/ ** */
	char rglob[200], sglob[200];
	snprintf(rglob, sizeof rglob, "%s/**", rd);
	snprintf(sglob, sizeof sglob, "%s/secret/**", ws);
	struct mf_hint reads[] = { { .glob = rglob, .abs = rglob, .dir = rd, .jpath = "capabilities[0].hints[0]" } };
	struct mf_hint denies[] = { { .glob = "**/.env", .abs = "/**/.env", .dir = "/", .jpath = "deny[0]" },
				    { .glob = sglob, .abs = sglob, .dir = d1, .jpath = "deny[1]" } };
	struct manifest m = {
		.version = 1, .name = "kdec-test", .autonomy = MF_AUTONOMY_SUPERVISED, .code_exec = true,
		.workspace = ws, .home = "/home/nobody-probes-test", .reads = reads, .nreads = 1,
		.denies = denies, .ndenies = 2,
	};
	struct pol_build_opts o = { .resolve = false, .uid = getuid() };
	void *blob;
	size_t len;
	char err[256];
	assert_int_equal(pol_build(&m, &o, &blob, &len, err, sizeof err), 0);
	const char *why;
	const struct policy *pol = pol_open(blob, len, &why);
	assert_non_null(pol);

	/* one shell opening each path for reading and each non-system one for appending */
	char script[8192] = "";
	for (size_t i = 0; i < nt; i++) {
		bool sys = !strncmp(t[i], "/etc/", 5) || !strncmp(t[i], "/usr/", 5);
		size_t l = strlen(script);
		int n = snprintf(script + l, sizeof script - l, sys ? "{ : <'%s'; } 2>/dev/null; "
				 : "{ : <'%s'; } 2>/dev/null; { : >>'%s'; } 2>/dev/null; ", t[i], t[i]);
		assert_true(n > 0 && (size_t)n < sizeof script - l);
	}
	char *argv[] = { "/bin/sh", "-c", script, NULL };
	G_bind[0] = rd;
	G_bind[1] = d4;
	G_bind[2] = rd;
	G_bind[3] = d5;
	cJSON *runs[2];
	uint64_t kallowed[2];
	for (int k = 0; k < 2; k++) {
		setenv("SBXSUP_PROBES_KDEC", k ? "0" : "1", 1);
		struct sbx_probes *pr = NULL;
		char level[256], w[256] = "";
		assert_int_equal(sbx_probes_start(pol, 0, &pr, level, sizeof level, w, sizeof w), 0);
		cJSON_Delete(new_violations());                /* skip what came before */
		assert_int_equal(run_attack(pr, NULL, NULL, argv), 0);
		assert_int_equal(sbx_probes_flush(pr, &E.a), 0);
		struct sbx_probes_counts c;
		sbx_probes_counts(pr, &c);
		kallowed[k] = c.kallowed;
		sbx_probes_stop(pr);
		runs[k] = new_violations();
	}
	unsetenv("SBXSUP_PROBES_KDEC");
	G_bind[0] = G_bind[1] = G_bind[2] = G_bind[3] = NULL;
	assert_true(kallowed[0] > 0);                          /* the kernel decided some */
	assert_true(kallowed[1] == 0);
	for (size_t i = 0; i < nt; i++)
		for (int wr = 0; wr < 2; wr++) {
			bool sys = !strncmp(t[i], "/etc/", 5) || !strncmp(t[i], "/usr/", 5);
			if (wr && sys)
				continue;
			bool deny = pol_path(pol, t[i], wr ? POL_WRITE : POL_READ, NULL) != POL_ALLOW;
			for (int k = 0; k < 2; k++) {
				const cJSON *hit = NULL, *o2;
				cJSON_ArrayForEach(o2, runs[k]) {
					const char *pp = sget(o2, "path"), *acc = sget(o2, "access");
					if (pp && acc && !strcmp(pp, t[i]) && !strcmp(acc, wr ? "write" : "read"))
						hit = o2;
				}
				if ((hit != NULL) != deny) {
					fprintf(stderr, "%s %s: pol_path %s, kdec %s: %s\n", t[i], wr ? "write" : "read",
						deny ? "denies" : "allows", k ? "off" : "on", hit ? "reported" : "not reported");
					dump(runs[k]);
				}
				assert_true((hit != NULL) == deny);
			}
		}
	/* the same events, field for field but the times, pids and sequence */
	assert_int_equal(cJSON_GetArraySize(runs[0]), cJSON_GetArraySize(runs[1]));
	for (int i = 0; i < cJSON_GetArraySize(runs[0]); i++) {
		const cJSON *x = cJSON_GetArrayItem(runs[0], i), *y = cJSON_GetArrayItem(runs[1], i);
		const char *keys[] = { "syscall", "path", "requested", "access", "rule", "outcome" };
		for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
			const char *a = sget(x, keys[k]), *b = sget(y, keys[k]);
			assert_true((a == NULL) == (b == NULL));
			if (a)
				assert_string_equal(a, b);
		}
	}
	cJSON_Delete(runs[0]);
	cJSON_Delete(runs[1]);
	free(blob);
	char cmd[300];
	snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s'", ws, rd);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	char why[256];
	if (!pr_bpf_precheck(why, sizeof(why))) {
		printf("1..1\nok 1 - probes # SKIP %s\n", why);
		return 0;
	}
	const struct CMUnitTest decode[] = {
		cmocka_unit_test(test_decode_paths),
		cmocka_unit_test(test_decode_decisions),
	};
	const struct CMUnitTest bpf[] = {
		cmocka_unit_test(test_static_reader_breach),
		cmocka_unit_test(test_contained_errno),
		cmocka_unit_test(test_raw_syscall_dynamic),
		cmocka_unit_test(test_relative_and_dirfd),
		cmocka_unit_test(test_allowed_not_reported),
		cmocka_unit_test(test_kernel_allow_no_record),
		cmocka_unit_test(test_kernel_decision_equivalence),
		cmocka_unit_test(test_write_denied),
		cmocka_unit_test(test_connect),
		cmocka_unit_test(test_int80),
		cmocka_unit_test(test_exec_stripped),
		cmocka_unit_test(test_io_uring_escape),
		cmocka_unit_test(test_unshare_and_memfd_exec),
		cmocka_unit_test(test_signals_outside),
		cmocka_unit_test(test_denylist_and_unix),
		cmocka_unit_test(test_no_false_reports),
		cmocka_unit_test(test_write_class_family),
		cmocka_unit_test(test_symlink_resolved),
		cmocka_unit_test(test_outside_process_silent),
		cmocka_unit_test(test_flood_lost_exact),
		cmocka_unit_test(test_flood_breach_visible),
		cmocka_unit_test(test_cgroup_mode),
		cmocka_unit_test(test_raw_tp_tier),
	};
	/* private programs: a pinned set loaded or unloaded by a concurrent test must not matter */
	setenv("SBXSUP_PROBES_NOPIN", "1", 1);
	if (group_setup(NULL) != 0)
		return 1;
	int rc = cmocka_run_group_tests_name("probes_decode", decode, NULL, NULL);
	rc |= cmocka_run_group_tests_name("probes_bpf", bpf, start_pidmode, stop_probes);
	group_teardown(NULL);
	return rc;
}
