/* cmd_serve.c — `sbxsup serve --socket PATH [RUN OPTIONS]` and the client side of
 * `sbxsup run --server PATH` (serve/serve.h, docs/notes/serve.md).
 *
 * Promise: cmd_serve() validates its run options once (as `sbxsup run` would parse them), then
 * serves until SIGTERM/SIGINT (exit 0) or a set-up failure (125). Each call is parsed exactly as a
 * direct `sbxsup run` with the server's options placed before the client's: the client's options
 * win, except --require, which is the union of both (the server's is a floor). The result record
 * goes to the reply and, when the client asked for --result, there too. run_via_server() is
 * `sbxsup run --server PATH`: it passes its stdio, the descriptors its own -a fd:N / --result N
 * name, its working directory and environment, and returns the run's exit status; when the server
 * cannot be reached it says why and exits 125 (the --result record says server_unavailable).
 * serve_inspect() and serve_warm_one() are the pre-created sandbox's side (serve.h cfg->inspect,
 * cfg->warm; off with --no-warm): the key a call must match, and the run made before its call.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "dest_guard.h"
#include "layer.h"
#include "layers.h"
#include "manifest.h"
#include "policy_build.h"
#include "result.h"
#include "run_args.h"
#include "serve.h"
#include "serve_client.h"

extern char **environ;

static const char usage[] =
	"usage: sbxsup serve --socket PATH [--quiet] [--warm N | --no-warm] [RUN OPTIONS]\n"
	"\n"
	"Serve `sbxsup run --server PATH` calls (and the Python binding's server=PATH) on a\n"
	"Unix socket, warm: the probes stay loaded and, after each call, the next call's sandbox\n"
	"is prepared for the same command, options, directory and environment; a call that\n"
	"matches starts in it, any other starts cold.\n"
	"  --socket PATH   the socket (created 0600; its directory must be yours or root's and not\n"
	"                  writable by group or others; never inside a grant of the server's own\n"
	"                  manifest, e.g. its workspace; a stale socket of yours is replaced)\n"
	"  --quiet         no start/stop lines on stderr\n"
	"  --warm N        up to N sandboxes parked at once (default 2, at most 16; 0: --no-warm): a\n"
	"                  burst of up to N back-to-back calls starts in parked sandboxes\n"
	"  --no-warm       no pre-created sandbox: every call starts its sandbox when it arrives\n"
	"  RUN OPTIONS     defaults for every call, as `sbxsup run` takes them (-m, -w, -a, --layers,\n"
	"                  --require, --timeout, --audit-budget, --tag); a call's own options win,\n"
	"                  except --require: the union of both\n"
	"Only processes of the server's own uid may call (SO_PEERCRED), never a process of a run\n"
	"(its cgroup, its user namespace); a call never lowers the server's layers (SBXSUP_SANDBOX=0,\n"
	"--layers without one of the server's, --sensor off are refused). Every call is a fresh run:\n"
	"its own sandbox (never one that ran another call), audit run and result record. SIGTERM/SIGINT end the live runs (as SIGTERM\n"
	"ends a direct run) and stop the server (exit 0).\n";

struct serve_defaults {
	char **opts;       /* the server's run options (NULL-terminated) */
	int nopts;
	unsigned require;
	unsigned want;     /* the server's layers (--layers), its SBXSUP_SANDBOX and --sensor: a floor */
	bool disabled, sensor_off;
};

/* A call never lowers the server's layers: NULL, or why the call is refused (SBXSUP_SANDBOX=0 in
 * its environment, --layers without a layer the server uses, --sensor off), unless the server
 * itself was started so. */
static const char *lowers(const struct serve_defaults *d, const struct run_opts *o, char *why, size_t n)
{
	unsigned gone = d->want & ~o->want;
	if (o->disabled && !d->disabled) {
		snprintf(why, n, "SBXSUP_SANDBOX in the call's environment would turn every layer off: a call "
			 "never lowers the server's layers");
	} else if (gone && !d->disabled) {
		size_t k = (size_t)snprintf(why, n, "--layers in the call removes");
		for (int l = 0; l < SBX_L__N && k < n; l++)
			if (gone & (1u << l))
				k += (size_t)snprintf(why + k, n - k, " %s", sbx_layer_name(l));
		if (k < n)
			snprintf(why + k, n - k, ", which the server uses: a call never lowers the server's layers");
	} else if (o->sensor_off && !d->sensor_off && !d->disabled) {
		snprintf(why, n, "--sensor off in the call: a call never lowers the server's layers");
	} else {
		return NULL;
	}
	return why;
}

/* The socket lies outside every grant of the server's own default manifest (-m, or the built-in
 * default; the workspace -w, else the current directory, else none when that is "/"): a run of it
 * could otherwise reach the socket (read) or replace it (write, the directory or an ancestor).
 * Decided by the compiled policy, the rule the audit and result destinations follow
 * (dest_guard.h; the host's /tmp is never a run's: each has a private one). 0, or -1 with why. */
static int socket_outside(const char *sock, const struct run_opts *o, char *why, size_t n)
{
	char cwd[PATH_MAX], tmpws[] = "/tmp/sbxsup-serve-ws.XXXXXX", err[512] = "", which[PATH_MAX];
	const char *ws = o->workspace;
	if (!ws && getcwd(cwd, sizeof cwd) && !strcmp(cwd, "/")) /* the calls bring their workspaces */
		ws = mkdtemp(tmpws);
	struct mf_ctx ctx;
	struct mf_errors e = {0};
	struct manifest *m = NULL;
	void *blob = NULL;
	size_t len = 0;
	const struct policy *pol = NULL;
	const char *wp = "";
	struct pol_build_opts bo = {.resolve = false, .uid = getuid(), .tmp_dir = "/tmp"};
	if (mf_ctx_init(&ctx, ws, err, sizeof err) < 0 ||
	    (o->manifest ? manifest_load(o->manifest, &ctx, &m, &e) : manifest_load_default(&ctx, &m, &e)) < 0 ||
	    pol_build(m, &bo, &blob, &len, err, sizeof err) < 0 || !(pol = pol_open(blob, len, &wp))) {
		snprintf(why, n, "--socket %s: the server's manifest cannot be compiled to check it: %s", sock,
			 err[0] ? err : e.n ? e.msg[0] : wp && *wp ? wp : "unknown error");
	} else {
		const char *rule = dest_grant(pol, sock, POL_WRITE, true, which, sizeof which);
		bool w = rule != NULL;
		if (!rule)
			rule = dest_grant(pol, sock, POL_READ, true, which, sizeof which);
		if (rule)
			snprintf(why, n, "--socket %s: refused: a run could %s %s (%s), so the executor could %s; "
				 "put the socket outside every grant (e.g. in $XDG_RUNTIME_DIR)", sock,
				 w ? "write" : "read", which, rule,
				 w ? "replace the socket" : "reach the server");
		else
			why[0] = 0;
	}
	free(blob);
	if (m)
		manifest_free(m);
	mf_errors_free(&e);
	if (ws == tmpws)
		rmdir(tmpws);
	return why[0] ? -1 : 0;
}

/* In the call's child: parse as `sbxsup run` would, with the server's options first. */
static int serve_run_one(int argc, char **argv, int record_fd, void *arg)
{
	const struct serve_defaults *d = arg;
	char **all = calloc((size_t)(argc + d->nopts + 1), sizeof *all);
	if (!all) {
		sbx_msg("out of memory");
		return SBX_EXIT_INTERNAL;
	}
	int n = 0;
	all[n++] = argv[0];
	for (int i = 0; i < d->nopts; i++)
		all[n++] = d->opts[i];
	for (int i = 1; i < argc; i++)
		all[n++] = argv[i];
	struct run_opts o;
	int pr = run_args_parse(n, all, &o);
	if (pr > 0)
		return 0; /* --help: printed on the client's stdout */
	o.server = NULL;
	o.require |= d->require;
	o.dry_run = pr == 0 && o.dry_run;
	char why[300];
	if (pr == 0 && lowers(d, &o, why, sizeof why)) { /* refused: nothing runs, nothing is opened */
		sbx_msg("serve: refused the call: %s", why);
		struct result_in in = {.tag = o.tag, .exit = SBX_EXIT_INTERNAL,
				       .reason_code = SBX_REASON_SERVER_REFUSED, .reason_msg = why};
		cJSON *rec = result_build(&in);
		if (!rec || result_write(record_fd, rec) < 0)
			sbx_msg("warning: cannot write the result record");
		cJSON_Delete(rec);
		free(all);
		return SBX_EXIT_INTERNAL;
	}
	const char *client_result = o.result;
	char recname[16];
	snprintf(recname, sizeof recname, "%d", record_fd);
	o.result = recname;
	int cfd = -1;
	char err[300];
	if (pr == 0 && client_result && result_open(client_result, &cfd, err, sizeof err) < 0) {
		sbx_msg("%s", err);
		pr = -1;
	}
	if (cfd >= 0) { /* refused by the run, as its own --result would be, where the executor could write it */
		o.result_extra = client_result;
		o.result_extra_fd = cfd;
	}
	int code = run_parsed(&o, pr); /* exactly what `sbxsup run` does with these options */
	if (cfd >= 0) { /* the client's --result gets the same record as the reply */
		char buf[65536];
		ssize_t k = pread(record_fd, buf, sizeof buf, 0);
		if (k > 0 && write(cfd, buf, (size_t)k) != k)
			sbx_msg("warning: cannot write the result record: %s", strerror(errno));
		result_close(&cfd);
	}
	free(all);
	return code;
}

/* The call's arguments after the server's (serve_run_one's order); NULL out of memory. */
static char **merged(int argc, char **argv, const struct serve_defaults *d, int *n)
{
	char **all = calloc((size_t)(argc + d->nopts + 1), sizeof *all);
	if (!all)
		return NULL;
	*n = 0;
	all[(*n)++] = argv[0];
	for (int i = 0; i < d->nopts; i++)
		all[(*n)++] = d->opts[i];
	for (int i = 1; i < argc; i++)
		all[(*n)++] = argv[i];
	return all;
}

static bool points_into(const char *p, const char *s)
{
	return p && p >= s && p <= s + strlen(s);
}

/* serve.h cfg->inspect: the key a pre-created sandbox must match. The options are compared as
 * the words the call gave (after the server's), minus the words of the one --tag and --result
 * parsed, so an option added to `sbxsup run` later is compared too (never assumed equal). */
static int serve_inspect(int argc, char **argv, void *arg, struct serve_call_info *out)
{
	const struct serve_defaults *d = arg;
	memset(out, 0, sizeof *out);
	int n;
	char **all = merged(argc, argv, d, &n);
	if (!all)
		return -1;
	out->mem = all;
	struct run_opts o;
	char cwd[8];
	int pr = run_args_parse(n, all, &o);
	char why[300];
	if (pr != 0 || o.dry_run || (o.audit && !strncmp(o.audit, "fd:", 3)) || !o.cmd || !o.cmd[0] ||
	    lowers(d, &o, why, sizeof why) ||
	    (!o.workspace && (!getcwd(cwd, sizeof cwd) || !strcmp(cwd, "/"))))
		return 0; /* never warm: the cold path says what is wrong, or passes the descriptor */
	int idx = (int)(o.cmd - all);
	bool *drop = calloc((size_t)n + 1, sizeof *drop);
	size_t len = 16;
	for (int i = 1; i < idx; i++)
		len += strlen(all[i]) + 1;
	len += strlen(o.cmd[0]) + 1;
	char *key = drop ? malloc(len) : NULL;
	if (!key) {
		free(drop);
		return -1;
	}
	for (int i = 1; i < idx; i++)
		if (points_into(o.tag, all[i]) || points_into(o.result, all[i])) {
			drop[i] = true;
			if ((o.tag == all[i] || o.result == all[i]) && i > 1)
				drop[i - 1] = true; /* "--tag" "X": the option's own word too */
		}
	size_t k = (size_t)snprintf(key, 16, "%d", idx) + 1;
	for (int i = 1; i < idx; i++)
		if (!drop[i]) {
			size_t l = strlen(all[i]) + 1;
			memcpy(key + k, all[i], l);
			k += l;
		}
	memcpy(key + k, o.cmd[0], strlen(o.cmd[0]) + 1);
	k += strlen(o.cmd[0]) + 1;
	free(drop);
	out->key = key;
	out->keylen = k;
	out->cmd = o.cmd;
	out->tag = o.tag;
	out->result = o.result;
	out->manifest = o.manifest;
	return 0;
}

/* serve.h cfg->warm: the run of serve_run_one, pre-created (the call's tag and --result are the
 * call's: serve_warm.c). */
static int serve_warm_one(int argc, char **argv, int record_fd, const struct run_warm *w, void *arg)
{
	const struct serve_defaults *d = arg;
	int n;
	char **all = merged(argc, argv, d, &n);
	if (!all) {
		sbx_msg("out of memory");
		return SBX_EXIT_INTERNAL;
	}
	struct run_opts o;
	char why[300];
	int pr = run_args_parse(n, all, &o);
	if (pr != 0 || lowers(d, &o, why, sizeof why)) { /* (the cold call says why) */
		free(all);
		return SBX_EXIT_INTERNAL;
	}
	o.server = NULL;
	o.require |= d->require;
	o.tag = NULL;
	o.warm = w;
	if (o.cmd && o.cmd[0])
		o.cmd[1] = NULL; /* the sandbox is made for the command's name; the call brings its arguments */
	char recname[16];
	snprintf(recname, sizeof recname, "%d", record_fd);
	o.result = recname;
	int code = run_parsed(&o, pr);
	free(all);
	return code;
}

int cmd_serve(int argc, char **argv)
{
	const char *sock = NULL;
	bool quiet = false, cold = false;
	int warm_max = SERVE_WARM_MAX;
	char **opts = calloc((size_t)argc + 3, sizeof *opts);
	if (!opts) {
		sbx_msg("out of memory");
		return SBX_EXIT_INTERNAL;
	}
	int nopts = 0;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			fputs(usage, stdout);
			free(opts);
			return 0;
		} else if (!strcmp(argv[i], "--socket") && i + 1 < argc) {
			sock = argv[++i];
		} else if (!strncmp(argv[i], "--socket=", 9)) {
			sock = argv[i] + 9;
		} else if (!strcmp(argv[i], "--quiet")) {
			quiet = true;
		} else if (!strcmp(argv[i], "--no-warm")) {
			cold = true;
		} else if ((!strcmp(argv[i], "--warm") && i + 1 < argc) || !strncmp(argv[i], "--warm=", 7)) {
			const char *v = argv[i][6] == '=' ? argv[i] + 7 : argv[++i];
			char *end;
			long n = strtol(v, &end, 10);
			if (!*v || *end || n < 0 || n > SERVE_WARM_LIMIT) {
				sbx_msg("serve: --warm takes a number of parked sandboxes from 0 to %d, not '%s'",
					SERVE_WARM_LIMIT, v);
				free(opts);
				return SBX_EXIT_INTERNAL;
			}
			warm_max = (int)n;
			cold = cold || n == 0;
		} else if (!strcmp(argv[i], "--")) {
			sbx_msg("serve: no command: the commands come from the calls (usage: sbxsup serve --socket PATH [RUN OPTIONS])");
			free(opts);
			return SBX_EXIT_INTERNAL;
		} else {
			opts[nopts++] = argv[i];
		}
	}
	/* validate the defaults once, as `sbxsup run` parses them */
	char **probe = calloc((size_t)nopts + 4, sizeof *probe);
	if (!probe) {
		free(opts);
		return SBX_EXIT_INTERNAL;
	}
	int np = 0;
	probe[np++] = "run";
	for (int i = 0; i < nopts; i++)
		probe[np++] = opts[i];
	probe[np++] = "--";
	probe[np++] = "true";
	struct run_opts o;
	int pr = run_args_parse(np, probe, &o);
	free(probe);
	if (pr != 0 || o.result || o.server || o.dry_run) {
		if (pr == 0)
			sbx_msg("serve: --result, --server and --dry-run belong to each call, not to the server");
		free(opts);
		return pr > 0 ? 0 : SBX_EXIT_INTERNAL;
	}
	if (!sock) {
		sbx_msg("serve: --socket PATH is required (see sbxsup serve --help)");
		free(opts);
		return SBX_EXIT_INTERNAL;
	}
	char why[PATH_MAX + 700];
	if (socket_outside(sock, &o, why, sizeof why) < 0) {
		sbx_msg("serve: %s", why);
		free(opts);
		return SBX_EXIT_INTERNAL;
	}
	struct serve_defaults d = {.opts = opts, .nopts = nopts, .require = o.require, .want = o.want,
				   .disabled = o.disabled, .sensor_off = o.sensor_off};
	struct serve_cfg cfg = {
		.socket = sock, .quiet = quiet, .run = serve_run_one, .arg = &d,
		.inspect = cold ? NULL : serve_inspect, .warm = cold ? NULL : serve_warm_one,
		.keep_probes = !o.disabled && (o.want & (1u << layer_probes.id)), .warm_max = warm_max,
	};
	int code = serve_main(&cfg);
	free(opts);
	return code;
}

/* The descriptor number DEST names ("N" for --result, "fd:N" for -a), or -1. */
static int named_fd(const char *dest, bool audit)
{
	if (!dest)
		return -1;
	if (audit) {
		if (strncmp(dest, "fd:", 3))
			return -1;
		dest += 3;
	}
	if (!*dest || strspn(dest, "0123456789") != strlen(dest) || strlen(dest) > 4)
		return -1;
	int n = atoi(dest);
	return n <= 1023 ? n : -1;
}

int run_via_server(int argc, char **argv, const struct run_opts *o)
{
	int fds[8];
	int32_t tg[8];
	unsigned nf = 0;
	char **av = calloc((size_t)argc + 1, sizeof *av);
	if (!av) {
		sbx_msg("out of memory");
		return SBX_EXIT_INTERNAL;
	}
	for (int i = 0; i < argc; i++)
		av[i] = argv[i];
	int named[2] = {named_fd(o->audit, true), named_fd(o->result, false)};
	for (int fd = 0; fd <= 2; fd++)
		if (fcntl(fd, F_GETFD) >= 0)
			fds[nf] = fd, tg[nf++] = fd;
	for (int k = 0; k < 2; k++) {
		bool dup = false;
		for (unsigned i = 0; i < nf; i++)
			dup = dup || tg[i] == named[k];
		if (named[k] >= 0 && !dup && fcntl(named[k], F_GETFD) >= 0)
			fds[nf] = named[k], tg[nf++] = named[k];
	}
	char *rec = NULL, why[400];
	size_t rl = 0;
	int code = serve_call(o->server, av, environ, fds, tg, nf, &rec, &rl, why, sizeof why);
	free(av);
	/* the server refused the call before running it: it could not write --result, we do */
	cJSON *r = code >= 0 && rec ? cJSON_Parse(rec) : NULL;
	const cJSON *rc = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(r, "reason"), "code");
	bool refused = cJSON_IsString(rc) && !strcmp(rc->valuestring, SBX_REASON_SERVER_REFUSED);
	if (refused) {
		const cJSON *m = cJSON_GetObjectItemCaseSensitive(cJSON_GetObjectItemCaseSensitive(r, "reason"), "message");
		sbx_msg("run: --server: the server refused the call: %s", cJSON_IsString(m) ? m->valuestring : "(no reason)");
		int rfd = -1;
		char err[300];
		if (o->result && result_open(o->result, &rfd, err, sizeof err) == 0) {
			(void)result_write(rfd, r);
			result_close(&rfd);
		}
	}
	cJSON_Delete(r);
	free(rec);
	if (code >= 0)
		return code;
	sbx_msg("run: --server: %s", why);
	int rfd = -1;
	char err[300];
	if (o->result && result_open(o->result, &rfd, err, sizeof err) == 0) {
		struct result_in in = {.tag = o->tag, .exit = SBX_EXIT_INTERNAL,
				       .reason_code = SBX_REASON_SERVER_UNAVAILABLE, .reason_msg = why};
		cJSON *u = result_build(&in);
		if (u)
			(void)result_write(rfd, u);
		cJSON_Delete(u);
		result_close(&rfd);
	}
	return SBX_EXIT_INTERNAL;
}
