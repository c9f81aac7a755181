/* test_quote.c — the one quoting style for names shown to a person (common/quote.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "msg.h"
#include "quote.h"

static void eq_quote(const char *in, const char *want)
{
	char *q = sbx_quote(in);
	assert_non_null(q);
	assert_string_equal(q, want);
	free(q);
}

static void t_plain(void **st)
{
	(void)st;
	eq_quote("README.md", "\"README.md\"");
	eq_quote("", "\"\"");
	eq_quote("caf\xc3\xa9 \xe2\x82\xac", "\"caf\xc3\xa9 \xe2\x82\xac\"");  /* UTF-8 kept */
	eq_quote("a \"b\" \\c", "\"a \\\"b\\\" \\\\c\"");
}

static void t_controls(void **st)
{
	(void)st;
	eq_quote("a\nmodified file 4 README.md", "\"a\\nmodified file 4 README.md\"");
	eq_quote("x\033[2J\033[Hy", "\"x\\033[2J\\033[Hy\"");
	eq_quote("cr\rtab\tbs\bdel\x7f", "\"cr\\rtab\\tbs\\bdel\\177\"");
	eq_quote("\x01\x1f", "\"\\001\\037\"");
}

static void t_bad_utf8_and_bidi(void **st)
{
	(void)st;
	eq_quote("a\xff" "b\xc3", "\"a\\xffb\\xc3\"");
	eq_quote("\xc0\xaf", "\"\\xc0\\xaf\"");                     /* overlong: two bad bytes */
	eq_quote("txt.\xe2\x80\xaegpj.sh", "\"txt.\\u202egpj.sh\""); /* RLO */
	eq_quote("\xe2\x81\xa6x\xe2\x81\xa9", "\"\\u2066x\\u2069\"");
	eq_quote("\xc2\x9b" "31m", "\"\\u009b31m\"");                 /* C1 CSI */
	eq_quote("l\xe2\x80\xa8" "l", "\"l\\u2028l\"");
}

static void t_escape_and_fit(void **st)
{
	(void)st;
	char *e = sbx_escape("a\nb");
	assert_string_equal(e, "a\\nb");
	free(e);
	char buf[16];
	assert_string_equal(sbx_q("short", buf, sizeof buf), "\"short\"");
	sbx_q("0123456789abcdefghij", buf, sizeof buf);
	assert_true(strlen(buf) < sizeof buf);
	assert_string_equal(buf + strlen(buf) - 4, "\"...");
	sbx_q("\033\033\033\033\033", buf, sizeof buf);        /* never cuts inside an escape */
	assert_string_equal(buf, "\"\\033\\033\"...");
	char fit[8] = "a\n\nbcd";
	sbx_escape_fit(fit, sizeof fit);
	assert_string_equal(fit, "a\\n\\nbc");
	for (const char *p = buf; *p; p++)
		assert_true((unsigned char)*p >= 0x20 && *p != 0x7f);
}

/* sbx_msg: a quoted name stays as sbx_q made it; a control byte left in the text is escaped; one line */
static void t_msg_one_line(void **state)
{
	(void)state;
	int p[2];
	assert_int_equal(pipe(p), 0);
	int old = sbx_msg_set_fd(p[1]);
	char q[SBX_Q_MAX];
	sbx_msg("%s: not found (%s)", sbx_q("./x\033[2Jy\rz\nw", q, sizeof q), "why \033]0;t\a\nsbxsup: ok");
	sbx_msg_set_fd(old);
	close(p[1]);
	char got[512] = "";
	ssize_t n = read(p[0], got, sizeof got - 1);
	close(p[0]);
	assert_true(n > 0);
	assert_string_equal(got, "sbxsup: \"./x\\033[2Jy\\rz\\nw\": not found (why \\033]0;t\\a\\nsbxsup: ok)\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(t_plain),
		cmocka_unit_test(t_controls),
		cmocka_unit_test(t_bad_utf8_and_bidi),
		cmocka_unit_test(t_escape_and_fit),
		cmocka_unit_test(t_msg_one_line),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
