/* fuzz_review.c — libFuzzer target: the review commands on a hostile audit file. The input is
 * written as a file and run through `audit summary`, `summary --json`, `audit tail -n all` and
 * `audit report --html` (model, severity table, grouping, quoting, HTML escaping, SVG timeline),
 * then the model directly line by line; nothing may crash, leak or read out of bounds. Lines that
 * fail the schema check are skipped by the commands, so the corpus seeds are well-formed events
 * (tests/fuzz/corpus/fuzz_review/) that the fuzzer mutates. */
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "audit_model.h"
#include "fuzz_common.h"
#include "review.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char dir[64];

static void cleanup(void)
{
	char p[128];
	snprintf(p, sizeof p, "%s/in.jsonl", dir);
	unlink(p);
	snprintf(p, sizeof p, "%s/out.html", dir);
	unlink(p);
	rmdir(dir);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!dir[0]) {
		snprintf(dir, sizeof dir, "/tmp/sbxsup-fuzz-review.XXXXXX");
		if (!mkdtemp(dir))
			abort();
		atexit(cleanup);
		int null = open("/dev/null", O_WRONLY);
		if (null < 0 || dup2(null, STDOUT_FILENO) < 0)
			abort();
		close(null);
	}
	char in[128], out[128];
	snprintf(in, sizeof in, "%s/in.jsonl", dir);
	snprintf(out, sizeof out, "%s/out.html", dir);
	FILE *f = fopen(in, "w");
	if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0)
		abort();
	char a0[] = "x", a1[] = "--json", a2[] = "-n", a3[] = "all", a4[] = "--html";
	char *s1[] = {a0, in, NULL};
	char *s2[] = {a0, a1, in, NULL};
	char *s3[] = {a0, a2, a3, in, NULL};
	char *s4[] = {a0, a4, out, in, NULL};
	if (audit_summary_main(2, s1) != 0 || audit_summary_main(3, s2) != 0 || audit_tail_main(4, s3) != 0 ||
	    audit_report_main(4, s4) != 0)
		abort();
	/* the model directly, one line at a time */
	struct am m;
	am_init(&m, true);
	m.g_max = 8;
	m.tl_max = 16;
	size_t start = 0;
	for (size_t i = 0; i <= size; i++)
		if (i == size || data[i] == '\n') {
			if (am_add_line(&m, (const char *)data + start, i - start) < 0)
				abort();
			start = i + 1;
		}
	am_finish(&m);
	for (size_t i = 0; i < m.nruns; i++) {
		am_verdict(&m.runs[i]);
		am_program(&m.runs[i]);
		for (size_t k = 0; k < m.runs[i].ng; k++)
			if (!am_group_rule(&m.runs[i].g[k]))
				abort();
	}
	am_free(&m);
	unlink(out);
	return 0;
}
