/* fuzz_gw_parse.c — libFuzzer target: every parser of the network gateway over bytes the executor
 * controls (supervisor/net/gw_parse.h: DNS question and reply, TLS ClientHello SNI, HTTP request
 * head, path check) and the gateway record decoder (policy/report.h). The first byte picks the
 * parser; the rest is copied to an exact-size buffer so ASan catches any read past it. Each
 * accepted result is checked: names are valid host names (gw_name_norm accepts them again),
 * strings are NUL-terminated within their bounds, offsets lie inside the input. */
#include <stdio.h>

#include "fuzz_common.h"
#include "gw_parse.h"
#include "report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void name_ok(const char *s)
{
	char again[GW_NAME_MAX];
	size_t n = strnlen(s, GW_NAME_MAX);
	if (n == GW_NAME_MAX || gw_name_norm(s, n, again) < 0 || strcmp(again, s))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	size_t n = size - 1;
	uint8_t *b = malloc(n ? n : 1);
	if (!b)
		abort();
	memcpy(b, data + 1, n);
	switch (data[0] % 6) {
	case 5: {
		/* the request stream, fed in two pieces: never past what it was given, and a complete
		 * head is always a step forward */
		struct gw_http_stream hs = {0};
		struct gw_http_req r;
		size_t ok = 0, cut = n ? data[0] % (n + 1) : 0;
		for (int phase = 0; phase < 2; phase++) {
			size_t have = phase ? n : cut;
			for (;;) {
				int head;
				size_t k = gw_http_stream_scan(&hs, b + ok, have - ok, &head, &r);
				if (k > have - ok)
					abort();
				ok += k;
				if (head != GW_OK)
					break;
				size_t h = gw_http_stream_head(&hs, &r);
				if (h == 0 || h > have - ok)
					abort();
				ok += h;
			}
			/* a WebSocket upgrade waits for the server's answer: the input's own bytes, or a 101 */
			if (hs.st == GW_HS_UPWAIT) {
				static const char sw[] = "HTTP/1.1 101 Switching Protocols\r\n";
				int a = n && (data[0] & 0x80) ? gw_http_stream_answer(&hs, b, n)
							      : gw_http_stream_answer(&hs, (const uint8_t *)sw, sizeof sw - 1);
				if ((a == GW_OK) == (hs.st == GW_HS_UPWAIT))
					abort();
			}
		}
		break;
	}
	case 0: {
		char sni[GW_NAME_MAX];
		if (gw_tls_sni(b, n, sni) == GW_OK)
			name_ok(sni);
		break;
	}
	case 1: {
		struct gw_http_req r;
		if (gw_http_parse(b, n, &r) == GW_OK) {
			if (r.head_len > n || (r.path && (r.path < (const char *)b || r.path + r.path_len > (const char *)b + n)))
				if (!(r.path && r.path_len == 1 && r.path[0] == '/'))
					abort();
			if (strnlen(r.host, GW_NAME_MAX) == GW_NAME_MAX || strnlen(r.method, 16) == 16)
				abort();
			if (r.path)
				(void)gw_path_plain(r.path, r.path_len);
		}
		break;
	}
	case 2: {
		struct gw_dns_q q;
		uint8_t out[512];
		int r = gw_dns_parse(b, n, &q);
		if (r == GW_OK && q.name[0])
			name_ok(q.name);
		if (r != GW_BAD) {
			if (q.qend > n || strnlen(q.text, GW_DNS_TEXT_MAX) == GW_DNS_TEXT_MAX)
				abort();
			struct gw_dns_addr a[3] = {{2, {1, 2, 3, 4}}, {10, {0}}, {2, {5, 6, 7, 8}}};
			size_t rl = gw_dns_reply(b, &q, r == GW_OK ? GW_DNS_NOERROR : GW_DNS_FORMERR, a, 3, 5,
						 out, sizeof out);
			if (rl > sizeof out)
				abort();
		}
		break;
	}
	case 3: {
		struct sbx_net_rec *r = malloc(sizeof *r);
		if (!r)
			abort();
		if (sbx_net_decode(b, n, r) == 0) {
			_Alignas(8) uint8_t again[SBX_NET_REC_MAX];
			size_t l = sbx_net_encode(again, &r->h, r->host, r->peer);
			if (l != n || memcmp(again, b, n))
				abort();
		}
		free(r);
		break;
	}
	default: {
		char out[GW_NAME_MAX];
		if (n < GW_NAME_MAX && gw_name_norm((const char *)b, n, out) == 0)
			name_ok(out);
		break;
	}
	}
	free(b);
	return 0;
}
