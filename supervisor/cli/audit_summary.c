/* audit_summary.c — `sbxsup audit summary [--json] [--follow] FILE...`.
 *
 * Promise: every FILE is opened before anything is read or printed (a missing file is an error,
 * exit 125, and no verdict at all); a read error also ends with 125 and no verdict. Then the
 * files stream through the aggregation model (bounded memory: per run, executor and event group,
 * never per line) and the summary is printed worst first: BREACHES loudly at the top, the verdict
 * counts, the totals by severity, the executors and then the runs ordered by their worst event and
 * their counts per severity; each run with what ran (command, workspace, manifest and its sha256,
 * caller tag, active layers, every layer that was off with its full reason) and its worst event
 * groups with the rule that decided each. info events (benign libc behaviour) are grouped and
 * never counted as escape attempts. --json prints the same as one JSON object (docs/review-json.md).
 * --follow (one FILE) re-prints whenever the file grows, until interrupted.
 */
#include "review.h"
#include "audit_model.h"
#include "audit_read.h"
#include "msg.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ULL(x) ((unsigned long long)(x))
#define FINDINGS_TEXT 8   /* event groups listed per run in the text summary */
#define PEERS_TEXT 8      /* "talked to" hosts listed per run in the text summary */

static void exits_text(const struct am_exec *e, char *out, size_t len)
{
	size_t p = 0;
	out[0] = '\0';
	for (size_t i = 0; i < e->nexits && p + 1 < len; i++) {
		int w = snprintf(out + p, len - p, "%s%s%lld:%llu", p ? " " : "", e->exits[i].sig ? "sig" : "",
				 (long long)e->exits[i].code, (unsigned long long)e->exits[i].n);
		if (w < 0)
			break;
		p += (size_t)w;
		if (p >= len)
			p = len - 1;
	}
	if (e->exits_other && p + 1 < len)
		snprintf(out + p, len - p, " other:%llu", (unsigned long long)e->exits_other);
	if (!out[0])
		snprintf(out, len, "-");
}

static void run_exit_text(const struct am_run *r, char *out, size_t len)
{
	if (!r->has_end)
		snprintf(out, len, "(no run.end)");
	else if (r->sig > 0)
		snprintf(out, len, "signal %lld", (long long)r->sig);
	else
		snprintf(out, len, "%lld", (long long)r->exit);
}

static const char *sev_or(enum sbx_sev s) { return sbx_sev_name(s) ? sbx_sev_name(s) : "-"; }

static void print_group(FILE *f, const struct am_group *g)
{
	bool acc = g->access[0] && strcmp(g->access, g->what) != 0;
	fprintf(f, "      %-8s x%-5llu %s %s%s%s %s", sev_or(g->sev), ULL(g->n), g->event, g->what, acc ? " " : "",
		acc ? g->access : "", g->subject);
	if (g->outcome[0])
		fprintf(f, " (%s)", g->outcome);
	if (g->comm[0])
		fprintf(f, "  comm %s", g->comm);
	fprintf(f, "  <- rule: %s\n", am_group_rule(g));
}

static void print_run(FILE *f, size_t rank, const struct am_run *r)
{
	char ex[32];
	run_exit_text(r, ex, sizeof ex);
	const struct am_counts *c = &r->c;
	fprintf(f, "#%zu %-10s %s  executor %s  program %s  start %s  exit %s\n", rank, am_verdict(r), r->id,
		r->executor, am_program(r) ? am_program(r) : "?", r->start[0] ? r->start : "-", ex);
	fprintf(f, "    severity:  critical %llu, high %llu, medium %llu, low %llu; info %llu (benign)%s\n",
		ULL(c->sev[SBX_SEV_CRITICAL]), ULL(c->sev[SBX_SEV_HIGH]), ULL(c->sev[SBX_SEV_MEDIUM]),
		ULL(c->sev[SBX_SEV_LOW]), ULL(c->sev[SBX_SEV_INFO]), c->breach ? "  !!! BREACH" : "");
	if (!r->has_start) {
		fprintf(f, "    (no run.start in the input: what ran is unknown)\n");
	} else {
		fprintf(f, "    command:   %s\n", r->argv ? r->argv : "(not recorded)");
		fprintf(f, "    workspace: %s\n", r->workspace && *r->workspace ? r->workspace : "(not recorded)");
		fprintf(f, "    manifest:  %s  sha256 %s\n", r->manifest_path ? r->manifest_path : "(not recorded)",
			r->manifest_sha ? r->manifest_sha : "-");
		fprintf(f, "    tag:       %s\n", r->tag ? r->tag : "-");
		fprintf(f, "    layers:    %s\n", r->layers_on ? (*r->layers_on ? r->layers_on : "(none)") : "(not recorded)");
		if (r->degraded)
			fprintf(f, "    layers off:%s %s\n", r->sandbox_off ? " [SANDBOX OFF]" : "", r->off ? r->off : "");
	}
	size_t shown = 0, more = 0;
	uint64_t info_groups = 0;
	for (size_t k = 0; k < r->ng; k++) {
		const struct am_group *g = &r->g[k];
		if (g->sev == SBX_SEV_INFO) {
			info_groups++;
			continue;
		}
		if (shown < FINDINGS_TEXT) {
			print_group(f, g);
			shown++;
		} else
			more++;
	}
	if (more)
		fprintf(f, "      ... %zu more group(s): sbxsup audit filter --run %s FILE\n", more, r->id);
	if (c->sev[SBX_SEV_INFO])
		fprintf(f, "      info     %llu benign event(s) in %llu group(s), not counted as attempts\n",
			ULL(c->sev[SBX_SEV_INFO]), ULL(info_groups));
	if (r->ungrouped)
		fprintf(f, "      ... %llu event(s) past the grouping cap (counted above, not grouped)\n", ULL(r->ungrouped));
	if (r->npeers) {
		fprintf(f, "    talked to: %zu host(s), %llu connection(s) through the gateway (most bytes first)\n",
			r->npeers, ULL(c->flows));
		for (size_t k = 0; k < r->npeers && k < PEERS_TEXT; k++) {
			const struct am_peer *p = &r->peers[k];
			fprintf(f, "      %s:%.0f  %llu connection(s), %llu B out, %llu B in\n", p->host, p->port,
				ULL(p->conns), ULL(p->out), ULL(p->in));
		}
		if (r->npeers > PEERS_TEXT)
			fprintf(f, "      ... %zu more host(s): sbxsup audit summary --json\n", r->npeers - PEERS_TEXT);
		if (r->peers_dropped)
			fprintf(f, "      ... %llu connection(s) to hosts past the cap (counted, not listed)\n",
				ULL(r->peers_dropped));
	}
}

static void print_text(const struct am *m, FILE *f)
{
	const struct am_counts *t = &m->total;
	fprintf(f, "sbxsup audit summary: %llu line(s), %zu run(s), %zu executor(s)", ULL(m->lines), m->nruns,
		m->nexecs);
	if (m->bad_lines)
		fprintf(f, ", %llu DAMAGED line(s) skipped (run `sbxsup audit verify`)", ULL(m->bad_lines));
	fputc('\n', f);
	if (t->breach) {
		fprintf(f, "\n!!! %llu BREACH(ES): a policy-violating syscall SUCCEEDED in the kernel !!!\n",
			ULL(t->breach));
		for (size_t i = 0; i < m->breaches.n; i++) {
			const struct am_item *b = &m->breaches.v[i];
			fprintf(f, "!!! %s  %s  run %.12s  %s\n", b->ts, b->executor, b->run, b->desc);
		}
		if (m->breaches.dropped)
			fprintf(f, "!!! ... and %llu more\n", ULL(m->breaches.dropped));
	} else if (m->nruns == 0) {
		fprintf(f, "no runs: the input holds no event\n");
	} else {
		fprintf(f, "no breaches: every policy-violating call was refused by some layer\n");
	}
	static const char *const verdicts[] = {"breach", "hostile", "suspicious", "contained", "clean"};
	fprintf(f, "runs by verdict:");
	for (size_t v = 0; v < sizeof verdicts / sizeof verdicts[0]; v++) {
		size_t n = 0;
		for (size_t i = 0; i < m->nruns; i++)
			n += strcmp(am_verdict(&m->runs[i]), verdicts[v]) == 0;
		fprintf(f, "%s %s %zu", v ? "," : "", verdicts[v], n);
	}
	fprintf(f, "\nseverity: critical %llu, high %llu, medium %llu, low %llu; info %llu (benign libc/tool behaviour, "
		   "not counted)\n",
		ULL(t->sev[SBX_SEV_CRITICAL]), ULL(t->sev[SBX_SEV_HIGH]), ULL(t->sev[SBX_SEV_MEDIUM]),
		ULL(t->sev[SBX_SEV_LOW]), ULL(t->sev[SBX_SEV_INFO]));
	fprintf(f, "escape attempts: %llu (preload.deny %llu, seccomp.deny %llu, landlock.deny %llu, netfilter.deny %llu, "
		   "kernel.violation contained %llu, breach %llu; info excluded); limits hit %llu; env drops %llu; "
		   "lost events %llu\n",
		ULL(am_attempts(t)), ULL(t->preload), ULL(t->seccomp), ULL(t->landlock), ULL(t->netfilter),
		ULL(t->contained), ULL(t->breach), ULL(t->limit), ULL(t->envdrop), ULL(t->lost));
	if (t->flows || t->gateway || t->names)
		fprintf(f, "network gateway: %llu connection(s) recorded (net.flow), %llu name(s) resolved (dns.answer), "
			   "%llu refusal(s) (net.deny, dns.deny)\n", ULL(t->flows), ULL(t->names), ULL(t->gateway));

	fprintf(f, "\nEXECUTORS (worst first)\n");
	fprintf(f, "EXECUTOR                          RUNS WORST     CRIT   HIGH    MED    LOW   INFO BREACH PRELOAD "
		   "SECCOMP LANDLOCK NETF PROBES LIMITS ENVDROP  LOST DEGRADED NOEND  EXITS\n");
	for (size_t i = 0; i < m->nexecs; i++) {
		const struct am_exec *e = &m->execs[i];
		const struct am_counts *c = &e->c;
		char ex[256];
		exits_text(e, ex, sizeof ex);
		fprintf(f, "%-32s %5llu %-8s %6llu %6llu %6llu %6llu %6llu %6llu %7llu %7llu %8llu %4llu %6llu %6llu %7llu "
			   "%5llu %8llu %5llu  %s\n",
			e->name, ULL(e->runs), sev_or(am_worst(c)), ULL(c->sev[SBX_SEV_CRITICAL]), ULL(c->sev[SBX_SEV_HIGH]),
			ULL(c->sev[SBX_SEV_MEDIUM]), ULL(c->sev[SBX_SEV_LOW]), ULL(c->sev[SBX_SEV_INFO]), ULL(c->breach),
			ULL(c->preload), ULL(c->seccomp), ULL(c->landlock), ULL(c->netfilter), ULL(c->contained + c->breach),
			ULL(c->limit), ULL(c->envdrop), ULL(c->lost), ULL(e->degraded), ULL(e->incomplete), ex);
	}
	fprintf(f, "\nRUNS (worst first)\n   # VERDICT    RUN           EXECUTOR             PROGRAM              CRIT   HIGH    MED"
		   "    LOW   INFO  EXIT\n");
	for (size_t i = 0; i < m->nruns; i++) {
		const struct am_run *r = &m->runs[i];
		const struct am_counts *c = &r->c;
		char ex[32];
		run_exit_text(r, ex, sizeof ex);
		fprintf(f, "%4zu %-10s %.12s  %-20.20s %-20.20s %5llu %6llu %6llu %6llu %6llu  %s%s\n", i + 1, am_verdict(r),
			r->id, r->executor, am_program(r) ? am_program(r) : "?", ULL(c->sev[SBX_SEV_CRITICAL]),
			ULL(c->sev[SBX_SEV_HIGH]), ULL(c->sev[SBX_SEV_MEDIUM]), ULL(c->sev[SBX_SEV_LOW]),
			ULL(c->sev[SBX_SEV_INFO]), ex, r->degraded ? "  DEGRADED" : "");
	}
	fprintf(f, "\nRUN DETAILS (same order: what ran; event groups worst first, with the rule that decided each)\n");
	for (size_t i = 0; i < m->nruns; i++)
		print_run(f, i + 1, &m->runs[i]);
	fflush(f);
}

static cJSON *counts_json(const struct am_counts *c)
{
	cJSON *o = cJSON_CreateObject();
	if (!o)
		return NULL;
	cJSON_AddNumberToObject(o, "events", (double)c->events);
	cJSON_AddNumberToObject(o, "attempts", (double)am_attempts(c));
	cJSON_AddNumberToObject(o, "breach", (double)c->breach);
	cJSON_AddNumberToObject(o, "contained", (double)c->contained);
	cJSON_AddNumberToObject(o, "preload_deny", (double)c->preload);
	cJSON_AddNumberToObject(o, "seccomp_deny", (double)c->seccomp);
	cJSON_AddNumberToObject(o, "landlock_deny", (double)c->landlock);
	cJSON_AddNumberToObject(o, "netfilter_deny", (double)c->netfilter);
	cJSON_AddNumberToObject(o, "gateway_deny", (double)c->gateway);
	cJSON_AddNumberToObject(o, "net_flow", (double)c->flows);
	cJSON_AddNumberToObject(o, "dns_answer", (double)c->names);
	cJSON_AddNumberToObject(o, "limit_hit", (double)c->limit);
	cJSON_AddNumberToObject(o, "env_drop", (double)c->envdrop);
	cJSON_AddNumberToObject(o, "lost", (double)c->lost);
	cJSON_AddNumberToObject(o, "other", (double)c->other);
	cJSON *s = cJSON_AddObjectToObject(o, "severity");
	for (int k = SBX_SEV_CRITICAL; s && k >= SBX_SEV_INFO; k--)
		cJSON_AddNumberToObject(s, sbx_sev_name(k), (double)c->sev[k]);
	return o;
}

static void add_str_or_null(cJSON *o, const char *k, const char *v)
{
	if (v)
		cJSON_AddStringToObject(o, k, v);
	else
		cJSON_AddNullToObject(o, k);
}

static cJSON *item_json(const struct am_item *it)
{
	cJSON *o = cJSON_CreateObject();
	if (!o)
		return NULL;
	cJSON_AddStringToObject(o, "ts", it->ts);
	cJSON_AddStringToObject(o, "executor", it->executor);
	cJSON_AddStringToObject(o, "run", it->run);
	cJSON_AddStringToObject(o, "event", it->event);
	cJSON_AddStringToObject(o, "detail", it->desc);
	return o;
}

static cJSON *group_json(const struct am_group *g)
{
	cJSON *o = cJSON_CreateObject();
	if (!o)
		return NULL;
	cJSON_AddStringToObject(o, "sev", sev_or(g->sev));
	cJSON_AddStringToObject(o, "sev_entry", g->sev_id);
	cJSON_AddNumberToObject(o, "count", (double)g->n);
	cJSON_AddStringToObject(o, "event", g->event);
	cJSON_AddStringToObject(o, "layer", am_layer_names[g->layer]);
	cJSON_AddStringToObject(o, "op", g->what);
	cJSON_AddStringToObject(o, "subject", g->subject);
	cJSON_AddStringToObject(o, "access", g->access);
	cJSON_AddStringToObject(o, "rule", am_group_rule(g)); /* never empty: what decided */
	cJSON_AddStringToObject(o, "outcome", g->outcome);
	cJSON_AddStringToObject(o, "comm", g->comm);
	cJSON_AddStringToObject(o, "first_ts", g->first);
	cJSON_AddStringToObject(o, "last_ts", g->last);
	return o;
}

static cJSON *run_json(const struct am_run *r)
{
	cJSON *o = cJSON_CreateObject();
	if (!o)
		return NULL;
	cJSON_AddStringToObject(o, "run", r->id);
	cJSON_AddStringToObject(o, "executor", r->executor);
	cJSON_AddStringToObject(o, "verdict", am_verdict(r));
	add_str_or_null(o, "worst", sbx_sev_name(am_worst(&r->c)));
	cJSON_AddStringToObject(o, "start", r->start);
	if (r->has_end) {
		cJSON_AddStringToObject(o, "end", r->end);
		cJSON_AddNumberToObject(o, "exit", (double)r->exit);
		cJSON_AddNumberToObject(o, "signal", (double)r->sig);
		cJSON_AddNumberToObject(o, "duration_ms", (double)r->duration_ms);
	}
	cJSON_AddBoolToObject(o, "complete", r->has_start && r->has_end);
	add_str_or_null(o, "program", am_program(r));
	add_str_or_null(o, "command", r->argv);
	cJSON *av = cJSON_AddArrayToObject(o, "argv");
	for (size_t i = 0; av && i < r->nargs; i++)
		cJSON_AddItemToArray(av, cJSON_CreateString(r->args[i]));
	add_str_or_null(o, "workspace", r->workspace);
	cJSON *man = cJSON_AddObjectToObject(o, "manifest");
	if (man) {
		add_str_or_null(man, "path", r->manifest_path);
		add_str_or_null(man, "sha256", r->manifest_sha);
	}
	add_str_or_null(o, "tag", r->tag);
	add_str_or_null(o, "autonomy", r->autonomy);
	cJSON *la = cJSON_AddArrayToObject(o, "layers_active");
	if (la && r->layers_on)
		for (const char *p = r->layers_on; *p;) {
			size_t n = strcspn(p, ",");
			char name[64];
			snprintf(name, sizeof name, "%.*s", (int)(n < 63 ? n : 63), p);
			cJSON_AddItemToArray(la, cJSON_CreateString(name));
			p += n;
			p += strspn(p, ", ");
		}
	cJSON_AddBoolToObject(o, "degraded", r->degraded);
	cJSON_AddBoolToObject(o, "sandbox_off", r->sandbox_off);
	if (r->degraded)
		cJSON_AddStringToObject(o, "layers_off", r->off ? r->off : "");
	cJSON *why = cJSON_AddObjectToObject(o, "layers_off_why");
	for (size_t i = 0; why && i < r->noff; i++)
		cJSON_AddStringToObject(why, r->off_name[i], r->off_why[i]);
	cJSON_AddItemToObject(o, "counts", counts_json(&r->c));
	cJSON *fa = cJSON_AddArrayToObject(o, "findings");
	for (size_t k = 0; fa && k < r->ng; k++)
		cJSON_AddItemToArray(fa, group_json(&r->g[k]));
	cJSON_AddNumberToObject(o, "findings_ungrouped", (double)r->ungrouped);
	cJSON *tt = cJSON_AddArrayToObject(o, "talked_to");
	for (size_t k = 0; tt && k < r->npeers; k++) {
		const struct am_peer *p = &r->peers[k];
		cJSON *po = cJSON_CreateObject();
		if (!po)
			break;
		cJSON_AddStringToObject(po, "host", p->host);
		cJSON_AddNumberToObject(po, "port", p->port);
		cJSON_AddNumberToObject(po, "connections", (double)p->conns);
		cJSON_AddNumberToObject(po, "bytes_out", (double)p->out);
		cJSON_AddNumberToObject(po, "bytes_in", (double)p->in);
		cJSON_AddItemToArray(tt, po);
	}
	cJSON_AddNumberToObject(o, "talked_to_not_listed", (double)r->peers_dropped);
	return o;
}

static int print_json(const struct am *m, FILE *f)
{
	cJSON *root = cJSON_CreateObject();
	if (!root)
		return -1;
	cJSON_AddStringToObject(root, "schema", "sbxsup-review-summary/1");
	cJSON_AddNumberToObject(root, "lines", (double)m->lines);
	cJSON_AddNumberToObject(root, "damaged_lines", (double)m->bad_lines);
	cJSON_AddNumberToObject(root, "run_count", (double)m->nruns);
	cJSON_AddNumberToObject(root, "executor_count", (double)m->nexecs);
	cJSON_AddItemToObject(root, "totals", counts_json(&m->total));
	add_str_or_null(root, "worst", sbx_sev_name(am_worst(&m->total)));
	cJSON *br = cJSON_AddArrayToObject(root, "breaches");
	for (size_t i = 0; br && i < m->breaches.n; i++)
		cJSON_AddItemToArray(br, item_json(&m->breaches.v[i]));
	cJSON_AddNumberToObject(root, "breaches_not_listed", (double)m->breaches.dropped);
	cJSON *ex = cJSON_AddArrayToObject(root, "executors");
	for (size_t i = 0; ex && i < m->nexecs; i++) {
		const struct am_exec *e = &m->execs[i];
		cJSON *o = cJSON_CreateObject();
		if (!o)
			break;
		cJSON_AddStringToObject(o, "name", e->name);
		add_str_or_null(o, "worst", sbx_sev_name(am_worst(&e->c)));
		cJSON_AddNumberToObject(o, "runs", (double)e->runs);
		cJSON_AddNumberToObject(o, "degraded_runs", (double)e->degraded);
		cJSON_AddNumberToObject(o, "incomplete_runs", (double)e->incomplete);
		cJSON_AddItemToObject(o, "counts", counts_json(&e->c));
		cJSON *exits = cJSON_AddObjectToObject(o, "exits");
		for (size_t k = 0; exits && k < e->nexits; k++) {
			char key[32];
			snprintf(key, sizeof key, "%s%lld", e->exits[k].sig ? "sig" : "", (long long)e->exits[k].code);
			cJSON_AddNumberToObject(exits, key, (double)e->exits[k].n);
		}
		if (exits && e->exits_other)
			cJSON_AddNumberToObject(exits, "other", (double)e->exits_other);
		cJSON_AddItemToArray(ex, o);
	}
	cJSON *runs = cJSON_AddArrayToObject(root, "runs");
	for (size_t i = 0; runs && i < m->nruns; i++)
		cJSON_AddItemToArray(runs, run_json(&m->runs[i]));
	char *s = cJSON_PrintUnformatted(root);
	cJSON_Delete(root);
	if (!s)
		return -1;
	fprintf(f, "%s\n", s);
	fflush(f);
	free(s);
	return 0;
}

struct follow_ctx {
	struct am *m;
	bool json;
	uint64_t printed_lines;
};

static void print_now(struct follow_ctx *fc)
{
	struct am *m = fc->m;
	if (m->lines == fc->printed_lines && fc->printed_lines)
		return;
	fc->printed_lines = m->lines;
	am_finish(m);
	if (fc->json)
		print_json(m, stdout);
	else {
		fputs("\n==== ", stdout);
		print_text(m, stdout);
	}
}

static void on_idle(void *ctx) { print_now(ctx); }

static const char help[] =
	"usage: sbxsup audit summary [--json] [--follow] FILE...   (\"-\" = stdin)\n"
	"Executors and runs worst first: by their worst event (critical: secret path or breach; high: write\n"
	"outside the grants, network, exec, escape-class syscall; medium; low: other reads), then by their\n"
	"counts per severity. info events (benign libc/tool behaviour such as the nscd socket probe) are\n"
	"grouped and not counted as escape attempts. Each run shows its verdict (breach, hostile,\n"
	"suspicious, contained, clean), what ran (command, workspace, manifest + sha256, tag, active layers,\n"
	"layers off with their reasons) and its repeated events grouped with counts and the rule that\n"
	"decided each. --json: one JSON object, schema in docs/review-json.md (\"runs\" is the list of runs).\n"
	"--follow (one FILE): print again each time the file grows, until interrupted.\n"
	"Exit status: 0; 125 when a FILE cannot be opened or read (nothing else is printed then).\n";

int audit_summary_main(int argc, char **argv)
{
	static const struct option opts[] = {{"json", no_argument, NULL, 'j'},
					     {"follow", no_argument, NULL, 'f'},
					     {"help", no_argument, NULL, 'h'},
					     {NULL, 0, NULL, 0}};
	bool json = false, follow = false;
	int c;
	static char prog[] = "sbxsup: audit summary"; /* getopt's messages: "sbxsup: audit summary: ..." */
	argv[0] = prog;
	optind = 1;
	while ((c = getopt_long(argc, argv, "jfh", opts, NULL)) != -1) {
		switch (c) {
		case 'j': json = true; break;
		case 'f': follow = true; break;
		case 'h': fputs(help, stdout); return 0;
		default: fputs(help, stderr); return SBX_EXIT_INTERNAL;
		}
	}
	if (audit_check_files("summary", argc, optind, follow, help) != 0)
		return SBX_EXIT_INTERNAL;
	volatile sig_atomic_t *stop = follow ? audit_stop_install() : NULL;
	int nf = argc - optind;
	struct audit_reader *rs = calloc((size_t)nf, sizeof *rs);
	if (!rs) {
		sbx_msg("audit summary: out of memory");
		return SBX_EXIT_INTERNAL;
	}
	if (audit_open_inputs("summary", argv + optind, nf, follow, stop, rs) != 0) {
		free(rs);
		return SBX_EXIT_INTERNAL;
	}
	struct am m;
	am_init(&m, false);
	struct follow_ctx fc = {.m = &m, .json = json};
	int rc = 0;
	for (int i = 0; i < nf; i++) {
		if (follow) {
			rs[i].on_idle = on_idle;
			rs[i].idle_ctx = &fc;
		}
		int n = rc ? 0 : am_read(&m, &rs[i]);
		if (n < 0) {
			sbx_msg("audit summary: out of memory");
			rc = SBX_EXIT_INTERNAL;
		} else if (n > 0) {
			sbx_msg("audit summary: %s: read error: %s", argv[optind + i], strerror(errno));
			rc = SBX_EXIT_INTERNAL;
		}
		audit_reader_close(&rs[i]);
	}
	free(rs);
	if (!rc && (!follow || fc.printed_lines != m.lines || !fc.printed_lines)) {
		am_finish(&m);
		if (json) {
			if (print_json(&m, stdout) < 0) {
				sbx_msg("audit summary: out of memory");
				rc = SBX_EXIT_INTERNAL;
			}
		} else
			print_text(&m, stdout);
	}
	am_free(&m);
	return rc;
}
