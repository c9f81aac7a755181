/* tls_hello.h — a TLS 1.2/1.3-shaped ClientHello for tests: the gateway's SNI parser and the
 * gateway tests send it as a client would (record header, handshake header, random, session id,
 * cipher suites, compression, extensions with server_name when `sni` is not NULL). `split` > 0
 * cuts the handshake over two records after that many bytes. Returns the length written to out
 * (>= 512 bytes). */
#ifndef SBX_TEST_TLS_HELLO_H
#define SBX_TEST_TLS_HELLO_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

static inline size_t tls_hello(uint8_t *out, const char *sni, size_t split)
{
	uint8_t hs[512];
	size_t n = 4;
	hs[n++] = 3; hs[n++] = 3;                          /* legacy_version */
	for (int i = 0; i < 32; i++) hs[n++] = (uint8_t)i; /* random */
	hs[n++] = 0;                                       /* session id */
	hs[n++] = 0; hs[n++] = 4; hs[n++] = 0x13; hs[n++] = 0x01; hs[n++] = 0xc0; hs[n++] = 0x2f;
	hs[n++] = 1; hs[n++] = 0;                          /* compression: null */
	size_t ext_len_at = n;
	n += 2;
	/* an extension before server_name (supported_versions) */
	hs[n++] = 0; hs[n++] = 43; hs[n++] = 0; hs[n++] = 3; hs[n++] = 2; hs[n++] = 3; hs[n++] = 4;
	if (sni) {
		size_t l = strlen(sni);
		hs[n++] = 0; hs[n++] = 0;                          /* server_name */
		hs[n++] = (uint8_t)((l + 5) >> 8); hs[n++] = (uint8_t)(l + 5);
		hs[n++] = (uint8_t)((l + 3) >> 8); hs[n++] = (uint8_t)(l + 3);
		hs[n++] = 0;                                       /* host_name */
		hs[n++] = (uint8_t)(l >> 8); hs[n++] = (uint8_t)l;
		memcpy(hs + n, sni, l);
		n += l;
	}
	size_t el = n - ext_len_at - 2;
	hs[ext_len_at] = (uint8_t)(el >> 8);
	hs[ext_len_at + 1] = (uint8_t)el;
	size_t bl = n - 4;
	hs[0] = 1; hs[1] = (uint8_t)(bl >> 16); hs[2] = (uint8_t)(bl >> 8); hs[3] = (uint8_t)bl;
	size_t o = 0, off = 0;
	size_t parts[2] = {split && split < n ? split : n, split && split < n ? n - split : 0};
	for (int p = 0; p < 2 && parts[p]; p++) {
		out[o++] = 0x16; out[o++] = 3; out[o++] = 1;
		out[o++] = (uint8_t)(parts[p] >> 8); out[o++] = (uint8_t)parts[p];
		memcpy(out + o, hs + off, parts[p]);
		o += parts[p];
		off += parts[p];
	}
	return o;
}

#endif
