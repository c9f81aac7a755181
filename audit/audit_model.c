/* audit_model.c — aggregation of audit streams (contract: audit_model.h). */
#include "audit_model.h"
#include "audit_read.h"
#include "quote.h"

#include <cjson/cJSON.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const am_layer_names[AM_L__N] = {"preload", "seccomp", "landlock", "netfilter",
					      "probes",  "limits",  "env",      "run"};

int am_layer_of(const char *event)
{
	static const struct { const char *ev; int l; } map[] = {
		{"preload.deny", AM_L_PRELOAD},   {"seccomp.deny", AM_L_SECCOMP}, {"landlock.deny", AM_L_LANDLOCK},
		{"netfilter.deny", AM_L_NETFILTER}, {"kernel.violation", AM_L_PROBES}, {"limit.hit", AM_L_LIMITS},
		{"env.drop", AM_L_ENV},           {"net.deny", AM_L_NETFILTER},   {"dns.deny", AM_L_NETFILTER},
		{"net.flow", AM_L_NETFILTER},     {"dns.answer", AM_L_NETFILTER},
	};
	for (size_t i = 0; event && i < sizeof map / sizeof map[0]; i++)
		if (strcmp(map[i].ev, event) == 0)
			return map[i].l;
	return AM_L_RUN;
}

uint64_t am_attempts(const struct am_counts *c)
{
	return c->sev[SBX_SEV_LOW] + c->sev[SBX_SEV_MEDIUM] + c->sev[SBX_SEV_HIGH] + c->sev[SBX_SEV_CRITICAL];
}

enum sbx_sev am_worst(const struct am_counts *c)
{
	for (int s = SBX_SEV_CRITICAL; s >= SBX_SEV_INFO; s--)
		if (c->sev[s])
			return (enum sbx_sev)s;
	return SBX_SEV_NONE;
}

int am_cmp_counts(const struct am_counts *a, const struct am_counts *b)
{
	enum sbx_sev wa = am_worst(a), wb = am_worst(b);
	if (wa != wb)
		return wa > wb ? -1 : 1;
	if (a->breach != b->breach)
		return a->breach > b->breach ? -1 : 1;
	for (int s = SBX_SEV_CRITICAL; s >= SBX_SEV_LOW; s--)
		if (a->sev[s] != b->sev[s])
			return a->sev[s] > b->sev[s] ? -1 : 1;
	return 0;
}

const char *am_verdict(const struct am_run *r)
{
	if (r->c.breach)
		return "breach";
	switch (am_worst(&r->c)) {
	case SBX_SEV_CRITICAL: return "hostile";
	case SBX_SEV_HIGH: return "suspicious";
	case SBX_SEV_MEDIUM:
	case SBX_SEV_LOW: return "contained";
	default: return "clean";
	}
}

void am_init(struct am *m, bool want_timeline)
{
	memset(m, 0, sizeof *m);
	m->want_timeline = want_timeline;
	m->tl_max = 20000;
	m->tl_budget = 400000;
	m->g_max = 1000;
	m->g_budget = 20000;
	m->list_max = 1000;
}

static void group_free(struct am_group *g)
{
	free(g->event);
	free(g->what);
	free(g->subject);
	free(g->access);
	free(g->rule);
	free(g->outcome);
	free(g->comm);
	free(g->sev_id);
}

static char *pdup(const char *s);

static void strv_free_n(char **v, size_t n)
{
	for (size_t i = 0; v && i < n; i++)
		free(v[i]);
	free(v);
}

/* appends a printable copy of s to *v (n entries); -1 out of memory */
static int strv_push(char ***v, size_t *n, const char *s)
{
	char **nv = realloc(*v, (*n + 1) * sizeof *nv);
	if (!nv)
		return -1;
	*v = nv;
	if (!(nv[*n] = pdup(s)))
		return -1;
	(*n)++;
	return 0;
}

static void run_free(struct am_run *r)
{
	for (size_t k = 0; k < r->ng; k++)
		group_free(&r->g[k]);
	free(r->g);
	free(r->tl);
	free(r->argv);
	strv_free_n(r->args, r->nargs);
	strv_free_n(r->off_name, r->noff);
	strv_free_n(r->off_why, r->noff);
	free(r->workspace);
	free(r->manifest_path);
	free(r->manifest_sha);
	free(r->tag);
	free(r->autonomy);
	free(r->layers_on);
	free(r->off);
	for (size_t k = 0; k < r->npeers; k++)
		free(r->peers[k].host);
	free(r->peers);
}

void am_free(struct am *m)
{
	for (size_t i = 0; i < m->nruns; i++)
		run_free(&m->runs[i]);
	free(m->runs);
	free(m->ridx);
	free(m->execs);
	free(m->eidx);
	free(m->breaches.v);
	free(m->scratch);
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
	while (nc < n * 2)
		nc *= 2;
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
		char val[160];
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
	struct am_item *it = &l->v[l->n++];
	size_t tn = al->ts.n < sizeof it->ts ? al->ts.n : sizeof it->ts - 1;
	memcpy(it->ts, al->ts.p, tn);
	it->ts[tn] = '\0';
	snprintf(it->event, sizeof it->event, "%s", event);
	memcpy(it->run, al->run_id, 33);
	snprintf(it->executor, sizeof it->executor, "%s", executor);
	describe(&al->obj, it->desc, sizeof it->desc);
	audit_printable(it->desc, sizeof it->desc);
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

/* ---- small string helpers ------------------------------------------------------------------ */

struct sb { char *s; size_t n, cap; bool oom; };

static void sb_add(struct sb *b, const char *s, size_t n)
{
	if (b->oom)
		return;
	if (b->n + n + 1 > b->cap) {
		size_t nc = b->cap ? b->cap : 64;
		while (nc < b->n + n + 1)
			nc *= 2;
		char *p = realloc(b->s, nc);
		if (!p) {
			b->oom = true;
			return;
		}
		b->s = p;
		b->cap = nc;
	}
	memcpy(b->s + b->n, s, n);
	b->n += n;
	b->s[b->n] = '\0';
}
static void sb_str(struct sb *b, const char *s) { sb_add(b, s, strlen(s)); }

/* a printable malloc'd copy (NULL in -> NULL out) */
static char *pdup(const char *s)
{
	if (!s)
		return NULL;
	return sbx_escape(s);
}

static const char *jstr(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

/* A word as a POSIX shell would need it quoted. */
static void sb_shell_word(struct sb *b, const char *w)
{
	if (*w && strspn(w, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-./=:,+@%") == strlen(w)) {
		sb_str(b, w);
		return;
	}
	sb_str(b, "'");
	for (const char *p = w; *p; p++)
		if (*p == '\'')
			sb_str(b, "'\\''");
		else
			sb_add(b, p, 1);
	sb_str(b, "'");
}

static int run_start(struct am_run *r, const char *line, size_t len)
{
	r->has_start = true;
	cJSON *o = cJSON_ParseWithLength(line, len);
	if (!o)
		return 0; /* the line passed the schema check; cJSON failing means out of memory or depth */
	int rc = 0;
	struct sb b = {0};
	const cJSON *av = cJSON_GetObjectItemCaseSensitive(o, "argv"), *w;
	if (cJSON_IsArray(av)) {
		strv_free_n(r->args, r->nargs);
		r->args = NULL;
		r->nargs = 0;
		cJSON_ArrayForEach(w, av) {
			const char *word = cJSON_IsString(w) ? w->valuestring : "?";
			if (b.n)
				sb_str(&b, " ");
			sb_shell_word(&b, word);
			if (strv_push(&r->args, &r->nargs, word) < 0)
				rc = -1;
		}
		free(r->argv);
		r->argv = b.s ? b.s : strdup("");
		{ /* a shell-quoted command line: escaped, its own quotes and backslashes kept */
			char *e = sbx_escape_json(r->argv);
			if (e) {
				free(r->argv);
				r->argv = e;
			} else {
				r->argv = audit_printable_take(r->argv);
			}
		}
		b = (struct sb){0};
	}
	const cJSON *man = cJSON_GetObjectItemCaseSensitive(o, "manifest");
	free(r->manifest_path);
	free(r->manifest_sha);
	free(r->workspace);
	free(r->tag);
	free(r->autonomy);
	r->manifest_path = pdup(jstr(man, "path"));
	r->manifest_sha = pdup(jstr(man, "sha256"));
	r->workspace = pdup(jstr(o, "workspace"));
	r->tag = pdup(jstr(o, "tag"));
	r->autonomy = pdup(jstr(o, "autonomy"));
	const cJSON *layers = cJSON_GetObjectItemCaseSensitive(o, "layers");
	const cJSON *why = cJSON_GetObjectItemCaseSensitive(o, "why");
	struct sb on = {0}, off = {0};
	size_t nlayers = 0, noff = 0;
	strv_free_n(r->off_name, r->noff);
	strv_free_n(r->off_why, r->noff);
	r->off_name = r->off_why = NULL;
	r->noff = 0;
	cJSON_ArrayForEach(w, layers) {
		if (!w->string)
			continue;
		nlayers++;
		if (!cJSON_IsFalse(w)) {
			if (on.n)
				sb_str(&on, ", ");
			sb_str(&on, w->string);
			continue;
		}
		noff++;
		if (off.n)
			sb_str(&off, "; ");
		sb_str(&off, w->string);
		const char *reason = jstr(why, w->string);
		size_t n0 = r->noff;
		if (strv_push(&r->off_name, &n0, w->string) < 0 ||
		    strv_push(&r->off_why, &r->noff, reason ? reason : "") < 0)
			rc = -1;
		r->noff = n0 < r->noff ? n0 : r->noff;
		if (reason && *reason) {
			sb_str(&off, " (");
			sb_str(&off, reason);
			sb_str(&off, ")");
		}
	}
	if (on.oom || off.oom || b.oom)
		rc = -1;
	free(r->layers_on);
	free(r->off);
	r->layers_on = on.s ? on.s : (nlayers ? strdup("") : NULL);
	r->off = off.s;
	if (r->layers_on)
		r->layers_on = audit_printable_take(r->layers_on);
	if (r->off)
		r->off = audit_printable_take(r->off);
	r->degraded = noff > 0;
	r->sandbox_off = nlayers > 0 && noff == nlayers;
	cJSON_Delete(o);
	return rc;
}

/* run.end's own counts (the writer counted every event, written or not: `severity`, and
 * `audit.breaches`) raise the run's line counts where lines are missing (budget-suppressed low and
 * medium events, urgent events past the writer's cap), so the summary, run.end and the result
 * record agree on the counts and the verdict. */
static void end_counts(struct am *m, struct am_run *r, struct am_exec *e, const struct jl_obj *o)
{
	struct jl_obj *sub = malloc(sizeof *sub);
	if (!sub)
		return;
	const struct jl_span *sv = jl_get(o, "severity");
	if (sv && sv->type == JL_OBJ && jl_object(sv->p, sv->n, sub, NULL, NULL) == 0)
		for (int s = SBX_SEV_INFO; s <= SBX_SEV_CRITICAL; s++) {
			uint64_t n;
			if (jl_u64(jl_get(sub, sbx_sev_name((enum sbx_sev)s)), &n) == 0 && n > r->c.sev[s]) {
				uint64_t d = n - r->c.sev[s];
				r->c.sev[s] += d;
				e->c.sev[s] += d;
				m->total.sev[s] += d;
			}
		}
	const struct jl_span *au = jl_get(o, "audit");
	uint64_t b;
	if (au && au->type == JL_OBJ && jl_object(au->p, au->n, sub, NULL, NULL) == 0 &&
	    jl_u64(jl_get(sub, "breaches"), &b) == 0 && b > r->c.breach) {
		uint64_t d = b - r->c.breach;
		r->c.breach += d;
		e->c.breach += d;
		m->total.breach += d;
	}
	free(sub);
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
	end_counts(m, r, e, o);
	if (r->sig > 0)
		count_exit(e, r->sig, true);
	else
		count_exit(e, r->exit, false);
}

/* The table's severity s, raised to the writer's stamp when that is higher (never lowered). */
static enum sbx_sev with_stamp(enum sbx_sev s, const char *stamp, const char **id)
{
	if (s == SBX_SEV_NONE)
		return s;
	int stamped = sbx_sev_parse(stamp);
	if (stamped > (int)s) {
		s = (enum sbx_sev)stamped;
		if (id)
			*id = "stamped";
	}
	return s;
}

enum sbx_sev am_event_sev(const struct cJSON *ev, const char **id)
{
	return with_stamp(sbx_sev_explain(ev, id, NULL), jstr(ev, "sev"), id);
}

/* ---- one security event, read from the checked line's spans ---------------------------------- */

/* The members of a security event the model uses, decoded from the spans audit_line_check
 * recorded: no cJSON tree (a second parse of every line cost more than the strict check itself).
 * A string member is its decoded text, NULL when absent or not a string — what a cJSON lookup of
 * the same line gives (the check refused duplicate names, NUL and \u0000). */
struct sec_ev {
	struct sbx_sev_fields sf; /* event, rule, path, access, op, outcome, addr, presence of addr/port/host */
	const char *syscall, *host, *comm, *sev;
	const char *name, *peer, *reason; /* the gateway's events: dns.deny name, net.deny peer/reason */
	bool has_port;            /* "port" is a number: its value */
	double port;
	uint64_t count;           /* a coalesced record stands for "count" events (else 1) */
};

static double span_num(const struct jl_span *v, char *buf)
{
	memcpy(buf, v->p, v->n);
	buf[v->n] = '\0';
	return strtod(buf, NULL);
}

/* Fills *s from al (a line of len bytes). Strings live in *scratch (grown to fit, *cap its size)
 * until the next line. */
static int sec_ev_read(char **scratch, size_t *cap, const struct audit_line *al, size_t len, struct sec_ev *s)
{
	enum { E, RULE, PATH, ACCESS, OP, OUTCOME, ADDR, PORT, HOST, SYSCALL, COMM, SEV, COUNT, NAME, PEER,
	       REASON, N };
	static const char *const names[N] = {"event", "rule", "path", "access", "op", "outcome", "addr",
					     "port", "host", "syscall", "comm", "sev", "count", "name",
					     "peer", "reason"};
	/* decoded strings are never longer than their spans, which lie inside the line */
	if (*cap < len + 2 * N) {
		char *nb = realloc(*scratch, len + 2 * N);
		if (!nb)
			return -1;
		*scratch = nb;
		*cap = len + 2 * N;
	}
	const struct jl_span *v[N] = {0};
	for (size_t i = 0; i < al->obj.n; i++) {
		const struct jl_span *k = &al->obj.m[i].key;
		char kb[16];
		const char *kp = k->p;
		size_t kn = k->n;
		if (k->esc) { /* a name written with escapes is compared decoded, as cJSON does */
			struct jl_span ks = *k;
			ks.type = JL_STR;
			long d = jl_str(&ks, kb, sizeof kb);
			if (d < 0 || (size_t)d >= sizeof kb)
				continue;
			kp = kb;
			kn = (size_t)d;
		}
		int cand[3] = {-1, -1, -1}; /* the names that start with the member's first letter */
		switch (kn ? kp[0] : 0) {
		case 'e': cand[0] = E; break;
		case 'r': cand[0] = RULE, cand[1] = REASON; break;
		case 'n': cand[0] = NAME; break;
		case 'p': cand[0] = PATH, cand[1] = PORT, cand[2] = PEER; break;
		case 'a': cand[0] = ACCESS, cand[1] = ADDR; break;
		case 'o': cand[0] = OP, cand[1] = OUTCOME; break;
		case 'h': cand[0] = HOST; break;
		case 's': cand[0] = SYSCALL, cand[1] = SEV; break;
		case 'c': cand[0] = COMM, cand[1] = COUNT; break;
		default: continue;
		}
		for (int j = 0; j < 3 && cand[j] >= 0; j++) {
			int f = cand[j];
			if (!v[f] && strlen(names[f]) == kn && memcmp(names[f], kp, kn) == 0) {
				v[f] = &al->obj.m[i].val;
				break;
			}
		}
	}
	char *out = *scratch;
	const char *str[N] = {0};
	for (int f = 0; f < N; f++)
		if (v[f] && v[f]->type == JL_STR) {
			long d = jl_str(v[f], out, v[f]->n + 1);
			str[f] = out;
			out += d + 1;
		}
	*s = (struct sec_ev){
		.sf = {.event = str[E], .rule = str[RULE], .path = str[PATH], .access = str[ACCESS], .op = str[OP],
		       .outcome = str[OUTCOME], .addr = str[ADDR], .has_addr = v[ADDR] != NULL,
		       .has_port = v[PORT] != NULL, .has_host = v[HOST] != NULL},
		.syscall = str[SYSCALL], .host = str[HOST], .comm = str[COMM], .sev = str[SEV], .count = 1,
		.name = str[NAME], .peer = str[PEER], .reason = str[REASON],
	};
	if (v[PORT] && v[PORT]->type == JL_NUM) {
		s->has_port = true;
		s->port = span_num(v[PORT], out);
		s->sf.port_zero = s->port == 0;
	}
	if (v[COUNT] && v[COUNT]->type == JL_NUM) {
		double c = span_num(v[COUNT], out);
		if (c >= 1 && c < 1e15)
			s->count = (uint64_t)c;
	}
	return 0;
}

enum sbx_sev am_line_sev(const struct audit_line *al, size_t len, char **scratch, size_t *cap, const char **id)
{
	struct sec_ev ev;
	if (sec_ev_read(scratch, cap, al, len, &ev) < 0)
		return SBX_SEV_NONE;
	return with_stamp(sbx_sev_explain_fields(&ev.sf, id, NULL), ev.sev, id);
}

/* ---- groups and timeline -------------------------------------------------------------------- */

/* The subject of an event: path, addr:port, host[:port], or the syscall for syscall-only events. */
static void subject_of(const struct sec_ev *ev, struct sb *b)
{
	const char *p = ev->sf.path, *a = ev->sf.addr, *h = ev->host;
	char num[32] = "";
	if (ev->has_port)
		snprintf(num, sizeof num, "%.0f", ev->port);
	if (p)
		sb_str(b, p);
	else if (ev->name && !a && !h)
		sb_str(b, ev->name); /* dns.deny: the name asked */
	else if (a || h) {
		bool v6 = a && strchr(a, ':');
		if (v6 && num[0])
			sb_str(b, "[");
		sb_str(b, a ? a : h);
		if (v6 && num[0])
			sb_str(b, "]");
		if (num[0]) {
			sb_str(b, ":");
			sb_str(b, num);
		}
	} else if (num[0]) {
		sb_str(b, "port ");
		sb_str(b, num);
	}
	if (ev->peer && *ev->peer) { /* net.deny: the name the client sent */
		sb_str(b, " (sent ");
		sb_str(b, ev->peer);
		sb_str(b, ")");
	}
	if (!b->s)
		sb_str(b, "");
}

static int group_add(struct am *m, struct am_run *r, const struct sec_ev *ev, const char *event, const char *ts,
		     size_t tsn, enum sbx_sev sev, const char *sev_id, uint64_t k)
{
	const char *what = ev->sf.op ? ev->sf.op : ev->syscall ? ev->syscall : ev->reason;
	struct sb subj = {0};
	subject_of(ev, &subj);
	if (subj.oom)
		return -1;
	subj.s = audit_printable_take(subj.s); /* grouped and shown as a person reads it */
#define OR_EMPTY(x) ((x) ? (x) : "")
	const char *f[] = {event, OR_EMPTY(what), subj.s, OR_EMPTY(ev->sf.access), OR_EMPTY(ev->sf.rule),
			   OR_EMPTY(ev->sf.outcome), OR_EMPTY(ev->comm)};
#undef OR_EMPTY
	uint64_t key = 1469598103934665603ULL;
	for (size_t i = 0; i < sizeof f / sizeof f[0]; i++)
		key = (key ^ fnv(f[i], strlen(f[i]))) * 1099511628211ULL + i;
	key ^= (uint64_t)sev << 56;
	char tsb[28];
	snprintf(tsb, sizeof tsb, "%.*s", (int)(tsn < 27 ? tsn : 27), ts);
	for (size_t i = r->ng; i-- > 0;) {
		struct am_group *g = &r->g[i];
		if (g->key == key && g->sev == sev && strcmp(g->subject, subj.s) == 0 && strcmp(g->event, event) == 0) {
			g->n += k;
			if (strcmp(tsb, g->first) < 0)
				snprintf(g->first, sizeof g->first, "%s", tsb);
			if (strcmp(tsb, g->last) > 0)
				snprintf(g->last, sizeof g->last, "%s", tsb);
			free(subj.s);
			return 0;
		}
	}
	if (r->ng >= m->g_max || m->g_used >= m->g_budget) {
		r->ungrouped += k;
		free(subj.s);
		return 0;
	}
	if (r->ng == r->gcap) {
		size_t nc = r->gcap ? r->gcap * 2 : 8;
		struct am_group *g = realloc(r->g, nc * sizeof *g);
		if (!g) {
			free(subj.s);
			return -1;
		}
		r->g = g;
		r->gcap = nc;
	}
	struct am_group *g = &r->g[r->ng];
	memset(g, 0, sizeof *g);
	g->key = key;
	g->n = k;
	g->sev = sev;
	g->layer = am_layer_of(event);
	snprintf(g->first, sizeof g->first, "%s", tsb);
	snprintf(g->last, sizeof g->last, "%s", tsb);
	g->event = pdup(f[0]);
	g->what = pdup(f[1]);
	g->subject = subj.s;
	g->access = pdup(f[3]);
	g->rule = pdup(f[4]);
	g->outcome = pdup(f[5]);
	g->comm = pdup(f[6]);
	g->sev_id = pdup(sev_id ? sev_id : "");
	if (!g->event || !g->what || !g->access || !g->rule || !g->outcome || !g->comm || !g->sev_id) {
		group_free(g);
		return -1;
	}
	r->ng++;
	m->g_used++;
	return 0;
}

static int timeline_add(struct am *m, struct am_run *r, const struct audit_line *al, int layer, enum sbx_sev sev)
{
	int64_t us;
	if (audit_parse_time(al->ts.p, al->ts.n, &us) < 0)
		return 0;
	if (r->ntl >= m->tl_max || m->tl_used >= m->tl_budget) {
		r->tl_dropped++;
		return 0;
	}
	if (r->ntl == r->tlcap) {
		size_t nc = r->tlcap ? r->tlcap * 2 : 16;
		struct am_point *p = realloc(r->tl, nc * sizeof *p);
		if (!p)
			return -1;
		r->tl = p;
		r->tlcap = nc;
	}
	r->tl[r->ntl++] = (struct am_point){.us = us, .layer = (uint8_t)layer, .sev = (uint8_t)sev};
	m->tl_used++;
	return 0;
}

/* ---- lines ----------------------------------------------------------------------------------- */

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

/* A net.flow line: add its connection and bytes to the run's "talked to". */
static int flow_add(struct am_run *r, const char *line, size_t len)
{
	cJSON *ev = cJSON_ParseWithLength(line, len);
	if (!ev)
		return 0; /* the reader checked the line: only out of memory gets here */
	const char *host = jstr(ev, "host");
	const cJSON *p = cJSON_GetObjectItemCaseSensitive(ev, "port");
	const cJSON *bo = cJSON_GetObjectItemCaseSensitive(ev, "bytes_out");
	const cJSON *bi = cJSON_GetObjectItemCaseSensitive(ev, "bytes_in");
	double port = cJSON_IsNumber(p) ? p->valuedouble : 0;
	char hb[256];
	snprintf(hb, sizeof hb, "%s", host && *host ? host : (jstr(ev, "addr") ? jstr(ev, "addr") : "?"));
	audit_printable(hb, sizeof hb);
	struct am_peer *pe = NULL;
	for (size_t k = 0; k < r->npeers && !pe; k++)
		if (r->peers[k].port == port && strcmp(r->peers[k].host, hb) == 0)
			pe = &r->peers[k];
	if (!pe && r->npeers >= AM_PEERS_MAX) {
		r->peers_dropped++;
		cJSON_Delete(ev);
		return 0;
	}
	if (!pe) {
		if (r->npeers == r->pcap) {
			size_t nc = r->pcap ? r->pcap * 2 : 8;
			struct am_peer *nv = realloc(r->peers, nc * sizeof *nv);
			if (!nv) {
				cJSON_Delete(ev);
				return -1;
			}
			r->peers = nv;
			r->pcap = nc;
		}
		pe = &r->peers[r->npeers];
		memset(pe, 0, sizeof *pe);
		if (!(pe->host = strdup(hb))) {
			cJSON_Delete(ev);
			return -1;
		}
		pe->port = port;
		r->npeers++;
	}
	pe->conns++;
	if (cJSON_IsNumber(bo) && bo->valuedouble > 0)
		pe->out += (uint64_t)bo->valuedouble;
	if (cJSON_IsNumber(bi) && bi->valuedouble > 0)
		pe->in += (uint64_t)bi->valuedouble;
	cJSON_Delete(ev);
	return 0;
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
	audit_printable(executor, sizeof executor);
	audit_printable(event, sizeof event);
	struct am_run *r = find_run(m, al.run_id, executor);
	if (!r)
		return -1;
	struct am_exec *e = &m->execs[r->exec];
	if (!r->start[0] || (al.ts.n == 27 && memcmp(al.ts.p, r->start, 27) < 0))
		snprintf(r->start, sizeof r->start, "%.*s", (int)al.ts.n, al.ts.p);
	uint64_t *cr = NULL, *ce = NULL, *ct = NULL;
	bool breach = false;
	enum sbx_sev sev = SBX_SEV_NONE;
	uint64_t inc = 1;
#define C(f) (cr = &r->c.f, ce = &e->c.f, ct = &m->total.f)
	if (strcmp(event, "net.flow") == 0) {
		if (flow_add(r, line, len) < 0)
			return -1;
		C(flows);
	} else if (strcmp(event, "dns.answer") == 0) {
		C(names);
	} else if (sbx_sev_is_security_event(event)) {
		struct sec_ev ev;
		if (sec_ev_read(&m->scratch, &m->scratch_cap, &al, len, &ev) < 0)
			return -1;
		const char *sev_id = NULL;
		sev = with_stamp(sbx_sev_explain_fields(&ev.sf, &sev_id, NULL), ev.sev, &sev_id);
		if (strcmp(event, "preload.deny") == 0)
			C(preload);
		else if (strcmp(event, "seccomp.deny") == 0)
			C(seccomp);
		else if (strcmp(event, "netfilter.deny") == 0)
			C(netfilter);
		else if (strcmp(event, "landlock.deny") == 0)
			C(landlock);
		else if (strcmp(event, "net.deny") == 0 || strcmp(event, "dns.deny") == 0)
			C(gateway);
		else if (jl_str_eq(jl_get(&al.obj, "outcome"), "breach"))
			C(breach), breach = true;
		else
			C(contained);
		uint64_t k = ev.count; /* a coalesced record stands for "count" events */
		inc = k;
		r->c.sev[sev] += k;
		e->c.sev[sev] += k;
		m->total.sev[sev] += k;
		if (group_add(m, r, &ev, event, al.ts.p, al.ts.n, sev, sev_id, k) < 0)
			return -1;
	} else if (strcmp(event, "limit.hit") == 0)
		C(limit);
	else if (strcmp(event, "env.drop") == 0)
		C(envdrop);
	else if (strcmp(event, "run.start") == 0) {
		bool was = r->degraded;
		if (run_start(r, line, len) < 0)
			return -1;
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
		*cr += inc;
		*ce += inc;
		*ct += inc;
	}
	if (breach && list_add(&m->breaches, m->list_max, &al, executor, event) < 0)
		return -1;
	if (m->want_timeline && timeline_add(m, r, &al, am_layer_of(event), sev) < 0)
		return -1;
	return 0;
}

const char *am_group_rule(const struct am_group *g)
{
	if (g->rule[0])
		return g->rule;
	if (strcmp(g->event, "seccomp.deny") == 0)
		return "seccomp: filtered system call";
	if (strcmp(g->event, "netfilter.deny") == 0)
		return "netfilter: peer not in the allowlist";
	if (strcmp(g->event, "landlock.deny") == 0)
		return "landlock: outside the ruleset";
	if (strcmp(g->event, "dns.deny") == 0)
		return "gateway: name not in the manifest's hosts";
	if (strcmp(g->event, "net.deny") == 0)
		return "gateway: connection not granted by the manifest's hosts";
	return "(no rule named)";
}

const char *am_program(const struct am_run *r)
{
	static const char *const interp[] = {"python", "python2", "python3", "sh", "bash", "dash", "zsh", "node",
					     "perl", "ruby", "env", "php", "lua", "deno", "bun", "uv", "exec", NULL};
	for (size_t i = 0; i < r->nargs; i++) {
		const char *w = r->args[i];
		const char *base = strrchr(w, '/') ? strrchr(w, '/') + 1 : w;
		bool is_interp = false;
		for (size_t k = 0; interp[k] && !is_interp; k++)
			is_interp = strncmp(base, interp[k], strlen(interp[k])) == 0 &&
				    strspn(base + strlen(interp[k]), "0123456789.") == strlen(base + strlen(interp[k]));
		if (i == 0 && !is_interp)
			return base;
		if (i > 0 && (w[0] == '-' || strchr(w, '=')))
			continue; /* an interpreter's option, or env's NAME=VALUE */
		if (!is_interp)
			return base;
	}
	return r->nargs ? (strrchr(r->args[0], '/') ? strrchr(r->args[0], '/') + 1 : r->args[0]) : NULL;
}

/* ---- sorting ---------------------------------------------------------------------------------- */

static int cmp_exec(const void *pa, const void *pb)
{
	const struct am_exec *a = pa, *b = pb;
	int c = am_cmp_counts(&a->c, &b->c);
	return c ? c : strcmp(a->name, b->name);
}

static int cmp_run(const void *pa, const void *pb)
{
	const struct am_run *a = pa, *b = pb;
	int c = am_cmp_counts(&a->c, &b->c);
	if (c)
		return c;
	c = strcmp(a->start, b->start);
	return c ? c : strcmp(a->id, b->id);
}

static int cmp_group(const void *pa, const void *pb)
{
	const struct am_group *a = pa, *b = pb;
	if (a->sev != b->sev)
		return a->sev > b->sev ? -1 : 1;
	if (a->n != b->n)
		return a->n > b->n ? -1 : 1;
	return strcmp(a->first, b->first);
}

static int cmp_peer(const void *pa, const void *pb)
{
	const struct am_peer *a = pa, *b = pb;
	uint64_t x = a->out + a->in, y = b->out + b->in;
	if (x != y)
		return x > y ? -1 : 1;
	return strcmp(a->host, b->host);
}

void am_finish(struct am *m)
{
	for (size_t i = 0; i < m->nexecs; i++)
		m->execs[i].incomplete = 0;
	for (size_t i = 0; i < m->nruns; i++) {
		if (!m->runs[i].has_end)
			m->execs[m->runs[i].exec].incomplete++;
		if (m->runs[i].ng > 1) /* qsort's base may not be NULL, even for 0 elements */
			qsort(m->runs[i].g, m->runs[i].ng, sizeof *m->runs[i].g, cmp_group);
		if (m->runs[i].npeers > 1)
			qsort(m->runs[i].peers, m->runs[i].npeers, sizeof *m->runs[i].peers, cmp_peer);
	}
	if (m->nexecs > 1)
		qsort(m->execs, m->nexecs, sizeof *m->execs, cmp_exec);
	if (m->nruns > 1)
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
