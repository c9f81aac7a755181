/* audit_model.h — aggregation of audit streams for `sbxsup audit summary`, `report` and `tail`.
 *
 * Promise: lines are fed one at a time (am_add_line); memory grows with the number of runs,
 * executors and distinct event groups, never with the number of lines (groups, timeline points
 * and the breach list are capped per run and overall, and what was left out is counted).
 * Damaged lines are counted, not used.
 * Every security event gets a severity (severity.h): the "sev" the writer stamped, raised to what
 * the current table says if that is higher (a stream never ranks lower than the table would).
 * Repeated events of a run are grouped (same event, op/syscall, subject, access, rule, outcome,
 * comm) with a count and first/last time. "info" events (benign libc behaviour) are counted apart
 * and never as escape attempts.
 * am_finish sorts executors and runs worst first: by their worst severity, then by their counts
 * per severity from critical down to low, then by name / start time; each run's groups worst
 * first, then by count.
 * run.start gives each run what ran: argv, workspace, manifest path + sha256, caller tag, the
 * active layers and, for each layer that was off, the full reason (never cut).
 * net.flow events (the gateway's allowed connections) are not findings: each run keeps "talked
 * to", one entry per host and port with its connections and bytes (at most AM_PEERS_MAX per run,
 * the rest counted), sorted by bytes; the gateway's refusals (net.deny, dns.deny) are findings.
 */
#ifndef SBX_AUDIT_MODEL_H
#define SBX_AUDIT_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "severity.h"

struct am_counts {
	uint64_t events, preload, seccomp, netfilter, landlock, contained, breach, limit, envdrop, lost, other;
	uint64_t gateway;  /* net.deny + dns.deny: the network gateway's refusals */
	uint64_t flows;    /* net.flow: connections the gateway let through (recorded, not attempts) */
	uint64_t names;    /* dns.answer: granted names resolved on the host side for the run (recorded) */
	uint64_t sev[SBX_SEV_CRITICAL + 1]; /* security events by severity ([SBX_SEV_NONE] unused) */
};
/* escape attempts = security events of severity low..critical (info is benign, not counted) */
uint64_t am_attempts(const struct am_counts *c);
/* the worst severity counted, SBX_SEV_NONE if none */
enum sbx_sev am_worst(const struct am_counts *c);
/* -1 if a is worse than b, 1 if better, 0 if equal (worst severity, then counts per severity) */
int am_cmp_counts(const struct am_counts *a, const struct am_counts *b);

/* The layer an event belongs to (timeline rows): index into am_layer_names. */
enum { AM_L_PRELOAD, AM_L_SECCOMP, AM_L_LANDLOCK, AM_L_NETFILTER, AM_L_PROBES, AM_L_LIMITS, AM_L_ENV,
       AM_L_RUN, AM_L__N };
extern const char *const am_layer_names[AM_L__N];
int am_layer_of(const char *event);

#define AM_TEXT 240
struct am_item { /* one notable event (breach list), pre-rendered as text */
	char ts[28];
	char event[32];
	char run[33];
	char executor[65];
	char desc[AM_TEXT];
};

struct am_group { /* repeated events of one run; strings are malloc'd, printable, never NULL */
	uint64_t key, n;
	enum sbx_sev sev;
	int layer;
	char first[28], last[28];
	char *event, *what, *subject, *access, *rule, *outcome, *comm, *sev_id;
};

struct am_point { /* one event on a run's timeline (report) */
	int64_t us;
	uint8_t layer, sev;
};

struct am_exit {
	int64_t code; /* exit status, or the signal number when sig */
	bool sig;
	uint64_t n;
};
#define AM_MAX_EXITS 12

#define AM_PEERS_MAX 256
struct am_peer { /* "talked to": one host and port of a run, from its net.flow events */
	char *host;      /* printable */
	double port;
	uint64_t conns, out, in;
};

struct am_run {
	char id[33];
	uint32_t exec;        /* index into am.execs */
	char executor[65];
	char start[28], end[28];
	bool has_start, has_end, degraded, sandbox_off;
	int64_t exit, sig, duration_ms;
	struct am_counts c;
	/* what ran (run.start); malloc'd, NULL when absent */
	char *argv;           /* shell-quoted words */
	char **args;          /* the words themselves (nargs), printable */
	size_t nargs;
	char **off_name, **off_why; /* the layers that were off and why ("" when no reason) */
	size_t noff;
	char *workspace, *manifest_path, *manifest_sha, *tag, *autonomy;
	char *layers_on;      /* "preload, bwrap, ..." */
	char *off;            /* "bwrap (why); netfilter (why)" for degraded runs, full reasons */
	struct am_group *g;   /* grouped security events */
	size_t ng, gcap;
	uint64_t ungrouped;   /* security events past the group caps (counted in c, not in g) */
	struct am_point *tl;  /* timeline (report only) */
	size_t ntl, tlcap;
	uint64_t tl_dropped;
	struct am_peer *peers;  /* talked to (net.flow), most bytes first after am_finish */
	size_t npeers, pcap;
	uint64_t peers_dropped; /* flows to hosts past AM_PEERS_MAX */
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
	bool want_timeline;   /* keep per-run timeline points (report) */
	size_t tl_max, tl_budget, tl_used;   /* points per run / over all runs */
	size_t g_max, g_budget, g_used;      /* groups per run / over all runs */
	size_t list_max;      /* breaches kept */
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
	struct am_list breaches;
	uint64_t gen;         /* bumped for each line taken (follow mode: "anything new?") */
	char *scratch;        /* the decoded members of the line being taken (grows, never per line) */
	size_t scratch_cap;
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
/* Sort executors, runs and groups (worst first). Run.exec indices are remapped. */
void am_finish(struct am *m);
/* The run's verdict word: "breach", "hostile" (critical contained), "suspicious" (high),
 * "contained" (medium/low), "clean" (nothing, or info only). */
const char *am_verdict(const struct am_run *r);

/* The rule that decided a group: its rule text, or what decided the events that carry none
 * (seccomp.deny, netfilter.deny, landlock.deny, net.deny, dns.deny). Never NULL. */
const char *am_group_rule(const struct am_group *g);
/* The program a run executed, as a reviewer names it: the basename of argv[0], or of the script
 * an interpreter (python3, sh, node, env, ...) was given ("hostile.py"). NULL without argv. */
const char *am_program(const struct am_run *r);

/* The severity of one parsed event line (see the promise): the stamped "sev" raised to the table's.
 * Also the deciding table entry id (*id, may be NULL). SBX_SEV_NONE for other events. */
struct cJSON;
enum sbx_sev am_event_sev(const struct cJSON *ev, const char **id);
/* The same, for a security event audit_line_check accepted (al, a line of len bytes), decoded from
 * the spans the check recorded: the line is not parsed a second time. Decoded members live in
 * *scratch (grown to fit, *cap its size; the caller frees it) until the next call. SBX_SEV_NONE
 * when out of memory. */
struct audit_line;
enum sbx_sev am_line_sev(const struct audit_line *al, size_t len, char **scratch, size_t *cap, const char **id);

#endif
