/* test_ctl.c — unit test of the stage's status text (run/ctl.c). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ctl.h"

static void t_ctl_status(void **state)
{
	(void)state;
	char v[64];
	const char *st = "landlock=on\nlandlock_level=abi 7\nseccomp=off\nseccomp_why=no\n";
	assert_int_equal(ctl_status_get(st, "landlock", v, sizeof v), 0);
	assert_string_equal(v, "on");
	assert_int_equal(ctl_status_get(st, "landlock_level", v, sizeof v), 0);
	assert_string_equal(v, "abi 7");
	assert_int_equal(ctl_status_get(st, "seccomp_why", v, sizeof v), 0);
	assert_string_equal(v, "no");
	assert_int_equal(ctl_status_get(st, "probes", v, sizeof v), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(t_ctl_status),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
