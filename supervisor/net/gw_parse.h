/* gw_parse.h — the gateway's parsers of bytes the executor sends: DNS queries, the TLS ClientHello's
 * server name, the HTTP request head; and the grant name match.
 *
 * Promise: pure functions over a caller's buffer (no allocation, no I/O, no global state). Every
 * input is hostile: lengths are checked before every read, nothing is read past `n`, output strings
 * are bounded and NUL-terminated. Each parser answers "complete", "need more bytes" or "not this /
 * malformed", so the caller can read more (bounded by GW_PEEK_MAX) or refuse.
 * Names handed back are lower-case, without a trailing dot, and either a valid host name
 * ([a-z0-9_-] labels) or refused; a DNS query name that is not one is still returned in DNS
 * presentation form (\DDD escapes, "\." for a dot inside a label) so it can be reported.
 */
#ifndef SBX_GW_PARSE_H
#define SBX_GW_PARSE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define GW_NAME_MAX 256      /* a host name: 253 + NUL, rounded */
#define GW_DNS_TEXT_MAX 1024 /* a query name in presentation form (each byte at most \DDD) */
#define GW_PEEK_MAX 16384    /* bytes read before the name must be known */

enum gw_res { GW_BAD = -1, GW_MORE = 0, GW_OK = 1, GW_NONAME = 2 };

/* Grant names are matched with pol_host_match (policy.h): one wildcard rule for every layer. */
/* Copy a host name from the wire into out[GW_NAME_MAX]: lower-cased, trailing dot removed, labels
 * 1..63 of [A-Za-z0-9_-], total <= 253. -1 when it is not such a name (an IP literal is not). */
int gw_name_norm(const char *in, size_t n, char *out);

/* TLS: the first bytes are a TLS handshake record. */
bool gw_is_tls(const uint8_t *b, size_t n);
/* ClientHello (possibly over several records) -> SNI host_name. GW_OK with sni; GW_NONAME: a
 * complete ClientHello without a (valid) server name; GW_MORE; GW_BAD: not a ClientHello. */
int gw_tls_sni(const uint8_t *b, size_t n, char sni[GW_NAME_MAX]);

/* HTTP/1.x request head (request line + headers up to the empty line). */
struct gw_http_req {
	char method[16];
	char host[GW_NAME_MAX];  /* from Host (and an absolute-form target, which must agree) */
	uint16_t port;           /* from Host / target, 0 = none given */
	bool absolute;           /* absolute-form target (a proxy request) */
	bool connect;            /* CONNECT host:port (authority-form) */
	const char *path;        /* into the buffer: origin-form path (after the authority) */
	size_t path_len;
	size_t head_len;         /* bytes up to and including the empty line */
	uint64_t content_length; /* the body's length (Content-Length), 0 without one */
	bool chunked;            /* Transfer-Encoding: chunked */
	bool upgrade;            /* Upgrade names websocket: the stream stops being HTTP if the server
				  * answers 101 (gw_http_stream_answer) */
};
/* Looks like the start of an HTTP request (an upper-case token and a space). */
bool gw_is_http(const uint8_t *b, size_t n);
/* GW_OK, GW_MORE, GW_BAD (malformed, bare LF, obs-fold, control bytes, no or several Host headers,
 * a Host that is not a host name, an absolute target naming another host; a body framed two ways or
 * ambiguously: Content-Length with Transfer-Encoding, differing or non-numeric Content-Lengths, a
 * transfer coding other than "chunked"). CONNECT needs no Host. */
int gw_http_parse(const uint8_t *b, size_t n, struct gw_http_req *r);
/* A path that stays under a prefix when the server decodes it: no "." or ".." segment, no
 * percent-encoded '.', '/' or '\\', no backslash. */
bool gw_path_plain(const char *p, size_t n);

/* The request stream of a plain-HTTP connection, request after request: which bytes are heads
 * (to be checked), which are bodies (Content-Length or chunked, passed as they are). */
struct gw_http_stream {
	int st;                  /* GW_HS_* */
	uint64_t left;           /* body or chunk bytes still to pass */
	unsigned nreq;           /* request heads passed so far */
};
enum { GW_HS_HEAD = 0, GW_HS_BODY, GW_HS_CSIZE, GW_HS_CDATA, GW_HS_CCRLF, GW_HS_TRAILER, GW_HS_OPAQUE,
       GW_HS_UPWAIT };
/* Advance over b[0..n): returns how many bytes can pass, and stops at the start of a request head
 * (*head set to GW_OK with r filled when that head is complete — the caller checks it and calls
 * gw_http_stream_head to go on —, GW_MORE when it is not yet complete). GW_BAD in *head: the
 * stream is not HTTP framing (refuse the connection). After a head with `upgrade` (WebSocket) that
 * is the connection's first request and has no body, nothing passes (GW_HS_UPWAIT) until the
 * server's answer is known: gw_http_stream_answer. An upgrade asked later on the connection is an
 * ordinary request (its answer cannot be told from those of the requests before it without parsing
 * responses): what follows must still be HTTP. */
size_t gw_http_stream_scan(struct gw_http_stream *s, const uint8_t *b, size_t n, int *head,
			   struct gw_http_req *r);
/* The head scan_ returned was accepted: pass it (returns its length) and frame its body. */
size_t gw_http_stream_head(struct gw_http_stream *s, const struct gw_http_req *r);
/* In GW_HS_UPWAIT: b[0..n) are the server's first bytes on the connection (n > 0). A status line
 * "HTTP/1.1 101 " makes the rest of the client's stream opaque (the relay carries it unchecked);
 * anything else keeps checking requests (GW_HS_HEAD). GW_OK when decided, GW_MORE when b is a
 * proper prefix of "HTTP/1.1 101 " (wait for more). */
int gw_http_stream_answer(struct gw_http_stream *s, const uint8_t *b, size_t n);

/* DNS. */
struct gw_dns_q {
	uint16_t id, flags, qtype, qclass;
	char name[GW_NAME_MAX];     /* "" when the name is not a host name (see text) */
	char text[GW_DNS_TEXT_MAX]; /* presentation form, for reports */
	size_t qend;                /* offset after the question */
};
/* GW_OK: a standard query (QR=0, opcode 0, QDCOUNT=1, no compression in the question); GW_NONAME
 * when the header is readable but the question is not (answer FORMERR: id and flags are filled);
 * GW_BAD: shorter than a header or a response (drop it). */
int gw_dns_parse(const uint8_t *b, size_t n, struct gw_dns_q *q);
struct gw_dns_addr { int family; uint8_t addr[16]; };
/* The reply to q (question echoed) with rcode and, for NOERROR, the answers of q's type among
 * addrs with ttl. Truncated (TC) when it does not fit `cap`. Returns its length, 0 if cap < 12+q. */
size_t gw_dns_reply(const uint8_t *query, const struct gw_dns_q *q, unsigned rcode,
		    const struct gw_dns_addr *addrs, size_t naddrs, uint32_t ttl, uint8_t *out,
		    size_t cap);
#define GW_DNS_NOERROR 0
#define GW_DNS_FORMERR 1
#define GW_DNS_SERVFAIL 2
#define GW_DNS_NXDOMAIN 3
#define GW_DNS_NOTIMP 4
#define GW_DNS_REFUSED 5
#define GW_QT_A 1
#define GW_QT_AAAA 28

#endif
