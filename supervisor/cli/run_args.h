/* run_args.h — `sbxsup run` command line and SBXSUP_* environment (SPEC "Command line").
 *
 * Promise: run_args_parse() fills run_opts from argv and the environment (getopt_long "+:", the
 * conventions of cli_opt.h: -mFILE, --timeout 1.5, --layers auto,-probes), or explains the problem
 * in one line on stderr (`sbxsup: run: ...`) and returns -1 (exit 125). `--help` prints usage and returns 1.
 * SBXSUP_SANDBOX=0|off|no|false (case-insensitive) sets `disabled`; SBXSUP_REQUIRE is --require
 * (the command line wins); SBXSUP_AUDIT is the default audit destination.
 */
#ifndef SBX_RUN_ARGS_H
#define SBX_RUN_ARGS_H

#include <stdbool.h>

struct run_opts {
	const char *manifest;     /* NULL: built-in default */
	const char *workspace;    /* NULL: cwd */
	const char *audit;        /* NULL: no stream */
	unsigned want, require;   /* layer masks */
	long timeout_ms;          /* 0: manifest / default; --timeout 1.5 is 1500 */
	long audit_budget_mb;     /* --audit-budget MB; -1: manifest limits.audit_mb / default */
	const char *result;       /* --result FD|FILE: the result record's destination, NULL: none */
	const char *tag;          /* --tag STRING: the caller's tag (run.start, result record), NULL */
	bool dry_run;
	bool disabled;            /* SBXSUP_SANDBOX=0 */
	char **cmd;               /* NULL-terminated */
	char ws_tmp[32];          /* the temporary workspace of run_args_workspace, or "" */
};

int run_args_parse(int argc, char **argv, struct run_opts *o);
/* After a run that ended "not found" (exit 127), for a command named by a path (it has a '/')
 * that exists on the host and that the policy does not show to the sandbox (not granted, denied,
 * or in the host's /tmp, which the sandbox replaces): one more line, "PATH exists but is not
 * visible in the sandbox (RULE): add it to the manifest or run it from the workspace". */
struct policy;
void run_cmd_not_found(const struct policy *p, const char *cmd);
/* Run from "/" without -w: "/" is never a workspace, so an empty temporary one is made (with a
 * warning) and o->workspace points to it; run_args_release() removes it after the run. Returns
 * 0, or -1 with a message. Nothing happens in any other case or under --dry-run. */
int run_args_workspace(struct run_opts *o);
void run_args_release(struct run_opts *o);
/* True when s is 0/off/no/false (case-insensitive). */
bool run_env_false(const char *s);

#endif
