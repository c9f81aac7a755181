/* audit_report.c — `sbxsup audit report --html OUT FILE...`.
 *
 * Promise: one self-contained HTML file for a security reviewer: inline CSS, no script, no
 * external resource of any kind (a Content-Security-Policy of default-src 'none' makes sure), so
 * it renders the same offline and in any browser. Order: overview counts, BREACHES, escape
 * attempts that reached the kernel, per-executor table, degraded runs, a timeline per run
 * (<details>, capped per run and overall). Every string from the stream is HTML-escaped: the
 * stream carries executor-controlled data. Key numbers carry stable ids / data attributes
 * (id="count-breach", data-executor=..., data-k=...) for tests and scripts. The page is written
 * to OUT.tmp and renamed, so OUT is never half-written.
 */
#include "review.h"
#include "audit_model.h"
#include "audit_read.h"
#include "cmd.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ULL(x) ((unsigned long long)(x))

static void esc(FILE *f, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&#39;", f); break;
		default: fputc(*s, f); break;
		}
	}
}

static const char css[] =
	"body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#111;background:#fff}"
	"h1{font-size:1.5em}h2{font-size:1.2em;margin-top:1.6em;border-bottom:1px solid #ccc}"
	"table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:2px 6px;"
	"text-align:left;vertical-align:top}th{background:#eee}td.n{text-align:right}"
	".cards{display:flex;flex-wrap:wrap;gap:.6em}.card{border:1px solid #ccc;border-radius:6px;"
	"padding:.4em .8em;min-width:7em}.card b{display:block;font-size:1.6em}"
	".bad{background:#fdd;border-color:#c00;color:#900}.warn{background:#ffe9c7}.ok{background:#e6f6e6}"
	"tr.breach td{background:#fdd}code,.mono{font-family:ui-monospace,monospace;font-size:12px}"
	"details{margin:.3em 0}summary{cursor:pointer}.ts{white-space:nowrap}"
	".verdict{border:1px solid #ccc;border-radius:6px;padding:.5em 1em;font-size:1.1em}";

/* The link to a run's timeline, showing the first 12 digits of its id (the reader validated ids
 * as 32 lowercase hex digits; the href is escaped all the same). */
static void run_link(FILE *f, const char *id)
{
	fputs("<a href=\"#run-", f);
	esc(f, id);
	fprintf(f, "\">%.12s</a>", id);
}

/* The event and detail cells that end every timeline row (both from the stream: escaped). */
static void event_cells(FILE *f, const struct am_item *it)
{
	fputs("<td>", f);
	esc(f, it->event);
	fputs("</td><td class=\"mono\">", f);
	esc(f, it->desc);
	fputs("</td></tr>\n", f);
}

static void card(FILE *f, const char *id, const char *label, uint64_t n, const char *cls)
{
	fprintf(f, "<div class=\"card %s\"><b><span id=\"count-%s\">%llu</span></b>%s</div>\n",
		n ? cls : "", id, ULL(n), label);
}

static void item_rows(FILE *f, const struct am_list *l, const char *cls)
{
	fputs("<table><tr><th>time (UTC)</th><th>executor</th><th>run</th><th>event</th><th>detail</th></tr>\n", f);
	for (size_t i = 0; i < l->n; i++) {
		const struct am_item *it = &l->v[i];
		fprintf(f, "<tr class=\"%s\" data-run=\"", cls);
		esc(f, it->run);
		fputs("\"><td class=\"mono ts\">", f);
		esc(f, it->ts);
		fputs("</td><td>", f);
		esc(f, it->executor);
		fputs("</td><td class=\"mono\">", f);
		run_link(f, it->run);
		fputs("</td>", f);
		event_cells(f, it);
	}
	fputs("</table>\n", f);
	if (l->dropped)
		fprintf(f, "<p>… and %llu more not listed (use <code>sbxsup audit filter</code>).</p>\n",
			ULL(l->dropped));
}

static void count_cells(FILE *f, const struct am_counts *c)
{
	fprintf(f,
		"<td class=\"n%s\" data-k=\"breach\">%llu</td><td class=\"n\" data-k=\"attempts\">%llu</td>"
		"<td class=\"n\" data-k=\"contained\">%llu</td><td class=\"n\" data-k=\"preload\">%llu</td>"
		"<td class=\"n\" data-k=\"seccomp\">%llu</td><td class=\"n\" data-k=\"netfilter\">%llu</td>"
		"<td class=\"n\" data-k=\"limit\">%llu</td><td class=\"n\" data-k=\"envdrop\">%llu</td>"
		"<td class=\"n\" data-k=\"lost\">%llu</td>",
		c->breach ? " bad" : "", ULL(c->breach), ULL(am_attempts(c)), ULL(c->contained), ULL(c->preload),
		ULL(c->seccomp), ULL(c->netfilter), ULL(c->limit), ULL(c->envdrop), ULL(c->lost));
}

static const char count_heads[] = "<th>breach</th><th>attempts</th><th>contained</th><th>preload.deny</th>"
				  "<th>seccomp.deny</th><th>netfilter.deny</th><th>limit.hit</th>"
				  "<th>env.drop</th><th>lost</th>";

static void write_page(FILE *f, const struct am *m, char **files, int nfiles)
{
	const struct am_counts *t = &m->total;
	size_t ndeg = 0, noend = 0;
	for (size_t i = 0; i < m->nruns; i++) {
		ndeg += m->runs[i].degraded;
		noend += !m->runs[i].has_end;
	}
	fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
		   "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'\">\n"
		   "<title>sbxsup audit report</title><style>%s</style></head><body>\n", css);
	fputs("<h1>sbxsup audit report</h1>\n<p>Input:", f);
	for (int i = 0; i < nfiles; i++) {
		fputs(" <code>", f);
		esc(f, files[i]);
		fputs("</code>", f);
	}
	fprintf(f, " — %llu line(s).</p>\n", ULL(m->lines));
	if (t->breach)
		fprintf(f, "<p class=\"verdict bad\" id=\"verdict\"><b>%llu BREACH(ES)</b>: a policy-violating system call "
			   "SUCCEEDED in the kernel. Treat the affected runs as compromised.</p>\n", ULL(t->breach));
	else
		fputs("<p class=\"verdict ok\" id=\"verdict\">No breach: every policy-violating call that was seen was "
		      "refused by some layer.</p>\n", f);

	fputs("<h2 id=\"overview\">Overview</h2>\n<div class=\"cards\">\n", f);
	card(f, "breach", "breaches", t->breach, "bad");
	card(f, "attempts", "escape attempts", am_attempts(t), "warn");
	card(f, "contained", "kernel violations contained", t->contained, "warn");
	card(f, "preload", "preload.deny", t->preload, "warn");
	card(f, "seccomp", "seccomp.deny", t->seccomp, "warn");
	card(f, "netfilter", "netfilter.deny", t->netfilter, "warn");
	card(f, "limit", "limits hit", t->limit, "warn");
	card(f, "envdrop", "env drops", t->envdrop, "");
	card(f, "lost", "lost events", t->lost, "bad");
	card(f, "runs", "runs", m->nruns, "");
	card(f, "executors", "executors", m->nexecs, "");
	card(f, "degraded", "degraded runs", ndeg, "warn");
	card(f, "incomplete", "runs without run.end", noend, "warn");
	card(f, "damaged", "damaged lines", m->bad_lines, "bad");
	card(f, "lines", "lines", m->lines, "");
	fputs("</div>\n", f);
	if (m->bad_lines)
		fputs("<p class=\"bad\">Damaged lines were skipped: run <code>sbxsup audit verify</code>.</p>\n", f);

	fputs("<h2 id=\"breaches\">Breaches</h2>\n", f);
	if (m->breaches.n)
		item_rows(f, &m->breaches, "breach");
	else
		fputs("<p>None.</p>\n", f);
	fputs("<h2 id=\"attempts\">Escape attempts that reached the kernel (contained)</h2>\n"
	      "<p>Policy-violating system calls that bypassed the preload layer and were refused by a kernel "
	      "layer.</p>\n", f);
	if (m->attempts.n)
		item_rows(f, &m->attempts, "contained");
	else
		fputs("<p>None.</p>\n", f);

	fprintf(f, "<h2 id=\"executors\">Executors (most hostile first)</h2>\n<table id=\"executor-table\"><tr>"
		   "<th>executor</th><th>runs</th>%s<th>degraded</th><th>no run.end</th><th>exits</th></tr>\n",
		count_heads);
	for (size_t i = 0; i < m->nexecs; i++) {
		const struct am_exec *e = &m->execs[i];
		fputs("<tr data-executor=\"", f);
		esc(f, e->name);
		fputs("\"><td>", f);
		esc(f, e->name);
		fprintf(f, "</td><td class=\"n\" data-k=\"runs\">%llu</td>", ULL(e->runs));
		count_cells(f, &e->c);
		fprintf(f, "<td class=\"n\" data-k=\"degraded\">%llu</td><td class=\"n\" data-k=\"incomplete\">%llu</td><td>",
			ULL(e->degraded), ULL(e->incomplete));
		for (size_t k = 0; k < e->nexits; k++)
			fprintf(f, "%s%s%lld×%llu", k ? ", " : "", e->exits[k].sig ? "signal " : "exit ",
				(long long)e->exits[k].code, ULL(e->exits[k].n));
		if (e->exits_other)
			fprintf(f, ", other×%llu", ULL(e->exits_other));
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n", f);

	fputs("<h2 id=\"degraded\">Degraded runs</h2>\n", f);
	if (!ndeg)
		fputs("<p>None: every run had all its layers.</p>\n", f);
	else {
		fputs("<table><tr><th>run</th><th>executor</th><th>start</th><th>layers off (why)</th></tr>\n", f);
		for (size_t i = 0; i < m->nruns; i++) {
			const struct am_run *r = &m->runs[i];
			if (!r->degraded)
				continue;
			fprintf(f, "<tr class=\"%s\" data-run=\"%s\"><td class=\"mono\">", r->sandbox_off ? "breach" : "",
				r->id);
			run_link(f, r->id);
			fputs("</td><td>", f);
			esc(f, r->executor);
			fputs("</td><td class=\"mono ts\">", f);
			esc(f, r->start);
			fputs("</td><td>", f);
			if (r->sandbox_off)
				fputs("<b>SANDBOX OFF</b>: ", f);
			esc(f, r->off);
			fputs("</td></tr>\n", f);
		}
		fputs("</table>\n", f);
	}

	fprintf(f, "<h2 id=\"runs\">Runs</h2>\n<table id=\"run-table\"><tr><th>run</th><th>executor</th><th>start</th>"
		   "<th>exit</th>%s</tr>\n", count_heads);
	for (size_t i = 0; i < m->nruns; i++) {
		const struct am_run *r = &m->runs[i];
		fprintf(f, "<tr data-run=\"%s\"><td class=\"mono\">", r->id);
		run_link(f, r->id);
		fputs("</td><td>", f);
		esc(f, r->executor);
		fputs("</td><td class=\"mono ts\">", f);
		esc(f, r->start);
		fputs("</td><td data-k=\"exit\">", f);
		if (!r->has_end)
			fputs("no run.end (truncated or running)", f);
		else if (r->sig > 0)
			fprintf(f, "signal %lld", (long long)r->sig);
		else
			fprintf(f, "%lld", (long long)r->exit);
		fputs("</td>", f);
		count_cells(f, &r->c);
		fputs("</tr>\n", f);
	}
	fputs("</table>\n<h2 id=\"timelines\">Timeline per run</h2>\n", f);
	for (size_t i = 0; i < m->nruns; i++) {
		const struct am_run *r = &m->runs[i];
		fprintf(f, "<details id=\"run-%s\"%s><summary><span class=\"mono\">%s</span> ", r->id,
			r->c.breach ? " open" : "", r->id);
		esc(f, r->executor);
		fprintf(f, " — %llu event(s)%s</summary>\n<table><tr><th>time (UTC)</th><th>event</th><th>detail</th></tr>\n",
			ULL(r->c.events), r->c.breach ? ", <b class=\"bad\">BREACH</b>" : "");
		for (size_t k = 0; k < r->ntl; k++) {
			const struct am_item *it = &r->tl[k];
			bool isb = strcmp(it->event, "kernel.violation") == 0 && strstr(it->desc, "outcome=breach");
			fprintf(f, "<tr%s><td class=\"mono\">", isb ? " class=\"breach\"" : "");
			esc(f, it->ts);
			fputs("</td>", f);
			event_cells(f, it);
		}
		fputs("</table>\n", f);
		if (r->tl_dropped)
			fprintf(f, "<p>… %llu more event(s) not shown (use <code>sbxsup audit filter --run %s</code>).</p>\n",
				ULL(r->tl_dropped), r->id);
		fputs("</details>\n", f);
	}
	fputs("<p><small>Generated by sbxsup " SBXSUP_VERSION ". Verify the input with "
	      "<code>sbxsup audit verify</code>: this page trusts the lines it read.</small></p>\n</body></html>\n", f);
}

static const char help[] =
	"usage: sbxsup audit report --html OUT FILE...   (\"-\" = stdin)\n"
	"Writes one self-contained HTML page (no scripts, no external resources): overview counts,\n"
	"breaches and escape attempts first, per-executor table, degraded runs, a timeline per run.\n";

int audit_report_main(int argc, char **argv)
{
	static const struct option opts[] = {{"html", required_argument, NULL, 'o'},
					     {"help", no_argument, NULL, 'h'},
					     {NULL, 0, NULL, 0}};
	const char *out = NULL;
	int c;
	static char prog[] = "sbxsup: audit report"; /* getopt's messages: "sbxsup: audit report: ..." */
	argv[0] = prog;
	optind = 1;
	while ((c = getopt_long(argc, argv, "o:h", opts, NULL)) != -1) {
		switch (c) {
		case 'o': out = optarg; break;
		case 'h': fputs(help, stdout); return 0;
		default: fputs(help, stderr); return SBX_EXIT_INTERNAL;
		}
	}
	if (!out || !*out || optind >= argc) {
		sbx_msg("audit report: --html OUT and at least one FILE are required");
		fputs(help, stderr);
		return SBX_EXIT_INTERNAL;
	}
	struct am m;
	am_init(&m, true);
	int rc = 0;
	for (int i = optind; i < argc; i++) {
		struct audit_reader r;
		char err[512];
		if (audit_reader_open(&r, argv[i], false, NULL, err, sizeof err) < 0) {
			sbx_msg("audit report: %s", err);
			rc = SBX_EXIT_INTERNAL;
			continue;
		}
		int n = am_read(&m, &r);
		if (n < 0) {
			sbx_msg("audit report: out of memory");
			audit_reader_close(&r);
			am_free(&m);
			return SBX_EXIT_INTERNAL;
		}
		if (n > 0) {
			sbx_msg("audit report: %s: read error: %s", argv[i], strerror(errno));
			rc = SBX_EXIT_INTERNAL;
		}
		audit_reader_close(&r);
	}
	if (rc) {
		am_free(&m);
		return rc;
	}
	am_finish(&m);
	char tmp[4096];
	if (snprintf(tmp, sizeof tmp, "%s.tmp", out) >= (int)sizeof tmp) {
		sbx_msg("audit report: %s: name too long", out);
		am_free(&m);
		return SBX_EXIT_INTERNAL;
	}
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f) {
		sbx_msg("audit report: %s: %s", tmp, strerror(errno));
		if (fd >= 0)
			close(fd);
		am_free(&m);
		return SBX_EXIT_INTERNAL;
	}
	write_page(f, &m, argv + optind, argc - optind);
	am_free(&m);
	int werr = ferror(f);
	if (fclose(f) != 0 || werr) {
		sbx_msg("audit report: writing %s failed", tmp);
		unlink(tmp);
		return SBX_EXIT_INTERNAL;
	}
	if (rename(tmp, out) < 0) {
		sbx_msg("audit report: %s: %s", out, strerror(errno));
		unlink(tmp);
		return SBX_EXIT_INTERNAL;
	}
	return 0;
}
