/* plan.h — `sbxsup run --dry-run`: the plan of a run as one JSON document, nothing started.
 *
 * Promise: the plan prints from the same structures the run uses (struct sbx_layers, the bwrap
 * argv builder, the environment builder, the layer plans), so what it shows is what a run would do
 * on this host right now: layers {name: {want, active, why, level}}, the bwrap argv (the fd
 * numbers in it are placeholders: "<fd>"), the environment (names and values; dropped names only
 * listed), the seccomp, Landlock and netfilter plans, and the limits.
 */
#ifndef SBX_PLAN_H
#define SBX_PLAN_H

#include <cjson/cJSON.h>
#include "detect.h"
#include "layers.h"
#include "rlimits.h"
#include "manifest.h"
#include "policy.h"
#include "strv.h"

struct plan_in {
	const struct manifest *m;
	const struct policy *pol;
	const struct sbx_layers *L;
	const struct detect *d;
	const struct strv *env;
	const struct strv *dropped;
	const struct run_limits *lim;
	char **cmd;
};

cJSON *plan_build(const struct plan_in *in);

#endif
