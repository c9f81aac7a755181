/* test_audit_read.c — the streaming line reader (audit/audit_read.c): the 64 KiB line cap at its
 * exact boundary, overlong lines far bigger than the read buffer (skipped, never buffered), a last
 * line without newline, empty input, stdin-like pipes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "audit_read.h"

static char path[64];

static void write_file(const char *const *parts, const size_t *lens, size_t n)
{
	snprintf(path, sizeof path, "/tmp/test_audit_read.XXXXXX");
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(write(fd, parts[i], lens[i]), (ssize_t)lens[i]);
	close(fd);
}

static void test_line_cap_boundary(void **state)
{
	(void)state;
	/* 65535 bytes + '\n' = 64 KiB exactly: accepted; one more byte: damaged */
	size_t big = 3 * 1024 * 1024; /* larger than the reader's buffer */
	char *a = malloc(big);
	memset(a, 'x', big);
	const char *parts[] = {a, "\n", a, "\n", "short\n", a, "\n", "tail"};
	size_t lens[] = {AUDIT_MAX_LINE - 1, 1, AUDIT_MAX_LINE, 1, 6, big, 1, 4};
	write_file(parts, lens, 8);
	struct audit_reader r;
	char err[256];
	assert_int_equal(audit_reader_open(&r, path, false, NULL, err, sizeof err), 0);
	const char *line, *damage;
	size_t len;
	assert_int_equal(audit_reader_next(&r, &line, &len, &damage), 1);
	assert_null(damage);
	assert_int_equal(len, AUDIT_MAX_LINE - 1);
	assert_int_equal(audit_reader_next(&r, &line, &len, &damage), 1);
	assert_non_null(damage);
	assert_int_equal(len, 0);
	assert_int_equal(r.lineno, 2);
	assert_int_equal(audit_reader_next(&r, &line, &len, &damage), 1);
	assert_null(damage);
	assert_int_equal(len, 5);
	assert_memory_equal(line, "short", 5);
	assert_int_equal(audit_reader_next(&r, &line, &len, &damage), 1); /* 3 MiB line: skipped */
	assert_non_null(strstr(damage, "64 KiB"));
	assert_int_equal(r.lineno, 4);
	assert_int_equal(audit_reader_next(&r, &line, &len, &damage), 1);
	assert_non_null(strstr(damage, "no newline"));
	assert_int_equal(len, 4);
	assert_memory_equal(line, "tail", 4);
	assert_int_equal(audit_reader_next(&r, &line, &len, &damage), 0);
	assert_int_equal(r.lineno, 5);
	audit_reader_close(&r);
	unlink(path);
	free(a);
}

static void test_empty_and_errors(void **state)
{
	(void)state;
	const char *parts[] = {""};
	size_t lens[] = {0};
	write_file(parts, lens, 1);
	struct audit_reader r;
	char err[256];
	assert_int_equal(audit_reader_open(&r, path, false, NULL, err, sizeof err), 0);
	const char *line, *damage;
	size_t len;
	assert_int_equal(audit_reader_next(&r, &line, &len, &damage), 0);
	audit_reader_close(&r);
	unlink(path);
	assert_int_equal(audit_reader_open(&r, "/nonexistent/x", false, NULL, err, sizeof err), -1);
	assert_non_null(strstr(err, "/nonexistent/x"));
	assert_int_equal(audit_reader_open(&r, "/tmp", false, NULL, err, sizeof err), -1);
}

static void test_printable(void **state)
{
	(void)state;
	char s[64] = "a\x1b[31m\n\xc2\x9b" "b\xc3\xa9";
	audit_printable(s, sizeof s);   /* the one quoting style, without the quotes */
	assert_string_equal(s, "a\\033[31m\\n\\u009bb\xc3\xa9");
	char small[8] = "\x1b\x1b\x1b";
	audit_printable(small, sizeof small);   /* cut at an escape boundary */
	assert_string_equal(small, "\\033");
	char *t = audit_printable_take(strdup("x\xe2\x80\xaey"));
	assert_string_equal(t, "x\\u202ey");
	free(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_line_cap_boundary),
		cmocka_unit_test(test_empty_and_errors),
		cmocka_unit_test(test_printable),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
