/* cmd_status.c — `sbxsup status [--json]`: which layers work on this host, by functional probe.
 *
 * Promise: walks the layer table (layer.h) with the functional probes — bwrap starts an actual
 * sandbox running `true` (status may start processes, `run` never does so on its good path);
 * seccomp, Landlock, netfilter, probes load and discard; limits reports which cgroup hierarchies we
 * can write — and every unavailable layer gets its reason and a remediation hint. JSON keys: bwrap_available,
 * bwrap_path, disabled_via_env, active (list of usable layers), layers {name: {available, level,
 * why, remediation}}, container (null outside one; else {detected, missing: [lines]}). Inside a
 * container (container_env.h) it also says what the container withholds and which setting gives it.
 * Exit 0 (the report itself is the result).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "cgroup.h"
#include "cli_opt.h"
#include "container_env.h"
#include "cmd.h"
#include "layer.h"
#include "run_args.h"

static int print_status(const struct layer_probe *st, const char *bwrap, bool json);

static const char usage[] =
	"usage: sbxsup status [--json]\n"
	"Probe which layers work on this host (bwrap actually starts a sandbox) and how to fix the rest.\n";

int cmd_status(int argc, char **argv)
{
	static const struct option opts[] = {
		{"json", no_argument, NULL, 'j'}, {"help", no_argument, NULL, 'h'}, {NULL, 0, NULL, 0},
	};
	bool json = false;
	int c;
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+:h", opts, NULL)) != -1) {
		switch (c) {
		case 'j':
			json = true;
			break;
		case 'h':
			fputs(usage, stdout);
			return 0;
		default:
			cli_bad_option("status", argv, opts, c);
			fputs(usage, stderr);
			return SBX_EXIT_INTERNAL;
		}
	}
	if (optind < argc) {
		sbx_msg("status: unexpected argument '%s'", argv[optind]);
		fputs(usage, stderr);
		return SBX_EXIT_INTERNAL;
	}
	struct layer_probe *st = calloc(SBX_L__N, sizeof *st);
	struct detect *d = calloc(1, sizeof *d);
	if (!st || !d) {
		free(st);
		free(d);
		return SBX_EXIT_INTERNAL;
	}
	cg_describe(d->cgroups, sizeof d->cgroups);
	layers_probe_all(d, st);
	int rc = print_status(st, d->bwrap, json);
	free(st);
	free(d);
	return rc;
}

static void add_line(const char *line, void *ctx)
{
	cJSON_AddItemToArray(ctx, cJSON_CreateString(line));
}

static void print_line(const char *line, void *ctx)
{
	(void)ctx;
	printf("    - %s\n", line);
}

static int print_status(const struct layer_probe *st, const char *bwrap, bool json)
{
	bool disabled = run_env_false(getenv("SBXSUP_SANDBOX"));
	char cwhat[200];
	bool in_container = container_detect(cwhat, sizeof cwhat);

	if (json) {
		cJSON *o = cJSON_CreateObject();
		if (!o)
			return SBX_EXIT_INTERNAL;
		cJSON_AddBoolToObject(o, "bwrap_available", st[layer_bwrap.id].available);
		if (bwrap[0])
			cJSON_AddStringToObject(o, "bwrap_path", bwrap);
		else
			cJSON_AddNullToObject(o, "bwrap_path");
		cJSON_AddBoolToObject(o, "disabled_via_env", disabled);
		cJSON *act = cJSON_AddArrayToObject(o, "active");
		cJSON *layers = cJSON_AddObjectToObject(o, "layers");
		for (int l = 0; l < SBX_L__N; l++) {
			if (st[l].available && !disabled)
				cJSON_AddItemToArray(act, cJSON_CreateString(sbx_layer_name(l)));
			cJSON *x = cJSON_AddObjectToObject(layers, sbx_layer_name(l));
			cJSON_AddBoolToObject(x, "available", st[l].available);
			if (st[l].level[0])
				cJSON_AddStringToObject(x, "level", st[l].level);
			else
				cJSON_AddNullToObject(x, "level");
			if (st[l].available)
				cJSON_AddNullToObject(x, "why");
			else
				cJSON_AddStringToObject(x, "why", st[l].why[0] ? st[l].why : "unavailable");
			if (st[l].remedy[0])
				cJSON_AddStringToObject(x, "remediation", st[l].remedy);
			else
				cJSON_AddNullToObject(x, "remediation");
		}
		if (in_container) {
			cJSON *c = cJSON_AddObjectToObject(o, "container");
			cJSON_AddStringToObject(c, "detected", cwhat);
			container_missing(add_line, cJSON_AddArrayToObject(c, "missing"));
		} else {
			cJSON_AddNullToObject(o, "container");
		}
		char *s = cJSON_Print(o);
		cJSON_Delete(o);
		if (!s)
			return SBX_EXIT_INTERNAL;
		puts(s);
		free(s);
		return 0;
	}
	printf("sbxsup %s — layers on this host%s\n", SBXSUP_VERSION,
	       disabled ? " (SBXSUP_SANDBOX disables them all for runs)" : "");
	for (int l = 0; l < SBX_L__N; l++) {
		printf("  %-10s %-4s %s\n", sbx_layer_name(l), st[l].available ? "yes" : "NO",
		       st[l].available ? st[l].level : (st[l].why[0] ? st[l].why : "unavailable"));
		if (st[l].remedy[0])
			printf("  %-10s      fix: %s\n", "", st[l].remedy);
	}
	if (in_container) {
		printf("  in a container (%s); it withholds:\n", cwhat);
		if (!container_missing(print_line, NULL))
			printf("    nothing the layers need\n");
		printf("  least-privilege settings per layer: docs/deployment.md\n");
	}
	return 0;
}
