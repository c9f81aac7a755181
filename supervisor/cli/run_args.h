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
#include "run.h"


int run_args_parse(int argc, char **argv, struct run_opts *o);
/* A workspace (-w, else the current directory) that is never one (mf_workspace_never: "/", /tmp,
 * /var/tmp, /dev/shm): an empty temporary one is made (with a note on stderr) and o->workspace
 * points to it; run_args_release() removes it after the run. Returns 0, or -1 with a message.
 * Nothing happens in any other case or under --dry-run. */
int run_args_workspace(struct run_opts *o);
void run_args_release(struct run_opts *o);
/* True when s is 0/off/no/false (case-insensitive). */
bool run_env_false(const char *s);

#endif
