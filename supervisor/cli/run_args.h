/* run_args.h — `sbxsup run` command line and SBXSUP_* environment (SPEC "Command line").
 *
 * Promise: run_args_parse() fills the library's options (sbxsup.h, through its setters: one options
 * struct from the command line to the run) from argv and the environment (getopt_long "+:", the
 * conventions of cli_opt.h: -mFILE, --timeout 1.5, --layers auto,-probes), or explains the problem
 * in one line on stderr (`sbxsup: run: ...`) and returns -1 (exit 125). `--help` prints usage and returns 1.
 * SBXSUP_SANDBOX=0|off|no|false (case-insensitive) sets `disabled`; SBXSUP_REQUIRE is --require
 * (the command line wins); SBXSUP_AUDIT is the default audit destination.
 */
#ifndef SBX_RUN_ARGS_H
#define SBX_RUN_ARGS_H

#include <stdbool.h>
#include "run.h"


struct sbx_opts;
int run_args_parse(int argc, char **argv, struct sbx_opts *o);
/* `sbxsup serve --socket PATH [--quiet] [--warm N | --no-warm] [RUN OPTIONS]`: the same parser and the same
 * options (o: the server's defaults, checked as `run` checks them; their words, in order, in
 * opts[0..nopts), NULL-terminated, malloc'd: the caller frees the array), no command. 1: --help
 * (the caller prints serve's usage), -1: said why. */
struct serve_args {
	const char *socket;
	bool quiet, no_warm;
	int warm;          /* --warm N: sandboxes parked at once (0: not given, the default) */
	char **opts;
	int nopts;
};
int serve_args_parse(int argc, char **argv, struct sbx_opts *o, struct serve_args *sv);
/* run_args_parse, also saying which words of argv the last --tag and the last --result were:
 * argv[tag[0] .. tag[1]) ({-1, -1}: none) — serve compares a call's options without them. */
struct run_words {
	int tag[2], result[2];
};
int run_args_parse_words(int argc, char **argv, struct sbx_opts *o, struct run_words *rw);
/* A workspace (-w, else the current directory) that is never one (mf_workspace_never: "/", /tmp,
 * /var/tmp, /dev/shm): an empty temporary one is made (with a note on stderr) and o->workspace
 * points to it; run_args_release() removes it after the run. Returns 0, or -1 with a message.
 * Nothing happens in any other case or under --dry-run. */
int run_args_workspace(struct sbx_opts *o);
void run_args_release(struct sbx_opts *o);
/* True when s is 0/off/no/false (case-insensitive). */
bool run_env_false(const char *s);

#endif
