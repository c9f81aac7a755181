/* rlimits.c — see rlimits.h. */
#include "rlimits.h"
#include "layer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
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

/* ---- the layer entry (layer.h) ----------------------------------------------------------------- */

static void lim_probe(enum layer_depth depth, struct detect *d, struct layer_probe *out)
{
	out->available = true;
	if (depth == LAYER_CHEAP) {
		snprintf(out->level, sizeof out->level, "rlimit");
		return;
	}
	snprintf(out->level, sizeof out->level, "rlimits; %s", d->cgroups);
	if (!strstr(d->cgroups, "writable)") && !strstr(d->cgroups, " writable"))
		snprintf(out->remedy, sizeof out->remedy,
			 "memory/pids limits fall back to rlimits: run as root or delegate a cgroup "
			 "(systemd-run --user --scope -p Delegate=yes)");
}

static cJSON *lim_plan(const struct layer_ctx *c)
{
	return limits_plan(c->lim);
}

/* Which rlimits stand in for a missing cgroup controller. */
struct lim_rt {
	bool nproc, data;
};

static int lim_start(const struct layer_ctx *c, void **st, char *level, size_t levellen, char *why,
		     size_t whylen)
{
	struct lim_rt *s = calloc(1, sizeof *s);
	if (!s) {
		snprintf(why, whylen, "out of memory");
		return -1;
	}
	const struct run_limits *l = c->lim;
	s->nproc = l->pids > 0 && !c->cg.pids;
	s->data = l->memory_mb > 0 && !c->cg.memory;
	char rl[160];
	limits_describe(l, s->nproc, s->data, rl, sizeof rl);
	snprintf(level, levellen, "%s%s%s%s%s", rl,
		 c->cg.memory ? (c->cg.memory == 2 ? "; memory cg2" : "; memory cg1") : "",
		 c->cg.pids ? (c->cg.pids == 2 ? "; pids cg2" : "; pids cg1") : "",
		 s->nproc ? (geteuid() == 0 ? "; nproc rlimit (not enforced for root)" : "; nproc rlimit (per uid)") : "",
		 c->cg.run_v2 ? "; run cg2" : "");
	*st = s;
	return 0;
}

static int lim_child(const struct layer_ctx *c, void *st)
{
	const struct lim_rt *s = st;
	return limits_apply(c->lim, s && s->nproc, s && s->data);
}

const struct layer_ops layer_limits = {
	.id = SBX_L_LIMITS,
	.name = "limits",
	.event = "limit.hit",
	.lost = "no resource limits: memory, cpu time, processes, file size and open files are unbounded",
	.always = true,
	.needs_cgroup = true,
	.cgroup_limits = true,
	.probe = lim_probe,
	.plan = lim_plan,
	.start = lim_start,
	.child = lim_child,
	.stop = free,
};
