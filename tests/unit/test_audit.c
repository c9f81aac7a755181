/* test_audit.c — the audit writer (audit/audit.c) and the line reader/checker (audit/audit_read.c,
 * common/jsonlite.c, common/utf8.c): lines verify, tampering is detected, UTF-8 is repaired, the
 * chain links, write failures are reported, destinations and file mode are right. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "audit.h"
#include "audit_read.h"
#include "jsonlite.h"
#include "utf8.h"

struct tmp {
	char path[64];
};

static void tmp_make(struct tmp *t)
{
	snprintf(t->path, sizeof t->path, "/tmp/test_audit.XXXXXX");
	int fd = mkstemp(t->path);
	assert_true(fd >= 0);
	close(fd);
	unlink(t->path); /* audit_open creates it */
}

/* reads the whole file; returns malloc'd NUL-terminated text */
static char *slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	char *buf = malloc(4 * 1024 * 1024);
	assert_non_null(buf);
	size_t n = fread(buf, 1, 4 * 1024 * 1024 - 1, f);
	fclose(f);
	buf[n] = '\0';
	*len = n;
	return buf;
}

static void emit_deny(struct audit *a, const char *path)
{
	cJSON *e = audit_event(a, "preload.deny", "preload");
	assert_non_null(e);
	cJSON_AddNumberToObject(e, "pid", 42);
	assert_non_null(audit_add_str(e, "path", path, 4096));
	assert_int_equal(audit_emit(a, e), 0);
}

/* every line of the file: strict check, hash, chain, seq; returns the number of lines */
static int check_file(const char *path, const char *want_run)
{
	size_t len;
	char *buf = slurp(path, &len);
	char prev[65];
	memset(prev, '0', 64);
	prev[64] = '\0';
	int n = 0;
	for (char *p = buf, *nl; (nl = strchr(p, '\n')); p = nl + 1, n++) {
		struct audit_line al;
		char msg[200];
		const char *pr = audit_line_check(p, (size_t)(nl - p), &al, true, msg, sizeof msg);
		if (pr)
			fail_msg("line %d: %s", n + 1, pr);
		assert_true(audit_line_hash_ok(p, (size_t)(nl - p)));
		assert_int_equal(al.seq, n);
		assert_memory_equal(al.prev.p, prev, 64);
		memcpy(prev, al.hash.p, 64);
		if (want_run)
			assert_string_equal(al.run_id, want_run);
		assert_true((size_t)(nl - p) + 1 <= AUDIT_MAX_LINE);
	}
	free(buf);
	return n;
}

static void test_lines_verify_and_chain(void **state)
{
	(void)state;
	struct tmp t;
	tmp_make(&t);
	struct audit a;
	char err[256];
	assert_int_equal(audit_open(&a, t.path, "unit-exec", err, sizeof err), 0);
	assert_int_equal(strlen(a.run), 32);
	assert_int_equal(strspn(a.run, "0123456789abcdef"), 32);
	for (int i = 0; i < 50; i++)
		emit_deny(&a, "/etc/shadow");
	cJSON *e = audit_event(&a, "run.end", "supervisor");
	cJSON_AddNumberToObject(e, "exit", 0);
	cJSON_AddItemToObject(e, "counts", audit_counts(&a));
	assert_int_equal(audit_emit(&a, e), 0);
	audit_close(&a);
	assert_int_equal(check_file(t.path, a.run), 51);
	/* field order: v ts run seq executor event src ... prev hash */
	size_t len;
	char *buf = slurp(t.path, &len);
	assert_true(strncmp(buf, "{\"v\":1,\"ts\":\"", 13) == 0);
	char *end = strstr(buf, "\"event\":\"run.end\"");
	assert_non_null(end);
	assert_non_null(strstr(end, "\"counts\":{\"preload.deny\":50}"));
	free(buf);
	unlink(t.path);
}

static void test_tampered_line_fails(void **state)
{
	(void)state;
	struct tmp t;
	tmp_make(&t);
	struct audit a;
	char err[256];
	assert_int_equal(audit_open(&a, t.path, "unit-exec", err, sizeof err), 0);
	emit_deny(&a, "/root/secret");
	audit_close(&a);
	size_t len;
	char *buf = slurp(t.path, &len);
	buf[len - 1] = '\0'; /* drop '\n' */
	assert_true(audit_line_hash_ok(buf, len - 1));
	char *p = strstr(buf, "/root/secret");
	p[1] = 'R'; /* one byte */
	assert_false(audit_line_hash_ok(buf, len - 1));
	p[1] = 'r';
	char *h = strstr(buf, ",\"hash\":\"") + 9;
	h[0] = h[0] == 'a' ? 'b' : 'a'; /* forged hash */
	assert_false(audit_line_hash_ok(buf, len - 1));
	free(buf);
	unlink(t.path);
}

static void test_utf8_sanitising(void **state)
{
	(void)state;
	char *s = utf8_sanitize("a\xff" "b\xc3\xa9" "c\xed\xa0\x80" "d\xc0\xaf", 1000);
	assert_string_equal(s, "a\xef\xbf\xbd" "b\xc3\xa9" "c\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd" "d\xef\xbf\xbd\xef\xbf\xbd");
	free(s);
	s = utf8_sanitize("\xc3\xa9\xc3\xa9", 3); /* never splits a character */
	assert_string_equal(s, "\xc3\xa9");
	free(s);
	assert_true(utf8_valid("\xf0\x9f\x98\x80", 4));
	assert_false(utf8_valid("\xf4\x90\x80\x80", 4)); /* > U+10FFFF */
	assert_false(utf8_valid("\xe0\x80\xaf", 3));     /* overlong */

	struct tmp t;
	tmp_make(&t);
	struct audit a;
	char err[256];
	assert_int_equal(audit_open(&a, t.path, "unit-exec", err, sizeof err), 0);
	emit_deny(&a, "/tmp/\xff\xfe");
	cJSON *e = audit_event(&a, "preload.deny", "preload");
	cJSON_AddStringToObject(e, "raw", "x\x80y"); /* added without audit_add_str: emit repairs it */
	cJSON_AddStringToObject(e, "ctl", "a\x1b[31m\n");
	assert_int_equal(audit_emit(&a, e), 0);
	audit_close(&a);
	size_t len;
	char *buf = slurp(t.path, &len);
	assert_true(utf8_valid(buf, len));
	assert_non_null(strstr(buf, "\"path\":\"/tmp/\xef\xbf\xbd\xef\xbf\xbd\""));
	assert_non_null(strstr(buf, "\"raw\":\"x\xef\xbf\xbdy\""));
	assert_non_null(strstr(buf, "\"ctl\":\"a\\u001b[31m\\n\""));
	free(buf);
	assert_int_equal(check_file(t.path, NULL), 2);
	unlink(t.path);
}

static void test_write_failure(void **state)
{
	(void)state;
	struct audit a;
	char err[256];
	assert_int_equal(audit_open(&a, "/dev/full", "unit-exec", err, sizeof err), 0);
	cJSON *e = audit_event(&a, "run.start", "supervisor");
	assert_int_equal(audit_emit(&a, e), -1);
	assert_true(a.failed);
	e = audit_event(&a, "run.end", "supervisor");
	assert_int_equal(audit_emit(&a, e), -1); /* stays failed */
	assert_int_equal(audit_emit(&a, NULL), -1);
	audit_close(&a);
	/* unwritable destination */
	assert_int_equal(audit_open(&a, "/nonexistent-dir/x.log", "unit-exec", err, sizeof err), -1);
	assert_non_null(strstr(err, "/nonexistent-dir/x.log"));
	assert_int_equal(audit_open(&a, "", "unit-exec", err, sizeof err), -1);
}

static void test_fd_dest(void **state)
{
	(void)state;
	int p[2];
	assert_int_equal(pipe(p), 0);
	char dest[32], err[256];
	snprintf(dest, sizeof dest, "fd:%d", p[1]);
	struct audit a;
	assert_int_equal(audit_open(&a, dest, "unit-exec", err, sizeof err), 0);
	assert_true(a.fd != p[1]);
	assert_true(fcntl(a.fd, F_GETFD) & FD_CLOEXEC);
	emit_deny(&a, "/x");
	audit_close(&a);
	close(p[1]);
	char buf[4096];
	ssize_t n = read(p[0], buf, sizeof buf - 1);
	assert_true(n > 0);
	buf[n] = '\0';
	assert_int_equal(buf[n - 1], '\n');
	assert_true(audit_line_hash_ok(buf, (size_t)n - 1));
	/* read end is not writable; bad numbers */
	snprintf(dest, sizeof dest, "fd:%d", p[0]);
	assert_int_equal(audit_open(&a, dest, "unit-exec", err, sizeof err), -1);
	close(p[0]);
	assert_int_equal(audit_open(&a, "fd:abc", "unit-exec", err, sizeof err), -1);
	assert_int_equal(audit_open(&a, "fd:", "unit-exec", err, sizeof err), -1);
	assert_int_equal(audit_open(&a, "fd:99999999999", "unit-exec", err, sizeof err), -1);
	assert_int_equal(audit_open(&a, "fd:987", "unit-exec", err, sizeof err), -1); /* not open */
}

static void test_file_mode_and_append(void **state)
{
	(void)state;
	struct tmp t;
	tmp_make(&t);
	mode_t old = umask(0);
	struct audit a, b;
	char err[256];
	assert_int_equal(audit_open(&a, t.path, "unit-exec", err, sizeof err), 0);
	umask(old);
	struct stat st;
	assert_int_equal(stat(t.path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	assert_true(fcntl(a.fd, F_GETFD) & FD_CLOEXEC);
	assert_true(fcntl(a.fd, F_GETFL) & O_APPEND);
	/* a second run appending to the same file: interleaved runs, each chain intact */
	assert_int_equal(audit_open(&b, t.path, "other-exec", err, sizeof err), 0);
	assert_string_not_equal(a.run, b.run);
	emit_deny(&a, "/a");
	emit_deny(&b, "/b");
	emit_deny(&a, "/a2");
	audit_close(&a);
	audit_close(&b);
	size_t len;
	char *buf = slurp(t.path, &len);
	assert_int_equal(strchr(buf, '\n') - buf + 1 < (long)len, 1);
	free(buf);
	unlink(t.path);
}

static void test_huge_line_truncated(void **state)
{
	(void)state;
	struct tmp t;
	tmp_make(&t);
	struct audit a;
	char err[256];
	assert_int_equal(audit_open(&a, t.path, "unit-exec", err, sizeof err), 0);
	char *big = malloc(200000);
	memset(big, 'A', 199999);
	big[199999] = '\0';
	cJSON *e = audit_event(&a, "preload.deny", "preload");
	cJSON_AddStringToObject(e, "path", big); /* not through audit_add_str: emit must bound it */
	memset(big, '\x01', 50000);              /* escapes to \u0001: 6x when printed */
	big[50000] = '\0';
	cJSON_AddStringToObject(e, "comm", big);
	cJSON *arr = cJSON_AddArrayToObject(e, "nums");
	for (int i = 0; i < 20000; i++)
		cJSON_AddItemToArray(arr, cJSON_CreateNumber(i));
	assert_int_equal(audit_emit(&a, e), 0);
	audit_close(&a);
	free(big);
	size_t len;
	char *buf = slurp(t.path, &len);
	assert_true(len <= AUDIT_MAX_LINE);
	assert_non_null(strstr(buf, "\"truncated\":true,\"prev\":"));
	free(buf);
	assert_int_equal(check_file(t.path, NULL), 1);
	unlink(t.path);
}

static void test_no_destination_counts(void **state)
{
	(void)state;
	struct audit a;
	char err[256];
	assert_int_equal(audit_open(&a, NULL, "unit-exec", err, sizeof err), 0);
	emit_deny(&a, "/x");
	emit_deny(&a, "/y");
	cJSON *e = audit_event(&a, "env.drop", "supervisor");
	assert_int_equal(audit_emit(&a, e), 0);
	cJSON *c = audit_counts(&a);
	char *s = cJSON_PrintUnformatted(c);
	assert_string_equal(s, "{\"preload.deny\":2,\"env.drop\":1}");
	free(s);
	cJSON_Delete(c);
	assert_int_equal(a.seq, 3);
	audit_close(&a);
}

static void test_timestamp(void **state)
{
	(void)state;
	char ts[32];
	audit_timestamp(ts);
	assert_int_equal(strlen(ts), 27);
	int64_t us;
	assert_int_equal(audit_parse_time(ts, strlen(ts), &us), 0);
	assert_true(us > 1700000000LL * 1000000);
	assert_int_equal(audit_parse_time("1970-01-01", 10, &us), 0);
	assert_int_equal(us, 0);
	assert_int_equal(audit_parse_time("1970-01-01T01:00:00+01:00", 25, &us), 0);
	assert_int_equal(us, 0);
	assert_int_equal(audit_parse_time("1970-01-01 00:00:01.5Z", 22, &us), 0);
	assert_int_equal(us, 1500000);
	assert_int_equal(audit_parse_time("yesterday", 9, &us), -1);
	assert_int_equal(audit_parse_time("2026-13-01", 10, &us), -1);
}

static void test_jsonlite(void **state)
{
	(void)state;
	static const char *const good[] = {
		"{}", " {\"a\":1} ", "{\"a\":[1,2,{\"b\":null}],\"c\":\"x\\\"y\\u00e9\",\"d\":-1.5e3,\"e\":true}",
	};
	static const char *const bad[] = {
		"", "[]", "{", "{\"a\"}", "{\"a\":}", "{\"a\":1,}", "{\"a\":01}", "{\"a\":\"\\x\"}",
		"{\"a\":\"\x01\"}", "{\"a\":1} x", "{\"a\":tru}", "{\"a\":\"\\u12\"}", "{'a':1}",
		/* the one strict pre-check (jsonlite.h): duplicates at any depth, also written with an
		 * escape; \u0000; lone surrogates; bad UTF-8 in a string */
		"{\"a\":{\"b\":1,\"b\":2}}", "{\"a\":1,\"\\u0061\":2}", "{\"a\":\"\\u0000\"}",
		"{\"a\":\"\\udc00\"}", "{\"a\":\"\xc0\xaf\"}", "{\"a\":\"\xed\xa0\x80\"}",
	};
	struct jl_obj o;
	for (size_t i = 0; i < sizeof good / sizeof good[0]; i++)
		assert_int_equal(jl_object(good[i], strlen(good[i]), &o, NULL, NULL), 0);
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		if (jl_object(bad[i], strlen(bad[i]), &o, NULL, NULL) == 0)
			fail_msg("accepted: %s", bad[i]);
	const char *s = good[2];
	assert_int_equal(jl_object(s, strlen(s), &o, NULL, NULL), 0);
	assert_int_equal(o.n, 4);
	char buf[32];
	assert_int_equal(jl_str(jl_get(&o, "c"), buf, sizeof buf), 5);
	assert_string_equal(buf, "x\"y\xc3\xa9");
	assert_true(jl_str_eq(jl_get(&o, "c"), "x\"y\xc3\xa9"));
	int64_t v;
	assert_int_equal(jl_i64(jl_get(&o, "d"), &v), -1); /* not an integer */
	/* depth bomb */
	char deep[300];
	size_t p = 0;
	deep[p++] = '{';
	deep[p++] = '"';
	deep[p++] = 'a';
	deep[p++] = '"';
	deep[p++] = ':';
	for (int i = 0; i < 100; i++)
		deep[p++] = '[';
	for (int i = 0; i < 100; i++)
		deep[p++] = ']';
	deep[p++] = '}';
	assert_int_equal(jl_object(deep, p, &o, NULL, NULL), -1);
	/* a message with line, column and the JSON path of a duplicate */
	static const char dupl[] = "{\"a\":[1,\n {\"x\":1, \"x\":2}]}";
	struct jl_error je;
	assert_int_equal(jl_check(dupl, strlen(dupl), 0, 0, &o, &je), -1);
	assert_int_equal(je.kind, JL_E_DUP);
	assert_int_equal(je.line, 2);
	assert_int_equal(je.col, 10);
	assert_string_equal(je.what, "a[1].x: duplicate key (first at line 2, column 3)");
}

static void test_line_check_rejects(void **state)
{
	(void)state;
	struct tmp t;
	tmp_make(&t);
	struct audit a;
	char err[256];
	assert_int_equal(audit_open(&a, t.path, "unit-exec", err, sizeof err), 0);
	emit_deny(&a, "/x");
	audit_close(&a);
	size_t len;
	char *buf = slurp(t.path, &len);
	len--; /* '\n' */
	struct audit_line al;
	char msg[200];
	assert_null(audit_line_check(buf, len, &al, true, msg, sizeof msg));
	/* a duplicate "event" member spliced in before prev: strict check rejects */
	char *dup = malloc(len + 64);
	char *pv = strstr(buf, ",\"prev\":");
	size_t head = (size_t)(pv - buf);
	memcpy(dup, buf, head);
	size_t k = head + (size_t)sprintf(dup + head, ",\"event\":\"x\"");
	memcpy(dup + k, pv, len - head);
	assert_non_null(audit_line_check(dup, k + len - head, &al, true, msg, sizeof msg));
	assert_non_null(strstr(msg, "duplicate"));
	free(dup);
	assert_non_null(audit_line_check("{\"v\":2}", 7, &al, true, msg, sizeof msg));
	assert_non_null(audit_line_check("", 0, &al, true, msg, sizeof msg));
	free(buf);
	unlink(t.path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lines_verify_and_chain),
		cmocka_unit_test(test_tampered_line_fails),
		cmocka_unit_test(test_utf8_sanitising),
		cmocka_unit_test(test_write_failure),
		cmocka_unit_test(test_fd_dest),
		cmocka_unit_test(test_file_mode_and_append),
		cmocka_unit_test(test_huge_line_truncated),
		cmocka_unit_test(test_no_destination_counts),
		cmocka_unit_test(test_timestamp),
		cmocka_unit_test(test_jsonlite),
		cmocka_unit_test(test_line_check_rejects),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
