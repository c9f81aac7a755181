/* test_gw_parse.c — the gateway's parsers (supervisor/net/gw_parse.h), the one wildcard rule
 * (pol_host_match) and the gateway's record codec (policy/report.h SBXN): what they accept, what
 * they refuse, and that nothing is read past the bytes given. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "gw_names.h"
#include "gw_parse.h"
#include "policy.h"
#include "report.h"
#include "tls_hello.h"

static bool m(const char *pat, const char *name)
{
	return pol_host_match(pat, name, strlen(name));
}

static void t_wildcard(void **st)
{
	(void)st;
	assert_true(m("*.example.com", "a.example.com"));
	assert_true(m("*.example.com", "a.b.example.com"));
	assert_true(m("*.example.com", "A.Example.COM"));
	assert_false(m("*.example.com", "example.com"));
	assert_false(m("*.example.com", "evilexample.com"));
	assert_false(m("*.example.com", "a.example.com.evil"));
	assert_false(m("*.example.com", ".example.com"));
	assert_true(m("api.example.com", "api.example.com"));
	assert_false(m("api.example.com", "x.api.example.com"));
	assert_false(m("api.example.com", "api.example.co"));
	assert_false(m("*", "anything"));
}

static void t_name_norm(void **st)
{
	(void)st;
	char out[GW_NAME_MAX];
	assert_int_equal(gw_name_norm("API.Example.com.", 16, out), 0);
	assert_string_equal(out, "api.example.com");
	assert_int_equal(gw_name_norm("1.2.3.4", 7, out), -1);
	assert_int_equal(gw_name_norm("a..b", 4, out), -1);
	assert_int_equal(gw_name_norm("-a.b", 4, out), -1);
	assert_int_equal(gw_name_norm("a b.c", 5, out), -1);
	assert_int_equal(gw_name_norm("a\nb.c", 5, out), -1);
	assert_int_equal(gw_name_norm("", 0, out), -1);
}

/* Every prefix of a valid input is "need more", never a crash or a wrong answer. */
static void t_tls_sni(void **st)
{
	(void)st;
	uint8_t b[1024];
	char sni[GW_NAME_MAX];
	size_t n = tls_hello(b, "API.example.com", 0);
	assert_true(gw_is_tls(b, n));
	assert_int_equal(gw_tls_sni(b, n, sni), GW_OK);
	assert_string_equal(sni, "api.example.com");
	for (size_t k = 0; k < n; k++) {
		uint8_t *cut = malloc(k ? k : 1);
		memcpy(cut, b, k);
		assert_int_equal(gw_tls_sni(cut, k, sni), GW_MORE);
		free(cut);
	}
	/* over two records */
	n = tls_hello(b, "two.example.com", 20);
	assert_int_equal(gw_tls_sni(b, n, sni), GW_OK);
	assert_string_equal(sni, "two.example.com");
	/* no server_name */
	n = tls_hello(b, NULL, 0);
	assert_int_equal(gw_tls_sni(b, n, sni), GW_NONAME);
	/* a server name that is not a host name */
	n = tls_hello(b, "a\x01" "b.example.com", 0);
	assert_int_equal(gw_tls_sni(b, n, sni), GW_NONAME);
	n = tls_hello(b, "10.1.2.3", 0);
	assert_int_equal(gw_tls_sni(b, n, sni), GW_NONAME);
	/* corrupted lengths are refused, not followed */
	n = tls_hello(b, "api.example.com", 0);
	b[5 + 4 + 2 + 32 + 1 + 1] = 0xff; /* cipher suites length */
	assert_int_equal(gw_tls_sni(b, n, sni), GW_BAD);
	n = tls_hello(b, "api.example.com", 0);
	b[5] = 2; /* a server hello */
	assert_int_equal(gw_tls_sni(b, n, sni), GW_BAD);
	assert_false(gw_is_tls((const uint8_t *)"GET /", 5));
}

static int hp(const char *s, struct gw_http_req *r)
{
	/* exact size (a read past it is caught under ASan); kept: r->path points into it */
	static uint8_t *last;
	free(last);
	size_t n = strlen(s);
	last = malloc(n ? n : 1);
	memcpy(last, s, n);
	return gw_http_parse(last, n, r);
}

static void t_http(void **st)
{
	(void)st;
	struct gw_http_req r;
	assert_true(gw_is_http((const uint8_t *)"GET / HTTP/1.1", 14));
	assert_true(gw_is_http((const uint8_t *)"PO", 2));
	assert_false(gw_is_http((const uint8_t *)"\x16\x03", 2));
	assert_false(gw_is_http((const uint8_t *)"SSH-2.0", 7));
	assert_int_equal(hp("GET /v1/x?q=1 HTTP/1.1\r\nHost: Api.Example.com:8080\r\nAccept: */*\r\n\r\nBODY", &r), GW_OK);
	assert_string_equal(r.method, "GET");
	assert_string_equal(r.host, "api.example.com");
	assert_int_equal(r.port, 8080);
	assert_int_equal(r.path_len, 9);
	assert_memory_equal(r.path, "/v1/x?q=1", 9);
	assert_int_equal(r.head_len, strlen("GET /v1/x?q=1 HTTP/1.1\r\nHost: Api.Example.com:8080\r\nAccept: */*\r\n\r\n"));
	assert_int_equal(hp("GET / HTTP/1.1\r\nHost: a.example.com\r\n", &r), GW_MORE);
	assert_int_equal(hp("GET / HTTP/1.1\r\nHost: a.example.com\r\nHost: b.example.com\r\n\r\n", &r), GW_BAD);
	assert_int_equal(hp("GET / HTTP/1.1\r\nAccept: x\r\n\r\n", &r), GW_BAD);       /* no Host */
	assert_int_equal(hp("GET / HTTP/1.1\nHost: a.example.com\r\n\r\n", &r), GW_BAD); /* bare LF */
	assert_int_equal(hp("GET / HTTP/1.1\r\nX: y\r\n Host: b.example.com\r\n\r\n", &r), GW_BAD); /* fold */
	assert_int_equal(hp("GET / HTTP/1.1\r\nHost : a.example.com\r\n\r\n", &r), GW_BAD);
	assert_int_equal(hp("GET / HTTP/1.1\r\nHost: a.example.com\x01\r\n\r\n", &r), GW_BAD);
	assert_int_equal(hp("get / HTTP/1.1\r\nHost: a.example.com\r\n\r\n", &r), GW_BAD);
	/* absolute form: the target names the host; Host must agree */
	assert_int_equal(hp("GET http://a.example.com:81/p HTTP/1.1\r\nHost: a.example.com:81\r\n\r\n", &r), GW_OK);
	assert_true(r.absolute);
	assert_string_equal(r.host, "a.example.com");
	assert_int_equal(r.port, 81);
	assert_memory_equal(r.path, "/p", 2);
	assert_int_equal(hp("GET http://a.example.com/p HTTP/1.1\r\nHost: b.example.com\r\n\r\n", &r), GW_BAD);
	assert_int_equal(hp("GET http://user@a.example.com/ HTTP/1.1\r\n\r\n", &r), GW_BAD);
	/* CONNECT */
	assert_int_equal(hp("CONNECT a.example.com:443 HTTP/1.1\r\n\r\n", &r), GW_OK);
	assert_true(r.connect);
	assert_string_equal(r.host, "a.example.com");
	assert_int_equal(r.port, 443);
	assert_int_equal(hp("CONNECT a.example.com HTTP/1.1\r\n\r\n", &r), GW_BAD);
	assert_int_equal(hp("CONNECT [::1]:443 HTTP/1.1\r\n\r\n", &r), GW_OK);
	assert_string_equal(r.host, "[::1]");
}

/* Body framing: one way only, as the server will read it. */
static void t_http_framing(void **st)
{
	(void)st;
	struct gw_http_req r;
	assert_int_equal(hp("POST /v1 HTTP/1.1\r\nHost: a.example.com\r\nContent-Length: 12\r\n\r\n", &r), GW_OK);
	assert_int_equal(r.content_length, 12);
	assert_int_equal(hp("POST /v1 HTTP/1.1\r\nHost: a.example.com\r\nContent-Length: 12\r\nContent-Length: 12\r\n\r\n", &r), GW_OK);
	assert_int_equal(hp("POST /v1 HTTP/1.1\r\nHost: a.example.com\r\nContent-Length: 12\r\nContent-Length: 13\r\n\r\n", &r), GW_BAD);
	assert_int_equal(hp("POST /v1 HTTP/1.1\r\nHost: a.example.com\r\nContent-Length: +12\r\n\r\n", &r), GW_BAD);
	assert_int_equal(hp("POST /v1 HTTP/1.1\r\nHost: a.example.com\r\nTransfer-Encoding: chunked\r\n\r\n", &r), GW_OK);
	assert_true(r.chunked);
	assert_int_equal(hp("POST /v1 HTTP/1.1\r\nHost: a.example.com\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n", &r), GW_BAD);
	assert_int_equal(hp("POST /v1 HTTP/1.1\r\nHost: a.example.com\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", &r), GW_BAD);
	assert_int_equal(hp("GET /ws HTTP/1.1\r\nHost: a.example.com\r\nUpgrade: websocket\r\n\r\n", &r), GW_OK);
	assert_true(r.upgrade);
	assert_int_equal(hp("GET /ws HTTP/1.1\r\nHost: a.example.com\r\nUpgrade: foo, WebSocket/13\r\n\r\n", &r), GW_OK);
	assert_true(r.upgrade);
	/* only WebSocket: an h2c switch would carry HTTP/2 requests for any host unchecked */
	assert_int_equal(hp("GET / HTTP/1.1\r\nHost: a.example.com\r\nUpgrade: h2c\r\n\r\n", &r), GW_OK);
	assert_false(r.upgrade);
	assert_int_equal(hp("GET / HTTP/1.1\r\nHost: a.example.com\r\nUpgrade: websockets\r\n\r\n", &r), GW_OK);
	assert_false(r.upgrade);
}

/* An upgrade: the client's stream is held until the server answers; only a 101 makes it opaque. */
static void t_http_upgrade(void **st)
{
	(void)st;
	const char *s = "GET /ws HTTP/1.1\r\nHost: a.example.com\r\nUpgrade: websocket\r\n\r\n"
			"GET /x HTTP/1.1\r\nHost: b.example.com\r\n\r\n";
	const uint8_t *b = (const uint8_t *)s;
	size_t n = strlen(s), first = strlen(s) - strlen(strstr(s, "GET /x"));
	struct gw_http_req r;
	int head;
	for (int sw = 0; sw < 4; sw++) {
		struct gw_http_stream hs = {0};
		size_t ok = gw_http_stream_scan(&hs, b, n, &head, &r);
		assert_int_equal(head, GW_OK);
		ok += gw_http_stream_head(&hs, &r);
		assert_int_equal(ok, first);
		assert_int_equal(gw_http_stream_scan(&hs, b + ok, n - ok, &head, &r), 0); /* held */
		assert_int_equal(head, GW_MORE);
		static const char *const ans[] = {"HTTP/1.1 101 Switching Protocols\r\n", "HTTP/1.1 200 OK\r\n",
						  "HTTP/1.0 101 x\r\n", "HTTP/1.1 1010"};
		const uint8_t *a = (const uint8_t *)ans[sw];
		assert_int_equal(gw_http_stream_answer(&hs, a, 5), GW_MORE); /* "HTTP/" */
		assert_int_equal(gw_http_stream_answer(&hs, a, strlen(ans[sw])), GW_OK);
		size_t more = gw_http_stream_scan(&hs, b + ok, n - ok, &head, &r);
		if (sw == 0) {
			assert_int_equal(more, n - ok); /* switched: the rest passes as it is */
		} else {
			assert_int_equal(more, 0); /* not switched: the next head is checked */
			assert_int_equal(head, GW_OK);
			assert_string_equal(r.host, "b.example.com");
		}
	}
	/* an upgrade asked after another request is an ordinary request */
	const char *s2 = "GET / HTTP/1.1\r\nHost: a.example.com\r\n\r\n"
			 "GET /ws HTTP/1.1\r\nHost: a.example.com\r\nUpgrade: websocket\r\n\r\nxx";
	struct gw_http_stream hs = {0};
	size_t ok = 0;
	for (int k = 0; k < 2; k++) {
		ok += gw_http_stream_scan(&hs, (const uint8_t *)s2 + ok, strlen(s2) - ok, &head, &r);
		assert_int_equal(head, GW_OK);
		ok += gw_http_stream_head(&hs, &r);
	}
	assert_int_equal(hs.st, GW_HS_HEAD);
}

/* The request stream: heads stop the scan (to be checked), bodies pass as framed. */
static void t_http_stream(void **st)
{
	(void)st;
	const char *s = "POST /a HTTP/1.1\r\nHost: a.example.com\r\nContent-Length: 5\r\n\r\nhello"
			"POST /b HTTP/1.1\r\nHost: a.example.com\r\nTransfer-Encoding: chunked\r\n\r\n"
			"5;x=1\r\nGET /\r\n0\r\nT: 1\r\n\r\n"
			"GET /c HTTP/1.1\r\nHost: b.example.com\r\n\r\n";
	const uint8_t *b = (const uint8_t *)s;
	size_t n = strlen(s), ok = 0;
	struct gw_http_stream hs = {0};
	struct gw_http_req r;
	int head, heads = 0;
	char hosts[3][GW_NAME_MAX];
	for (int guard = 0; guard < 20 && ok < n; guard++) {
		ok += gw_http_stream_scan(&hs, b + ok, n - ok, &head, &r);
		if (head == GW_OK) {
			snprintf(hosts[heads++], GW_NAME_MAX, "%s", r.host);
			ok += gw_http_stream_head(&hs, &r);
		} else {
			assert_int_not_equal(head, GW_BAD);
		}
	}
	assert_int_equal(ok, n);
	assert_int_equal(heads, 3);
	assert_string_equal(hosts[2], "b.example.com");
	/* byte by byte, the same heads */
	memset(&hs, 0, sizeof hs);
	heads = 0;
	ok = 0;
	for (size_t have = 1; have <= n; have++) {
		for (;;) {
			ok += gw_http_stream_scan(&hs, b + ok, have - ok, &head, &r);
			if (head != GW_OK)
				break;
			heads++;
			ok += gw_http_stream_head(&hs, &r);
		}
		assert_int_not_equal(head, GW_BAD);
	}
	assert_int_equal(heads, 3);
	assert_int_equal(ok, n);
	/* a bad chunk size is not HTTP framing */
	const char *bad = "zz\r\n";
	struct gw_http_stream cs = {.st = GW_HS_CSIZE};
	(void)gw_http_stream_scan(&cs, (const uint8_t *)bad, strlen(bad), &head, &r);
	assert_int_equal(head, GW_BAD);
}

static void t_path_plain(void **st)
{
	(void)st;
	const char *ok[] = {"/v1/x", "/v1/..x", "/a.b/c", "/", "/v1/x?a=/../"};
	const char *bad[] = {"/v1/../admin", "/v1/./x", "/v1/%2e%2e/admin", "/v1%2fx", "/v1\\x", "/v1/..", "/v1/%2E"};
	for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++)
		assert_true(gw_path_plain(ok[i], strlen(ok[i])));
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
		assert_false(gw_path_plain(bad[i], strlen(bad[i])));
}

static size_t dnsq(uint8_t *b, uint16_t id, const char *labels, size_t ll, uint16_t qtype)
{
	memset(b, 0, 12);
	b[0] = (uint8_t)(id >> 8); b[1] = (uint8_t)id;
	b[2] = 0x01; /* RD */
	b[5] = 1;
	memcpy(b + 12, labels, ll);
	size_t n = 12 + ll;
	b[n++] = (uint8_t)(qtype >> 8); b[n++] = (uint8_t)qtype;
	b[n++] = 0; b[n++] = 1;
	return n;
}

static void t_dns(void **st)
{
	(void)st;
	uint8_t b[512], out[512];
	struct gw_dns_q q;
	size_t n = dnsq(b, 0x1234, "\3api\7Example\3com\0", 17, GW_QT_A);
	assert_int_equal(gw_dns_parse(b, n, &q), GW_OK);
	assert_int_equal(q.id, 0x1234);
	assert_string_equal(q.name, "api.example.com");
	assert_string_equal(q.text, "api.Example.com");
	assert_int_equal(q.qtype, GW_QT_A);
	for (size_t k = 0; k < n; k++)
		assert_int_not_equal(gw_dns_parse(b, k, &q), GW_OK);
	/* answers: only those of the asked family */
	assert_int_equal(gw_dns_parse(b, n, &q), GW_OK);
	struct gw_dns_addr a[2] = {{AF_INET, {127, 0, 0, 5}}, {AF_INET6, {0}}};
	a[1].addr[15] = 1;
	size_t rl = gw_dns_reply(b, &q, GW_DNS_NOERROR, a, 2, 30, out, sizeof out);
	assert_int_equal(rl, n + 16);
	assert_int_equal(out[3] & 0xf, 0);
	assert_int_equal(out[7], 1);                 /* ANCOUNT */
	assert_memory_equal(out + rl - 4, a[0].addr, 4);
	assert_int_equal(out[rl - 7], 30);           /* TTL low byte */
	rl = gw_dns_reply(b, &q, GW_DNS_REFUSED, NULL, 0, 0, out, sizeof out);
	assert_int_equal(out[3] & 0xf, GW_DNS_REFUSED);
	assert_int_equal(out[2] & 0x80, 0x80);
	/* a data-carrying label: reported in presentation form, never a host name */
	n = dnsq(b, 1, "\5a.b\x01z\7example\3com\0", 19, GW_QT_A);
	assert_int_equal(gw_dns_parse(b, n, &q), GW_OK);
	assert_string_equal(q.name, "");
	assert_string_equal(q.text, "a\\.b\\001z.example.com");
	/* compression in a question, two questions, a response, opcode != 0 */
	n = dnsq(b, 1, "\3api\xc0\x0c", 6, GW_QT_A);
	assert_int_equal(gw_dns_parse(b, n, &q), GW_NONAME);
	n = dnsq(b, 1, "\3api\3com\0", 9, GW_QT_A);
	b[5] = 2;
	assert_int_equal(gw_dns_parse(b, n, &q), GW_NONAME);
	b[5] = 1;
	b[2] |= 0x80;
	assert_int_equal(gw_dns_parse(b, n, &q), GW_BAD);
	b[2] = 0x28; /* opcode 5 (UPDATE) */
	assert_int_equal(gw_dns_parse(b, n, &q), GW_NONAME);
	assert_int_equal(gw_dns_parse(b, 11, &q), GW_BAD);
}

static void t_net_record(void **st)
{
	(void)st;
	_Alignas(8) uint8_t buf[SBX_NET_REC_MAX];
	struct sbx_net_hdr h = {.kind = SBX_NET_FLOW, .port = 443, .proto = 6, .family = AF_INET,
				.bytes_out = 1ull << 40, .bytes_in = 7, .duration_ms = 9};
	size_t n = sbx_net_encode(buf, &h, "api.example.com", NULL);
	struct sbx_net_rec r;
	assert_int_equal(sbx_net_decode(buf, n, &r), 0);
	assert_string_equal(r.host, "api.example.com");
	assert_int_equal(r.h.bytes_out, 1ull << 40);
	assert_int_equal(sbx_net_decode(buf, n - 1, &r), -1);
	struct sbx_net_hdr d = {.kind = SBX_NET_DENY, .reason = SBX_NR__MAX, .proto = 6};
	n = sbx_net_encode(buf, &d, "a", "b");
	assert_int_equal(sbx_net_decode(buf, n, &r), -1);
	d.reason = SBX_NR_NAME_NOT_GRANTED;
	n = sbx_net_encode(buf, &d, "a", "b");
	assert_int_equal(sbx_net_decode(buf, n, &r), 0);
	assert_string_equal(sbx_net_reason_name(r.h.reason), "name-not-granted");
	/* a preload record never passes for a gateway record, nor the reverse */
	struct sbx_rec_hdr ph = {.type = SBX_REC_DENY, .op = SBX_OP_CONNECT};
	n = sbx_rec_encode(buf, &ph, "x", "c");
	assert_int_equal(sbx_net_decode(buf, n, &r), -1);
	n = sbx_net_encode(buf, &h, "h", NULL);
	struct sbx_rec pr;
	assert_int_equal(sbx_rec_decode(buf, n, &pr), -1);
	/* a NUL inside a string */
	n = sbx_net_encode(buf, &d, "ab", "cd");
	buf[sizeof(struct sbx_net_hdr)] = 0;
	assert_int_equal(sbx_net_decode(buf, n, &r), -1);
}

/* Names in the host's /etc/hosts are answered from it (no DNS query leaves for them); the tests'
 * hosts file replaces everything and carries TTLs. */
static void t_resolve(void **st)
{
	(void)st;
	struct gw_dns_addr a[GW_ADDRS_MAX];
	size_t n = 0;
	uint32_t ttl = 0;
	assert_int_equal(gw_resolve(NULL, "localhost", a, &n, &ttl), 0);
	bool v4 = false;
	for (size_t i = 0; i < n; i++)
		v4 |= a[i].family == AF_INET && a[i].addr[0] == 127;
	assert_true(v4);
	assert_int_equal(ttl, 60);
	char path[] = "/tmp/sbxsup-gwhosts.XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	const char *text = "# test\n127.0.0.9 api.example.test 7\n::1 api.example.test 3\n127.0.0.10 other.test\n";
	assert_int_equal(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
	assert_int_equal(gw_resolve(path, "API.example.test", a, &n, &ttl), 0);
	assert_int_equal(n, 2);
	assert_int_equal(ttl, 3);
	assert_int_equal(a[0].family, AF_INET);
	assert_int_equal(a[0].addr[3], 9);
	assert_int_equal(gw_resolve(path, "missing.test", a, &n, &ttl), 0);
	assert_int_equal(n, 0);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(t_wildcard),  cmocka_unit_test(t_name_norm), cmocka_unit_test(t_tls_sni),
		cmocka_unit_test(t_http),      cmocka_unit_test(t_http_framing), cmocka_unit_test(t_http_stream), cmocka_unit_test(t_http_upgrade),
		cmocka_unit_test(t_path_plain), cmocka_unit_test(t_dns),
		cmocka_unit_test(t_net_record), cmocka_unit_test(t_resolve),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
