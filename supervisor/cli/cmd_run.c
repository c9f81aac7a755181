/* cmd_run.c — `sbxsup run`: the command line (run_args.h) in, one run (run/run.h) out.
 *
 * Promise: parses the arguments, makes the temporary workspace a run from "/" gets, runs (or, for
 * bad arguments, only reports: run_execute writes the result record the caller asked for), removes
 * the temporary workspace, and returns the run's exit status. --help is exit 0.
 */
#include "cmd.h"
#include "run_args.h"

int cmd_run(int argc, char **argv)
{
	struct run_opts o;
	int pr = run_args_parse(argc, argv, &o);
	if (pr > 0)
		return 0; /* --help */
	if (pr == 0 && o.server)
		return run_via_server(argc, argv, &o); /* the server parses and runs it (cmd_serve.c) */
	if (pr == 0 && run_args_workspace(&o) < 0)
		pr = -1;
	int code = run_execute(&o, pr);
	run_args_release(&o);
	return code;
}
