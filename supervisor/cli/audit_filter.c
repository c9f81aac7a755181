/* audit_filter.c — `sbxsup audit filter [conditions] [--follow] FILE...`.
 *
 * Promise: prints the lines that are well-formed events and match every given condition,
 * byte-for-byte as read (with their '\n'), so an extracted run still verifies. Damaged lines are
 * never printed; their number is reported on stderr. Conditions (all must hold; a condition given
 * twice or as a comma list matches any of its values):
 *   --event E      event name; a trailing '*' matches a prefix ("kernel.*")
 *   --executor N   executor name (same '*' rule)
 *   --run ID       run id, or a prefix of it (at least 4 hex digits)
 *   --since T / --until T   ts >= T / ts < T (RFC 3339; a date alone is midnight UTC)
 *   --layer L      the layer's events: preload -> preload.deny, seccomp -> seccomp.deny,
 *                  netfilter -> netfilter.deny, probes|kernel -> kernel.violation,
 *                  limits -> limit.hit, env -> env.drop; bwrap, landlock, any other name ->
 *                  run.start lines where that layer was off
 *   --outcome contained|breach|undecidable|attempted|raced   kernel.violation with that outcome
 *   --rule R / --path P / --comm C   the event's "rule" / "path" / "comm" equals the value or
 *                  starts with it (value ending in '*': --rule 'deny[0]*'), or matches it as a glob
 *                  (fnmatch, '*' also matches '/'): --rule 'builtin:secret:*',
 *                  --path '/etc/shadow*'; events without the field never match
 *   --severity S   security events of severity S (critical, high, medium, low, info), or of S and
 *                  worse with "S+" ("high+"); the severity is the one `audit summary` uses (the
 *                  stamped "sev" raised to the table's, severity.h)
 * --follow (one FILE) keeps reading as the file grows, until interrupted.
 */
#include "review.h"
#include "audit_model.h"
#include "audit_read.h"
#include "layer.h"
#include "msg.h"

#include <errno.h>
#include <fnmatch.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_VALUES 32

struct cond {
	const char *v[MAX_VALUES];
	size_t n;
};

struct filter {
	struct cond event, executor, run, layer, outcome, rule, path, comm, sev;
	bool since_set, until_set;
	int64_t since, until;
};

static int add_values(struct cond *c, char *arg, const char *opt)
{
	for (char *save = NULL, *t = strtok_r(arg, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		if (c->n == MAX_VALUES) {
			sbx_msg("audit filter: too many values for --%s (max %d)", opt, MAX_VALUES);
			return -1;
		}
		c->v[c->n++] = t;
	}
	return 0;
}

/* exact, or prefix when the pattern ends in '*' */
static bool name_match(const char *pat, const char *s)
{
	size_t l = strlen(pat);
	if (l && pat[l - 1] == '*')
		return strncmp(pat, s, l - 1) == 0;
	return strcmp(pat, s) == 0;
}

static bool any_name(const struct cond *c, const char *s)
{
	for (size_t i = 0; i < c->n; i++)
		if (name_match(c->v[i], s))
			return true;
	return false;
}

/* A layer's event type comes from its entry (layers_event); the other names --layer takes. */
static const char *layer_event(const char *layer)
{
	static const char *const alias[][2] = {
		{"kernel", "kernel.violation"}, {"limit", "limit.hit"}, {"env", "env.drop"},
	};
	const char *ev = layers_event(layer);
	for (size_t i = 0; !ev && i < sizeof alias / sizeof alias[0]; i++)
		if (strcmp(alias[i][0], layer) == 0)
			ev = alias[i][1];
	return ev;
}

static bool layer_off(const struct audit_line *al, const char *layer)
{
	const struct jl_span *l = jl_get(&al->obj, "layers");
	struct jl_obj lo;
	if (!l || l->type != JL_OBJ || jl_object(l->p, l->n, &lo, NULL, NULL) < 0)
		return false;
	const struct jl_span *v = jl_get(&lo, layer);
	return v && v->type == JL_FALSE;
}

/* the string member `key` equals one of the values or matches it as a glob */
static bool field_match(const struct cond *c, const struct audit_line *al, const char *key)
{
	const struct jl_span *v = jl_get(&al->obj, key);
	if (!v || v->type != JL_STR)
		return false;
	char buf[4200];
	long n = jl_str(v, buf, sizeof buf);
	if (n < 0 || (size_t)n >= sizeof buf)
		return false;
	for (size_t i = 0; i < c->n; i++)
		if (name_match(c->v[i], buf) || fnmatch(c->v[i], buf, 0) == 0)
			return true;
	return false;
}

/* "high" or "high+" -> the severity and whether worse ones match too; -1 if not a severity */
static int sev_cond(const char *v, bool *plus)
{
	char name[16];
	size_t l = strlen(v);
	*plus = l && v[l - 1] == '+';
	if (*plus)
		l--;
	if (l == 0 || l >= sizeof name)
		return -1;
	memcpy(name, v, l);
	name[l] = '\0';
	return sbx_sev_parse(name);
}

/* The severity is read from the spans the line check recorded (audit_model.h am_line_sev): each
 * line is parsed once. *scratch holds the decoded members (freed by the caller). */
static bool sev_match(const struct cond *c, const struct audit_line *al, size_t len, const char *event,
		      char **scratch, size_t *cap)
{
	if (!sbx_sev_is_security_event(event))
		return false;
	int s = (int)am_line_sev(al, len, scratch, cap, NULL);
	for (size_t i = 0; i < c->n; i++) {
		bool plus;
		int want = sev_cond(c->v[i], &plus);
		if (s == want || (plus && s > want))
			return true;
	}
	return false;
}

static bool match(const struct filter *f, const struct audit_line *al, size_t len, char **scratch, size_t *cap)
{
	char event[64], executor[80];
	jl_str(&al->event, event, sizeof event);
	if (f->event.n && !any_name(&f->event, event))
		return false;
	if (f->executor.n) {
		jl_str(&al->executor, executor, sizeof executor);
		if (!any_name(&f->executor, executor))
			return false;
	}
	if (f->run.n) {
		bool ok = false;
		for (size_t i = 0; i < f->run.n && !ok; i++)
			ok = strncmp(al->run_id, f->run.v[i], strlen(f->run.v[i])) == 0;
		if (!ok)
			return false;
	}
	if (f->since_set || f->until_set) {
		int64_t t;
		if (audit_parse_time(al->ts.p, al->ts.n, &t) < 0)
			return false;
		if (f->since_set && t < f->since)
			return false;
		if (f->until_set && t >= f->until)
			return false;
	}
	if (f->layer.n) {
		bool ok = false;
		for (size_t i = 0; i < f->layer.n && !ok; i++) {
			const char *ev = layer_event(f->layer.v[i]);
			ok = ev ? strcmp(ev, event) == 0
				: strcmp(event, "run.start") == 0 && layer_off(al, f->layer.v[i]);
		}
		if (!ok)
			return false;
	}
	if (f->outcome.n) {
		if (strcmp(event, "kernel.violation") != 0)
			return false;
		bool ok = false;
		for (size_t i = 0; i < f->outcome.n && !ok; i++)
			ok = jl_str_eq(jl_get(&al->obj, "outcome"), f->outcome.v[i]);
		if (!ok)
			return false;
	}
	if (f->rule.n && !field_match(&f->rule, al, "rule"))
		return false;
	if (f->path.n && !field_match(&f->path, al, "path"))
		return false;
	if (f->comm.n && !field_match(&f->comm, al, "comm"))
		return false;
	if (f->sev.n && !sev_match(&f->sev, al, len, event, scratch, cap))
		return false;
	return true;
}

static void on_idle(void *ctx)
{
	(void)ctx;
	fflush(stdout);
}

static const char help[] =
	"usage: sbxsup audit filter [--event E] [--executor N] [--run ID] [--since T] [--until T]\n"
	"                           [--layer L] [--outcome contained|breach|undecidable|attempted|raced] [--rule R] [--path P]\n"
	"                           [--comm C] [--severity S[+]] [--follow] FILE...\n"
	"Prints the matching lines unchanged (so `sbxsup audit verify` still passes on an extracted run).\n"
	"All conditions must hold; repeat an option or give a comma list to accept several values;\n"
	"a trailing '*' in --event/--executor matches a prefix; --run accepts an id prefix.\n"
	"--layer: preload, seccomp, netfilter, probes (kernel.violation), limits, env; bwrap, landlock\n"
	"or any other layer name selects the run.start lines where that layer was off.\n"
	"--rule, --path, --comm: the event's field equals the value, starts with it (value ending in '*':\n"
	"--rule 'deny[0]*') or matches it as a glob ('*' also matches '/'): --rule 'builtin:secret:*',\n"
	"--path '*/.ssh/*', --comm python3.\n"
	"--severity: critical, high, medium, low or info (security events only); \"high+\" = high or worse.\n"
	"T is RFC 3339: 2026-11-22, 2026-11-22T05:00:00Z, 2026-11-22 05:00, ...+01:00.\n";

int audit_filter_main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"event", required_argument, NULL, 'e'}, {"executor", required_argument, NULL, 'x'},
		{"run", required_argument, NULL, 'r'},   {"since", required_argument, NULL, 's'},
		{"until", required_argument, NULL, 'u'}, {"layer", required_argument, NULL, 'l'},
		{"outcome", required_argument, NULL, 'o'}, {"follow", no_argument, NULL, 'f'},
		{"rule", required_argument, NULL, 'R'},  {"path", required_argument, NULL, 'P'},
		{"comm", required_argument, NULL, 'C'},  {"severity", required_argument, NULL, 'S'},
		{"help", no_argument, NULL, 'h'},        {NULL, 0, NULL, 0}};
	struct filter f;
	memset(&f, 0, sizeof f);
	bool follow = false;
	int c;
	static char prog[] = "sbxsup: audit filter"; /* getopt's messages: "sbxsup: audit filter: ..." */
	argv[0] = prog;
	optind = 1;
	while ((c = getopt_long(argc, argv, "e:x:r:s:u:l:o:fhR:P:C:S:", opts, NULL)) != -1) {
		int r = 0;
		switch (c) {
		case 'e': r = add_values(&f.event, optarg, "event"); break;
		case 'x': r = add_values(&f.executor, optarg, "executor"); break;
		case 'r': r = add_values(&f.run, optarg, "run"); break;
		case 'l': r = add_values(&f.layer, optarg, "layer"); break;
		case 'o': r = add_values(&f.outcome, optarg, "outcome"); break;
		case 'R': r = add_values(&f.rule, optarg, "rule"); break;
		case 'P': r = add_values(&f.path, optarg, "path"); break;
		case 'C': r = add_values(&f.comm, optarg, "comm"); break;
		case 'S': r = add_values(&f.sev, optarg, "severity"); break;
		case 's':
		case 'u': {
			int64_t *t = c == 's' ? &f.since : &f.until;
			if (audit_parse_time(optarg, strlen(optarg), t) < 0) {
				sbx_msg("audit filter: --%s '%s': not an RFC 3339 time (e.g. 2026-11-22T05:00:00Z)",
					c == 's' ? "since" : "until", optarg);
				return SBX_EXIT_INTERNAL;
			}
			*(c == 's' ? &f.since_set : &f.until_set) = true;
			break;
		}
		case 'f': follow = true; break;
		case 'h': fputs(help, stdout); return 0;
		default: fputs(help, stderr); return SBX_EXIT_INTERNAL;
		}
		if (r < 0)
			return SBX_EXIT_INTERNAL;
	}
	for (size_t i = 0; i < f.outcome.n; i++)
		if (strcmp(f.outcome.v[i], "contained") != 0 && strcmp(f.outcome.v[i], "breach") != 0 &&
		    strcmp(f.outcome.v[i], "undecidable") != 0 && strcmp(f.outcome.v[i], "attempted") != 0 &&
		    strcmp(f.outcome.v[i], "raced") != 0) {
			sbx_msg("audit filter: --outcome '%s': expected contained, breach, undecidable, attempted or raced",
				f.outcome.v[i]);
			return SBX_EXIT_INTERNAL;
		}
	for (size_t i = 0; i < f.sev.n; i++) {
		bool plus;
		if (sev_cond(f.sev.v[i], &plus) < 0) {
			sbx_msg("audit filter: --severity '%s': expected critical, high, medium, low or info, "
				"optionally followed by '+'", f.sev.v[i]);
			return SBX_EXIT_INTERNAL;
		}
	}
	for (size_t i = 0; i < f.run.n; i++) {
		size_t l = strlen(f.run.v[i]);
		if (l < 4 || l > 32 || strspn(f.run.v[i], "0123456789abcdef") != l) {
			sbx_msg("audit filter: --run '%s': expected 4 to 32 lowercase hex digits", f.run.v[i]);
			return SBX_EXIT_INTERNAL;
		}
	}
	if (audit_check_files("filter", argc, optind, follow, help) != 0)
		return SBX_EXIT_INTERNAL;
	volatile sig_atomic_t *stop = follow ? audit_stop_install() : NULL;
	int rc = 0;
	uint64_t damaged = 0;
	char *scratch = NULL; /* decoded members of the line being matched (--severity) */
	size_t scratch_cap = 0;
	for (int i = optind; i < argc; i++) {
		struct audit_reader r;
		char err[512];
		if (audit_reader_open(&r, argv[i], follow, stop, err, sizeof err) < 0) {
			sbx_msg("audit filter: %s", err);
			rc = SBX_EXIT_INTERNAL;
			continue;
		}
		r.on_idle = on_idle;
		const char *line, *damage;
		size_t len;
		int n;
		while ((n = audit_reader_next(&r, &line, &len, &damage)) == 1) {
			struct audit_line al;
			char msg[160];
			if (damage || audit_line_check(line, len, &al, false, msg, sizeof msg)) {
				damaged++;
				continue;
			}
			if (!match(&f, &al, len, &scratch, &scratch_cap))
				continue;
			if (fwrite(line, 1, len + 1, stdout) != len + 1) { /* the '\n' follows the line */
				sbx_msg("audit filter: write error: %s", strerror(errno));
				audit_reader_close(&r);
				free(scratch);
				return SBX_EXIT_INTERNAL;
			}
		}
		if (n < 0) {
			sbx_msg("audit filter: %s: read error: %s", argv[i], strerror(errno));
			rc = SBX_EXIT_INTERNAL;
		}
		audit_reader_close(&r);
	}
	if (fflush(stdout) != 0) {
		sbx_msg("audit filter: write error: %s", strerror(errno));
		rc = SBX_EXIT_INTERNAL;
	}
	free(scratch);
	if (damaged)
		sbx_msg("audit filter: %llu damaged line(s) skipped (run `sbxsup audit verify`)",
			(unsigned long long)damaged);
	return rc;
}
