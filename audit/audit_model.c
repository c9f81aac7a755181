/* audit_model.c — aggregation of audit streams (contract: audit_model.h). */
#include "audit_model.h"
#include "audit_read.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

uint64_t am_attempts(const struct am_counts *c)
{
	return c->preload + c->seccomp + c->netfilter + c->contained + c->breach;
}

void am_init(struct am *m, bool want_timeline)
{
	memset(m, 0, sizeof *m);
	m->want_timeline = want_timeline;
	m->tl_max = 200;
	m->tl_budget = 50000;
	m->list_max = 1000;
}

void am_free(struct am *m)
{
	for (size_t i = 0; i < m->nruns; i++)
		free(m->runs[i].tl);
	free(m->runs);
	free(m->ridx);
	free(m->execs);
	free(m->eidx);
	free(m->breaches.v);
	free(m->attempts.v);
	memset(m, 0, sizeof *m);
}

static uint64_t fnv(const char *s, size_t n)
{
	uint64_t h = 1469598103934665603ULL;
	for (size_t i = 0; i < n; i++)
		h = (h ^ (unsigned char)s[i]) * 1099511628211ULL;
	return h;
}

/* Generic open-addressing table of uint32 (index+1). key_of(i) returns the key of entry i. */
static int rehash(uint32_t **tab, size_t *cap, size_t n, const char *(*key_of)(void *, uint32_t),
		  void *ctx)
{
	size_t nc = *cap ? *cap * 2 : 1024;
	uint32_t *t = calloc(nc, sizeof *t);
	if (!t)
		return -1;
	for (uint32_t i = 0; i < n; i++) {
		const char *k = key_of(ctx, i);
		size_t h = (size_t)fnv(k, strlen(k)) & (nc - 1);
		while (t[h])
			h = (h + 1) & (nc - 1);
		t[h] = i + 1;
	}
	free(*tab);
	*tab = t;
	*cap = nc;
	return 0;
}

static const char *run_key(void *ctx, uint32_t i) { return ((struct am *)ctx)->runs[i].id; }
static const char *exec_key(void *ctx, uint32_t i) { return ((struct am *)ctx)->execs[i].name; }

static struct am_exec *find_exec(struct am *m, const char *name, uint32_t *idx)
{
	if (m->eidx_cap == 0 && rehash(&m->eidx, &m->eidx_cap, 0, exec_key, m) < 0)
		return NULL;
	size_t h = (size_t)fnv(name, strlen(name)) & (m->eidx_cap - 1);
	while (m->eidx[h]) {
		uint32_t i = m->eidx[h] - 1;
		if (strcmp(m->execs[i].name, name) == 0) {
			*idx = i;
			return &m->execs[i];
		}
		h = (h + 1) & (m->eidx_cap - 1);
	}
	if (m->nexecs == m->ecap) {
		size_t nc = m->ecap ? m->ecap * 2 : 64;
		struct am_exec *e = realloc(m->execs, nc * sizeof *e);
		if (!e)
			return NULL;
		m->execs = e;
		m->ecap = nc;
	}
	struct am_exec *e = &m->execs[m->nexecs];
	memset(e, 0, sizeof *e);
	snprintf(e->name, sizeof e->name, "%s", name);
	m->eidx[h] = (uint32_t)m->nexecs + 1;
	*idx = (uint32_t)m->nexecs++;
	if (m->nexecs * 2 > m->eidx_cap && rehash(&m->eidx, &m->eidx_cap, m->nexecs, exec_key, m) < 0)
		return NULL;
	return e;
}

static struct am_run *find_run(struct am *m, const char *id, const char *executor)
{
	if (m->ridx_cap == 0 && rehash(&m->ridx, &m->ridx_cap, 0, run_key, m) < 0)
		return NULL;
	size_t h = (size_t)fnv(id, 32) & (m->ridx_cap - 1);
	while (m->ridx[h]) {
		uint32_t i = m->ridx[h] - 1;
		if (memcmp(m->runs[i].id, id, 32) == 0)
			return &m->runs[i];
		h = (h + 1) & (m->ridx_cap - 1);
	}
	uint32_t ei;
	struct am_exec *e = find_exec(m, executor, &ei);
	if (!e)
		return NULL;
	if (m->nruns == m->rcap) {
		size_t nc = m->rcap ? m->rcap * 2 : 256;
		struct am_run *r = realloc(m->runs, nc * sizeof *r);
		if (!r)
			return NULL;
		m->runs = r;
		m->rcap = nc;
	}
	struct am_run *r = &m->runs[m->nruns];
	memset(r, 0, sizeof *r);
	memcpy(r->id, id, 33);
	snprintf(r->executor, sizeof r->executor, "%s", executor);
	r->exec = ei;
	e->runs++;
	m->ridx[h] = (uint32_t)m->nruns + 1;
	m->nruns++;
	if (m->nruns * 2 > m->ridx_cap && rehash(&m->ridx, &m->ridx_cap, m->nruns, run_key, m) < 0)
		return NULL;
	return &m->runs[m->nruns - 1];
}

static bool is_common_key(const struct jl_span *k)
{
	static const char *const c[] = {"v", "ts", "run", "seq", "executor", "event", "src", "prev", "hash"};
	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++)
		if (jl_key_eq(k, c[i]))
			return true;
	return false;
}

/* "k=v k=v ..." from the event's own scalar members */
static void describe(const struct jl_obj *o, char *out, size_t outlen)
{
	size_t p = 0;
	out[0] = '\0';
	for (size_t i = 0; i < o->n && p + 1 < outlen; i++) {
		const struct jl_member *mb = &o->m[i];
		if (is_common_key(&mb->key) || mb->val.type == JL_OBJ || mb->val.type == JL_ARR)
			continue;
		char val[96];
		if (mb->val.type == JL_STR)
			jl_str(&mb->val, val, sizeof val);
		else
			snprintf(val, sizeof val, "%.*s", (int)(mb->val.n > 40 ? 40 : mb->val.n), mb->val.p);
		int w = snprintf(out + p, outlen - p, "%s%.*s=%s", p ? " " : "",
				 (int)(mb->key.n > 32 ? 32 : mb->key.n), mb->key.p, val);
		if (w < 0)
			break;
		p += (size_t)w;
		if (p >= outlen)
			p = outlen - 1;
	}
}

static void fill_item(struct am_item *it, const struct audit_line *al, const char *executor,
		      const char *event)
{
	memcpy(it->ts, al->ts.p, al->ts.n < sizeof it->ts ? al->ts.n : sizeof it->ts - 1);
	it->ts[al->ts.n < sizeof it->ts ? al->ts.n : sizeof it->ts - 1] = '\0';
	snprintf(it->event, sizeof it->event, "%s", event);
	memcpy(it->run, al->run_id, 33);
	snprintf(it->executor, sizeof it->executor, "%s", executor);
	describe(&al->obj, it->desc, sizeof it->desc);
	audit_printable(it->desc);
}

static int list_add(struct am_list *l, size_t max, const struct audit_line *al, const char *executor,
		    const char *event)
{
	if (l->n >= max) {
		l->dropped++;
		return 0;
	}
	if (l->n == l->cap) {
		size_t nc = l->cap ? l->cap * 2 : 32;
		struct am_item *v = realloc(l->v, nc * sizeof *v);
		if (!v)
			return -1;
		l->v = v;
		l->cap = nc;
	}
	fill_item(&l->v[l->n++], al, executor, event);
	return 0;
}

static int timeline_add(struct am *m, struct am_run *r, const struct audit_line *al, const char *event)
{
	if (r->ntl >= m->tl_max || m->tl_used >= m->tl_budget) {
		r->tl_dropped++;
		return 0;
	}
	if (!r->tl) {
		r->tl = malloc(m->tl_max * sizeof *r->tl);
		if (!r->tl)
			return -1;
	}
	fill_item(&r->tl[r->ntl++], al, r->executor, event);
	m->tl_used++;
	return 0;
}

static void count_exit(struct am_exec *e, int64_t code, bool sig)
{
	for (size_t i = 0; i < e->nexits; i++)
		if (e->exits[i].code == code && e->exits[i].sig == sig) {
			e->exits[i].n++;
			return;
		}
	if (e->nexits == AM_MAX_EXITS) {
		e->exits_other++;
		return;
	}
	e->exits[e->nexits++] = (struct am_exit){.code = code, .sig = sig, .n = 1};
}

static void run_start(struct am_run *r, const struct audit_line *al)
{
	r->has_start = true;
	const struct jl_obj *o = &al->obj;
	jl_str(jl_get(o, "autonomy"), r->autonomy, sizeof r->autonomy);
	audit_printable(r->autonomy);
	const struct jl_span *layers = jl_get(o, "layers"), *why = jl_get(o, "why");
	struct jl_obj lo, wo;
	bool have_why = why && why->type == JL_OBJ && jl_object(why->p, why->n, &wo, NULL, NULL) == 0;
	if (!layers || layers->type != JL_OBJ || jl_object(layers->p, layers->n, &lo, NULL, NULL) < 0)
		return;
	size_t p = 0, nlayers = 0, noff = 0;
	for (size_t i = 0; i < lo.n; i++) {
		nlayers++;
		if (lo.m[i].val.type != JL_FALSE)
			continue;
		noff++;
		r->degraded = true;
		char name[32], reason[96] = "";
		snprintf(name, sizeof name, "%.*s", (int)(lo.m[i].key.n > 31 ? 31 : lo.m[i].key.n), lo.m[i].key.p);
		if (have_why)
			jl_str(jl_get(&wo, name), reason, sizeof reason);
		audit_printable(reason);
		audit_printable(name);
		if (p + 1 < sizeof r->off) {
			int w = snprintf(r->off + p, sizeof r->off - p, "%s%s%s%s%s", p ? "; " : "", name,
					 reason[0] ? " (" : "", reason, reason[0] ? ")" : "");
			if (w > 0)
				p += (size_t)w;
			if (p >= sizeof r->off)
				p = sizeof r->off - 1;
		}
	}
	r->sandbox_off = nlayers > 0 && noff == nlayers;
}

static void run_end(struct am *m, struct am_run *r, struct am_exec *e, const struct audit_line *al)
{
	const struct jl_obj *o = &al->obj;
	r->has_end = true;
	snprintf(r->end, sizeof r->end, "%.*s", (int)al->ts.n, al->ts.p);
	int64_t v;
	r->exit = jl_i64(jl_get(o, "exit"), &v) == 0 ? v : -1;
	r->sig = jl_i64(jl_get(o, "signal"), &v) == 0 ? v : 0;
	r->duration_ms = jl_i64(jl_get(o, "duration_ms"), &v) == 0 ? v : -1;
	uint64_t lost;
	if (jl_u64(jl_get(o, "lost"), &lost) == 0) {
		r->c.lost += lost;
		e->c.lost += lost;
		m->total.lost += lost;
	}
	if (r->sig > 0)
		count_exit(e, r->sig, true);
	else
		count_exit(e, r->exit, false);
}

int am_read(struct am *m, struct audit_reader *r)
{
	const char *line, *damage;
	size_t len;
	int n;
	m->files++;
	while ((n = audit_reader_next(r, &line, &len, &damage)) == 1) {
		if (damage) { /* an incomplete last line is damaged even if it parses */
			am_damaged(m);
			continue;
		}
		if (am_add_line(m, line, len) < 0)
			return -1;
	}
	return n < 0 ? 1 : 0;
}

void am_damaged(struct am *m)
{
	m->lines++;
	m->bad_lines++;
}

int am_add_line(struct am *m, const char *line, size_t len)
{
	struct audit_line al;
	char msg[160];
	m->lines++;
	if (audit_line_check(line, len, &al, false, msg, sizeof msg)) {
		m->bad_lines++;
		return 1;
	}
	m->gen++;
	char executor[65], event[32];
	jl_str(&al.executor, executor, sizeof executor);
	jl_str(&al.event, event, sizeof event);
	audit_printable(executor);
	audit_printable(event);
	struct am_run *r = find_run(m, al.run_id, executor);
	if (!r)
		return -1;
	struct am_exec *e = &m->execs[r->exec];
	if (!r->start[0] || (al.ts.n == 27 && memcmp(al.ts.p, r->start, 27) < 0))
		snprintf(r->start, sizeof r->start, "%.*s", (int)al.ts.n, al.ts.p);
	uint64_t *cr = NULL, *ce = NULL, *ct = NULL;
	bool breach = false, attempt = false;
#define C(f) (cr = &r->c.f, ce = &e->c.f, ct = &m->total.f)
	if (strcmp(event, "preload.deny") == 0)
		C(preload), attempt = true;
	else if (strcmp(event, "seccomp.deny") == 0)
		C(seccomp), attempt = true;
	else if (strcmp(event, "netfilter.deny") == 0)
		C(netfilter), attempt = true;
	else if (strcmp(event, "kernel.violation") == 0) {
		if (jl_str_eq(jl_get(&al.obj, "outcome"), "breach"))
			C(breach), breach = true;
		else
			C(contained), attempt = true;
	} else if (strcmp(event, "limit.hit") == 0)
		C(limit);
	else if (strcmp(event, "env.drop") == 0)
		C(envdrop);
	else if (strcmp(event, "run.start") == 0) {
		bool was = r->degraded;
		run_start(r, &al);
		if (r->degraded && !was)
			e->degraded++;
	} else if (strcmp(event, "run.end") == 0) {
		run_end(m, r, e, &al);
	} else
		C(other);
#undef C
	r->c.events++;
	e->c.events++;
	m->total.events++;
	if (cr) {
		(*cr)++;
		(*ce)++;
		(*ct)++;
	}
	if (breach && list_add(&m->breaches, m->list_max, &al, executor, event) < 0)
		return -1;
	if (attempt && strcmp(event, "kernel.violation") == 0 &&
	    list_add(&m->attempts, m->list_max, &al, executor, event) < 0)
		return -1;
	/* the timeline keeps every event (run.start and run.end included), capped per run */
	if (m->want_timeline && timeline_add(m, r, &al, event) < 0)
		return -1;
	return 0;
}

static int cmp_counts(const struct am_counts *a, const struct am_counts *b)
{
	if (a->breach != b->breach)
		return a->breach > b->breach ? -1 : 1;
	uint64_t x = am_attempts(a), y = am_attempts(b);
	if (x != y)
		return x > y ? -1 : 1;
	return 0;
}

static int cmp_exec(const void *pa, const void *pb)
{
	const struct am_exec *a = pa, *b = pb;
	int c = cmp_counts(&a->c, &b->c);
	return c ? c : strcmp(a->name, b->name);
}

static int cmp_run(const void *pa, const void *pb)
{
	const struct am_run *a = pa, *b = pb;
	int c = cmp_counts(&a->c, &b->c);
	if (c)
		return c;
	c = strcmp(a->start, b->start);
	return c ? c : strcmp(a->id, b->id);
}

void am_finish(struct am *m)
{
	for (size_t i = 0; i < m->nexecs; i++)
		m->execs[i].incomplete = 0;
	for (size_t i = 0; i < m->nruns; i++)
		if (!m->runs[i].has_end)
			m->execs[m->runs[i].exec].incomplete++;
	qsort(m->execs, m->nexecs, sizeof *m->execs, cmp_exec);
	qsort(m->runs, m->nruns, sizeof *m->runs, cmp_run);
	/* indices are stale after sorting: the tables are rebuilt, run.exec by name */
	free(m->ridx);
	free(m->eidx);
	m->ridx = m->eidx = NULL;
	m->ridx_cap = m->eidx_cap = 0;
	if (rehash(&m->eidx, &m->eidx_cap, m->nexecs, exec_key, m) == 0)
		for (size_t i = 0; i < m->nruns; i++) {
			const char *name = m->runs[i].executor;
			size_t h = (size_t)fnv(name, strlen(name)) & (m->eidx_cap - 1);
			while (m->eidx[h] && strcmp(m->execs[m->eidx[h] - 1].name, name) != 0)
				h = (h + 1) & (m->eidx_cap - 1);
			if (m->eidx[h])
				m->runs[i].exec = m->eidx[h] - 1;
		}
	rehash(&m->ridx, &m->ridx_cap, m->nruns, run_key, m);
}
