/* run_args.c — see run_args.h. */
#include "run_args.h"

#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli_opt.h"
#include "cmd.h"
#include "layer_set.h"
#include "manifest.h"
#include "policy.h"
#include "quote.h"
#include "run.h"
#include "sbxsup_int.h"
#include "serve.h"

static const char usage[] =
	"usage: sbxsup run [-m MANIFEST] [options] -- COMMAND [ARG...]\n"
	"\n"
	"Run COMMAND (an executor) behind the layers derived from its manifest.\n"
	"  -m, --manifest FILE      executor manifest (default: the built-in default manifest)\n"
	"  -w, --workspace DIR      writable working directory (default: the current directory; /, /tmp,\n"
	"                           /var/tmp, /dev/shm: an empty temporary one instead, with a note)\n"
	"  -a, --audit DEST         audit stream: file path (appended, 0600; refused inside anything the\n"
	"                           executor can write) or \"fd:N\" (N > 2); default $SBXSUP_AUDIT, else none\n"
	"      --audit-budget MB    audit bytes per source class (preload / kernel), default 4; 0 = unbounded\n"
	"      --layers LIST        layers to use, comma-separated (preload,bwrap,seccomp,landlock,\n"
	"                           netfilter,probes,limits), default \"auto\" (all available);\n"
	"                           -NAME removes one, +NAME adds one: --layers auto,-probes\n"
	"      --require LIST       exit 125 unless every listed layer is active; \"all\" = every layer;\n"
	"                           \"identity\": also refuse SBXSUP_SANDBOX=0 as root (executor uid 0)\n"
	"      --timeout SECONDS    wall-clock limit, fractions allowed (1.5); overrides limits.wall_s\n"
	"      --dry-run            print the plan as JSON, run nothing\n"
	"      --result FD|FILE     write the result record (one JSON object: run id, verdict, exit,\n"
	"                           refusal reason code; docs/result-record.md) there when the run ends;\n"
	"                           a FILE as the audit file: refused inside anything the executor can\n"
	"                           write (e.g. the workspace), never a symlink, FIFO or device\n"
	"      --tag STRING         the caller's tag, recorded in run.start and the result record\n"
	"      --server PATH        send the call to `sbxsup serve --socket PATH` (warm: no start-up per\n"
	"                           call); the same options, stdio, working directory and environment\n"
	"      --sensor auto|off    the report-only sensor that reports what bwrap, Landlock, the limits and\n"
	"                           the executor's identity refuse when neither seccomp nor the probes are\n"
	"                           on (default auto); off: not reported (warned, run.start.level.sensor)\n"
	"      --shadow             shadow workspace: the command's writes land in a per-run overlay kept\n"
	"                           outside its reach; review and apply them with sbxsup shadow diff|commit\n"
	"Environment: SBXSUP_SANDBOX=0 (no layer; recorded; refused under --require),\n"
	"SBXSUP_REQUIRE=LIST, SBXSUP_AUDIT=DEST; as root, SBXSUP_USER=NAME|UID[:GID] (the executor's host\n"
	"identity; default: user sbxsup, else nobody; one sbxsup cannot use: 125, identity_unavailable;\n"
	"SBXSUP_ALLOW_ROOT_EXECUTOR=1 accepts a uid-0 executor where none can be lent);\n"
	"SBXSUP_NFT=0: no nftables redirect in the run's network namespace (an unrestricted network then\n"
	"shares the host's, loudly; docs/network.md); SBXSUP_TIMING=1: milliseconds per phase of the run\n"
	"on stderr at its end.\n"
	"Exit: the command's status; 128+N on signal N; 124 timeout; 125 sbxsup failure;\n"
	"126 not executable; 127 not found.\n";

bool run_env_false(const char *s)
{
	return s && (!strcasecmp(s, "0") || !strcasecmp(s, "off") || !strcasecmp(s, "no") ||
		     !strcasecmp(s, "false"));
}

/* Every option of `sbxsup run`, filled into o through the library's setters; sv != NULL: `sbxsup
 * serve`'s arguments, the same options (the defaults of every call, their words kept in sv->opts)
 * plus its own, and no command. */
static int parse(int argc, char **argv, struct sbx_opts *o, struct serve_args *sv, struct run_words *rw)
{
	enum { O_LAYERS = 256, O_REQUIRE, O_TIMEOUT, O_DRY_RUN, O_AUDIT_BUDGET, O_RESULT, O_TAG, O_SERVER,
	       O_SHADOW, O_SENSOR, O_SOCKET, O_QUIET, O_NO_WARM, O_WARM };
	/* the options of every run, serve's defaults for its calls included */
#define RUN_OPTIONS \
		{"manifest", required_argument, NULL, 'm'}, \
		{"workspace", required_argument, NULL, 'w'}, \
		{"audit", required_argument, NULL, 'a'}, \
		{"layers", required_argument, NULL, O_LAYERS}, \
		{"require", required_argument, NULL, O_REQUIRE}, \
		{"timeout", required_argument, NULL, O_TIMEOUT}, \
		{"dry-run", no_argument, NULL, O_DRY_RUN}, \
		{"audit-budget", required_argument, NULL, O_AUDIT_BUDGET}, \
		{"result", required_argument, NULL, O_RESULT}, \
		{"tag", required_argument, NULL, O_TAG}, \
		{"server", required_argument, NULL, O_SERVER}, \
		{"shadow", no_argument, NULL, O_SHADOW}, \
		{"sensor", required_argument, NULL, O_SENSOR}, \
		{"help", no_argument, NULL, 'h'}
	static const struct option run_opts[] = {
		RUN_OPTIONS,
		{NULL, 0, NULL, 0},
	};
	static const struct option serve_opts[] = {
		RUN_OPTIONS,
		{"socket", required_argument, NULL, O_SOCKET},
		{"quiet", no_argument, NULL, O_QUIET},
		{"no-warm", no_argument, NULL, O_NO_WARM},
		{"warm", required_argument, NULL, O_WARM},
		{NULL, 0, NULL, 0},
	};
#undef RUN_OPTIONS
	const struct option *opts = sv ? serve_opts : run_opts;
	struct run_opts *ro = sbx_opts_run(o);
	char err[256];
	const char *layers = "auto", *require = getenv("SBXSUP_REQUIRE"), *audit = getenv("SBXSUP_AUDIT");
	if (!ro)
		return -1;
	/* every field the run reads is set here: a handle parsed twice keeps nothing of the first */
	if (sbx_opts_set_manifest(o, NULL) || sbx_opts_set_workspace(o, NULL) ||
	    sbx_opts_set_audit(o, audit && *audit ? audit : NULL) || sbx_opts_set_timeout_ms(o, 0) ||
	    sbx_opts_set_audit_budget_mb(o, -1) || sbx_opts_set_result_dest(o, NULL) || sbx_opts_set_tag(o, NULL) ||
	    sbx_opts_set_disabled(o, run_env_false(getenv("SBXSUP_SANDBOX"))) || sbx_opts_set_shadow(o, 0) ||
	    sbx_opts_set_sensor(o, 1))
		goto nomem;
	ro->dry_run = false;
	ro->server = NULL;
	ro->cmd = NULL;
	if (sv)
		*sv = (struct serve_args){0};
	if (rw)
		*rw = (struct run_words){.tag = {-1, -1}, .result = {-1, -1}};
	int c, nopts = 0, before = 1;
	optind = 0; /* full re-initialisation: main() may have parsed before */
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:m:w:a:h", opts, NULL)) != -1) {
		int rc = 0;
		switch (c) {
		case 'm':
			rc = sbx_opts_set_manifest(o, optarg);
			break;
		case 'w':
			rc = sbx_opts_set_workspace(o, optarg);
			break;
		case 'a':
			rc = sbx_opts_set_audit(o, optarg);
			break;
		case O_LAYERS:
			layers = optarg;
			break;
		case O_REQUIRE:
			require = optarg;
			break;
		case O_TIMEOUT: {
			long ms;
			if (cli_seconds(optarg, &ms) < 0) {
				sbx_msg("run: --timeout: '%s' is not a positive number of seconds (e.g. 30, 1.5)", optarg);
				return -1;
			}
			rc = sbx_opts_set_timeout_ms(o, ms);
			break;
		}
		case O_DRY_RUN:
			ro->dry_run = true;
			break;
		case O_SHADOW:
			rc = sbx_opts_set_shadow(o, 1);
			break;
		case O_SENSOR:
			if (strcmp(optarg, "auto") && strcmp(optarg, "on") && strcmp(optarg, "off")) {
				sbx_msg("run: --sensor: '%s': expected auto or off", optarg);
				return -1;
			}
			rc = sbx_opts_set_sensor(o, strcmp(optarg, "off") != 0);
			break;
		case O_AUDIT_BUDGET: {
			char *end;
			errno = 0;
			long mb = strtol(optarg, &end, 10);
			if (errno || *end || end == optarg || mb < 0 || mb > (1L << 20)) {
				sbx_msg("run: --audit-budget: '%s' is not a number of MiB (0 = unbounded)", optarg);
				return -1;
			}
			rc = sbx_opts_set_audit_budget_mb(o, mb);
			break;
		}
		case O_RESULT:
			rc = sbx_opts_set_result_dest(o, optarg);
			break;
		case O_TAG: {
			size_t n = strlen(optarg);
			bool ok = n > 0 && n <= 128;
			for (size_t i = 0; ok && i < n; i++)
				ok = (unsigned char)optarg[i] >= 0x20 && optarg[i] != 0x7f;
			if (!ok) {
				sbx_msg("run: --tag: 1 to 128 printable characters");
				return -1;
			}
			rc = sbx_opts_set_tag(o, optarg);
			break;
		}
		case O_SERVER:
			ro->server = optarg;
			break;
		case O_SOCKET:
			sv->socket = optarg;
			break;
		case O_QUIET:
			sv->quiet = true;
			break;
		case O_NO_WARM:
			sv->no_warm = true;
			break;
		case O_WARM: {
			char *end;
			long n = strtol(optarg, &end, 10);
			if (!*optarg || *end || n < 0 || n > SERVE_WARM_LIMIT) {
				sbx_msg("serve: --warm takes a number of parked sandboxes from 0 to %d, not '%s'",
					SERVE_WARM_LIMIT, optarg);
				return -1;
			}
			sv->warm = (int)n;
			sv->no_warm = sv->no_warm || n == 0;
			break;
		}
		case 'h':
			if (!sv)
				fputs(usage, stdout);
			return 1;
		default:
			cli_bad_option(sv ? "serve" : "run", argv, opts, c);
			return -1;
		}
		if (rc)
			goto nomem;
		if (rw && (c == O_TAG || c == O_RESULT)) { /* the words of the last one parsed */
			int *w = c == O_TAG ? rw->tag : rw->result;
			w[0] = before, w[1] = optind;
		}
		if (sv && c != O_SOCKET && c != O_QUIET && c != O_NO_WARM && c != O_WARM) { /* a default of every call */
			char **more = realloc(sv->opts, (size_t)(nopts + optind - before + 1) * sizeof *more);
			if (!more)
				goto nomem;
			sv->opts = more;
			for (int i = before; i < optind; i++)
				sv->opts[nopts++] = argv[i];
			sv->opts[nopts] = NULL;
			sv->nopts = nopts;
		}
		before = optind;
	}
	if (sv && optind <= argc && optind > 1 && !strcmp(argv[optind - 1], "--")) {
		sbx_msg("serve: no command: the commands come from the calls (usage: sbxsup serve --socket PATH [RUN OPTIONS])");
		return -1;
	}
	if (optind < argc && strcmp(argv[optind - 1], "--")) {
		/* The command must follow "--": an option-looking word of the command can then never
		 * be taken for one of ours (and a typo never runs something unintended). */
		sbx_msg("run: '%s': the command must follow '--' (usage: sbxsup run [options] -- COMMAND [ARG...])",
			argv[optind]);
		return -1;
	}
	if (optind >= argc && !sv) {
		sbx_msg("run: no command given (usage: sbxsup run [-m MANIFEST] [options] -- COMMAND [ARG...])");
		return -1;
	}
	ro->cmd = sv ? NULL : argv + optind;
	unsigned want = 0, req = 0;
	if (cli_layers(layers, &want, err, sizeof err) < 0 ||
	    ((want & ~SBX_L_ALL) && snprintf(err, sizeof err, "'identity' is not a layer (--require identity: "
					      "refuse even SBXSUP_SANDBOX=0 as root)"))) {
		sbx_msg("run: --layers: %s", err);
		return -1;
	}
	if (require && *require && cli_layers(require, &req, err, sizeof err) < 0) {
		sbx_msg("run: --require: %s", err);
		return -1;
	}
	if (require && !strcmp(require, "auto"))
		req = 0; /* "auto" means "whatever is available": nothing is required */
	if (sbx_opts_set_layer_masks(o, want, req))
		goto nomem;
	return 0;
nomem:
	sbx_msg("out of memory");
	return -1;
}

int run_args_parse(int argc, char **argv, struct sbx_opts *o)
{
	return parse(argc, argv, o, NULL, NULL);
}

int run_args_parse_words(int argc, char **argv, struct sbx_opts *o, struct run_words *rw)
{
	return parse(argc, argv, o, NULL, rw);
}

int serve_args_parse(int argc, char **argv, struct sbx_opts *o, struct serve_args *sv)
{
	return parse(argc, argv, o, sv, NULL);
}

int run_args_workspace(struct sbx_opts *so)
{
	struct run_opts *o = sbx_opts_run(so);
	char cwd[PATH_MAX], abs[PATH_MAX];
	const char *ws = o->workspace;
	if (o->dry_run || (!ws && !getcwd(cwd, sizeof cwd)))
		return 0;
	if (!ws)
		ws = cwd;
	const char *never = realpath(ws, abs) ? mf_workspace_never(abs) : NULL;
	if (!never)
		return 0; /* (a workspace that does not resolve is refused with the manifest's message) */
	char tmp[sizeof o->ws_tmp] = "/tmp/sbxsup-ws.XXXXXX";
	if (!mkdtemp(tmp)) {
		char q[SBX_Q_MAX];
		sbx_msg("run: %s is never a workspace (%s) and a temporary workspace cannot be made: %s "
			"(give -w DIR)", sbx_q(abs, q, sizeof q), never, strerror(errno));
		return -1;
	}
	if (sbx_opts_set_temp_workspace(so, tmp) != 0) { /* workspace and ws_tmp: the run's clean-up knows it */
		rmdir(tmp);
		sbx_msg("out of memory");
		return -1;
	}
	char q1[SBX_Q_MAX], q2[SBX_Q_MAX];
	sbx_msg("note: %s is never a workspace (%s): running in the empty temporary workspace %s, "
		"removed afterwards (give -w DIR to choose one)", sbx_q(abs, q1, sizeof q1), never,
		sbx_q(o->ws_tmp, q2, sizeof q2));
	return 0;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	(void)(flag == FTW_DP ? rmdir(path) : unlink(path));
	return 0;
}

void run_args_release(struct sbx_opts *so)
{
	struct run_opts *o = sbx_opts_run(so);
	if (o->ws_tmp[0]) /* the run's tree is dead; never follow symlinks or mounts out of it */
		(void)nftw(o->ws_tmp, rm_one, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
	o->ws_tmp[0] = '\0';
}
