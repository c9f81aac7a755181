/* audit_model.h — aggregation of audit streams for `sbxsup audit summary` and `report`.
 *
 * Promise: lines are fed one at a time (am_add_line); memory grows with the number of runs and
 * executors, never with the number of lines (per-run timelines and the global breach/attempt
 * lists are capped, with the number left out counted). Damaged lines are counted, not used.
 * am_finish sorts executors and runs most hostile first: breaches, then escape attempts
 * (every denial and contained kernel violation), then name / start time.
 */
#ifndef SBX_AUDIT_MODEL_H
#define SBX_AUDIT_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct am_counts {
	uint64_t events, preload, seccomp, netfilter, contained, breach, limit, envdrop, lost, other;
};
/* attempts = every denial or violation a layer reported (breaches included) */
uint64_t am_attempts(const struct am_counts *c);

#define AM_TEXT 240
struct am_item { /* one notable event, pre-rendered as text */
	char ts[28];
	char event[32];
	char run[33];
	char executor[65];
	char desc[AM_TEXT];
};

struct am_exit {
	int64_t code; /* exit status, or the signal number when sig */
	bool sig;
	uint64_t n;
};
#define AM_MAX_EXITS 12

struct am_run {
	char id[33];
	uint32_t exec;        /* index into am.execs (before sorting: see exec_name) */
	char executor[65];
	char start[28], end[28];
	bool has_start, has_end, degraded, sandbox_off;
	int64_t exit, sig, duration_ms;
	struct am_counts c;
	char off[AM_TEXT];    /* "bwrap (why); netfilter (why)" for degraded runs */
	char autonomy[16];
	struct am_item *tl;   /* timeline (report only) */
	size_t ntl, tl_dropped;
};

struct am_exec {
	char name[65];
	uint64_t runs, degraded, incomplete;
	struct am_counts c;
	struct am_exit exits[AM_MAX_EXITS];
	size_t nexits;
	uint64_t exits_other;
};

struct am_list {
	struct am_item *v;
	size_t n, cap, dropped;
};

struct am {
	bool want_timeline;   /* keep per-run timelines (report) */
	size_t tl_max;        /* per run */
	size_t tl_budget, tl_used; /* timeline items over all runs (bounds the report's memory) */
	size_t list_max;      /* breaches / attempts kept */
	uint64_t files, lines, bad_lines;
	struct am_counts total;
	struct am_run *runs;
	size_t nruns, rcap;
	uint32_t *ridx;       /* open addressing: run index + 1, 0 = empty */
	size_t ridx_cap;
	struct am_exec *execs;
	size_t nexecs, ecap;
	uint32_t *eidx;
	size_t eidx_cap;
	struct am_list breaches, attempts;
	uint64_t gen;         /* bumped for each line taken (follow mode: "anything new?") */
};

void am_init(struct am *m, bool want_timeline);
void am_free(struct am *m);
/* Returns 0 (taken), 1 (damaged line, counted in bad_lines), -1 (out of memory). */
int am_add_line(struct am *m, const char *line, size_t len);
void am_damaged(struct am *m); /* a line the reader already found damaged */
struct audit_reader;
/* Feeds every line of the open reader r into m (one more file in m->files; lines the reader found
 * damaged go to am_damaged). Returns 0 at the end of the stream, 1 on a read error (errno set,
 * what was read before it is kept), -1 out of memory. The reader stays open. */
int am_read(struct am *m, struct audit_reader *r);
/* Sort executors and runs (most hostile first). Run.exec indices are remapped. */
void am_finish(struct am *m);

#endif
