/* plan.c — see plan.h. */
#include "plan.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "sandbox_paths.h"
#include "env.h"
#include "policy_build.h"
#include "msg.h"
#include "report.h"

static int pick_name(char *out, size_t outlen)
{
	static const char al[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
	unsigned char rnd[6];
	if (getrandom(rnd, sizeof rnd, 0) != (ssize_t)sizeof rnd)
		return -1;
	char sfx[7];
	for (size_t i = 0; i < 6; i++)
		sfx[i] = al[rnd[i] % (sizeof al - 1)];
	sfx[6] = 0;
	snprintf(out, outlen, "/tmp/sbxsup-%d-%s", (int)getpid(), sfx);
	return 0;
}

int plan_names(struct run_plan *p, bool want_report, bool want_stage, bool direct)
{
	if ((want_report || want_stage) && !p->repdir[0] && pick_name(p->repdir, sizeof p->repdir) < 0)
		return -1;
	if (!want_report && !want_stage)
		p->repdir[0] = 0; /* no preload, or its socket could not be made */
	p->repsock[0] = p->stagedir[0] = 0;
	if (want_report)
		snprintf(p->repsock, sizeof p->repsock, "%s/report", p->repdir);
	if (want_stage)
		snprintf(p->stagedir, sizeof p->stagedir, "%s/stage", p->repdir);
	if (direct && !p->tmpdir[0] && pick_name(p->tmpdir, sizeof p->tmpdir) < 0)
		return -1;
	return 0;
}

bool plan_wants_nft(const struct manifest *m)
{
	if (!m->net_granted)
		return false;
	bool portless = m->net_any;
	for (size_t i = 0; i < m->nhosts; i++)
		portless |= m->hosts[i].port == 0;
	return portless;
}

bool plan_own_netns(const struct run_plan *p, const struct manifest *m)
{
	if (!(p->wrapped || p->tmp_ns) || p->no_netns)
		return false;
	/* a host list, or any host where nftables redirects: through the gateway (docs/network.md) */
	return !m->net_granted || !m->net_any || p->nft > 0;
}

/* The policy for the mode: bwrap gives the sandbox a private /tmp; the direct mode gets the
 * private per-run dir as its tmp. The preload's own connect to the report socket is a write of it,
 * and the preload library and sbxsup are readable where the executor sees them (the host paths,
 * and where bwrap or direct mode's fixed channel binds them under /run/sbxsup). */
int plan_policy(struct run_plan *p, const struct manifest *m, const struct detect *d, char *err,
		size_t errlen)
{
	const char *wextra[3] = {NULL, NULL, NULL};
	size_t nw = 0;
	if (p->repsock[0]) {
		wextra[nw++] = p->repsock;
		if (p->wrapped || p->tmp_ns)
			wextra[nw++] = SBX_RUN_REPORT;
	}
	const char *extra[6] = {NULL, NULL, NULL, NULL, NULL, NULL};
	size_t ne = 0;
	if (d->preload[0])
		extra[ne++] = d->preload;
	if (d->self[0])
		extra[ne++] = d->self;
	if (p->wrapped) { /* where bwrap binds them inside the sandbox */
		extra[ne++] = SBX_RUN_PRELOAD;
		extra[ne++] = SBX_RUN_SBXSUP;
	}
	if ((p->wrapped || p->tmp_ns) && p->repsock[0]) { /* the preload's fixed channel */
		extra[ne++] = SBX_RUN_POLICY;
		if (!p->wrapped) /* direct mode binds the library there too (sd_fixed.h) */
			extra[ne++] = SBX_RUN_PRELOAD;
	}
	const char *tmp = !p->wrapped && p->tmpdir[0] && !p->tmp_ns ? p->tmpdir : "/tmp";
	free(p->blob);
	p->blob = NULL;
	p->pol = NULL;
	sbx_grant_links_free(&p->links);
	char cmdpath[PATH_MAX] = ""; /* the command is always readable + executable (policy_build.h) */
	if (p->cmd)
		(void)pol_command_path(p->cmd, getenv("PATH"), cmdpath, sizeof cmdpath);
	struct pol_build_opts bo = {.resolve = true, .uid = getuid(), .extra_read = extra,
				    .extra_write = wextra, .tmp_dir = tmp, .command = cmdpath,
				    .private_root = p->wrapped, .stage_exe = p->wrapped && d->stage[0] ? d->stage
						       : d->self[0] ? d->self : NULL,
				    /* bwrap --unshare-net, or direct mode's netns beside its mount ns */
				    .own_netns = plan_own_netns(p, m),
				    /* nftables sends every TCP port to the gateway (run_net.c) */
				    .gw_every_port = plan_own_netns(p, m) && p->nft > 0,
				    /* bwrap --unshare-pid --proc, or direct mode's procfs of its pid ns */
				    .own_pidns = p->wrapped || (p->tmp_ns && !p->no_pidns),
				    /* the denies' existing matches, for bwrap's masks and Landlock */
				    .deny_walk = &p->deny_walk};
	if (pol_build(m, &bo, &p->blob, &p->bloblen, err, errlen) < 0) {
		if (!err[0])
			snprintf(err, errlen, "cannot compile the policy: unknown error");
		return -1;
	}
	if (p->deny_walk.truncated)
		sbx_msg("warning: deny: %s", p->deny_walk.note);
	const char *why = "";
	if (!(p->pol = pol_open(p->blob, p->bloblen, &why))) {
		snprintf(err, errlen, "compiled policy is invalid: %s", why);
		return -1;
	}
	if (sbx_grant_links_scan(p->pol, &p->links) < 0) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	p->proxy_port = 0;
	for (uint16_t port = 3128; pol_gateway(p->pol) && !p->proxy_port && port < 3200; port++) {
		bool granted = false;
		for (size_t i = 0; i < m->nhosts; i++)
			granted |= m->hosts[i].port == port;
		if (!granted)
			p->proxy_port = port;
	}
	return 0;
}

int plan_env(struct run_plan *p, const struct manifest *m, char *const *caller_env, bool disabled)
{
	strv_free(&p->env);
	strv_free(&p->dropped);
	if (disabled) {
		for (size_t i = 0; caller_env && caller_env[i]; i++)
			if (strv_add(&p->env, caller_env[i]) < 0)
				return -1;
		return 0;
	}
	if (env_build(m, caller_env, &p->env, &p->dropped) < 0)
		return -1;
	if (!p->wrapped && p->tmpdir[0] && env_set(&p->env, "TMPDIR", p->tmpdir) < 0)
		return -1;
	return env_filter_path(&p->env, p->pol);
}

int plan_attempt_env(const struct run_plan *p, const struct layer_ctx *c, int pol_fd, int rep_fd,
		     const char *run, bool disabled, struct strv *out)
{
	for (size_t i = 0; i < p->env.n; i++)
		if (strv_add(out, p->env.v[i]) < 0)
			return -1;
	if (disabled)
		return 0;
	char v[32];
	int rc = 0;
	if (!c->att->fixed_channel) { /* fixed: the preload's channel is /run/sbxsup, nothing of ours here */
		snprintf(v, sizeof v, "%d", pol_fd);
		rc |= env_set(out, SBX_ENV_POLICY_FD, pol_fd >= 0 ? v : LAYER_FD_PLACEHOLDER);
		snprintf(v, sizeof v, "%d", rep_fd);
		rc |= env_set(out, SBX_ENV_REPORT_FD, rep_fd >= 0 ? v : LAYER_FD_PLACEHOLDER);
		rc |= env_set(out, SBX_ENV_RUN, run ? run : LAYER_RUN_PLACEHOLDER);
	}
	rc |= layers_env(c, out);
	if (pol_gateway(p->pol) && p->proxy_port) { /* the gateway's proxy, for tools that prefer one */
		snprintf(v, sizeof v, "http://127.0.0.1:%u", p->proxy_port);
		static const char *const names[] = {"HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"};
		for (size_t i = 0; i < 4; i++)
			rc |= env_set(out, names[i], v);
		rc |= env_set(out, "NO_PROXY", "localhost,127.0.0.1,::1") | env_set(out, "no_proxy", "localhost,127.0.0.1,::1");
	}
#if defined(__SANITIZE_ADDRESS__)
	/* ASan builds only: the instrumented stage starts behind /etc/ld.so.preload; it removes
	 * these two before exec'ing the command. */
	if (layer_wrapped(c))
		rc |= env_set(out, "ASAN_OPTIONS", "verify_asan_link_order=0:detect_leaks=0") |
		      env_set(out, "SBXSUP_ASAN_STAGE", "1");
#endif
	return rc;
}

static cJSON *strv_json(char *const *v)
{
	cJSON *a = cJSON_CreateArray();
	for (size_t i = 0; a && v && v[i]; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(v[i]));
	return a;
}

cJSON *plan_json(const struct layer_ctx *c, const struct manifest *m, const struct strv *dropped)
{
	cJSON *o = cJSON_CreateObject();
	if (!o)
		return NULL;
	cJSON_AddItemToObject(o, "argv", strv_json(c->cmd));
	cJSON *man = cJSON_AddObjectToObject(o, "manifest");
	cJSON_AddStringToObject(man, "path", m->source ? m->source : "");
	cJSON_AddStringToObject(man, "sha256", m->sha256_hex);
	cJSON_AddStringToObject(man, "name", m->name ? m->name : "");
	cJSON_AddStringToObject(o, "workspace", m->workspace ? m->workspace : "");

	cJSON *layers = cJSON_AddObjectToObject(o, "layers");
	for (int l = 0; l < SBX_L__N; l++) {
		cJSON *x = cJSON_AddObjectToObject(layers, sbx_layer_name(l));
		cJSON_AddBoolToObject(x, "want", (c->L->want >> l) & 1u);
		cJSON_AddBoolToObject(x, "require", (c->L->require >> l) & 1u);
		cJSON_AddBoolToObject(x, "active", sbx_layer_on(c->L, l));
		if (sbx_layer_on(c->L, l))
			cJSON_AddStringToObject(x, "level", c->L->level[l]);
		else
			cJSON_AddStringToObject(x, "why", c->L->why[l]);
	}

	/* the report-only sensor (a mode of the seccomp entry): started with the stage when wanted */
	char sensor[200];
	layers_sensor_plan(c->L, sensor, sizeof sensor);
	cJSON_AddStringToObject(o, "sensor", sensor);

	cJSON *env = cJSON_AddObjectToObject(o, "env");
	for (size_t i = 0; c->att->env && i < c->att->env->n; i++) {
		const char *e = c->att->env->v[i], *eq = strchr(e, '=');
		if (!eq)
			continue;
		char name[256];
		size_t n = (size_t)(eq - e) < sizeof name - 1 ? (size_t)(eq - e) : sizeof name - 1;
		memcpy(name, e, n);
		name[n] = 0;
		cJSON_AddStringToObject(env, name, eq + 1);
	}
	cJSON_AddItemToObject(o, "env_dropped", strv_json(dropped ? dropped->v : NULL));
	layers_plan(c, o);
	return o;
}

void plan_free(struct run_plan *p)
{
	free(p->blob);
	p->blob = NULL;
	p->pol = NULL;
	sbx_grant_links_free(&p->links);
	strv_free(&p->env);
	strv_free(&p->dropped);
}
