/* plan.h — the plan of a run: what it will do, computed without side effects, and its --dry-run
 * JSON.
 *
 * Promise: planning is pure — plan_names() picks the names of what the set-up will create (the
 * private tmp dir of the direct mode, the report socket's dir; random suffixes, nothing created),
 * plan_policy() compiles the policy for the mode (wrapped in bwrap or direct), plan_env() builds
 * the executor's environment; none of them touches the host. plan_attempt_env() is the one builder
 * of the environment an attempt hands to the command (the run's variables, then each layer's), and
 * the bwrap layer's `wrap` the one builder of the bwrap argv: --dry-run (plan_json) prints from
 * these same builders, with LAYER_FD_PLACEHOLDER / LAYER_RUN_PLACEHOLDER where an attempt puts a
 * descriptor number or the run id. Keys: argv, manifest, workspace, layers {name: {want, require,
 * active, level|why}}, env, env_dropped, then one section per layer with a plan (bwrap, seccomp,
 * landlock, netfilter, limits).
 * Ownership: a struct run_plan owns its blob and its vectors (plan_free).
 */
#ifndef SBX_PLAN_H
#define SBX_PLAN_H

#include "deny_expand.h"
#include "grant_link.h"
#include <stdbool.h>
#include <cjson/cJSON.h>
#include "layer.h"
#include "manifest.h"
#include "policy.h"
#include "strv.h"

struct run_plan {
	bool wrapped;              /* the stage runs inside the wrapper layer (bwrap): the one owner of
				    * this flag, set by each (re-)plan; the layer context (layer_ctx.wrapped)
				    * and the attempt read it */
	const char *cmd;           /* the command named after "--" (always readable + executable) */
	void *blob;                /* the compiled policy */
	size_t bloblen;
	const struct policy *pol;  /* view of blob */
	struct sbx_grant_links links; /* its directory table's grants through links (grant_link.h) */
	struct dx_result deny_walk; /* the start-up walk for the manifest's denies (deny_expand.h) */
	char tmpdir[80];           /* direct mode: the private tmp dir to create, "" when none */
	bool tmp_ns;               /* direct mode: tmpdir is bound at /tmp in the run's mount ns */
	bool no_pidns;             /* direct mode: the run's namespaces could not be made after all (it
				    * sees the host's /proc): no builtin:proc-pidns, whatever tmp_ns says */
	bool no_netns;             /* direct mode: no network namespace could be made after all: the
				    * host's loopback is not the run's (plan_own_netns false) */
	bool no_mntns;             /* direct mode: no mount namespace could be made after all: the
				    * environment is the preload's channel (layer_attempt.fixed_channel) */
	char repdir[80];           /* the report socket's private dir (0700) to create, "" when none */
	char repsock[108];         /* repdir + "/report", "" when none */
	char etclow[96];           /* bwrap + preload, the /etc view (etc_view.h): repdir + "/etclow",
				    * holding ld.so.preload, and repdir + "/etcview", where the child
				    * mounts the view bwrap binds at /etc; both "" when not viewed so */
	char etcview[96];
	char stagedir[96];         /* bwrap as root: repdir + "/stage", where the child stages the write
				    * grants' idmapped mounts (sandbox_direct.h sd_bwrap_child); "" none */
	uint16_t proxy_port;       /* pol_gateway: the gateway's HTTP proxy on the run's 127.0.0.1 (the
				    * first of 3128.. that no grant names), 0 none */
	int nft;                   /* an unrestricted network: nftables can redirect in a namespace like
				    * the run's (sbx_netns_nft_probe): 1 yes, -1 no (nft_why), 0 not probed */
	char nft_why[200];
	struct strv env;           /* the executor's environment, before the attempt's variables */
	struct strv dropped;       /* secret-shaped names dropped from it */
};

/* Names for the dirs the set-up will create: the report socket's dir (want_report: with the
 * socket; want_stage: with the stage dir, bwrap as root) and, direct mode, the private tmp dir
 * ("/tmp/sbxsup-<pid>-<6 random>"). Existing names are kept. 0 or -1. */
int plan_names(struct run_plan *p, bool want_report, bool want_stage, bool direct);
/* The one decision whether the run gets a network namespace of its own (docs/network.md): bwrap
 * (bwrap_layer.h share_net), direct mode (sandbox_direct.h netns) and the policy's own-netns flag
 * (pol_own_netns: loopback and abstract unix names belong to the run) all follow it. True with bwrap
 * or direct mode's namespaces, unless no namespace could be made after all, for every network
 * grant the gateway serves (none, a host list, and an unrestricted network where nftables can
 * redirect every port to the gateway: p->nft > 0); otherwise an unrestricted network stays the
 * host's. */
bool plan_own_netns(const struct run_plan *p, const struct manifest *m);
/* Whether the run needs nftables' redirect to every port (p->nft is probed for it): an unrestricted
 * network, or a host granted without a port. */
bool plan_wants_nft(const struct manifest *m);
/* Compile the policy for p->wrapped. 0, or -1 (err). */
int plan_policy(struct run_plan *p, const struct manifest *m, const struct detect *d, char *err,
		size_t errlen);
/* The executor's environment (SBXSUP_SANDBOX=0: the caller's, unchanged). 0 or -1 (memory). */
int plan_env(struct run_plan *p, const struct manifest *m, char *const *caller_env, bool disabled);
/* The environment of one attempt: p->env, then SBXSUP_POLICY_FD / SBXSUP_REPORT_FD / SBXSUP_RUN
 * (fd < 0 and run NULL print placeholders), then each active layer's variables, then (pol_gateway)
 * HTTP_PROXY, HTTPS_PROXY, http_proxy, https_proxy = http://127.0.0.1:proxy_port and NO_PROXY,
 * no_proxy = localhost,127.0.0.1,::1. With
 * c->att->fixed_channel none of sbxsup's variables (the preload reads /run/sbxsup). 0 or -1. */
int plan_attempt_env(const struct run_plan *p, const struct layer_ctx *c, int pol_fd, int rep_fd,
		     const char *run, bool disabled, struct strv *out);
/* --dry-run: c->att->env must be the attempt environment (plan_attempt_env with placeholders). */
cJSON *plan_json(const struct layer_ctx *c, const struct manifest *m, const struct strv *dropped);
void plan_free(struct run_plan *p);

#endif
