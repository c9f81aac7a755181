/* audit.h — the audit stream writer (SPEC "Audit stream").
 *
 * Promise: each event is one JSON object on one line (<= AUDIT_MAX_LINE bytes, UTF-8: invalid
 * bytes in strings are replaced by U+FFFD), written with exactly one write(2), carrying
 * v, ts, run, seq, executor, event, src, <event fields>, prev, hash — in that order, hash last.
 * hash = lowercase hex SHA-256 (libsodium) of the line's exact bytes before `,"hash":`; prev = the
 * previous event's hash (64 zeros for seq 0). A failed or short write is returned as -1 and the
 * writer is marked failed: the caller must fail closed (sbxsup run exits 125).
 * Destinations: NULL (no stream: events are still counted), a path (O_APPEND|O_CREAT|O_CLOEXEC,
 * mode 0600), "-" (stderr), "fd:N". The writer's fd is always close-on-exec (so it never leaks
 * into the executor); for "fd:N" a CLOEXEC duplicate is used.
 * Not thread-safe: one writer per run, owned by the supervisor's event loop.
 */
#ifndef SBX_AUDIT_H
#define SBX_AUDIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <cjson/cJSON.h>

#define AUDIT_MAX_LINE (64 * 1024)
#define AUDIT_MAX_EVENT_KINDS 16

struct audit {
	int fd;                      /* -1 when no stream */
	bool failed;
	char run[33];                /* 128-bit random run id, hex */
	char executor[65];
	uint64_t seq;
	char prev[65];
	/* counts by event name, for run.end.counts */
	size_t nkinds;
	char kind[AUDIT_MAX_EVENT_KINDS][32];
	uint64_t count[AUDIT_MAX_EVENT_KINDS];
};

/* Open the destination. Returns 0, or -1 with a message in err. */
int audit_open(struct audit *a, const char *dest, const char *executor, char *err, size_t errlen);
void audit_close(struct audit *a);

/* Start an event: a cJSON object holding the common fields up to `src` (v, ts, run, seq,
 * executor, event, src). Add the event's own fields with cJSON_Add*ToObject, then audit_emit. */
cJSON *audit_event(struct audit *a, const char *event, const char *src);
/* Append prev + hash, write the line, count it, free `ev`. Returns 0 or -1 (write failed; the
 * writer is then failed and every later emit returns -1). With no destination, counts and returns 0. */
int audit_emit(struct audit *a, cJSON *ev);

/* Add a string made safe for the stream: invalid UTF-8 -> U+FFFD, truncated to maxlen bytes. */
cJSON *audit_add_str(cJSON *obj, const char *key, const char *s, size_t maxlen);

/* Counts object {event: n} for run.end. */
cJSON *audit_counts(const struct audit *a);

/* --- helpers shared with the reader (`sbxsup audit verify`) ------------------------------------- */
/* Hex SHA-256 of buf[0..len) into out[65]. */
void audit_sha256_hex(const void *buf, size_t len, char out[65]);
/* For a line (without its '\n'): find the last `,"hash":"` member; on success sets *prefix_len (the
 * bytes that are hashed) and copies the 64 hex digits to hash_out. Returns 0, or -1 if malformed. */
int audit_split_hash(const char *line, size_t len, size_t *prefix_len, char hash_out[65]);
/* RFC 3339 UTC timestamp with microseconds: "2026-11-22T05:07:00.123456Z". */
void audit_timestamp(char out[32]);

#endif
