/* utf8.c — strict UTF-8 validation and repair (contract: utf8.h). */
#include "utf8.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

size_t utf8_seq_len(const unsigned char *s, size_t n)
{
	unsigned char c = s[0];
	if (c < 0x80)
		return 1;
	size_t len;
	unsigned char lo = 0x80, hi = 0xBF; /* allowed range of the second byte */
	if (c >= 0xC2 && c <= 0xDF)
		len = 2;
	else if (c >= 0xE0 && c <= 0xEF) {
		len = 3;
		if (c == 0xE0)
			lo = 0xA0; /* overlong */
		else if (c == 0xED)
			hi = 0x9F; /* surrogates */
	} else if (c >= 0xF0 && c <= 0xF4) {
		len = 4;
		if (c == 0xF0)
			lo = 0x90; /* overlong */
		else if (c == 0xF4)
			hi = 0x8F; /* > U+10FFFF */
	} else
		return 0;
	if (n < len)
		return 0;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < len; i++)
		if ((s[i] & 0xC0) != 0x80)
			return 0;
	return len;
}

bool utf8_valid(const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0;
	while (i < n) {
		/* fast path: 8 ASCII bytes at a time */
		while (i + 8 <= n) {
			uint64_t w;
			memcpy(&w, s + i, 8);
			if (w & 0x8080808080808080ULL)
				break;
			i += 8;
		}
		if (i >= n)
			break;
		if (s[i] < 0x80) {
			i++;
			continue;
		}
		size_t l = utf8_seq_len(s + i, n - i);
		if (!l)
			return false;
		i += l;
	}
	return true;
}

char *utf8_sanitize(const char *str, size_t maxlen)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t n = strlen(str);
	/* worst case every input byte becomes 3 output bytes; output is capped at maxlen */
	size_t room = (n > SIZE_MAX / 4 || n * 3 >= maxlen) ? maxlen : n * 3;
	if (room == SIZE_MAX)
		return NULL;
	char *out = malloc(room + 1);
	if (!out)
		return NULL;
	size_t o = 0, i = 0;
	while (i < n) {
		size_t l = utf8_seq_len(s + i, n - i);
		const unsigned char *src = s + i;
		static const unsigned char repl[3] = {0xEF, 0xBF, 0xBD};
		if (!l) {
			src = repl;
			l = 3;
			i += 1;
		} else
			i += l;
		if (o + l > room)
			break;
		memcpy(out + o, src, l);
		o += l;
	}
	out[o] = '\0';
	return out;
}

size_t utf8_boundary(const char *str, size_t n)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t len = strlen(str);
	if (n >= len)
		return len;
	while (n > 0 && (s[n] & 0xC0) == 0x80)
		n--;
	return n;
}
