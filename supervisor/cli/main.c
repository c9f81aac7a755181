/* main.c — sbxsup entry point: global options (getopt_long "+", so the first operand is the
 * command and everything after it belongs to that command), then dispatch to the subcommands of
 * cmd.h with a fresh getopt state. */
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cli_opt.h"
#include "cmd.h"
#include "gateway.h"


static const char usage[] =
	"usage: sbxsup COMMAND [ARGS]\n"
	"\n"
	"Run an untrusted AI-agent tool executor behind layered defences derived from its manifest.\n"
	"\n"
	"  sbxsup run [-m MANIFEST] [options] -- COMMAND [ARG...]\n"
	"  sbxsup explain [-m FILE] [--path P [--write|--exec]] [--host H[:PORT]]\n"
	"  sbxsup validate -m FILE\n"
	"  sbxsup status [--json]\n"
	"  sbxsup audit summary|verify|filter|report|tail ... FILE...\n"
	"  sbxsup probes load|unload [--force]|status|expire\n"
	"  sbxsup learn [-m BASE] [options] -- COMMAND [ARG...]   (propose a manifest)\n"
	"  sbxsup serve --socket PATH [run options]   (warm server for run --server PATH)\n"
	"  sbxsup shadow list|diff RUN|commit RUN [PATH...]|discard RUN   (a --shadow run's changes)\n"
	"  sbxsup --version | --help        (each command has --help too)\n"
	"\n"
	"Options follow getopt_long: -mFILE, -m FILE, --manifest=FILE and --manifest FILE are the same.\n"
	"\n"
	"Layers: preload, bwrap, seccomp, landlock, netfilter, probes, limits.\n"
	"Environment: SBXSUP_SANDBOX=0 disables every layer (recorded, refused under --require);\n"
	"SBXSUP_REQUIRE=LIST is --require; SBXSUP_AUDIT=DEST is the default audit destination.\n"
	"Exit: the executor's status; 128+N on signal N; 124 timeout; 125 sbxsup failure;\n"
	"126 not executable; 127 not found. See sbxsup(1).\n";

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, 'V'},
		{NULL, 0, NULL, 0},
	};
	int c;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:hV", opts, NULL)) != -1) {
		switch (c) {
		case 'h':
			fputs(usage, stdout);
			return 0;
		case 'V':
			printf("sbxsup %s\n", SBXSUP_VERSION);
			return 0;
		default:
			cli_bad_option(NULL, argv, opts, c);
			return SBX_EXIT_INTERNAL;
		}
	}
	if (optind >= argc) {
		fputs(usage, stderr);
		return SBX_EXIT_INTERNAL;
	}
	const char *cmd = argv[optind];
	if (!strcmp(cmd, "help")) {
		fputs(usage, stdout);
		return 0;
	}
	static const struct { const char *name; int (*fn)(int, char **); } cmds[] = {
		{"run", cmd_run},         {"status", cmd_status},   {"__stage", cmd_stage},
		{"validate", cmd_validate}, {"explain", cmd_explain}, {"audit", cmd_audit},
		{"probes", cmd_probes},   {"learn", cmd_learn},     {"shadow", cmd_shadow},
		{"serve", cmd_serve},     {"__gateway", sbx_gw_main},
	};
	for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++)
		if (!strcmp(cmd, cmds[i].name)) {
			/* the command parses its own options from a fresh getopt state */
			int sub_argc = argc - optind;
			char **sub_argv = argv + optind;
			optind = 0;
			return cmds[i].fn(sub_argc, sub_argv);
		}
	sbx_msg("unknown command '%s' (see sbxsup --help)", cmd);
	return SBX_EXIT_INTERNAL;
}
