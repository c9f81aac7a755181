/* stage.h — the exec stage: the last code that runs before the command, in the sandbox.
 *
 * Promise: stage_exec() walks the layers' stage ops (layer.h `stage`; it names no layer): those
 * before the capability drop (Landlock), the drop, those after it (the preload's check, then
 * seccomp's filter: the layer's, the report-only sensor's or the privilege guard's), reports the
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
	unsigned layers;            /* the stage layers asked for, by their flags (bit per enum sbx_layer) */
	const struct policy *pol;   /* for Landlock and seccomp; NULL: reported off */
	char **cmd;                 /* NULL-terminated */
	char **envp;                /* NULL: keep environ */
	int stderr_fd;              /* >= 0: dup2 onto 2 first (bwrap mode: the caller's real stderr) */
	bool keep_caps;             /* SBXSUP_SANDBOX=0 only: run the command unchanged */
	bool netfilter;             /* netfilter enforces the hosts: Landlock handles no TCP, seccomp
				     * leaves AF_INET/6 connects to it */
	bool report_files;          /* probes off and the preload blind to the command: the seccomp
				     * reporter (open/exec decided and reported by the supervisor) */
	bool sensor;                /* seccomp and probes off: the report-only sensor (a notify-only
				     * filter, every call continues; status "sensor=on|off") */
	bool etc_view;              /* /etc is bwrap's /etc view (etc_view.h), its secrets whiteouts:
				     * Landlock grants the /etc tree with one rule ("--etc-view") */
};

/* One flag as `sbxsup __stage` takes it into `sa`: a layer's (its stage entry's flag, layer.h) or
 * one of the kernel layers' options ("--netfilter", "--report-files", "--sensor"), or the bwrap
 * entry's "--etc-view". True when it was one. */
bool stage_flag_parse(const char *flag, struct stage_args *sa);

/* Returns only on failure, with the exit status to use. */
int stage_exec(const struct stage_args *a);

/* `sbxsup __stage ...` (bwrap mode): the stage as a command, inside the sandbox; the exit status. */
int cmd_stage(int argc, char **argv);

#endif
