/* run.h — one run of `sbxsup run` as a call: options in, exit status out.
 *
 * Promise: run_execute() plans, sets up, attempts and ends one run (run.c: the steps) and returns
 * the SPEC's exit status; nothing runs unless the manifest is valid, the audit stream is open and
 * every required layer is active. `parsed` is what the command line parser said: 0 (o is complete)
 * or -1 (bad arguments: nothing runs; the result record, when o->result was read, says
 * bad_arguments). The caller owns `o` and everything it points to.
 * The library (supervisor/lib/sbxsup.h) is the one caller: the CLI reaches run_execute through it.
 * Process-wide effects while it runs (the library saves and restores the last three): it reaps and,
 * at the end, SIGKILLs every child of the calling process (it must have no other children); it
 * becomes a child subreaper; it blocks SIGCHLD/INT/TERM/HUP in the calling thread (a signalfd
 * takes them: INT/TERM/HUP go to the executor); SIGPIPE is ignored. It speaks with sbx_msg (on the
 * thread's message descriptor, common/msg.h).
 */
#ifndef SBX_RUN_H
#define SBX_RUN_H

#include <stdbool.h>

struct cJSON;

/* A pre-created run (`sbxsup serve`, docs/serve.md): the run plans, sets up and starts its
 * sandbox for a command it knows only the name (cmd[0]) and environment of, and waits, once the
 * stage is ready and before anything is audited, for the call. wait() blocks until the call
 * arrives or one of watch[0..1] (the run's signals, the stage's control socket) is readable or
 * hung up. It returns 0 with the call's argv in *cmd (same cmd[0]; owned by the caller of
 * run_execute, alive until it returns), its tag in *tag (NULL: none) and the call's stdin, stdout,
 * stderr placed on the calling process's 0-2; the run then writes run.start (the call's argv and
 * tag, the wall clock starting now) and hands argv and 0-2 to the stage with its "go". -1: no call;
 * the sandbox is ended and nothing of the run is audited or recorded. done() (may be NULL), after a
 * call: the run is over (every process gone, run.end and the result record written) and only its
 * clean-up (cgroups, directories) is left; the caller may answer its client now. */
struct run_warm {
	int (*wait)(void *arg, const int watch[2], char ***cmd, const char **tag);
	void (*done)(void *arg, int code);
	void *arg;
};

struct run_opts {
	const char *manifest;     /* NULL: built-in default */
	const char *workspace;    /* NULL: cwd */
	const char *audit;        /* NULL: no stream */
	unsigned want, require;   /* layer masks */
	long timeout_ms;          /* 0: manifest / default; --timeout 1.5 is 1500 */
	long audit_budget_mb;     /* --audit-budget MB; -1: manifest limits.audit_mb / default */
	const char *result;       /* --result FD|FILE: the result record's destination, NULL: none */
	const char *result_extra; /* serve: the call's own --result, opened as result_extra_fd by the
				   * server's child; refused as `result` would be (result_check). NULL */
	int result_extra_fd;
	const char *tag;          /* --tag STRING: the caller's tag (run.start, result record), NULL */
	const char *server;       /* --server PATH: send the call to `sbxsup serve` there (cli/), NULL */
	bool dry_run;
	bool shadow;              /* --shadow: writes land in a per-run shadow store (docs/shadow.md) */
	bool sensor_off;          /* --sensor off: no report-only sensor (seccomp_layer.h) */
	bool disabled;            /* SBXSUP_SANDBOX=0 */
	char **cmd;               /* NULL-terminated */
	char ws_tmp[32];          /* the temporary workspace of run_args_workspace, or "" */
	/* For the library (all zero from the command line parser: the CLI's behaviour): */
	const char *helper;       /* the sbxsup binary the sandbox execs as its stage; NULL: /proc/self/exe */
	const int *stdio;         /* the executor's stdin/stdout/stderr (each > 2), NULL: sbxsup's 0/1/2 */
	char **plan_out;          /* dry_run: the plan JSON is stored here (malloc) instead of printed */
	struct cJSON **result_out; /* the result record is handed over here (the caller deletes it) */
	const struct run_warm *warm; /* NULL: the command is known now (every caller but serve/) */
};

int run_execute(struct run_opts *o, int parsed);

#endif
