/* test_serve_proto.c — the `sbxsup serve` protocol (supervisor/serve/serve_proto.h): a request
 * round-trips through encode and parse; every malformed request a hostile or broken client could
 * send is refused with a reason (short, bad magic/version/flags, counts out of range, descriptor
 * count mismatch, no or two working directories, targets out of range or repeated, strings running
 * past the end, bytes after the last string, argv[0] not "run", env entries without '='); the
 * encoders refuse what does not fit; replies round-trip and bad ones are refused. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "serve_proto.h"

static char *argv_ok[] = {"run", "-m", "x.json", "--", "sh", "-c", "echo", NULL};
static char *env_ok[] = {"HOME=/h", "PATH=/bin", "EMPTY=", NULL};
static const int32_t tg_ok[] = {-1, 0, 1, 2, 7};

static long enc(char *buf, size_t cap)
{
	return serve_req_encode(buf, cap, argv_ok, env_ok, tg_ok, 5);
}

static void test_round_trip(void **state)
{
	(void)state;
	static char buf[4096];
	static struct serve_req rq;
	long n = enc(buf, sizeof buf);
	assert_true(n > 0);
	char why[200] = "";
	assert_int_equal(serve_req_parse(buf, (size_t)n, 5, &rq, why, sizeof why), 0);
	assert_int_equal(rq.argc, 7);
	assert_int_equal(rq.envc, 3);
	assert_int_equal(rq.nfds, 5);
	assert_int_equal(rq.cwd_index, 0);
	for (int i = 0; i < 7; i++)
		assert_string_equal(rq.argv[i], argv_ok[i]);
	assert_null(rq.argv[7]);
	assert_string_equal(rq.envp[2], "EMPTY=");
	assert_null(rq.envp[3]);
	assert_int_equal(rq.target[4], 7);
}

/* parse a copy of buf[0..n) after `edit`, expect a refusal whose reason contains `want` */
static void refused(const char *buf, size_t n, unsigned nfds, const char *want)
{
	static struct serve_req rq;
	char *c = malloc(n ? n : 1), why[200] = "";
	assert_non_null(c);
	memcpy(c, buf, n);
	if (serve_req_parse(c, n, nfds, &rq, why, sizeof why) != -1 || !strstr(why, want))
		fail_msg("want a refusal containing '%s', got '%s'", want, why);
	free(c);
}

static void put32(char *b, size_t off, uint32_t v)
{
	memcpy(b + off, &v, 4);
}

static void test_malformed(void **state)
{
	(void)state;
	static char buf[4096], b[4096];
	long n = enc(buf, sizeof buf);
	assert_true(n > 0);
	size_t N = (size_t)n;
	refused(buf, 10, 5, "shorter than its header");
	char *huge = calloc(1, SBX_SERVE_REQ_MAX + 1);
	assert_non_null(huge);
	memcpy(huge, buf, N);
	refused(huge, SBX_SERVE_REQ_MAX + 1, 5, "longer than");
	free(huge);
	memcpy(b, buf, N); b[0] = 'X'; refused(b, N, 5, "bad magic");
	memcpy(b, buf, N); put32(b, 4, 2); refused(b, N, 5, "protocol version 2");
	memcpy(b, buf, N); put32(b, 8, 1); refused(b, N, 5, "flags");
	memcpy(b, buf, N); put32(b, 12, 1); refused(b, N, 5, "argc 1");
	memcpy(b, buf, N); put32(b, 12, SBX_SERVE_MAX_ARGS + 1); refused(b, N, 5, "argc");
	memcpy(b, buf, N); put32(b, 12, 8); refused(b, N, 5, "");            /* one string too many */
	memcpy(b, buf, N); put32(b, 16, 0xffffffffu); refused(b, N, 5, "envc");
	memcpy(b, buf, N); put32(b, 20, 0); refused(b, N, 0, "nfds 0");
	memcpy(b, buf, N); put32(b, 20, SBX_SERVE_MAX_FDS + 1); refused(b, N, SBX_SERVE_MAX_FDS + 1, "nfds");
	refused(buf, N, 4, "names 5 descriptors, 4 arrived");
	memcpy(b, buf, N); put32(b, 24 + 4, 0xffffffffu); refused(b, N, 5, "two working directories");
	memcpy(b, buf, N); put32(b, 24, 3); refused(b, N, 5, "no working directory");
	memcpy(b, buf, N); put32(b, 24 + 16, 1024); refused(b, N, 5, "out of range");
	memcpy(b, buf, N); put32(b, 24 + 16, (uint32_t)-5); refused(b, N, 5, "out of range");
	memcpy(b, buf, N); put32(b, 24 + 16, 2); refused(b, N, 5, "given twice");
	refused(buf, N - 1, 5, "runs past");                                   /* last NUL cut */
	memcpy(b, buf, N); b[N] = 'x'; refused(b, N + 1, 5, "after the last string");
	memcpy(b, buf, N); b[24 + 20] = 'R'; refused(b, N, 5, "argv[0]");
	memcpy(b, buf, N);
	char *e = memmem(b, N, "HOME=/h", 7);
	assert_non_null(e);
	e[4] = '_';
	refused(b, N, 5, "NAME=value");
	static struct serve_req rq;
	char why[200] = "";
	assert_int_equal(serve_req_parse(NULL, 0, 0, &rq, why, sizeof why), -1);
	assert_non_null(strstr(why, "shorter"));
}

static void test_encode_bounds(void **state)
{
	(void)state;
	char small[30];
	errno = 0;
	assert_int_equal(enc(small, sizeof small), -1);
	assert_int_equal(errno, E2BIG);
	/* an environment above the bound */
	size_t big = SBX_SERVE_REQ_MAX;
	char *val = malloc(big), *buf = malloc(big);
	assert_non_null(val);
	assert_non_null(buf);
	memset(val, 'a', big - 1);
	memcpy(val, "A=", 2);
	val[big - 1] = 0;
	char *env[] = {val, NULL};
	assert_int_equal(serve_req_encode(buf, big, argv_ok, env, tg_ok, 5), -1);
	free(val);
	free(buf);
}

static void test_reply(void **state)
{
	(void)state;
	char buf[256], why[200];
	long n = serve_rep_encode(buf, sizeof buf, 124, "{\"a\":1}", 7);
	assert_int_equal(n, SBX_SERVE_REP_HDR_LEN + 7);
	int ex;
	const char *rec;
	size_t rl;
	assert_int_equal(serve_rep_parse(buf, (size_t)n, &ex, &rec, &rl, why, sizeof why), 0);
	assert_int_equal(ex, 124);
	assert_int_equal(rl, 7);
	assert_memory_equal(rec, "{\"a\":1}", 7);
	assert_int_equal(serve_rep_parse(buf, (size_t)n - 1, &ex, &rec, &rl, why, sizeof why), -1);
	assert_int_equal(serve_rep_parse(buf, 8, &ex, &rec, &rl, why, sizeof why), -1);
	put32(buf, 8, 300);
	assert_int_equal(serve_rep_parse(buf, (size_t)n, &ex, &rec, &rl, why, sizeof why), -1);
	assert_int_equal(serve_rep_encode(buf, 10, 0, "", 0), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip), cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_encode_bounds), cmocka_unit_test(test_reply),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
