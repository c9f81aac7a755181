/* cmd.h — the sbxsup subcommands and their exit codes.
 *
 * Promise: each cmd_* returns the process exit status (SPEC "Command line": 124 timeout, 125
 * sbxsup's own failure, 126 not executable, 127 not found); sbx_msg() is the one way sbxsup
 * speaks on stderr ("sbxsup: " prefix, one line). */
#ifndef SBX_CMD_H
#define SBX_CMD_H

#include "msg.h"
#include "run.h"
#include "stage.h"

int cmd_run(int argc, char **argv);      /* cmd_run.c: parse, then run_execute (run/run.h) */
int cmd_status(int argc, char **argv);   /* status.c   */
int cmd_validate(int argc, char **argv); /* cmd_validate.c */
int cmd_explain(int argc, char **argv);  /* cmd_explain.c  */
int cmd_audit(int argc, char **argv);    /* audit_cmd.c    */
int cmd_probes(int argc, char **argv);   /* probes_cmd.c: probes load|unload|status */
int cmd_learn(int argc, char **argv);    /* cmd_learn.c: propose a manifest from what a run tried */
int cmd_serve(int argc, char **argv);    /* cmd_serve.c: the warm server (serve/serve.h) */
/* cmd_run.c: a parsed `sbxsup run` (parse status pr as run_args_parse returned it, <= 0) run
 * through the library: temporary workspace, run, clean-up; the exit status. */
struct sbx_opts;
int run_parsed(struct sbx_opts *o, int pr);
/* run_server.c: `sbxsup run --server PATH`: the call sent to the server; its exit status. */
int run_via_server(int argc, char **argv, const struct run_opts *o);
int cmd_shadow(int argc, char **argv);   /* cmd_shadow.c: shadow list|diff|commit|discard */


#endif
