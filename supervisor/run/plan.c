/* plan.c — see plan.h. */
#include "plan.h"

#include <string.h>

#include "bwrap_layer.h"
#include "landlock_layer.h"
#include "netfilter_layer.h"
#include "seccomp_layer.h"

static cJSON *strv_json(char *const *v)
{
	cJSON *a = cJSON_CreateArray();
	for (size_t i = 0; a && v && v[i]; i++)
		cJSON_AddItemToArray(a, cJSON_CreateString(v[i]));
	return a;
}

static void add_or_null(cJSON *o, const char *k, cJSON *v)
{
	if (v)
		cJSON_AddItemToObject(o, k, v);
	else
		cJSON_AddNullToObject(o, k);
}

cJSON *plan_build(const struct plan_in *in)
{
	cJSON *o = cJSON_CreateObject();
	if (!o)
		return NULL;
	cJSON_AddItemToObject(o, "argv", strv_json(in->cmd));
	cJSON *man = cJSON_AddObjectToObject(o, "manifest");
	cJSON_AddStringToObject(man, "path", in->m->source ? in->m->source : "");
	cJSON_AddStringToObject(man, "sha256", in->m->sha256_hex);
	cJSON_AddStringToObject(man, "name", in->m->name ? in->m->name : "");
	cJSON_AddStringToObject(o, "workspace", in->m->workspace ? in->m->workspace : "");

	cJSON *layers = cJSON_AddObjectToObject(o, "layers");
	for (int l = 0; l < SBX_L__N; l++) {
		cJSON *x = cJSON_AddObjectToObject(layers, sbx_layer_name(l));
		cJSON_AddBoolToObject(x, "want", (in->L->want >> l) & 1u);
		cJSON_AddBoolToObject(x, "require", (in->L->require >> l) & 1u);
		cJSON_AddBoolToObject(x, "active", sbx_layer_on(in->L, l));
		if (sbx_layer_on(in->L, l))
			cJSON_AddStringToObject(x, "level", in->L->level[l]);
		else
			cJSON_AddStringToObject(x, "why", in->L->why[l]);
	}

	cJSON *bw = cJSON_AddObjectToObject(o, "bwrap");
	if (sbx_layer_on(in->L, SBX_L_BWRAP) && in->pol) {
		struct strv argv = {0};
		char err[256];
		struct bwrap_in bi = {
			.bwrap = in->d->bwrap, .self_exe = in->d->self,
			.preload_lib = sbx_layer_on(in->L, SBX_L_PRELOAD) ? in->d->preload : NULL,
			.ldso_fd = -1, .workspace = in->m->workspace,
			.share_net = pol_net_mode(in->pol) != POL_NET_NONE, .env = in->env,
		};
		if (bwrap_argv(in->pol, &bi, &argv, err, sizeof err) == 0) {
			strv_addv(&argv, SBX_RUN_SBXSUP, "__stage", "--ctl-fd", "<fd>", NULL);
			if (sbx_layer_on(in->L, SBX_L_LANDLOCK))
				strv_add(&argv, "--landlock");
			if (sbx_layer_on(in->L, SBX_L_SECCOMP))
				strv_add(&argv, "--seccomp");
			strv_add(&argv, "--");
			for (size_t i = 0; in->cmd[i]; i++)
				strv_add(&argv, in->cmd[i]);
			cJSON_AddStringToObject(bw, "path", in->d->bwrap);
			cJSON_AddItemToObject(bw, "argv", strv_json(argv.v));
			if (bi.preload_lib)
				cJSON_AddStringToObject(bw, "ld_so_preload", SBX_RUN_PRELOAD);
		} else {
			cJSON_AddStringToObject(bw, "error", err);
		}
		strv_free(&argv);
	} else {
		cJSON_AddNullToObject(bw, "argv");
	}

	cJSON *env = cJSON_AddObjectToObject(o, "env");
	for (size_t i = 0; in->env && i < in->env->n; i++) {
		const char *e = in->env->v[i], *eq = strchr(e, '=');
		if (!eq)
			continue;
		char name[256];
		size_t n = (size_t)(eq - e) < sizeof name - 1 ? (size_t)(eq - e) : sizeof name - 1;
		memcpy(name, e, n);
		name[n] = 0;
		cJSON_AddStringToObject(env, name, eq + 1);
	}
	cJSON_AddItemToObject(o, "env_dropped", strv_json(in->dropped ? in->dropped->v : NULL));

	add_or_null(o, "seccomp", sbx_seccomp_plan());
	add_or_null(o, "landlock", in->pol ? sbx_landlock_plan(in->pol, in->d->landlock_abi) : NULL);
	add_or_null(o, "netfilter", in->pol ? sbx_netfilter_plan(in->pol) : NULL);
	add_or_null(o, "limits", limits_plan(in->lim));
	return o;
}
