/* cmd_serve.c — `sbxsup serve --socket PATH [RUN OPTIONS]` (serve/serve.h, docs/serve.md); the
 * client side, `sbxsup run --server PATH`, is run_server.c.
 *
 * Promise: cmd_serve() validates its run options once (as `sbxsup run` would parse them), then
 * serves until SIGTERM/SIGINT (exit 0) or a set-up failure (125). Each call is parsed exactly as a
 * direct `sbxsup run` with the server's options placed before the client's: the client's options
 * win, except --require, which is the union of both (the server's is a floor). The result record
 * goes to the reply and, when the client asked for --result, there too.
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
#include "layer_set.h"
#include "manifest.h"
#include "policy_build.h"
#include "result.h"
#include "run_args.h"
#include "sbxsup.h"
#include "sbxsup_int.h"
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
	"  --warm N        up to N sandboxes parked at once (default 2, at most 16; 0: --no-warm),\n"
	"                  all prepared after the first call: a burst of up to N back-to-back calls\n"
	"                  starts in parked sandboxes\n"
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
	struct sbx_opts *so = sbx_opts_new();
	if (!so) {
		sbx_msg("out of memory");
		free(all);
		return SBX_EXIT_INTERNAL;
	}
	int pr = run_args_parse(n, all, so);
	if (pr > 0) {
		sbx_opts_free(so);
		free(all);
		return 0; /* --help: printed on the client's stdout */
	}
	struct run_opts *o = sbx_opts_run(so);
	o->server = NULL;
	o->dry_run = pr == 0 && o->dry_run;
	char why[300];
	if (sbx_opts_set_layer_masks(so, o->want, o->require | d->require) == 0 && pr == 0 &&
	    lowers(d, o, why, sizeof why)) { /* refused: nothing runs, nothing is opened */
		sbx_msg("serve: refused the call: %s", why);
		struct result_in in = {.tag = o->tag, .exit = SBX_EXIT_INTERNAL,
				       .reason_code = SBX_REASON_SERVER_REFUSED, .reason_msg = why};
		cJSON *rec = result_build(&in);
		if (!rec || result_write(record_fd, rec) < 0)
			sbx_msg("warning: cannot write the result record");
		cJSON_Delete(rec);
		sbx_opts_free(so);
		free(all);
		return SBX_EXIT_INTERNAL;
	}
	char *client_result = o->result ? strdup(o->result) : NULL;
	bool oom = o->result && !client_result;
	char recname[16];
	snprintf(recname, sizeof recname, "%d", record_fd);
	int cfd = -1;
	char err[300];
	if (oom || sbx_opts_set_result_dest(so, recname)) {
		sbx_msg("out of memory");
		pr = -1;
	} else if (pr == 0 && client_result && result_open(client_result, &cfd, err, sizeof err) < 0) {
		sbx_msg("%s", err);
		pr = -1;
	}
	if (cfd >= 0) /* refused by the run, as its own --result would be, where the executor could write it */
		(void)sbx_opts_set_result_extra(so, client_result, cfd);
	int code = run_parsed(so, pr); /* exactly what `sbxsup run` does with these options */
	if (cfd >= 0) { /* the client's --result gets the same record as the reply */
		char buf[65536];
		ssize_t k = pread(record_fd, buf, sizeof buf, 0);
		if (k > 0 && write(cfd, buf, (size_t)k) != k)
			sbx_msg("warning: cannot write the result record: %s", strerror(errno));
		result_close(&cfd);
	}
	sbx_opts_free(so);
	free(client_result);
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
	struct sbx_opts *so = sbx_opts_new();
	struct run_words rw;
	char cwd[8];
	int pr = so ? run_args_parse_words(n, all, so, &rw) : -1;
	const struct run_opts *o = sbx_opts_run(so);
	char why[300];
	if (pr != 0 || o->dry_run || (o->audit && !strncmp(o->audit, "fd:", 3)) || !o->cmd || !o->cmd[0] ||
	    lowers(d, o, why, sizeof why) ||
	    (!o->workspace && (!getcwd(cwd, sizeof cwd) || !strcmp(cwd, "/")))) {
		sbx_opts_free(so);
		return 0; /* never warm: the cold path says what is wrong, or passes the descriptor */
	}
	int idx = (int)(o->cmd - all);
	bool *drop = calloc((size_t)n + 1, sizeof *drop);
	size_t len = 16;
	for (int i = 1; i < idx; i++)
		len += strlen(all[i]) + 1;
	len += strlen(o->cmd[0]) + 1;
	/* after the key (beyond keylen): copies of the tag, --result and manifest the call parsed */
	const char *keep[3] = {o->tag, o->result, o->manifest};
	size_t extra = 0;
	for (int i = 0; i < 3; i++)
		extra += keep[i] ? strlen(keep[i]) + 1 : 0;
	char *key = drop ? malloc(len + extra) : NULL;
	if (!key) {
		free(drop);
		sbx_opts_free(so);
		return -1;
	}
	for (int i = 1; i < idx; i++) /* the words of the one --tag and --result parsed */
		drop[i] = (i >= rw.tag[0] && i < rw.tag[1]) || (i >= rw.result[0] && i < rw.result[1]);
	size_t k = (size_t)snprintf(key, 16, "%d", idx) + 1;
	for (int i = 1; i < idx; i++)
		if (!drop[i]) {
			size_t l = strlen(all[i]) + 1;
			memcpy(key + k, all[i], l);
			k += l;
		}
	memcpy(key + k, o->cmd[0], strlen(o->cmd[0]) + 1);
	k += strlen(o->cmd[0]) + 1;
	free(drop);
	out->key = key;
	out->keylen = k;
	out->cmd = o->cmd;
	const char **to[3] = {&out->tag, &out->result, &out->manifest};
	for (int i = 0; i < 3; i++) {
		*to[i] = keep[i] ? memcpy(key + k, keep[i], strlen(keep[i]) + 1) : NULL;
		k += keep[i] ? strlen(keep[i]) + 1 : 0;
	}
	sbx_opts_free(so);
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
	struct sbx_opts *so = sbx_opts_new();
	char why[300];
	int pr = so ? run_args_parse(n, all, so) : -1;
	struct run_opts *o = sbx_opts_run(so);
	if (pr != 0 || lowers(d, o, why, sizeof why)) { /* (the cold call says why) */
		sbx_opts_free(so);
		free(all);
		return SBX_EXIT_INTERNAL;
	}
	o->server = NULL;
	if (o->cmd && o->cmd[0])
		o->cmd[1] = NULL; /* the sandbox is made for the command's name; the call brings its arguments */
	char recname[16];
	snprintf(recname, sizeof recname, "%d", record_fd);
	int code = SBX_EXIT_INTERNAL;
	if (sbx_opts_set_layer_masks(so, o->want, o->require | d->require) || sbx_opts_set_tag(so, NULL) ||
	    sbx_opts_set_warm(so, w) || sbx_opts_set_result_dest(so, recname))
		sbx_msg("out of memory");
	else
		code = run_parsed(so, pr);
	sbx_opts_free(so);
	free(all);
	return code;
}

int cmd_serve(int argc, char **argv)
{
	/* the server's defaults: `run`'s options, parsed by `run`'s parser (run_args.h) */
	struct serve_args sv;
	struct sbx_opts *so = sbx_opts_new();
	int pr = so ? serve_args_parse(argc, argv, so, &sv) : -1;
	char **opts = so ? sv.opts : NULL;
	struct run_opts *ro = sbx_opts_run(so);
	if (pr > 0)
		fputs(usage, stdout);
	if (pr == 0 && (ro->result || ro->server || ro->dry_run)) {
		sbx_msg("serve: --result, --server and --dry-run belong to each call, not to the server");
		pr = -1;
	}
	if (pr == 0 && !sv.socket) {
		sbx_msg("serve: --socket PATH is required (see sbxsup serve --help)");
		pr = -1;
	}
	if (pr != 0) {
		free(opts);
		sbx_opts_free(so);
		return pr > 0 ? 0 : SBX_EXIT_INTERNAL;
	}
	const char *sock = sv.socket;
	bool quiet = sv.quiet, cold = sv.no_warm;
	const struct run_opts o = *ro;
	char why[PATH_MAX + 700];
	if (socket_outside(sock, &o, why, sizeof why) < 0) {
		sbx_msg("serve: %s", why);
		free(opts);
		sbx_opts_free(so);
		return SBX_EXIT_INTERNAL;
	}
	struct serve_defaults d = {.opts = opts, .nopts = sv.nopts, .require = o.require, .want = o.want,
				   .disabled = o.disabled, .sensor_off = o.sensor_off};
	struct serve_cfg cfg = {
		.socket = sock, .quiet = quiet, .run = serve_run_one, .arg = &d,
		.inspect = cold ? NULL : serve_inspect, .warm = cold ? NULL : serve_warm_one,
		.keep_probes = !o.disabled && (o.want & (1u << SBX_L_PROBES)), .warm_max = sv.warm,
	};
	int code = serve_main(&cfg);
	free(opts);
	sbx_opts_free(so);
	return code;
}
