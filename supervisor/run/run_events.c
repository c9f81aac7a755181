/* run_events.c — what a run records in the audit stream (run.start, env.drop, limit.hit, run.end)
 * and what it says on stderr about its layers (refusals, one warning per layer that is off). An
 * event that cannot be written marks the run failed: it fails closed (exit 125). See run_int.h. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "grant_link.h"
#include "msg.h"
#include "procids.h"
#include "quote.h"
#include "run_int.h"

static long elapsed_ms(const struct timespec *t0)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - t0->tv_sec) * 1000 + (t.tv_nsec - t0->tv_nsec) / 1000000;
}

static const char *autonomy_name(enum mf_autonomy a)
{
	return a == MF_AUTONOMY_READONLY ? "readonly" : a == MF_AUTONOMY_FULL ? "full" : "supervised";
}

/* Emit; on failure the run fails closed. */
static int emit(struct run *r, cJSON *ev)
{
	if (!ev || audit_emit(&r->a, ev) < 0) {
		if (!r->audit_failed)
			sbx_msg("audit stream write failed: stopping the run (fail closed)");
		r->audit_failed = true;
		return -1;
	}
	return 0;
}

/* ---- run.start / run.end ------------------------------------------------------------------- */

/* The grants no layer follows because their path leads through a link to an object the policy
 * does not grant (grant_link.h): "PATH -> OBJECT; ...", names quoted; "" when none. */
static void grant_links(const struct run *r, char *out, size_t outlen)
{
	out[0] = 0;
	if (r->o.disabled || !r->plan.pol)
		return;
	for (size_t i = 0, n = pol_dir_count(r->plan.pol); i < n; i++) {
		struct pol_dir d;
		char q1[SBX_Q_MAX], q2[SBX_Q_MAX];
		if (sbx_grant_links_followed(&r->plan.links, i) || pol_dir_get(r->plan.pol, i, &d) < 0 || !d.path)
			continue;
		size_t l = strlen(out);
		snprintf(out + l, outlen - l, "%s%s -> %s", l ? "; " : "", sbx_q(d.path, q1, sizeof q1),
			 sbx_q(sbx_grant_links_real(&r->plan.links, i), q2, sizeof q2));
	}
}

int run_emit_start(struct run *r)
{
	cJSON *ev = audit_event(&r->a, "run.start", "kernel");
	if (!ev)
		return emit(r, NULL);
	cJSON *argv = cJSON_AddArrayToObject(ev, "argv");
	for (size_t i = 0; r->o.cmd[i]; i++)
		cJSON_AddItemToArray(argv, cJSON_CreateString(r->o.cmd[i]));
	cJSON *man = cJSON_AddObjectToObject(ev, "manifest");
	audit_add_str(man, "path", r->m->source ? r->m->source : "", 4096);
	cJSON_AddStringToObject(man, "sha256", r->m->sha256_hex);
	cJSON_AddNumberToObject(ev, "uid", getuid());
	cJSON *layers = cJSON_AddObjectToObject(ev, "layers");
	cJSON *why = cJSON_AddObjectToObject(ev, "why");
	cJSON *level = cJSON_AddObjectToObject(ev, "level");
	for (int l = 0; l < SBX_L__N; l++) {
		bool on = sbx_layer_on(&r->L, l);
		cJSON_AddBoolToObject(layers, sbx_layer_name(l), on);
		if (on)
			audit_add_str(level, sbx_layer_name(l), r->L.level[l], 256);
		else
			audit_add_str(why, sbx_layer_name(l), r->L.why[l], 256);
	}
	char sensor[200];
	sbx_sensor_level(&r->L, sensor, sizeof sensor);
	audit_add_str(level, "sensor", sensor, sizeof sensor);
	sbx_privguard_level(&r->L, sensor, sizeof sensor);
	audit_add_str(level, "privilege", sensor, sizeof sensor);
	if (r->L.denies[0]) { /* a manifest deny, and a stage that said who holds it */
		sbx_deny_level(&r->L, sensor, sizeof sensor);
		audit_add_str(level, "deny", sensor, sizeof sensor);
	}
	char links[1024];
	grant_links(r, links, sizeof links);
	if (links[0]) {
		char t[1200];
		snprintf(t, sizeof t, "not followed (a link to what the manifest does not grant): %s", links);
		audit_add_str(level, "grants", t, sizeof t);
	}
	sd_level(&r->sd, level, r->plan.wrapped, pol_own_netns(r->plan.pol), r->o.disabled);
	run_shadow_level(r, level);
	run_net_level(r, level);
	cJSON_AddStringToObject(ev, "autonomy", autonomy_name(r->m->autonomy));
	audit_add_str(ev, "workspace", r->m->workspace ? r->m->workspace : "", 4096);
	if (r->o.tag)
		audit_add_str(ev, "tag", r->o.tag, 256);
	if (r->warm.state == 1) /* the call was released into a sandbox prepared before it (sbxsup serve) */
		cJSON_AddBoolToObject(ev, "warm", true);
	if (emit(r, ev) < 0)
		return -1;
	r->started = true;
	for (size_t i = 0; i < r->plan.dropped.n; i++) {
		cJSON *d = audit_event(&r->a, "env.drop", "kernel");
		if (!d)
			return emit(r, NULL);
		audit_add_str(d, "name", r->plan.dropped.v[i], 256);
		if (emit(r, d) < 0)
			return -1;
	}
	return 0;
}

static int emit_limit(struct run *r, const char *limit, long value)
{
	cJSON *ev = audit_event(&r->a, "limit.hit", "kernel");
	if (!ev)
		return emit(r, NULL);
	cJSON_AddStringToObject(ev, "limit", limit);
	cJSON_AddNumberToObject(ev, "value", (double)value);
	return emit(r, ev);
}

int run_emit_end(struct run *r, int code, int sig)
{
	cJSON *ev = audit_event(&r->a, "run.end", "kernel");
	if (!ev)
		return emit(r, NULL);
	cJSON_AddNumberToObject(ev, "exit", code);
	cJSON_AddNumberToObject(ev, "signal", sig);
	cJSON_AddNumberToObject(ev, "duration_ms", (double)elapsed_ms(&r->t0));
	cJSON *counts = audit_counts(&r->a);
	if (counts)
		cJSON_AddItemToObject(ev, "counts", counts);
	cJSON_AddNumberToObject(ev, "lost", (double)layers_lost_events(&r->lrt));
	const struct report_rx *rx = &r->att.rx;
	if (rx->dropped)
		cJSON_AddNumberToObject(ev, "preload_dropped", (double)rx->dropped);
	if (rx->suppressed)
		cJSON_AddNumberToObject(ev, "preload_suppressed", (double)rx->suppressed);
	if (rx->rejected)
		cJSON_AddNumberToObject(ev, "preload_rejected", (double)rx->rejected);
	if (r->shadow.sum)
		cJSON_AddItemToObject(ev, "shadow", cJSON_Duplicate(r->shadow.sum, 1));
	return emit(r, ev);
}

/* ---- layer bookkeeping ----------------------------------------------------------------------- */

/* The executor's host uid is 0 (or would be): once the stage is ready, its uid as its "ready"
 * carried it and any of its uids in /proc/PID/status (both as sbxsup's namespaces see them, outside
 * the run's); before, SBXSUP_SANDBOX=0 as root (the one mode that runs it as the invoker). */
bool run_executor_root(const struct run *r)
{
	if (r->att.ready && r->att.stage_pid > 0) {
		struct sbx_proc_ids id;
		int got = sbx_proc_ids(r->att.stage_pid, &id);
		/* unreadable (a nested run whose procfs Landlock narrows): the credentials alone; neither
		 * known: assume the worst */
		bool unread = got < 0 && errno != EINVAL;
		bool root = r->att.stage_uid == 0 || (unread && r->att.stage_uid == (uid_t)-1);
		if (got == 0)
			root |= !id.uid[0] || !id.uid[1] || !id.uid[2] || !id.uid[3];
		return root;
	}
	return r->o.disabled && geteuid() == 0;
}

/* Print one line per missing required layer, and one for an executor that is or would be host
 * uid 0 (whatever is required; accepted by SBXSUP_SANDBOX=0 or SBXSUP_ALLOW_ROOT_EXECUTOR=1 unless
 * --require identity); true when the run must be refused (reason: layer_required, or
 * identity_unavailable). */
bool run_require_missing(struct run *r)
{
	unsigned miss = r->L.require & ~r->L.active & SBX_L_ALL;
	for (int l = 0; l < SBX_L__N; l++)
		if ((miss >> l) & 1u)
			sbx_msg("required layer '%s' is not active: %s (refusing to run)", sbx_layer_name(l),
				r->L.why[l][0] ? r->L.why[l] : "unavailable");
	/* never host root: only an explicit SBXSUP_SANDBOX=0 or SBXSUP_ALLOW_ROOT_EXECUTOR=1 runs the
	 * executor as root, and not under --require identity */
	bool accepted = r->o.disabled || sd_root_accepted();
	if ((!accepted || (r->L.require & SBX_REQ_IDENTITY)) && run_executor_root(r)) {
		const char *why = r->o.disabled ? "SBXSUP_SANDBOX=0" : r->sd.identity[0] ? r->sd.identity
				  : r->sd.why[0] ? r->sd.why : "no unprivileged identity could be set up";
		if (r->L.require & SBX_REQ_IDENTITY)
			sbx_msg("required: identity: the executor would run as host uid 0 (%s) (refusing to run)", why);
		else
			sbx_msg("the executor would run as host uid 0 (%s): refusing to run (accept it with "
				"SBXSUP_ALLOW_ROOT_EXECUTOR=1)", why);
		if (!miss)
			run_reason(r, SBX_REASON_IDENTITY, "the executor would run as host uid 0 (%s)", why);
		return true;
	}
	return miss != 0;
}

bool run_layer_lost_refused(struct run *r, unsigned was_on)
{
	if (!was_on || r->o.disabled)
		return false;
	char who[200], remedy[200] = "";
	if (r->sd.identity[0]) /* direct mode (sd_spawn); bwrap mode: its --uid/--gid */
		snprintf(who, sizeof who, "%.*s", (int)strcspn(r->sd.identity, ";"), r->sd.identity);
	else
		snprintf(who, sizeof who, "uid %u gid %u (bwrap)", (unsigned)r->lc.uid, (unsigned)r->lc.gid);
	const char *code = NULL;
	int l = layers_refuse_lost(&r->lc, was_on, who, &code, remedy, sizeof remedy);
	if (l < 0)
		return false;
	sbx_msg("%s unavailable: %s (refusing to run: %s)", sbx_layer_name(l), r->L.why[l], remedy);
	run_reason(r, code, "%s unavailable: %s", sbx_layer_name(l), r->L.why[l]);
	return true;
}

/* One line per layer that is off and had something to enforce, saying what is lost — also a layer
 * left out by --layers (issue 13: "one warning per missing layer"; the line says "not selected").
 * bwrap's keeps its established form ("running without bwrap (why); active layers: ..."). */
void run_warn_off(const struct run *r)
{
	if (r->o.disabled) {
		sbx_msg("warning: SBXSUP_SANDBOX disables every layer: the command runs unconfined");
		return;
	}
	if (sbx_sensor_missing(&r->L)) {
		char sensor[200];
		sbx_sensor_level(&r->L, sensor, sizeof sensor);
		sbx_msg("warning: report-only sensor %s: with neither seccomp nor the probes on, what bwrap, "
			"Landlock, the limits and the executor's identity refuse is not reported", sensor);
	}
	if (!strcmp(r->L.denies, "none")) {
		char deny[200];
		sbx_deny_level(&r->L, deny, sizeof deny);
		sbx_msg("warning: manifest deny held %s", deny);
	}
	char links[1024];
	grant_links(r, links, sizeof links);
	if (links[0])
		sbx_msg("warning: granted path leads through a link to what the manifest does not grant; "
			"no layer follows it: %s", links);
	unsigned off = ((1u << SBX_L__N) - 1) & ~r->L.active & ~r->L.moot;
	for (int l = 0; l < SBX_L__N; l++) {
		if (!((off >> l) & 1u))
			continue;
		const struct layer_ops *o = sbx_layer_ops[l];
		if (!o->wrap) {
			sbx_msg("warning: %s off%s: %s", o->name, (r->L.want >> l) & 1u ? "" : " (not selected)",
				layers_lost(&r->lc, l));
			continue;
		}
		char act[160] = "";
		for (int k = 0; k < SBX_L__N; k++)
			if (sbx_layer_on(&r->L, k)) {
				size_t n = strlen(act);
				snprintf(act + n, sizeof act - n, "%s%s", n ? "," : "", sbx_layer_name(k));
			}
		/* the fallback may have made namespaces of its own: say which, not "no namespaces" */
		char lost[400];
		if (r->att.pidns && r->sd.ns[0] && strcmp(r->sd.ns, "none"))
			snprintf(lost, sizeof lost, "the fallback's own namespaces: %s; no private mount tree: the "
				 "executor sees the host's filesystem%s (only the other layers stand in the way)",
				 r->sd.ns, strstr(r->sd.ns, "net") ? "" : " and network");
		else
			snprintf(lost, sizeof lost, "%s", o->lost);
		sbx_msg("warning: running without %s (%s); active layers: %s; %s", o->name, r->L.why[l],
			act[0] ? act : "none", lost);
	}
}

int run_limit_events(struct run *r, int sig)
{
	int rc = 0;
	struct cg_events ev;
	cg_events(&r->cg, &ev);
	if (r->att.timed_out)
		rc |= emit_limit(r, "wall_s", r->lim.wall_s);
	if (sig == SIGXCPU)
		rc |= emit_limit(r, "cpu_s", r->lim.cpu_s);
	if (sig == SIGXFSZ)
		rc |= emit_limit(r, "fsize_mb", r->lim.fsize_mb);
	if (ev.oom_kill)
		rc |= emit_limit(r, "memory_mb", r->lim.memory_mb);
	if (ev.pids_max)
		rc |= emit_limit(r, "pids", r->lim.pids);
	return rc;
}
