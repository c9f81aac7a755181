/* audit.c — the audit stream writer (contract: audit.h, SPEC "Audit stream").
 *
 * Each event is built as a cJSON object (common fields first), every string in it is made valid
 * UTF-8, oversized strings are shrunk (and the event marked "truncated":true) so the line fits
 * AUDIT_MAX_LINE, `prev` is appended, the object is printed unformatted, the printed text minus
 * its closing brace is hashed and `,"hash":"<hex>"}\n` is spliced on. The line goes out in one
 * write(2); a failed or short write marks the writer failed for good.
 */
#include "audit.h"
#include "msg.h"
#include "audit_int.h"
#include "severity.h"
#include "utf8.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <sodium.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#define HASH_SUFFIX_LEN (9 + 64 + 2) /* ,"hash":"<64 hex>"}  */
#define PREV_MEMBER_LEN (9 + 64 + 1) /* ,"prev":"<64 hex>"   */
#define MAX_NAME_LEN 64              /* event / src names */

static const char ZERO_HASH[65] =
	"0000000000000000000000000000000000000000000000000000000000000000";


__attribute__((format(printf, 4, 5)))
static void seterr(char *err, size_t errlen, int e, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	sbx_verrf(err, errlen, e, fmt, ap);
	va_end(ap);
}

/* "fd:N" -> N (a currently open descriptor), or -1. */
static int parse_fd_dest(const char *s)
{
	if (!*s)
		return -1;
	long v = 0;
	for (const char *p = s; *p; p++) {
		if (*p < '0' || *p > '9')
			return -1;
		v = v * 10 + (*p - '0');
		if (v > INT_MAX)
			return -1;
	}
	return (int)v;
}

static void random_run_id(char out[33])
{
	unsigned char b[16];
	size_t got = 0;
	while (got < sizeof b) {
		ssize_t r = getrandom(b + got, sizeof b - got, 0);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			/* getrandom missing (very old kernel): libsodium has its own fallbacks */
			randombytes_buf(b, sizeof b);
			got = sizeof b;
			break;
		}
		got += (size_t)r;
	}
	sodium_bin2hex(out, 33, b, sizeof b);
}

int audit_open(struct audit *a, const char *dest, const char *executor, char *err, size_t errlen)
{
	memset(a, 0, sizeof *a);
	a->fd = -1;
	memcpy(a->prev, ZERO_HASH, sizeof a->prev);
	/* the executor name is a validated manifest name, but keep the stream valid regardless */
	char *ex = utf8_sanitize(executor ? executor : "", sizeof a->executor - 1);
	if (!ex) {
		seterr(err, errlen, 0, "audit: %s", "out of memory");
		return -1;
	}
	snprintf(a->executor, sizeof a->executor, "%s", ex);
	free(ex);
	if (sodium_init() < 0) {
		seterr(err, errlen, 0, "audit: %s", "libsodium initialisation failed");
		return -1;
	}
	random_run_id(a->run);

	if (!dest)
		return 0;
	int fd;
	if (strcmp(dest, "-") == 0) {
		fd = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 3);
		if (fd < 0) {
			seterr(err, errlen, errno, "audit stream %s: stderr is not open", dest);
			return -1;
		}
	} else if (strncmp(dest, "fd:", 3) == 0) {
		int n = parse_fd_dest(dest + 3);
		if (n < 0) {
			seterr(err, errlen, 0, "audit stream %s: expected fd:N with N a descriptor number", dest);
			return -1;
		}
		int fl = fcntl(n, F_GETFL);
		if (fl < 0) {
			seterr(err, errlen, errno, "audit stream %s: descriptor is not open", dest);
			return -1;
		}
		if ((fl & O_ACCMODE) == O_RDONLY) {
			seterr(err, errlen, 0, "audit stream %s: descriptor is not open for writing", dest);
			return -1;
		}
		fd = fcntl(n, F_DUPFD_CLOEXEC, 3);
		if (fd < 0) {
			seterr(err, errlen, errno, "audit stream %s: dup", dest);
			return -1;
		}
	} else if (!*dest) {
		seterr(err, errlen, 0, "audit stream: %s", "empty destination");
		return -1;
	} else {
		fd = open(dest, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW, 0600);
		if (fd < 0) {
			seterr(err, errlen, errno, "audit stream %s", dest);
			return -1;
		}
	}
	a->fd = fd;
	return 0;
}

void audit_set_key(struct audit *a, const struct audit_key *k)
{
	a->key = *k;
	a->keyed = true;
	crypto_generichash_init(&a->mac0, k->k, AUDIT_KEY_BYTES, AUDIT_MAC_BYTES);
}

void audit_timestamp(char out[32])
{
	struct timespec ts;
	struct tm tm;
	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	size_t n = strftime(out, 32, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(out + n, 32 - n, ".%06ldZ", ts.tv_nsec / 1000);
}

static cJSON *add_name(cJSON *obj, const char *key, const char *s)
{
	return audit_add_str(obj, key, s ? s : "", MAX_NAME_LEN);
}

cJSON *audit_event(struct audit *a, const char *event, const char *src)
{
	cJSON *ev = cJSON_CreateObject();
	if (!ev)
		return NULL;
	char ts[32];
	audit_timestamp(ts);
	if (!cJSON_AddNumberToObject(ev, "v", 1) || !cJSON_AddStringToObject(ev, "ts", ts) ||
	    !cJSON_AddStringToObject(ev, "run", a->run) ||
	    !cJSON_AddNumberToObject(ev, "seq", (double)a->seq) ||
	    !cJSON_AddStringToObject(ev, "executor", a->executor) || !add_name(ev, "event", event) ||
	    !add_name(ev, "src", src)) {
		cJSON_Delete(ev);
		return NULL;
	}
	return ev;
}

cJSON *audit_add_str(cJSON *obj, const char *key, const char *s, size_t maxlen)
{
	if (!s)
		return cJSON_AddNullToObject(obj, key);
	size_t n = strnlen(s, maxlen + 1);
	if (n <= maxlen && utf8_valid(s, n)) /* the common case: nothing to repair or cut */
		return cJSON_AddStringToObject(obj, key, s);
	char *clean = utf8_sanitize(s, maxlen);
	if (!clean)
		return NULL;
	cJSON *it = cJSON_AddStringToObject(obj, key, clean);
	free(clean);
	return it;
}

cJSON *audit_counts(const struct audit *a)
{
	cJSON *o = cJSON_CreateObject();
	if (!o)
		return NULL;
	for (size_t i = 0; i < a->nkinds; i++)
		if (!cJSON_AddNumberToObject(o, a->kind[i], (double)a->count[i])) {
			cJSON_Delete(o);
			return NULL;
		}
	return o;
}

/* Make every string (values and keys) in the tree valid UTF-8. Returns 0 or -1 (no memory). */
static int sanitize_tree(cJSON *it)
{
	for (; it; it = it->next) {
		if (it->string && !utf8_valid(it->string, strlen(it->string))) {
			char *k = utf8_sanitize(it->string, SIZE_MAX);
			if (!k)
				return -1;
			if (!(it->type & cJSON_StringIsConst))
				cJSON_free(it->string);
			it->type &= ~cJSON_StringIsConst;
			/* cJSON frees keys with its hooks; utf8_sanitize uses malloc like the default hooks */
			it->string = k;
		}
		if (cJSON_IsString(it) && it->valuestring &&
		    !utf8_valid(it->valuestring, strlen(it->valuestring))) {
			char *v = utf8_sanitize(it->valuestring, SIZE_MAX);
			if (!v || !cJSON_SetValuestring(it, v)) {
				free(v);
				return -1;
			}
			free(v);
		}
		if (it->child && sanitize_tree(it->child) < 0)
			return -1;
	}
	return 0;
}

/* cJSON 1.7.15 prints every number with "%1.15g" + sscanf round-trip check: slow, and the audit
 * stream's numbers are integers. Turn integral numbers into raw text once, before printing. */
static int rawify_numbers(cJSON *it)
{
	for (; it; it = it->next) {
		if (cJSON_IsNumber(it)) {
			double d = it->valuedouble;
			if (d == d && d > -9007199254740992.0 && d < 9007199254740992.0 &&
			    d == (double)(long long)d) {
				char buf[24];
				int n = snprintf(buf, sizeof buf, "%lld", (long long)d);
				char *t = malloc((size_t)n + 1);
				if (!t)
					return -1;
				memcpy(t, buf, (size_t)n + 1);
				it->type = (it->type & ~0xFF) | cJSON_Raw;
				it->valuestring = t; /* freed by cJSON_Delete like any valuestring */
			}
		}
		if (it->child && rawify_numbers(it->child) < 0)
			return -1;
	}
	return 0;
}

static int is_common(const char *k)
{
	static const char *const common[] = {"v", "ts", "run", "seq", "executor", "event", "src", "prev"};
	for (size_t i = 0; i < sizeof common / sizeof common[0]; i++)
		if (k && strcmp(k, common[i]) == 0)
			return 1;
	return 0;
}

/* Longest string value below `it` (skipping the common top-level members when top). */
static cJSON *longest_string(cJSON *it, int top, size_t *best)
{
	cJSON *found = NULL;
	for (; it; it = it->next) {
		if (top && is_common(it->string))
			continue;
		if (cJSON_IsString(it) && it->valuestring) {
			size_t n = strlen(it->valuestring);
			if (n > *best) {
				*best = n;
				found = it;
			}
		}
		if (it->child) {
			cJSON *f = longest_string(it->child, 0, best);
			if (f)
				found = f;
		}
	}
	return found;
}

/* One shrink step for a line that is `excess` bytes too long. Returns 0, or -1 if nothing left. */
static int shrink_once(cJSON *ev, size_t excess)
{
	size_t best = 0;
	cJSON *s = longest_string(ev->child, 1, &best);
	if (s && best > 32) {
		size_t keep = best > excess + 16 ? best - excess - 16 : 16;
		if (keep > best / 2 && best - keep < 64)
			keep = best / 2; /* escaped strings shrink less than their raw size: cut boldly */
		keep = utf8_boundary(s->valuestring, keep);
		s->valuestring[keep] = '\0';
		return 0;
	}
	/* no big strings left: replace the first non-common, non-marker top-level member that still has
	 * content (a container or a non-empty string) with null */
	for (cJSON *it = ev->child; it; it = it->next) {
		if (is_common(it->string) || (it->string && strcmp(it->string, "truncated") == 0))
			continue;
		if (it->child || (cJSON_IsString(it) && it->valuestring && it->valuestring[0])) {
			cJSON *rep = cJSON_CreateNull();
			/* ...InObject (not ViaPointer) so the replacement keeps the member's name */
			if (!rep || !cJSON_ReplaceItemInObjectCaseSensitive(ev, it->string, rep)) {
				cJSON_Delete(rep);
				return -1;
			}
			return 0;
		}
	}
	return -1;
}

static int write_line(struct audit *a, const char *buf, size_t len)
{
	for (;;) {
		ssize_t w = write(a->fd, buf, len);
		if (w == (ssize_t)len)
			return 0;
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			struct pollfd p = {.fd = a->fd, .events = POLLOUT};
			if (poll(&p, 1, -1) >= 0 || errno == EINTR)
				continue;
		}
		return -1; /* error, or a short write: the line is damaged, the stream is failed */
	}
}

/* Set the member `seq` to the writer's next sequence number (events may be held or dropped
 * between audit_event and the write, so the number is given here). */
static int set_seq(struct audit *a, cJSON *ev)
{
	cJSON *s = cJSON_GetObjectItemCaseSensitive(ev, "seq");
	if (!s)
		return -1;
	if (cJSON_IsRaw(s)) { /* rawified by an earlier attempt: back to a number */
		free(s->valuestring);
		s->valuestring = NULL;
		s->type = (s->type & ~0xFF) | cJSON_Number;
	}
	cJSON_SetNumberValue(s, (double)a->seq);
	return 0;
}

/* The invisible characters that reorder or break what a terminal shows (quote.h's list: C1
 * controls, the bidirectional controls, U+2028/U+2029) written as \uXXXX escapes, so that `cat`
 * of the stream, `audit filter` and any JSON tool show them escaped; JSON decodes them to the same
 * string. cJSON's output holds them only inside strings. Returns a malloc'd copy, or NULL. */
static char *escape_invisible(const char *txt)
{
	size_t n = strlen(txt), extra = 0;
	for (size_t i = 0; i + 1 < n; i++)
		if ((unsigned char)txt[i] == 0xC2 || (unsigned char)txt[i] == 0xD8 || (unsigned char)txt[i] == 0xE2)
			extra += 6;
	char *out = malloc(n + extra + 1);
	if (!out)
		return NULL;
	size_t o = 0;
	for (size_t i = 0; i < n;) {
		const unsigned char *u = (const unsigned char *)txt + i;
		unsigned cp = 0, len = 0;
		if (u[0] == 0xC2 && i + 1 < n && u[1] >= 0x80 && u[1] <= 0x9F)
			cp = u[1], len = 2;                                   /* C1 controls */
		else if (u[0] == 0xD8 && i + 1 < n && u[1] == 0x9C)
			cp = 0x061C, len = 2;                                 /* ARABIC LETTER MARK */
		else if (u[0] == 0xE2 && i + 2 < n && (u[1] == 0x80 || u[1] == 0x81)) {
			unsigned c = 0x2000 | ((unsigned)(u[1] & 0x3F) << 6) | (u[2] & 0x3F);
			if (c == 0x200E || c == 0x200F || (c >= 0x2028 && c <= 0x202E) || (c >= 0x2066 && c <= 0x2069))
				cp = c, len = 3;
		}
		if (len) {
			o += (size_t)sprintf(out + o, "\\u%04x", cp);
			i += len;
		} else {
			out[o++] = txt[i++];
		}
	}
	out[o] = 0;
	return out;
}

int audit_write_event(struct audit *a, cJSON *ev, size_t *bytes)
{
	if (!ev) {
		a->failed = true;
		return -1;
	}
	if (a->failed) {
		cJSON_Delete(ev);
		return -1;
	}
	int rc = -1;
	char *txt = NULL, *line = NULL;
	if (set_seq(a, ev) < 0 || sanitize_tree(ev->child) < 0 || rawify_numbers(ev->child) < 0)
		goto out;
	bool marked = false;
	for (;;) {
		free(txt);
		txt = cJSON_PrintUnformatted(ev);
		if (!txt)
			goto out;
		char *vis = escape_invisible(txt);
		free(txt);
		if (!(txt = vis))
			goto out;
		size_t n = strlen(txt);
		size_t total = n + PREV_MEMBER_LEN + HASH_SUFFIX_LEN + 1 - 1 /* the '}' replaced */;
		if (total <= AUDIT_MAX_LINE)
			break;
		if (!marked) {
			if (!cJSON_AddTrueToObject(ev, "truncated"))
				goto out;
			marked = true;
		}
		if (shrink_once(ev, total - AUDIT_MAX_LINE + 16) < 0)
			goto out;
	}
	/* append prev: the hash covers it */
	size_t n = strlen(txt);
	if (n < 2 || txt[n - 1] != '}')
		goto out;
	size_t linelen = n - 1 + PREV_MEMBER_LEN + HASH_SUFFIX_LEN + 1;
	line = malloc(linelen + 1);
	if (!line)
		goto out;
	size_t p = n - 1;
	memcpy(line, txt, p);
	if (p > 1) /* object not empty (always true: common fields) */
		line[p++] = ',';
	memcpy(line + p, "\"prev\":\"", 8);
	p += 8;
	memcpy(line + p, a->prev, 64);
	p += 64;
	line[p++] = '"';
	char hash[65];
	if (a->keyed) {
		crypto_generichash_state st = a->mac0;
		unsigned char mac[AUDIT_MAC_BYTES];
		crypto_generichash_update(&st, (const unsigned char *)line, p);
		crypto_generichash_final(&st, mac, sizeof mac);
		sodium_bin2hex(hash, sizeof hash, mac, sizeof mac);
		sodium_memzero(&st, sizeof st);
	} else
		audit_sha256_hex(line, p, hash);
	memcpy(line + p, ",\"hash\":\"", 9);
	p += 9;
	memcpy(line + p, hash, 64);
	p += 64;
	line[p++] = '"';
	line[p++] = '}';
	line[p++] = '\n';
	if (write_line(a, line, p) < 0) {
		a->failed = true;
		goto out;
	}
	memcpy(a->prev, hash, sizeof a->prev);
	a->seq++;
	if (bytes)
		*bytes += p;
	rc = 0;
out:
	if (rc < 0)
		a->failed = true;
	free(txt);
	free(line);
	cJSON_Delete(ev);
	return rc;
}

void audit_sha256_hex(const void *buf, size_t len, char out[65])
{
	unsigned char h[crypto_hash_sha256_BYTES];
	crypto_hash_sha256(h, buf, len);
	static const char hx[] = "0123456789abcdef";
	for (size_t i = 0; i < sizeof h; i++) {
		out[2 * i] = hx[h[i] >> 4];
		out[2 * i + 1] = hx[h[i] & 15];
	}
	out[64] = '\0';
}

int audit_split_hash(const char *line, size_t len, size_t *prefix_len, char hash_out[65])
{
	if (len < HASH_SUFFIX_LEN + 2)
		return -1;
	const char *s = line + len - HASH_SUFFIX_LEN;
	if (memcmp(s, ",\"hash\":\"", 9) != 0 || s[9 + 64] != '"' || s[9 + 64 + 1] != '}')
		return -1;
	for (int i = 0; i < 64; i++) {
		char c = s[9 + i];
		if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
			return -1;
	}
	memcpy(hash_out, s + 9, 64);
	hash_out[64] = '\0';
	*prefix_len = len - HASH_SUFFIX_LEN;
	return 0;
}
