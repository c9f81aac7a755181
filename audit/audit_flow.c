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
 * records can never use up the kernel's budget, and a breach is visible at least as a summary line.
 */
#include "audit_int.h"
#include "severity.h"

#include <sodium.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define FLOW_SUM_MAX 64
#define CLS_KERNEL 0
#define CLS_PRELOAD 1

struct flow_item {
	cJSON *ev;                /* the first occurrence (owned) */
	unsigned char key[16];
	uint64_t count;
	char last_ts[32];
	int sev;
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
};

static const char *const KEY_FIELDS[] = {"event", "src", "comm", "exe", "op", "syscall", "path",
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
	return f;
}

void audit_flow_free(struct audit_flow *f)
{
	if (!f)
		return;
	cJSON_Delete(f->pend.ev);
	for (int c = 0; c < 2; c++)
		for (size_t i = 0; i < f->nsum[c]; i++)
			cJSON_Delete(f->sum[c][i].ev);
	free(f);
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

/* count, first_ts, last_ts on an event that stands for `count` occurrences. */
static int add_counts(cJSON *ev, const struct flow_item *it)
{
	char first[32];
	snprintf(first, sizeof first, "%s", ts_of(ev));
	if (!cJSON_AddNumberToObject(ev, "count", (double)it->count) ||
	    !cJSON_AddStringToObject(ev, "first_ts", first) ||
	    !cJSON_AddStringToObject(ev, "last_ts", it->last_ts[0] ? it->last_ts : first))
		return -1;
	return 0;
}

static int write_limit_hit(struct audit *a, int cls)
{
	struct audit_flow *f = a->flow;
	cJSON *ev = audit_event(a, "limit.hit", "kernel");
	if (!ev || !cJSON_AddStringToObject(ev, "limit", "audit") ||
	    !cJSON_AddNumberToObject(ev, "value", (double)f->budget_mb) ||
	    !cJSON_AddStringToObject(ev, "scope", cls == CLS_PRELOAD ? "preload" : "kernel") ||
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
	if (f->pend.count > 1 && add_counts(ev, &f->pend) < 0) {
		cJSON_Delete(ev);
		a->failed = true;
		return -1;
	}
	size_t bytes = 0;
	if (audit_write_event(a, ev, &bytes) < 0)
		return -1;
	f->used[cls] += bytes;
	f->lines[cls]++;
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
			tab[i].count++;
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
			f->unsummarised[cls]++;
			cJSON_Delete(ev);
			return 0;
		}
		f->unsummarised[cls] += tab[low].count;
		cJSON_Delete(tab[low].ev);
		slot = low;
	} else {
		f->nsum[cls]++;
	}
	tab[slot] = (struct flow_item){.ev = ev, .count = 1, .sev = sev};
	memcpy(tab[slot].key, key, 16);
	snprintf(tab[slot].last_ts, sizeof tab[slot].last_ts, "%s", ts_of(ev));
	return 0;
}

int audit_flow_security(struct audit *a, cJSON *ev, int sev)
{
	struct audit_flow *f = a->flow;
	unsigned char key[16];
	key_of(ev, key);
	int cls = class_of(ev);
	if (f->pend.ev && memcmp(f->pend.key, key, 16) == 0 &&
	    ms_since(&f->pend_since) < AUDIT_COALESCE_MS) {
		f->pend.count++;
		f->coalesced++;
		snprintf(f->pend.last_ts, sizeof f->pend.last_ts, "%s", ts_of(ev));
		cJSON_Delete(ev);
		return 0;
	}
	if (audit_flow_flush(a) < 0) {
		cJSON_Delete(ev);
		return -1;
	}
	if (f->exhausted[cls])
		return summarise(f, cls, ev, key, sev);
	f->pend = (struct flow_item){.ev = ev, .count = 1, .sev = sev};
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
			if (add_counts(ev, it) < 0 || !cJSON_AddTrueToObject(ev, "summary")) {
				cJSON_Delete(ev);
				a->failed = true;
				return -1;
			}
			if (audit_write_event(a, ev, NULL) < 0)
				return -1;
		}
		f->nsum[c] = 0;
	}
	cJSON *o = cJSON_AddObjectToObject(run_end, "audit");
	cJSON *sev = cJSON_AddObjectToObject(run_end, "severity");
	if (!o || !sev)
		return -1;
	cJSON_AddNumberToObject(o, "budget_mb", (double)f->budget_mb);
	cJSON_AddNumberToObject(o, "coalesced", (double)f->coalesced);
	static const char *const cname[2] = {"kernel", "preload"};
	for (int c = 0; c < 2; c++) {
		cJSON *k = cJSON_AddObjectToObject(o, cname[c]);
		if (!k)
			return -1;
		cJSON_AddNumberToObject(k, "lines", (double)f->lines[c]);
		cJSON_AddNumberToObject(k, "bytes", (double)f->used[c]);
		cJSON_AddBoolToObject(k, "budget_hit", f->exhausted[c]);
		cJSON_AddNumberToObject(k, "suppressed", (double)f->suppressed[c]);
		cJSON_AddNumberToObject(k, "unsummarised", (double)f->unsummarised[c]);
	}
	for (int s = SBX_SEV_INFO; s <= SBX_SEV_CRITICAL; s++)
		cJSON_AddNumberToObject(sev, sbx_sev_name((enum sbx_sev)s), (double)a->sev_count[s]);
	return 0;
}
