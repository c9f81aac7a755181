/* test_run_ctx.c — unit test of what the layers see (run/run_ctx.c): the plan's view, each
 * attempt's view built once from the attempt's descriptors, and the direct wrapper's re-plan when
 * no mount namespace could be made. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sandbox_paths.h"
#include "run_int.h"
#include "wrapper.h"

/* A run as the plan leaves it: the preload on, a report socket named, direct mode with a mount
 * namespace of its own (tmp_ns), or wrapped. */
static struct run *new_run(bool wrapped)
{
	struct run *r = calloc(1, sizeof *r);
	assert_non_null(r);
	static struct manifest m;
	static char *cmd[] = {"/bin/true", NULL};
	r->m = &m;
	r->o.cmd = cmd;
	r->pol_fd = 7;
	r->repsrv = -1;
	snprintf(r->d.preload, sizeof r->d.preload, "/x/libsbxpreload.so");
	sbx_layer_set_on(&r->L, layer_preload.id, "LD_PRELOAD");
	snprintf(r->plan.repsock, sizeof r->plan.repsock, "/tmp/r/report");
	r->plan.wrapped = wrapped;
	r->plan.tmp_ns = !wrapped;
	strv_add(&r->plan.env, "PATH=/usr/bin");
	r->sd.userns_fd = -1;
	run_ctx_init(r);
	run_ctx_from_plan(r);
	return r;
}

static void free_run(struct run *r)
{
	plan_free(&r->plan);
	free(r);
}

static struct attempt_io new_io(void)
{
	return (struct attempt_io){.alive_r = -1, .ctl_c = 11, .rep_c = 12, .status_w = -1, .err_r = -1,
				   .err_w = -1, .ldso = 13, .passwd = 14, .group = 15, .resolv = -1};
}

/* Outside an attempt the layers see the plan's view: its environment, no descriptor. */
static void t_plan_view(void **state)
{
	(void)state;
	struct run *r = new_run(true);
	assert_ptr_equal(r->lc.att, &r->lc_plan);
	assert_ptr_equal(r->lc.att->env, &r->plan.env);
	assert_string_equal(r->lc.att->report_sock, "/tmp/r/report");
	assert_true(r->lc.att->fixed_channel); /* bwrap: a mount tree of its own */
	assert_int_equal(r->lc.att->fds.ctl, -1);
	assert_int_equal(r->lc.att->fds.policy, -1);
	assert_true(layer_wrapped(&r->lc));
	free_run(r);
}

/* An attempt's view: its descriptors and its environment, the plan's view untouched; back to the
 * plan's at its end. Without the report socket the set-up should have made, no fixed channel. */
static void t_attempt_view(void **state)
{
	(void)state;
	struct run *r = new_run(true);
	r->repsrv = 9;
	struct attempt_io io = new_io();
	assert_int_equal(run_ctx_attempt(r, &io), 0);
	const struct layer_attempt *a = r->lc.att;
	assert_ptr_equal(a, &r->att.lc);
	assert_ptr_equal(a->env, &io.env);
	assert_true(a->fixed_channel);
	assert_int_equal(a->fds.ctl, 11);
	assert_int_equal(a->fds.ldso, 13);
	assert_int_equal(a->fds.passwd, 14);
	assert_int_equal(a->fds.policy, 7); /* the fixed channel binds the policy */
	assert_null(strv_getenv(&io.env, "LD_PRELOAD")); /* /etc/ld.so.preload loads it */
	assert_string_equal(strv_getenv(&io.env, "PATH"), "/usr/bin");
	assert_int_equal(r->lc_plan.fds.ctl, -1);
	run_ctx_attempt_end(r);
	assert_ptr_equal(r->lc.att, &r->lc_plan);
	strv_free(&io.env);

	r->repsrv = -1; /* the report socket could not be made */
	io = new_io();
	assert_int_equal(run_ctx_attempt(r, &io), 0);
	assert_null(r->lc.att->report_sock);
	assert_false(r->lc.att->fixed_channel);
	assert_int_equal(r->lc.att->fds.policy, -1);
	assert_string_equal(strv_getenv(&io.env, "SBXSUP_POLICY_FD"), "7");
	assert_string_equal(strv_getenv(&io.env, "SBXSUP_REPORT_FD"), "12");
	run_ctx_attempt_end(r);
	strv_free(&io.env);
	free_run(r);
}

/* Direct mode: the fixed channel with a mount namespace; the wrapper finding none after all is a
 * re-plan (no_mntns), after which the environment is the preload's channel again. */
static void t_direct_replan(void **state)
{
	(void)state;
	struct run *r = new_run(false);
	r->repsrv = 9;
	struct attempt_io io = new_io();
	assert_int_equal(run_ctx_attempt(r, &io), 0);
	assert_true(r->lc.att->fixed_channel);
	assert_null(strv_getenv(&io.env, "LD_PRELOAD"));
	r->plan.no_mntns = true;
	run_ctx_from_plan(r);
	assert_ptr_equal(r->lc.att, &r->att.lc); /* still the attempt's */
	assert_int_equal(run_ctx_attempt(r, &io), 0);
	assert_false(r->lc.att->fixed_channel);
	assert_string_equal(strv_getenv(&io.env, "LD_PRELOAD"), "/x/libsbxpreload.so");
	assert_string_equal(strv_getenv(&io.env, "SBXSUP_REPORT_ADDR"), "/tmp/r/report");
	run_ctx_attempt_end(r);
	strv_free(&io.env);
	free_run(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(t_plan_view),
		cmocka_unit_test(t_attempt_view),
		cmocka_unit_test(t_direct_replan),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
