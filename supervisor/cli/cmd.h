/* cmd.h — the sbxsup subcommands and their exit codes.
 *
 * Promise: each cmd_* returns the process exit status (SPEC "Command line": 124 timeout, 125
 * sbxsup's own failure, 126 not executable, 127 not found); sbx_msg() is the one way sbxsup
 * speaks on stderr ("sbxsup: " prefix, one line). */
#ifndef SBX_CMD_H
#define SBX_CMD_H

#define SBX_EXIT_TIMEOUT  124
#define SBX_EXIT_INTERNAL 125
#define SBX_EXIT_NOEXEC   126
#define SBX_EXIT_NOTFOUND 127

int cmd_run(int argc, char **argv);      /* run.c      */
int cmd_status(int argc, char **argv);   /* status.c   */
int cmd_stage(int argc, char **argv);    /* stage.c: internal "__stage", the exec stage inside bwrap */
int cmd_validate(int argc, char **argv); /* cmd_validate.c */
int cmd_explain(int argc, char **argv);  /* cmd_explain.c  */
int cmd_audit(int argc, char **argv);    /* audit_cmd.c    */
int cmd_probes(int argc, char **argv);   /* probes_cmd.c: probes load|unload|status */

/* "sbxsup: " + message on stderr. */
void sbx_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
