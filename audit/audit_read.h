/* audit_read.h — streaming reader and schema check for audit files (`sbxsup audit ...`).
 *
 * Promise: audit_reader_next() hands out one line at a time from a file or stdin ("-") with
 * bounded memory: a line longer than AUDIT_MAX_LINE is skipped and reported as damaged, never
 * buffered; a last line without '\n' is returned and flagged. With `follow`, end of file waits
 * for more data (inotify, falling back to polling) until *stop becomes non-zero; a file that
 * shrinks (truncated) is read again from its start.
 * audit_line_check() decides whether one line is a well-formed audit event (SPEC "Audit stream":
 * valid UTF-8, one JSON object passing the strict pre-check of jsonlite.h — so no duplicate key at
 * any depth —, common fields present with the right types in the right order, hash last) and
 * extracts the common fields; it does not check the hash (audit_line_hash_ok does)
 * or the per-run chain (the caller's job, it needs state).
 */
#ifndef SBX_AUDIT_READ_H
#define SBX_AUDIT_READ_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "audit.h"
#include "jsonlite.h"

struct audit_reader {
	const char *name; /* as given ("-" = stdin) */
	int fd;
	bool own_fd, follow, eof;
	int ino_fd;       /* inotify fd in follow mode, -1 if none */
	volatile sig_atomic_t *stop;
	/* follow mode: called each time the reader has caught up and is about to wait */
	void (*on_idle)(void *ctx);
	void *idle_ctx;
	char *buf;
	size_t cap, off, len;
	uint64_t lineno;  /* number of the line last returned (1-based) */
	uint64_t bytes;   /* bytes consumed so far */
	uint64_t pos;     /* file offset of buf[len] (for truncation detection) */
};

int audit_reader_open(struct audit_reader *r, const char *path, bool follow,
		      volatile sig_atomic_t *stop, char *err, size_t errlen);
void audit_reader_close(struct audit_reader *r);
/* 1: a line in *line, *len (without '\n'; *damage NULL, or a static message when the line is
 * damaged: too long — then *len is 0 — or without its final newline); 0: end (or *stop);
 * -1: read error (errno set). */
int audit_reader_next(struct audit_reader *r, const char **line, size_t *len, const char **damage);

/* The common fields of one line. Spans point into the line. */
struct audit_line {
	struct jl_obj obj;
	struct jl_span ts, run, executor, event, src, prev, hash;
	uint64_t seq;
	char run_id[33];  /* run as text */
};

/* Returns NULL if the line is a well-formed event, else a problem (written into msg). With
 * strict, also checks the member order. */
const char *audit_line_check(const char *line, size_t len, struct audit_line *al, bool strict,
			     char *msg, size_t msglen);
/* True if the line's hash member equals SHA-256 of the bytes before `,"hash":`. */
bool audit_line_hash_ok(const char *line, size_t len);

/* Make a decoded string safe for a terminal, in the one quoting style (common/quote.h) without the
 * quotes: controls, C1 and bidi controls, invalid UTF-8 escaped (\n, \033, \u202e, \xff).
 * audit_printable escapes in place into a buffer of cap bytes (cut at an escape boundary);
 * audit_printable_take returns the escaped copy of a malloc'd s and frees s (NULL stays NULL; out
 * of memory: s itself, escaped as far as it fits). */
void audit_printable(char *s, size_t cap);
char *audit_printable_take(char *s);

/* RFC 3339 timestamp (our "ts" format, or a user's --since/--until argument: YYYY-MM-DD, optional
 * [T ]HH:MM[:SS[.frac]], optional Z or +-HH:MM) -> microseconds since the epoch. Returns 0 or -1. */
int audit_parse_time(const char *s, size_t n, int64_t *us);

#endif
