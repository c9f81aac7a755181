/* test_plan.c — unit test of the attempt's environment (run/plan.c plan_attempt_env). */
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

#include "sandbox_paths.h"
#include "layer.h"
#include "layer_set.h"
#include "plan.h"
#include "strv.h"

/* The attempt's environment: the plan's, then the run's variables (placeholders before the
 * attempt), then each active layer's; SBXSUP_SANDBOX=0 adds nothing. */
static void t_attempt_env(void **state)
{
	(void)state;
	struct run_plan p;
	memset(&p, 0, sizeof p);
	strv_add(&p.env, "PATH=/usr/bin");
	struct detect d;
	memset(&d, 0, sizeof d);
	snprintf(d.preload, sizeof d.preload, "/x/libsbxpreload.so");
	struct sbx_layers L;
	memset(&L, 0, sizeof L);
	sbx_layer_set_on(&L, layer_preload.id, "LD_PRELOAD");
	bool wrapped = false;
	const struct layer_attempt att = {.report_sock = "/tmp/r/report"};
	struct layer_ctx c = {.d = &d, .L = &L, .plan_wrapped = &wrapped, .att = &att};
	struct strv e = {0};
	assert_int_equal(plan_attempt_env(&p, &c, -1, -1, NULL, false, &e), 0);
	assert_string_equal(strv_getenv(&e, "PATH"), "/usr/bin");
	assert_string_equal(strv_getenv(&e, "SBXSUP_POLICY_FD"), LAYER_FD_PLACEHOLDER);
	assert_string_equal(strv_getenv(&e, "SBXSUP_RUN"), LAYER_RUN_PLACEHOLDER);
	assert_string_equal(strv_getenv(&e, "LD_PRELOAD"), "/x/libsbxpreload.so");
	assert_string_equal(strv_getenv(&e, "SBXSUP_REPORT_ADDR"), "/tmp/r/report");
	strv_free(&e);
	wrapped = true;
	assert_int_equal(plan_attempt_env(&p, &c, 5, 6, "abc", false, &e), 0);
	assert_string_equal(strv_getenv(&e, "SBXSUP_POLICY_FD"), "5");
	assert_string_equal(strv_getenv(&e, "SBXSUP_REPORT_FD"), "6");
	assert_string_equal(strv_getenv(&e, "LD_PRELOAD"), SBX_RUN_PRELOAD);
	assert_string_equal(strv_getenv(&e, "SBXSUP_REPORT_ADDR"), SBX_RUN_REPORT);
	strv_free(&e);
	assert_int_equal(plan_attempt_env(&p, &c, 5, 6, "abc", true, &e), 0);
	assert_int_equal(e.n, 1);
	strv_free(&e);
	plan_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(t_attempt_env),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
