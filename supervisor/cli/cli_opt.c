/* cli_opt.c — see cli_opt.h. */
#include "cli_opt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "layer_set.h"

static const char *long_name(const struct option *opts, int val)
{
	for (; opts && opts->name; opts++)
		if (opts->val == val && !opts->flag)
			return opts->name;
	return NULL;
}

void cli_bad_option(const char *cmd, char **argv, const struct option *opts, int c)
{
	const char *typed = optind > 0 ? argv[optind - 1] : "";
	bool is_long = typed && !strncmp(typed, "--", 2);
	int tl = is_long ? (int)strcspn(typed, "=") : 0;
	char pre[48] = "", help[64] = "sbxsup --help";
	if (cmd) { /* NULL: sbxsup's own options, before the command */
		snprintf(pre, sizeof pre, "%s: ", cmd);
		snprintf(help, sizeof help, "sbxsup %s --help", cmd);
	}
	if (c == ':') {
		const char *ln = long_name(opts, optopt);
		if (is_long)
			sbx_msg("%s%.*s needs a value (see %s)", pre, tl, typed, help);
		else if (ln)
			sbx_msg("%s-%c (--%s) needs a value (see %s)", pre, optopt, ln, help);
		else
			sbx_msg("%s-%c needs a value (see %s)", pre, optopt, help);
	} else if (is_long && optopt) {
		sbx_msg("%s%.*s takes no value (see %s)", pre, tl, typed, help);
	} else if (is_long) {
		sbx_msg("%sunknown or ambiguous option '%.*s' (see %s)", pre, tl, typed, help);
	} else if (optopt > 0 && optopt < 128) {
		sbx_msg("%sunknown option '-%c' (see %s)", pre, optopt, help);
	} else {
		sbx_msg("%sbad option '%s' (see %s)", pre, typed, help);
	}
}

int cli_seconds(const char *s, long *ms)
{
	/* digits [. digits]: no sign, exponent, hex, inf or nan */
	size_t i = strspn(s, "0123456789");
	if (s[i] == '.' && s[i + 1])
		i += 1 + strspn(s + i + 1, "0123456789");
	if (!i || s[i] || s[0] == '.')
		return -1;
	double v = strtod(s, NULL);
	if (!(v > 0) || v > 100.0 * 365 * 86400)
		return -1;
	double m = v * 1000.0;
	long r = (long)m;
	if ((double)r < m)
		r++; /* round up: 0.0001 s is still a limit, never "none" */
	*ms = r;
	return 0;
}

int cli_layers(const char *list, unsigned *mask, char *err, size_t errlen)
{
	return sbx_layer_list_parse(list, mask, err, errlen);
}
