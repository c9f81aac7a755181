/* run.h — one run of `sbxsup run` as a call: options in, exit status out.
 *
 * Promise: run_execute() plans, sets up, attempts and ends one run (run.c: the steps) and returns
 * the SPEC's exit status; nothing runs unless the manifest is valid, the audit stream is open and
 * every required layer is active. `parsed` is what the command line parser said: 0 (o is complete)
 * or -1 (bad arguments: nothing runs; the result record, when o->result was read, says
 * bad_arguments). The caller owns `o` and everything it points to.
 */
#ifndef SBX_RUN_H
#define SBX_RUN_H

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
	const char *server;       /* --server PATH: send the call to `sbxsup serve` there (cli/), NULL */
	bool dry_run;
	bool disabled;            /* SBXSUP_SANDBOX=0 */
	char **cmd;               /* NULL-terminated */
	char ws_tmp[32];          /* the temporary workspace of run_args_workspace, or "" */
};

int run_execute(struct run_opts *o, int parsed);

#endif
