/* cmd_validate.c — `sbxsup validate -m FILE [-w WORKSPACE]`.
 *
 * Promise: exit 0 and "sbxsup: FILE: ok" on stdout (warnings on stderr as
 * "sbxsup: FILE: warning: ..."), or exit 125 with every problem the parser found on stderr, one
 * per line, each "sbxsup: FILE: <line/column or JSON path>: <what>". Bad arguments: exit 125.
 * The manifest is also compiled and the blob verified (pol_check: pol_build, names not resolved, then pol_open),
 * so a manifest that validates is one `sbxsup run` accepts. Nothing is run and nothing outside the
 * manifest file is read (hint paths need not exist).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_opt.h"
#include "cmd.h"
#include "quote.h"
#include "manifest.h"
#include "policy_build.h"

static const char validate_usage[] =
	"usage: sbxsup validate -m FILE [-w WORKSPACE]\n"
	"\n"
	"Check an executor manifest. Exit 0 (\"ok\", plus any warnings), or 125 with every problem\n"
	"listed on stderr: malformed JSON by line and column, semantic problems by JSON path\n"
	"(e.g. capabilities[2].hosts[0]: ...).\n"
	"\n"
	"  -m, --manifest FILE    the manifest to check (also accepted as the only operand)\n"
	"  -w, --workspace DIR    workspace that relative hints refer to (default: current directory)\n"
	"  -h, --help             this text\n";

/* Print a parse outcome; shared shape with explain. */
static void print_errors(const char *file, const struct mf_errors *e)
{
	for (size_t i = 0; i < e->n; i++)
		sbx_msg("%s: %s", file, e->msg[i]);
	if (e->ndropped)
		sbx_msg("%s: ... and %zu more problem(s) not listed", file, e->ndropped);
}

int cmd_validate(int argc, char **argv)
{
	static const struct option opts[] = {
		{"manifest", required_argument, NULL, 'm'},
		{"workspace", required_argument, NULL, 'w'},
		{"help", no_argument, NULL, 'h'},
		{NULL, 0, NULL, 0},
	};
	const char *file = NULL, *ws = NULL;
	int c;
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:m:w:h", opts, NULL)) != -1) {
		switch (c) {
		case 'm':
			if (file) {
				sbx_msg("validate: -m given twice");
				return SBX_EXIT_INTERNAL;
			}
			file = optarg;
			break;
		case 'w':
			ws = optarg;
			break;
		case 'h':
			fputs(validate_usage, stdout);
			return 0;
		default:
			cli_bad_option("validate", argv, opts, c);
			return SBX_EXIT_INTERNAL;
		}
	}
	if (!file && optind < argc)
		file = argv[optind++];
	if (optind < argc) {
		sbx_msg("validate: unexpected argument '%s' (see sbxsup validate --help)", argv[optind]);
		return SBX_EXIT_INTERNAL;
	}
	if (!file) {
		sbx_msg("validate: no manifest given (sbxsup validate -m FILE)");
		return SBX_EXIT_INTERNAL;
	}
	struct mf_ctx ctx;
	char err[512];
	if (mf_ctx_init(&ctx, ws, err, sizeof err) < 0) {
		sbx_msg("validate: %s", err);
		return SBX_EXIT_INTERNAL;
	}
	struct mf_errors e = {0};
	struct manifest *m = NULL;
	int rc = manifest_load(file, &ctx, &m, &e);
	char qf[SBX_Q_MAX];
	sbx_q(file, qf, sizeof qf);
	for (size_t i = 0; i < e.nwarn; i++)
		sbx_msg("%s: warning: %s", qf, e.warn[i]);
	if (rc < 0) {
		print_errors(qf, &e);
		mf_errors_free(&e);
		return SBX_EXIT_INTERNAL;
	}
	int ret = 0;
	if (pol_check(m, ctx.uid, err, sizeof err) < 0) {
		sbx_escape_fit(err, sizeof err); /* it may quote a glob: someone's names */
		sbx_msg("%s: %s", qf, err);
		ret = SBX_EXIT_INTERNAL;
	} else {
		printf("sbxsup: %s: ok\n", qf);
		if (fflush(stdout) != 0)
			ret = SBX_EXIT_INTERNAL;
	}
	manifest_free(m);
	mf_errors_free(&e);
	return ret;
}
