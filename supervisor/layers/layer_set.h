/* layer_set.h — the seven layers of the SPEC by name, and the run's bookkeeping of them: which are
 * wanted, required, active, and why not.
 *
 * Promise: one bookkeeping struct per run. A layer is active only after it was actually put in
 * place (not when merely requested); every inactive layer has a reason, and `moot` marks one that
 * is off only because it has nothing to enforce for this policy (no protection is lost).
 * run.start.layers/why and --dry-run print from this struct, so they cannot disagree. The enum
 * indexes the one table of layers (layer.h); only that table and its walkers use it.
 */
#ifndef SBX_LAYER_SET_H
#define SBX_LAYER_SET_H

#include <stdbool.h>
#include <stddef.h>

enum sbx_layer {
	SBX_L_PRELOAD = 0, SBX_L_BWRAP, SBX_L_SECCOMP, SBX_L_LANDLOCK, SBX_L_NETFILTER, SBX_L_PROBES,
	SBX_L_LIMITS, SBX_L__N
};
#define SBX_L_ALL ((1u << SBX_L__N) - 1u)
/* Not a layer: in a --require mask only ("identity"), the executor is never host uid 0. */
#define SBX_REQ_IDENTITY (1u << SBX_L__N)

struct sbx_layers {
	unsigned want;                 /* bit per layer: requested (--layers, default auto = all) */
	unsigned require;              /* bit per layer: --require / SBXSUP_REQUIRE */
	unsigned active;               /* bit per layer: actually in place */
	unsigned moot;                 /* bit per layer: off because not needed (nothing lost) */
	char why[SBX_L__N][256];       /* reason when not active */
	char level[SBX_L__N][96];      /* detected level when active: "abi 7", "notify", "tp_btf", ... */
	/* The report-only sensor (a mode of the seccomp entry, layer.h `sensor`): not a layer — it refuses
	 * nothing — but what reports the silent layers' refusals when neither seccomp nor the probes
	 * are on. */
	bool sensor_off;               /* reporting turned off: --sensor off, SBXSUP_SANDBOX=0 */
	char sensor[160];              /* "" not asked; "on", or "off (why)" as the stage said / why off */
	char privguard[16];            /* the privilege guard as the stage said: "notify", "errno", ""
					* (not reported: SBXSUP_SANDBOX=0, or no stage yet) */
	char denies[16];               /* which filter holds the manifest's denies below libc, as the
					* stage said: "seccomp" (the layer), "sensor" (the report-only
					* sensor's filter), "guard" (the privilege guard's), "none" (no
					* user notification); "" (no deny, or no stage yet) */
};

const char *sbx_layer_name(enum sbx_layer l);       /* "preload", "bwrap", ... */
/* Parse "auto", "all", "none" or a comma list of names into a mask ("identity" is SBX_REQ_IDENTITY,
 * which only a --require list may hold: the caller refuses it in a --layers list; "all" is the
 * layers only). Returns 0 or -1 (err set). */
int sbx_layer_parse(const char *list, unsigned *mask, char *err, size_t errlen);
/* A layer list as bwrap/systemd-run users expect (`--layers`, `--require`, the library's
 * sbx_opts_set_layers): names, "auto", "all", "none", comma-separated, "+name"/"-name" add to or
 * remove from what comes before ("-probes" alone: auto minus probes). Returns 0 or -1 (err set). */
int sbx_layer_list_parse(const char *list, unsigned *mask, char *err, size_t errlen);
void sbx_layer_set_off(struct sbx_layers *s, enum sbx_layer l, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void sbx_layer_set_on(struct sbx_layers *s, enum sbx_layer l, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Off because the policy gives it nothing to enforce (e.g. netfilter with unrestricted network). */
void sbx_layer_set_moot(struct sbx_layers *s, enum sbx_layer l, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* run.start.level.sensor: which sensor reports for this run ("seccomp-notify (report-only)",
 * "not needed: seccomp and probes report", "off (why)"). */
void sbx_sensor_level(const struct sbx_layers *L, char *out, size_t outlen);
/* run.start.level.privilege: how the privilege guard stands (README, Policy semantics). */
void sbx_privguard_level(const struct sbx_layers *L, char *out, size_t outlen);
/* run.start.level.deny (a manifest with a deny): which layer holds a deny, for files that exist
 * at start and files created later. */
void sbx_deny_level(const struct sbx_layers *L, char *out, size_t outlen);
/* True when the sensor was wanted for this run and is not on (to be warned about). */
bool sbx_sensor_missing(const struct sbx_layers *L);
static inline bool sbx_layer_on(const struct sbx_layers *s, enum sbx_layer l)
{
	return (s->active >> l) & 1u;
}

#endif
