/* audit_read.c — streaming line reader and per-line schema check (contract: audit_read.h). */
#include "audit_read.h"
#include "quote.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define READ_BUF (1024 * 1024)

int audit_reader_open(struct audit_reader *r, const char *path, bool follow,
		      volatile sig_atomic_t *stop, char *err, size_t errlen)
{
	memset(r, 0, sizeof *r);
	r->name = path;
	r->fd = -1;
	r->ino_fd = -1;
	r->follow = follow;
	r->stop = stop;
	if (strcmp(path, "-") == 0) {
		r->fd = STDIN_FILENO;
	} else {
		r->fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
		if (r->fd < 0) {
			snprintf(err, errlen, "%s: %s", path, strerror(errno));
			return -1;
		}
		r->own_fd = true;
		struct stat st;
		if (fstat(r->fd, &st) == 0 && S_ISDIR(st.st_mode)) {
			snprintf(err, errlen, "%s: is a directory", path);
			close(r->fd);
			return -1;
		}
		if (follow) {
			r->ino_fd = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
			if (r->ino_fd >= 0 &&
			    inotify_add_watch(r->ino_fd, path, IN_MODIFY | IN_ATTRIB | IN_CLOSE_WRITE) < 0) {
				close(r->ino_fd);
				r->ino_fd = -1; /* fall back to polling */
			}
		}
	}
	r->cap = READ_BUF;
	r->buf = malloc(r->cap);
	if (!r->buf) {
		snprintf(err, errlen, "%s: out of memory", path);
		audit_reader_close(r);
		return -1;
	}
	return 0;
}

void audit_reader_close(struct audit_reader *r)
{
	if (r->own_fd && r->fd >= 0)
		close(r->fd);
	if (r->ino_fd >= 0)
		close(r->ino_fd);
	free(r->buf);
	r->buf = NULL;
	r->fd = r->ino_fd = -1;
}

/* Follow mode at end of file: wait for a change. Returns 0 to retry, -1 when stopped. */
static int wait_more(struct audit_reader *r)
{
	for (;;) {
		if (r->stop && *r->stop)
			return -1;
		if (r->ino_fd >= 0) {
			struct pollfd p = {.fd = r->ino_fd, .events = POLLIN};
			int n = poll(&p, 1, 1000); /* the timeout only re-checks *stop and truncation */
			if (n > 0) {
				char ev[4096];
				while (read(r->ino_fd, ev, sizeof ev) > 0)
					;
			}
		} else {
			struct timespec ts = {0, 200 * 1000 * 1000};
			nanosleep(&ts, NULL);
		}
		if (r->stop && *r->stop)
			return -1;
		struct stat st;
		if (r->own_fd && fstat(r->fd, &st) == 0 && (uint64_t)st.st_size < r->pos) {
			/* truncated under us: start again from the beginning */
			if (lseek(r->fd, 0, SEEK_SET) == 0) {
				r->pos = 0;
				r->off = r->len = 0;
			}
		}
		return 0;
	}
}

/* Read more bytes into the buffer. Returns >0, 0 at end, -1 on error/stop. */
static ssize_t fill(struct audit_reader *r)
{
	if (r->off > 0) {
		memmove(r->buf, r->buf + r->off, r->len - r->off);
		r->len -= r->off;
		r->off = 0;
	}
	if (r->len == r->cap)
		return -2; /* cannot happen: callers skip overlong lines before the buffer fills */
	for (;;) {
		ssize_t n = read(r->fd, r->buf + r->len, r->cap - r->len);
		if (n > 0) {
			r->len += (size_t)n;
			r->pos += (uint64_t)n;
			return n;
		}
		if (n == 0) {
			if (!r->follow)
				return 0;
			if (r->on_idle)
				r->on_idle(r->idle_ctx);
			if (wait_more(r) < 0)
				return 0;
			continue;
		}
		if (errno == EINTR) {
			if (r->stop && *r->stop)
				return 0;
			continue;
		}
		return -1;
	}
}

int audit_reader_next(struct audit_reader *r, const char **line, size_t *len, const char **damage)
{
	*damage = NULL;
	bool skipping = false; /* inside an overlong line */
	size_t scanned = 0;    /* bytes of the current line already searched for '\n' */
	for (;;) {
		char *start = r->buf + r->off;
		size_t avail = r->len - r->off;
		char *nl = memchr(start + scanned, '\n', avail - scanned);
		if (nl) {
			size_t l = (size_t)(nl - start);
			r->off += l + 1;
			r->bytes += l + 1;
			r->lineno++;
			if (skipping || l + 1 > AUDIT_MAX_LINE) { /* the limit counts the '\n' */
				*line = start;
				*len = 0;
				*damage = "line longer than 64 KiB";
				return 1;
			}
			*line = start;
			*len = l;
			return 1;
		}
		scanned = avail;
		if (avail >= AUDIT_MAX_LINE) { /* drop what we have of an overlong line */
			skipping = true;
			r->bytes += avail;
			r->off = r->len = 0;
			scanned = 0;
		}
		ssize_t n = fill(r);
		if (n < 0)
			return -1;
		if (n == 0) {
			avail = r->len - r->off;
			if (avail == 0 && !skipping)
				return 0;
			/* a last line without its newline */
			r->lineno++;
			r->bytes += avail;
			*line = r->buf + r->off;
			*len = skipping ? 0 : avail;
			*damage = skipping ? "line longer than 64 KiB" : "last line has no newline (incomplete write?)";
			r->off = r->len = 0;
			return 1;
		}
	}
}

/* ---- schema ------------------------------------------------------------------------------------ */

static bool is_hex(const struct jl_span *v, size_t n)
{
	if (v->type != JL_STR || v->n != n)
		return false;
	for (size_t i = 0; i < n; i++) {
		char c = v->p[i];
		if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
			return false;
	}
	return true;
}

static bool digits(const char *p, int n)
{
	for (int i = 0; i < n; i++)
		if (p[i] < '0' || p[i] > '9')
			return false;
	return true;
}

/* our own format exactly: YYYY-MM-DDTHH:MM:SS.ffffffZ */
static bool ts_ok(const struct jl_span *v)
{
	const char *p = v->p;
	return v->type == JL_STR && v->n == 27 && digits(p, 4) && p[4] == '-' && digits(p + 5, 2) &&
	       p[7] == '-' && digits(p + 8, 2) && p[10] == 'T' && digits(p + 11, 2) && p[13] == ':' &&
	       digits(p + 14, 2) && p[16] == ':' && digits(p + 17, 2) && p[19] == '.' &&
	       digits(p + 20, 6) && p[26] == 'Z';
}

static const char *const COMMON[] = {"v", "ts", "run", "seq", "executor", "event", "src"};
#define NCOMMON (sizeof COMMON / sizeof COMMON[0])

const char *audit_line_check(const char *line, size_t len, struct audit_line *al, bool strict,
			     char *msg, size_t msglen)
{
	if (len == 0) {
		snprintf(msg, msglen, "empty line");
		return msg;
	}
	struct jl_error je;
	if (jl_check(line, len, 0, JL_MAX_DEPTH, &al->obj, &je) < 0) {
		if (je.kind == JL_E_UTF8)
			snprintf(msg, msglen, "not valid UTF-8 (byte %zu)", je.off + 1);
		else
			snprintf(msg, msglen, "not a JSON object: column %zu: %s", je.col, je.what);
		return msg;
	}
	const struct jl_obj *o = &al->obj;
	if (o->total > JL_MAX_MEMBERS) {
		snprintf(msg, msglen, "too many members (%zu)", o->total);
		return msg;
	}
	const struct jl_span *v = jl_get(o, "v");
	if (!v) {
		snprintf(msg, msglen, "missing field \"v\"");
		return msg;
	}
	if (v->type != JL_NUM || v->n != 1 || v->p[0] != '1') {
		snprintf(msg, msglen, "unsupported version \"v\" (expected 1)");
		return msg;
	}
	static const char *const names[] = {"ts", "run", "seq", "executor", "event", "src", "prev", "hash"};
	const struct jl_span *f[8];
	for (size_t i = 0; i < 8; i++) {
		/* fast path: where our writer puts it (ts..src at 1..6, prev/hash last), else search */
		size_t pos = i < 6 ? i + 1 : o->n - 8 + i;
		if (pos < o->n && jl_key_eq(&o->m[pos].key, names[i]))
			f[i] = &o->m[pos].val;
		else
			f[i] = jl_get(o, names[i]);
		if (!f[i]) {
			snprintf(msg, msglen, "missing field \"%s\"", names[i]);
			return msg;
		}
	}
	if (!ts_ok(f[0])) {
		snprintf(msg, msglen, "\"ts\" is not an RFC 3339 UTC timestamp with microseconds");
		return msg;
	}
	if (!is_hex(f[1], 32)) {
		snprintf(msg, msglen, "\"run\" is not 32 lowercase hex digits");
		return msg;
	}
	if (jl_u64(f[2], &al->seq) < 0) {
		snprintf(msg, msglen, "\"seq\" is not a non-negative integer");
		return msg;
	}
	for (size_t i = 3; i <= 5; i++)
		if (f[i]->type != JL_STR || f[i]->n == 0) {
			snprintf(msg, msglen, "\"%s\" is not a non-empty string", names[i]);
			return msg;
		}
	if (!is_hex(f[6], 64)) {
		snprintf(msg, msglen, "\"prev\" is not 64 lowercase hex digits");
		return msg;
	}
	if (!is_hex(f[7], 64)) {
		snprintf(msg, msglen, "\"hash\" is not 64 lowercase hex digits");
		return msg;
	}
	al->ts = *f[0];
	al->run = *f[1];
	al->executor = *f[3];
	al->event = *f[4];
	al->src = *f[5];
	al->prev = *f[6];
	al->hash = *f[7];
	memcpy(al->run_id, al->run.p, 32);
	al->run_id[32] = '\0';
	if (strict) {
		for (size_t i = 0; i < NCOMMON; i++)
			if (!jl_key_eq(&o->m[i].key, COMMON[i])) {
				snprintf(msg, msglen, "member %zu is not \"%s\" (common fields out of order)", i + 1,
					 COMMON[i]);
				return msg;
			}
		if (!jl_key_eq(&o->m[o->n - 1].key, "hash") || !jl_key_eq(&o->m[o->n - 2].key, "prev")) {
			snprintf(msg, msglen, "\"prev\", \"hash\" are not the last members");
			return msg;
		}
	}
	return NULL;
}

bool audit_line_hash_ok(const char *line, size_t len)
{
	size_t pl;
	char want[65], got[65];
	if (audit_split_hash(line, len, &pl, want) < 0)
		return false;
	audit_sha256_hex(line, pl, got);
	return memcmp(want, got, 64) == 0;
}

static int num_at(const char *s, size_t n, size_t *i, int w, int *out)
{
	if (*i + (size_t)w > n || !digits(s + *i, w))
		return -1;
	int v = 0;
	for (int k = 0; k < w; k++)
		v = v * 10 + (s[*i + (size_t)k] - '0');
	*i += (size_t)w;
	*out = v;
	return 0;
}

int audit_parse_time(const char *s, size_t n, int64_t *us)
{
	size_t i = 0;
	int Y, M, D, h = 0, m = 0, sec = 0;
	long frac = 0;
	if (num_at(s, n, &i, 4, &Y) || i >= n || s[i++] != '-' || num_at(s, n, &i, 2, &M) || i >= n ||
	    s[i++] != '-' || num_at(s, n, &i, 2, &D))
		return -1;
	if (i < n && (s[i] == 'T' || s[i] == 't' || s[i] == ' ')) {
		i++;
		if (num_at(s, n, &i, 2, &h) || i >= n || s[i++] != ':' || num_at(s, n, &i, 2, &m))
			return -1;
		if (i < n && s[i] == ':') {
			i++;
			if (num_at(s, n, &i, 2, &sec))
				return -1;
			if (i < n && s[i] == '.') {
				i++;
				int nd = 0;
				while (i < n && s[i] >= '0' && s[i] <= '9') {
					if (nd < 6) {
						frac = frac * 10 + (s[i] - '0');
						nd++;
					}
					i++;
				}
				if (nd == 0)
					return -1;
				for (; nd < 6; nd++)
					frac *= 10;
			}
		}
	}
	long tz = 0;
	if (i < n && (s[i] == 'Z' || s[i] == 'z'))
		i++;
	else if (i < n && (s[i] == '+' || s[i] == '-')) {
		int sign = s[i++] == '-' ? -1 : 1, th, tm;
		if (num_at(s, n, &i, 2, &th) || i >= n || s[i++] != ':' || num_at(s, n, &i, 2, &tm))
			return -1;
		tz = sign * (th * 3600L + tm * 60L);
	}
	if (i != n || M < 1 || M > 12 || D < 1 || D > 31 || h > 23 || m > 59 || sec > 60)
		return -1;
	struct tm t = {.tm_year = Y - 1900, .tm_mon = M - 1, .tm_mday = D, .tm_hour = h, .tm_min = m,
		       .tm_sec = sec};
	time_t epoch = timegm(&t);
	*us = ((int64_t)epoch - tz) * 1000000 + frac;
	return 0;
}

void audit_printable(char *s, size_t cap)
{
	sbx_escape_fit(s, cap);
}

char *audit_printable_take(char *s)
{
	if (!s)
		return NULL;
	char *e = sbx_escape(s);
	if (!e) {
		sbx_escape_fit(s, strlen(s) + 1);
		return s;
	}
	free(s);
	return e;
}
