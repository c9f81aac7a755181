/* cmd_run.c — `sbxsup run`: the command line (run_args.h) in, one run through the library
 * (supervisor/lib/sbxsup.h, the same calls a C program makes) out.
 *
 * Promise: parses the arguments into the library's options (run_args.c, through its setters),
 * makes the temporary workspace a run from "/" gets, runs (sbx_run; --dry-run: sbx_plan, printed on stdout) or, for bad
 * arguments, only reports (the result record the caller asked for says bad_arguments), removes the
 * temporary workspace, and returns the run's exit status. --help is exit 0. With --server the call
 * goes to `sbxsup serve` instead (run_via_server, run_server.c), whose call child runs run_parsed():
 * the same path. The helper binary is
 * this one (/proc/self/exe); messages stay on stderr.
 */
#include <stdio.h>
#include <stdlib.h>

#include "cmd.h"
#include "msg.h"
#include "run_args.h"
#include "sbxsup.h"
#include "sbxsup_int.h"

static int run_dry(const struct sbx_opts *o, char **cmd)
{
	char *plan = NULL;
	struct sbx_err err;
	int rc = sbx_plan(o, cmd, &plan, &err);
	/* what the plan itself found wrong (the manifest, a required layer) was said on stderr */
	if (rc == SBX_E_INVAL || rc == SBX_E_BUSY || rc == SBX_E_HELPER || rc == SBX_E_NOMEM)
		sbx_msg("%s", err.message);
	if (plan) {
		puts(plan);
		sbx_free(plan);
	}
	return rc == 0 ? 0 : SBX_EXIT_INTERNAL;
}

static int run_one(const struct sbx_opts *o, char **cmd)
{
	struct sbx_result *res = NULL;
	struct sbx_err err;
	if (sbx_run(o, cmd, &res, &err) < 0) {
		sbx_msg("%s", err.message);
		return SBX_EXIT_INTERNAL;
	}
	int code = sbx_result_exit(res);
	sbx_result_free(res);
	return code;
}

int run_parsed(struct sbx_opts *o, int pr)
{
	if (pr == 0 && run_args_workspace(o) < 0)
		pr = -1;
	const struct run_opts *ro = sbx_opts_run(o);
	int code = SBX_EXIT_INTERNAL;
	if ((ro->dry_run && sbx_opts_set_result_dest(o, NULL)) || sbx_opts_set_helper(o, "/proc/self/exe"))
		sbx_msg("out of memory");
	else if (pr != 0)
		code = sbx_refuse_arguments(o);
	else
		code = ro->dry_run ? run_dry(o, ro->cmd) : run_one(o, ro->cmd);
	run_args_release(o);
	return code;
}

int cmd_run(int argc, char **argv)
{
	struct sbx_opts *o = sbx_opts_new();
	if (!o) {
		sbx_msg("out of memory");
		return SBX_EXIT_INTERNAL;
	}
	int pr = run_args_parse(argc, argv, o), code;
	if (pr > 0)
		code = 0; /* --help */
	else if (pr == 0 && sbx_opts_run(o)->server)
		code = run_via_server(argc, argv, sbx_opts_run(o)); /* the server parses and runs it */
	else
		code = run_parsed(o, pr);
	sbx_opts_free(o);
	return code;
}
