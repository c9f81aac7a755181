/* cmd_shadow.c — `sbxsup shadow list|diff|commit|discard`: review and apply what a --shadow run
 * changed (docs/shadow.md, docs/cli.md). The store is shadow_store.h, the change set
 * changeset.h, the application shadow_commit.h; this file is the command line, the text diff
 * (/usr/bin/diff -u run with an argv, no shell, on descriptors opened without following symlinks)
 * and the audit of a commit: a run-like segment of its own (run.start, shadow.commit, run.end, with
 * its own run id and hash chain, keyed like any run) appended to the run's audit file, so that
 * `sbxsup audit verify` checks it like any other run. Every name printed for a person is quoted
 * (common/quote.h); --json carries the exact names (one that is not UTF-8 also as path_hex). */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <linux/openat2.h>

#include "audit.h"
#include "audit_dest.h"
#include "changeset.h"
#include "cli_opt.h"
#include "quote.h"
#include "utf8.h"
#include "cmd.h"
#include "shadow_commit.h"
#include "shadow_store.h"

static const char usage[] =
	"usage: sbxsup shadow COMMAND [options] [RUN]\n"
	"Review and apply what a `sbxsup run --shadow` run changed (RUN: its run id, as in run.start and\n"
	"the result record).\n"
	"  list                       the runs whose changes are kept: id, state, counts, workspace\n"
	"  diff [--json] RUN          the changed entries (kind, type, mode, size, quoted path; what\n"
	"                             commit would refuse, and why), then a unified diff of each changed\n"
	"                             text file; --json: the change set as JSON\n"
	"  commit [-a DEST] [--allow-world-writable] RUN [PATH...]\n"
	"                             apply every change, or those at or below each PATH, one file at a\n"
	"                             time and atomically; refuses (and keeps) a change whose real file\n"
	"                             changed since the run started, a symlink, a device, fifo or socket,\n"
	"                             a setuid/setgid entry, a newly world-writable one (unless\n"
	"                             --allow-world-writable); audited as shadow.commit in the run's\n"
	"                             audit file (or DEST)\n"
	"  discard RUN                remove the run's kept changes\n"
	"Names are shown quoted, with C escapes for control bytes, invalid UTF-8 and bidi controls.\n"
	"Exit: 0; commit: 1 when some change was refused; 125 on error.\n";

struct srun {
	char run[33];
	char dir[4200];
	int dfd;
	cJSON *meta;
	struct changeset cs;
	bool *committed;
	cJSON *committed_list;     /* ["kind path", ...] */
};

static const char *mstr(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static void srun_free(struct srun *s)
{
	if (s->dfd >= 0)
		close(s->dfd);
	cJSON_Delete(s->meta);
	cJSON_Delete(s->committed_list);
	cs_free(&s->cs);
	free(s->committed);
}

/* The store's side of the changes: the overlay's upper/, or the copy fallback's tree/. */
static const char *layer_dir(const struct srun *s)
{
	const char *l = mstr(s->meta, "layer");
	return l && !strcmp(l, "tree") ? "tree" : "upper";
}

static char *entry_key(const struct cs_entry *e)
{
	size_t n = strlen(e->path) + 16;
	char *k = malloc(n);
	if (k)
		snprintf(k, n, "%s %s", cs_kind_name(e->kind), e->path);
	return k;
}

static int srun_load(struct srun *s, const char *run)
{
	char err[512];
	memset(s, 0, sizeof *s);
	s->dfd = -1;
	snprintf(s->run, sizeof s->run, "%s", run);
	s->dfd = shadow_store_load(run, s->dir, sizeof s->dir, &s->meta, err, sizeof err);
	if (s->dfd < 0 || !s->meta) {
		sbx_msg("shadow: %s", err);
		return -1;
	}
	cJSON *ch = shadow_read_json(s->dfd, SHADOW_CHANGES);
	if (!ch) {
		sbx_msg("shadow: run %s: no change set listed (the run is still running, or sbxsup was killed "
			"before its end)", run);
		return -1;
	}
	int rc = cs_from_json(ch, &s->cs);
	cJSON_Delete(ch);
	if (rc < 0) {
		sbx_msg("shadow: run %s: its change set is malformed", run);
		return -1;
	}
	s->committed = calloc(s->cs.n + 1, sizeof *s->committed);
	s->committed_list = shadow_read_json(s->dfd, SHADOW_COMMITTED);
	if (!cJSON_IsArray(s->committed_list)) {
		cJSON_Delete(s->committed_list);
		s->committed_list = cJSON_CreateArray();
	}
	if (!s->committed || !s->committed_list)
		return -1;
	const cJSON *it;
	cJSON_ArrayForEach(it, s->committed_list) {
		for (size_t i = 0; cJSON_IsString(it) && i < s->cs.n; i++) {
			char *k = entry_key(&s->cs.e[i]);
			if (k && !strcmp(k, it->valuestring))
				s->committed[i] = true;
			free(k);
		}
	}
	return 0;
}

/* ---- list ------------------------------------------------------------------------------------- */

static int do_list(void)
{
	char err[512];
	char **ids = shadow_store_list(err, sizeof err);
	if (!ids) {
		sbx_msg("shadow: %s", err);
		return SBX_EXIT_INTERNAL;
	}
	for (size_t i = 0; ids[i]; i++) {
		char dir[4200];
		cJSON *m;
		int fd = shadow_store_load(ids[i], dir, sizeof dir, &m, err, sizeof err);
		const cJSON *c = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(m, "changes"), "count");
		char counts[160] = "-";
		if (c) {
			size_t l = 0;
			for (int k = 0; k < CS__N; k++) {
				const cJSON *v = cJSON_GetObjectItemCaseSensitive(c, cs_kind_name((enum cs_kind)k));
				l += (size_t)snprintf(counts + l, sizeof counts - l, "%s%s %d", l ? ", " : "",
						      cs_kind_name((enum cs_kind)k), cJSON_IsNumber(v) ? v->valueint : 0);
				if (l >= sizeof counts)
					break;
			}
		}
		char qs[64], qw[SBX_Q_MAX];
		snprintf(qs, sizeof qs, "%s", mstr(m, "state") ? mstr(m, "state") : "?");
		sbx_escape_fit(qs, sizeof qs);
		printf("%s  %-7s  %s  %s\n", ids[i], qs, sbx_q(mstr(m, "workspace"), qw, sizeof qw), counts);
		cJSON_Delete(m);
		if (fd >= 0)
			close(fd);
	}
	shadow_ids_free(ids);
	return 0;
}

/* ---- diff ------------------------------------------------------------------------------------- */

static int beneath(int dirfd, const char *path)
{
	struct open_how how = {.flags = O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC,
			       .resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS};
	return (int)syscall(SYS_openat2, dirfd, path, &how, sizeof how);
}

static bool binary_fd(int fd)
{
	char b[8192];
	if (fd < 0)
		return false;
	ssize_t n = pread(fd, b, sizeof b, 0);
	return n > 0 && memchr(b, 0, (size_t)n) != NULL;
}

/* One line of diff's output as a terminal may show it: the file's content is the executor's, so
 * what a terminal acts on (ESC, CR, bidi controls, ...) is escaped as in names; tabs, quotes and
 * backslashes stay as they are (common/quote.h, sbx_escape_json). */
static void put_content_line(char *line)
{
	for (char *t = line;; ) {
		char *tab = strchr(t, '\t');
		if (tab)
			*tab = 0;
		char *e = sbx_escape_json(t);
		fputs(e ? e : "?", stdout);
		free(e);
		if (!tab)
			break;
		putchar('\t');
		t = tab + 1;
	}
	putchar('\n');
}

/* /usr/bin/diff -u on two descriptors (-1: /dev/null), labelled; argv only, no shell; its output
 * read back through a pipe and printed escaped (put_content_line). */
static void run_diff(int a, int b, const char *la, const char *lb)
{
	fflush(stdout);
	int pfd[2];
	if (pipe2(pfd, O_CLOEXEC) < 0)
		return;
	pid_t p = fork();
	if (p < 0) {
		close(pfd[0]);
		close(pfd[1]);
		return;
	}
	if (p == 0) {
		if (dup2(pfd[1], 1) < 0)
			_exit(127);
		char fa[32] = "/dev/null", fb[32] = "/dev/null";
		if (a >= 0) {
			int na = fcntl(a, F_DUPFD, 10); /* not close-on-exec */
			snprintf(fa, sizeof fa, "/dev/fd/%d", na);
		}
		if (b >= 0) {
			int nb = fcntl(b, F_DUPFD, 20);
			snprintf(fb, sizeof fb, "/dev/fd/%d", nb);
		}
		char *argv[] = {"diff", "-u", "--label", (char *)la, "--label", (char *)lb, fa, fb, NULL};
		execv("/usr/bin/diff", argv);
		_exit(127);
	}
	close(pfd[1]);
	FILE *in = fdopen(pfd[0], "r");
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	while (in && (n = getline(&line, &cap, in)) >= 0) {
		if (n > 0 && line[n - 1] == '\n')
			line[n - 1] = 0;
		put_content_line(line);
	}
	free(line);
	if (in)
		fclose(in);
	else
		close(pfd[0]);
	int st;
	while (waitpid(p, &st, 0) < 0 && errno == EINTR)
		;
}

/* --json: names are exact; one that is not UTF-8 (JSON cannot hold it) also as path_hex/from_hex:
 * its bytes in hex, the string itself then carrying U+FFFD for each bad byte. */
static void exact_names(cJSON *entries)
{
	cJSON *it;
	cJSON_ArrayForEach(it, entries) {
		const char *keys[2][2] = {{"path", "path_hex"}, {"from", "from_hex"}};
		for (int k = 0; k < 2; k++) {
			const char *v = mstr(it, keys[k][0]);
			if (!v || utf8_valid(v, strlen(v)))
				continue;
			size_t n = strlen(v);
			char *hex = malloc(2 * n + 1), *fixed = utf8_sanitize(v, SIZE_MAX);
			for (size_t i = 0; hex && i < n; i++)
				snprintf(hex + 2 * i, 3, "%02x", (unsigned char)v[i]);
			if (hex && fixed) {
				cJSON_AddStringToObject(it, keys[k][1], hex);
				cJSON_ReplaceItemInObjectCaseSensitive(it, keys[k][0], cJSON_CreateString(fixed));
			}
			free(hex);
			free(fixed);
		}
	}
}

/* "-> target" of a symlink in the store, and whether it leads out of the workspace. */
static void show_link(int ufd, const char *path)
{
	const char *sl = strrchr(path, '/'), *base = sl ? sl + 1 : path;
	char dir[4096], t[4096], q[SBX_Q_MAX];
	snprintf(dir, sizeof dir, "%.*s", sl ? (int)(sl - path) : 1, sl ? path : ".");
	int d = beneath(ufd, dir);
	ssize_t n = d >= 0 ? readlinkat(d, base, t, sizeof t - 1) : -1;
	if (d >= 0)
		close(d);
	if (n < 0)
		return;
	t[n] = 0;
	/* out of the workspace: absolute, or more ".." than the link's own depth */
	int depth = 0;
	for (const char *c = path; *c; c++)
		depth += *c == '/';
	bool out = t[0] == '/';
	for (const char *c = t; !out && *c;) {
		size_t l = strcspn(c, "/");
		if (l == 2 && c[0] == '.' && c[1] == '.')
			out = --depth < 0;
		else if (l && !(l == 1 && c[0] == '.'))
			depth++;
		c += l;
		c += *c == '/';
	}
	printf("%30s -> %s%s\n", "", sbx_q(t, q, sizeof q), out ? "  (points out of the workspace)" : "");
}

static int do_diff(int argc, char **argv)
{
	static const struct option opts[] = {{"json", no_argument, NULL, 'j'}, {"help", no_argument, NULL, 'h'},
					     {NULL, 0, NULL, 0}};
	bool json = false;
	int c;
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:jh", opts, NULL)) != -1) {
		if (c == 'j')
			json = true;
		else if (c == 'h')
			return fputs(usage, stdout), 0;
		else
			return cli_bad_option("shadow diff", argv, opts, c), SBX_EXIT_INTERNAL;
	}
	if (optind + 1 != argc) {
		sbx_msg("shadow diff: one RUN expected (see sbxsup shadow --help)");
		return SBX_EXIT_INTERNAL;
	}
	struct srun s;
	if (srun_load(&s, argv[optind]) < 0) {
		srun_free(&s);
		return SBX_EXIT_INTERNAL;
	}
	const char *ws = mstr(s.meta, "workspace");
	if (json) {
		cJSON *j = cs_to_json(&s.cs);
		exact_names(cJSON_GetObjectItemCaseSensitive(j, "entries"));
		char *t = j ? cJSON_Print(j) : NULL;
		if (t)
			puts(t);
		free(t);
		cJSON_Delete(j);
		srun_free(&s);
		return 0;
	}
	static char qa[SBX_Q_MAX], qb[SBX_Q_MAX];
	printf("run %s, workspace %s, change set %s\n", s.run, sbx_q(ws, qa, sizeof qa), s.cs.hash);
	int wfd = ws ? open(ws, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC) : -1;
	int ufd = openat(s.dfd, layer_dir(&s), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	for (size_t i = 0; i < s.cs.n; i++) {
		const struct cs_entry *e = &s.cs.e[i];
		char mode[24], mo[8], mn[8], why[300];
		bool mode_changed = e->kind != CS_CREATED && e->kind != CS_DELETED && e->real.exists &&
				    (e->mode & 07777) != (e->old_mode & 07777);
		if (mode_changed)
			snprintf(mode, sizeof mode, "%s->%s", shadow_mode_str(e->old_mode, mo, sizeof mo),
				 shadow_mode_str(e->mode, mn, sizeof mn));
		else
			snprintf(mode, sizeof mode, "%s", shadow_mode_str(e->mode, mn, sizeof mn));
		printf("%-8s %-7s %-10s %10llu  %s%s%s%s\n", cs_kind_name(e->kind), cs_type_name(e->type), mode,
		       (unsigned long long)e->size, e->from ? sbx_q(e->from, qb, sizeof qb) : "", e->from ? " -> " : "",
		       sbx_q(e->path, qa, sizeof qa), s.committed[i] ? "  (committed)" : "");
		if (e->type == CS_T_SYMLINK && e->kind != CS_DELETED && ufd >= 0)
			show_link(ufd, e->path);
		if (e->why[0] && e->type != CS_T_SYMLINK)
			printf("%30s %s\n", "", e->why);
		const char *refuse = s.committed[i] ? NULL : shadow_commit_refusal(e, 0, why, sizeof why);
		if (refuse)
			printf("%30s ! commit refuses: %s\n", "", refuse);
	}
	for (size_t i = 0; i < s.cs.n && ufd >= 0; i++) {
		const struct cs_entry *e = &s.cs.e[i];
		if (e->type != CS_T_FILE || e->kind == CS_MODE || e->kind == CS_RENAMED || s.committed[i])
			continue;
		int a = e->kind != CS_CREATED && wfd >= 0 ? beneath(wfd, e->path) : -1;
		int b = e->kind != CS_DELETED ? beneath(ufd, e->path) : -1;
		/* diff prints its labels as they are: give it the quoted names */
		char la[SBX_Q_MAX + 8], lb[SBX_Q_MAX + 8];
		char *qp = sbx_escape(e->path);
		snprintf(la, sizeof la, "%s%s", e->kind == CS_CREATED ? "" : "a/", e->kind == CS_CREATED ? "/dev/null" : qp ? qp : "?");
		snprintf(lb, sizeof lb, "%s%s", e->kind == CS_DELETED ? "" : "b/", e->kind == CS_DELETED ? "/dev/null" : qp ? qp : "?");
		free(qp);
		if (binary_fd(a) || binary_fd(b))
			printf("Binary files %s and %s differ\n", la, lb);
		else
			run_diff(a, b, la, lb);
		if (a >= 0)
			close(a);
		if (b >= 0)
			close(b);
	}
	if (wfd >= 0)
		close(wfd);
	if (ufd >= 0)
		close(ufd);
	srun_free(&s);
	return 0;
}

/* ---- commit ----------------------------------------------------------------------------------- */

/* PATH as the change set names it: relative to the workspace, no "./", no trailing '/'. */
static void rel_path(const char *ws, const char *arg, char *out, size_t len)
{
	size_t wl = ws ? strlen(ws) : 0;
	if (ws && !strncmp(arg, ws, wl) && (arg[wl] == '/' || !arg[wl]))
		arg += wl;
	while (*arg == '/' || (arg[0] == '.' && arg[1] == '/'))
		arg += arg[0] == '.' ? 2 : 1;
	snprintf(out, len, "%s", arg);
	size_t n = strlen(out);
	while (n > 0 && out[n - 1] == '/')
		out[--n] = 0;
}

static bool at_or_below(const char *path, const char *sel)
{
	size_t n = strlen(sel);
	return !n || (!strncmp(path, sel, n) && (path[n] == '/' || !path[n]));
}

static int audit_commit(struct srun *s, const char *dest, char **paths, int npaths, unsigned allow,
			const struct shadow_commit_out *out, int code, const struct timespec *t0)
{
	char err[512] = "";
	struct audit a;
	memset(&a, 0, sizeof a);
	const char *ex = mstr(s->meta, "executor");
	struct audit_run_cfg ac = {.dest = dest, .executor = ex && *ex ? ex : "shadow", .pol = NULL};
	if (audit_run_open(&a, &ac, err, sizeof err) < 0) {
		char qd[SBX_Q_MAX], qs[SBX_Q_MAX], at[sizeof s->dir + 64];
		snprintf(at, sizeof at, "%s/%s", s->dir, SHADOW_COMMITTED);
		sbx_msg("shadow commit: audit stream %s: %s (the commit is done; it is recorded in %s only)",
			sbx_q(dest, qd, sizeof qd), err, sbx_q(at, qs, sizeof qs));
		return -1;
	}
	int rc = 0;
	cJSON *ev = audit_event(&a, "run.start", "kernel");
	if (ev) {
		cJSON *av = cJSON_AddArrayToObject(ev, "argv");
		const char *head[] = {"sbxsup", "shadow", "commit", s->run};
		for (size_t i = 0; i < 4; i++)
			cJSON_AddItemToArray(av, cJSON_CreateString(head[i]));
		if (allow & SHADOW_ALLOW_WORLD_WRITABLE)
			cJSON_AddItemToArray(av, cJSON_CreateString("--allow-world-writable"));
		for (int i = 0; i < npaths; i++)
			cJSON_AddItemToArray(av, cJSON_CreateString(paths[i]));
		const cJSON *m = cJSON_GetObjectItemCaseSensitive(s->meta, "manifest");
		cJSON *man = cJSON_AddObjectToObject(ev, "manifest");
		audit_add_str(man, "path", mstr(m, "path") ? mstr(m, "path") : "", 4096);
		cJSON_AddStringToObject(man, "sha256", mstr(m, "sha256") && strlen(mstr(m, "sha256")) == 64
							       ? mstr(m, "sha256") : "0000000000000000000000000000000000000000000000000000000000000000");
		cJSON_AddNumberToObject(ev, "uid", getuid());
		cJSON_AddObjectToObject(ev, "layers");
		cJSON_AddObjectToObject(ev, "why");
		cJSON_AddStringToObject(ev, "autonomy", mstr(s->meta, "autonomy") ? mstr(s->meta, "autonomy") : "supervised");
		audit_add_str(ev, "workspace", mstr(s->meta, "workspace") ? mstr(s->meta, "workspace") : "", 4096);
		cJSON_AddStringToObject(ev, "shadow_of", s->run);
	}
	rc |= ev ? audit_emit(&a, ev) : -1;
	ev = audit_event(&a, "shadow.commit", "kernel");
	if (ev) {
		cJSON_AddStringToObject(ev, "shadow_run", s->run);
		cJSON_AddNumberToObject(ev, "uid", getuid());
		cJSON_AddStringToObject(ev, "changeset", s->cs.hash);
		cJSON *sel = cJSON_AddArrayToObject(ev, "selected");
		for (int i = 0; i < npaths; i++)
			cJSON_AddItemToArray(sel, cJSON_CreateString(paths[i]));
		if (!npaths)
			cJSON_AddItemToArray(sel, cJSON_CreateString("(all)"));
		cJSON *al = cJSON_AddArrayToObject(ev, "allow");
		if (al && (allow & SHADOW_ALLOW_WORLD_WRITABLE))
			cJSON_AddItemToArray(al, cJSON_CreateString("world-writable"));
		cJSON_AddItemToObject(ev, "committed", cJSON_Duplicate(out->done, 1));
		cJSON_AddItemToObject(ev, "refused", cJSON_Duplicate(out->refused, 1));
	}
	rc |= ev ? audit_emit(&a, ev) : -1;
	ev = audit_event(&a, "run.end", "kernel");
	if (ev) {
		struct timespec t1;
		clock_gettime(CLOCK_MONOTONIC, &t1);
		cJSON_AddNumberToObject(ev, "exit", code);
		cJSON_AddNumberToObject(ev, "signal", 0);
		cJSON_AddNumberToObject(ev, "duration_ms",
					(double)((t1.tv_sec - t0->tv_sec) * 1000 + (t1.tv_nsec - t0->tv_nsec) / 1000000));
		cJSON *counts = audit_counts(&a);
		if (counts)
			cJSON_AddItemToObject(ev, "counts", counts);
		cJSON_AddNumberToObject(ev, "lost", 0);
	}
	rc |= ev ? audit_emit(&a, ev) : -1;
	audit_close(&a);
	if (rc < 0) {
		char qd[SBX_Q_MAX];
		sbx_msg("shadow commit: the audit stream %s could not be written", sbx_q(dest, qd, sizeof qd));
	}
	return rc;
}

static int do_commit(int argc, char **argv)
{
	enum { O_ALLOW_WW = 1000 };
	static const struct option opts[] = {{"audit", required_argument, NULL, 'a'},
					     {"allow-world-writable", no_argument, NULL, O_ALLOW_WW},
					     {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0}};
	const char *dest = NULL;
	unsigned allow = 0;
	int c;
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:a:h", opts, NULL)) != -1) {
		if (c == 'a')
			dest = optarg;
		else if (c == O_ALLOW_WW)
			allow |= SHADOW_ALLOW_WORLD_WRITABLE;
		else if (c == 'h')
			return fputs(usage, stdout), 0;
		else
			return cli_bad_option("shadow commit", argv, opts, c), SBX_EXIT_INTERNAL;
	}
	if (optind >= argc) {
		sbx_msg("shadow commit: RUN expected (see sbxsup shadow --help)");
		return SBX_EXIT_INTERNAL;
	}
	struct timespec t0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	struct srun s;
	if (srun_load(&s, argv[optind]) < 0) {
		srun_free(&s);
		return SBX_EXIT_INTERNAL;
	}
	char **paths = argv + optind + 1;
	int npaths = argc - optind - 1;
	const char *ws = mstr(s.meta, "workspace");
	const char *t0s = mstr(s.meta, "t0_ns");
	int code = SBX_EXIT_INTERNAL;
	bool *sel = calloc(s.cs.n + 1, sizeof *sel);
	int wfd = -1, ufd = -1;
	struct shadow_commit_out out = {0};
	if (!sel || !ws || !t0s) {
		sbx_msg("shadow commit: run %s: %s", s.run, sel ? "its meta.json lacks the workspace or start time" : "out of memory");
		goto done;
	}
	for (int k = 0; k < npaths; k++) {
		char want[4096];
		bool any = false;
		rel_path(ws, paths[k], want, sizeof want);
		for (size_t i = 0; i < s.cs.n; i++) {
			const struct cs_entry *e = &s.cs.e[i];
			if (at_or_below(e->path, want) || (e->from && at_or_below(e->from, want))) {
				any = true;
				sel[i] = true;
			}
		}
		if (!any) {
			char qp[SBX_Q_MAX];
			sbx_msg("shadow commit: %s: not in the change set of run %s (see sbxsup shadow diff %s)",
				sbx_q(paths[k], qp, sizeof qp), s.run, s.run);
			goto done;
		}
	}
	for (size_t i = 0; i < s.cs.n; i++) {
		if (!npaths)
			sel[i] = true;
		if (s.committed[i])
			sel[i] = false;
	}
	/* a new file needs its new directories: they come along */
	for (size_t i = 0; i < s.cs.n; i++) {
		if (!sel[i])
			continue;
		for (size_t j = 0; j < s.cs.n; j++) {
			const struct cs_entry *d = &s.cs.e[j];
			size_t n = strlen(d->path);
			if (d->kind == CS_CREATED && d->type == CS_T_DIR && !s.committed[j] &&
			    !strncmp(s.cs.e[i].path, d->path, n) && s.cs.e[i].path[n] == '/')
				sel[j] = true;
		}
	}
	wfd = open(ws, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	ufd = openat(s.dfd, layer_dir(&s), O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (wfd < 0 || ufd < 0) {
		char qw[SBX_Q_MAX];
		int e = errno;
		sbx_msg("shadow commit: %s: %s", wfd < 0 ? sbx_q(ws, qw, sizeof qw) : "the store's upper directory",
			strerror(e));
		goto done;
	}
	if (shadow_commit(wfd, ufd, &s.cs, sel, strtoll(t0s, NULL, 10), allow, s.committed, &out) < 0) {
		sbx_msg("shadow commit: out of memory");
		goto done;
	}
	for (size_t i = 0; i < s.cs.n; i++)
		if (s.committed[i] && sel[i]) {
			char *k = entry_key(&s.cs.e[i]);
			if (k)
				cJSON_AddItemToArray(s.committed_list, cJSON_CreateString(k));
			free(k);
		}
	char at[sizeof s.dir + 64], qa[SBX_Q_MAX];
	snprintf(at, sizeof at, "%s/%s", s.dir, SHADOW_COMMITTED);
	if (out.ndone && shadow_write_json(s.dfd, SHADOW_COMMITTED, s.committed_list) < 0)
		sbx_msg("warning: shadow commit: %s: %s (a second commit would report these as conflicts)",
			sbx_q(at, qa, sizeof qa), strerror(errno));
	const cJSON *it;
	static char qp[SBX_Q_MAX];
	cJSON_ArrayForEach(it, out.done)
		printf("committed %-8s %-7s %s %s\n", mstr(it, "kind"), mstr(it, "type"), mstr(it, "mode"),
		       sbx_q(mstr(it, "path"), qp, sizeof qp));
	cJSON_ArrayForEach(it, out.refused)
		sbx_msg("shadow commit: refused %s %s %s %s: %s", mstr(it, "kind"), mstr(it, "type"), mstr(it, "mode"),
			sbx_q(mstr(it, "path"), qp, sizeof qp), mstr(it, "reason"));
	code = out.nrefused ? 1 : 0;
	if (!dest)
		dest = mstr(s.meta, "audit");
	if (dest)
		(void)audit_commit(&s, dest, paths, npaths, allow, &out, code, &t0);
	else
		sbx_msg("warning: shadow commit: run %s had no audit stream and no -a DEST was given: this commit "
			"is recorded only in %s", s.run, sbx_q(at, qa, sizeof qa));
done:
	if (wfd >= 0)
		close(wfd);
	if (ufd >= 0)
		close(ufd);
	cJSON_Delete(out.done);
	cJSON_Delete(out.refused);
	free(sel);
	srun_free(&s);
	return code;
}

/* ---- discard ---------------------------------------------------------------------------------- */

static int do_discard(int argc, char **argv)
{
	char err[512];
	if (argc != 2) {
		sbx_msg("shadow discard: one RUN expected (see sbxsup shadow --help)");
		return SBX_EXIT_INTERNAL;
	}
	if (shadow_store_remove(argv[1], err, sizeof err) < 0) {
		sbx_msg("shadow discard: %s", err);
		return SBX_EXIT_INTERNAL;
	}
	printf("discarded %s\n", argv[1]);
	return 0;
}

int cmd_shadow(int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		fputs(usage, argc < 2 ? stderr : stdout);
		return argc < 2 ? SBX_EXIT_INTERNAL : 0;
	}
	const char *sub = argv[1];
	if (!strcmp(sub, "list"))
		return do_list();
	if (!strcmp(sub, "diff"))
		return do_diff(argc - 1, argv + 1);
	if (!strcmp(sub, "commit"))
		return do_commit(argc - 1, argv + 1);
	if (!strcmp(sub, "discard"))
		return do_discard(argc - 1, argv + 1);
	sbx_msg("shadow: unknown command '%s'", sub);
	fputs(usage, stderr);
	return SBX_EXIT_INTERNAL;
}
