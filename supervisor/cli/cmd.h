/* cmd.h — the sbxsup subcommands. Each returns the process exit status (SPEC "Command line"). */
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
int cmd_learn(int argc, char **argv);    /* cmd_learn.c: propose a manifest from what a run tried */

/* "sbxsup: " + message on stderr. */
void sbx_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
