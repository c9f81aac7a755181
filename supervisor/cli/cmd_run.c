/* cmd_run.c — `sbxsup run`: the command line (run_args.h) in, one run through the library
 * (supervisor/lib/sbxsup.h, the same calls a C program makes) out.
 *
 * Promise: parses the arguments, makes the temporary workspace a run from "/" gets, builds the
 * library's options from them, runs (sbx_run; --dry-run: sbx_plan, printed on stdout) or, for bad
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

/* run_opts (as parsed) -> the library's options. Returns NULL only when out of memory. */
static struct sbx_opts *lib_opts(const struct run_opts *ro)
{
	struct sbx_opts *o = sbx_opts_new();
	if (!o)
		return NULL;
	int rc = sbx_opts_set_manifest(o, ro->manifest) | sbx_opts_set_audit(o, ro->audit) |
		 sbx_opts_set_layer_masks(o, ro->want, ro->require) |
		 sbx_opts_set_timeout_ms(o, ro->timeout_ms) | sbx_opts_set_audit_budget_mb(o, ro->audit_budget_mb) |
		 sbx_opts_set_result_dest(o, ro->dry_run ? NULL : ro->result) | sbx_opts_set_tag(o, ro->tag) |
		 sbx_opts_set_disabled(o, ro->disabled) | sbx_opts_set_shadow(o, ro->shadow) |
		 sbx_opts_set_sensor(o, !ro->sensor_off) |
		 sbx_opts_set_helper(o, "/proc/self/exe") | sbx_opts_set_warm(o, ro->warm) |
		 sbx_opts_set_result_extra(o, ro->result_extra, ro->result_extra_fd) |
		 (ro->ws_tmp[0] ? sbx_opts_set_temp_workspace(o, ro->ws_tmp) : sbx_opts_set_workspace(o, ro->workspace));
	if (rc != 0) {
		sbx_opts_free(o);
		return NULL;
	}
	return o;
}

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

int run_parsed(struct run_opts *ro, int pr)
{
	if (pr == 0 && run_args_workspace(ro) < 0)
		pr = -1;
	struct sbx_opts *o = lib_opts(ro);
	int code = SBX_EXIT_INTERNAL;
	if (!o)
		sbx_msg("out of memory");
	else if (pr != 0)
		code = sbx_refuse_arguments(o);
	else
		code = ro->dry_run ? run_dry(o, ro->cmd) : run_one(o, ro->cmd);
	sbx_opts_free(o);
	run_args_release(ro);
	return code;
}

int cmd_run(int argc, char **argv)
{
	struct run_opts ro;
	int pr = run_args_parse(argc, argv, &ro);
	if (pr > 0)
		return 0; /* --help */
	if (pr == 0 && ro.server)
		return run_via_server(argc, argv, &ro); /* the server parses and runs it (run_server.c) */
	return run_parsed(&ro, pr);
}
