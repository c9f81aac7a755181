/* audit_verify.c — `sbxsup audit verify FILE...`: schema, per-run sequence and hash chain.
 *
 * Promise: streams every file once with memory bounded by the number of runs (per run: next seq,
 * last hash, whether run.end was seen). Files are read in the order given and form one stream
 * (a run may continue in the next file, e.g. after rotation). Every problem is printed as
 * `FILE:LINE: problem` (the first VERIFY_MAX_LISTED, then a count); a run without run.end is a
 * warning, not damage. Exit 0 clean, 1 damaged, 125 bad usage or unreadable input.
 */
#include "review.h"
#include "audit_read.h"
#include "cmd.h"

#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define VERIFY_MAX_LISTED 1000

struct vrun {
	char id[33];
	char executor[65];
	bool executor_ok;      /* executor taken from a line whose hash verified */
	char prev[65];
	uint64_t next;
	bool ended;
	const char *last_file; /* argv string: lives as long as the command */
	uint64_t last_line;
};

struct verify {
	struct vrun *runs;
	size_t n, cap;
	uint32_t *idx;
	size_t idx_cap;
	uint64_t problems, warnings, lines;
};

__attribute__((format(printf, 4, 5)))
static void problem(struct verify *v, const char *file, uint64_t line, const char *fmt, ...)
{
	v->problems++;
	if (v->problems > VERIFY_MAX_LISTED)
		return;
	va_list ap;
	va_start(ap, fmt);
	printf("%s:%llu: ", file, (unsigned long long)line);
	vprintf(fmt, ap);
	putchar('\n');
	va_end(ap);
}

static uint64_t hash_id(const char *id)
{
	uint64_t h = 0;
	for (int i = 0; i < 16; i++) /* the id is random hex: its first 64 bits are a fine hash */
		h = h << 4 | (uint64_t)(id[i] <= '9' ? id[i] - '0' : id[i] - 'a' + 10);
	return h;
}

static int grow_index(struct verify *v)
{
	size_t nc = v->idx_cap ? v->idx_cap * 2 : 1024;
	uint32_t *t = calloc(nc, sizeof *t);
	if (!t)
		return -1;
	for (size_t i = 0; i < v->n; i++) {
		size_t h = (size_t)hash_id(v->runs[i].id) & (nc - 1);
		while (t[h])
			h = (h + 1) & (nc - 1);
		t[h] = (uint32_t)i + 1;
	}
	free(v->idx);
	v->idx = t;
	v->idx_cap = nc;
	return 0;
}

/* Find the run, or create it (*created = true). NULL: out of memory. */
static struct vrun *lookup(struct verify *v, const char *id, bool *created)
{
	*created = false;
	if ((v->n + 1) * 2 > v->idx_cap && grow_index(v) < 0)
		return NULL;
	size_t h = (size_t)hash_id(id) & (v->idx_cap - 1);
	while (v->idx[h]) {
		struct vrun *r = &v->runs[v->idx[h] - 1];
		if (memcmp(r->id, id, 32) == 0)
			return r;
		h = (h + 1) & (v->idx_cap - 1);
	}
	if (v->n == v->cap) {
		size_t nc = v->cap ? v->cap * 2 : 256;
		struct vrun *nr = realloc(v->runs, nc * sizeof *nr);
		if (!nr)
			return NULL;
		v->runs = nr;
		v->cap = nc;
	}
	struct vrun *r = &v->runs[v->n];
	memset(r, 0, sizeof *r);
	memcpy(r->id, id, 33);
	v->idx[h] = (uint32_t)++v->n;
	*created = true;
	return r;
}

static const char ZERO[65] = "0000000000000000000000000000000000000000000000000000000000000000";

static int check_line(struct verify *v, const char *file, uint64_t ln, const char *line, size_t len)
{
	struct audit_line al;
	char msg[200];
	if (audit_line_check(line, len, &al, true, msg, sizeof msg)) {
		problem(v, file, ln, "%s", msg);
		return 0;
	}
	char hash[65], prev[65], executor[65];
	memcpy(hash, al.hash.p, 64);
	hash[64] = '\0';
	memcpy(prev, al.prev.p, 64);
	prev[64] = '\0';
	jl_str(&al.executor, executor, sizeof executor);
	audit_printable(executor);
	bool hash_ok = audit_line_hash_ok(line, len);
	if (!hash_ok)
		problem(v, file, ln, "hash does not match the line's content (line edited or hash forged)");
	bool created;
	struct vrun *r = lookup(v, al.run_id, &created);
	if (!r)
		return -1;
	const char *short_id = al.run_id;
	if (created) {
		snprintf(r->executor, sizeof r->executor, "%s", executor);
		r->executor_ok = hash_ok;
		if (al.seq != 0)
			problem(v, file, ln, "run %.12s starts at seq %llu: %llu earlier event(s) missing", short_id,
				(unsigned long long)al.seq, (unsigned long long)al.seq);
		else if (memcmp(prev, ZERO, 64) != 0)
			problem(v, file, ln, "run %.12s: seq 0 but prev is not 64 zeros", short_id);
	} else {
		if (r->ended)
			problem(v, file, ln, "run %.12s: event after its run.end (%s:%llu)", short_id, r->last_file,
				(unsigned long long)r->last_line);
		/* An edited line is already reported by its hash: it must neither set the run's executor
		 * nor make every later, intact line of the run look wrong. */
		if (hash_ok && !r->executor_ok) {
			snprintf(r->executor, sizeof r->executor, "%s", executor);
			r->executor_ok = true;
		} else if (hash_ok && strcmp(executor, r->executor) != 0) {
			problem(v, file, ln, "run %.12s: executor \"%s\" differs from the run's \"%s\"", short_id,
				executor, r->executor);
		}
		if (al.seq == r->next) {
			if (memcmp(prev, r->prev, 64) != 0)
				problem(v, file, ln,
					"run %.12s: prev does not link to the hash of seq %llu (%s:%llu): chain broken",
					short_id, (unsigned long long)(al.seq - 1), r->last_file,
					(unsigned long long)r->last_line);
		} else if (al.seq > r->next) {
			problem(v, file, ln, "run %.12s: seq gap: expected %llu, got %llu (%llu event(s) missing)",
				short_id, (unsigned long long)r->next, (unsigned long long)al.seq,
				(unsigned long long)(al.seq - r->next));
		} else {
			problem(v, file, ln,
				"run %.12s: seq %llu repeats or goes back (expected %llu): duplicated or reordered line",
				short_id, (unsigned long long)al.seq, (unsigned long long)r->next);
		}
	}
	if (created || al.seq >= r->next) {
		r->next = al.seq + 1;
		memcpy(r->prev, hash, 65);
		r->last_file = file;
		r->last_line = ln;
	}
	if (jl_str_eq(&al.event, "run.end"))
		r->ended = true;
	return 0;
}

static const char help[] =
	"usage: sbxsup audit verify FILE...   (\"-\" = stdin)\n"
	"Checks every line: valid UTF-8 JSON object <= 64 KiB with the common fields (v, ts, run, seq,\n"
	"executor, event, src, ..., prev, hash) in order; per run: seq from 0 without gap or duplicate,\n"
	"hash = SHA-256 of the bytes before ,\"hash\":, prev = the previous event's hash. Runs may\n"
	"interleave. A run without run.end is reported as a warning (truncated or still running).\n"
	"Exit: 0 clean, 1 damaged (every problem listed as FILE:LINE: problem), 125 usage/unreadable.\n";

int audit_verify_main(int argc, char **argv)
{
	static const struct option opts[] = {{"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
	int c;
	static char prog[] = "sbxsup: audit verify"; /* getopt's messages: "sbxsup: audit verify: ..." */
	argv[0] = prog;
	optind = 1;
	while ((c = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		if (c == 'h') {
			fputs(help, stdout);
			return 0;
		}
		fputs(help, stderr);
		return SBX_EXIT_INTERNAL;
	}
	if (audit_check_files("verify", argc, optind, false, help) != 0)
		return SBX_EXIT_INTERNAL;
	struct verify v;
	memset(&v, 0, sizeof v);
	int rc = 0;
	for (int i = optind; i < argc; i++) {
		struct audit_reader r;
		char err[512];
		if (audit_reader_open(&r, argv[i], false, NULL, err, sizeof err) < 0) {
			sbx_msg("audit verify: %s", err);
			rc = SBX_EXIT_INTERNAL;
			continue;
		}
		const char *line, *damage;
		size_t len;
		int n;
		while ((n = audit_reader_next(&r, &line, &len, &damage)) == 1) {
			v.lines++;
			if (damage) {
				problem(&v, argv[i], r.lineno, "%s", damage);
				if (len == 0)
					continue;
			}
			if (check_line(&v, argv[i], r.lineno, line, len) < 0) {
				sbx_msg("audit verify: out of memory");
				audit_reader_close(&r);
				free(v.runs);
				free(v.idx);
				return SBX_EXIT_INTERNAL;
			}
		}
		if (n < 0) {
			sbx_msg("audit verify: %s: read error: %s", argv[i], strerror(errno));
			rc = SBX_EXIT_INTERNAL;
		}
		audit_reader_close(&r);
	}
	for (size_t i = 0; i < v.n; i++) {
		const struct vrun *r = &v.runs[i];
		if (r->ended)
			continue;
		v.warnings++;
		printf("%s:%llu: warning: run %s (executor %s) has no run.end: truncated (or still running)\n",
		       r->last_file, (unsigned long long)r->last_line, r->id, r->executor);
	}
	if (v.problems > VERIFY_MAX_LISTED)
		printf("... and %llu more problem(s) not listed\n",
		       (unsigned long long)(v.problems - VERIFY_MAX_LISTED));
	printf("sbxsup audit verify: %llu line(s), %zu run(s), %llu problem(s), %llu warning(s): %s\n",
	       (unsigned long long)v.lines, v.n, (unsigned long long)v.problems,
	       (unsigned long long)v.warnings, rc ? "INPUT UNREADABLE" : v.problems ? "DAMAGED" : "OK");
	free(v.runs);
	free(v.idx);
	if (rc)
		return rc;
	return v.problems ? 1 : 0;
}
