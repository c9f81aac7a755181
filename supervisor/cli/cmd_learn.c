/* cmd_learn.c — `sbxsup learn [-m BASE] [-w DIR] [options] -- COMMAND [ARG...]`.
 *
 * Promise: proposes the smallest manifest that lets one run of COMMAND succeed, and never grants
 * anything by running it: each round runs COMMAND under `sbxsup run` (this binary, every layer the
 * host gives) with the candidate manifest, in a throw-away copy of the workspace (so nothing it
 * writes reaches the real one), with the same stdin each time; the denials of the round's audit
 * stream become proposals (supervisor/manifest/learn.h), checked against the compiled policy so a
 * secret or a `deny` rule is never proposed. Reads and code:exec are granted to the next round;
 * writes outside the workspace and network hosts are proposed but stay blocked while learning. Rounds stop when a round asks for nothing new (or
 * after --rounds). The manifest goes to stdout (or -o FILE), each grant's evidence and every
 * refused request to stderr, so a reviewer can diff the result against a tool's declared manifest.
 * Names are the executor's: each is shown quoted (common/quote.h) and goes into the manifest as a
 * literal (escaped glob); the proposed manifest is validated as `sbxsup validate` does, and beside
 * each grant is what `explain` says of its object under it.
 * Exit: 0 when the last round ran with no denial a manifest could lift, 1 otherwise; 125 on bad
 * arguments or when a round could not be started.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmd.h"
#include "learn.h"
#include "manifest.h"
#include "quote.h"

#define LEARN_MAX_STDIN (16u << 20)

static const char learn_usage[] =
	"usage: sbxsup learn [-m BASE] [-w WORKSPACE] [--rounds N] [--layers LIST] [--timeout S] [-o FILE]\n"
	"                    -- COMMAND [ARG...]\n"
	"\n"
	"Run COMMAND (in a throw-away copy of the workspace, as often as needed) and propose the smallest\n"
	"manifest, starting from BASE (default: the built-in default manifest), that lets it run with no\n"
	"denial. Each grant is printed with the evidence that asked for it and what `explain` says of it\n"
	"under the proposed manifest (which is validated); names are quoted, and go into the manifest as\n"
	"literals (`*`, `?`, `\\` escaped). Secrets, what a deny rule forbids, and writes to / or under\n"
	"/usr /etc /bin /sbin /lib* /opt /boot /var/lib /root or another user's home are never proposed\n"
	"(listed as not proposed). stdin is read once and given to every round.\n"
	"\n"
	"  -m, --manifest FILE   the manifest to start from\n"
	"  -w, --workspace DIR   the workspace (default: the current directory); it is copied, never written\n"
	"  -r, --rounds N        at most N runs (default 6)\n"
	"  -l, --layers LIST     layers of each round (default auto)\n"
	"  -t, --timeout S       wall-clock limit of each round (default 60)\n"
	"  -o, --output FILE     write the manifest there instead of stdout\n"
	"  -h, --help            this text\n";

struct learn_opts {
	const char *base, *workspace, *layers, *timeout, *output;
	long rounds;
	char **cmd;
};

static int parse(int argc, char **argv, struct learn_opts *o)
{
	static const struct option lo[] = {
		{"manifest", required_argument, 0, 'm'}, {"workspace", required_argument, 0, 'w'},
		{"rounds", required_argument, 0, 'r'},   {"layers", required_argument, 0, 'l'},
		{"timeout", required_argument, 0, 't'},  {"output", required_argument, 0, 'o'},
		{"help", no_argument, 0, 'h'},           {0, 0, 0, 0},
	};
	*o = (struct learn_opts){.layers = "auto", .timeout = "60", .rounds = 6};
	opterr = 0;
	optind = 1;
	int c;
	while ((c = getopt_long(argc, argv, "+m:w:r:l:t:o:h", lo, NULL)) != -1) {
		switch (c) {
		case 'm': o->base = optarg; break;
		case 'w': o->workspace = optarg; break;
		case 'l': o->layers = optarg; break;
		case 't': o->timeout = optarg; break;
		case 'o': o->output = optarg; break;
		case 'r': {
			char *end;
			o->rounds = strtol(optarg, &end, 10);
			if (*end || o->rounds < 1 || o->rounds > 50) {
				sbx_msg("learn: --rounds takes a number from 1 to 50");
				return -1;
			}
			break;
		}
		case 'h': fputs(learn_usage, stdout); return 1;
		default:
			sbx_msg("learn: %s needs a value or is unknown (see sbxsup learn --help)", argv[optind - 1]);
			return -1;
		}
	}
	if (optind >= argc || strcmp(argv[optind - 1], "--") != 0) {
		sbx_msg("learn: the command must follow -- (sbxsup learn [options] -- COMMAND [ARG...])");
		return -1;
	}
	o->cmd = argv + optind;
	return 0;
}

static char *read_all(int fd, size_t *len)
{
	size_t cap = 8192, n = 0;
	char *b = malloc(cap);
	while (b) {
		if (n == cap) {
			if (cap >= LEARN_MAX_STDIN) {
				errno = EFBIG;
				free(b);
				return NULL;
			}
			char *nb = realloc(b, cap *= 2);
			if (!nb) {
				free(b);
				return NULL;
			}
			b = nb;
		}
		ssize_t r = read(fd, b + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			free(b);
			return NULL;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	*len = n;
	return b;
}

/* fork+exec argv, stdio to /dev/null unless given; returns the exit status or -1. */
static int spawn_wait(char *const argv[], int in, int out_keep, int *status)
{
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		int dn = open("/dev/null", O_RDWR | O_CLOEXEC);
		if (dn < 0 || dup2(in >= 0 ? in : dn, 0) < 0 || dup2(dn, 1) < 0 ||
		    (out_keep < 0 && dup2(dn, 2) < 0))
			_exit(127);
		execv(argv[0], argv);
		_exit(127);
	}
	int st;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	*status = st;
	return 0;
}

/* One round: copy the workspace, write the candidate, run it, note the denials. */
static int round_run(const struct learn_opts *o, const char *self, const char *tmp, const cJSON *cand,
		     const char *payload, size_t plen, struct learn *l, int *exitc, int *fresh)
{
	char copy[PATH_MAX], mpath[PATH_MAX], apath[PATH_MAX], ppath[PATH_MAX];
	snprintf(copy, sizeof copy, "%s/ws", tmp);
	snprintf(mpath, sizeof mpath, "%s/manifest.json", tmp);
	snprintf(apath, sizeof apath, "%s/audit.jsonl", tmp);
	snprintf(ppath, sizeof ppath, "%s/stdin", tmp);
	int st;
	char *rm[] = {"/bin/rm", "-rf", copy, NULL};
	if (spawn_wait(rm, -1, -1, &st) < 0 || unlink(apath) < 0) {
		if (errno != ENOENT)
			return -1;
	}
	char src[PATH_MAX + 2];
	snprintf(src, sizeof src, "%s/.", l->real_ws);
	char *cp[] = {"/bin/cp", "-a", "--reflink=auto", src, copy, NULL};
	if (mkdir(copy, 0755) < 0 || spawn_wait(cp, -1, -1, &st) < 0 || !WIFEXITED(st) || WEXITSTATUS(st)) {
		char q1[SBX_Q_MAX], q2[SBX_Q_MAX];
		sbx_msg("learn: cannot copy the workspace %s to %s", sbx_q(l->real_ws, q1, sizeof q1),
			sbx_q(copy, q2, sizeof q2));
		return -1;
	}
	char *txt = cJSON_Print(cand);
	FILE *f = txt ? fopen(mpath, "we") : NULL;
	if (!f || fputs(txt, f) < 0 || fclose(f) != 0) {
		free(txt);
		char q[SBX_Q_MAX];
		sbx_msg("learn: cannot write %s", sbx_q(mpath, q, sizeof q));
		return -1;
	}
	free(txt);
	int pfd = open(ppath, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (pfd < 0 || (plen && write(pfd, payload, plen) != (ssize_t)plen) || lseek(pfd, 0, SEEK_SET) < 0) {
		if (pfd >= 0)
			close(pfd);
		return -1;
	}
	size_t n = 0;
	while (o->cmd[n])
		n++;
	char **argv = calloc(n + 16, sizeof *argv);
	if (!argv) {
		close(pfd);
		return -1;
	}
	size_t k = 0;
	argv[k++] = (char *)self;
	argv[k++] = "run";
	argv[k++] = "-m"; argv[k++] = mpath;
	argv[k++] = "-w"; argv[k++] = copy;
	argv[k++] = "-a"; argv[k++] = apath;
	argv[k++] = "--layers"; argv[k++] = (char *)o->layers;
	argv[k++] = "--timeout"; argv[k++] = (char *)o->timeout;
	argv[k++] = "--";
	for (size_t i = 0; i < n; i++)
		argv[k++] = o->cmd[i];
	int rc = spawn_wait(argv, pfd, -1, &st);
	free(argv);
	close(pfd);
	if (rc < 0)
		return -1;
	*exitc = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	FILE *a = fopen(apath, "re");
	if (!a) {
		sbx_msg("learn: the round wrote no audit stream (exit %d)", *exitc);
		return -1;
	}
	char *line = NULL;
	size_t cap = 0;
	l->copy = copy;
	*fresh = 0;
	while (getline(&line, &cap, a) > 0) {
		cJSON *ev = cJSON_Parse(line);
		int r = ev ? learn_note(l, ev) : 0;
		cJSON_Delete(ev);
		if (r < 0) {
			free(line);
			fclose(a);
			return -1;
		}
		*fresh += r;
	}
	free(line);
	fclose(a);
	l->copy = NULL;
	return 0;
}

int cmd_learn(int argc, char **argv)
{
	struct learn_opts o;
	int pr = parse(argc, argv, &o);
	if (pr)
		return pr > 0 ? 0 : SBX_EXIT_INTERNAL;
	char err[512] = "", self[PATH_MAX];
	struct mf_ctx ctx;
	if (mf_ctx_init(&ctx, o.workspace, err, sizeof err) < 0) {
		sbx_msg("learn: %s", err);
		return SBX_EXIT_INTERNAL;
	}
	ssize_t sl = readlink("/proc/self/exe", self, sizeof self - 1);
	if (sl <= 0) {
		sbx_msg("learn: cannot find this sbxsup binary: %s", strerror(errno));
		return SBX_EXIT_INTERNAL;
	}
	self[sl] = 0;
	/* the base manifest must be valid as it is */
	struct manifest *m = NULL;
	struct mf_errors e = {0};
	if ((o.base ? manifest_load(o.base, &ctx, &m, &e) : manifest_load_default(&ctx, &m, &e)) < 0) {
		char q[SBX_Q_MAX];
		for (size_t i = 0; i < e.n; i++)
			sbx_msg("learn: %s: %s", o.base ? sbx_q(o.base, q, sizeof q) : "(built-in default)", e.msg[i]);
		mf_errors_free(&e);
		return SBX_EXIT_INTERNAL;
	}
	manifest_free(m);
	mf_errors_free(&e);
	size_t blen = 0, plen = 0;
	char *btxt = NULL;
	if (o.base) {
		int bfd = open(o.base, O_RDONLY | O_CLOEXEC);
		btxt = bfd >= 0 ? read_all(bfd, &blen) : NULL;
		if (bfd >= 0)
			close(bfd);
	}
	/* cand: the proposed manifest; next: what the next round runs with (cand without the grants
	 * that are not exercised while learning: writes outside the workspace, network hosts) */
	cJSON *cand = cJSON_ParseWithLength(o.base ? btxt : manifest_default_json,
					    o.base ? blen : strlen(manifest_default_json));
	cJSON *next = cand ? cJSON_Duplicate(cand, 1) : NULL;
	free(btxt);
	char *payload = isatty(0) ? calloc(1, 1) : read_all(0, &plen);
	if (!cand || !next || !payload) {
		sbx_msg("learn: cannot read %s", !cand || !next ? "the base manifest" : "stdin");
		cJSON_Delete(cand);
		cJSON_Delete(next);
		free(payload);
		return SBX_EXIT_INTERNAL;
	}
	char tmp[] = "/tmp/sbxsup-learn-XXXXXX";
	if (!mkdtemp(tmp)) {
		sbx_msg("learn: cannot create a scratch directory: %s", strerror(errno));
		cJSON_Delete(cand);
		cJSON_Delete(next);
		free(payload);
		return SBX_EXIT_INTERNAL;
	}
	struct learn l = {.real_ws = ctx.workspace, .home = ctx.home};
	int rc = SBX_EXIT_INTERNAL, exitc = 0, fresh = 0;
	long round;
	for (round = 1; round <= o.rounds; round++) {
		if (round_run(&o, self, tmp, next, payload, plen, &l, &exitc, &fresh) < 0)
			goto out;
		int added = learn_apply(&l, cand, next, &ctx, err, sizeof err);
		if (added < 0) {
			sbx_msg("learn: %s", err);
			goto out;
		}
		fprintf(stderr, "sbxsup: learn: round %ld: exit %d, %d new request(s), %d grant(s) proposed\n",
			round, exitc, fresh, added);
		if (fresh == 0)
			break;   /* the round asked for nothing it had not asked before */
	}
	if (learn_check(&l, cand, &ctx, err, sizeof err) < 0) {
		sbx_escape_fit(err, sizeof err); /* it may quote a glob: the executor's names */
		sbx_msg("learn: %s (nothing written)", err);
		goto out;
	}
	for (size_t i = 0; i < l.n; i++) {
		const struct learn_item *it = &l.v[i];
		if (it->covered)
			continue;
		/* the names are the executor's: quoted; the hint too when escaping changed it */
		char *obj = it->path ? sbx_quote(it->path) : it->object ? sbx_quote(it->object) : NULL;
		char *hint = it->path && it->object && strcmp(it->path, it->object) ? sbx_quote(it->object) : NULL;
		char *evid = sbx_escape(it->evidence);
		char *why = it->refused ? sbx_escape(it->refused) : NULL;
		if (it->refused) {
			fprintf(stderr, "sbxsup: learn: not proposed: %s %s — %s (asked %u time(s): %s)\n",
				learn_kind_name(it->kind), obj ? obj : "", why ? why : "?", it->count, evid ? evid : "?");
		} else {
			fprintf(stderr, "sbxsup: learn: grant %s %s%s%s — %s — asked %u time(s), first by %s\n",
				learn_kind_name(it->kind), obj ? obj : "", hint ? " as hint " : "", hint ? hint : "",
				it->explain ? it->explain : "explain: -", it->count, evid ? evid : "?");
		}
		free(obj);
		free(hint);
		free(evid);
		free(why);
	}
	char *txt = cJSON_Print(cand);
	FILE *out = o.output ? fopen(o.output, "we") : stdout;
	if (!txt || !out || fprintf(out, "%s\n", txt) < 0 || (o.output && fclose(out) != 0)) {
		char q[SBX_Q_MAX];
		sbx_msg("learn: cannot write the manifest%s%s", o.output ? " to " : "",
			o.output ? sbx_q(o.output, q, sizeof q) : "");
		free(txt);
		goto out;
	}
	free(txt);
	/* 0: the last round asked for nothing the manifest could still grant */
	rc = (round <= o.rounds) ? 0 : 1;
out:
	{
		char *rm[] = {"/bin/rm", "-rf", tmp, NULL};
		int st;
		(void)spawn_wait(rm, -1, -1, &st);
	}
	learn_free(&l);
	cJSON_Delete(cand);
	cJSON_Delete(next);
	free(payload);
	return rc;
}
