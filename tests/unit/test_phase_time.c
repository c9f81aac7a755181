/* test_phase_time.c — SBXSUP_TIMING's phase timer (common/phase_time.h) and the child that
 * shares sbxsup's memory (common/vmchild.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "phase_time.h"
#include "vmchild.h"

/* What pt_report wrote, through a pipe. */
static size_t report(struct phase_time *pt, char *buf, size_t len)
{
	int p[2];
	assert_int_equal(pipe(p), 0);
	pt_report(pt, p[1]);
	close(p[1]);
	ssize_t n = read(p[0], buf, len - 1);
	close(p[0]);
	buf[n > 0 ? n : 0] = 0;
	return n > 0 ? (size_t)n : 0;
}

static void t_off(void **st)
{
	(void)st;
	struct phase_time pt;
	char buf[256];
	pt_init(&pt, NULL);
	pt_mark(&pt, "a");
	assert_int_equal(report(&pt, buf, sizeof buf), 0);
	pt_init(&pt, "0");
	pt_markf(&pt, "b.%d", 1);
	assert_int_equal(pt.n, 0);
	assert_int_equal(report(&pt, buf, sizeof buf), 0);
	pt_mark(NULL, "c"); /* no timer: nothing */
}

static void t_on(void **st)
{
	(void)st;
	struct phase_time pt;
	char buf[8192];
	pt_init(&pt, "1");
	usleep(2000);
	pt_mark(&pt, "plan.manifest");
	pt_markf(&pt, "setup.layer.%s", "netfilter");
	assert_int_equal(pt.n, 2);
	assert_true(pt.ph[0].us >= 2000);
	report(&pt, buf, sizeof buf);
	assert_non_null(strstr(buf, "sbxsup: timing: plan.manifest "));
	assert_non_null(strstr(buf, "sbxsup: timing: setup.layer.netfilter "));
	assert_non_null(strstr(buf, "sbxsup: timing: total "));
	assert_true(strstr(buf, "plan.manifest") < strstr(buf, "setup.layer") &&
		    strstr(buf, "setup.layer") < strstr(buf, "total"));
	assert_int_equal(pt.n, 0); /* emptied */
	for (int i = 0; i < PT_MAX + 5; i++) /* beyond PT_MAX: folded into the total */
		pt_mark(&pt, "x");
	assert_int_equal(pt.n, PT_MAX);
	report(&pt, buf, sizeof buf);
	assert_non_null(strstr(buf, "total"));
}

static int fill(void *arg)
{
	int *v = arg;
	v[0] = 42;         /* our memory: the caller sees it */
	v[1] = getpid() != v[2];
	return 7;
}

static void t_vm_child(void **st)
{
	(void)st;
	int v[3] = {0, 0, getpid()};
	struct sbx_vm_child c;
	assert_true(sbx_vm_child_start(&c, fill, v, CLONE_VFORK) > 0);
	int ws = sbx_vm_child_wait(&c);
	assert_true(WIFEXITED(ws));
	assert_int_equal(WEXITSTATUS(ws), 7);
	assert_int_equal(v[0], 42);
	assert_int_equal(v[1], 1); /* another process */
	assert_null(c.stack);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(t_off),
		cmocka_unit_test(t_on),
		cmocka_unit_test(t_vm_child),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
