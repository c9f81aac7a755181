/* audit_tail.c — `sbxsup audit tail [-f] [-n N] [--color WHEN] FILE`.
 *
 * Promise: prints the last N events of FILE (default 10; -n all: every event), one readable line
 * each: time, severity (security events; the same severity as `audit summary`), executor, run
 * id prefix, event and its details (rule last). With -f it then keeps following the file as it
 * grows (inotify, polling as fallback; a truncated file is read again from its start) until
 * interrupted. Severity colours (critical bold red, high red, medium yellow, low cyan, info dim)
 * are used when stdout is a terminal (--color auto, the default), never on a pipe or file unless
 * --color always. Every string from the stream is made printable first (control bytes and C1
 * controls become '?'), so the stream can never drive the terminal. Damaged lines are skipped and
 * reported on stderr with their line number. Memory: N rendered lines.
 */
#include "review.h"
#include "audit_model.h"
#include "audit_read.h"
#include "msg.h"
#include "quote.h"

#include <cjson/cJSON.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct tail {
	bool color, live;
	size_t n;            /* ring capacity (0 = unbounded: print as read) */
	char **ring;
	size_t head, used;
	uint64_t damaged;
	const char *name;
};

static const char *color_of(enum sbx_sev s)
{
	switch (s) {
	case SBX_SEV_CRITICAL: return "\033[1;31m";
	case SBX_SEV_HIGH: return "\033[31m";
	case SBX_SEV_MEDIUM: return "\033[33m";
	case SBX_SEV_LOW: return "\033[36m";
	case SBX_SEV_INFO: return "\033[2m";
	default: return NULL;
	}
}

static bool is_common(const char *k)
{
	static const char *const c[] = {"v", "ts", "run", "seq", "executor", "event", "src", "prev", "hash", "sev",
					"rule", "argv"};
	for (size_t i = 0; i < sizeof c / sizeof c[0]; i++)
		if (strcmp(k, c[i]) == 0)
			return true;
	return false;
}

/* One event as a line of text (malloc'd, printable), with its severity in *sev. */
static char *render(const char *line, size_t len, enum sbx_sev *sev)
{
	cJSON *ev = cJSON_ParseWithLength(line, len);
	if (!ev)
		return NULL;
	*sev = am_event_sev(ev, NULL);
	char *buf = NULL;
	size_t blen = 0;
	FILE *f = open_memstream(&buf, &blen);
	if (!f) {
		cJSON_Delete(ev);
		return NULL;
	}
	const cJSON *ts = cJSON_GetObjectItemCaseSensitive(ev, "ts"), *run = cJSON_GetObjectItemCaseSensitive(ev, "run"),
		    *ex = cJSON_GetObjectItemCaseSensitive(ev, "executor"),
		    *name = cJSON_GetObjectItemCaseSensitive(ev, "event");
	/* every string from the stream is shown escaped (common/quote.h); members' values quoted */
	char q1[SBX_Q_MAX], q2[SBX_Q_MAX], q3[SBX_Q_MAX], q4[SBX_Q_MAX];
	snprintf(q1, sizeof q1, "%s", cJSON_IsString(ts) ? ts->valuestring : "?");
	snprintf(q2, sizeof q2, "%s", cJSON_IsString(ex) ? ex->valuestring : "?");
	snprintf(q3, sizeof q3, "%.8s", cJSON_IsString(run) ? run->valuestring : "?");
	snprintf(q4, sizeof q4, "%s", cJSON_IsString(name) ? name->valuestring : "?");
	audit_printable(q1, 64);
	audit_printable(q2, sizeof q2);
	audit_printable(q3, sizeof q3);
	audit_printable(q4, 128);
	fprintf(f, "%s %-8s %s %s %s", q1, sbx_sev_name(*sev) ? sbx_sev_name(*sev) : "-", q2, q3, q4);
	const cJSON *argv = cJSON_GetObjectItemCaseSensitive(ev, "argv"), *m;
	if (cJSON_IsArray(argv)) {
		fputs(" argv=[", f);
		bool first = true;
		cJSON_ArrayForEach(m, argv) {
			fprintf(f, "%s%s", first ? "" : " ", cJSON_IsString(m) ? sbx_q(m->valuestring, q1, sizeof q1) : "?");
			first = false;
		}
		fputc(']', f);
	}
	cJSON_ArrayForEach(m, ev) {
		if (!m->string || is_common(m->string))
			continue;
		snprintf(q2, sizeof q2, "%s", m->string);
		audit_printable(q2, 256);
		if (cJSON_IsString(m))
			fprintf(f, " %s=%s", q2, sbx_q(m->valuestring, q1, sizeof q1));
		else if (cJSON_IsNumber(m))
			fprintf(f, " %s=%.0f", q2, m->valuedouble);
		else if (cJSON_IsBool(m))
			fprintf(f, " %s=%s", q2, cJSON_IsTrue(m) ? "true" : "false");
		else if (cJSON_IsObject(m) || cJSON_IsArray(m)) {
			char *j = cJSON_PrintUnformatted(m), *s = j ? sbx_escape_json(j) : NULL;
			if (s)
				fprintf(f, " %s=%s", q2, s);
			free(s);
			free(j);
		}
	}
	const cJSON *rule = cJSON_GetObjectItemCaseSensitive(ev, "rule");
	if (cJSON_IsString(rule))
		fprintf(f, " rule=%s", sbx_q(rule->valuestring, q1, sizeof q1));
	cJSON_Delete(ev);
	if (fclose(f) != 0) {
		free(buf);
		return NULL;
	}
	/* the sev travels in front of the text so the ring can colour it later */
	char *out = malloc(strlen(buf) + 2);
	if (out) {
		out[0] = (char)('0' + *sev);
		strcpy(out + 1, buf);
	}
	free(buf);
	return out;
}

static void emit(struct tail *t, const char *r)
{
	const char *c = t->color ? color_of((enum sbx_sev)(r[0] - '0')) : NULL;
	if (c)
		printf("%s%s\033[0m\n", c, r + 1);
	else
		printf("%s\n", r + 1);
}

static void flush_ring(struct tail *t)
{
	for (size_t i = 0; i < t->used; i++) {
		size_t k = (t->head + t->n - t->used + i) % t->n;
		emit(t, t->ring[k]);
		free(t->ring[k]);
		t->ring[k] = NULL;
	}
	t->used = 0;
	fflush(stdout);
}

static void on_idle(void *ctx)
{
	struct tail *t = ctx;
	if (!t->live) {
		if (t->n)
			flush_ring(t);
		t->live = true;
	}
	fflush(stdout);
}

static int take(struct tail *t, const char *line, size_t len)
{
	enum sbx_sev sev = SBX_SEV_NONE;
	char *r = render(line, len, &sev);
	if (!r)
		return -1;
	if (t->live || !t->n) {
		emit(t, r);
		free(r);
		return 0;
	}
	free(t->ring[t->head]); /* the oldest, when the ring is full */
	t->ring[t->head] = r;
	t->head = (t->head + 1) % t->n;
	if (t->used < t->n)
		t->used++;
	return 0;
}

static const char help[] =
	"usage: sbxsup audit tail [-f|--follow] [-n N|--lines N] [--color auto|always|never] FILE\n"
	"Prints the last N events of FILE (default 10; -n all for every event), one line each: time,\n"
	"severity, executor, run id prefix, event, details, rule. -f keeps following the file as it grows,\n"
	"until interrupted. Severity colours on a terminal (critical bold red, high red, medium yellow,\n"
	"low cyan, info dim); plain text on a pipe or file (--color always|never to choose).\n";

int audit_tail_main(int argc, char **argv)
{
	static const struct option opts[] = {{"follow", no_argument, NULL, 'f'},
					     {"lines", required_argument, NULL, 'n'},
					     {"color", required_argument, NULL, 'c'},
					     {"colour", required_argument, NULL, 'c'},
					     {"help", no_argument, NULL, 'h'},
					     {NULL, 0, NULL, 0}};
	struct tail t = {.n = 10};
	bool follow = false;
	int color = -1; /* auto */
	int c;
	static char prog[] = "sbxsup: audit tail";
	argv[0] = prog;
	optind = 1;
	while ((c = getopt_long(argc, argv, "fn:h", opts, NULL)) != -1) {
		switch (c) {
		case 'f': follow = true; break;
		case 'n': {
			char *end;
			errno = 0;
			unsigned long v = strtoul(optarg, &end, 10);
			if (strcmp(optarg, "all") == 0)
				t.n = 0;
			else if (!*optarg || *end || errno || v > 1000000 || optarg[0] == '-') {
				sbx_msg("audit tail: -n '%s': expected a number (at most 1000000) or \"all\"", optarg);
				return SBX_EXIT_INTERNAL;
			} else
				t.n = v;
			if (strcmp(optarg, "0") == 0)
				t.n = SIZE_MAX; /* -n 0: nothing from the past (only new events with -f) */
			break;
		}
		case 'c':
			if (strcmp(optarg, "auto") == 0)
				color = -1;
			else if (strcmp(optarg, "always") == 0)
				color = 1;
			else if (strcmp(optarg, "never") == 0)
				color = 0;
			else {
				sbx_msg("audit tail: --color '%s': expected auto, always or never", optarg);
				return SBX_EXIT_INTERNAL;
			}
			break;
		case 'h': fputs(help, stdout); return 0;
		default: fputs(help, stderr); return SBX_EXIT_INTERNAL;
		}
	}
	if (audit_check_files("tail", argc, optind, false, help) != 0)
		return SBX_EXIT_INTERNAL;
	if (argc - optind != 1) {
		sbx_msg("audit tail: exactly one FILE");
		return SBX_EXIT_INTERNAL;
	}
	t.color = color == 1 || (color == -1 && isatty(STDOUT_FILENO));
	bool none = t.n == SIZE_MAX;
	if (none)
		t.n = 1;
	if (t.n) {
		t.ring = calloc(t.n, sizeof *t.ring);
		if (!t.ring) {
			sbx_msg("audit tail: out of memory");
			return SBX_EXIT_INTERNAL;
		}
	}
	volatile sig_atomic_t *stop = follow ? audit_stop_install() : NULL;
	struct audit_reader r;
	if (audit_open_inputs("tail", argv + optind, 1, follow, stop, &r) != 0) {
		free(t.ring);
		return SBX_EXIT_INTERNAL;
	}
	t.name = argv[optind];
	r.on_idle = on_idle;
	r.idle_ctx = &t;
	const char *line, *damage;
	size_t len;
	int n, rc = 0;
	while ((n = audit_reader_next(&r, &line, &len, &damage)) == 1) {
		struct audit_line al;
		char msg[160];
		const char *bad = damage ? damage : audit_line_check(line, len, &al, false, msg, sizeof msg);
		if (bad) {
			t.damaged++;
			if (t.live)
				sbx_msg("audit tail: %s:%llu: damaged line skipped: %s", t.name, (unsigned long long)r.lineno, bad);
			continue;
		}
		if (none && !t.live)
			continue;
		if (take(&t, line, len) < 0) {
			sbx_msg("audit tail: out of memory");
			rc = SBX_EXIT_INTERNAL;
			break;
		}
	}
	if (n < 0) {
		sbx_msg("audit tail: %s: read error: %s", t.name, strerror(errno));
		rc = SBX_EXIT_INTERNAL;
	}
	if (t.n && !t.live && !none)
		flush_ring(&t);
	for (size_t i = 0; i < t.n && t.ring; i++)
		free(t.ring[i]);
	free(t.ring);
	audit_reader_close(&r);
	if (fflush(stdout) != 0) {
		sbx_msg("audit tail: write error: %s", strerror(errno));
		rc = SBX_EXIT_INTERNAL;
	}
	if (t.damaged)
		sbx_msg("audit tail: %llu damaged line(s) skipped (run `sbxsup audit verify`)", (unsigned long long)t.damaged);
	return rc;
}
