/* severity.c — see severity.h. The first cut of the table; the review work refines it. */
#include <string.h>
#include "severity.h"

static const char *const names[] = { NULL, "info", "low", "medium", "high", "critical" };

const char *sbx_sev_name(enum sbx_sev s)
{
	return (s > SBX_SEV_NONE && s <= SBX_SEV_CRITICAL) ? names[s] : NULL;
}

int sbx_sev_parse(const char *name)
{
	for (int i = SBX_SEV_INFO; name && i <= SBX_SEV_CRITICAL; i++)
		if (strcmp(name, names[i]) == 0)
			return i;
	return -1;
}

static const char *str(const cJSON *ev, const char *key)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(ev, key);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

enum sbx_sev sbx_sev_classify(const cJSON *ev)
{
	const char *event = str(ev, "event"), *outcome = str(ev, "outcome"), *access = str(ev, "access");
	if (!event)
		return SBX_SEV_NONE;
	if (strcmp(event, "preload.deny") && strcmp(event, "kernel.violation") &&
	    strcmp(event, "netfilter.deny") && strcmp(event, "seccomp.deny") && strcmp(event, "landlock.deny"))
		return SBX_SEV_NONE;
	if (outcome && strcmp(outcome, "breach") == 0)
		return SBX_SEV_CRITICAL;
	if (!strcmp(event, "netfilter.deny") || !strcmp(event, "seccomp.deny"))
		return SBX_SEV_HIGH;
	if (access && (!strcmp(access, "write") || !strcmp(access, "exec") || !strcmp(access, "connect")))
		return SBX_SEV_HIGH;
	return SBX_SEV_MEDIUM;
}
