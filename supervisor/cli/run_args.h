/* run_args.h — `sbxsup run` command line and SBXSUP_* environment (SPEC "Command line").
 *
 * Promise: run_args_parse() fills run_opts from argv and the environment, or explains the problem
 * on stderr (`sbxsup: ...`) and returns -1 (exit 125). `--help` prints usage and returns 1.
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
	long timeout_s;           /* 0: manifest / default */
	long audit_budget_mb;     /* --audit-budget MB; -1: manifest limits.audit_mb / default */
	bool dry_run;
	bool disabled;            /* SBXSUP_SANDBOX=0 */
	char **cmd;               /* NULL-terminated */
};

int run_args_parse(int argc, char **argv, struct run_opts *o);
/* True when s is 0/off/no/false (case-insensitive). */
bool run_env_false(const char *s);

#endif
