/* rlimits.c — see rlimits.h. */
#include "rlimits.h"

#include <stdio.h>
#include <sys/resource.h>

void limits_resolve(const struct mf_limits *m, long timeout_ms, struct run_limits *out)
{
	out->wall_s = m && m->wall_s > 0 ? m->wall_s : MF_DEFAULT_WALL_S;
	out->wall_ms = out->wall_s * 1000;
	if (timeout_ms > 0) {
		out->wall_ms = timeout_ms;
		out->wall_s = (timeout_ms + 999) / 1000;
	}
	out->cpu_s = m ? m->cpu_s : -1;
	out->memory_mb = m ? m->memory_mb : -1;
	out->pids = m ? m->pids : -1;
	out->fsize_mb = m ? m->fsize_mb : -1;
	out->nofile = m && m->nofile > 0 ? m->nofile : MF_DEFAULT_NOFILE;
}

static int lower(int res, rlim_t soft, rlim_t hard)
{
	struct rlimit cur, r = {soft, hard};
	if (getrlimit(res, &cur) == 0) {
		if (cur.rlim_max != RLIM_INFINITY && (r.rlim_max == RLIM_INFINITY || r.rlim_max > cur.rlim_max))
			r.rlim_max = cur.rlim_max;
		if (r.rlim_cur > r.rlim_max)
			r.rlim_cur = r.rlim_max;
	}
	return setrlimit(res, &r);
}

int limits_apply(const struct run_limits *l, bool nproc, bool data)
{
	int rc = 0;
	if (data && l->memory_mb > 0)
		rc |= lower(RLIMIT_DATA, (rlim_t)l->memory_mb << 20, (rlim_t)l->memory_mb << 20);
	if (l->cpu_s > 0)
		rc |= lower(RLIMIT_CPU, (rlim_t)l->cpu_s, (rlim_t)l->cpu_s + 1);
	if (l->fsize_mb > 0)
		rc |= lower(RLIMIT_FSIZE, (rlim_t)l->fsize_mb << 20, (rlim_t)l->fsize_mb << 20);
	if (l->nofile > 0)
		rc |= lower(RLIMIT_NOFILE, (rlim_t)l->nofile, (rlim_t)l->nofile);
	if (nproc && l->pids > 0)
		rc |= lower(RLIMIT_NPROC, (rlim_t)l->pids, (rlim_t)l->pids);
	rc |= lower(RLIMIT_CORE, 0, 0);
	return rc ? -1 : 0;
}

void limits_describe(const struct run_limits *l, bool nproc, bool data, char *out, size_t outlen)
{
	size_t n = (size_t)snprintf(out, outlen, "rlimit");
	if (data && l->memory_mb > 0 && n < outlen)
		n += (size_t)snprintf(out + n, outlen - n, " data=%ldM", l->memory_mb);
	if (l->cpu_s > 0 && n < outlen)
		n += (size_t)snprintf(out + n, outlen - n, " cpu=%lds", l->cpu_s);
	if (l->fsize_mb > 0 && n < outlen)
		n += (size_t)snprintf(out + n, outlen - n, " fsize=%ldM", l->fsize_mb);
	if (n < outlen)
		n += (size_t)snprintf(out + n, outlen - n, " nofile=%ld", l->nofile);
	if (nproc && l->pids > 0 && n < outlen)
		n += (size_t)snprintf(out + n, outlen - n, " nproc=%ld", l->pids);
	if (n < outlen)
		snprintf(out + n, outlen - n, " core=0 wall=%lds", l->wall_s);
}

cJSON *limits_plan(const struct run_limits *l)
{
	cJSON *o = cJSON_CreateObject();
	if (!o)
		return NULL;
	cJSON_AddNumberToObject(o, "wall_s", (double)l->wall_s);
	if (l->cpu_s > 0)
		cJSON_AddNumberToObject(o, "cpu_s", (double)l->cpu_s);
	if (l->memory_mb > 0)
		cJSON_AddNumberToObject(o, "memory_mb", (double)l->memory_mb);
	if (l->pids > 0)
		cJSON_AddNumberToObject(o, "pids", (double)l->pids);
	if (l->fsize_mb > 0)
		cJSON_AddNumberToObject(o, "fsize_mb", (double)l->fsize_mb);
	cJSON_AddNumberToObject(o, "nofile", (double)l->nofile);
	cJSON_AddNumberToObject(o, "core", 0);
	return o;
}
