/* manifest_hosts.c — one manifest host: "name[:port]", "IPv4[/len][:port]", "[IPv6][/len][:port]"
 * (a bare IPv6 address, with an optional /len, is accepted too and means any port).
 *
 * Promise: mf_parse_host() accepts exactly these forms and fills a struct mf_host with the address
 * in network order, a prefix in range (host bits must be zero), a port 1..65535 (0 = any port), or
 * a DNS name validated (labels 1..63 of [A-Za-z0-9_-], no leading/trailing '-', total <= 253, not
 * all-numeric), lower-cased and without its trailing dot; a name may start with "*." (a wildcard:
 * any name under the rest, which needs at least two labels; the network gateway serves it, the
 * kernel layers cannot). A port range is refused as such (the gateway serves single ports). IPv4-mapped IPv6 becomes IPv4 (the policy
 * decides mapped addresses as IPv4). Anything else is refused with a reason.
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "manifest_int.h"

#define HOST_TEXT_MAX 300

void mf_host_clear(struct mf_host *h)
{
	if (!h)
		return;
	free(h->text);
	free(h->name);
	free(h->jpath);
	free(h->mode);
	for (size_t i = 0; i < h->nmethods; i++)
		free(h->methods[i]);
	free(h->methods);
	for (size_t i = 0; i < h->npaths; i++)
		free(h->paths[i]);
	free(h->paths);
	memset(h, 0, sizeof *h);
}

/* Decimal number of at most `maxdig` digits, no sign, no leading '+'. -1 when not a number. */
static long parse_dec(const char *s, size_t n, size_t maxdig)
{
	if (n == 0 || n > maxdig)
		return -1;
	long v = 0;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	return v;
}

static int parse_port(const char *s, size_t n, uint16_t *port, char *why, size_t wl)
{
	if (memchr(s, '-', n)) {
		snprintf(why, wl, "port ranges are not supported (grant each port)");
		return -1;
	}
	long v = parse_dec(s, n, 5);
	if (v < 1 || v > 65535) {
		snprintf(why, wl, "port must be a number from 1 to 65535");
		return -1;
	}
	*port = (uint16_t)v;
	return 0;
}

static int check_name(const char *s, size_t n, char *out, char *why, size_t wl)
{
	if (n > 2 && s[0] == '*' && s[1] == '.') { /* wildcard: "*." then a name of two labels or more */
		const char *base = s + 2;
		size_t bl = n - 2;
		if (bl > 0 && base[bl - 1] == '.')
			bl--;
		if (!memchr(base, '.', bl) || base[0] == '*') {
			snprintf(why, wl, "a wildcard must stand for names under a domain (\"*.example.com\")");
			return -1;
		}
		if (check_name(base, n - 2, out + 2, why, wl) < 0)
			return -1;
		out[0] = '*';
		out[1] = '.';
		return 0;
	}
	if (n > 0 && s[n - 1] == '.')
		n--;
	if (n == 0 || n > 253) {
		snprintf(why, wl, "host name must be 1 to 253 characters");
		return -1;
	}
	size_t lab = 0;
	bool all_digits = true;
	for (size_t i = 0; i <= n; i++) {
		char c = i < n ? s[i] : '.';
		if (c == '.') {
			if (lab == 0 || lab > 63) {
				snprintf(why, wl, "host name labels must be 1 to 63 characters");
				return -1;
			}
			if (s[i - 1] == '-' || s[i - lab] == '-') {
				snprintf(why, wl, "a host name label may not start or end with '-'");
				return -1;
			}
			if (i < n)
				all_digits = true;
			lab = 0;
			out[i] = '.';
			continue;
		}
		if (c == '*') {
			snprintf(why, wl, "a wildcard is only \"*.\" before a name (\"*.example.com\")");
			return -1;
		}
		if (!isalnum((unsigned char)c) && c != '-' && c != '_') {
			snprintf(why, wl, "not a host name, IPv4 address or [IPv6] address");
			return -1;
		}
		if (!isdigit((unsigned char)c))
			all_digits = false;
		out[i] = (char)tolower((unsigned char)c);
		lab++;
	}
	if (all_digits) {
		snprintf(why, wl, "not a valid IPv4 address (write a.b.c.d)");
		return -1;
	}
	out[n] = '\0';
	return 0;
}

static int check_prefix(const char *s, size_t n, unsigned max, uint8_t *prefix, char *why, size_t wl)
{
	long v = parse_dec(s, n, 3);
	if (v < 0 || v > (long)max) {
		snprintf(why, wl, "prefix length must be a number from 0 to %u", max);
		return -1;
	}
	*prefix = (uint8_t)v;
	return 0;
}

static int host_bits_zero(const uint8_t *a, unsigned bytes, unsigned prefix)
{
	for (unsigned bit = prefix; bit < bytes * 8; bit++)
		if (a[bit / 8] & (0x80u >> (bit % 8)))
			return 0;
	return 1;
}

/* addr text (no brackets) + optional "/len" inside s[0..n). */
static int parse_addr(const char *s, size_t n, int family, struct mf_host *h, char *why, size_t wl)
{
	char a[64];
	const char *slash = memchr(s, '/', n);
	size_t al = slash ? (size_t)(slash - s) : n;
	unsigned max = family == AF_INET ? 32 : 128;
	if (al == 0 || al >= sizeof a) {
		snprintf(why, wl, "not a valid %s address", family == AF_INET ? "IPv4" : "IPv6");
		return -1;
	}
	memcpy(a, s, al);
	a[al] = '\0';
	/* A numeric IPv6 address may carry a zone id ("fe80::1%lo", RFC 4007): the address is the
	 * part before '%' (the layers match addresses on every interface); the zone must look like an
	 * interface name or index. */
	char *pct = family == AF_INET6 ? strchr(a, '%') : NULL;
	if (pct != NULL) {
		size_t zl = strlen(pct + 1);
		if (zl == 0 || zl > 15 || strspn(pct + 1, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
							  "0123456789._-") != zl) {
			snprintf(why, wl, "not a valid IPv6 zone id (an interface name or index)");
			return -1;
		}
		*pct = '\0';
	}
	if (inet_pton(family, a, h->addr) != 1) {
		snprintf(why, wl, "not a valid %s address", family == AF_INET ? "IPv4" : "IPv6");
		return -1;
	}
	h->prefix = (uint8_t)max;
	if (slash && check_prefix(slash + 1, n - al - 1, max, &h->prefix, why, wl) < 0)
		return -1;
	if (!host_bits_zero(h->addr, max / 8, h->prefix)) {
		snprintf(why, wl, "address has bits set beyond the /%u prefix", h->prefix);
		return -1;
	}
	h->kind = family == AF_INET ? MF_HOST_V4 : MF_HOST_V6;
	static const uint8_t mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};
	if (family == AF_INET6 && !memcmp(h->addr, mapped, 12) && h->prefix >= 96) {
		memmove(h->addr, h->addr + 12, 4);
		memset(h->addr + 4, 0, 12);
		h->prefix = (uint8_t)(h->prefix - 96);
		h->kind = MF_HOST_V4;
	}
	return 0;
}

int mf_parse_host(const char *text, struct mf_host *out, char *why, size_t wl)
{
	struct mf_host h;
	memset(&h, 0, sizeof h);
	memset(out, 0, sizeof *out);
	size_t n = strlen(text);
	char name[HOST_TEXT_MAX];
	if (n == 0) {
		snprintf(why, wl, "empty host");
		return -1;
	}
	if (n >= HOST_TEXT_MAX) {
		snprintf(why, wl, "host longer than %d characters", HOST_TEXT_MAX - 1);
		return -1;
	}
	if (text[0] == '[') {
		const char *rb = strchr(text, ']');
		if (!rb) {
			snprintf(why, wl, "missing ']' after the IPv6 address");
			return -1;
		}
		/* "[addr]" "[addr/len]" then optional "/len" and optional ":port" */
		const char *inner = text + 1;
		size_t il = (size_t)(rb - inner);
		const char *rest = rb + 1, *colon = strchr(rest, ':');
		char buf[HOST_TEXT_MAX];
		size_t rl = colon ? (size_t)(colon - rest) : strlen(rest);
		if (rl > 0 && rest[0] != '/') {
			snprintf(why, wl, "unexpected text after ']' (expected /len or :port)");
			return -1;
		}
		if (rl > 0 && memchr(inner, '/', il)) {
			snprintf(why, wl, "two prefix lengths");
			return -1;
		}
		memcpy(buf, inner, il);
		memcpy(buf + il, rest, rl);
		if (parse_addr(buf, il + rl, AF_INET6, &h, why, wl) < 0)
			return -1;
		if (colon && parse_port(colon + 1, strlen(colon + 1), &h.port, why, wl) < 0)
			return -1;
	} else if (strchr(text, ':') && strchr(text, ':') != strrchr(text, ':')) {
		/* several ':' without brackets: a bare IPv6 address (any port) */
		if (parse_addr(text, n, AF_INET6, &h, why, wl) < 0) {
			if (!strstr(why, "zone id"))
				snprintf(why, wl, "not a valid IPv6 address (write [addr]:port to give a port)");
			return -1;
		}
	} else {
		const char *colon = strchr(text, ':');
		size_t hl = colon ? (size_t)(colon - text) : n;
		if (colon && parse_port(colon + 1, strlen(colon + 1), &h.port, why, wl) < 0)
			return -1;
		char a[HOST_TEXT_MAX];
		memcpy(a, text, hl);
		a[hl] = '\0';
		const char *slash = strchr(a, '/');
		char probe[HOST_TEXT_MAX];
		size_t pl = slash ? (size_t)(slash - a) : hl;
		memcpy(probe, a, pl);
		probe[pl] = '\0';
		uint8_t tmp[4];
		if (inet_pton(AF_INET, probe, tmp) == 1) {
			if (parse_addr(a, hl, AF_INET, &h, why, wl) < 0)
				return -1;
		} else if (slash) {
			snprintf(why, wl, "a prefix length needs an IPv4 or [IPv6] address");
			return -1;
		} else {
			if (check_name(a, hl, name, why, wl) < 0)
				return -1;
			h.kind = MF_HOST_NAME;
			h.name = strdup(name);
			if (!h.name) {
				snprintf(why, wl, "out of memory");
				return -1;
			}
		}
	}
	h.text = strdup(text);
	if (!h.text) {
		free(h.name);
		snprintf(why, wl, "out of memory");
		return -1;
	}
	*out = h;
	return 0;
}
