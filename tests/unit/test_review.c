/* test_review.c — the review model (audit/audit_model.c) that `audit summary`, `report` and `tail`
 * share: ranking by severity and not by count (64 benign and low events never outrank one secret
 * read), info never counted as an attempt, repeated events grouped with counts, a stamped "sev"
 * never taken lower than the table, what ran (argv quoting, full layer-off reasons, tag), the group
 * caps counted, and the program name a reviewer would use. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "audit_model.h"

static unsigned seqs[16];

/* One well-formed line (the model does not check hashes: a fixed one is enough). */
static void add(struct am *m, int run, const char *executor, const char *event, const char *extra)
{
	char line[8192];
	snprintf(line, sizeof line,
		 "{\"v\":1,\"ts\":\"2026-11-23T10:00:%02u.%06uZ\",\"run\":\"%032x\",\"seq\":%u,\"executor\":\"%s\","
		 "\"event\":\"%s\",\"src\":\"kernel\"%s%s,\"prev\":\"%064d\",\"hash\":\"%064d\"}",
		 seqs[run] / 1000000 % 60, seqs[run] % 1000000, run + 1, seqs[run], executor, event, extra[0] ? "," : "",
		 extra, 0, 0);
	seqs[run]++;
	assert_int_equal(am_add_line(m, line, strlen(line)), 0);
}

static void start(struct am *m, int run, const char *executor, const char *argv_json, const char *more)
{
	char extra[4096];
	snprintf(extra, sizeof extra,
		 "\"argv\":%s,\"manifest\":{\"path\":\"/m/%s.json\",\"sha256\":\"%064d\"},\"uid\":0,"
		 "\"layers\":{\"preload\":true,\"bwrap\":true},\"why\":{},\"autonomy\":\"supervised\",\"workspace\":\"/w\"%s",
		 argv_json, executor, 7, more);
	add(m, run, executor, "run.start", extra);
}

static const struct am_run *find(const struct am *m, int run)
{
	char id[33];
	snprintf(id, sizeof id, "%032x", run + 1);
	for (size_t i = 0; i < m->nruns; i++)
		if (strcmp(m->runs[i].id, id) == 0)
			return &m->runs[i];
	fail_msg("run %d not found", run);
	return NULL;
}

#define PD(path, access, rule) \
	"\"pid\":1,\"comm\":\"git\",\"op\":\"open\",\"path\":\"" path "\",\"access\":\"" access "\",\"rule\":\"" rule "\",\"errno\":13"

static void test_severity_beats_count(void **s)
{
	(void)s;
	memset(seqs, 0, sizeof seqs);
	struct am m;
	am_init(&m, false);
	start(&m, 0, "default", "[\"git\",\"commit\",\"-m\",\"x\"]", "");
	for (int i = 0; i < 40; i++)
		add(&m, 0, "default", "preload.deny", PD("/root/.gitconfig", "read", "builtin:home-blanket: /root"));
	for (int i = 0; i < 24; i++)
		add(&m, 0, "default", "preload.deny", PD("/srv/other", "read", "default: not granted"));
	start(&m, 1, "hostile", "[\"python3\",\"-u\",\"bin/hostile.py\"]", "");
	add(&m, 1, "hostile", "preload.deny", PD("/etc/shadow", "read", "builtin:secret: /etc/shadow*"));
	start(&m, 2, "writer", "[\"sh\",\"-c\",\"echo x > /etc/x\"]", "");
	for (int i = 0; i < 50; i++)
		add(&m, 2, "writer", "preload.deny", PD("/etc/x", "write", "default: not granted"));
	am_finish(&m);
	assert_string_equal(m.runs[0].executor, "hostile");
	assert_string_equal(m.runs[1].executor, "writer");
	assert_string_equal(m.runs[2].executor, "default");
	assert_string_equal(m.execs[0].name, "hostile");
	assert_string_equal(am_verdict(&m.runs[0]), "hostile");
	assert_string_equal(am_verdict(&m.runs[1]), "suspicious");
	assert_string_equal(am_verdict(&m.runs[2]), "contained");
	const struct am_run *g = find(&m, 0);
	assert_int_equal(g->c.sev[SBX_SEV_INFO], 40);
	assert_int_equal(g->c.sev[SBX_SEV_LOW], 24);
	assert_int_equal(am_attempts(&g->c), 24); /* info is not an attempt */
	assert_int_equal(g->ng, 2);                /* 64 events, 2 groups */
	assert_int_equal(g->g[0].sev, SBX_SEV_LOW); /* worst first */
	assert_int_equal(g->g[0].n, 24);
	assert_int_equal(g->g[1].n, 40);
	assert_string_equal(g->g[1].sev_id, "benign-git-config");
	assert_string_equal(am_program(find(&m, 1)), "hostile.py");
	assert_string_equal(am_program(g), "git");
	am_free(&m);
}

static void test_ties_by_counts_per_severity(void **s)
{
	(void)s;
	memset(seqs, 0, sizeof seqs);
	struct am m;
	am_init(&m, false);
	/* both critical once; run 1 has more high events; run 0 has many more low ones */
	for (int r = 0; r < 2; r++) {
		start(&m, r, r ? "b" : "a", "[\"x\"]", "");
		add(&m, r, r ? "b" : "a", "preload.deny", PD("/home/u/.ssh/id_rsa", "read", "builtin:secret: ~/.ssh"));
	}
	add(&m, 1, "b", "seccomp.deny", "\"pid\":1,\"syscall\":\"ptrace\",\"action\":\"errno\"");
	add(&m, 1, "b", "seccomp.deny", "\"pid\":1,\"syscall\":\"ptrace\",\"action\":\"errno\"");
	for (int i = 0; i < 30; i++)
		add(&m, 0, "a", "preload.deny", PD("/srv/x", "read", "default: not granted"));
	am_finish(&m);
	assert_string_equal(m.runs[0].executor, "b");
	assert_int_equal(m.runs[0].ng, 2);
	assert_string_equal(am_group_rule(&m.runs[0].g[1]), "seccomp: filtered system call");
	assert_int_equal(m.runs[0].g[1].n, 2);
	am_free(&m);
}

static void test_stamped_sev_never_lowered(void **s)
{
	(void)s;
	memset(seqs, 0, sizeof seqs);
	struct am m;
	am_init(&m, false);
	start(&m, 0, "a", "[\"x\"]", "");
	/* stamped "info" on a secret read: the table says critical, critical it stays */
	add(&m, 0, "a", "preload.deny", PD("/etc/shadow", "read", "builtin:secret: /etc/shadow*") ",\"sev\":\"info\"");
	/* stamped "high" on a benign probe: the higher stamp is kept */
	add(&m, 0, "a", "preload.deny", PD("/root/.gitconfig", "read", "builtin:home-blanket: /root") ",\"sev\":\"high\"");
	am_finish(&m);
	const struct am_run *r = find(&m, 0);
	assert_int_equal(r->c.sev[SBX_SEV_CRITICAL], 1);
	assert_int_equal(r->c.sev[SBX_SEV_HIGH], 1);
	assert_int_equal(r->c.sev[SBX_SEV_INFO], 0);
	assert_string_equal(r->g[1].sev_id, "stamped");
	am_free(&m);
}

static void test_what_ran(void **s)
{
	(void)s;
	memset(seqs, 0, sizeof seqs);
	struct am m;
	am_init(&m, false);
	char why[400], more[600];
	memset(why, 'r', 300);
	why[300] = '\0';
	snprintf(more, sizeof more, ",\"tag\":\"agent-42\"");
	start(&m, 0, "a", "[\"env\",\"A=1\",\"python3\",\"my tool.py\",\"it's\",\"\\u001b[31m\"]", more);
	char off[800];
	snprintf(off, sizeof off, "\"argv\":[\"x\"],\"manifest\":{\"path\":\"p\",\"sha256\":\"s\"},"
		 "\"layers\":{\"preload\":true,\"bwrap\":false,\"netfilter\":false},\"why\":{\"bwrap\":\"%s\",\"netfilter\":\"no\"}",
		 why);
	add(&m, 1, "b", "run.start", off);
	am_finish(&m);
	const struct am_run *r = find(&m, 0);
	/* escaped (common/quote.h), its own shell quoting kept */
	assert_string_equal(r->argv, "env A=1 python3 'my tool.py' 'it'\\''s' '\\033[31m'");
	assert_int_equal(r->nargs, 6);
	assert_string_equal(r->tag, "agent-42");
	assert_string_equal(r->workspace, "/w");
	assert_string_equal(r->manifest_path, "/m/a.json");
	assert_string_equal(r->layers_on, "preload, bwrap");
	assert_false(r->degraded);
	assert_string_equal(am_program(r), "my tool.py");
	const struct am_run *b = find(&m, 1);
	assert_true(b->degraded);
	assert_false(b->sandbox_off);
	assert_int_equal(b->noff, 2);
	assert_int_equal(strlen(b->off_why[0]), 300); /* never cut */
	assert_non_null(strstr(b->off, why));
	assert_non_null(strstr(b->off, "; netfilter (no)"));
	assert_null(b->tag);
	am_free(&m);
}

static void test_group_caps_counted(void **s)
{
	(void)s;
	memset(seqs, 0, sizeof seqs);
	struct am m;
	am_init(&m, true);
	m.g_max = 5;
	start(&m, 0, "a", "[\"x\"]", "");
	char extra[256];
	for (int i = 0; i < 20; i++) {
		snprintf(extra, sizeof extra, PD("/srv/f%d", "read", "default: not granted"), i);
		add(&m, 0, "a", "preload.deny", extra);
	}
	/* a coalesced record counts as its count */
	add(&m, 0, "a", "preload.deny", PD("/srv/f0", "read", "default: not granted") ",\"count\":7");
	am_finish(&m);
	const struct am_run *r = find(&m, 0);
	assert_int_equal(r->ng, 5);
	assert_int_equal(r->ungrouped, 15);
	assert_int_equal(r->c.sev[SBX_SEV_LOW], 27);
	assert_int_equal(r->c.preload, 27);
	uint64_t grouped = 0;
	for (size_t k = 0; k < r->ng; k++)
		grouped += r->g[k].n;
	assert_int_equal(grouped + r->ungrouped, 27);
	assert_int_equal(r->ntl, 22); /* every line on the timeline */
	am_free(&m);
}

static void test_damaged_lines_counted(void **s)
{
	(void)s;
	struct am m;
	am_init(&m, false);
	assert_int_equal(am_add_line(&m, "{}", 2), 1);
	assert_int_equal(am_add_line(&m, "garbage", 7), 1);
	assert_int_equal(m.bad_lines, 2);
	assert_int_equal(m.nruns, 0);
	am_free(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_severity_beats_count), cmocka_unit_test(test_ties_by_counts_per_severity),
		cmocka_unit_test(test_stamped_sev_never_lowered), cmocka_unit_test(test_what_ran),
		cmocka_unit_test(test_group_caps_counted), cmocka_unit_test(test_damaged_lines_counted),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
