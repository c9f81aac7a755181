/* run_notfound.c — the second line after "CMD: not found" (run_int.h run_cmd_not_found). */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "msg.h"
#include "quote.h"
#include "policy.h"
#include "run_int.h"

/* Why the host file `abs` (the command) is not in the sandbox: not granted or denied by a rule, or
 * in the host's /tmp, which the sandbox replaces by its own. NULL when the policy grants it. */
static const char *hidden_why(const struct policy *p, const char *abs)
{
	struct pol_decision d;
	if (pol_path(p, abs, POL_READ, &d) != POL_ALLOW)
		return pol_rule_text(p, d.rule);
	if (!strncmp(pol_rule_text(p, d.rule), "builtin:tmp", 11))
		return "the sandbox has its own private /tmp"; /* granted, but the host's file is not there */
	return NULL;
}

void run_cmd_not_found(const struct policy *p, const char *cmd)
{
	if (!p || !strchr(cmd, '/'))
		return; /* looked up in PATH inside the sandbox: "not found" says it all */
	char *abs = realpath(cmd, NULL);
	if (!abs)
		return; /* does not exist here either: "not found" is right */
	struct stat st;
	const char *why = stat(abs, &st) == 0 && !S_ISDIR(st.st_mode) ? hidden_why(p, abs) : NULL;
	char q[SBX_Q_MAX];
	if (why)
		sbx_msg("%s exists but is not visible in the sandbox (%s): add it to the manifest or run it "
			"from the workspace", sbx_q(cmd, q, sizeof q), why);
	free(abs);
}

