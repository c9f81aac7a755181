/* manifest.c — manifest JSON -> struct manifest (see manifest.h for the promise).
 *
 * The syntactic front end (bounds, UTF-8, line/column, duplicate keys) is manifest_json.c; hint
 * expansion is manifest_paths.c; hosts are manifest_hosts.c. This file walks the cJSON tree field by
 * field, records every semantic problem under its JSON path (it never stops at the first), and on
 * success applies the autonomy transform and the defaults. Unknown fields are errors wherever a
 * typo could silently weaken or widen the sandbox (top level, fs/network/code capability objects,
 * env, limits); objects of non-sandbox capability families are accepted as written.
 */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pwd.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "manifest_int.h"
#include "syspaths.h"
#include "quote.h"

const char manifest_default_json[] =
	"{\"sbxsup\":1,\"name\":\"default\",\"autonomy\":\"supervised\",\"capabilities\":[\"code:exec\"]}";

/* ---- parse state ---------------------------------------------------------------------------- */

struct ps {
	struct mf_errors *e;
	size_t nerr;                 /* problems found (stored or not) */
	const struct mf_ctx *ctx;
	struct manifest *m;
	char **anyhost;  size_t nanyhost;  /* jpaths of network caps without hosts */
};

static void perr(struct ps *s, const char *jpath, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void perr(struct ps *s, const char *jpath, const char *fmt, ...)
{
	char buf[900];
	va_list ap;
	va_start(ap, fmt);
	if (vsnprintf(buf, sizeof buf, fmt, ap) < 0)
		snprintf(buf, sizeof buf, "invalid");
	va_end(ap);
	s->nerr++;
	mf_err(s->e, "%s: %s", jpath, buf);
}

static const char *jtype(const cJSON *v)
{
	if (cJSON_IsString(v))
		return "a string";
	if (cJSON_IsNumber(v))
		return "a number";
	if (cJSON_IsObject(v))
		return "an object";
	if (cJSON_IsArray(v))
		return "an array";
	if (cJSON_IsBool(v))
		return "a boolean";
	return "null";
}

/* Append one zeroed element to a growable array (capacity doubles at powers of two). */
static void *push(struct ps *s, const char *jpath, void **arr, size_t *n, size_t sz)
{
	size_t cnt = *n;
	if (cnt == 0 || (cnt & (cnt - 1)) == 0) {
		size_t cap = cnt ? cnt * 2 : 4;
		void *na = realloc(*arr, cap * sz);
		if (!na) {
			perr(s, jpath, "out of memory");
			return NULL;
		}
		*arr = na;
	}
	void *el = (char *)*arr + cnt * sz;
	memset(el, 0, sz);
	*n = cnt + 1;
	return el;
}

static char *sdup(struct ps *s, const char *jpath, const char *str)
{
	char *d = strdup(str);
	if (!d)
		perr(s, jpath, "out of memory");
	return d;
}

static void q(const char *str, char out[128])
{
	mf_quote(str, out, 128);
}

/* ---- hints ---------------------------------------------------------------------------------- */

/* A deny glob written with a leading "**" component ("**" + "/.env") means "anywhere", so it is
 * anchored at "/" instead of the workspace (a wider deny). Grants stay workspace-relative (a
 * narrower grant): both choices err on the safe side. */
static void add_hint(struct ps *s, struct mf_hint **arr, size_t *n, const cJSON *v, const char *jp,
		     bool deny)
{
	char qs[128], abs[MF_PATH_MAX + 1];
	const char *why;
	if (!cJSON_IsString(v)) {
		perr(s, jp, "must be a path string, not %s", jtype(v));
		return;
	}
	const char *g = v->valuestring;
	bool anywhere = deny && g[0] == '*' && g[1] == '*' && (g[2] == '/' || g[2] == '\0');
	if (mf_expand(g, s->ctx->home, anywhere ? "/" : s->ctx->workspace, abs, sizeof abs, &why) < 0) {
		q(v->valuestring, qs);
		perr(s, jp, "\"%s\": %s", qs, why);
		return;
	}
	struct mf_hint *h = push(s, jp, (void **)arr, n, sizeof *h);
	if (!h)
		return;
	h->glob = sdup(s, jp, v->valuestring);
	h->abs = sdup(s, jp, abs);
	h->dir = mf_hint_dir(abs);
	h->jpath = sdup(s, jp, jp);
	if (!h->dir)
		perr(s, jp, "out of memory");
	else if (!deny && !strcmp(h->dir, "/")) {
		q(g, qs);
		mf_warnf(s->e, "%s: \"%s\": the directory-level layers (bwrap, Landlock) get the whole "
			 "file system (/) for it", jp, qs);
	}
}

/* A write grant must not reach what is never writable (syspaths.h): the policy core would
 * say ALLOWED where bwrap and Landlock refuse. */
static void check_write_hints(struct ps *s, const struct mf_hint *h, size_t from, size_t to)
{
	char qs[128], sp[256];
	for (size_t i = from; i < to; i++) {
		size_t k = h[i].abs ? sys_write_conflicts(h[i].abs, s->ctx->workspace, sp, sizeof sp) : 0;
		if (!k)
			continue;
		q(h[i].glob, qs);
		perr(s, h[i].jpath ? h[i].jpath : "capabilities", "\"%s\": fs:write would include %s, never "
		     "writable (the system paths and /etc: see sbxsup explain); grant the directories the "
		     "program writes instead", qs, sp);
	}
}

static void add_hint_list(struct ps *s, struct mf_hint **arr, size_t *n, const cJSON *hint,
			  const cJSON *hints, const char *cj)
{
	char jp[MF_JPATH_MAX];
	if (hint) {
		snprintf(jp, sizeof jp, "%s.hint", cj);
		add_hint(s, arr, n, hint, jp, false);
	}
	if (hints) {
		snprintf(jp, sizeof jp, "%s.hints", cj);
		if (!cJSON_IsArray(hints)) {
			perr(s, jp, "must be an array of path strings, not %s", jtype(hints));
			return;
		}
		if (!hints->child)
			perr(s, jp, "empty list");
		size_t i = 0;
		for (const cJSON *h = hints->child; h; h = h->next, i++) {
			snprintf(jp, sizeof jp, "%s.hints[%zu]", cj, i);
			add_hint(s, arr, n, h, jp, false);
		}
	}
}

/* ---- capabilities --------------------------------------------------------------------------- */

static const char *const net_modes[] = {"http", "https", "tcp", "udp", "dns", "any"};

static bool in_list(const char *v, const char *const *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v, list[i]))
			return true;
	return false;
}

static void add_net_mode(struct ps *s, const char *mode, const char *jp)
{
	for (size_t i = 0; i < s->m->nnet_modes; i++)
		if (!strcmp(s->m->net_modes[i], mode))
			return;
	char **slot = push(s, jp, (void **)&s->m->net_modes, &s->m->nnet_modes, sizeof *slot);
	if (slot)
		*slot = sdup(s, jp, mode);
}

/* HTTP rules of one host in object form: "methods" (HTTP method tokens) and "paths" (prefixes
 * starting with '/', no whitespace, no "." or ".." segment, no percent-encoded '.', '/' or '\\'). */
static void add_rule_list(struct ps *s, const cJSON *arr, const char *jp, bool paths, char ***out,
			  size_t *n)
{
	char ep[MF_JPATH_MAX], qs[128];
	if (!cJSON_IsArray(arr) || !arr->child) {
		perr(s, jp, "must be a non-empty array of strings");
		return;
	}
	size_t i = 0;
	for (const cJSON *v = arr->child; v; v = v->next, i++) {
		snprintf(ep, sizeof ep, "%s[%zu]", jp, i);
		if (!cJSON_IsString(v) || !v->valuestring[0]) {
			perr(s, ep, "must be a non-empty string");
			continue;
		}
		const char *t = v->valuestring;
		bool ok = true;
		if (!paths) {
			ok = strlen(t) < 16;
			for (const char *p = t; ok && *p; p++)
				ok = *p >= 'A' && *p <= 'Z';
			if (!ok) {
				q(t, qs);
				perr(s, ep, "\"%s\": an HTTP method is an upper-case token (GET, POST, ...)", qs);
				continue;
			}
		} else {
			ok = t[0] == '/' && strlen(t) < 1024;
			for (const char *p = t; ok && *p; p++)
				ok = (unsigned char)*p > 0x20 && *p != 0x7f && *p != '\\' && *p != '?' && *p != '#';
			ok = ok && !strstr(t, "/./") && !strstr(t, "/../") && !strcasestr(t, "%2e") &&
			     !strcasestr(t, "%2f") && !strcasestr(t, "%5c");
			size_t tl = strlen(t);
			ok = ok && !(tl >= 2 && !strcmp(t + tl - 2, "/.")) && !(tl >= 3 && !strcmp(t + tl - 3, "/.."));
			if (!ok) {
				q(t, qs);
				perr(s, ep, "\"%s\": a path prefix starts with '/' and holds no space, '\\', '?', '#', "
					    "\".\" or \"..\" segment or encoded '.', '/' or '\\'", qs);
				continue;
			}
		}
		char **slot = push(s, ep, (void **)out, n, sizeof *slot);
		if (slot)
			*slot = sdup(s, ep, t);
	}
}

static void add_hosts(struct ps *s, const cJSON *hosts, const char *cj, const char *mode)
{
	char jp[MF_JPATH_MAX], why[160], qs[128];
	snprintf(jp, sizeof jp, "%s.hosts", cj);
	if (!cJSON_IsArray(hosts)) {
		perr(s, jp, "must be an array of host strings, not %s", jtype(hosts));
		return;
	}
	if (!hosts->child)
		perr(s, jp, "empty list (leave \"hosts\" out to grant any host)");
	size_t i = 0;
	for (const cJSON *h = hosts->child; h; h = h->next, i++) {
		snprintf(jp, sizeof jp, "%s.hosts[%zu]", cj, i);
		const cJSON *hv = h, *methods = NULL, *paths = NULL;
		if (cJSON_IsObject(h)) {
			/* {"host": "api.example.com:80", "methods": [...], "paths": [...]} */
			for (const cJSON *k = h->child; k; k = k->next)
				if (strcmp(k->string, "host") && strcmp(k->string, "methods") &&
				    strcmp(k->string, "paths")) {
					char kp[MF_JPATH_MAX + 160];
					q(k->string, qs);
					snprintf(kp, sizeof kp, "%s.%s", jp, qs);
					perr(s, kp, "unknown field (expected host, methods, paths)");
				}
			hv = cJSON_GetObjectItemCaseSensitive(h, "host");
			methods = cJSON_GetObjectItemCaseSensitive(h, "methods");
			paths = cJSON_GetObjectItemCaseSensitive(h, "paths");
			if (!hv) {
				perr(s, jp, "a host object needs \"host\"");
				continue;
			}
			if (strcmp(mode, "http") && strcmp(mode, "any")) {
				perr(s, jp, "HTTP rules (methods, paths) apply to plain HTTP only: "
					    "use them on a network:http capability");
				continue;
			}
		}
		if (!cJSON_IsString(hv)) {
			perr(s, jp, "must be a host string, not %s", jtype(hv));
			continue;
		}
		struct mf_host tmp;
		if (mf_parse_host(hv->valuestring, &tmp, why, sizeof why) < 0) {
			q(hv->valuestring, qs);
			perr(s, jp, "\"%s\": %s", qs, why);
			continue;
		}
		if (!strcmp(mode, "udp") && tmp.port == 0) {
			/* the gateway has a UDP socket per granted port: "any port" cannot be carried */
			q(hv->valuestring, qs);
			perr(s, jp, "\"%s\": a UDP grant needs a port (host:port): the network gateway carries "
				    "UDP to single granted ports", qs);
			mf_host_clear(&tmp);
			continue;
		}
		struct mf_host *slot = push(s, jp, (void **)&s->m->hosts, &s->m->nhosts, sizeof *slot);
		if (!slot) {
			mf_host_clear(&tmp);
			continue;
		}
		*slot = tmp;
		slot->jpath = sdup(s, jp, jp);
		slot->mode = sdup(s, jp, mode);
		char rp[MF_JPATH_MAX + 16];
		if (methods) {
			snprintf(rp, sizeof rp, "%s.methods", jp);
			add_rule_list(s, methods, rp, false, &slot->methods, &slot->nmethods);
		}
		if (paths) {
			snprintf(rp, sizeof rp, "%s.paths", jp);
			add_rule_list(s, paths, rp, true, &slot->paths, &slot->npaths);
		}
	}
}

static const char *const cap_obj_keys[] = {"cap", "kind", "hint", "hints", "hosts"};

static void parse_cap(struct ps *s, const cJSON *c, size_t idx)
{
	char cj[64], jp[MF_JPATH_MAX], qs[128];
	snprintf(cj, sizeof cj, "capabilities[%zu]", idx);
	const char *capstr;
	const cJSON *hint = NULL, *hints = NULL, *hosts = NULL;
	char capjp[96];
	snprintf(capjp, sizeof capjp, "%s", cj);
	if (cJSON_IsString(c)) {
		capstr = c->valuestring;
	} else if (cJSON_IsObject(c)) {
		const cJSON *cap = cJSON_GetObjectItemCaseSensitive(c, "cap");
		const cJSON *kind = cJSON_GetObjectItemCaseSensitive(c, "kind");
		if (cap && kind) {
			perr(s, cj, "give \"cap\" or its alias \"kind\", not both");
			return;
		}
		if (!cap && !kind) {
			perr(s, cj, "missing \"cap\" (e.g. {\"cap\": \"fs:read\", \"hint\": \"~/notes/**\"})");
			return;
		}
		const cJSON *k = cap ? cap : kind;
		snprintf(capjp, sizeof capjp, "%s.%s", cj, cap ? "cap" : "kind");
		if (!cJSON_IsString(k)) {
			perr(s, capjp, "must be a string \"family:mode\", not %s", jtype(k));
			return;
		}
		capstr = k->valuestring;
		hint = cJSON_GetObjectItemCaseSensitive(c, "hint");
		hints = cJSON_GetObjectItemCaseSensitive(c, "hints");
		hosts = cJSON_GetObjectItemCaseSensitive(c, "hosts");
	} else {
		perr(s, cj, "must be a string \"family:mode\" or an object, not %s", jtype(c));
		return;
	}
	const char *colon = strchr(capstr, ':');
	if (!colon || colon == capstr || !colon[1] || strchr(colon + 1, ':') || strlen(capstr) > 128) {
		q(capstr, qs);
		perr(s, capjp, "\"%s\": expected \"family:mode\" (e.g. \"fs:read\", \"network:https\")", qs);
		return;
	}
	size_t fl = (size_t)(colon - capstr);
	const char *mode = colon + 1;
	bool fs = fl == 2 && !strncmp(capstr, "fs", 2);
	bool net = fl == 7 && !strncmp(capstr, "network", 7);
	bool code = fl == 4 && !strncmp(capstr, "code", 4);

	if (!fs && !net && !code) { /* another family: accepted, no effect */
		char **slot = push(s, cj, (void **)&s->m->ignored_caps, &s->m->nignored, sizeof *slot);
		if (slot)
			*slot = sdup(s, cj, capstr);
		q(capstr, qs);
		mf_warnf(s->e, "%s: \"%s\" is not a sandbox capability (accepted, no effect)", cj, qs);
		return;
	}
	if (cJSON_IsObject(c)) { /* known family: typo protection on the object's keys */
		for (const cJSON *k = c->child; k; k = k->next) {
			if (!in_list(k->string, cap_obj_keys, 5)) {
				q(k->string, qs);
				snprintf(jp, sizeof jp, "%s.%s", cj, qs);
				perr(s, jp, "unknown field (expected cap or kind, hint, hints, hosts)");
			}
		}
	}
	q(mode, qs);
	if (fs) {
		bool write = !strcmp(mode, "write");
		if (!write && strcmp(mode, "read")) {
			perr(s, capjp, "unknown mode \"%s\" for fs (expected fs:read or fs:write)", qs);
			return;
		}
		if (hosts) {
			snprintf(jp, sizeof jp, "%s.hosts", cj);
			perr(s, jp, "hosts on an fs capability (hosts belong to network capabilities)");
		}
		if (!hint && !hints) {
			/* Contract v2: "fs:read" without hints (Metnos manifests) is accepted and grants
			 * nothing beyond the built-in defaults. */
			mf_warnf(s->e, "%s: fs:%s without \"hint\"/\"hints\" grants nothing beyond the "
				 "defaults (write e.g. {\"cap\": \"fs:%s\", \"hints\": [\"./out\"]})",
				 cj, qs, qs);
			return;
		}
		if (write) {
			size_t before = s->m->nwrites;
			add_hint_list(s, &s->m->writes, &s->m->nwrites, hint, hints, cj);
			check_write_hints(s, s->m->writes, before, s->m->nwrites);
		} else {
			add_hint_list(s, &s->m->reads, &s->m->nreads, hint, hints, cj);
		}
	} else if (net) {
		if (!in_list(mode, net_modes, sizeof net_modes / sizeof net_modes[0])) {
			perr(s, capjp, "unknown mode \"%s\" for network (expected http, https, tcp, udp, dns, any)",
			     qs);
			return;
		}
		if (hint || hints) {
			snprintf(jp, sizeof jp, "%s.%s", cj, hint ? "hint" : "hints");
			perr(s, jp, "path hints on a network capability (use \"hosts\")");
		}
		s->m->net_granted = true;
		add_net_mode(s, mode, cj);
		if (hosts) {
			add_hosts(s, hosts, cj, mode);
		} else {
			char **slot = push(s, cj, (void **)&s->anyhost, &s->nanyhost, sizeof *slot);
			if (slot)
				*slot = sdup(s, cj, cj);
		}
	} else {
		if (strcmp(mode, "exec")) {
			perr(s, capjp, "unknown mode \"%s\" for code (expected code:exec)", qs);
			return;
		}
		if (hint || hints || hosts) {
			snprintf(jp, sizeof jp, "%s.%s", cj, hosts ? "hosts" : hint ? "hint" : "hints");
			perr(s, jp, "code:exec takes no hints or hosts");
		}
		s->m->code_exec = true;
	}
}

/* ---- env ------------------------------------------------------------------------------------ */

static bool env_name_ok(const char *n, bool glob)
{
	size_t l = strlen(n);
	if (l == 0 || l > 256 || (n[0] >= '0' && n[0] <= '9'))
		return false;
	for (const char *p = n; *p; p++) {
		char c = *p;
		bool ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_';
		if (!ok && !(glob && (c == '*' || c == '?')))
			return false;
	}
	return true;
}

/* Names the executor may never get from the manifest: they would steer the dynamic loader or
 * sbxsup's own plumbing inside the sandbox. */
static bool env_reserved(const char *n)
{
	return !strncmp(n, "LD_", 3) || !strncmp(n, "SBXSUP_", 7);
}

static void parse_env(struct ps *s, const cJSON *env)
{
	char jp[MF_JPATH_MAX], qs[128];
	if (!cJSON_IsObject(env)) {
		perr(s, "env", "must be an object {\"pass\": [...], \"set\": {...}}, not %s", jtype(env));
		return;
	}
	for (const cJSON *k = env->child; k; k = k->next) {
		q(k->string, qs);
		snprintf(jp, sizeof jp, "env.%s", qs);
		if (!strcmp(k->string, "pass")) {
			if (!cJSON_IsArray(k)) {
				perr(s, jp, "must be an array of names (globs allowed), not %s", jtype(k));
				continue;
			}
			size_t i = 0;
			for (const cJSON *v = k->child; v; v = v->next, i++) {
				snprintf(jp, sizeof jp, "env.pass[%zu]", i);
				if (!cJSON_IsString(v)) {
					perr(s, jp, "must be a string, not %s", jtype(v));
					continue;
				}
				q(v->valuestring, qs);
				if (!env_name_ok(v->valuestring, true)) {
					perr(s, jp, "\"%s\": not a variable name or name glob ([A-Za-z_][A-Za-z0-9_]*, "
					     "with * and ?)", qs);
					continue;
				}
				if (env_reserved(v->valuestring) && !strpbrk(v->valuestring, "*?")) {
					perr(s, jp, "\"%s\": reserved (LD_* and SBXSUP_* are never passed)", qs);
					continue;
				}
				char **slot = push(s, jp, (void **)&s->m->env_pass, &s->m->nenv_pass, sizeof *slot);
				if (slot)
					*slot = sdup(s, jp, v->valuestring);
			}
		} else if (!strcmp(k->string, "set")) {
			if (!cJSON_IsObject(k)) {
				perr(s, jp, "must be an object {\"NAME\": \"value\"}, not %s", jtype(k));
				continue;
			}
			for (const cJSON *v = k->child; v; v = v->next) {
				q(v->string, qs);
				snprintf(jp, sizeof jp, "env.set.%s", qs);
				if (!env_name_ok(v->string, false)) {
					perr(s, jp, "not a variable name ([A-Za-z_][A-Za-z0-9_]*)");
					continue;
				}
				if (env_reserved(v->string)) {
					perr(s, jp, "reserved (LD_* and SBXSUP_* cannot be set by a manifest)");
					continue;
				}
				if (!cJSON_IsString(v)) {
					perr(s, jp, "must be a string, not %s", jtype(v));
					continue;
				}
				struct mf_env_set *e = push(s, jp, (void **)&s->m->env_set, &s->m->nenv_set,
							    sizeof *e);
				if (e) {
					e->name = sdup(s, jp, v->string);
					e->value = sdup(s, jp, v->valuestring);
				}
			}
		} else {
			perr(s, jp, "unknown field (expected pass, set)");
		}
	}
}

/* ---- limits --------------------------------------------------------------------------------- */

static const struct {
	const char *name;
	size_t off;
	long min, max;
} limit_defs[] = {
	{"wall_s", offsetof(struct mf_limits, wall_s), 1, 7L * 24 * 3600},
	{"cpu_s", offsetof(struct mf_limits, cpu_s), 1, 7L * 24 * 3600},
	{"memory_mb", offsetof(struct mf_limits, memory_mb), 1, 1L << 22},   /* 4 TiB */
	{"pids", offsetof(struct mf_limits, pids), 1, 1L << 22},
	{"fsize_mb", offsetof(struct mf_limits, fsize_mb), 0, 1L << 24},     /* 16 TiB */
	{"nofile", offsetof(struct mf_limits, nofile), 1, 1L << 20},
	{"audit_mb", offsetof(struct mf_limits, audit_mb), 0, 1L << 20},     /* audit budget, 0 = none */
};
#define NLIMITS (sizeof limit_defs / sizeof limit_defs[0])

static void parse_limits(struct ps *s, const cJSON *lim)
{
	char jp[MF_JPATH_MAX], qs[128];
	if (!cJSON_IsObject(lim)) {
		perr(s, "limits", "must be an object {\"wall_s\": 30, ...}, not %s", jtype(lim));
		return;
	}
	for (const cJSON *k = lim->child; k; k = k->next) {
		q(k->string, qs);
		snprintf(jp, sizeof jp, "limits.%s", qs);
		size_t i;
		for (i = 0; i < NLIMITS; i++)
			if (!strcmp(k->string, limit_defs[i].name))
				break;
		if (i == NLIMITS) {
			perr(s, jp, "unknown limit (known: wall_s, cpu_s, memory_mb, pids, fsize_mb, nofile, audit_mb)");
			continue;
		}
		double d = k->valuedouble;
		if (!cJSON_IsNumber(k) || !isfinite(d) || d != floor(d) || d < 0) {
			perr(s, jp, "must be a non-negative integer, not %s",
			     cJSON_IsNumber(k) ? "a negative or fractional number" : jtype(k));
			continue;
		}
		if (d < (double)limit_defs[i].min || d > (double)limit_defs[i].max) {
			perr(s, jp, "%.0f is out of range (%ld to %ld)", d, limit_defs[i].min, limit_defs[i].max);
			continue;
		}
		*(long *)((char *)&s->m->limits + limit_defs[i].off) = (long)d;
	}
}

/* ---- top level ------------------------------------------------------------------------------ */

static const char *const top_keys[] = {"sbxsup", "name", "autonomy", "code_path",
				       "capabilities", "deny", "env", "limits", "workspace"};

/* "workspace": {"mode": "direct" | "shadow"} (docs/shadow.md) */
static void parse_workspace(struct ps *s, const cJSON *w)
{
	char qs[128];
	if (!cJSON_IsObject(w)) {
		perr(s, "workspace", "must be an object ({\"mode\": \"shadow\"}), not %s", jtype(w));
		return;
	}
	for (const cJSON *k = w->child; k; k = k->next)
		if (strcmp(k->string, "mode")) {
			char f[160];
			q(k->string, qs);
			snprintf(f, sizeof f, "workspace.%s", qs);
			perr(s, f, "unknown field (known: mode)");
		}
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(w, "mode");
	if (!v)
		return;
	if (!cJSON_IsString(v)) {
		perr(s, "workspace.mode", "must be a string, not %s", jtype(v));
	} else if (!strcmp(v->valuestring, "shadow")) {
		s->m->shadow = true;
	} else if (strcmp(v->valuestring, "direct")) {
		q(v->valuestring, qs);
		perr(s, "workspace.mode", "\"%s\": expected direct or shadow", qs);
	}
}

static bool name_ok(const char *n)
{
	size_t l = strlen(n);
	if (l < 1 || l > 64)
		return false;
	for (const char *p = n; *p; p++)
		if (!((*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') ||
		      *p == '.' || *p == '_' || *p == '-'))
			return false;
	return true;
}

static void parse_code_path(struct ps *s, const cJSON *v)
{
	char abs[MF_PATH_MAX + 1], qs[128];
	const char *why;
	if (!cJSON_IsString(v)) {
		perr(s, "code_path", "must be a path string, not %s", jtype(v));
		return;
	}
	q(v->valuestring, qs);
	if (strpbrk(v->valuestring, "*?")) {
		perr(s, "code_path", "\"%s\": must be a plain path, not a glob", qs);
		return;
	}
	if (mf_expand(v->valuestring, s->ctx->home, s->ctx->workspace, abs, sizeof abs, &why) < 0) {
		perr(s, "code_path", "\"%s\": %s", qs, why);
		return;
	}
	if (!strcmp(abs, "/")) {
		perr(s, "code_path", "\"%s\": must name a file, not /", qs);
		return;
	}
	s->m->code_path = sdup(s, "code_path", abs);
	char *slash = strrchr(abs, '/');
	if (slash == abs)
		slash[1] = '\0';
	else
		*slash = '\0';
	s->m->code_dir = sdup(s, "code_path", abs);
}

static void parse_top(struct ps *s, const cJSON *root)
{
	char qs[128];
	if (!cJSON_IsObject(root)) {
		perr(s, "(top level)", "the manifest must be a JSON object, not %s", jtype(root));
		return;
	}
	for (const cJSON *k = root->child; k; k = k->next) {
		if (!in_list(k->string, top_keys, sizeof top_keys / sizeof top_keys[0])) {
			q(k->string, qs);
			perr(s, qs, "unknown field (known: sbxsup, name, autonomy, code_path, capabilities, "
			     "deny, env, limits, workspace)");
		}
	}
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(root, "sbxsup");
	if (!v)
		perr(s, "sbxsup", "required field missing (the schema version: \"sbxsup\": 1)");
	else if (!cJSON_IsNumber(v))
		perr(s, "sbxsup", "must be the number 1, not %s", jtype(v));
	else if (v->valuedouble != 1.0)
		perr(s, "sbxsup", "unsupported schema version %g (this sbxsup reads version 1)", v->valuedouble);
	s->m->version = 1;

	v = cJSON_GetObjectItemCaseSensitive(root, "name");
	if (!v) {
		perr(s, "name", "required field missing");
	} else if (!cJSON_IsString(v)) {
		perr(s, "name", "must be a string, not %s", jtype(v));
	} else if (!name_ok(v->valuestring)) {
		q(v->valuestring, qs);
		perr(s, "name", "\"%s\": must be 1 to 64 characters of [A-Za-z0-9._-]", qs);
	} else {
		s->m->name = sdup(s, "name", v->valuestring);
	}

	s->m->autonomy = MF_AUTONOMY_SUPERVISED;
	v = cJSON_GetObjectItemCaseSensitive(root, "autonomy");
	if (v) {
		if (!cJSON_IsString(v)) {
			perr(s, "autonomy", "must be a string, not %s", jtype(v));
		} else if (!strcmp(v->valuestring, "readonly")) {
			s->m->autonomy = MF_AUTONOMY_READONLY;
		} else if (!strcmp(v->valuestring, "full")) {
			s->m->autonomy = MF_AUTONOMY_FULL;
		} else if (strcmp(v->valuestring, "supervised")) {
			q(v->valuestring, qs);
			perr(s, "autonomy", "\"%s\": expected readonly, supervised or full", qs);
		}
	}

	if ((v = cJSON_GetObjectItemCaseSensitive(root, "code_path")))
		parse_code_path(s, v);

	if ((v = cJSON_GetObjectItemCaseSensitive(root, "capabilities"))) {
		if (!cJSON_IsArray(v)) {
			perr(s, "capabilities", "must be an array, not %s", jtype(v));
		} else {
			size_t i = 0;
			for (const cJSON *c = v->child; c; c = c->next, i++)
				parse_cap(s, c, i);
		}
	}

	if ((v = cJSON_GetObjectItemCaseSensitive(root, "deny"))) {
		if (!cJSON_IsArray(v)) {
			perr(s, "deny", "must be an array of path globs, not %s", jtype(v));
		} else {
			char jp[64];
			size_t i = 0;
			for (const cJSON *c = v->child; c; c = c->next, i++) {
				snprintf(jp, sizeof jp, "deny[%zu]", i);
				add_hint(s, &s->m->denies, &s->m->ndenies, c, jp, true);
			}
		}
	}

	if ((v = cJSON_GetObjectItemCaseSensitive(root, "env")))
		parse_env(s, v);

	s->m->limits = (struct mf_limits){-1, -1, -1, -1, -1, -1, -1};
	if ((v = cJSON_GetObjectItemCaseSensitive(root, "limits")))
		parse_limits(s, v);
	if (s->m->limits.wall_s < 0)
		s->m->limits.wall_s = MF_DEFAULT_WALL_S;
	if ((v = cJSON_GetObjectItemCaseSensitive(root, "workspace")))
		parse_workspace(s, v);
	if (s->m->limits.nofile < 0)
		s->m->limits.nofile = MF_DEFAULT_NOFILE;
}

/* ---- autonomy ------------------------------------------------------------------------------- */

static void clear_network(struct manifest *m)
{
	for (size_t i = 0; i < m->nhosts; i++)
		mf_host_clear(&m->hosts[i]);
	free(m->hosts);
	m->hosts = NULL;
	m->nhosts = 0;
	for (size_t i = 0; i < m->nnet_modes; i++)
		free(m->net_modes[i]);
	free(m->net_modes);
	m->net_modes = NULL;
	m->nnet_modes = 0;
	m->net_granted = false;
	m->net_any = false;
}

static int apply_autonomy(struct ps *s)
{
	struct manifest *m = s->m;
	switch (m->autonomy) {
	case MF_AUTONOMY_READONLY:
		if (m->nwrites) {
			struct mf_hint *r = realloc(m->reads, (m->nreads + m->nwrites) * sizeof *r);
			if (!r) {
				perr(s, "autonomy", "out of memory");
				return -1;
			}
			memcpy(r + m->nreads, m->writes, m->nwrites * sizeof *r);
			m->reads = r;
			m->nreads += m->nwrites;
			free(m->writes);
			m->writes = NULL;
			m->nwrites = 0;
		}
		clear_network(m);
		break;
	case MF_AUTONOMY_FULL:
		m->net_granted = true;
		m->net_any = true;
		break;
	case MF_AUTONOMY_SUPERVISED:
		if (s->nanyhost)
			m->net_any = true;
		for (size_t i = 0; i < s->nanyhost; i++)
			mf_warnf(s->e, "%s: network capability without \"hosts\" grants any host", s->anyhost[i]);
		break;
	}
	return 0;
}

/* ---- entry points --------------------------------------------------------------------------- */

int manifest_parse(const char *buf, size_t len, const char *source, const struct mf_ctx *ctx,
		   struct manifest **out, struct mf_errors *errs)
{
	*out = NULL;
	if (!ctx || !ctx->workspace || ctx->workspace[0] != '/') {
		mf_err(errs, "internal error: no workspace context for the manifest");
		return -1;
	}
	cJSON *root = mf_json_parse(buf, len, errs);
	if (!root)
		return -1;
	struct manifest *m = calloc(1, sizeof *m);
	struct ps s = {.e = errs, .ctx = ctx, .m = m};
	if (!m) {
		cJSON_Delete(root);
		mf_err(errs, "out of memory");
		return -1;
	}
	parse_top(&s, root);
	cJSON_Delete(root);
	if (!s.nerr)
		apply_autonomy(&s);
	if (!s.nerr) {
		m->source = sdup(&s, "(manifest)", source ? source : "(manifest)");
		m->workspace = sdup(&s, "(manifest)", ctx->workspace);
		m->home = sdup(&s, "(manifest)", ctx->home ? ctx->home : "/");
		unsigned char h[crypto_hash_sha256_BYTES];
		crypto_hash_sha256(h, (const unsigned char *)buf, len);
		for (size_t i = 0; i < sizeof h; i++)
			snprintf(m->sha256_hex + 2 * i, 3, "%02x", h[i]);
	}
	for (size_t i = 0; i < s.nanyhost; i++)
		free(s.anyhost[i]);
	free(s.anyhost);
	if (s.nerr) {
		if (errs->n == 0 && errs->ndropped == 0)
			errs->ndropped = 1; /* never report failure without a trace */
		manifest_free(m);
		return -1;
	}
	*out = m;
	return 0;
}

int manifest_load(const char *path, const struct mf_ctx *ctx, struct manifest **out,
		  struct mf_errors *errs)
{
	*out = NULL;
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		mf_err(errs, "cannot open: %s", strerror(errno));
		return -1;
	}
	struct stat st;
	if (fstat(fd, &st) < 0) {
		mf_err(errs, "cannot stat: %s", strerror(errno));
		close(fd);
		return -1;
	}
	if (S_ISDIR(st.st_mode)) {
		mf_err(errs, "is a directory, not a manifest file");
		close(fd);
		return -1;
	}
	if (S_ISREG(st.st_mode) && st.st_size > (off_t)MF_MAX_BYTES) {
		mf_err(errs, "manifest is %lld bytes; the limit is %u bytes", (long long)st.st_size,
		       (unsigned)MF_MAX_BYTES);
		close(fd);
		return -1;
	}
	char *buf = malloc((size_t)MF_MAX_BYTES + 1);
	if (!buf) {
		mf_err(errs, "out of memory");
		close(fd);
		return -1;
	}
	size_t len = 0;
	while (len <= MF_MAX_BYTES) {
		ssize_t r = read(fd, buf + len, (size_t)MF_MAX_BYTES + 1 - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			mf_err(errs, "cannot read: %s", strerror(errno));
			free(buf);
			close(fd);
			return -1;
		}
		if (r == 0)
			break;
		len += (size_t)r;
	}
	close(fd);
	if (len > MF_MAX_BYTES) {
		mf_err(errs, "manifest is more than %u bytes (the limit)", (unsigned)MF_MAX_BYTES);
		free(buf);
		return -1;
	}
	int rc = manifest_parse(buf, len, path, ctx, out, errs);
	free(buf);
	return rc;
}

int manifest_load_default(const struct mf_ctx *ctx, struct manifest **out, struct mf_errors *errs)
{
	int rc = manifest_parse(manifest_default_json, strlen(manifest_default_json),
				"(built-in default)", ctx, out, errs);
	if (rc == 0)
		(*out)->is_default = true;
	return rc;
}

/* Real path when it exists (the kernel layers see resolved paths), else the lexical form. */
static int settle(const char *in, char *out, size_t outlen, bool must_exist, char *err, size_t el,
		  const char *what)
{
	char lex[MF_PATH_MAX + 1], cwd[MF_PATH_MAX + 1] = "/";
	if (in[0] != '/' && !getcwd(cwd, sizeof cwd)) {
		snprintf(err, el, "cannot get the current directory: %s", strerror(errno));
		return -1;
	}
	if (mf_normalize(cwd, in, lex, sizeof lex) < 0) {
		snprintf(err, el, "%s path too long", what);
		return -1;
	}
	char *rp = realpath(lex, NULL);
	if (!rp) {
		if (must_exist) {
			int e = errno;
			char q[SBX_Q_MAX];
			snprintf(err, el, "%s %s: %s", what, sbx_q(lex, q, sizeof q), strerror(e));
			return -1;
		}
		if (strlen(lex) >= outlen) {
			snprintf(err, el, "%s path too long", what);
			return -1;
		}
		memcpy(out, lex, strlen(lex) + 1);
		return 0;
	}
	if (strlen(rp) >= outlen) {
		free(rp);
		snprintf(err, el, "%s path too long", what);
		return -1;
	}
	strcpy(out, rp);
	free(rp);
	return 0;
}

int mf_ctx_init(struct mf_ctx *ctx, const char *workspace, char *err, size_t errlen)
{
	memset(ctx, 0, sizeof *ctx);
	ctx->uid = getuid();
	const char *home = getenv("HOME");
	if (!home || home[0] != '/') {
		struct passwd pw, *res = NULL;
		char pwbuf[4096];
		if (getpwuid_r(ctx->uid, &pw, pwbuf, sizeof pwbuf, &res) != 0 || !res || !pw.pw_dir ||
		    pw.pw_dir[0] != '/') {
			snprintf(err, errlen, "cannot determine the home directory (HOME unset and no passwd "
				 "entry for uid %u)", (unsigned)ctx->uid);
			return -1;
		}
		if (settle(pw.pw_dir, ctx->home_buf, sizeof ctx->home_buf, false, err, errlen, "home") < 0)
			return -1;
	} else if (settle(home, ctx->home_buf, sizeof ctx->home_buf, false, err, errlen, "home") < 0) {
		return -1;
	}
	ctx->home = ctx->home_buf;
	if (settle(workspace ? workspace : ".", ctx->workspace_buf, sizeof ctx->workspace_buf, true, err,
		   errlen, "workspace") < 0)
		return -1;
	struct stat st;
	if (stat(ctx->workspace_buf, &st) < 0 || !S_ISDIR(st.st_mode)) {
		char q[SBX_Q_MAX];
		snprintf(err, errlen, "workspace %s: not a directory", sbx_q(ctx->workspace_buf, q, sizeof q));
		return -1;
	}
	const char *never = mf_workspace_never(ctx->workspace_buf);
	if (never) {
		char q[SBX_Q_MAX];
		snprintf(err, errlen, "workspace is %s (%s); run from a project directory or give -w DIR",
			 sbx_q(ctx->workspace_buf, q, sizeof q), never);
		return -1;
	}
	ctx->workspace = ctx->workspace_buf;
	return 0;
}

const char *mf_workspace_never(const char *abs)
{
	if (!abs || !strcmp(abs, "/"))
		return "the whole file system would be writable";
	/* the sandbox's own private, empty directories: a workspace there would be hidden by them
	 * (bwrap) or shared with every other run and user of the host */
	if (!strcmp(abs, "/tmp") || !strcmp(abs, "/dev/shm") || !strcmp(abs, "/var/tmp"))
		return "every run gets a private one of its own";
	return NULL;
}

static void free_hints(struct mf_hint *h, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(h[i].glob);
		free(h[i].abs);
		free(h[i].dir);
		free(h[i].jpath);
	}
	free(h);
}

static void free_strv(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

void manifest_free(struct manifest *m)
{
	if (!m)
		return;
	free(m->name);
	free(m->code_path);
	free(m->code_dir);
	free_hints(m->reads, m->nreads);
	free_hints(m->writes, m->nwrites);
	free_hints(m->denies, m->ndenies);
	clear_network(m);
	free_strv(m->ignored_caps, m->nignored);
	free_strv(m->env_pass, m->nenv_pass);
	for (size_t i = 0; i < m->nenv_set; i++) {
		free(m->env_set[i].name);
		free(m->env_set[i].value);
	}
	free(m->env_set);
	free(m->source);
	free(m->workspace);
	free(m->home);
	free(m);
}
