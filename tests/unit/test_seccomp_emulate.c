/* test_seccomp_emulate.c — the one table of seccomp_emulate.h: which allowed call continues (another
 * layer stops the same object), which is performed by the supervisor, which is refused, per mode. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "seccomp_emulate.h"

static const struct sbx_sn_walls none = {0}, ll = {.landlock = true}, bw = {.bwrap = true},
				  full = {.bwrap = true, .landlock = true};

static void test_connect_never_continues(void **state)
{
	(void)state;
	const struct sbx_sn_walls *w[] = {&none, &ll, &bw, &full};
	for (size_t i = 0; i < 4; i++) {
		assert_int_equal(sbx_sn_route(w[i], "connect"), SBX_SN_EMULATE);
		assert_int_equal(sbx_sn_route(w[i], "bind"), SBX_SN_EMULATE);
	}
}

static void test_opens(void **state)
{
	(void)state;
	assert_int_equal(sbx_sn_route(&none, "openat"), SBX_SN_EMULATE);
	assert_int_equal(sbx_sn_route(&none, "open"), SBX_SN_EMULATE);
	assert_int_equal(sbx_sn_route(&none, "creat"), SBX_SN_EMULATE);
	assert_int_equal(sbx_sn_route(&ll, "openat"), SBX_SN_CONTINUE);
	assert_int_equal(sbx_sn_route(&bw, "openat"), SBX_SN_CONTINUE);
}

static void test_metadata(void **state)
{
	(void)state;
	/* Landlock has no right for these: only bwrap stands behind them */
	const char *emu[] = {"chmod", "fchmodat2", "fchown", "utimensat", "setxattr", "fremovexattr",
			     "inotify_add_watch"};
	for (size_t i = 0; i < sizeof emu / sizeof emu[0]; i++) {
		assert_int_equal(sbx_sn_route(&none, emu[i]), SBX_SN_EMULATE);
		assert_int_equal(sbx_sn_route(&ll, emu[i]), SBX_SN_EMULATE);
		assert_int_equal(sbx_sn_route(&bw, emu[i]), SBX_SN_CONTINUE);
	}
	assert_int_equal(sbx_sn_route(&ll, "setxattrat"), SBX_SN_REFUSE);
	assert_int_equal(sbx_sn_route(&ll, "fanotify_mark"), SBX_SN_REFUSE);
	assert_int_equal(sbx_sn_route(&bw, "fanotify_mark"), SBX_SN_CONTINUE);
}

static void test_write_class(void **state)
{
	(void)state;
	const char *calls[] = {"unlinkat", "mkdir", "renameat2", "linkat", "symlink", "truncate", "mknodat"};
	for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++) {
		assert_int_equal(sbx_sn_route(&none, calls[i]), SBX_SN_EMULATE);
		assert_int_equal(sbx_sn_route(&ll, calls[i]), SBX_SN_CONTINUE);
		assert_int_equal(sbx_sn_route(&bw, calls[i]), SBX_SN_CONTINUE);
	}
	/* an exec cannot be performed for the caller */
	assert_int_equal(sbx_sn_route(&none, "execve"), SBX_SN_CONTINUE);
	/* a filter holding a manifest deny: a name made or moved is performed whatever the walls
	 * (neither knows a match created since the start: a raced rename or link would give it a
	 * second name the deny does not match); an exec still continues */
	const struct sbx_sn_walls dfull = {.bwrap = true, .landlock = true, .deny = true},
				  dll = {.landlock = true, .deny = true};
	for (size_t i = 0; i < sizeof calls / sizeof calls[0]; i++) {
		assert_int_equal(sbx_sn_route(&dfull, calls[i]), SBX_SN_EMULATE);
		assert_int_equal(sbx_sn_route(&dll, calls[i]), SBX_SN_EMULATE);
	}
	assert_int_equal(sbx_sn_route(&dfull, "execve"), SBX_SN_CONTINUE);
	assert_int_equal(sbx_sn_route(&dfull, "openat"), SBX_SN_CONTINUE); /* opens: route_allowed's own */
}

static void test_registers_continue(void **state)
{
	(void)state;
	assert_int_equal(sbx_sn_route(&none, "socket"), SBX_SN_CONTINUE);
	assert_int_equal(sbx_sn_route(&none, "prlimit64"), SBX_SN_CONTINUE);
}

/* a send's peer and socket are in memory or the descriptor table: only bwrap's mount tree (the
 * host's sockets not in view) stands behind a continue (issue 28) */
static void test_sends(void **state)
{
	(void)state;
	static const char *const calls[] = {"sendto", "sendmsg", "sendmmsg"};
	for (size_t i = 0; i < 3; i++) {
		assert_int_equal(sbx_sn_route(&none, calls[i]), SBX_SN_EMULATE);
		assert_int_equal(sbx_sn_route(&ll, calls[i]), SBX_SN_EMULATE);
		assert_int_equal(sbx_sn_route(&bw, calls[i]), SBX_SN_CONTINUE);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_connect_never_continues),
		cmocka_unit_test(test_opens),
		cmocka_unit_test(test_metadata),
		cmocka_unit_test(test_sends),
		cmocka_unit_test(test_write_class),
		cmocka_unit_test(test_registers_continue),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
