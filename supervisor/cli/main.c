/* main.c — sbxsup entry point: dispatch to the subcommands of cmd.h. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cmd.h"

void sbx_msg(const char *fmt, ...)
{
	char buf[2048];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	fprintf(stderr, "sbxsup: %s\n", buf);
}

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
	"  sbxsup probes load|unload [--force]|status\n"
	"  sbxsup --version | --help        (each command has --help too)\n"
	"\n"
	"Layers: preload, bwrap, seccomp, landlock, netfilter, probes, limits.\n"
	"Environment: SBXSUP_SANDBOX=0 disables every layer (recorded, refused under --require);\n"
	"SBXSUP_REQUIRE=LIST is --require; SBXSUP_AUDIT=DEST is the default audit destination.\n"
	"Exit: the executor's status; 128+N on signal N; 124 timeout; 125 sbxsup failure;\n"
	"126 not executable; 127 not found. See sbxsup(1).\n";

int main(int argc, char **argv)
{
	if (argc < 2) {
		fputs(usage, stderr);
		return SBX_EXIT_INTERNAL;
	}
	const char *c = argv[1];
	if (!strcmp(c, "--help") || !strcmp(c, "-h") || !strcmp(c, "help")) {
		fputs(usage, stdout);
		return 0;
	}
	if (!strcmp(c, "--version") || !strcmp(c, "-V")) {
		printf("sbxsup %s\n", SBXSUP_VERSION);
		return 0;
	}
	static const struct { const char *name; int (*fn)(int, char **); } cmds[] = {
		{"run", cmd_run},         {"status", cmd_status},   {"__stage", cmd_stage},
		{"validate", cmd_validate}, {"explain", cmd_explain}, {"audit", cmd_audit},
		{"probes", cmd_probes},
	};
	for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++)
		if (!strcmp(c, cmds[i].name))
			return cmds[i].fn(argc - 1, argv + 1);
	sbx_msg("unknown command '%s' (see sbxsup --help)", c);
	return SBX_EXIT_INTERNAL;
}
