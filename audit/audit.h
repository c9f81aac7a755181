/* audit.h — the audit stream writer (SPEC "Audit stream", docs/audit-keys.md).
 *
 * Promise: each event is one JSON object on one line (<= AUDIT_MAX_LINE bytes, UTF-8: invalid
 * bytes in strings are replaced by U+FFFD), written with exactly one write(2), carrying
 * v, ts, run, seq, executor, event, src, <event fields>, prev, hash — in that order, hash last.
 * hash = with a key (audit_set_key): lowercase hex keyed BLAKE2b-256 with that key (audit_key.h) of the
 * line's exact bytes before `,"hash":`, and run.start carries `key` (the key id); without a key:
 * SHA-256 of the same bytes (unauthenticated, for tests and tools). prev = the previous line's hash
 * (64 zeros for seq 0). seq is assigned when the line is written, so it never has gaps.
 * Every security event (severity.h: sbx_sev_classify != NONE) gets `sev` stamped by the writer.
 * A failed or short write is returned as -1 and the writer is marked failed: the caller must fail
 * closed (sbxsup run exits 125).
 * Flow control (audit_set_flow, off unless asked; `sbxsup run` turns it on — audit_flow.c):
 * consecutive identical security events are coalesced into one line with `count`, `first_ts`,
 * `last_ts`; preload-sourced and kernel-side security events each have their own byte budget,
 * after which one `limit.hit` (limit "audit") is written and the events are only counted (and
 * summarised at run.end) — `info`/`low`/`medium` ones only: `high`, `critical` and `breach` events
 * are written whatever the budget, up to a cap far above any flood (audit_flow.c); run.end gets `audit` {...} and `severity` {...} counters, and
 * `audit_replaced` when the destination is a file. Non-security events are never held or dropped.
 * run.end.counts counts every event seen, including coalesced and budget-suppressed ones.
 * Destinations: NULL (no stream: events are still counted), a path (O_APPEND|O_CREAT|O_CLOEXEC|
 * O_NOFOLLOW, mode 0600), "-" (stderr), "fd:N". The writer's fd is always close-on-exec (so it
 * never leaks into the executor); for "fd:N" a CLOEXEC duplicate is used. `sbxsup run` opens its
 * destination with the stricter audit_dest.h instead.
 * Not thread-safe: one writer per run, owned by the supervisor's event loop.
 */
#ifndef SBX_AUDIT_H
#define SBX_AUDIT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <cjson/cJSON.h>
#include <sodium.h>

#include "audit_key.h"

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
	struct audit_key key;        /* valid when keyed */
	bool keyed;
	crypto_generichash_state mac0; /* keyed BLAKE2b state after the key block: copied per line */
	uint64_t sev_count[6];       /* by enum sbx_sev, events seen */
	uint64_t breaches;           /* events seen with outcome "breach" (the result record's verdict) */
	struct audit_flow *flow;     /* coalescing + budgets (audit_flow.c), NULL when off; owned */
	/* a file destination opened by audit_dest_open: the path and what it named */
	char *path;                  /* owned, NULL when not a file */
	dev_t dev;
	ino_t ino;
};

#define AUDIT_DEFAULT_BUDGET_MB 4
#define AUDIT_COALESCE_MS 500

/* Open the destination. Returns 0, or -1 with a message in err. */
int audit_open(struct audit *a, const char *dest, const char *executor, char *err, size_t errlen);
/* Flush what flow control holds, free everything, close the fd. */
void audit_close(struct audit *a);
/* Authenticate the stream with this key from now on (copied). */
void audit_set_key(struct audit *a, const struct audit_key *k);
/* Turn flow control on: budget_mb per source class (preload / kernel-side), 0 = unbounded.
 * Returns 0 or -1 (no memory). */
int audit_set_flow(struct audit *a, long budget_mb);
/* The cap of never-budgeted (high, critical, breach) lines per source class (audit_flow.c,
 * default 100 000; tests lower it). Call after audit_set_flow. */
void audit_set_urgent_cap(struct audit *a, uint64_t cap);
/* Flow control timer: write a held (coalesced) line older than AUDIT_COALESCE_MS. Returns 0 or -1
 * (write failed). audit_poll_ms: the poll(2) timeout until that is due, -1 when nothing is held. */
int audit_tick(struct audit *a);
int audit_poll_ms(const struct audit *a);

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
