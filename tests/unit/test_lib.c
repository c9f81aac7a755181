/* test_lib.c — the public C API (supervisor/lib/sbxsup.h): versions, misuse (NULL handles and
 * arguments, empty commands, bad layer lists, a missing helper) answered with a code and a message,
 * a bad manifest as SBX_E_MANIFEST with every problem and nothing on stderr, a good one with its
 * name and warnings, the plan as JSON, and a real run without layers (SBXSUP_SANDBOX=0's world:
 * no bwrap needed) whose result record and accessors agree, with the caller's stdio and message
 * descriptors, and one run at a time (SBX_E_BUSY from a second thread). The sandboxed runs
 * (bwrap, layers, audit) are in tests/integration/lib_install.sh. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "sbxsup.h"

/* main.c is not in libsup.a */

static char dir[64];

static const char *write_file(const char *name, const char *text)
{
	static char path[128];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	return path;
}

/* Everything written on fd 2 while fn runs. */
static char *stderr_of(void (*fn)(void))
{
	char path[128];
	snprintf(path, sizeof path, "%s/stderr", dir);
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600), saved = dup(2);
	assert_true(fd >= 0 && saved >= 0);
	fflush(stderr);
	dup2(fd, 2);
	fn();
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	static char buf[4096];
	ssize_t n = pread(fd, buf, sizeof buf - 1, 0);
	close(fd);
	buf[n > 0 ? n : 0] = 0;
	return buf;
}

static void t_versions(void **state)
{
	(void)state;
	assert_int_equal(sbx_api_version(), SBXSUP_API_VERSION);
	assert_string_equal(sbx_version(), SBXSUP_VERSION);
	assert_string_equal(sbx_strerror(SBX_E_MANIFEST), "bad manifest");
	assert_non_null(sbx_strerror(12345));
	sbx_free(NULL);
}

static void t_misuse(void **state)
{
	(void)state;
	struct sbx_err err = {0};
	struct sbx_manifest *m = (void *)1;
	assert_int_equal(sbx_manifest_load("x.json", NULL, NULL, &err), SBX_E_INVAL);
	assert_int_equal(err.code, SBX_E_INVAL);
	assert_true(err.message[0]);
	assert_int_equal(sbx_manifest_load("/nonexistent/m.json", NULL, &m, NULL), SBX_E_MANIFEST);
	assert_null(m);
	assert_null(sbx_manifest_name(NULL));
	assert_int_equal(sbx_manifest_warning_count(NULL), 0);
	assert_null(sbx_manifest_warning(NULL, 0));
	sbx_manifest_free(NULL);

	assert_int_equal(sbx_opts_set_manifest(NULL, "x"), SBX_E_INVAL);
	assert_int_equal(sbx_opts_set_timeout_ms(NULL, 1), SBX_E_INVAL);
	assert_int_equal(sbx_opts_set_layers(NULL, "auto", &err), SBX_E_INVAL);
	assert_int_equal(sbx_opts_use_manifest(NULL, NULL), SBX_E_INVAL);
	sbx_opts_free(NULL);

	struct sbx_opts *o = sbx_opts_new();
	assert_non_null(o);
	assert_int_equal(sbx_opts_set_timeout_ms(o, -5), SBX_E_INVAL);
	assert_int_equal(sbx_opts_set_audit_budget_mb(o, -2), SBX_E_INVAL);
	assert_int_equal(sbx_opts_set_stdio(o, -1, 1, 2), SBX_E_INVAL);
	assert_int_equal(sbx_opts_use_manifest(o, NULL), SBX_E_INVAL);
	assert_int_equal(sbx_opts_set_layers(o, "auto,nosuchlayer", &err), SBX_E_LAYERS);
	assert_int_equal(err.code, SBX_E_LAYERS);
	assert_non_null(strstr(err.message, "nosuchlayer"));
	assert_int_equal(sbx_opts_set_require(o, "", &err), SBX_E_LAYERS);
	assert_int_equal(sbx_opts_set_layers(o, "-probes", &err), 0);
	assert_int_equal(err.code, SBX_OK);
	assert_int_equal(sbx_opts_set_require(o, "auto", NULL), 0);

	struct sbx_result *res = (void *)1;
	char *empty[] = {NULL}, *blank[] = {"", NULL}, *cmd[] = {"/bin/true", NULL};
	assert_int_equal(sbx_run(NULL, cmd, &res, &err), SBX_E_INVAL);
	assert_null(res);
	assert_non_null(strstr(err.message, "options"));
	assert_int_equal(sbx_run(o, NULL, &res, &err), SBX_E_INVAL);
	assert_int_equal(sbx_run(o, empty, &res, &err), SBX_E_INVAL);
	assert_int_equal(sbx_run(o, blank, &res, &err), SBX_E_INVAL);
	assert_non_null(strstr(err.message, "no command"));
	assert_int_equal(sbx_run(o, cmd, NULL, &err), SBX_E_INVAL);
	char *plan = (void *)1;
	assert_int_equal(sbx_plan(o, empty, &plan, NULL), SBX_E_INVAL);
	assert_null(plan);

	/* a helper that is not there: nothing runs */
	assert_int_equal(sbx_opts_set_helper(o, "/nonexistent/sbxsup"), 0);
	assert_int_equal(sbx_run(o, cmd, &res, &err), SBX_E_HELPER);
	assert_null(res);
	assert_non_null(strstr(err.message, "/nonexistent/sbxsup"));
	sbx_opts_free(o);

	assert_int_equal(sbx_result_exit(NULL), -1);
	assert_int_equal(sbx_result_signal(NULL), 0);
	assert_int_equal(sbx_result_timed_out(NULL), 0);
	assert_null(sbx_result_json(NULL));
	assert_null(sbx_result_verdict(NULL));
	assert_null(sbx_result_status(NULL));
	assert_null(sbx_result_run_id(NULL));
	assert_null(sbx_result_reason_code(NULL));
	assert_null(sbx_result_reason_message(NULL));
	sbx_result_free(NULL);
}

static struct sbx_err bad_err;
static int bad_rc;
static void load_bad(void)
{
	struct sbx_manifest *m = NULL;
	const char *p = write_file("bad.json", "{\"sbxsup\": 1, \"name\": \"x\",\n"
					       " \"capabilities\": [\"fs:teleport\"],\n \"deny\": 7}\n");
	bad_rc = sbx_manifest_load(p, dir, &m, &bad_err);
	assert_null(m);
	p = write_file("broken.json", "{\"sbxsup\": 1,\n  \"name\": }\n");
	struct sbx_err e2;
	assert_int_equal(sbx_manifest_load(p, dir, &m, &e2), SBX_E_MANIFEST);
	assert_non_null(strstr(e2.message, "line 2"));
}

static void t_bad_manifest(void **state)
{
	(void)state;
	const char *out = stderr_of(load_bad);
	assert_string_equal(out, ""); /* errors are returned, never printed */
	assert_int_equal(bad_rc, SBX_E_MANIFEST);
	assert_int_equal(bad_err.code, SBX_E_MANIFEST);
	/* every problem, one line each, FILE: WHERE: WHAT */
	assert_non_null(strstr(bad_err.message, "bad.json: "));
	assert_non_null(strstr(bad_err.message, "capabilities[0]"));
	assert_non_null(strstr(bad_err.message, "\n"));
	assert_non_null(strstr(bad_err.message, "deny"));
}

static void t_good_manifest(void **state)
{
	(void)state;
	struct sbx_manifest *m = NULL;
	struct sbx_err err;
	const char *p = write_file("good.json", "{\"sbxsup\": 1, \"name\": \"lib-test\",\n"
						"  \"capabilities\": [\"code:exec\", \"network:http\"]}\n");
	assert_int_equal(sbx_manifest_load(p, dir, &m, &err), 0);
	assert_int_equal(err.code, 0);
	assert_string_equal(sbx_manifest_name(m), "lib-test");
	assert_true(sbx_manifest_warning_count(m) >= 1); /* network:http without hosts */
	assert_non_null(sbx_manifest_warning(m, 0));
	assert_null(sbx_manifest_warning(m, 99));
	struct sbx_opts *o = sbx_opts_new();
	assert_int_equal(sbx_opts_use_manifest(o, m), 0);
	sbx_manifest_free(m);
	sbx_opts_free(o);
	assert_int_equal(sbx_manifest_load(NULL, dir, &m, NULL), 0); /* the built-in default */
	assert_non_null(sbx_manifest_name(m));
	sbx_manifest_free(m);
}

static struct sbx_opts *opts_here(void)
{
	struct sbx_opts *o = sbx_opts_new();
	assert_non_null(o);
	assert_int_equal(sbx_opts_set_workspace(o, dir), 0);
	assert_int_equal(sbx_opts_set_helper(o, "/proc/self/exe"), 0); /* exists; no bwrap stage here */
	return o;
}

static void t_plan(void **state)
{
	(void)state;
	struct sbx_opts *o = opts_here();
	char *cmd[] = {"/bin/true", NULL}, *plan = NULL;
	struct sbx_err err;
	int rc = sbx_plan(o, cmd, &plan, &err);
	assert_true(rc == 0 || rc == SBX_E_REFUSED);
	assert_non_null(plan);
	assert_non_null(strstr(plan, "\"layers\""));
	sbx_free(plan);
	/* a required layer that cannot be there: the plan, and SBX_E_REFUSED */
	assert_int_equal(sbx_opts_set_disabled(o, 1), 0);
	assert_int_equal(sbx_opts_set_require(o, "bwrap", NULL), 0);
	int fd = open("/dev/null", O_WRONLY);
	assert_int_equal(sbx_opts_set_message_fd(o, fd), 0);
	assert_int_equal(sbx_plan(o, cmd, &plan, &err), SBX_E_REFUSED);
	assert_non_null(plan);
	sbx_free(plan);
	/* a bad manifest: no plan, its problem as the message */
	assert_int_equal(sbx_opts_set_manifest(o, write_file("bad2.json", "{\"sbxsup\": 1}")), 0);
	assert_int_equal(sbx_plan(o, cmd, &plan, &err), SBX_E_MANIFEST);
	assert_null(plan);
	assert_non_null(strstr(err.message, "bad_manifest"));
	close(fd);
	sbx_opts_free(o);
}

/* A run without layers: the caller's stdio, the record and the accessors, the process restored. */
static void t_run_disabled(void **state)
{
	(void)state;
	struct sbx_opts *o = opts_here();
	assert_int_equal(sbx_opts_set_disabled(o, 1), 0);
	assert_int_equal(sbx_opts_set_tag(o, "unit"), 0);
	int out[2], msg[2];
	assert_int_equal(pipe(out), 0);
	assert_int_equal(pipe(msg), 0);
	int devnull = open("/dev/null", O_RDONLY);
	assert_int_equal(sbx_opts_set_stdio(o, devnull, out[1], out[1]), 0);
	assert_int_equal(sbx_opts_set_message_fd(o, msg[1]), 0);
	sigset_t before, after;
	sigprocmask(SIG_SETMASK, NULL, &before);
	char *cmd[] = {"/bin/sh", "-c", "echo out-$0; echo err-$0 >&2; exit 3", "x", NULL};
	struct sbx_result *res = NULL;
	struct sbx_err err;
	assert_int_equal(sbx_run(o, cmd, &res, &err), 0);
	assert_non_null(res);
	close(out[1]);
	close(msg[1]);
	char buf[512] = "";
	ssize_t n = read(out[0], buf, sizeof buf - 1);
	buf[n > 0 ? n : 0] = 0;
	assert_non_null(strstr(buf, "out-x"));
	assert_non_null(strstr(buf, "err-x"));
	n = read(msg[0], buf, sizeof buf - 1); /* the "disabled" warning went to the message fd */
	buf[n > 0 ? n : 0] = 0;
	assert_non_null(strstr(buf, "sbxsup: "));
	assert_int_equal(sbx_result_exit(res), 3);
	assert_int_equal(sbx_result_signal(res), 0);
	assert_int_equal(sbx_result_timed_out(res), 0);
	assert_string_equal(sbx_result_status(res), "exited");
	assert_string_equal(sbx_result_verdict(res), "clean");
	assert_null(sbx_result_reason_code(res));
	assert_null(sbx_result_reason_message(res));
	const char *j = sbx_result_json(res);
	assert_non_null(strstr(j, "\"tag\":\"unit\""));
	assert_non_null(strstr(j, "\"exit\":3"));
	assert_null(strchr(j, '\n'));
	const char *id = sbx_result_run_id(res);
	if (id)
		assert_non_null(strstr(j, id));
	sbx_result_free(res);
	/* the process is as it was: signal mask, not a subreaper */
	sigprocmask(SIG_SETMASK, NULL, &after);
	assert_int_equal(sigismember(&after, SIGCHLD), sigismember(&before, SIGCHLD));
	assert_int_equal(sigismember(&after, SIGTERM), sigismember(&before, SIGTERM));
	int sr = -1;
	assert_int_equal(prctl(PR_GET_CHILD_SUBREAPER, &sr, 0, 0, 0), 0);
	assert_int_equal(sr, 0);

	/* killed by a signal, then by the timeout */
	char *kill_cmd[] = {"/bin/sh", "-c", "kill -TERM $$", NULL};
	assert_int_equal(sbx_run(o, kill_cmd, &res, &err), 0);
	assert_int_equal(sbx_result_signal(res), SIGTERM);
	assert_int_equal(sbx_result_exit(res), 128 + SIGTERM);
	assert_string_equal(sbx_result_status(res), "signaled");
	sbx_result_free(res);
	assert_int_equal(sbx_opts_set_timeout_ms(o, 200), 0);
	char *sleep_cmd[] = {"/bin/sleep", "5", NULL};
	assert_int_equal(sbx_run(o, sleep_cmd, &res, &err), 0);
	assert_int_equal(sbx_result_exit(res), 124);
	assert_int_equal(sbx_result_timed_out(res), 1);
	assert_string_equal(sbx_result_status(res), "timeout");
	sbx_result_free(res);

	/* a refusal is a result, not a call error: bad manifest, reason code, exit 125 */
	assert_int_equal(sbx_opts_set_manifest(o, write_file("bad3.json", "{\"sbxsup\": 1}")), 0);
	assert_int_equal(sbx_run(o, cmd, &res, &err), 0);
	assert_int_equal(sbx_result_exit(res), 125);
	assert_string_equal(sbx_result_status(res), "refused");
	assert_string_equal(sbx_result_reason_code(res), "bad_manifest");
	assert_non_null(sbx_result_reason_message(res));
	sbx_result_free(res);
	close(out[0]);
	close(msg[0]);
	close(devnull);
	sbx_opts_free(o);
}

/* One run at a time: a second call while a run is in progress in another thread is SBX_E_BUSY (the
 * threads block SIGCHLD etc., as sbxsup.h asks of a program with threads). */
static struct sbx_opts *busy_opts;
static void *busy_run(void *arg)
{
	char *cmd[] = {"/bin/sleep", "2", NULL};
	struct sbx_result *res = NULL;
	int rc = sbx_run(busy_opts, cmd, &res, NULL);
	*(int *)arg = rc == 0 ? sbx_result_exit(res) : rc;
	sbx_result_free(res);
	return NULL;
}

static void t_busy(void **state)
{
	(void)state;
	sigset_t set, old;
	sigemptyset(&set);
	sigaddset(&set, SIGCHLD);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	pthread_sigmask(SIG_BLOCK, &set, &old);
	busy_opts = opts_here();
	assert_int_equal(sbx_opts_set_disabled(busy_opts, 1), 0);
	int fd = open("/dev/null", O_WRONLY);
	assert_int_equal(sbx_opts_set_message_fd(busy_opts, fd), 0);
	int first = -99;
	pthread_t th;
	assert_int_equal(pthread_create(&th, NULL, busy_run, &first), 0);
	usleep(300 * 1000);
	char *cmd[] = {"/bin/true", NULL}, *plan = NULL;
	struct sbx_result *res = NULL;
	struct sbx_err err;
	assert_int_equal(sbx_run(busy_opts, cmd, &res, &err), SBX_E_BUSY);
	assert_null(res);
	assert_non_null(strstr(err.message, "in progress"));
	assert_int_equal(sbx_plan(busy_opts, cmd, &plan, NULL), SBX_E_BUSY);
	pthread_join(th, NULL);
	assert_int_equal(first, 0);
	/* free again afterwards */
	assert_int_equal(sbx_run(busy_opts, cmd, &res, &err), 0);
	assert_int_equal(sbx_result_exit(res), 0);
	sbx_result_free(res);
	close(fd);
	sbx_opts_free(busy_opts);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

int main(void)
{
	snprintf(dir, sizeof dir, "/tmp/sbx-test-lib.XXXXXX");
	if (!mkdtemp(dir))
		return 1;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(t_versions),      cmocka_unit_test(t_misuse),
		cmocka_unit_test(t_bad_manifest),  cmocka_unit_test(t_good_manifest),
		cmocka_unit_test(t_plan),          cmocka_unit_test(t_run_disabled),
		cmocka_unit_test(t_busy),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);
	char rm[128];
	snprintf(rm, sizeof rm, "rm -rf '%s'", dir);
	(void)!system(rm);
	return rc;
}
