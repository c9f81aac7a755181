/* audit_report.c — `sbxsup audit report --html OUT FILE...`.
 *
 * Promise: one self-contained HTML file for a security reviewer: inline CSS and one inline script,
 * no external resource of any kind; the Content-Security-Policy is default-src 'none' with the
 * script allowed only by its SHA-256 hash, so nothing else can run even if a string from the
 * stream got through. At the top, the verdict per run, worst first (breach, hostile, suspicious,
 * contained, clean), each with its worst event groups and the rule that stopped each; then the
 * overview counts, a search / filter box (client-side: text, minimum severity, layer), the
 * executors, the degraded runs, and per run what ran (command, workspace, manifest + sha256, tag,
 * layers active and off with their full reasons), an inline SVG timeline of its events by layer,
 * and its events grouped with counts (benign "info" groups folded apart). Every denial links to
 * the rule that decided it (#rule-N in the "Rules" table, which says what kind of rule it is).
 * Every string from the stream is HTML-escaped: the stream carries executor-controlled data.
 * Memory and page size are bounded by the model's group and timeline caps, not by the number of
 * lines (a 100 000-event stream renders in a browser in well under 2 s). Key numbers carry stable
 * ids / data attributes (id="count-critical", data-run, data-verdict, data-sev, data-k) for tests;
 * <html data-ready-ms> is set by the script once the page is laid out. A link ending in
 * "#filter?q=TEXT&sev=high&layer=preload" opens the page already filtered. The page is written to
 * OUT.tmp and renamed, so OUT is never half-written.
 */
#include "review.h"
#include "audit_model.h"
#include "audit_read.h"
#include "msg.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define ULL(x) ((unsigned long long)(x))
#define TOP_FINDINGS 4     /* groups shown per run in the verdict table */
#define SVG_W 720
#define SVG_COLS 240
#define ROWS_PER_RUN 40   /* event groups listed per run and kind (info apart), the rest counted */
#define ROWS_BUDGET 3000  /* event group rows in the whole page (runs worst first; each keeps 3) */

static void esc(FILE *f, const char *s)
{
	for (; s && *s; s++) {
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
	"body{font:14px/1.4 system-ui,sans-serif;margin:1.2em;color:#111;background:#fff}"
	"h1{font-size:1.4em;margin:.2em 0}h2{font-size:1.15em;margin-top:1.4em;border-bottom:1px solid #ccc}"
	"h3{font-size:1.05em;margin:.4em 0}"
	"table{border-collapse:collapse;margin:.4em 0}td,th{border:1px solid #ccc;padding:2px 6px;"
	"text-align:left;vertical-align:top}th{background:#eee}td.n{text-align:right}"
	".cards{display:flex;flex-wrap:wrap;gap:.5em}.card{border:1px solid #ccc;border-radius:6px;"
	"padding:.3em .7em;min-width:6em}.card b{display:block;font-size:1.4em}"
	".bad{background:#fdd;border-color:#c00;color:#900}.warn{background:#ffe9c7}.ok{background:#e6f6e6}"
	"code,.mono{font-family:ui-monospace,monospace;font-size:12px}"
	"details{margin:.3em 0}summary{cursor:pointer}.ts{white-space:nowrap}"
	".verdict{border:1px solid #ccc;border-radius:6px;padding:.4em 1em;font-size:1.05em;margin:.4em 0}"
	".badge{display:inline-block;padding:0 .45em;border-radius:4px;font-weight:bold;font-size:12px;"
	"text-transform:uppercase;white-space:nowrap}"
	".sev-critical,.v-breach,.v-hostile{background:#b00000;color:#fff}.sev-high,.v-suspicious{background:#e65c00;color:#fff}"
	".sev-medium{background:#e0b000;color:#000}.sev-low,.v-contained{background:#5b8fb0;color:#fff}"
	".sev-info,.v-clean{background:#ccc;color:#222}"
	"ul.top{margin:0;padding-left:1em}ul.top li{margin:0}"
	"section.run{border:1px solid #ddd;border-radius:6px;padding:.3em .8em;margin:.8em 0;"
	"content-visibility:auto;contain-intrinsic-size:auto 500px}"
	"dl.meta{display:grid;grid-template-columns:max-content auto;gap:0 1em;margin:.3em 0}"
	"dl.meta dt{font-weight:bold}dl.meta dd{margin:0;word-break:break-all}"
	"#filterbox{position:sticky;top:0;background:#f7f7f7;border:1px solid #ccc;padding:.4em;z-index:2}"
	"svg text{font:10px sans-serif}";

static const char script[] =
	"(function(){"
	"var d=document,q=d.getElementById('q'),sv=d.getElementById('sev'),ly=d.getElementById('layer'),"
	"out=d.getElementById('shown'),rows=[].slice.call(d.querySelectorAll('tr.g')),"
	"secs=[].slice.call(d.querySelectorAll('section.run')),"
	"rank={info:1,low:2,medium:3,high:4,critical:5},keys=rows.map(function(r){return r.textContent.toLowerCase()});"
	"function apply(){var s=q.value.toLowerCase().trim(),min=rank[sv.value]||0,l=ly.value,n=0,on=s||min||l;"
	"for(var i=0;i<rows.length;i++){var r=rows[i],ok=(!s||keys[i].indexOf(s)>=0)&&"
	"(rank[r.getAttribute('data-sev')]||0)>=min&&(!l||r.getAttribute('data-layer')===l);r.hidden=!ok;if(ok)n++}"
	"secs.forEach(function(x){var v=x.querySelector('tr.g:not([hidden])');x.hidden=!!on&&!v;"
	"if(on&&v){var dt=x.querySelector('details.info');if(dt&&dt.querySelector('tr.g:not([hidden])'))dt.open=true}});"
	"out.textContent=n+' of '+rows.length+' event group(s) shown'}"
	"q.addEventListener('input',apply);sv.addEventListener('change',apply);ly.addEventListener('change',apply);"
	"var h=location.hash;if(h.indexOf('#filter?')===0){var u=new URLSearchParams(h.slice(8));"
	"q.value=u.get('q')||'';sv.value=u.get('sev')||'';ly.value=u.get('layer')||''}"
	"d.getElementById('filterbox').hidden=false;apply();void d.body.offsetHeight;"
	"d.documentElement.setAttribute('data-ready-ms',String(Math.round(performance.now())))})();";

/* ---- rules: each distinct rule text gets an anchor ---------------------------------------------- */

#define RULE_MANIFESTS 3
struct rule_ent {
	const char *text;
	uint64_t n;
	enum sbx_sev worst;
	const char *manifest[RULE_MANIFESTS]; /* manifests of the runs it decided in (first few) */
	size_t nman;
	bool more_manifests;
};
struct rules { struct rule_ent *v; size_t n, cap; };

static size_t rule_id(struct rules *rs, const char *text)
{
	for (size_t i = 0; i < rs->n; i++)
		if (strcmp(rs->v[i].text, text) == 0)
			return i;
	if (rs->n == rs->cap) {
		size_t nc = rs->cap ? rs->cap * 2 : 32;
		struct rule_ent *v = realloc(rs->v, nc * sizeof *v);
		if (!v)
			return (size_t)-1;
		rs->v = v;
		rs->cap = nc;
	}
	rs->v[rs->n] = (struct rule_ent){.text = text};
	return rs->n++;
}

static const char *rule_kind(const char *t)
{
	static const struct { const char *prefix, *kind; } k[] = {
		{"deny[", "manifest deny rule: wins over every grant, in every layer that can express it"},
		{"capabilities[", "manifest grant (this access is outside what it grants)"},
		{"builtin:secret:", "built-in never-readable list (secrets: shadow, ssh/gpg/cloud credentials, ...)"},
		{"builtin:home-blanket:", "built-in: /root and other users' homes are not readable"},
		{"builtin:", "built-in rule of sbxsup"},
		{"default: not granted", "no rule of the manifest grants this access (default deny)"},
		{"network: no capability", "the manifest has no network capability"},
		{"network:", "network rule"},
		{"no code:exec capability", "the manifest has no code:exec capability: no program may be started"},
		{"escape-class syscall", "built-in (probes): system calls that escape or weaken a sandbox"},
		{"signal outside the run", "built-in (probes): signals only within the run"},
		{"abstract unix socket", "built-in (probes): abstract unix sockets are outside the sandbox"},
		{"probes:", "the probes could not verify the call"},
		{"seccomp:", "the seccomp filter (built-in list of dangerous system calls)"},
		{"netfilter:", "the kernel network allowlist built from the manifest's hosts"},
		{"landlock:", "the Landlock ruleset built from the manifest"},
	};
	for (size_t i = 0; i < sizeof k / sizeof k[0]; i++)
		if (strncmp(t, k[i].prefix, strlen(k[i].prefix)) == 0)
			return k[i].kind;
	return "rule named by the layer that decided";
}

static void rule_link(FILE *f, struct rules *rs, const struct am_group *g)
{
	const char *t = am_group_rule(g);
	size_t id = rule_id(rs, t);
	if (id == (size_t)-1) {
		esc(f, t);
		return;
	}
	fprintf(f, "<a class=\"rule\" href=\"#rule-%zu\">", id);
	esc(f, t);
	fputs("</a>", f);
}

/* ---- pieces ------------------------------------------------------------------------------------- */

static const char *sev_or(enum sbx_sev s) { return sbx_sev_name(s) ? sbx_sev_name(s) : "none"; }

static void run_link(FILE *f, const char *id)
{
	fputs("<a href=\"#run-", f);
	esc(f, id);
	fputs("\">", f);
	fprintf(f, "%.12s</a>", id);
}

static void card(FILE *f, const char *id, const char *label, uint64_t n, const char *cls)
{
	fprintf(f, "<div class=\"card %s\"><b><span id=\"count-%s\">%llu</span></b>%s</div>\n", n ? cls : "", id,
		ULL(n), label);
}

static void what_text(FILE *f, const struct am_group *g)
{
	esc(f, g->what[0] ? g->what : g->event);
	if (g->access[0] && strcmp(g->access, g->what) != 0) {
		fputc(' ', f);
		esc(f, g->access);
	}
	if (g->subject[0]) {
		fputs(" <code>", f);
		esc(f, g->subject);
		fputs("</code>", f);
	}
	if (g->outcome[0]) {
		fputs(" (", f);
		esc(f, g->outcome);
		fputc(')', f);
	}
}

static void exit_text(FILE *f, const struct am_run *r)
{
	if (!r->has_end)
		fputs("no run.end", f);
	else if (r->sig > 0)
		fprintf(f, "signal %lld", (long long)r->sig);
	else
		fprintf(f, "%lld", (long long)r->exit);
}

static void verdict_table(FILE *f, const struct am *m, struct rules *rs)
{
	fputs("<h2 id=\"verdicts\">Verdict per run (worst first)</h2>\n<table id=\"verdict-table\"><tr><th>verdict</th>"
	      "<th>run</th><th>executor</th><th>command</th><th>worst events (the rule that stopped each)</th>"
	      "<th>critical</th><th>high</th><th>medium</th><th>low</th><th>info</th><th>exit</th></tr>\n", f);
	for (size_t i = 0; i < m->nruns; i++) {
		const struct am_run *r = &m->runs[i];
		const char *v = am_verdict(r);
		fprintf(f, "<tr data-run=\"%s\" data-verdict=\"%s\" data-executor=\"", r->id, v);
		esc(f, r->executor);
		fprintf(f, "\"><td><span class=\"badge v-%s\">%s</span></td><td class=\"mono\">", v, v);
		run_link(f, r->id);
		fputs("</td><td>", f);
		esc(f, r->executor);
		fputs("</td><td><code>", f);
		esc(f, r->argv ? r->argv : "?");
		fputs("</code></td><td><ul class=\"top\">", f);
		size_t shown = 0;
		for (size_t k = 0; k < r->ng && shown < TOP_FINDINGS; k++) {
			const struct am_group *g = &r->g[k];
			if (g->sev < SBX_SEV_MEDIUM)
				break; /* groups are sorted worst first */
			fprintf(f, "<li class=\"finding\" data-sev=\"%s\"><span class=\"badge sev-%s\">%s</span> %llu× ",
				sev_or(g->sev), sev_or(g->sev), sev_or(g->sev), ULL(g->n));
			what_text(f, g);
			fputs(" — stopped by ", f);
			rule_link(f, rs, g);
			fputs("</li>", f);
			shown++;
		}
		fputs("</ul></td>", f);
		for (int s = SBX_SEV_CRITICAL; s >= SBX_SEV_INFO; s--)
			fprintf(f, "<td class=\"n\" data-k=\"%s\">%llu</td>", sbx_sev_name(s), ULL(r->c.sev[s]));
		fputs("<td data-k=\"exit\">", f);
		exit_text(f, r);
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n", f);
}

static const uint8_t sev_rgb[][3] = {{0x66, 0x66, 0x66}, {0xbb, 0xbb, 0xbb}, {0x5b, 0x8f, 0xb0},
				     {0xe0, 0xb0, 0x00}, {0xe6, 0x5c, 0x00}, {0xb0, 0x00, 0x00}};

/* Events of one run by layer over time: one row per layer that has events, one cell per column
 * holding the worst severity seen there, drawn as one <path> per layer and severity, so the SVG's
 * size is bounded (layers x severities elements) whatever the number of events. */
static void timeline_svg(FILE *f, const struct am_run *r)
{
	if (!r->ntl)
		return;
	int64_t t0 = r->tl[0].us, t1 = r->tl[0].us;
	for (size_t i = 1; i < r->ntl; i++) {
		if (r->tl[i].us < t0)
			t0 = r->tl[i].us;
		if (r->tl[i].us > t1)
			t1 = r->tl[i].us;
	}
	static uint8_t cell[AM_L__N][SVG_COLS];
	memset(cell, 0, sizeof cell);
	bool used[AM_L__N] = {false};
	int64_t span = t1 - t0 > 0 ? t1 - t0 : 1;
	for (size_t i = 0; i < r->ntl; i++) {
		const struct am_point *p = &r->tl[i];
		size_t x = (size_t)((double)(p->us - t0) / (double)span * (SVG_COLS - 1));
		if (x >= SVG_COLS)
			x = SVG_COLS - 1;
		uint8_t v = (uint8_t)(p->sev + 1);
		if (p->layer < AM_L__N) {
			used[p->layer] = true;
			if (cell[p->layer][x] < v)
				cell[p->layer][x] = v;
		}
	}
	int nrows = 0;
	for (int l = 0; l < AM_L__N; l++)
		nrows += used[l];
	const int lab = 70, rowh = 14, cw = SVG_W / SVG_COLS;
	fprintf(f, "<svg class=\"timeline\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" role=\"img\">"
		   "<title>events by layer over %.3f s (colour: worst severity in each slice)</title>\n",
		lab + SVG_W + 4, nrows * rowh + 16, (double)span / 1e6);
	int row = 0;
	for (int l = 0; l < AM_L__N; l++) {
		if (!used[l])
			continue;
		int y = row * rowh;
		fprintf(f, "<text x=\"0\" y=\"%d\">%s</text><line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#eee\"/>",
			y + 10, am_layer_names[l], lab, y + rowh / 2, lab + SVG_W, y + rowh / 2);
		for (uint8_t v = 1; v <= SBX_SEV_CRITICAL + 1; v++) {
			bool any = false;
			for (int x = 0; x < SVG_COLS; x++) {
				if (cell[l][x] != v)
					continue;
				int w = 1;
				while (x + w < SVG_COLS && cell[l][x + w] == v)
					w++;
				if (!any) {
					const uint8_t *c = sev_rgb[v - 1];
					fprintf(f, "<path data-sev=\"%s\" fill=\"#%02x%02x%02x\" d=\"", sev_or((enum sbx_sev)(v - 1)),
						c[0], c[1], c[2]);
					any = true;
				}
				fprintf(f, "M%d %dh%dv%dh-%dz", lab + x * cw, y + 2, w * cw, rowh - 4, w * cw);
				x += w - 1;
			}
			if (any)
				fputs("\"/>", f);
		}
		fputc('\n', f);
		row++;
	}
	fprintf(f, "<text x=\"%d\" y=\"%d\">0 s</text><text x=\"%d\" y=\"%d\" text-anchor=\"end\">%.3f s</text></svg>\n",
		lab, nrows * rowh + 12, lab + SVG_W, nrows * rowh + 12, (double)span / 1e6);
	if (r->tl_dropped)
		fprintf(f, "<p>(%llu more event(s) not on the timeline.)</p>\n", ULL(r->tl_dropped));
}

static void group_rows(FILE *f, struct rules *rs, const struct am_run *r, bool info, size_t *budget)
{
	fputs("<table class=\"groups\"><tr><th>severity</th><th>count</th><th>layer</th><th>event</th><th>what</th>"
	      "<th>comm</th><th>rule that decided</th><th>first (UTC)</th><th>last</th></tr>\n", f);
	size_t shown = 0;
	uint64_t more = 0, more_ev = 0;
	for (size_t k = 0; k < r->ng; k++) {
		const struct am_group *g = &r->g[k];
		if ((g->sev == SBX_SEV_INFO) != info)
			continue;
		if (shown == ROWS_PER_RUN || (shown >= 3 && *budget == 0)) {
			more++;
			more_ev += g->n;
			continue;
		}
		shown++;
		if (*budget)
			(*budget)--;
		fprintf(f, "<tr class=\"g\" data-sev=\"%s\" data-layer=\"%s\" data-run=\"%s\"><td><span class=\"badge sev-%s\">%s</span></td>"
			   "<td class=\"n\">%llu</td><td>%s</td><td>",
			sev_or(g->sev), am_layer_names[g->layer], r->id, sev_or(g->sev), sev_or(g->sev), ULL(g->n),
			am_layer_names[g->layer]);
		esc(f, g->event);
		fputs("</td><td>", f);
		what_text(f, g);
		fputs("</td><td>", f);
		esc(f, g->comm);
		fputs("</td><td>", f);
		rule_link(f, rs, g);
		fputs("</td><td class=\"mono ts\">", f);
		esc(f, g->first);
		fputs("</td><td class=\"mono ts\">", f);
		esc(f, strcmp(g->first, g->last) ? g->last : "");
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n", f);
	if (more)
		fprintf(f, "<p>%llu more group(s) (%llu event(s), %s): <code>sbxsup audit filter --run %s FILE</code> or "
			   "<code>sbxsup audit summary --json</code>.</p>\n", ULL(more), ULL(more_ev),
			info ? "info" : "less severe or rarer than those above", r->id);
}

static void meta_row(FILE *f, const char *k, const char *v, bool code)
{
	fprintf(f, "<dt>%s</dt><dd>%s", k, code ? "<code>" : "");
	esc(f, v && *v ? v : "(not recorded)");
	fprintf(f, "%s</dd>", code ? "</code>" : "");
}

/* "Talked to": the hosts the run's connections through the network gateway reached (net.flow). */
static void talked_to(FILE *f, const struct am_run *r)
{
	if (!r->npeers)
		return;
	fprintf(f, "<h4>Talked to</h4>\n<table class=\"talked\"><tr><th>host</th><th>port</th><th>connections</th>"
		   "<th>bytes out</th><th>bytes in</th></tr>\n");
	for (size_t k = 0; k < r->npeers; k++) {
		const struct am_peer *p = &r->peers[k];
		fputs("<tr><td><code>", f);
		esc(f, p->host);
		fprintf(f, "</code></td><td>%.0f</td><td>%llu</td><td>%llu</td><td>%llu</td></tr>\n", p->port,
			ULL(p->conns), ULL(p->out), ULL(p->in));
	}
	fputs("</table>\n", f);
	if (r->peers_dropped)
		fprintf(f, "<p>%llu more connection(s) to hosts past the cap of %d.</p>\n", ULL(r->peers_dropped),
			AM_PEERS_MAX);
}

static void run_section(FILE *f, struct rules *rs, const struct am_run *r, size_t *budget)
{
	const char *v = am_verdict(r);
	fprintf(f, "<section class=\"run\" id=\"run-%s\" data-run=\"%s\" data-verdict=\"%s\"><h3><span class=\"badge v-%s\">%s</span> ",
		r->id, r->id, v, v, v);
	esc(f, r->executor);
	fprintf(f, " <span class=\"mono\">%s</span></h3>\n<dl class=\"meta\">", r->id);
	meta_row(f, "command", r->argv, true);
	meta_row(f, "workspace", r->workspace, true);
	fputs("<dt>manifest</dt><dd><code>", f);
	esc(f, r->manifest_path ? r->manifest_path : "(not recorded)");
	fputs("</code> sha256 <code>", f);
	esc(f, r->manifest_sha ? r->manifest_sha : "-");
	fputs("</code></dd>", f);
	meta_row(f, "tag", r->tag ? r->tag : "-", false);
	meta_row(f, "autonomy", r->autonomy, false);
	meta_row(f, "layers active", r->layers_on, false);
	if (r->degraded) {
		fprintf(f, "<dt>layers off</dt><dd class=\"%s\">%s", r->sandbox_off ? "bad" : "warn",
			r->sandbox_off ? "<b>SANDBOX OFF</b>: " : "");
		esc(f, r->off);
		fputs("</dd>", f);
	}
	fputs("<dt>time</dt><dd class=\"mono\">", f);
	esc(f, r->start);
	fputs(" → ", f);
	esc(f, r->has_end ? r->end : "(no run.end: truncated or still running)");
	if (r->has_end)
		fprintf(f, " (%lld ms)", (long long)r->duration_ms);
	fputs("</dd><dt>exit</dt><dd>", f);
	exit_text(f, r);
	fprintf(f, "</dd><dt>events</dt><dd>%llu line(s); critical %llu, high %llu, medium %llu, low %llu, info %llu; "
		   "limits hit %llu, env drops %llu, lost %llu</dd></dl>\n",
		ULL(r->c.events), ULL(r->c.sev[SBX_SEV_CRITICAL]), ULL(r->c.sev[SBX_SEV_HIGH]),
		ULL(r->c.sev[SBX_SEV_MEDIUM]), ULL(r->c.sev[SBX_SEV_LOW]), ULL(r->c.sev[SBX_SEV_INFO]), ULL(r->c.limit),
		ULL(r->c.envdrop), ULL(r->c.lost));
	timeline_svg(f, r);
	uint64_t ninfo = 0, nother = 0;
	for (size_t k = 0; k < r->ng; k++)
		*(r->g[k].sev == SBX_SEV_INFO ? &ninfo : &nother) += 1;
	if (nother)
		group_rows(f, rs, r, false, budget);
	if (ninfo) {
		fprintf(f, "<details class=\"info\"><summary>%llu benign event(s) in %llu group(s) (info: known libc/tool "
			   "behaviour, not counted as attempts)</summary>\n", ULL(r->c.sev[SBX_SEV_INFO]), ULL(ninfo));
		group_rows(f, rs, r, true, budget);
		fputs("</details>\n", f);
	}
	if (!nother && !ninfo)
		fputs("<p>No security event.</p>\n", f);
	if (r->ungrouped)
		fprintf(f, "<p>%llu more event(s) past the grouping cap: <code>sbxsup audit filter --run %s</code>.</p>\n",
			ULL(r->ungrouped), r->id);
	talked_to(f, r);
	fputs("</section>\n", f);
}

static void write_page(FILE *f, const struct am *m, char **files, int nfiles, const char *script_hash)
{
	const struct am_counts *t = &m->total;
	struct rules rs = {0};
	size_t ndeg = 0, noend = 0, nbad = 0;
	for (size_t i = 0; i < m->nruns; i++) {
		ndeg += m->runs[i].degraded;
		noend += !m->runs[i].has_end;
		const char *v = am_verdict(&m->runs[i]);
		nbad += strcmp(v, "breach") == 0 || strcmp(v, "hostile") == 0;
		for (size_t k = 0; k < m->runs[i].ng; k++) { /* every rule that decided, with its count */
			const struct am_group *g = &m->runs[i].g[k];
			size_t id = rule_id(&rs, am_group_rule(g));
			if (id != (size_t)-1) {
				struct rule_ent *e = &rs.v[id];
				e->n += g->n;
				if (g->sev > e->worst)
					e->worst = g->sev;
				const char *mp = m->runs[i].manifest_path ? m->runs[i].manifest_path : "(not recorded)";
				bool seen = false;
				for (size_t k2 = 0; k2 < e->nman && !seen; k2++)
					seen = strcmp(e->manifest[k2], mp) == 0;
				if (!seen && e->nman < RULE_MANIFESTS)
					e->manifest[e->nman++] = mp;
				else if (!seen)
					e->more_manifests = true;
			}
		}
	}
	fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
		   "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; "
		   "script-src 'sha256-%s'\">\n<title>sbxsup audit report</title><style>%s</style></head><body>\n",
		script_hash, css);
	fputs("<h1>sbxsup audit report</h1>\n<p>Input:", f);
	for (int i = 0; i < nfiles; i++) {
		fputs(" <code>", f);
		esc(f, files[i]);
		fputs("</code>", f);
	}
	fprintf(f, " — %llu line(s), %zu run(s).</p>\n", ULL(m->lines), m->nruns);
	if (t->breach)
		fprintf(f, "<p class=\"verdict bad\" id=\"verdict\"><b>%llu BREACH(ES)</b>: a policy-violating system call "
			   "SUCCEEDED in the kernel. Treat the affected runs as compromised.</p>\n", ULL(t->breach));
	else if (m->nruns == 0)
		fputs("<p class=\"verdict\" id=\"verdict\">No runs: the input holds no event.</p>\n", f);
	else if (nbad)
		fprintf(f, "<p class=\"verdict bad\" id=\"verdict\"><b>%zu hostile run(s)</b>: secret-path attempts, all "
			   "refused. No breach: every policy-violating call that was seen was refused by some layer.</p>\n", nbad);
	else
		fputs("<p class=\"verdict ok\" id=\"verdict\">No breach and no secret-path attempt: every policy-violating "
		      "call that was seen was refused by some layer.</p>\n", f);
	verdict_table(f, m, &rs);

	fputs("<h2 id=\"overview\">Overview</h2>\n<div class=\"cards\">\n", f);
	card(f, "breach", "breaches", t->breach, "bad");
	card(f, "critical", "critical", t->sev[SBX_SEV_CRITICAL], "bad");
	card(f, "high", "high", t->sev[SBX_SEV_HIGH], "warn");
	card(f, "medium", "medium", t->sev[SBX_SEV_MEDIUM], "warn");
	card(f, "low", "low", t->sev[SBX_SEV_LOW], "");
	card(f, "info", "info (benign, not counted)", t->sev[SBX_SEV_INFO], "");
	card(f, "attempts", "escape attempts", am_attempts(t), "warn");
	card(f, "contained", "kernel violations contained", t->contained, "warn");
	card(f, "preload", "preload.deny", t->preload, "");
	card(f, "seccomp", "seccomp.deny", t->seccomp, "");
	card(f, "landlock", "landlock.deny", t->landlock, "");
	card(f, "netfilter", "netfilter.deny", t->netfilter, "");
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
	if (t->breach) {
		fputs("<h2 id=\"breaches\">Breaches</h2>\n<table><tr><th>time (UTC)</th><th>executor</th><th>run</th>"
		      "<th>event</th><th>detail</th></tr>\n", f);
		for (size_t i = 0; i < m->breaches.n; i++) {
			const struct am_item *it = &m->breaches.v[i];
			fputs("<tr class=\"bad\"><td class=\"mono ts\">", f);
			esc(f, it->ts);
			fputs("</td><td>", f);
			esc(f, it->executor);
			fputs("</td><td class=\"mono\">", f);
			run_link(f, it->run);
			fputs("</td><td>", f);
			esc(f, it->event);
			fputs("</td><td class=\"mono\">", f);
			esc(f, it->desc);
			fputs("</td></tr>\n", f);
		}
		fputs("</table>\n", f);
		if (m->breaches.dropped)
			fprintf(f, "<p>… and %llu more (use <code>sbxsup audit filter --outcome breach</code>).</p>\n",
				ULL(m->breaches.dropped));
	}

	fputs("<div id=\"filterbox\" hidden><label>search <input id=\"q\" type=\"search\" size=\"30\" "
	      "placeholder=\"path, rule, comm, run...\"></label> <label>severity <select id=\"sev\">"
	      "<option value=\"\">all</option><option value=\"critical\">critical</option>"
	      "<option value=\"high\">high and worse</option><option value=\"medium\">medium and worse</option>"
	      "<option value=\"low\">low and worse (no info)</option></select></label> <label>layer <select id=\"layer\">"
	      "<option value=\"\">all</option>", f);
	for (int l = 0; l < AM_L__N; l++)
		fprintf(f, "<option value=\"%s\">%s</option>", am_layer_names[l], am_layer_names[l]);
	fputs("</select></label> <span id=\"shown\"></span></div>\n", f);

	fputs("<h2 id=\"executors\">Executors (worst first)</h2>\n<table id=\"executor-table\"><tr><th>executor</th>"
	      "<th>runs</th><th>worst</th><th>critical</th><th>high</th><th>medium</th><th>low</th><th>info</th>"
	      "<th>breach</th><th>degraded</th><th>no run.end</th><th>exits</th></tr>\n", f);
	for (size_t i = 0; i < m->nexecs; i++) {
		const struct am_exec *e = &m->execs[i];
		fputs("<tr data-executor=\"", f);
		esc(f, e->name);
		fputs("\"><td>", f);
		esc(f, e->name);
		fprintf(f, "</td><td class=\"n\" data-k=\"runs\">%llu</td><td>%s</td>", ULL(e->runs), sev_or(am_worst(&e->c)));
		for (int s = SBX_SEV_CRITICAL; s >= SBX_SEV_INFO; s--)
			fprintf(f, "<td class=\"n\" data-k=\"%s\">%llu</td>", sbx_sev_name(s), ULL(e->c.sev[s]));
		fprintf(f, "<td class=\"n%s\" data-k=\"breach\">%llu</td><td class=\"n\" data-k=\"degraded\">%llu</td>"
			   "<td class=\"n\" data-k=\"incomplete\">%llu</td><td>",
			e->c.breach ? " bad" : "", ULL(e->c.breach), ULL(e->degraded), ULL(e->incomplete));
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
		fputs("<table><tr><th>run</th><th>executor</th><th>layers off (why)</th></tr>\n", f);
		for (size_t i = 0; i < m->nruns; i++) {
			const struct am_run *r = &m->runs[i];
			if (!r->degraded)
				continue;
			fprintf(f, "<tr class=\"%s\" data-run=\"%s\"><td class=\"mono\">", r->sandbox_off ? "bad" : "", r->id);
			run_link(f, r->id);
			fputs("</td><td>", f);
			esc(f, r->executor);
			fputs("</td><td>", f);
			if (r->sandbox_off)
				fputs("<b>SANDBOX OFF</b>: ", f);
			esc(f, r->off);
			fputs("</td></tr>\n", f);
		}
		fputs("</table>\n", f);
	}

	fputs("<h2 id=\"runs\">Runs (worst first): what ran, timeline by layer, events grouped</h2>\n", f);
	size_t budget = ROWS_BUDGET;
	for (size_t i = 0; i < m->nruns; i++)
		run_section(f, &rs, &m->runs[i], &budget);

	fputs("<h2 id=\"rules\">Rules that decided</h2>\n<table id=\"rule-table\"><tr><th>rule</th><th>what it is</th>"
	      "<th>in the manifests of</th><th>events</th><th>worst</th></tr>\n", f);
	for (size_t i = 0; i < rs.n; i++) {
		fprintf(f, "<tr id=\"rule-%zu\"><td><code>", i);
		esc(f, rs.v[i].text);
		fputs("</code></td><td>", f);
		esc(f, rule_kind(rs.v[i].text));
		fputs("</td><td>", f);
		for (size_t k = 0; k < rs.v[i].nman; k++) {
			fputs(k ? "<br><code>" : "<code>", f);
			esc(f, rs.v[i].manifest[k]);
			fputs("</code>", f);
		}
		if (rs.v[i].more_manifests)
			fputs("<br>…", f);
		fprintf(f, "</td><td class=\"n\">%llu</td><td>%s</td></tr>\n", ULL(rs.v[i].n), sev_or(rs.v[i].worst));
	}
	fputs("</table>\n<p><small>Generated by sbxsup " SBXSUP_VERSION ". Severity: critical = secret path or breach; "
	      "high = write outside the grants, network, exec, escape-class syscall; medium; low = other reads; "
	      "info = benign libc/tool behaviour. Verify the input with <code>sbxsup audit verify</code>: this page "
	      "trusts the lines it read.</small></p>\n", f);
	fprintf(f, "<script>%s</script>\n</body></html>\n", script);
	free(rs.v);
}

static const char help[] =
	"usage: sbxsup audit report --html OUT FILE...   (\"-\" = stdin)\n"
	"Writes one self-contained HTML page (no external resources; one inline script allowed by its hash\n"
	"in the page's Content-Security-Policy): the verdict per run at the top, worst first, with each\n"
	"run's worst events and the rule that stopped each; overview counts by severity; search and filter\n"
	"(text, severity, layer); executors; degraded runs; per run what ran (command, workspace, manifest +\n"
	"sha256, tag, layers), an SVG timeline of its events by layer and its events grouped with counts;\n"
	"the rules that decided, each linked from its denials.\n"
	"Exit status: 0; 125 when a FILE cannot be opened or read, or OUT cannot be written.\n";

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
	int nf = argc - optind;
	struct audit_reader *rdr = calloc((size_t)nf, sizeof *rdr);
	if (!rdr) {
		sbx_msg("audit report: out of memory");
		return SBX_EXIT_INTERNAL;
	}
	if (audit_open_inputs("report", argv + optind, nf, false, NULL, rdr) != 0) {
		free(rdr);
		return SBX_EXIT_INTERNAL;
	}
	struct am m;
	am_init(&m, true);
	int rc = 0;
	for (int i = 0; i < nf; i++) {
		int n = rc ? 0 : am_read(&m, &rdr[i]);
		if (n < 0) {
			sbx_msg("audit report: out of memory");
			rc = SBX_EXIT_INTERNAL;
		} else if (n > 0) {
			sbx_msg("audit report: %s: read error: %s", argv[optind + i], strerror(errno));
			rc = SBX_EXIT_INTERNAL;
		}
		audit_reader_close(&rdr[i]);
	}
	free(rdr);
	if (rc) {
		am_free(&m);
		return rc;
	}
	am_finish(&m);
	unsigned char h[crypto_hash_sha256_BYTES];
	char hash_b64[sodium_base64_ENCODED_LEN(crypto_hash_sha256_BYTES, sodium_base64_VARIANT_ORIGINAL)];
	crypto_hash_sha256(h, (const unsigned char *)script, strlen(script));
	sodium_bin2base64(hash_b64, sizeof hash_b64, h, sizeof h, sodium_base64_VARIANT_ORIGINAL);
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
	write_page(f, &m, argv + optind, nf, hash_b64);
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
