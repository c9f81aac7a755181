/* test_execpin.c — the exec pins (seccomp_execpin.h) on real processes: a child armed before its
 * exec stops at it, is asked about, and runs (allowed) or is killed before its first instruction
 * (refused); a failed exec leaves it traced until its end, which is collected; a thread that
 * execs (not the leader) is decided on its process's pid; the set refuses more than it holds, and a
 * caller that cannot be traced (another tracer holds it) with why. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "procids.h"
#include "seccomp_execpin.h"

struct asked {
	int n;
	pid_t pid;
	int answer;
	char exe[256];
};

static int decide(void *arg, pid_t pid)
{
	struct asked *a = arg;
	char p[64];
	a->n++;
	a->pid = pid;
	snprintf(p, sizeof p, "/proc/%d/exe", (int)pid);
	ssize_t n = readlink(p, a->exe, sizeof a->exe - 1);
	a->exe[n > 0 ? n : 0] = 0;
	return a->answer;
}

static bool pinned(const struct execpin_set *s)
{
	for (size_t i = 0; i < EXECPIN_MAX; i++)
		if (s->p[i].tid)
			return true;
	return false;
}

/* Collect until the set is empty (bounded: 5 s). */
static void drain(struct execpin_set *s, struct asked *a)
{
	for (int i = 0; i < 5000 && pinned(s); i++) {
		assert_int_equal(execpin_reap(s, 0, 0, decide, a), 0);
		struct timespec ts = {0, 1000000};
		nanosleep(&ts, NULL);
	}
	assert_false(pinned(s));
}

/* A child whose exec'ing thread (the leader, or with `thread` a second thread) says its id on a
 * pipe, waits for "go", then execs `path` ("echo ran", stdout to *out_r). Returns the child's pid;
 * *tid is the exec'ing thread's. */
struct spec {
	int tid_w, go_r;
	const char *path;
};

static void *exec_thread(void *arg)
{
	const struct spec *s = arg;
	pid_t me = (pid_t)syscall(SYS_gettid);
	char b;
	(void)!write(s->tid_w, &me, sizeof me);
	(void)!read(s->go_r, &b, 1);
	char *argv[] = {(char *)"echo", (char *)"ran", NULL};
	execv(s->path, argv);
	_exit(9);
}

static pid_t spawn(const char *path, bool thread, pid_t *tid, int *out_r, int *go_w)
{
	int go[2], out[2], tp[2];
	assert_int_equal(pipe(go), 0);
	assert_int_equal(pipe(out), 0);
	assert_int_equal(pipe(tp), 0);
	pid_t c = fork();
	assert_true(c >= 0);
	if (c == 0) {
		close(go[1]);
		close(out[0]);
		close(tp[0]);
		dup2(out[1], 1);
		static struct spec s;
		s = (struct spec){.tid_w = tp[1], .go_r = go[0], .path = path};
		if (thread) {
			pthread_t t;
			if (pthread_create(&t, NULL, exec_thread, &s))
				_exit(8);
			for (;;)
				pause();
		}
		exec_thread(&s);
	}
	close(go[0]);
	close(out[1]);
	close(tp[1]);
	assert_int_equal(read(tp[0], tid, sizeof *tid), (ssize_t)sizeof *tid);
	close(tp[0]);
	*out_r = out[0];
	*go_w = go[1];
	return c;
}

static void read_all(int fd, char *buf, size_t len)
{
	size_t got = 0;
	ssize_t n;
	while (got < len - 1 && (n = read(fd, buf + got, len - 1 - got)) > 0)
		got += (size_t)n;
	buf[got] = 0;
	close(fd);
}

/* One child armed before its exec (`path`, by the leader or a second thread), let go, collected
 * to the end of the pins; what it printed and what `decide` was asked. */
struct trial {
	pid_t c, tid;
	struct asked a;
	char out[64];
};

static void trial(const char *path, bool thread, int answer, struct trial *t)
{
	struct execpin_set s;
	memset(&s, 0, sizeof s);
	memset(t, 0, sizeof *t);
	t->a.answer = answer;
	int out, go;
	t->c = spawn(path, thread, &t->tid, &out, &go);
	char why[128];
	assert_int_equal(execpin_arm(&s, t->tid, why, sizeof why), 0);
	assert_int_equal(execpin_arm(&s, t->tid, why, sizeof why), 0); /* already ours */
	assert_int_equal(s.p[0].tgid, t->c);
	(void)!write(go, "g", 1);
	close(go);
	drain(&s, &t->a);
	read_all(out, t->out, sizeof t->out);
}

static void t_allowed_runs(void **state)
{
	(void)state;
	struct trial t;
	trial("/bin/echo", false, 0, &t);
	assert_string_equal(t.out, "ran\n");
	assert_int_equal(t.a.n, 1);
	assert_int_equal(t.a.pid, t.c);
	assert_non_null(strstr(t.a.exe, "echo"));
	int ws;
	assert_int_equal(waitpid(t.c, &ws, 0), t.c);
	assert_true(WIFEXITED(ws) && WEXITSTATUS(ws) == 0);
}

/* Refused at its exec stop: its end is collected by the pins (the tracer is its parent here). */
static void t_refused_killed(void **state)
{
	(void)state;
	struct trial t;
	trial("/bin/echo", false, 1, &t);
	assert_string_equal(t.out, ""); /* not one instruction of echo ran */
	assert_int_equal(t.a.n, 1);
	int ws;
	assert_int_equal(waitpid(t.c, &ws, WNOHANG), -1); /* reaped by the pins */
}

/* A failed exec: not asked; the process ends (exit 9) and the pin is gone. */
static void t_failed_exec(void **state)
{
	(void)state;
	struct trial t;
	trial("/nonexistent/echo", false, 1, &t);
	assert_int_equal(t.a.n, 0);
	assert_string_equal(t.out, "");
}

/* A thread that is not the leader execs: the stop comes on the process's pid, which is asked. */
static void t_thread_exec(void **state)
{
	(void)state;
	struct trial t;
	trial("/bin/echo", true, 0, &t);
	assert_int_not_equal(t.tid, t.c);
	assert_string_equal(t.out, "ran\n");
	assert_int_equal(t.a.n, 1);
	assert_int_equal(t.a.pid, t.c);
	int ws;
	assert_int_equal(waitpid(t.c, &ws, 0), t.c);
	assert_true(WIFEXITED(ws) && WEXITSTATUS(ws) == 0);
}

static void t_full(void **state)
{
	(void)state;
	struct execpin_set s;
	memset(&s, 0, sizeof s);
	for (size_t i = 0; i < EXECPIN_MAX; i++)
		s.p[i].tid = 1000000 + (pid_t)i;
	char why[128] = "";
	assert_int_equal(execpin_arm(&s, getpid(), why, sizeof why), -1);
	assert_non_null(strstr(why, "in flight"));
	memset(&s, 0, sizeof s);
	assert_int_equal(execpin_arm(&s, 999999999, why, sizeof why), -1); /* no such process */
	assert_int_equal(execpin_reap(&s, 4242, 0, decide, NULL), 0);    /* not ours */
	/* a caller someone else traces already (here: itself, PTRACE_TRACEME to us as parent, then
	 * a second attach): refused with why, never let through unheld */
	int p[2];
	assert_int_equal(pipe(p), 0);
	pid_t c = fork();
	assert_true(c >= 0);
	if (c == 0) {
		char b;
		close(p[1]);
		(void)!read(p[0], &b, 1);
		_exit(0);
	}
	close(p[0]);
	assert_int_equal(execpin_arm(&s, c, why, sizeof why), 0);
	char why2[128] = "";
	struct execpin_set s2;
	memset(&s2, 0, sizeof s2);
	assert_int_equal(execpin_arm(&s2, c, why2, sizeof why2), -1); /* already traced (by s) */
	assert_non_null(strstr(why2, "ptrace:"));
	close(p[1]);
	drain(&s, &(struct asked){0});
	int ws;
	(void)waitpid(c, &ws, WNOHANG);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(t_allowed_runs),
		cmocka_unit_test(t_refused_killed),
		cmocka_unit_test(t_failed_exec),
		cmocka_unit_test(t_thread_exec),
		cmocka_unit_test(t_full),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
