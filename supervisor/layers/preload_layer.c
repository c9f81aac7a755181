/* preload_layer.c — the layer entry of the LD_PRELOAD libc filter (the library itself is
 * preload/): where the library is, whether the command can load it, and the variables that load
 * it. See preload_layer.h. */
#include "preload_layer.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sandbox_paths.h"
#include "elfcheck.h"
#include "layer.h"
#include "report.h"

static int usable_lib(const char *cand, char *path, size_t pathlen)
{
	char real[PATH_MAX];
	if (!realpath(cand, real) || access(real, R_OK) < 0)
		return -1;
	snprintf(path, pathlen, "%s", real);
	return 0;
}

int detect_preload(const char *sbxsup, char *path, size_t pathlen, char *why, size_t whylen)
{
	const char *env = getenv("SBXSUP_PRELOAD_LIB");
	if (env && *env) {
		if (usable_lib(env, path, pathlen) == 0)
			return 0;
		snprintf(why, whylen, "SBXSUP_PRELOAD_LIB=%s is not a readable file", env);
		return -1;
	}
	char self[PATH_MAX], cand[PATH_MAX + 32];
	if (realpath(sbxsup && *sbxsup ? sbxsup : "/proc/self/exe", self)) {
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

static void pl_probe(enum layer_depth depth, struct detect *d, struct layer_probe *out)
{
	out->available = detect_preload(d->self, d->preload, sizeof d->preload, out->why, sizeof out->why) == 0;
	if (out->available)
		snprintf(out->level, sizeof out->level, "%s", depth == LAYER_CHEAP ? "LD_PRELOAD" : d->preload);
	else
		snprintf(out->remedy, sizeof out->remedy,
			 "install sbxsup (make install) or set SBXSUP_PRELOAD_LIB to libsbxpreload.so");
}

/* A static or non-glibc command never loads the preload: say so instead of pretending. */
static int pl_admit(const struct layer_ctx *c, char *why, size_t whylen)
{
	struct sbx_elf_info *ei = calloc(1, sizeof *ei);
	if (!ei) {
		snprintf(why, whylen, "out of memory");
		return -1;
	}
	int rc = 0;
	if (sbx_elf_inspect_env(c->cmd[0], c->att->env ? strv_getenv(c->att->env, "PATH") : NULL, ei) == 0 &&
	    !ei->preload_ok) {
		snprintf(why, whylen, "%s", ei->why[0] ? ei->why : "the command cannot load it");
		rc = -1;
	}
	free(ei);
	return rc;
}

static int pl_env(const struct layer_ctx *c, struct strv *env)
{
	if (c->att->fixed_channel) /* /etc/ld.so.preload loads it; /run/sbxsup has the rest */
		return 0;
	int rc = strv_setenv(env, "LD_PRELOAD", layer_wrapped(c) ? SBX_RUN_PRELOAD : c->d->preload);
	if (c->att->report_sock)
		rc |= strv_setenv(env, SBX_ENV_REPORT_ADDR, layer_wrapped(c) ? SBX_RUN_REPORT : c->att->report_sock);
	return rc;
}

/* its part in the exec stage (layer.h; walked by layer_stage.c) */
const struct layer_stage_ops stage_preload = {
	.flag = "--preload",
	.apply = sbx_preload_stage,
	.when = LAYER_STAGE_AFTER_CAPS,
};

static const char *pl_ld_library(const struct layer_ctx *c)
{
	return c->d->preload;
}

/* The executor's identity cannot load the library the run was planned with: refused. */
static const char *pl_refuse_lost(const struct layer_ctx *c, const char *who, char *remedy,
				  size_t remedylen)
{
	char stage[256];
	snprintf(stage, sizeof stage, "%s", c->L->why[SBX_L_PRELOAD]);
	sbx_layer_set_off(c->L, SBX_L_PRELOAD, "the executor's identity (%s) cannot load %s: %s", who,
			  c->d->preload, stage);
	snprintf(remedy, remedylen, "make the library readable by that identity, or run without the "
		 "preload: --layers auto,-preload");
	return "preload_unavailable"; /* run/result.h */
}

const struct layer_ops layer_preload = {
	.id = SBX_L_PRELOAD,
	.name = "preload",
	.event = "preload.deny",
	.report_socket = true,
	.net_wall = "preload checks",
	.net_wall_rank = 2,
	.ld_library = pl_ld_library,
	.refuse_lost = pl_refuse_lost,
	.lost = "no libc-level filter: denied paths and hosts are neither refused early nor reported "
		"by the preload",
	.probe = pl_probe,
	.admit = pl_admit,
	.env = pl_env,
};
