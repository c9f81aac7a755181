/* audit_verify.c — `sbxsup audit verify [--key FILE|DIR]... FILE...`: schema, per-run sequence,
 * chain and authenticity (docs/audit-keys.md).
 *
 * Promise: streams every file once with memory bounded by the number of runs (per run: next seq,
 * last hash, whether run.end was seen, its key). Files are read in the order given and form one
 * stream (a run may continue in the next file, e.g. after rotation). Every problem is printed as
 * `FILE:LINE: problem` (the first VERIFY_MAX_LISTED, then a count).
 * Keys: every --key (a key file, or a directory of keys named <id>.key / <id>); without --key, the
 * host key directory (audit_key.h) when readable. A run whose run.start names a key id (`key`) has
 * each line's hash checked as keyed BLAKE2b-256 with that key; a run without a key id has SHA-256 hashes.
 * With --key, a run that cannot be authenticated (no key id, unknown key) is a problem; without
 * --key it is only counted, and the last line says that its authenticity was NOT checked (then
 * prev links, seq, schema are still checked; a keyed line's content cannot be, without its key).
 * A run without run.end is incomplete: a problem, reported at the file and line where its chain
 * stops (a warning only with --allow-incomplete, for files still being written).
 * Counts: where run.end carries the writer's urgent-line accounting (audit.urgent_cap), its
 * high + critical count must equal what the run's lines name (their count, plus the events past the
 * cap that limit.hit audit_urgent counts), and its breach count what the breach lines name (fewer
 * only when events went past the cap): a removed line that keeps the chain (a re-chained stream
 * without a key) or a writer that buried evidence is a problem.
 * Exit 0 clean, 1 damaged / incomplete / unauthenticated under --key, 125 bad usage or unreadable.
 */
#include "review.h"
#include "audit_key.h"
#include "audit_read.h"
#include "msg.h"

#include <errno.h>
#include <getopt.h>
#include <sodium.h>
#include <unistd.h>
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
	bool keyed;            /* run.start named a key id */
	bool have_key;         /* ... and the keyring has it */
	bool auth_unknown;     /* its run.start was not seen */
	struct audit_key key;
	const char *last_file; /* argv string: lives as long as the command */
	uint64_t last_line;
	/* what the lines name, against run.end's own counts (a writer with urgent lines) */
	uint64_t urgent;       /* high + critical events (a line's count) */
	uint64_t breach;       /* events with outcome breach */
	uint64_t over;         /* past the writer's cap (limit.hit audit_urgent summary) */
};

struct verify {
	struct vrun *runs;
	size_t n, cap;
	uint32_t *idx;
	size_t idx_cap;
	uint64_t problems, warnings, lines;
	struct audit_keys ks;
	bool explicit_keys;    /* --key given: what cannot be authenticated is a problem */
	bool allow_incomplete;
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

static uint64_t u64_of(const struct jl_span *sp, uint64_t dflt)
{
	uint64_t n;
	return sp && jl_u64(sp, &n) == 0 ? n : dflt;
}

/* A member of a member object (run.end's severity.critical, audit.breaches), or dflt. */
static uint64_t sub_u64(const struct jl_obj *o, const char *obj, const char *key, uint64_t dflt, bool *has)
{
	const struct jl_span *sp = jl_get(o, obj);
	struct jl_obj *sub = sp && sp->type == JL_OBJ ? malloc(sizeof *sub) : NULL;
	uint64_t n = dflt;
	if (sub && jl_object(sp->p, sp->n, sub, NULL, NULL) == 0) {
		const struct jl_span *v = jl_get(sub, key);
		if (has)
			*has = v != NULL;
		n = u64_of(v, dflt);
	}
	free(sub);
	return n;
}

/* The run's lines against run.end's counts (see the header). */
static void count_line(struct verify *v, struct vrun *r, const struct audit_line *al, const char *file,
		       uint64_t ln, const char *short_id)
{
	const struct jl_obj *o = &al->obj;
	uint64_t w = u64_of(jl_get(o, "count"), 1);
	if (jl_str_eq(jl_get(o, "sev"), "critical") || jl_str_eq(jl_get(o, "sev"), "high"))
		r->urgent += w;
	if (jl_str_eq(jl_get(o, "outcome"), "breach"))
		r->breach += w;
	if (jl_str_eq(&al->event, "limit.hit") && jl_str_eq(jl_get(o, "limit"), "audit_urgent"))
		r->over += u64_of(jl_get(o, "suppressed"), 0);
	if (!jl_str_eq(&al->event, "run.end"))
		return;
	bool has = false;
	sub_u64(o, "audit", "urgent_cap", 0, &has);
	if (!has)
		return;                             /* an older writer: no such accounting */
	uint64_t crit = sub_u64(o, "severity", "critical", 0, NULL), high = sub_u64(o, "severity", "high", 0, NULL);
	uint64_t br = sub_u64(o, "audit", "breaches", 0, NULL);
	if (crit + high != r->urgent + r->over)
		problem(v, file, ln, "run %.12s: run.end counts %llu high/critical event(s), its lines name %llu "
			"(a line removed, or evidence buried)", short_id, (unsigned long long)(crit + high),
			(unsigned long long)(r->urgent + r->over));
	if (r->breach > br || (r->breach < br && !r->over))
		problem(v, file, ln, "run %.12s: run.end counts %llu breach(es), its lines name %llu", short_id,
			(unsigned long long)br, (unsigned long long)r->breach);
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
	audit_printable(executor, sizeof executor);
	bool created;
	struct vrun *r = lookup(v, al.run_id, &created);
	if (!r)
		return -1;
	const char *short_id = al.run_id;
	if (created) {
		r->auth_unknown = !(al.seq == 0 && jl_str_eq(&al.event, "run.start"));
		const struct jl_span *k = r->auth_unknown ? NULL : jl_get(&al.obj, "key");
		char kid[AUDIT_KEY_ID_LEN + 2] = "";
		if (k && jl_str(k, kid, sizeof kid) >= 0 && audit_key_id_valid(kid)) {
			r->keyed = true;
			const struct audit_key *key = audit_keys_find(&v->ks, kid);
			if (key) {
				r->key = *key;
				r->have_key = true;
			} else if (v->explicit_keys) {
				problem(v, file, ln, "run %.12s: key %s is not among the --key keys: cannot "
					"authenticate this run", short_id, kid);
			}
		} else if (k) {
			problem(v, file, ln, "run %.12s: run.start has a malformed key id", short_id);
		} else if (!r->auth_unknown && v->explicit_keys) {
			problem(v, file, ln, "run %.12s: run.start names no key: the run is not authenticated "
				"(anyone who can write the file could have written it)", short_id);
		} else if (r->auth_unknown && v->explicit_keys) {
			problem(v, file, ln, "run %.12s: its run.start is missing: cannot authenticate it",
				short_id);
		}
	}
	bool hash_ok = true;
	if (r->have_key) {
		size_t pl;
		char want[65], got[65];
		hash_ok = audit_split_hash(line, len, &pl, want) == 0;
		if (hash_ok) {
			audit_key_mac_hex(&r->key, line, pl, got);
			hash_ok = sodium_memcmp(got, want, 64) == 0;
		}
		if (!hash_ok)
			problem(v, file, ln, "MAC does not match the line's content with key %s (line edited, or "
				"written by someone without the key)", r->key.id);
	} else if (!r->keyed && !r->auth_unknown) {
		hash_ok = audit_line_hash_ok(line, len);
		if (!hash_ok)
			problem(v, file, ln, "hash does not match the line's content (line edited or hash forged)");
	}
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
	count_line(v, r, &al, file, ln, short_id);
	if (jl_str_eq(&al.event, "run.end"))
		r->ended = true;
	return 0;
}

static const char help[] =
	"usage: sbxsup audit verify [--key FILE|DIR]... [--allow-incomplete] FILE...   (\"-\" = stdin)\n"
	"Checks every line: valid UTF-8 JSON object <= 64 KiB with the common fields (v, ts, run, seq,\n"
	"executor, event, src, ..., prev, hash) in order; per run: seq from 0 without gap or duplicate,\n"
	"prev = the previous event's hash, and hash = keyed BLAKE2b-256 with the key named by run.start's\n"
	"\"key\" (SHA-256 for runs without a key id) of the bytes before ,\"hash\":. Runs may interleave.\n"
	"  --key FILE|DIR      key file, or directory of keys named <id>.key (streams from many hosts);\n"
	"                      repeatable. With --key every run must be authenticated by one of them.\n"
	"                      Default: the host key directory when readable; with no key at all the\n"
	"                      chain, sequence and schema are checked and authenticity is NOT.\n"
	"  --allow-incomplete  a run without run.end is a warning, not a problem (a live file)\n"
	"A run without run.end is incomplete (truncated, killed, or still running). Its run.end's counts\n"
	"of high/critical events and breaches must match what its lines name (a line removed).\n"
	"Exit: 0 clean, 1 damaged/incomplete/unauthenticated (every problem listed as FILE:LINE: problem),\n"
	"125 usage/unreadable.\n";

int audit_verify_main(int argc, char **argv)
{
	static const struct option opts[] = {{"help", no_argument, NULL, 'h'},
					     {"key", required_argument, NULL, 'k'},
					     {"allow-incomplete", no_argument, NULL, 'i'},
					     {NULL, 0, NULL, 0}};
	struct verify v;
	memset(&v, 0, sizeof v);
	int c;
	static char prog[] = "sbxsup: audit verify"; /* getopt's messages: "sbxsup: audit verify: ..." */
	argv[0] = prog;
	optind = 1;
	while ((c = getopt_long(argc, argv, "hk:", opts, NULL)) != -1) {
		char kerr[600];
		if (c == 'h') {
			fputs(help, stdout);
			audit_keys_free(&v.ks);
			return 0;
		} else if (c == 'k') {
			if (audit_keys_add(&v.ks, optarg, kerr, sizeof kerr) < 0) {
				sbx_msg("audit verify: %s", kerr);
				audit_keys_free(&v.ks);
				return SBX_EXIT_INTERNAL;
			}
			v.explicit_keys = true;
			continue;
		} else if (c == 'i') {
			v.allow_incomplete = true;
			continue;
		}
		fputs(help, stderr);
		audit_keys_free(&v.ks);
		return SBX_EXIT_INTERNAL;
	}
	if (!v.explicit_keys) { /* the host key directory, when this user can read it */
		char dir[4096], kerr[600];
		if (audit_key_dir(dir, sizeof dir, kerr, sizeof kerr) == 0 && access(dir, R_OK | X_OK) == 0)
			(void)audit_keys_add(&v.ks, dir, kerr, sizeof kerr);
	}
	if (audit_check_files("verify", argc, optind, false, help) != 0) {
		audit_keys_free(&v.ks);
		return SBX_EXIT_INTERNAL;
	}
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
				audit_keys_free(&v.ks);
				return SBX_EXIT_INTERNAL;
			}
		}
		if (n < 0) {
			sbx_msg("audit verify: %s: read error: %s", argv[i], strerror(errno));
			rc = SBX_EXIT_INTERNAL;
		}
		audit_reader_close(&r);
	}
	size_t authed = 0, unauthed = 0;
	for (size_t i = 0; i < v.n; i++) {
		const struct vrun *r = &v.runs[i];
		if (r->have_key)
			authed++;
		else
			unauthed++;
		if (r->ended)
			continue;
		if (v.allow_incomplete) {
			v.warnings++;
			printf("%s:%llu: warning: run %s (executor %s) has no run.end: truncated (or still running)\n",
			       r->last_file, (unsigned long long)r->last_line, r->id, r->executor);
		} else {
			problem(&v, r->last_file, r->last_line,
				"run %s (executor %s) is incomplete: no run.end, its chain ends here (file truncated, "
				"lines removed, sbxsup killed, or still running)", r->id, r->executor);
		}
	}
	if (v.problems > VERIFY_MAX_LISTED)
		printf("... and %llu more problem(s) not listed\n",
		       (unsigned long long)(v.problems - VERIFY_MAX_LISTED));
	printf("sbxsup audit verify: %llu line(s), %zu run(s), %llu problem(s), %llu warning(s): %s\n",
	       (unsigned long long)v.lines, v.n, (unsigned long long)v.problems,
	       (unsigned long long)v.warnings, rc ? "INPUT UNREADABLE" : v.problems ? "DAMAGED" : "OK");
	if (v.n && !unauthed)
		printf("sbxsup audit verify: authenticity: all %zu run(s) authenticated by their key\n", authed);
	else if (v.n && v.explicit_keys)
		printf("sbxsup audit verify: authenticity: %zu run(s) NOT authenticated (listed above), %zu "
		       "authenticated\n", unauthed, authed);
	else if (v.n)
		printf("sbxsup audit verify: authenticity NOT checked for %zu run(s) (%s): chain, sequence and "
		       "schema only; %zu run(s) authenticated\n", unauthed,
		       v.ks.n || v.ks.ndirs ? "no key id, or their key is not here: use --key" : "no key",
		       authed);
	free(v.runs);
	free(v.idx);
	audit_keys_free(&v.ks);
	if (rc)
		return rc;
	return v.problems ? 1 : 0;
}
