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
#include "audit_dest.h"
#include "audit_key.h"
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
	struct stat st;
	assert_int_equal(fstat(fileno(f), &st), 0);
	size_t cap = (size_t)st.st_size + 1 > 4 * 1024 * 1024 ? (size_t)st.st_size + 1 : 4 * 1024 * 1024;
	char *buf = malloc(cap);
	assert_non_null(buf);
	size_t n = fread(buf, 1, cap - 1, f);
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

/* ---- issue 14: keyed MAC, flow control, severity, destinations ------------------------------- */

static const unsigned char KEY32[32] = "0123456789abcdef0123456789abcdef";

static struct audit_key test_key(void)
{
	struct audit_key k;
	memcpy(k.k, KEY32, 32);
	audit_key_id(k.k, k.id);
	return k;
}

/* the lines of a file as an array of cJSON objects (n set); every line's hash checked with k */
static cJSON **parse_lines(const char *path, const struct audit_key *k, int *n)
{
	size_t len;
	char *buf = slurp(path, &len);
	cJSON **v = calloc(100000, sizeof *v);
	*n = 0;
	char prev[65];
	memset(prev, '0', 64);
	prev[64] = 0;
	for (char *p = buf, *nl; (nl = strchr(p, '\n')); p = nl + 1) {
		size_t pl;
		char want[65], got[65];
		assert_int_equal(audit_split_hash(p, (size_t)(nl - p), &pl, want), 0);
		if (k) {
			audit_key_mac_hex(k, p, pl, got);
			assert_string_equal(got, want);
			assert_false(audit_line_hash_ok(p, (size_t)(nl - p))); /* not a plain SHA-256 */
		}
		*nl = 0;
		cJSON *o = cJSON_Parse(p);
		assert_non_null(o);
		assert_string_equal(cJSON_GetObjectItem(o, "prev")->valuestring, prev);
		assert_int_equal((int)cJSON_GetObjectItem(o, "seq")->valuedouble, *n);
		snprintf(prev, sizeof prev, "%s", want);
		v[(*n)++] = o;
	}
	free(buf);
	return v;
}

static void free_lines(cJSON **v, int n)
{
	for (int i = 0; i < n; i++)
		cJSON_Delete(v[i]);
	free(v);
}

static const char *sget(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItem(o, k);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static double nget(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItem(o, k);
	return cJSON_IsNumber(v) ? v->valuedouble : -1;
}

static void emit_simple(struct audit *a, const char *event, const char *src, const char *path, const char *outcome)
{
	cJSON *e = audit_event(a, event, src);
	assert_non_null(e);
	cJSON_AddNumberToObject(e, "pid", 7);
	cJSON_AddStringToObject(e, "path", path);
	cJSON_AddStringToObject(e, "access", "read");
	if (outcome)
		cJSON_AddStringToObject(e, "outcome", outcome);
	assert_int_equal(audit_emit(a, e), 0);
}

static void emit_end(struct audit *a)
{
	cJSON *e = audit_event(a, "run.end", "kernel");
	cJSON_AddItemToObject(e, "counts", audit_counts(a));
	assert_int_equal(audit_emit(a, e), 0);
}

static void test_keyed_mac_and_key_id(void **state)
{
	(void)state;
	struct tmp t;
	tmp_make(&t);
	struct audit a;
	char err[256];
	struct audit_key k = test_key();
	assert_true(audit_key_id_valid(k.id));
	assert_int_equal(audit_open(&a, t.path, "unit-exec", err, sizeof err), 0);
	audit_set_key(&a, &k);
	assert_int_equal(audit_emit(&a, audit_event(&a, "run.start", "kernel")), 0);
	emit_deny(&a, "/etc/shadow");
	emit_end(&a);
	audit_close(&a);
	int n;
	cJSON **v = parse_lines(t.path, &k, &n);
	assert_int_equal(n, 3);
	assert_string_equal(sget(v[0], "key"), k.id);
	/* sev stamped on the security event, not on the others */
	assert_non_null(sget(v[1], "sev"));
	assert_null(sget(v[0], "sev"));
	assert_null(sget(v[2], "sev"));
	free_lines(v, n);
	/* a key file: raw or hex, same id; a directory lookup by id; a file named by the wrong id */
	char dir[] = "/tmp/test_audit_keys.XXXXXX";
	assert_non_null(mkdtemp(dir));
	char p1[128], p2[128], p3[128];
	snprintf(p1, sizeof p1, "%s/%s.key", dir, k.id);
	snprintf(p2, sizeof p2, "%s/hex.key", dir);
	snprintf(p3, sizeof p3, "%s/0000000000000000.key", dir);
	FILE *f = fopen(p1, "wb");
	fwrite(KEY32, 1, 32, f);
	fclose(f);
	f = fopen(p2, "w");
	for (int i = 0; i < 32; i++)
		fprintf(f, "%02x", KEY32[i]);
	fputc('\n', f);
	fclose(f);
	f = fopen(p3, "wb");
	fwrite(KEY32, 1, 32, f);
	fclose(f);
	struct audit_key l;
	assert_int_equal(audit_key_load(p2, &l, err, sizeof err), 0);
	assert_string_equal(l.id, k.id);
	assert_memory_equal(l.k, k.k, 32);
	struct audit_keys ks;
	memset(&ks, 0, sizeof ks);
	assert_int_equal(audit_keys_add(&ks, dir, err, sizeof err), 0);
	assert_non_null(audit_keys_find(&ks, k.id));
	assert_null(audit_keys_find(&ks, "0000000000000000")); /* holds another key's bytes */
	assert_null(audit_keys_find(&ks, "../../etc/passwd"));
	audit_keys_free(&ks);
	/* a symlinked key file is never followed */
	char p4[128];
	snprintf(p4, sizeof p4, "%s/link.key", dir);
	assert_int_equal(symlink(p1, p4), 0);
	assert_int_equal(audit_key_load(p4, &l, err, sizeof err), -1);
	unlink(p1);
	unlink(p2);
	unlink(p3);
	unlink(p4);
	rmdir(dir);
	unlink(t.path);
}

static void test_coalescing(void **state)
{
	(void)state;
	struct tmp t;
	tmp_make(&t);
	struct audit a;
	char err[256];
	assert_int_equal(audit_open(&a, t.path, "unit-exec", err, sizeof err), 0);
	assert_int_equal(audit_set_flow(&a, 0), 0);
	assert_int_equal(audit_emit(&a, audit_event(&a, "run.start", "kernel")), 0);
	for (int i = 0; i < 5; i++)
		emit_simple(&a, "kernel.violation", "kernel", "/etc/shadow", "contained");
	emit_simple(&a, "kernel.violation", "kernel", "/etc/shadow", "breach"); /* different key */
	for (int i = 0; i < 3; i++)
		emit_simple(&a, "kernel.violation", "kernel", "/etc/shadow", "contained");
	assert_true(audit_poll_ms(&a) >= 0); /* something is held */
	emit_end(&a);
	assert_int_equal(audit_poll_ms(&a), -1);
	audit_close(&a);
	int n;
	cJSON **v = parse_lines(t.path, NULL, &n);
	assert_int_equal(n, 5); /* start, 5x, breach, 3x, end */
	assert_int_equal(nget(v[1], "count"), 5);
	assert_non_null(sget(v[1], "first_ts"));
	assert_non_null(sget(v[1], "last_ts"));
	assert_null(cJSON_GetObjectItem(v[2], "count")); /* a single event has no count */
	assert_string_equal(sget(v[2], "sev"), "critical");
	assert_int_equal(nget(v[3], "count"), 3);
	cJSON *counts = cJSON_GetObjectItem(v[4], "counts");
	assert_int_equal(nget(counts, "kernel.violation"), 9); /* every event seen */
	const cJSON *sv = cJSON_GetObjectItem(v[4], "severity"); /* the table is severity.c's business */
	double sum = 0;
	for (const cJSON *it = sv ? sv->child : NULL; it; it = it->next)
		sum += it->valuedouble;
	assert_int_equal(sum, 9);
	assert_true(nget(sv, "critical") >= 1); /* the breach */
	assert_int_equal(nget(cJSON_GetObjectItem(v[4], "audit"), "coalesced"), 6);
	free_lines(v, n);
	unlink(t.path);
}

static void test_budget_kernel_never_displaced(void **state)
{
	(void)state;
	struct tmp t;
	tmp_make(&t);
	struct audit a;
	char err[256];
	assert_int_equal(audit_open(&a, t.path, "unit-exec", err, sizeof err), 0);
	assert_int_equal(audit_set_flow(&a, 1), 0);
	assert_int_equal(audit_emit(&a, audit_event(&a, "run.start", "kernel")), 0);
	char path[64];
	const int N = 20000;
	for (int i = 0; i < N; i++) { /* distinct: nothing coalesces */
		snprintf(path, sizeof path, "/forged/%d", i);
		emit_simple(&a, "preload.deny", "preload", path, NULL);
	}
	emit_simple(&a, "kernel.violation", "kernel", "/root/.ssh/id_rsa", "breach");
	emit_simple(&a, "preload.deny", "preload", "/forged/0", NULL); /* summarised with its twin */
	emit_end(&a);
	audit_close(&a);
	int n;
	cJSON **v = parse_lines(t.path, NULL, &n);
	int limit_hits = 0, breach = 0, summaries = 0;
	double preload_total = 0;
	for (int i = 0; i < n; i++) {
		const char *ev = sget(v[i], "event");
		if (!strcmp(ev, "limit.hit")) {
			limit_hits++;
			assert_string_equal(sget(v[i], "limit"), "audit");
			assert_string_equal(sget(v[i], "scope"), "preload");
		} else if (!strcmp(ev, "kernel.violation")) {
			breach++;
			assert_null(cJSON_GetObjectItem(v[i], "summary")); /* a line of its own */
		} else if (!strcmp(ev, "preload.deny")) {
			preload_total += nget(v[i], "count") > 0 ? nget(v[i], "count") : 1;
			summaries += cJSON_IsTrue(cJSON_GetObjectItem(v[i], "summary"));
		}
	}
	assert_int_equal(limit_hits, 1);
	assert_int_equal(breach, 1);
	assert_true(summaries > 0 && summaries <= 64);
	const cJSON *end = v[n - 1];
	assert_int_equal(nget(cJSON_GetObjectItem(end, "counts"), "preload.deny"), N + 1);
	const cJSON *pl = cJSON_GetObjectItem(cJSON_GetObjectItem(end, "audit"), "preload");
	/* exact: what was written + what no table kept = what was seen */
	assert_int_equal(preload_total + nget(pl, "unsummarised"), N + 1);
	assert_true(cJSON_IsTrue(cJSON_GetObjectItem(pl, "budget_hit")));
	size_t len;
	free(slurp(t.path, &len));
	assert_true(len < (1u << 20) + 64 * 1024 + 4096);
	free_lines(v, n);
	unlink(t.path);
}

/* Criticals and breaches are never budgeted: 12 000 distinct critical decoys past a 1 MiB budget,
 * then the real breach — every one is a line of its own. */
static void test_critical_never_buried(void **state)
{
	(void)state;
	struct tmp t;
	tmp_make(&t);
	struct audit a;
	char err[256];
	assert_int_equal(audit_open(&a, t.path, "unit-exec", err, sizeof err), 0);
	assert_int_equal(audit_set_flow(&a, 1), 0);
	assert_int_equal(audit_emit(&a, audit_event(&a, "run.start", "kernel")), 0);
	char path[64];
	const int N = 12000;
	for (int i = 0; i < N; i++) {
		snprintf(path, sizeof path, "/root/.ssh/decoy%d", i); /* a secret path: critical */
		emit_simple(&a, "kernel.violation", "kernel", path, "contained");
		emit_simple(&a, "preload.deny", "preload", path, NULL);
	}
	for (int i = 0; i < 3000; i++) { /* low: budgeted as before */
		snprintf(path, sizeof path, "/usr/share/x%d", i);
		emit_simple(&a, "kernel.violation", "kernel", path, "contained");
	}
	emit_simple(&a, "kernel.violation", "kernel", "/root/.ssh/id_rsa", "breach");
	emit_end(&a);
	audit_close(&a);
	int n;
	cJSON **v = parse_lines(t.path, NULL, &n);
	int crit_k = 0, crit_p = 0, breach = 0, low_lines = 0;
	for (int i = 0; i < n; i++) {
		const char *ev = sget(v[i], "event"), *sev = sget(v[i], "sev");
		if (!sev)
			continue;
		if (!strcmp(sev, "critical"))
			assert_null(cJSON_GetObjectItem(v[i], "summary"));
		if (!strcmp(sev, "critical") && !strcmp(ev, "preload.deny"))
			crit_p++;
		else if (!strcmp(sev, "critical") && !strcmp(sget(v[i], "outcome"), "breach"))
			breach++, assert_string_equal(sget(v[i], "path"), "/root/.ssh/id_rsa");
		else if (!strcmp(sev, "critical"))
			crit_k++;
		else
			low_lines++;
	}
	assert_int_equal(crit_k, N);
	assert_int_equal(crit_p, N);
	assert_int_equal(breach, 1);
	assert_true(low_lines < 3000); /* the lows met the budget, which the criticals did not use up */
	const cJSON *au = cJSON_GetObjectItem(v[n - 1], "audit");
	assert_int_equal(nget(au, "breaches"), 1);
	assert_int_equal(nget(cJSON_GetObjectItem(au, "kernel"), "urgent_lines"), N + 1);
	assert_int_equal(nget(cJSON_GetObjectItem(au, "preload"), "urgent_lines"), N);
	assert_int_equal(nget(cJSON_GetObjectItem(v[n - 1], "severity"), "critical"), 2 * N + 1);
	free_lines(v, n);
	unlink(t.path);
}

/* Past the cap: one limit.hit at once, and at run.end a summary line naming the objects. */
static void test_critical_cap_summary(void **state)
{
	(void)state;
	struct tmp t;
	tmp_make(&t);
	struct audit a;
	char err[256];
	assert_int_equal(audit_open(&a, t.path, "unit-exec", err, sizeof err), 0);
	assert_int_equal(audit_set_flow(&a, 1), 0);
	audit_set_urgent_cap(&a, 100);
	assert_int_equal(audit_emit(&a, audit_event(&a, "run.start", "kernel")), 0);
	char path[64];
	for (int i = 0; i < 150; i++) {
		snprintf(path, sizeof path, "/root/.ssh/decoy%d", i);
		emit_simple(&a, "kernel.violation", "kernel", path, "contained");
	}
	emit_simple(&a, "kernel.violation", "kernel", "/root/.ssh/decoy120", "contained"); /* named once */
	emit_simple(&a, "kernel.violation", "kernel", "/root/.ssh/id_rsa", "breach");
	emit_end(&a);
	audit_close(&a);
	int n;
	cJSON **v = parse_lines(t.path, NULL, &n);
	int lines = 0, hits = 0;
	const cJSON *sum = NULL;
	for (int i = 0; i < n; i++) {
		const char *ev = sget(v[i], "event");
		if (!strcmp(ev, "kernel.violation"))
			lines++;
		if (!strcmp(ev, "limit.hit")) {
			assert_string_equal(sget(v[i], "limit"), "audit_urgent");
			hits++;
			if (cJSON_IsTrue(cJSON_GetObjectItem(v[i], "summary")))
				sum = v[i];
		}
	}
	assert_int_equal(lines, 100);
	assert_int_equal(hits, 2);
	assert_non_null(sum);
	assert_int_equal(nget(sum, "suppressed"), 52);
	const cJSON *objs = cJSON_GetObjectItem(sum, "objects");
	assert_int_equal(cJSON_GetArraySize(objs), 51);
	bool named = false;
	for (const cJSON *o = objs->child; o; o = o->next)
		named |= !strcmp(o->valuestring, "/root/.ssh/id_rsa");
	assert_true(named);
	const cJSON *au = cJSON_GetObjectItem(v[n - 1], "audit");
	assert_int_equal(nget(au, "breaches"), 1);
	assert_int_equal(nget(cJSON_GetObjectItem(au, "kernel"), "urgent_suppressed"), 52);
	free_lines(v, n);
	unlink(t.path);
}

static void test_run_dest_refusals(void **state)
{
	(void)state;
	struct audit a;
	char err[512] = "";
	struct audit_run_cfg c = {.dest = "-", .executor = "x"};
	assert_int_equal(audit_run_open(&a, &c, err, sizeof err), -1);
	assert_non_null(strstr(err, "stderr"));
	c.dest = "fd:1";
	assert_int_equal(audit_run_open(&a, &c, err, sizeof err), -1);
	int d = dup(2);
	char fdd[16];
	snprintf(fdd, sizeof fdd, "fd:%d", d);
	c.dest = fdd;
	assert_int_equal(audit_run_open(&a, &c, err, sizeof err), -1);
	assert_non_null(strstr(err, "same file"));
	close(d);
	/* a symlink planted at the path */
	struct tmp t;
	tmp_make(&t);
	assert_int_equal(symlink("/etc/passwd", t.path), 0);
	c.dest = t.path;
	assert_int_equal(audit_run_open(&a, &c, err, sizeof err), -1);
	assert_non_null(strstr(err, "symbolic link"));
	assert_int_equal(audit_open(&a, t.path, "x", err, sizeof err), -1); /* the plain writer too */
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
		cmocka_unit_test(test_keyed_mac_and_key_id),
		cmocka_unit_test(test_coalescing),
		cmocka_unit_test(test_budget_kernel_never_displaced),
		cmocka_unit_test(test_critical_never_buried),
		cmocka_unit_test(test_critical_cap_summary),
		cmocka_unit_test(test_run_dest_refusals),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
