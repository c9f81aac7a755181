/* test_report.c — the preload record codec (policy/report.c): round trips, every rejection rule,
 * and a fuzz-ish pass (random bytes and random mutations of valid records are accepted only when
 * they re-encode to exactly the same bytes, i.e. only when well formed). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <cmocka.h>

#include "policy.h"
#include "report.h"

static size_t mk_deny(unsigned char *buf, const char *subject, const char *comm)
{
	struct sbx_rec_hdr h = {0};
	h.type = SBX_REC_DENY;
	h.pid = 1234;
	h.op = SBX_OP_OPEN;
	h.access = POL_READ;
	h.err = 13;
	h.rule = 7;
	h.dropped = 3;
	return sbx_rec_encode(buf, &h, subject, comm);
}

static void test_roundtrip_deny(void **state)
{
	(void)state;
	unsigned char buf[SBX_REC_MAX];
	struct sbx_rec r;
	size_t n = mk_deny(buf, "/etc/shadow", "cat");
	assert_int_equal(n, sizeof(struct sbx_rec_hdr) + 11 + 3);
	assert_int_equal(sbx_rec_decode(buf, n, &r), 0);
	assert_int_equal(r.h.type, SBX_REC_DENY);
	assert_int_equal(r.h.pid, 1234);
	assert_int_equal(r.h.op, SBX_OP_OPEN);
	assert_int_equal(r.h.err, 13);
	assert_int_equal(r.h.rule, 7);
	assert_int_equal(r.h.dropped, 3);
	assert_string_equal(r.subject, "/etc/shadow");
	assert_string_equal(r.comm, "cat");
}

static void test_roundtrip_ack(void **state)
{
	(void)state;
	unsigned char buf[SBX_REC_MAX];
	struct sbx_rec r;
	struct sbx_rec_hdr h = {0};
	h.type = SBX_REC_ACK;
	h.pid = 42;
	size_t n = sbx_rec_encode(buf, &h, NULL, "python3");
	assert_int_equal(sbx_rec_decode(buf, n, &r), 0);
	assert_int_equal(r.h.type, SBX_REC_ACK);
	assert_string_equal(r.subject, "");
	assert_string_equal(r.comm, "python3");
}

static void test_truncation(void **state)
{
	(void)state;
	unsigned char buf[SBX_REC_MAX];
	char big[SBX_REC_SUBJECT_MAX + 100];
	struct sbx_rec r;
	memset(big, 'a', sizeof big - 1);
	big[sizeof big - 1] = 0;
	size_t n = mk_deny(buf, big, "a-very-long-command-name");
	assert_true(n <= SBX_REC_MAX);
	assert_int_equal(sbx_rec_decode(buf, n, &r), 0);
	assert_int_equal(strlen(r.subject), SBX_REC_SUBJECT_MAX);
	assert_int_equal(strlen(r.comm), 16);
}

static void test_rejects(void **state)
{
	(void)state;
	unsigned char buf[SBX_REC_MAX], tmp[SBX_REC_MAX];
	struct sbx_rec r;
	struct sbx_rec_hdr h;
	size_t n = mk_deny(buf, "/x", "c");

	assert_int_equal(sbx_rec_decode(buf, n - 1, &r), -1);   /* short */
	assert_int_equal(sbx_rec_decode(buf, 10, &r), -1);      /* shorter than a header */
	memcpy(tmp, buf, n); tmp[n] = 'x';
	assert_int_equal(sbx_rec_decode(tmp, n + 1, &r), -1);   /* trailing byte */
	assert_int_equal(sbx_rec_decode(NULL, n, &r), -1);

#define MUT(stmt) do { memcpy(tmp, buf, n); memcpy(&h, tmp, sizeof h); stmt; memcpy(tmp, &h, sizeof h); \
		assert_int_equal(sbx_rec_decode(tmp, n, &r), -1); } while (0)
	MUT(h.magic ^= 1);
	MUT(h.version = 2);
	MUT(h.type = 0);
	MUT(h.type = 3);
	MUT(h.op = 0);
	MUT(h.op = SBX_OP__MAX);
	MUT(h.access = 8);
	MUT(h.family = 99);
	MUT(h.reserved = 1);
	MUT(h.pid = -1);
	MUT(h.err = -5);
	MUT(h.subject_len = 0; h.comm_len = 3);                 /* DENY needs a subject */
	MUT(h.type = SBX_REC_ACK);                              /* ACK with op set */
#undef MUT
	/* embedded NUL in the subject */
	memcpy(tmp, buf, n);
	tmp[sizeof(struct sbx_rec_hdr)] = 0;
	assert_int_equal(sbx_rec_decode(tmp, n, &r), -1);
	/* oversized lengths */
	memcpy(&h, buf, sizeof h);
	h.subject_len = SBX_REC_SUBJECT_MAX + 1;
	memcpy(tmp, &h, sizeof h);
	assert_int_equal(sbx_rec_decode(tmp, sizeof h + h.subject_len, &r), -1);
	h.subject_len = 2; h.comm_len = 17;
	memcpy(tmp, &h, sizeof h);
	assert_int_equal(sbx_rec_decode(tmp, sizeof h + 19, &r), -1);
}

/* err: a positive errno; a negative EAI_* code only on a "resolve" denial */
static void test_resolve_err(void **state)
{
	(void)state;
	unsigned char buf[SBX_REC_MAX];
	struct sbx_rec r;
	struct sbx_rec_hdr h = {0};
	h.type = SBX_REC_DENY;
	h.op = SBX_OP_RESOLVE;
	h.err = -4; /* EAI_FAIL */
	h.port = 443;
	size_t n = sbx_rec_encode(buf, &h, "example.com", "curl");
	assert_int_equal(sbx_rec_decode(buf, n, &r), 0);
	assert_int_equal(r.h.err, -4);
	assert_int_equal(r.h.port, 443);
	h.err = -17;
	n = sbx_rec_encode(buf, &h, "example.com", "curl");
	assert_int_equal(sbx_rec_decode(buf, n, &r), -1);
	h.err = -4;
	h.op = SBX_OP_CONNECT;
	n = sbx_rec_encode(buf, &h, "1.2.3.4", "curl");
	assert_int_equal(sbx_rec_decode(buf, n, &r), -1);
}

static void test_names(void **state)
{
	(void)state;
	for (unsigned op = 1; op < SBX_OP__MAX; op++)
		assert_non_null(sbx_op_name(op));
	assert_null(sbx_op_name(0));
	assert_null(sbx_op_name(SBX_OP__MAX));
	assert_null(sbx_op_name(~0u));
	assert_string_equal(sbx_op_name(SBX_OP_OPEN), "open");
	assert_string_equal(sbx_op_name(SBX_OP_SPAWN), "spawn");
	assert_string_equal(sbx_access_name(POL_READ), "read");
	assert_string_equal(sbx_access_name(POL_READ | POL_WRITE), "write");
	assert_string_equal(sbx_access_name(POL_EXEC | POL_READ), "exec");
	assert_string_equal(sbx_access_name(0), "connect");
}

/* An accepted datagram must be exactly what the encoder makes of its decoded content. */
static void assert_canonical(const unsigned char *buf, size_t n, const struct sbx_rec *r)
{
	unsigned char again[SBX_REC_MAX];
	size_t m = sbx_rec_encode(again, &r->h, r->subject, r->comm);
	assert_int_equal(m, n);
	assert_memory_equal(again, buf, n);
}

static void test_fuzz(void **state)
{
	(void)state;
	unsigned char buf[SBX_REC_MAX + 64], good[SBX_REC_MAX];
	struct sbx_rec r;
	unsigned seed = 12345;
	size_t accepted = 0;

	/* pure random bytes: with a random magic, nothing may pass */
	for (int i = 0; i < 20000; i++) {
		size_t n = (size_t)rand_r(&seed) % sizeof buf;
		for (size_t k = 0; k < n; k++)
			buf[k] = (unsigned char)rand_r(&seed);
		if (sbx_rec_decode(buf, n, &r) == 0) {
			accepted++;
			assert_canonical(buf, n, &r);
		}
	}
	assert_int_equal(accepted, 0);

	/* mutations of a valid record: whatever passes must be canonical */
	size_t gn = mk_deny(good, "/home/u/.ssh/id_rsa", "python3");
	for (int i = 0; i < 200000; i++) {
		size_t n = gn;
		memcpy(buf, good, gn);
		int flips = 1 + rand_r(&seed) % 4;
		for (int k = 0; k < flips; k++)
			buf[(size_t)rand_r(&seed) % gn] = (unsigned char)rand_r(&seed);
		if (rand_r(&seed) % 8 == 0)
			n = (size_t)rand_r(&seed) % (gn + 8);
		if (sbx_rec_decode(buf, n, &r) == 0) {
			assert_canonical(buf, n, &r);
			assert_true(r.h.op > 0 && r.h.op < SBX_OP__MAX);
			assert_true(strlen(r.subject) == r.h.subject_len);
			assert_true(strlen(r.comm) == r.h.comm_len);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip_deny),
		cmocka_unit_test(test_roundtrip_ack),
		cmocka_unit_test(test_truncation),
		cmocka_unit_test(test_rejects),
		cmocka_unit_test(test_resolve_err),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_fuzz),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
