/* cmd_audit.c — `sbxsup audit summary|verify|filter|report|tail`: dispatch and usage.
 * The subcommands are beside it in cli/ (audit_verify.c, audit_summary.c, audit_filter.c,
 * audit_report.c, audit_tail.c, their shared input handling in review_io.c); the reader and schema
 * check are audit/audit_read.c, the aggregation audit/audit_model.c.
 */
#include "review.h"
#include "cmd.h"
#include "audit_read.h"

#include <stdio.h>
#include <string.h>

static const char usage[] =
	"usage: sbxsup audit COMMAND [options] FILE...     (FILE \"-\" = stdin)\n"
	"  summary [--json] [--follow] FILE...   executors and runs worst first (by severity: critical =\n"
	"                                        secret path or breach ... info = benign libc behaviour),\n"
	"                                        what each run executed, its events grouped with the rule\n"
	"                                        that decided each, exits, limits, lost events, degraded runs\n"
	"  verify FILE...                        hash chain, sequence and schema check; exit 0 clean,\n"
	"                                        1 with every problem listed as FILE:LINE: problem\n"
	"  filter [--event E] [--executor N] [--run ID] [--since T] [--until T] [--layer L]\n"
	"         [--outcome contained|breach] [--rule R] [--path P] [--comm C] [--severity S[+]]\n"
	"         [--follow] FILE...\n"
	"                                        matching lines, byte-for-byte unchanged\n"
	"  report --html OUT FILE...             self-contained HTML page for a security reviewer: verdict\n"
	"                                        per run first, timeline, grouped events, rules, search\n"
	"  tail [-f] [-n N] [--color WHEN] FILE  the last events as readable lines, severity-coloured on\n"
	"                                        a terminal; -f follows the file\n"
	"Each command has --help.\n";

int cmd_audit(int argc, char **argv)
{
	if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
		fputs(usage, argc < 2 ? stderr : stdout);
		return argc < 2 ? SBX_EXIT_INTERNAL : 0;
	}
	const char *sub = argv[1];
	if (strcmp(sub, "verify") == 0)
		return audit_verify_main(argc - 1, argv + 1);
	if (strcmp(sub, "summary") == 0)
		return audit_summary_main(argc - 1, argv + 1);
	if (strcmp(sub, "filter") == 0)
		return audit_filter_main(argc - 1, argv + 1);
	if (strcmp(sub, "report") == 0)
		return audit_report_main(argc - 1, argv + 1);
	if (strcmp(sub, "tail") == 0)
		return audit_tail_main(argc - 1, argv + 1);
	sbx_msg("audit: unknown command '%s'", sub);
	fputs(usage, stderr);
	return SBX_EXIT_INTERNAL;
}
