/* layers.c — the one table of layers and its walkers (layer.h). The run's bookkeeping of the layers
 * (layer_set.h: names, on/off, the sensor's level) is layer_set.c, which the entries use. */
#include "layer.h"
#include "msg.h"

#include <stdio.h>
#include <sys/stat.h>
#include <stdlib.h>
#include <string.h>

const struct layer_ops *const sbx_layer_ops[SBX_L__N] = {
	[SBX_L_PRELOAD] = &layer_preload,
	[SBX_L_BWRAP] = &layer_bwrap,
	[SBX_L_SECCOMP] = &layer_seccomp,
	[SBX_L_LANDLOCK] = &layer_landlock,
	[SBX_L_NETFILTER] = &layer_netfilter,
	[SBX_L_PROBES] = &layer_probes,
	[SBX_L_LIMITS] = &layer_limits,
};

#define FOR_EACH_LAYER(l, o) \
	for (int l = 0; l < SBX_L__N; l++) \
		for (const struct layer_ops *o = sbx_layer_ops[l]; o; o = NULL)

/* ---- walkers ----------------------------------------------------------------------------------- */

/* d->stage: the stage-only binary beside sbxsup (Makefile STAGE_BIN, installed beside it), owned
 * like sbxsup and writable by nobody else; else sbxsup itself (`__stage` works in both). */
static void detect_stage(struct detect *d)
{
	snprintf(d->stage, sizeof d->stage, "%s", d->self);
	const char *slash = strrchr(d->self, '/');
	struct stat self_st, st;
	char p[PATH_MAX];
	if (!slash || stat(d->self, &self_st) < 0 ||
	    snprintf(p, sizeof p, "%.*s/sbxsup-stage", (int)(slash - d->self), d->self) >= (int)sizeof p)
		return;
	if (stat(p, &st) == 0 && S_ISREG(st.st_mode) && (st.st_mode & S_IXUSR) && !(st.st_mode & (S_IWGRP | S_IWOTH)) &&
	    st.st_uid == self_st.st_uid)
		snprintf(d->stage, sizeof d->stage, "%s", p);
}

void layers_detect(struct sbx_layers *L, struct detect *d)
{
	if (!d->self[0] && !realpath("/proc/self/exe", d->self)) /* set by the caller: the library's helper */
		d->self[0] = 0;
	detect_stage(d);
	FOR_EACH_LAYER(l, o) {
		if (o->always)
			L->want |= 1u << l;
		if (!((L->want >> l) & 1u)) {
			sbx_layer_set_off(L, l, "not selected (--layers)");
			continue;
		}
		struct layer_probe *p = calloc(1, sizeof *p);
		if (!p) {
			sbx_layer_set_off(L, l, "out of memory");
			continue;
		}
		/* A required layer whose cheap probe only finds its binary (bwrap) is verified for real:
		 * a refusal then names it too, and run.start never records it on when it cannot start
		 * (a container's seccomp profile). One short-lived `bwrap ... true`, only under --require. */
		bool verify = ((L->require >> l) & 1u) && l == SBX_L_BWRAP;
		o->probe(verify ? LAYER_FUNCTIONAL : LAYER_CHEAP, d, p);
		if (p->available)
			sbx_layer_set_on(L, l, "%s", p->level);
		else /* a layer is never off without a reason */
			sbx_layer_set_off(L, l, "%s", p->why[0] ? p->why : "unavailable");
		free(p);
	}
}

void layers_disable(struct sbx_layers *L, const char *why)
{
	L->want = 0;
	L->sensor_off = true;
	snprintf(L->sensor, sizeof L->sensor, "off (%s)", why);
	FOR_EACH_LAYER(l, o)
		sbx_layer_set_off(L, l, "%s", why);
}

void layers_probe_all(struct detect *d, struct layer_probe st[SBX_L__N])
{
	if (!realpath("/proc/self/exe", d->self))
		d->self[0] = 0;
	detect_stage(d);
	FOR_EACH_LAYER(l, o) {
		memset(&st[l], 0, sizeof st[l]);
		o->probe(LAYER_FUNCTIONAL, d, &st[l]);
	}
}

void layers_admit(const struct layer_ctx *c)
{
	char why[256];
	FOR_EACH_LAYER(l, o) {
		why[0] = 0;
		if (!o->admit || !((c->L->want >> l) & 1u))
			continue;
		bool on = sbx_layer_on(c->L, l);
		int rc = o->admit(c, why, sizeof why);
		if (rc > 0) /* nothing to enforce for this run, on or not: off and silent */
			sbx_layer_set_moot(c->L, l, "%s", why[0] ? why : "not needed");
		else if (rc < 0 && on)
			sbx_layer_set_off(c->L, l, "%s", why[0] ? why : "not usable for this command");
	}
}

void layers_plan(const struct layer_ctx *c, cJSON *o_)
{
	struct layer_ctx cc = *c; /* the wrapper's plan prints its argv, the stage flags included */
	struct strv flags = {0};
	cc.stage_flags = layers_stage_flags(c->L, &flags) == 0 ? &flags : NULL;
	FOR_EACH_LAYER(l, o) {
		if (!o->plan)
			continue;
		cJSON *x = o->plan(&cc);
		if (x)
			cJSON_AddItemToObject(o_, o->name, x);
		else
			cJSON_AddNullToObject(o_, o->name);
	}
	strv_free(&flags);
}

int layers_env(const struct layer_ctx *c, struct strv *env)
{
	int rc = 0;
	FOR_EACH_LAYER(l, o)
		if (o->env && sbx_layer_on(c->L, l))
			rc |= o->env(c, env);
	return rc;
}

const struct layer_ops *layers_wrapper(const struct sbx_layers *L)
{
	FOR_EACH_LAYER(l, o)
		if (o->wrap && sbx_layer_on(L, l))
			return o;
	return NULL;
}

void layers_sensor_plan(const struct sbx_layers *L, char *out, size_t outlen)
{
	FOR_EACH_LAYER(l, o) {
		const char *s = o->sensor ? o->sensor(L) : NULL;
		if (s) {
			snprintf(out, outlen, "%s", s);
			return;
		}
	}
	sbx_sensor_level(L, out, outlen);
}

const char *layers_event(const char *name)
{
	FOR_EACH_LAYER(l, o)
		if (o->event && !strcmp(o->name, name))
			return o->event;
	return NULL;
}

int layers_wrap(const struct layer_ctx *c, struct strv *argv, char *err, size_t errlen)
{
	const struct layer_ops *w = layers_wrapper(c->L);
	struct layer_ctx cc = *c;
	struct strv flags = {0};
	if (!w) {
		snprintf(err, errlen, "no wrapper layer is on");
		return -1;
	}
	if (layers_stage_flags(c->L, &flags) < 0) {
		strv_free(&flags);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	cc.stage_flags = &flags;
	int rc = w->wrap(&cc, argv, err, errlen);
	strv_free(&flags);
	return rc;
}

int layers_stage_flags(const struct sbx_layers *L, struct strv *out)
{
	int rc = 0;
	for (int l = 0; l < SBX_L__N; l++)
		if (sbx_layer_stage_ops[l] && sbx_layer_on(L, l))
			rc |= strv_add(out, sbx_layer_stage_ops[l]->flag);
	FOR_EACH_LAYER(l, o) /* the kernel layers' options: --netfilter, --report-files, --sensor */
		if (o->stage_options)
			rc |= o->stage_options(L, out);
	return rc;
}

bool layers_need_cgroup(const struct sbx_layers *L)
{
	FOR_EACH_LAYER(l, o)
		if (o->needs_cgroup && sbx_layer_on(L, l))
			return true;
	return false;
}

bool layers_want_report(const struct sbx_layers *L)
{
	FOR_EACH_LAYER(l, o)
		if (o->report_socket && sbx_layer_on(L, l))
			return true;
	return false;
}

bool layers_cgroup_limits(const struct sbx_layers *L)
{
	FOR_EACH_LAYER(l, o)
		if (o->cgroup_limits && sbx_layer_on(L, l))
			return true;
	return false;
}

void layers_net_walls(const struct layer_ctx *c, char *out, size_t outlen)
{
	size_t n = 0;
	if (outlen)
		out[0] = 0;
	for (unsigned rank = 1; rank <= SBX_L__N; rank++)
		FOR_EACH_LAYER(l, o) {
			if (!o->net_wall || o->net_wall_rank != rank || n >= outlen)
				continue;
			const char *st = o->net_wall_state ? o->net_wall_state(c) : NULL;
			if (!st)
				st = sbx_layer_on(c->L, l) ? "on" : "off";
			int k = snprintf(out + n, outlen - n, "%s%s: %s", n ? "; " : "", o->net_wall, st);
			n = k < 0 ? outlen : n + (size_t)k;
		}
}

const char *layers_lost(const struct layer_ctx *c, enum sbx_layer l)
{
	const struct layer_ops *o = sbx_layer_ops[l];
	const char *why = o->lost_for ? o->lost_for(c) : NULL;
	return why ? why : o->lost;
}

const char *layers_ld_library(const struct layer_ctx *c)
{
	FOR_EACH_LAYER(l, o)
		if (o->ld_library && sbx_layer_on(c->L, l))
			return o->ld_library(c);
	return NULL;
}

const char *layers_etc_view(const struct layer_ctx *c)
{
	return c->etc_view && layers_ld_library(c) ? c->etc_view : NULL;
}

unsigned layers_refuse_mask(const struct sbx_layers *L)
{
	unsigned m = 0;
	FOR_EACH_LAYER(l, o)
		if (o->refuse_lost && sbx_layer_on(L, l))
			m |= 1u << l;
	return m;
}

int layers_refuse_lost(const struct layer_ctx *c, unsigned was_on, const char *who, const char **code,
		       char *remedy, size_t remedylen)
{
	FOR_EACH_LAYER(l, o)
		if (o->refuse_lost && ((was_on >> l) & 1u) && !sbx_layer_on(c->L, l)) {
			*code = o->refuse_lost(c, who, remedy, remedylen);
			return l;
		}
	return -1;
}

/* The janitor's walks go from the last entry to the first: the probes' set before netfilter's,
 * whose sweep may wait for its set's lock while other runs use it (a killed run's probe set is
 * then released at once, as `probes status` shows). */
#define FOR_EACH_LAYER_REVERSE(l, o) \
	for (int l = SBX_L__N - 1; l >= 0; l--) \
		for (const struct layer_ops *o = sbx_layer_ops[l]; o; o = NULL)

void layers_expire_idle(unsigned on)
{
	FOR_EACH_LAYER_REVERSE(l, o)
		if (o->expire_idle)
			o->expire_idle((on >> l) & 1u);
}

void layers_hold(struct layer_rt *rt, layer_hold_said said, void *arg)
{
	char level[256], why[300];
	FOR_EACH_LAYER(l, o) {
		if (!o->hold || rt->st[l])
			continue;
		level[0] = why[0] = 0;
		void *st = NULL;
		bool held = o->hold(&st, level, sizeof level, why, sizeof why) == 0;
		rt->st[l] = held ? st : NULL;
		said(arg, o->name, held, held ? level : why);
	}
}

void layers_reclaim(void)
{
	FOR_EACH_LAYER_REVERSE(l, o)
		if (o->reclaim)
			o->reclaim();
}

void layers_start(const struct layer_ctx *c, struct layer_rt *rt)
{
	char why[256], level[256];
	FOR_EACH_LAYER(l, o) {
		if (!o->start || rt->st[l] || !sbx_layer_on(c->L, l))
			continue;
		why[0] = level[0] = 0;
		void *st = NULL;
		int rc = o->start(c, &st, level, sizeof level, why, sizeof why);
		pt_markf(c->pt, "setup.layer.%s", o->name);
		if (rc == 0) {
			rt->st[l] = st;
			if (level[0])
				sbx_layer_set_on(c->L, l, "%s", level);
			continue;
		}
		if (st && o->stop)
			o->stop(st);
		if (rc > 0)
			sbx_layer_set_moot(c->L, l, "%s", why[0] ? why : "not needed");
		else
			sbx_layer_set_off(c->L, l, "%s", why[0] ? why : "start failed");
	}
}

void layers_replan(const struct layer_ctx *c, struct layer_rt *rt)
{
	FOR_EACH_LAYER(l, o)
		if (o->replan && rt->st[l] && o->replan(c, rt->st[l]) < 0) {
			if (o->stop)
				o->stop(rt->st[l]);
			rt->st[l] = NULL;
			sbx_layer_set_off(c->L, l, "cannot follow the re-planned policy");
		}
}

int layers_spawned(const struct layer_ctx *c, struct layer_rt *rt)
{
	int rc = 0;
	char why[256];
	FOR_EACH_LAYER(l, o) {
		why[0] = 0;
		if (o->spawned && rt->st[l] && sbx_layer_on(c->L, l) && o->spawned(c, rt->st[l], why, sizeof why) < 0) {
			sbx_layer_set_off(c->L, l, "%s", why[0] ? why : "its set-up failed");
			sbx_msg("the %s layer failed after the sandbox was started (%s), which was set up for it "
				"on: the sandbox is made again without it", o->name, why[0] ? why : "its set-up failed");
			rc = -1;
		}
	}
	return rc;
}

int layers_child(const struct layer_ctx *c, struct layer_rt *rt)
{
	FOR_EACH_LAYER(l, o)
		if (o->child && sbx_layer_on(c->L, l) && o->child(c, rt->st[l]) < 0)
			return -1;
	return 0;
}

void layers_on_ready(const struct layer_ctx *c, struct layer_rt *rt, const char *status,
		     layer_status_get get, pid_t pid, int listener)
{
	char v[512], w[512], k[64];
	FOR_EACH_LAYER(l, o) {
		if (!sbx_layer_stage_ops[l] || !sbx_layer_on(c->L, l))
			continue;
		if (get(status, o->name, v, sizeof v) < 0) {
			sbx_layer_set_off(c->L, l, "the stage did not report it");
		} else if (!strcmp(v, "on")) {
			snprintf(k, sizeof k, "%s_level", o->name);
			if (get(status, k, w, sizeof w) < 0)
				w[0] = 0;
			if (w[0])
				sbx_layer_set_on(c->L, l, "%s", w);
		} else {
			snprintf(k, sizeof k, "%s_why", o->name);
			if (get(status, k, w, sizeof w) < 0)
				w[0] = 0;
			sbx_layer_set_off(c->L, l, "%s", w[0] ? w : "failed in the stage");
		}
	}
	FOR_EACH_LAYER(l, o) /* the sensor, the privilege guard, the denies' filter (seccomp's) */
		if (o->stage_said)
			o->stage_said(c, status, get);
	FOR_EACH_LAYER(l, o)
		if (o->on_ready)
			o->on_ready(c, &rt->st[l], status, pid, listener);
}

int layers_pollfds(const struct layer_rt *rt, struct pollfd *p, int max, int idx[SBX_L__N])
{
	int n = 0;
	FOR_EACH_LAYER(l, o) {
		idx[l] = -1;
		int fd = rt->st[l] && o->fd ? o->fd(rt->st[l]) : -1;
		if (fd >= 0 && n < max) {
			p[n] = (struct pollfd){.fd = fd, .events = POLLIN};
			idx[l] = n++;
		}
	}
	return n;
}

int layers_drain(struct layer_rt *rt, const struct pollfd *p, const int idx[SBX_L__N],
		 struct audit *a, bool final)
{
	int rc = 0;
	FOR_EACH_LAYER(l, o) {
		if (!rt->st[l] || !o->drain)
			continue;
		if (p && (idx[l] < 0 || !p[idx[l]].revents))
			continue;
		if (o->drain(rt->st[l], a, final) < 0 && a->failed)
			rc = -1;
	}
	return rc;
}

int layers_reap(struct layer_rt *rt, struct audit *a, pid_t pid, int status)
{
	FOR_EACH_LAYER(l, o) {
		if (!rt->st[l] || !o->reap)
			continue;
		int r = o->reap(rt->st[l], a, pid, status);
		if (r < 0)
			return -1;
		if (r > 0 && pid > 0)
			return 1;
	}
	return 0;
}

uint64_t layers_lost_events(const struct layer_rt *rt)
{
	uint64_t n = 0;
	FOR_EACH_LAYER(l, o)
		if (rt->st[l] && o->lost_events)
			n += o->lost_events(rt->st[l]);
	return n;
}

void layers_stop(struct layer_rt *rt, bool attempt_only)
{
	FOR_EACH_LAYER(l, o) {
		if (!rt->st[l] || (attempt_only && !o->per_attempt))
			continue;
		if (o->stop)
			o->stop(rt->st[l]);
		rt->st[l] = NULL;
	}
}
