/* layer_stage.c — the exec stage's table of the layers' stage ops and its walkers (layer.h). Apart
 * from layers.c, whose table names every op of every layer, so that the stage binary links only
 * what the stage runs: these ops and what they call (libc, libseccomp), not the supervisor's BPF,
 * JSON and audit code. */
#include "layer.h"

#include <string.h>

const struct layer_stage_ops *const sbx_layer_stage_ops[SBX_L__N] = {
	[SBX_L_PRELOAD] = &stage_preload,
	[SBX_L_SECCOMP] = &stage_seccomp,
	[SBX_L_LANDLOCK] = &stage_landlock,
};

/* the flags of the options, bit i at i (layer.h LAYER_STAGE_OPT_*) */
static const char *const stage_opt_flag[] = {"--netfilter", "--report-files", "--sensor", "--etc-view"};

unsigned layers_stage_option(const char *flag)
{
	for (unsigned i = 0; i < sizeof stage_opt_flag / sizeof *stage_opt_flag; i++)
		if (!strcmp(flag, stage_opt_flag[i]))
			return 1u << i;
	return 0;
}

const char *layers_stage_option_flag(unsigned opt)
{
	for (unsigned i = 0; i < sizeof stage_opt_flag / sizeof *stage_opt_flag; i++)
		if (opt == 1u << i)
			return stage_opt_flag[i];
	return NULL;
}

unsigned layers_stage_flag(const char *flag)
{
	for (int l = 0; l < SBX_L__N; l++)
		if (sbx_layer_stage_ops[l] && !strcmp(sbx_layer_stage_ops[l]->flag, flag))
			return 1u << l;
	return 0;
}

bool layers_stage_wants_policy(const struct layer_stage *s)
{
	if (s->sensor) /* the seccomp entry's report-only mode decides on the policy */
		return true;
	if (!s->keep_caps) /* the privilege guard's own filter too: abstract names, a manifest deny */
		return true;
	for (int l = 0; l < SBX_L__N; l++)
		if (sbx_layer_stage_ops[l] && sbx_layer_stage_ops[l]->policy && ((s->on >> l) & 1u))
			return true;
	return false;
}

int layers_stage(struct layer_stage *s, enum layer_stage_when when)
{
	for (int l = 0; l < SBX_L__N; l++) {
		const struct layer_stage_ops *o = sbx_layer_stage_ops[l];
		if (o && o->when == when && o->apply(s, (s->on >> l) & 1u) < 0)
			return -1;
	}
	return 0;
}
