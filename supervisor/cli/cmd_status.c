/* cmd_status.c — `sbxsup status [--json]`: which layers work on this host, by functional probe.
 *
 * Promise: walks the layer table (layer.h) with the functional probes — bwrap starts an actual
 * sandbox running `true` (status may start processes, `run` never does so on its good path);
 * seccomp, Landlock, netfilter, probes load and discard; limits reports which cgroup hierarchies we
 * can write — and every unavailable layer gets its reason and a remediation hint. JSON keys: bwrap_available,
 * bwrap_path, disabled_via_env, identity {ok, text} (the host identity runs would lend the executor,
 * or why a run would be refused), active (list of usable layers), layers {name: {available, level,
 * why, remediation}}, container (null outside one; else {detected, missing: [lines]}). Inside a
 * container (container_env.h) it also says what the container withholds and which setting gives it.
 * Exit 0 (the report itself is the result).
 */
#include <errno.h>
#include <fcntl.h>
#include <pwd.h>
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
#include "netns.h"
#include "layer.h"
#include "run_args.h"
#include "sandbox_direct.h"

static int print_status(const struct layer_probe *st, const char *bwrap, bool json);

/* Which host identity runs would get (sandbox_direct.h sd_probe: SBXSUP_USER, the system user
 * sbxsup, nobody; a normal user's own). False when a run would be refused (reason identity_unavailable). */
static bool identity_status(char *out, size_t len)
{
	struct sd_plan *p = calloc(1, sizeof *p);
	if (!p) {
		snprintf(out, len, "out of memory");
		return false;
	}
	bool ok = sd_probe(p, true, false, NULL) == 0;
	if (!ok) {
		snprintf(out, len, "%s: runs are refused (exit 125, reason identity_unavailable)", p->why);
	} else if (p->root) {
		struct passwd *pw = getpwuid(p->host_uid);
		const char *name = pw ? pw->pw_name : "?";
		snprintf(out, len, "the executor runs as host uid %u gid %u (%s)%s", (unsigned)p->host_uid,
			 (unsigned)p->host_gid, name,
			 getenv("SBXSUP_USER") && *getenv("SBXSUP_USER") ? ", SBXSUP_USER"
			 : strcmp(name, "sbxsup") ? ", shared with that user's other processes: `make install` "
						    "creates the dedicated system user sbxsup" : "");
	} else {
		snprintf(out, len, "the executor runs as your own uid %u gid %u", (unsigned)p->host_uid,
			 (unsigned)p->host_gid);
	}
	free(p);
	return ok;
}

/* Which network walls runs get (docs/network.md): the run's own namespace and its gateway where a
 * namespace can be made (bwrap, or the fallback's namespaces: sd_probe's mount namespace), else the
 * layers' address checks only; netfilter, the preload and Landlock as their lines say. */
static bool network_status(const struct layer_probe *st, char *out, size_t len)
{
	struct sd_plan *p = calloc(1, sizeof *p);
	bool ns = st[layer_bwrap.id].available || (p && sd_probe(p, true, false, NULL) == 0 && p->mnt);
	free(p);
	char nwhy[160] = "", nft[400] = "";
	if (ns && sbx_netns_nft_probe(nwhy, sizeof nwhy))
		snprintf(nft, sizeof nft, "; nftables redirect: every TCP port (an unrestricted network too)");
	else if (ns)
		snprintf(nft, sizeof nft, "; nftables redirect: no (%s): a listener per granted port (at most %d), an "
			 "unrestricted network shares the host's namespace", nwhy, SBX_NETNS_MAX_PORTS);
	snprintf(out, len, "%s%s; second wall: netfilter BPF %s; preload checks %s",
		 ns ? "own namespace per run, out only through the gateway (DNS stub, TCP by name, net.flow)"
		    : "no network namespace can be made: enforced by address only (preload, Landlock ports, netfilter)",
		 nft, st[layer_netfilter.id].available ? "yes" : "no", st[layer_preload.id].available ? "yes" : "no");
	return ns;
}

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
	char ident[400];
	bool ident_ok = identity_status(ident, sizeof ident);
	char cwhat[200];
	bool in_container = container_detect(cwhat, sizeof cwhat);
	char net[600];
	bool net_ok = network_status(st, net, sizeof net);

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
		cJSON *id = cJSON_AddObjectToObject(o, "identity");
		cJSON_AddBoolToObject(id, "ok", ident_ok);
		cJSON_AddStringToObject(id, "text", ident);
		cJSON *nw = cJSON_AddObjectToObject(o, "network");
		cJSON_AddBoolToObject(nw, "own_namespace", net_ok);
		cJSON_AddStringToObject(nw, "text", net);
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
	printf("  %-10s %-4s %s\n", "identity", ident_ok ? "yes" : "NO", ident);
	printf("  %-10s %-4s %s\n", "network", net_ok ? "yes" : "NO", net);
	if (in_container) {
		printf("  in a container (%s); it withholds:\n", cwhat);
		if (!container_missing(print_line, NULL))
			printf("    nothing the layers need\n");
		printf("  least-privilege settings per layer: docs/deployment.md\n");
	}
	return 0;
}
