/* run_args.c — see run_args.h. */
#include "run_args.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cmd.h"
#include "layers.h"

static const char usage[] =
	"usage: sbxsup run [-m MANIFEST] [options] -- COMMAND [ARG...]\n"
	"\n"
	"Run COMMAND (an executor) behind the layers derived from its manifest.\n"
	"  -m, --manifest FILE      executor manifest (default: the built-in default manifest)\n"
	"  -w, --workspace DIR      writable working directory (default: the current directory)\n"
	"  -a, --audit DEST         audit stream: file path (appended, 0600; refused inside anything the\n"
	"                           executor can write) or \"fd:N\" (N > 2); default $SBXSUP_AUDIT, else none\n"
	"      --audit-budget MB    audit bytes per source class (preload / kernel), default 4; 0 = unbounded\n"
	"      --layers LIST        layers to use, comma-separated (preload,bwrap,seccomp,landlock,\n"
	"                           netfilter,probes,limits), default \"auto\" (all available)\n"
	"      --require LIST       exit 125 unless every listed layer is active; \"all\" = every layer\n"
	"      --timeout SECONDS    wall-clock limit (overrides limits.wall_s)\n"
	"      --dry-run            print the plan as JSON, run nothing\n"
	"Environment: SBXSUP_SANDBOX=0 (no layer; recorded; refused under --require),\n"
	"SBXSUP_REQUIRE=LIST, SBXSUP_AUDIT=DEST.\n"
	"Exit: the command's status; 128+N on signal N; 124 timeout; 125 sbxsup failure;\n"
	"126 not executable; 127 not found.\n";

bool run_env_false(const char *s)
{
	return s && (!strcasecmp(s, "0") || !strcasecmp(s, "off") || !strcasecmp(s, "no") ||
		     !strcasecmp(s, "false"));
}

static const char *optval(int argc, char **argv, int *i, const char *lng, const char *shrt)
{
	const char *a = argv[*i];
	size_t l = strlen(lng);
	if (!strncmp(a, lng, l) && a[l] == '=')
		return a + l + 1;
	if (!strcmp(a, lng) || (shrt && !strcmp(a, shrt))) {
		if (*i + 1 >= argc) {
			sbx_msg("run: %s needs a value (see sbxsup run --help)", a);
			return NULL;
		}
		return argv[++*i];
	}
	return NULL;
}

static bool is_opt(const char *a, const char *lng, const char *shrt)
{
	size_t l = strlen(lng);
	return !strcmp(a, lng) || (!strncmp(a, lng, l) && a[l] == '=') || (shrt && !strcmp(a, shrt));
}

int run_args_parse(int argc, char **argv, struct run_opts *o)
{
	char err[256];
	const char *layers = "auto", *require = getenv("SBXSUP_REQUIRE");
	memset(o, 0, sizeof o[0]);
	o->audit_budget_mb = -1;
	o->audit = getenv("SBXSUP_AUDIT");
	if (o->audit && !*o->audit)
		o->audit = NULL;
	o->disabled = run_env_false(getenv("SBXSUP_SANDBOX"));
	int i;
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--")) {
			i++;
			break;
		}
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			fputs(usage, stdout);
			return 1;
		}
		if (!strcmp(a, "--dry-run")) {
			o->dry_run = true;
			continue;
		}
		const char *v = NULL;
		if (is_opt(a, "--manifest", "-m")) {
			if (!(v = optval(argc, argv, &i, "--manifest", "-m")))
				return -1;
			o->manifest = v;
		} else if (is_opt(a, "--workspace", "-w")) {
			if (!(v = optval(argc, argv, &i, "--workspace", "-w")))
				return -1;
			o->workspace = v;
		} else if (is_opt(a, "--audit", "-a")) {
			if (!(v = optval(argc, argv, &i, "--audit", "-a")))
				return -1;
			o->audit = v;
		} else if (is_opt(a, "--layers", NULL)) {
			if (!(v = optval(argc, argv, &i, "--layers", NULL)))
				return -1;
			layers = v;
		} else if (is_opt(a, "--require", NULL)) {
			if (!(v = optval(argc, argv, &i, "--require", NULL)))
				return -1;
			require = v;
		} else if (is_opt(a, "--timeout", NULL)) {
			if (!(v = optval(argc, argv, &i, "--timeout", NULL)))
				return -1;
			char *end;
			errno = 0;
			long t = strtol(v, &end, 10);
			if (errno || *end || end == v || t <= 0 || t > 100L * 365 * 86400) {
				sbx_msg("run: --timeout: '%s' is not a positive number of seconds", v);
				return -1;
			}
			o->timeout_s = t;
		} else if (is_opt(a, "--audit-budget", NULL)) {
			if (!(v = optval(argc, argv, &i, "--audit-budget", NULL)))
				return -1;
			char *end;
			errno = 0;
			long mb = strtol(v, &end, 10);
			if (errno || *end || end == v || mb < 0 || mb > (1L << 20)) {
				sbx_msg("run: --audit-budget: '%s' is not a number of MiB (0 = unbounded)", v);
				return -1;
			}
			o->audit_budget_mb = mb;
		} else if (a[0] == '-') {
			sbx_msg("run: unknown option '%s' (see sbxsup run --help)", a);
			return -1;
		} else {
			/* The command must follow "--": an option-looking word of the command can then never
			 * be taken for one of ours (and a typo never runs something unintended). */
			sbx_msg("run: '%s': the command must follow '--' (usage: sbxsup run [options] -- COMMAND [ARG...])", a);
			return -1;
		}
	}
	if (i >= argc) {
		sbx_msg("run: no command given (usage: sbxsup run [-m MANIFEST] [options] -- COMMAND [ARG...])");
		return -1;
	}
	o->cmd = argv + i;
	if (sbx_layer_parse(layers, &o->want, err, sizeof err) < 0) {
		sbx_msg("run: --layers: %s", err);
		return -1;
	}
	o->require = 0;
	if (require && *require && sbx_layer_parse(require, &o->require, err, sizeof err) < 0) {
		sbx_msg("run: --require: %s", err);
		return -1;
	}
	if (require && !strcmp(require, "auto"))
		o->require = 0; /* "auto" means "whatever is available": nothing is required */
	return 0;
}
