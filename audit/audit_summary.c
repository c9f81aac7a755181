/* audit_summary.c — `sbxsup audit summary [--json] [--follow] FILE...`.
 *
 * Promise: streams the files through the aggregation model (bounded memory: per run and per
 * executor, never per line) and prints, most hostile first: BREACHES (a policy-violating syscall
 * that succeeded in the kernel) loudly at the top, then a table per executor and per run (denials
 * by layer, contained kernel violations, limits, env drops, lost events, exits), then the degraded
 * runs and the damaged-line count. --json prints the same as one JSON object. --follow (one FILE)
 * re-prints whenever the file grows, until interrupted.
 */
#include "review.h"
#include "audit_model.h"
#include "audit_read.h"
#include "cmd.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
		snprintf(out, len, "(no end)");
	else if (r->sig > 0)
		snprintf(out, len, "sig %lld", (long long)r->sig);
	else
		snprintf(out, len, "%lld", (long long)r->exit);
}

#define ULL(x) ((unsigned long long)(x))

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
	} else {
		fprintf(f, "no breaches: every policy-violating call was refused by some layer\n");
	}
	fprintf(f, "\nescape attempts: %llu (preload.deny %llu, seccomp.deny %llu, netfilter.deny %llu, "
		   "kernel.violation contained %llu, breach %llu); limits hit %llu; env drops %llu; lost events %llu\n",
		ULL(am_attempts(t)), ULL(t->preload), ULL(t->seccomp), ULL(t->netfilter), ULL(t->contained),
		ULL(t->breach), ULL(t->limit), ULL(t->envdrop), ULL(t->lost));

	fprintf(f, "\nEXECUTOR                          RUNS BREACH  ATTEMPTS CONTAINED  PRELOAD  SECCOMP NETFILTER "
		   "LIMITS ENVDROP   LOST DEGRADED NOEND  EXITS\n");
	for (size_t i = 0; i < m->nexecs; i++) {
		const struct am_exec *e = &m->execs[i];
		char ex[256];
		exits_text(e, ex, sizeof ex);
		fprintf(f, "%-32s %5llu %6llu %9llu %9llu %8llu %8llu %9llu %6llu %7llu %6llu %8llu %5llu  %s\n",
			e->name, ULL(e->runs), ULL(e->c.breach), ULL(am_attempts(&e->c)), ULL(e->c.contained),
			ULL(e->c.preload), ULL(e->c.seccomp), ULL(e->c.netfilter), ULL(e->c.limit),
			ULL(e->c.envdrop), ULL(e->c.lost), ULL(e->degraded), ULL(e->incomplete), ex);
	}
	fprintf(f, "\nRUN                               EXECUTOR             START                        EXIT   "
		   "BREACH ATTEMPTS CONTAINED PRELOAD SECCOMP NETF LIMITS  LOST\n");
	for (size_t i = 0; i < m->nruns; i++) {
		const struct am_run *r = &m->runs[i];
		char ex[32];
		run_exit_text(r, ex, sizeof ex);
		fprintf(f, "%-33s %-20.20s %-28s %-8s %5llu %8llu %9llu %7llu %7llu %4llu %6llu %5llu%s%s\n", r->id,
			r->executor, r->start, ex, ULL(r->c.breach), ULL(am_attempts(&r->c)), ULL(r->c.contained),
			ULL(r->c.preload), ULL(r->c.seccomp), ULL(r->c.netfilter), ULL(r->c.limit), ULL(r->c.lost),
			r->degraded ? "  DEGRADED" : "", r->has_start ? "" : "  (no run.start)");
	}
	size_t ndeg = 0;
	for (size_t i = 0; i < m->nruns; i++)
		ndeg += m->runs[i].degraded;
	if (ndeg) {
		fprintf(f, "\ndegraded runs (layers off):\n");
		for (size_t i = 0; i < m->nruns; i++)
			if (m->runs[i].degraded)
				fprintf(f, "  %s %s: %s%s\n", m->runs[i].id, m->runs[i].executor, m->runs[i].off,
					m->runs[i].sandbox_off ? "  [SANDBOX OFF]" : "");
	}
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
	cJSON_AddNumberToObject(o, "netfilter_deny", (double)c->netfilter);
	cJSON_AddNumberToObject(o, "limit_hit", (double)c->limit);
	cJSON_AddNumberToObject(o, "env_drop", (double)c->envdrop);
	cJSON_AddNumberToObject(o, "lost", (double)c->lost);
	cJSON_AddNumberToObject(o, "other", (double)c->other);
	return o;
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

static int print_json(const struct am *m, FILE *f)
{
	cJSON *root = cJSON_CreateObject();
	if (!root)
		return -1;
	cJSON_AddNumberToObject(root, "lines", (double)m->lines);
	cJSON_AddNumberToObject(root, "damaged_lines", (double)m->bad_lines);
	cJSON_AddNumberToObject(root, "runs", (double)m->nruns);
	cJSON_AddItemToObject(root, "totals", counts_json(&m->total));
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
		cJSON_AddNumberToObject(o, "runs", (double)e->runs);
		cJSON_AddNumberToObject(o, "degraded_runs", (double)e->degraded);
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
	cJSON *runs = cJSON_AddArrayToObject(root, "run_list");
	for (size_t i = 0; runs && i < m->nruns; i++) {
		const struct am_run *r = &m->runs[i];
		cJSON *o = cJSON_CreateObject();
		if (!o)
			break;
		cJSON_AddStringToObject(o, "run", r->id);
		cJSON_AddStringToObject(o, "executor", r->executor);
		cJSON_AddStringToObject(o, "start", r->start);
		if (r->has_end) {
			cJSON_AddStringToObject(o, "end", r->end);
			cJSON_AddNumberToObject(o, "exit", (double)r->exit);
			cJSON_AddNumberToObject(o, "signal", (double)r->sig);
			cJSON_AddNumberToObject(o, "duration_ms", (double)r->duration_ms);
		}
		cJSON_AddBoolToObject(o, "complete", r->has_start && r->has_end);
		cJSON_AddBoolToObject(o, "degraded", r->degraded);
		if (r->degraded)
			cJSON_AddStringToObject(o, "layers_off", r->off);
		cJSON_AddItemToObject(o, "counts", counts_json(&r->c));
		cJSON_AddItemToArray(runs, o);
	}
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
	"Per executor and per run: runs, exits, denials by layer (preload, seccomp, netfilter), kernel\n"
	"violations (contained / BREACH), limits hit, env drops, lost events, degraded runs. Executors and\n"
	"runs are listed most hostile first (breaches, then escape attempts). --follow (one FILE): print\n"
	"again each time the file grows, until interrupted.\n";

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
	struct am m;
	am_init(&m, false);
	struct follow_ctx fc = {.m = &m, .json = json};
	int rc = 0;
	for (int i = optind; i < argc; i++) {
		struct audit_reader r;
		char err[512];
		if (audit_reader_open(&r, argv[i], follow, stop, err, sizeof err) < 0) {
			sbx_msg("audit summary: %s", err);
			rc = SBX_EXIT_INTERNAL;
			continue;
		}
		if (follow) {
			r.on_idle = on_idle;
			r.idle_ctx = &fc;
		}
		int n = am_read(&m, &r);
		if (n < 0) {
			sbx_msg("audit summary: out of memory");
			audit_reader_close(&r);
			am_free(&m);
			return SBX_EXIT_INTERNAL;
		}
		if (n > 0) {
			sbx_msg("audit summary: %s: read error: %s", argv[i], strerror(errno));
			rc = SBX_EXIT_INTERNAL;
		}
		audit_reader_close(&r);
	}
	if (!follow || fc.printed_lines != m.lines || !fc.printed_lines) {
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
