/* gw_parse.c — parsers of what the executor sends through the gateway (see gw_parse.h). */
#include "gw_parse.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

int gw_name_norm(const char *in, size_t n, char *out)
{
	if (n > 0 && in[n - 1] == '.')
		n--;
	if (n == 0 || n > 253)
		return -1;
	size_t lab = 0;
	bool all_digits = true;
	for (size_t i = 0; i <= n; i++) {
		char c = i < n ? in[i] : '.';
		if (c == '.') {
			if (lab == 0 || lab > 63 || in[i - 1] == '-' || in[i - lab] == '-')
				return -1;
			lab = 0;
			out[i] = '.';
			continue;
		}
		if (!isalnum((unsigned char)c) && c != '-' && c != '_')
			return -1;
		if (!isdigit((unsigned char)c))
			all_digits = false;
		out[i] = (char)tolower((unsigned char)c);
		lab++;
	}
	if (all_digits) /* "1.2.3.4" is an address, never a name */
		return -1;
	out[n] = '\0';
	return 0;
}

/* ---- TLS ---------------------------------------------------------------------------------- */

bool gw_is_tls(const uint8_t *b, size_t n)
{
	return n >= 1 && b[0] == 0x16 && (n < 2 || b[1] == 3);
}

static unsigned be16(const uint8_t *p)
{
	return (unsigned)p[0] << 8 | p[1];
}

/* The server_name extension body: list length, then (type, length, name) entries. */
static int sni_from_ext(const uint8_t *p, size_t n, char sni[GW_NAME_MAX])
{
	if (n < 2 || be16(p) != n - 2)
		return GW_BAD;
	p += 2;
	n -= 2;
	while (n >= 3) {
		unsigned t = p[0], l = be16(p + 1);
		if (l > n - 3)
			return GW_BAD;
		if (t == 0) /* host_name: must be a host name; anything else is refused as nameless */
			return gw_name_norm((const char *)p + 3, l, sni) == 0 ? GW_OK : GW_NONAME;
		p += 3 + l;
		n -= 3 + l;
	}
	return n == 0 ? GW_NONAME : GW_BAD;
}

int gw_tls_sni(const uint8_t *b, size_t n, char sni[GW_NAME_MAX])
{
	/* Reassemble the handshake bytes from consecutive handshake records. */
	uint8_t hs[GW_PEEK_MAX];
	size_t hl = 0, off = 0;
	size_t need = 0; /* handshake message length incl. its 4-byte header, once known */
	sni[0] = '\0';
	for (;;) {
		if (need && hl >= need)
			break;
		if (n - off < 5)
			return off == n || gw_is_tls(b + off, n - off) ? GW_MORE : GW_BAD;
		if (b[off] != 0x16 || b[off + 1] != 3)
			return GW_BAD;
		unsigned rl = be16(b + off + 3);
		if (rl == 0 || rl > 16384)
			return GW_BAD;
		if (n - off - 5 < rl)
			return off + 5 + rl > GW_PEEK_MAX ? GW_BAD : GW_MORE;
		if (hl + rl > sizeof hs)
			return GW_BAD;
		memcpy(hs + hl, b + off + 5, rl);
		hl += rl;
		off += 5 + rl;
		if (!need && hl >= 4) {
			if (hs[0] != 1) /* client_hello */
				return GW_BAD;
			need = 4 + ((size_t)hs[1] << 16 | (size_t)hs[2] << 8 | hs[3]);
			if (need > sizeof hs)
				return GW_BAD;
		}
	}
	const uint8_t *p = hs + 4, *e = hs + need;
	if (e - p < 2 + 32 + 1)
		return GW_BAD;
	p += 2 + 32;                            /* legacy_version, random */
	if ((size_t)(e - p) < 1u + p[0])
		return GW_BAD;
	p += 1 + p[0];                          /* session id */
	if (e - p < 2 || (size_t)(e - p) < 2u + be16(p))
		return GW_BAD;
	p += 2 + be16(p);                       /* cipher suites */
	if (e - p < 1 || (size_t)(e - p) < 1u + p[0])
		return GW_BAD;
	p += 1 + p[0];                          /* compression methods */
	if (p == e)
		return GW_NONAME;                   /* no extensions */
	if (e - p < 2 || (size_t)(e - p) != 2u + be16(p))
		return GW_BAD;
	p += 2;
	while (p < e) {
		if (e - p < 4)
			return GW_BAD;
		unsigned t = be16(p), l = be16(p + 2);
		p += 4;
		if ((size_t)(e - p) < l)
			return GW_BAD;
		if (t == 0)
			return sni_from_ext(p, l, sni);
		p += l;
	}
	return GW_NONAME;
}

/* ---- HTTP --------------------------------------------------------------------------------- */

bool gw_is_http(const uint8_t *b, size_t n)
{
	size_t i = 0;
	while (i < n && i < 15 && b[i] >= 'A' && b[i] <= 'Z')
		i++;
	if (i == n)
		return n > 0 && n < 15; /* could still be a method */
	return i > 0 && b[i] == ' ';
}

/* "host[:port]" or "[v6]:port" (no user info). Fills host (a valid name, or an IP literal as
 * written, lower-cased) and port. -1 if malformed. */
static int parse_authority(const char *s, size_t n, char host[GW_NAME_MAX], uint16_t *port)
{
	const char *colon = NULL;
	size_t hn = n;
	*port = 0;
	if (n > 0 && s[0] == '[') {
		const char *rb = memchr(s, ']', n);
		if (!rb)
			return -1;
		hn = (size_t)(rb - s) + 1;
		if (hn < n) {
			if (s[hn] != ':')
				return -1;
			colon = s + hn;
		}
	} else {
		colon = memchr(s, ':', n);
		if (colon)
			hn = (size_t)(colon - s);
	}
	if (colon) {
		size_t pl = n - (size_t)(colon - s) - 1;
		unsigned long v = 0;
		if (pl == 0 || pl > 5)
			return -1;
		for (size_t i = 0; i < pl; i++) {
			if (!isdigit((unsigned char)colon[1 + i]))
				return -1;
			v = v * 10 + (unsigned)(colon[1 + i] - '0');
		}
		if (v == 0 || v > 65535)
			return -1;
		*port = (uint16_t)v;
	}
	if (hn == 0 || hn >= GW_NAME_MAX)
		return -1;
	if (gw_name_norm(s, hn, host) == 0)
		return 0;
	/* an IP literal: [v6] or dotted v4, kept as written (checked by the caller with inet_pton) */
	for (size_t i = 0; i < hn; i++) {
		unsigned char c = (unsigned char)s[i];
		if (!isxdigit(c) && c != '.' && c != ':' && c != '[' && c != ']')
			return -1;
		host[i] = (char)tolower(c);
	}
	host[hn] = '\0';
	return 0;
}

/* The comma-separated list v[0..vl) holds tok (case-insensitive; a "/version" suffix allowed). */
static bool has_token(const char *v, size_t vl, const char *tok)
{
	size_t tl = strlen(tok);
	for (size_t i = 0; i < vl;) {
		while (i < vl && (v[i] == ' ' || v[i] == '\t' || v[i] == ','))
			i++;
		size_t j = i;
		while (j < vl && v[j] != ',')
			j++;
		size_t e = j;
		while (e > i && (v[e - 1] == ' ' || v[e - 1] == '\t'))
			e--;
		if (e - i >= tl && strncasecmp(v + i, tok, tl) == 0 && (e - i == tl || v[i + tl] == '/'))
			return true;
		i = j;
	}
	return false;
}

static bool ci_prefix(const char *s, size_t n, const char *p)
{
	size_t pl = strlen(p);
	return n >= pl && strncasecmp(s, p, pl) == 0;
}

int gw_http_parse(const uint8_t *b, size_t n, struct gw_http_req *r)
{
	memset(r, 0, sizeof *r);
	const char *s = (const char *)b;
	size_t lim = n < GW_PEEK_MAX ? n : GW_PEEK_MAX;
	/* the head ends at the first CRLFCRLF; every line must end with CRLF */
	const char *end = NULL;
	for (size_t i = 0; i + 3 < lim; i++)
		if (s[i] == '\r' && s[i + 1] == '\n' && s[i + 2] == '\r' && s[i + 3] == '\n') {
			end = s + i;
			break;
		}
	for (size_t i = 0; i < (end ? (size_t)(end - s) : lim); i++) {
		unsigned char c = (unsigned char)s[i];
		if (c == '\n' && (i == 0 || s[i - 1] != '\r'))
			return GW_BAD;          /* bare LF */
		if (c == '\r' && i + 1 < lim && s[i + 1] != '\n')
			return GW_BAD;          /* bare CR */
		if ((c < 0x20 && c != '\r' && c != '\n' && c != '\t') || c == 0x7f)
			return GW_BAD;
	}
	if (!end)
		return n >= GW_PEEK_MAX ? GW_BAD : GW_MORE;
	r->head_len = (size_t)(end - s) + 4;
	/* request line */
	const char *le = memchr(s, '\r', (size_t)(end - s) + 1);
	const char *sp1 = memchr(s, ' ', (size_t)(le - s));
	if (!sp1 || sp1 == s || (size_t)(sp1 - s) >= sizeof r->method)
		return GW_BAD;
	for (const char *p = s; p < sp1; p++)
		if (*p < 'A' || *p > 'Z')
			return GW_BAD;
	memcpy(r->method, s, (size_t)(sp1 - s));
	const char *tgt = sp1 + 1;
	const char *sp2 = memchr(tgt, ' ', (size_t)(le - tgt));
	if (!sp2 || sp2 == tgt || (size_t)(le - sp2) != 9 || memcmp(sp2, " HTTP/1.", 8) != 0 ||
	    (sp2[8] != '0' && sp2[8] != '1'))
		return GW_BAD;
	size_t tl = (size_t)(sp2 - tgt);
	char thost[GW_NAME_MAX] = "";
	uint16_t tport = 0;
	r->connect = strcmp(r->method, "CONNECT") == 0;
	if (r->connect) {
		if (parse_authority(tgt, tl, thost, &tport) < 0 || tport == 0)
			return GW_BAD;
	} else if (tgt[0] == '/') {
		r->path = tgt;
		r->path_len = tl;
	} else if (ci_prefix(tgt, tl, "http://")) {
		const char *a = tgt + 7;
		const char *slash = memchr(a, '/', (size_t)(sp2 - a));
		const char *ae = slash ? slash : sp2;
		if (memchr(a, '@', (size_t)(ae - a)) || memchr(a, '?', (size_t)(ae - a)) ||
		    memchr(a, '#', (size_t)(ae - a)) || parse_authority(a, (size_t)(ae - a), thost, &tport) < 0)
			return GW_BAD;
		r->absolute = true;
		r->path = slash ? slash : "/";
		r->path_len = slash ? (size_t)(sp2 - slash) : 1;
	} else {
		return GW_BAD; /* asterisk-form, https:// through a plain request, anything else */
	}
	/* headers */
	int nhost = 0, ncl = 0, nte = 0;
	for (const char *l = le + 2; l < end + 2; ) {
		const char *e = memchr(l, '\r', (size_t)(end + 2 - l));
		if (!e)
			return GW_BAD;
		if (e == l)
			break;
		if (*l == ' ' || *l == '\t')
			return GW_BAD;      /* obs-fold */
		const char *colon = memchr(l, ':', (size_t)(e - l));
		if (!colon || colon == l)
			return GW_BAD;
		for (const char *p = l; p < colon; p++)
			if (*p == ' ' || *p == '\t')
				return GW_BAD; /* "Host :" */
		const char *v = colon + 1, *ve = e;
		while (v < ve && (*v == ' ' || *v == '\t'))
			v++;
		while (ve > v && (ve[-1] == ' ' || ve[-1] == '\t'))
			ve--;
		size_t kl = (size_t)(colon - l), vl = (size_t)(ve - v);
		if (kl == 14 && strncasecmp(l, "content-length", 14) == 0) {
			uint64_t cl = 0;
			if (vl == 0 || vl > 15)
				return GW_BAD;
			for (size_t k = 0; k < vl; k++) {
				if (v[k] < '0' || v[k] > '9')
					return GW_BAD;
				cl = cl * 10 + (uint64_t)(v[k] - '0');
			}
			if (ncl++ && cl != r->content_length)
				return GW_BAD;
			r->content_length = cl;
		} else if (kl == 17 && strncasecmp(l, "transfer-encoding", 17) == 0) {
			if (nte++ || vl != 7 || strncasecmp(v, "chunked", 7) != 0)
				return GW_BAD; /* only exactly "chunked": anything else frames ambiguously */
			r->chunked = true;
		} else if (kl == 7 && strncasecmp(l, "upgrade", 7) == 0) {
			r->upgrade = r->upgrade || has_token(v, vl, "websocket");
		}
		if (kl == 4 && strncasecmp(l, "host", 4) == 0)
			if (++nhost > 1 || parse_authority(v, vl, r->host, &r->port) < 0)
				return GW_BAD;
		l = e + 2;
	}
	if (ncl && nte)
		return GW_BAD; /* both framings: request smuggling */
	if (r->connect || r->absolute) {
		if (nhost && strcmp(r->host, thost) != 0)
			return GW_BAD;  /* absolute target and Host disagree */
		memcpy(r->host, thost, sizeof thost);
		r->port = tport;
	} else if (nhost != 1) {
		return GW_BAD;
	}
	return GW_OK;
}

size_t gw_http_stream_scan(struct gw_http_stream *s, const uint8_t *b, size_t n, int *head,
			   struct gw_http_req *r)
{
	size_t ok = 0;
	*head = GW_MORE;
	while (ok < n) {
		size_t avail = n - ok;
		switch (s->st) {
		case GW_HS_OPAQUE:
			return n;
		case GW_HS_UPWAIT:
			return ok; /* held until the server answers the upgrade (gw_http_stream_answer) */
		case GW_HS_HEAD:
			*head = gw_http_parse(b + ok, avail, r);
			if (*head == GW_MORE && avail >= GW_PEEK_MAX)
				*head = GW_BAD;
			return ok; /* the caller checks a complete head, then gw_http_stream_head */
		case GW_HS_BODY:
		case GW_HS_CDATA: {
			size_t k = avail < s->left ? avail : (size_t)s->left;
			ok += k;
			s->left -= k;
			if (s->left == 0)
				s->st = s->st == GW_HS_BODY ? GW_HS_HEAD : GW_HS_CCRLF;
			break;
		}
		case GW_HS_CCRLF:
			if (avail < 2)
				return ok;
			if (b[ok] != '\r' || b[ok + 1] != '\n') {
				*head = GW_BAD;
				return ok;
			}
			ok += 2;
			s->st = GW_HS_CSIZE;
			break;
		case GW_HS_CSIZE:
		case GW_HS_TRAILER: {
			const uint8_t *lf = memchr(b + ok, '\n', avail < 4096 ? avail : 4096);
			if (!lf) {
				if (avail >= 4096)
					*head = GW_BAD;
				return ok;
			}
			size_t ll = (size_t)(lf - (b + ok)) + 1;
			if (ll < 2 || lf[-1] != '\r') {
				*head = GW_BAD;
				return ok;
			}
			if (s->st == GW_HS_TRAILER) {
				ok += ll;
				if (ll == 2)
					s->st = GW_HS_HEAD;
				break;
			}
			uint64_t size = 0;
			size_t k = 0;
			for (; k < ll - 2 && isxdigit(b[ok + k]); k++) {
				if (size >> 56)
					break;
				size = size * 16 + (uint64_t)(isdigit(b[ok + k]) ? b[ok + k] - '0'
										 : (tolower(b[ok + k]) - 'a' + 10));
			}
			if (k == 0 || (k < ll - 2 && b[ok + k] != ';')) {
				*head = GW_BAD;
				return ok;
			}
			ok += ll;
			s->left = size;
			s->st = size ? GW_HS_CDATA : GW_HS_TRAILER;
			break;
		}
		default:
			*head = GW_BAD;
			return ok;
		}
	}
	return ok;
}

size_t gw_http_stream_head(struct gw_http_stream *s, const struct gw_http_req *r)
{
	bool first = s->nreq++ == 0;
	if (r->upgrade && first && !r->chunked && !r->content_length)
		s->st = GW_HS_UPWAIT;
	else if (r->chunked)
		s->st = GW_HS_CSIZE;
	else if (r->content_length)
		s->st = GW_HS_BODY, s->left = r->content_length;
	else
		s->st = GW_HS_HEAD;
	return r->head_len;
}

int gw_http_stream_answer(struct gw_http_stream *s, const uint8_t *b, size_t n)
{
	static const char sw[] = "HTTP/1.1 101 "; /* only HTTP/1.1 switches protocols */
	size_t sl = sizeof sw - 1;
	if (n < sl && memcmp(b, sw, n) == 0)
		return GW_MORE;
	s->st = n >= sl && memcmp(b, sw, sl) == 0 ? GW_HS_OPAQUE : GW_HS_HEAD;
	return GW_OK;
}

bool gw_path_plain(const char *p, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (p[i] == '?' || p[i] == '#')
			break;
		if (p[i] == '\\')
			return false;
		if (p[i] == '%' && i + 2 < n) {
			char h[3] = {p[i + 1], p[i + 2], 0};
			if (!strcasecmp(h, "2e") || !strcasecmp(h, "2f") || !strcasecmp(h, "5c"))
				return false;
		}
		if (p[i] == '.' && i > 0 && p[i - 1] == '/') {
			size_t j = i;
			while (j < n && p[j] == '.')
				j++;
			if (j - i <= 2 && (j == n || p[j] == '/' || p[j] == '?' || p[j] == '#'))
				return false;
		}
	}
	return true;
}

/* ---- DNS ---------------------------------------------------------------------------------- */

int gw_dns_parse(const uint8_t *b, size_t n, struct gw_dns_q *q)
{
	memset(q, 0, sizeof *q);
	if (n < 12)
		return GW_BAD;
	q->id = (uint16_t)be16(b);
	q->flags = (uint16_t)be16(b + 2);
	if (q->flags & 0x8000)
		return GW_BAD; /* a response: never answer it */
	if ((q->flags & 0x7800) != 0 || be16(b + 4) != 1)
		return GW_NONAME;
	size_t off = 12, tl = 0, wl = 0;
	bool plain = true; /* no byte in a label that a host name cannot hold as it is */
	char wire[256];
	for (;;) {
		if (off >= n)
			return GW_NONAME;
		unsigned l = b[off++];
		if (l == 0)
			break;
		if (l > 63 || n - off < l || wl + l + 1 > 255)
			return GW_NONAME; /* compression pointers (0xc0) are refused in a question */
		if (wl)
			wire[wl++] = '.';
		for (unsigned i = 0; i < l; i++) {
			unsigned char c = b[off + i];
			wire[wl++] = (char)c;
			if (tl + 5 >= sizeof q->text)
				return GW_NONAME;
			if (c == '.' || c == '\\')
				tl += (size_t)snprintf(q->text + tl, 3, "\\%c", c);
			else if (c <= 0x20 || c >= 0x7f)
				tl += (size_t)snprintf(q->text + tl, 5, "\\%03u", c);
			else
				q->text[tl++] = (char)c;
			if (c == '.')
				plain = false; /* a dot inside a label: never a host name */
		}
		if (tl + 1 >= sizeof q->text)
			return GW_NONAME;
		q->text[tl++] = '.';
		off += l;
	}
	if (tl == 0)
		q->text[tl++] = '.';
	else if (tl > 1)
		tl--; /* no trailing dot, as names are shown elsewhere */
	q->text[tl] = '\0';
	if (n - off < 4)
		return GW_NONAME;
	q->qtype = (uint16_t)be16(b + off);
	q->qclass = (uint16_t)be16(b + off + 2);
	q->qend = off + 4;
	if (!plain || wl == 0 || gw_name_norm(wire, wl, q->name) < 0)
		q->name[0] = '\0';
	return GW_OK;
}

static void put16(uint8_t *p, unsigned v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

size_t gw_dns_reply(const uint8_t *query, const struct gw_dns_q *q, unsigned rcode,
		    const struct gw_dns_addr *addrs, size_t naddrs, uint32_t ttl, uint8_t *out,
		    size_t cap)
{
	size_t qlen = q->qend > 12 ? q->qend - 12 : 0;
	if (cap < 12 + qlen)
		return 0;
	put16(out, q->id);
	/* QR, opcode 0, RD copied, RA set */
	put16(out + 2, 0x8000u | (q->flags & 0x0100u) | 0x0080u | (rcode & 0xf));
	put16(out + 4, qlen ? 1 : 0);
	put16(out + 6, 0);
	put16(out + 8, 0);
	put16(out + 10, 0);
	memcpy(out + 12, query + 12, qlen);
	size_t off = 12 + qlen;
	if (rcode != GW_DNS_NOERROR || !qlen)
		return off;
	unsigned an = 0;
	int fam = q->qtype == GW_QT_A ? AF_INET : q->qtype == GW_QT_AAAA ? AF_INET6 : 0;
	for (size_t i = 0; fam && i < naddrs; i++) {
		if (addrs[i].family != fam)
			continue;
		size_t al = fam == AF_INET ? 4 : 16;
		if (cap - off < 12 + al) {
			out[2] |= 0x02; /* TC */
			break;
		}
		put16(out + off, 0xc00c); /* the question's name */
		put16(out + off + 2, q->qtype);
		put16(out + off + 4, 1);
		put16(out + off + 6, ttl >> 16);
		put16(out + off + 8, ttl & 0xffff);
		put16(out + off + 10, (unsigned)al);
		memcpy(out + off + 12, addrs[i].addr, al);
		off += 12 + al;
		an++;
	}
	put16(out + 6, an);
	return off;
}
