/* detect.c — see detect.h. */
#include "detect.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bwrap_layer.h"
#include "landlock_layer.h"
#include "netfilter_layer.h"
#include "probes_layer.h"
#include "seccomp_layer.h"

static int usable_lib(const char *cand, char *path, size_t pathlen)
{
	char real[PATH_MAX];
	if (!realpath(cand, real) || access(real, R_OK) < 0)
		return -1;
	snprintf(path, pathlen, "%s", real);
	return 0;
}

int detect_preload(char *path, size_t pathlen, char *why, size_t whylen)
{
	const char *env = getenv("SBXSUP_PRELOAD_LIB");
	if (env && *env) {
		if (usable_lib(env, path, pathlen) == 0)
			return 0;
		snprintf(why, whylen, "SBXSUP_PRELOAD_LIB=%s is not a readable file", env);
		return -1;
	}
	char self[PATH_MAX], cand[PATH_MAX + 32];
	if (realpath("/proc/self/exe", self)) {
		char *slash = strrchr(self, '/');
		if (slash) {
			*slash = 0;
			snprintf(cand, sizeof cand, "%s/libsbxpreload.so", self);
			if (usable_lib(cand, path, pathlen) == 0)
				return 0;
			/* installed: PREFIX/bin/sbxsup finds PREFIX/lib/sbxsup whatever PREFIX was at build time */
			snprintf(cand, sizeof cand, "%s/../lib/sbxsup/libsbxpreload.so", self);
			if (usable_lib(cand, path, pathlen) == 0)
				return 0;
		}
	}
	snprintf(cand, sizeof cand, "%s/libsbxpreload.so", SBXSUP_LIBDIR);
	if (usable_lib(cand, path, pathlen) == 0)
		return 0;
	snprintf(why, whylen, "libsbxpreload.so not found (SBXSUP_PRELOAD_LIB, beside sbxsup, ../lib/sbxsup, %s)",
		 SBXSUP_LIBDIR);
	path[0] = 0;
	return -1;
}

static bool wanted(struct sbx_layers *L, enum sbx_layer l)
{
	if ((L->want >> l) & 1u)
		return true;
	sbx_layer_set_off(L, l, "not selected (--layers)");
	return false;
}

/* A kernel layer's state from its probe: on at `level`, else off with the probe's reason
 * ("unavailable" when the probe gave none: a layer is never off without a reason). */
static void set_probed(struct sbx_layers *L, enum sbx_layer l, bool ok, const char *level,
		       const char *why)
{
	if (ok)
		sbx_layer_set_on(L, l, "%s", level);
	else
		sbx_layer_set_off(L, l, "%s", why[0] ? why : "unavailable");
}

void detect_layers(struct sbx_layers *L, struct detect *d)
{
	char why[256], level[96];
	if (!realpath("/proc/self/exe", d->self))
		d->self[0] = 0;

	if (wanted(L, SBX_L_PRELOAD)) {
		if (detect_preload(d->preload, sizeof d->preload, why, sizeof why) == 0)
			sbx_layer_set_on(L, SBX_L_PRELOAD, "LD_PRELOAD");
		else
			sbx_layer_set_off(L, SBX_L_PRELOAD, "%s", why);
	}
	if (wanted(L, SBX_L_BWRAP)) {
		if (!d->self[0])
			sbx_layer_set_off(L, SBX_L_BWRAP, "cannot resolve /proc/self/exe");
		else if (bwrap_find(d->bwrap, sizeof d->bwrap, why, sizeof why) == 0)
			sbx_layer_set_on(L, SBX_L_BWRAP, "%s", d->bwrap);
		else
			sbx_layer_set_off(L, SBX_L_BWRAP, "%s", why);
	}
	if (wanted(L, SBX_L_SECCOMP)) {
		why[0] = level[0] = 0;
		bool ok = sbx_seccomp_probe(level, sizeof level, why, sizeof why) == 1;
		set_probed(L, SBX_L_SECCOMP, ok, level, why);
	}
	if (wanted(L, SBX_L_LANDLOCK)) {
		why[0] = 0;
		d->landlock_abi = sbx_landlock_probe(why, sizeof why);
		snprintf(level, sizeof level, "abi %d", d->landlock_abi);
		set_probed(L, SBX_L_LANDLOCK, d->landlock_abi > 0, level, why);
	}
	if (wanted(L, SBX_L_NETFILTER)) {
		why[0] = 0;
		bool ok = sbx_netfilter_probe(why, sizeof why) == 1;
		set_probed(L, SBX_L_NETFILTER, ok, "cgroup/connect4,6 sendmsg4,6", why);
	}
	if (wanted(L, SBX_L_PROBES)) {
		why[0] = level[0] = 0;
		bool ok = sbx_probes_probe(level, sizeof level, why, sizeof why) == 1;
		set_probed(L, SBX_L_PROBES, ok, level, why);
	}
	if (wanted(L, SBX_L_LIMITS))
		sbx_layer_set_on(L, SBX_L_LIMITS, "rlimit");
}
