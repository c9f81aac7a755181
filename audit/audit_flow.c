/* audit_flow.c — flow control of the audit stream: coalescing, budgets, summaries (audit.h).
 *
 * Coalescing key: event, src, the program (comm, exe) and the members that say what was tried and
 * what was decided — op, syscall, path, host, addr, port, proto, access, rule, outcome, errno,
 * action, sensor, socket, limit. NOT pid (a fork flood would defeat it; the line keeps the first pid). Only
 * consecutive events coalesce (A A A B A is three lines), so the stream keeps its order; a held
 * line is written when a different event arrives, when any non-security event is written, after
 * AUDIT_COALESCE_MS (audit_tick, or the next event), and before run.end.
 *
 * Budgets: two source classes, preload-sourced ("src":"preload": untrusted, the sandbox writes
 * them) and kernel-side (everything else: probes, seccomp, netfilter, landlock). Each class may
 * write budget bytes of security lines; the first line past it writes `limit.hit` {limit "audit",
 * value (MiB), scope (class), bytes}; later events of that class are counted and kept in a table
 * of at most FLOW_SUM_MAX distinct keys per class (a full table evicts its least severe entry for a
 * more severe one; what falls out is counted in `unsummarised`). At run.end each table entry is
 * written as its first event with `count`, `first_ts`, `last_ts` and `"summary":true`. So preload
 * records can never use up the kernel's budget.
 *
 * Never buried: the budgets and the summary table apply to `info`, `low` and `medium` only. A
 * `high` or `critical` event and every `breach` ("urgent") is written as its own line whatever the
 * budget (identical consecutive ones still coalesce into one line with `count`), up to
 * FLOW_URGENT_CAP lines per class per run — far above any decoy flood an executor makes in a run.
 * Urgent lines do not use the class's budget. Past the cap one `limit.hit` {limit "audit_urgent"}
 * is written at once, and at run.end a second `limit.hit` {limit "audit_urgent", "summary": true}
 * names the objects of the events past the cap (distinct ones, as many as fit in
 * FLOW_OBJ_BYTES) and counts them (`suppressed`, `objects_not_named`). A breach past the cap
 * still counts in run.end's `severity` and `audit.breaches`, which the result record and
 * `audit summary` read.
 */
#include "audit_int.h"
#include "severity.h"

#include <sodium.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define FLOW_SUM_MAX 64
#define FLOW_URGENT_CAP 100000   /* urgent lines per class per run (see above) */
#define FLOW_OBJ_BYTES (32 * 1024) /* object names in the over-cap summary, per class */
#define FLOW_OBJ_MAX 2048          /* distinct objects remembered past the cap, per class */
#define CLS_KERNEL 0
#define CLS_PRELOAD 1

struct flow_item {
	cJSON *ev;                /* the first occurrence (owned) */
	unsigned char key[16];
	uint64_t count;
	char last_ts[32];
	int sev;
	bool urgent;              /* high, critical or breach: never budgeted */
	bool merged;              /* pend: more than one event coalesced into it */
};

struct audit_flow {
	uint64_t budget;          /* bytes per class, 0 = none */
	long budget_mb;
	struct flow_item pend;    /* held line (pend.ev != NULL) */
	int pend_cls;
	struct timespec pend_since;
	uint64_t used[2], suppressed[2], unsummarised[2], lines[2], coalesced;
	bool exhausted[2];
	struct flow_item sum[2][FLOW_SUM_MAX];
	size_t nsum[2];
	/* urgent lines (high, critical, breach): never budgeted, capped */
	uint64_t urgent_cap;
	uint64_t urgent[2], urgent_bytes[2], over[2], over_unnamed[2];
	bool over_hit[2];
	cJSON *over_obj[2];       /* array of the over-cap objects' names (owned) */
	size_t over_obj_bytes[2], nover_key[2];
	unsigned char (*over_key[2])[16];
};

static const char *const KEY_FIELDS[] = {"event", "src", "comm", "exe", "op", "syscall", "path", "path_raced",
					 "host", "addr", "port", "proto", "access", "rule", "outcome",
					 "errno", "action", "sensor",
					 /* kernel: seccomp.deny's socket family/type/protocol and rlimit asked */
					 "socket", "limit", NULL};

struct audit_flow *audit_flow_new(long budget_mb)
{
	struct audit_flow *f = calloc(1, sizeof *f);
	if (!f)
		return NULL;
	f->budget_mb = budget_mb > 0 ? budget_mb : 0;
	f->budget = (uint64_t)f->budget_mb << 20;
	f->urgent_cap = FLOW_URGENT_CAP;
	return f;
}

void audit_flow_free(struct audit_flow *f)
{
	if (!f)
		return;
	cJSON_Delete(f->pend.ev);
	for (int c = 0; c < 2; c++) {
		for (size_t i = 0; i < f->nsum[c]; i++)
			cJSON_Delete(f->sum[c][i].ev);
		cJSON_Delete(f->over_obj[c]);
		free(f->over_key[c]);
	}
	free(f);
}

void audit_flow_set_cap(struct audit_flow *f, uint64_t cap)
{
	f->urgent_cap = cap;
}

static void key_of(const cJSON *ev, unsigned char out[16])
{
	crypto_generichash_state st;
	crypto_generichash_init(&st, NULL, 0, 16);
	for (size_t i = 0; KEY_FIELDS[i]; i++) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(ev, KEY_FIELDS[i]);
		char num[32];
		const char *s = "";
		size_t n = 0;
		if (cJSON_IsString(v) && v->valuestring) {
			s = v->valuestring;
			n = strlen(s) + 1; /* the NUL separates members */
		} else if (cJSON_IsNumber(v)) {
			n = (size_t)snprintf(num, sizeof num, "#%.17g", v->valuedouble) + 1;
			s = num;
		} else {
			s = "\x01"; /* absent or another type */
			n = 2;
		}
		crypto_generichash_update(&st, (const unsigned char *)s, n);
	}
	crypto_generichash_final(&st, out, 16);
}

static const char *ts_of(const cJSON *ev)
{
	const cJSON *t = cJSON_GetObjectItemCaseSensitive(ev, "ts");
	return cJSON_IsString(t) && t->valuestring ? t->valuestring : "";
}

static int class_of(const cJSON *ev)
{
	const cJSON *s = cJSON_GetObjectItemCaseSensitive(ev, "src");
	/* the gateway's events are driven by what the executor sends (names it makes up, connections it
	 * opens): they share the untrusted class's budget, never the kernel's */
	return cJSON_IsString(s) && s->valuestring &&
			       (strcmp(s->valuestring, "preload") == 0 || strcmp(s->valuestring, "gateway") == 0)
		       ? CLS_PRELOAD
		       : CLS_KERNEL;
}

static long ms_since(const struct timespec *t0)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) * 1000 + (t.tv_nsec - t0->tv_nsec) / 1000000;
}

/* How many occurrences an event stands for: its own `count` (a sensor's summary, e.g. the probes'
 * ring overflow), else 1. */
static uint64_t weight_of(const cJSON *ev)
{
	const cJSON *c = cJSON_GetObjectItemCaseSensitive(ev, "count");
	return cJSON_IsNumber(c) && c->valuedouble >= 1 ? (uint64_t)c->valuedouble : 1;
}

/* count, first_ts, last_ts on an event that stands for `count` occurrences (replacing what a
 * sensor's summary carried: its count is part of it->count). */
static int add_counts(cJSON *ev, const struct flow_item *it)
{
	char first[32];
	const cJSON *ft = cJSON_GetObjectItemCaseSensitive(ev, "first_ts");
	snprintf(first, sizeof first, "%s", cJSON_IsString(ft) ? ft->valuestring : ts_of(ev));
	cJSON_DeleteItemFromObjectCaseSensitive(ev, "count");
	cJSON_DeleteItemFromObjectCaseSensitive(ev, "first_ts");
	cJSON_DeleteItemFromObjectCaseSensitive(ev, "last_ts");
	if (!cJSON_AddNumberToObject(ev, "count", (double)it->count) ||
	    !cJSON_AddStringToObject(ev, "first_ts", first) ||
	    !cJSON_AddStringToObject(ev, "last_ts", it->last_ts[0] ? it->last_ts : first))
		return -1;
	return 0;
}

static const char *const CLS_NAME[2] = {"kernel", "preload"};

static int write_limit_hit(struct audit *a, int cls)
{
	struct audit_flow *f = a->flow;
	cJSON *ev = audit_event(a, "limit.hit", "kernel");
	if (!ev || !cJSON_AddStringToObject(ev, "limit", "audit") ||
	    !cJSON_AddNumberToObject(ev, "value", (double)f->budget_mb) ||
	    !cJSON_AddStringToObject(ev, "scope", CLS_NAME[cls]) ||
	    !cJSON_AddNumberToObject(ev, "bytes", (double)f->used[cls])) {
		cJSON_Delete(ev);
		a->failed = true;
		return -1;
	}
	return audit_write_event(a, ev, NULL);
}

int audit_flow_flush(struct audit *a)
{
	struct audit_flow *f = a->flow;
	if (!f->pend.ev)
		return 0;
	cJSON *ev = f->pend.ev;
	f->pend.ev = NULL;
	int cls = f->pend_cls;
	if (f->pend.merged && add_counts(ev, &f->pend) < 0) {
		cJSON_Delete(ev);
		a->failed = true;
		return -1;
	}
	size_t bytes = 0;
	if (audit_write_event(a, ev, &bytes) < 0)
		return -1;
	f->lines[cls]++;
	if (f->pend.urgent) {           /* never budgeted (capped when held: audit_flow_security) */
		f->urgent[cls]++;
		f->urgent_bytes[cls] += bytes;
		return 0;
	}
	f->used[cls] += bytes;
	if (f->budget && !f->exhausted[cls] && f->used[cls] >= f->budget) {
		f->exhausted[cls] = true;
		return write_limit_hit(a, cls);
	}
	return 0;
}

/* Keep a budget-suppressed event in its class's table. Takes ev. */
static int summarise(struct audit_flow *f, int cls, cJSON *ev, const unsigned char key[16], int sev)
{
	f->suppressed[cls]++;
	struct flow_item *tab = f->sum[cls];
	for (size_t i = 0; i < f->nsum[cls]; i++)
		if (memcmp(tab[i].key, key, 16) == 0) {
			tab[i].count += weight_of(ev);
			snprintf(tab[i].last_ts, sizeof tab[i].last_ts, "%s", ts_of(ev));
			cJSON_Delete(ev);
			return 0;
		}
	size_t slot = f->nsum[cls];
	if (slot == FLOW_SUM_MAX) {
		size_t low = 0;
		for (size_t i = 1; i < FLOW_SUM_MAX; i++)
			if (tab[i].sev < tab[low].sev)
				low = i;
		if (tab[low].sev >= sev) {
			f->unsummarised[cls] += weight_of(ev);
			cJSON_Delete(ev);
			return 0;
		}
		f->unsummarised[cls] += tab[low].count;
		cJSON_Delete(tab[low].ev);
		slot = low;
	} else {
		f->nsum[cls]++;
	}
	tab[slot] = (struct flow_item){.ev = ev, .count = weight_of(ev), .sev = sev};
	memcpy(tab[slot].key, key, 16);
	snprintf(tab[slot].last_ts, sizeof tab[slot].last_ts, "%s", ts_of(ev));
	return 0;
}

static bool is_urgent(const cJSON *ev, int sev)
{
	if (sev >= SBX_SEV_HIGH)
		return true;
	const cJSON *oc = cJSON_GetObjectItemCaseSensitive(ev, "outcome");
	return cJSON_IsString(oc) && oc->valuestring && strcmp(oc->valuestring, "breach") == 0;
}

/* The object an event names, for the over-cap summary: path, host, addr:port, else the call. */
static void object_of(const cJSON *ev, char *out, size_t outlen)
{
	static const char *const names[] = {"path", "host", "syscall", "op", "event", NULL};
	const cJSON *addr = cJSON_GetObjectItemCaseSensitive(ev, "addr");
	const cJSON *port = cJSON_GetObjectItemCaseSensitive(ev, "port");
	const cJSON *path = cJSON_GetObjectItemCaseSensitive(ev, "path");
	if (!cJSON_IsString(path) && cJSON_IsString(addr) && addr->valuestring) {
		if (cJSON_IsNumber(port))
			snprintf(out, outlen, "%s:%.0f", addr->valuestring, port->valuedouble);
		else
			snprintf(out, outlen, "%s", addr->valuestring);
		return;
	}
	for (size_t i = 0; names[i]; i++) {
		const cJSON *v = cJSON_GetObjectItemCaseSensitive(ev, names[i]);
		if (cJSON_IsString(v) && v->valuestring && v->valuestring[0]) {
			snprintf(out, outlen, "%s", v->valuestring);
			return;
		}
	}
	snprintf(out, outlen, "?");
}

static int write_urgent_hit(struct audit *a, int cls, bool summary)
{
	struct audit_flow *f = a->flow;
	cJSON *ev = audit_event(a, "limit.hit", "kernel");
	if (!ev || !cJSON_AddStringToObject(ev, "limit", "audit_urgent") ||
	    !cJSON_AddNumberToObject(ev, "value", (double)f->urgent_cap) ||
	    !cJSON_AddStringToObject(ev, "scope", CLS_NAME[cls]) ||
	    !cJSON_AddNumberToObject(ev, "lines", (double)f->urgent[cls])) {
		cJSON_Delete(ev);
		a->failed = true;
		return -1;
	}
	if (summary) {
		cJSON *objs = f->over_obj[cls] ? f->over_obj[cls] : cJSON_CreateArray();
		f->over_obj[cls] = NULL;
		if (!objs || !cJSON_AddItemToObject(ev, "objects", objs) ||
		    !cJSON_AddTrueToObject(ev, "summary") ||
		    !cJSON_AddNumberToObject(ev, "suppressed", (double)f->over[cls]) ||
		    !cJSON_AddNumberToObject(ev, "objects_not_named", (double)f->over_unnamed[cls])) {
			cJSON_Delete(ev);
			a->failed = true;
			return -1;
		}
	}
	return audit_write_event(a, ev, NULL);
}

/* An urgent event past the cap: counted, its object named in the run.end summary while it fits.
 * Takes ev. */
static int over_cap(struct audit *a, int cls, cJSON *ev)
{
	struct audit_flow *f = a->flow;
	f->over[cls] += weight_of(ev);
	char obj[1024];
	object_of(ev, obj, sizeof obj);
	cJSON_Delete(ev);
	if (!f->over_hit[cls]) {
		f->over_hit[cls] = true;
		if (write_urgent_hit(a, cls, false) < 0)
			return -1;
	}
	unsigned char k[16];
	crypto_generichash(k, sizeof k, (const unsigned char *)obj, strlen(obj), NULL, 0);
	for (size_t i = 0; i < f->nover_key[cls]; i++)
		if (memcmp(f->over_key[cls][i], k, 16) == 0)
			return 0;                   /* named already */
	size_t n = strlen(obj) + 4;
	if (f->nover_key[cls] >= FLOW_OBJ_MAX || f->over_obj_bytes[cls] + n > FLOW_OBJ_BYTES) {
		f->over_unnamed[cls]++;
		return 0;
	}
	if (!f->over_key[cls] && !(f->over_key[cls] = calloc(FLOW_OBJ_MAX, 16)))
		goto nomem;
	if (!f->over_obj[cls] && !(f->over_obj[cls] = cJSON_CreateArray()))
		goto nomem;
	cJSON *s = cJSON_CreateString(obj);
	if (!s || !cJSON_AddItemToArray(f->over_obj[cls], s)) {
		cJSON_Delete(s);
		goto nomem;
	}
	memcpy(f->over_key[cls][f->nover_key[cls]++], k, 16);
	f->over_obj_bytes[cls] += n;
	return 0;
nomem:
	a->failed = true;
	return -1;
}

int audit_flow_security(struct audit *a, cJSON *ev, int sev)
{
	struct audit_flow *f = a->flow;
	unsigned char key[16];
	key_of(ev, key);
	int cls = class_of(ev);
	bool urgent = is_urgent(ev, sev);
	if (f->pend.ev && memcmp(f->pend.key, key, 16) == 0 &&
	    ms_since(&f->pend_since) < AUDIT_COALESCE_MS) {
		f->pend.count += weight_of(ev);
		f->pend.merged = true;
		f->coalesced++;
		snprintf(f->pend.last_ts, sizeof f->pend.last_ts, "%s", ts_of(ev));
		cJSON_Delete(ev);
		return 0;
	}
	if (audit_flow_flush(a) < 0) {
		cJSON_Delete(ev);
		return -1;
	}
	if (urgent && f->urgent[cls] >= f->urgent_cap)
		return over_cap(a, cls, ev);
	if (!urgent && f->exhausted[cls])
		return summarise(f, cls, ev, key, sev);
	f->pend = (struct flow_item){.ev = ev, .count = weight_of(ev), .sev = sev, .urgent = urgent,
				     .merged = false};
	memcpy(f->pend.key, key, 16);
	f->pend_cls = cls;
	clock_gettime(CLOCK_MONOTONIC, &f->pend_since);
	return 0;
}

int audit_flow_tick(struct audit *a)
{
	struct audit_flow *f = a->flow;
	if (f->pend.ev && ms_since(&f->pend_since) >= AUDIT_COALESCE_MS)
		return audit_flow_flush(a);
	return 0;
}

int audit_flow_poll_ms(const struct audit *a)
{
	const struct audit_flow *f = a->flow;
	if (!f->pend.ev)
		return -1;
	long left = AUDIT_COALESCE_MS - ms_since(&f->pend_since);
	return left < 0 ? 0 : (int)left;
}

int audit_flow_end(struct audit *a, cJSON *run_end)
{
	struct audit_flow *f = a->flow;
	if (audit_flow_flush(a) < 0)
		return -1;
	for (int c = 0; c < 2; c++) {
		for (size_t i = 0; i < f->nsum[c]; i++) {
			struct flow_item *it = &f->sum[c][i];
			cJSON *ev = it->ev;
			it->ev = NULL;
			if (add_counts(ev, it) < 0 || (!cJSON_GetObjectItemCaseSensitive(ev, "summary") &&
							!cJSON_AddTrueToObject(ev, "summary"))) {
				cJSON_Delete(ev);
				a->failed = true;
				return -1;
			}
			if (audit_write_event(a, ev, NULL) < 0)
				return -1;
		}
		f->nsum[c] = 0;
		if (f->over[c] && write_urgent_hit(a, c, true) < 0)
			return -1;
	}
	cJSON *o = cJSON_AddObjectToObject(run_end, "audit");
	cJSON *sev = cJSON_AddObjectToObject(run_end, "severity");
	if (!o || !sev)
		return -1;
	cJSON_AddNumberToObject(o, "budget_mb", (double)f->budget_mb);
	cJSON_AddNumberToObject(o, "coalesced", (double)f->coalesced);
	cJSON_AddNumberToObject(o, "urgent_cap", (double)f->urgent_cap);
	cJSON_AddNumberToObject(o, "breaches", (double)a->breaches);
	for (int c = 0; c < 2; c++) {
		cJSON *k = cJSON_AddObjectToObject(o, CLS_NAME[c]);
		if (!k)
			return -1;
		cJSON_AddNumberToObject(k, "lines", (double)f->lines[c]);
		cJSON_AddNumberToObject(k, "bytes", (double)f->used[c]);
		cJSON_AddBoolToObject(k, "budget_hit", f->exhausted[c]);
		cJSON_AddNumberToObject(k, "suppressed", (double)f->suppressed[c]);
		cJSON_AddNumberToObject(k, "unsummarised", (double)f->unsummarised[c]);
		cJSON_AddNumberToObject(k, "urgent_lines", (double)f->urgent[c]);
		cJSON_AddNumberToObject(k, "urgent_bytes", (double)f->urgent_bytes[c]);
		cJSON_AddNumberToObject(k, "urgent_suppressed", (double)f->over[c]);
	}
	for (int s = SBX_SEV_INFO; s <= SBX_SEV_CRITICAL; s++)
		cJSON_AddNumberToObject(sev, sbx_sev_name((enum sbx_sev)s), (double)a->sev_count[s]);
	return 0;
}
