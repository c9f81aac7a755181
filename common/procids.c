/* procids.c — see procids.h. */
#include "procids.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "smallfile.h"

/* The four ids after `key` ("\nUid:"), 0, or -1. */
static int four_ids(const char *st, const char *key, unsigned long v[4])
{
	const char *l = strstr(st, key);
	if (!l)
		return -1;
	return sscanf(l + strlen(key), "%lu %lu %lu %lu", &v[0], &v[1], &v[2], &v[3]) == 4 ? 0 : -1;
}

int sbx_proc_ids(pid_t pid, struct sbx_proc_ids *out)
{
	char p[64], st[8192];
	snprintf(p, sizeof p, "/proc/%d/status", (int)pid);
	if (sbx_read_small(p, st, sizeof st) < 0)
		return -1;
	unsigned long u[4], g[4];
	if (four_ids(st, "\nUid:", u) || four_ids(st, "\nGid:", g)) {
		errno = EINVAL;
		return -1;
	}
	for (int i = 0; i < 4; i++) {
		out->uid[i] = (uid_t)u[i];
		out->gid[i] = (gid_t)g[i];
	}
	out->ngroups = 0;
	const char *gl = strstr(st, "\nGroups:");
	if (gl) {
		gl += 8;
		const char *e = gl + strcspn(gl, "\n");
		while (gl < e && out->ngroups < SBX_PROCIDS_MAX_GROUPS) {
			char *end;
			unsigned long x = strtoul(gl, &end, 10);
			if (end == gl)
				break;
			out->groups[out->ngroups++] = (gid_t)x;
			gl = end;
		}
	}
	const char *um = strstr(st, "\nUmask:");
	out->umask = um ? (mode_t)strtoul(um + 7, NULL, 8) & 0777 : 022;
	const char *tg = strstr(st, "\nTgid:");
	out->tgid = tg ? (pid_t)strtol(tg + 6, NULL, 10) : 0;
	return 0;
}
