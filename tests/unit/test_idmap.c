/* test_idmap.c — common/idmap.c: which ids a user namespace's uid_map/gid_map text maps, and to
 * what (the chown errno answer of the preload and the seccomp layer, the emulated chown's ids). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "idmap.h"

static void one_line(void **st)
{
	(void)st;
	const char *m = "      1000      65534          1\n";
	uint32_t o = 0;
	assert_true(sbx_idmap_out(m, 1000, &o));
	assert_int_equal(o, 65534);
	assert_true(sbx_idmap_has(m, 1000));
	assert_false(sbx_idmap_has(m, 999));
	assert_false(sbx_idmap_has(m, 1001));
	assert_false(sbx_idmap_has(m, 0));
	assert_false(sbx_idmap_has(m, 4242));
}

static void ranges(void **st)
{
	(void)st;
	const char *m = "0 100000 1000\n1000 1000 1\n1001 101001 64535\n";
	uint32_t o = 0;
	assert_true(sbx_idmap_out(m, 0, &o));
	assert_int_equal(o, 100000);
	assert_true(sbx_idmap_out(m, 999, &o));
	assert_int_equal(o, 100999);
	assert_true(sbx_idmap_out(m, 1000, &o));
	assert_int_equal(o, 1000);
	assert_true(sbx_idmap_out(m, 65535, &o));
	assert_int_equal(o, 165535);
	assert_false(sbx_idmap_has(m, 65536));
}

static void identity_and_empty(void **st)
{
	(void)st;
	assert_true(sbx_idmap_has("         0          0 4294967295\n", 4294967294u));
	assert_false(sbx_idmap_has("", 0));
	assert_false(sbx_idmap_has("garbage\n", 0));
	assert_true(sbx_idmap_has("garbage\n5 5 1", 5)); /* a bad line does not hide the next */
}

int main(void)
{
	const struct CMUnitTest t[] = {
		cmocka_unit_test(one_line),
		cmocka_unit_test(ranges),
		cmocka_unit_test(identity_and_empty),
	};
	return cmocka_run_group_tests(t, NULL, NULL);
}
