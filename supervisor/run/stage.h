/* stage.h — the exec stage: the last code that runs before the command, in the sandbox.
 *
 * Promise: stage_exec() applies Landlock (when asked), drops the capabilities, checks (when asked)
 * that the preload library can be loaded by the command (the library the loader will take: the first
 * entry of the command's LD_PRELOAD, else the first line of /etc/ld.so.preload, opened with the
 * command's identity, mount tree and Landlock domain: a readable regular ELF file on a mount that
 * allows executing it; status "preload=on", else "preload=off" and "preload_why" naming the path,
 * the uid/gid and the error), then installs seccomp (when asked), reports the
 * outcome to the supervisor ("ready" on the ctl socket, with the seccomp listener fd), waits for
 * "go", makes the ctl fd close-on-exec and execs the command with the given environment. A "go"
 * that carries a call (a pre-created sandbox, ctl.h) brings the argv to exec instead (same argv[0],
 * else exit 125) and the stdin/stdout/stderr to put on 0-2 first. It never
 * runs the command without "go" (EOF or anything else: exit 125). An exec failure prints
 * "sbxsup: CMD: not found" / "permission denied" and returns 127 / 126. A layer that fails to
 * apply is reported off with its reason (the supervisor decides whether that is fatal).
 * Used twice: `sbxsup __stage` inside bwrap (cmd_stage), and in-process in the forked child when
 * there is no bwrap — the same code path.
 */
#ifndef SBX_STAGE_H
#define SBX_STAGE_H

#include <stdbool.h>
#include "policy.h"

struct stage_args {
	int ctl_fd;
	bool landlock, seccomp;
	const struct policy *pol;   /* for Landlock; NULL: Landlock reported off */
	char **cmd;                 /* NULL-terminated */
	char **envp;                /* NULL: keep environ */
	int stderr_fd;              /* >= 0: dup2 onto 2 first (bwrap mode: the caller's real stderr) */
	bool keep_caps;             /* SBXSUP_SANDBOX=0 only: run the command unchanged */
	bool netfilter;             /* netfilter enforces the hosts: Landlock handles no TCP, seccomp
				     * leaves AF_INET/6 connects to it */
	bool report_files;          /* probes off and the preload blind to the command: the seccomp
				     * reporter (open/exec decided and reported by the supervisor) */
	bool preload;               /* check that the command can load the preload (status "preload=") */
	bool sensor;                /* seccomp and probes off: the report-only sensor (a notify-only
				     * filter, every call continues; status "sensor=on|off") */
};

/* One layer flag as `sbxsup __stage` takes it ("--landlock", "--seccomp", "--preload", "--netfilter",
 * "--report-files", "--sensor") into `sa`. Returns true when it was one. */
bool stage_flag_parse(const char *flag, struct stage_args *sa);

/* Returns only on failure, with the exit status to use. */
int stage_exec(const struct stage_args *a);

/* `sbxsup __stage ...` (bwrap mode): the stage as a command, inside the sandbox; the exit status. */
int cmd_stage(int argc, char **argv);

#endif
