/* cli_opt.h — the conventions every sbxsup command follows on its command line.
 *
 * Promise: one parsing style for every command — getopt_long with "+:" (stop at the first operand;
 * report a missing value as ':'), so short options take attached values (-mFILE) and long ones
 * "--opt=value" or "--opt value" — and one wording for what goes wrong: cli_bad_option() prints a
 * single "sbxsup: CMD: ..." line naming the option as the user typed it ("--path needs a value").
 * cli_seconds() reads a positive decimal number of seconds, fractions allowed ("1.5"), into
 * milliseconds (rounded up). cli_layers() reads a layer list as bwrap/systemd-run users expect:
 * "auto" (or "all"), "none", names, "-NAME" to remove and "+NAME" to add one ("auto,-probes";
 * a list that starts with -/+ starts from auto). No state is kept; messages go to stderr only.
 */
#ifndef SBX_CLI_OPT_H
#define SBX_CLI_OPT_H

#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>

/* After getopt_long returned '?' or ':' (c): one message for CMD (NULL: sbxsup's own options). */
void cli_bad_option(const char *cmd, char **argv, const struct option *opts, int c);
/* Returns 0 with *ms > 0, or -1 when s is not a positive number of seconds (at most 100 years). */
int cli_seconds(const char *s, long *ms);
/* Returns 0 with the layer mask, or -1 with a reason in err. */
int cli_layers(const char *list, unsigned *mask, char *err, size_t errlen);

#endif
