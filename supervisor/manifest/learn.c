/* learn.c — see learn.h. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "learn.h"
#include "policy.h"
#include "policy_build.h"
#include "quote.h"
#include "syspaths.h"

const char *learn_kind_name(enum learn_kind k)
{
	switch (k) {
	case LEARN_READ:  return "fs:read";
	case LEARN_WRITE: return "fs:write";
	case LEARN_EXEC:  return "code:exec";
	case LEARN_HOST:  return "network:tcp";
	case LEARN_DNS:   return "network:dns";
	}
	return "?";
}

static const char *jstr(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
	return cJSON_IsString(v) ? v->valuestring : NULL;
}

static long jnum(const cJSON *o, const char *k)
{
	const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, k);
	return cJSON_IsNumber(v) ? (long)v->valuedouble : -1;
}

static struct learn_item *find(struct learn *l, enum learn_kind k, const char *obj)
{
	for (size_t i = 0; i < l->n; i++)
		if (l->v[i].kind == k && ((!obj && !l->v[i].object) ||
					  (obj && l->v[i].object && !strcmp(obj, l->v[i].object))))
			return &l->v[i];
	return NULL;
}

/* Record (kind, obj) with its evidence; `path`: the literal path obj stands for; `refused`: why it
 * is never proposed (NULL: learn_apply decides). 1 new, 0 known, -1 ENOMEM. */
static int add_path(struct learn *l, enum learn_kind k, const char *obj, const char *path, const cJSON *ev,
		    const char *what, const char *refused)
{
	struct learn_item *it = find(l, k, obj);
	if (it) {
		it->count++;
		return 0;
	}
	if (l->n == l->cap) {
		size_t nc = l->cap ? 2 * l->cap : 16;
		struct learn_item *nv = realloc(l->v, nc * sizeof *nv);
		if (!nv)
			return -1;
		l->v = nv;
		l->cap = nc;
	}
	char evid[512];
	snprintf(evid, sizeof evid, "%s %s (%s, pid %ld %s)", jstr(ev, "op") ? jstr(ev, "op") :
		 jstr(ev, "syscall") ? jstr(ev, "syscall") : jstr(ev, "event"), what,
		 jstr(ev, "event"), jnum(ev, "pid"), jstr(ev, "comm") ? jstr(ev, "comm") : "?");
	it = &l->v[l->n];
	*it = (struct learn_item){.kind = k, .count = 1};
	it->object = obj ? strdup(obj) : NULL;
	it->path = path ? strdup(path) : NULL;
	it->refused = refused ? strdup(refused) : NULL;
	it->evidence = strdup(evid);
	if ((obj && !it->object) || (path && !it->path) || (refused && !it->refused) || !it->evidence) {
		free(it->object);
		free(it->path);
		free(it->refused);
		free(it->evidence);
		return -1;
	}
	l->n++;
	return 1;
}

static int add(struct learn *l, enum learn_kind k, const char *obj, const cJSON *ev, const char *what)
{
	return add_path(l, k, obj, NULL, ev, what, NULL);
}

/* A hint for `hint` (a literal path, "./rel" or absolute) that matches only it. */
static int add_literal(struct learn *l, enum learn_kind k, const char *hint, const cJSON *ev, const char *what,
		       const char *refused)
{
	char glob[8200];
	if (pol_glob_escape(hint, glob, sizeof glob) < 0)
		return 0; /* longer than any grant can be: nothing to propose */
	return add_path(l, k, glob, hint, ev, what, refused);
}

/* The path as the real host sees it, and the hint to propose for it ("./rel" inside the copy). */
static void map_path(const struct learn *l, const char *path, char *real, size_t rl, char *hint, size_t hl)
{
	size_t cl = l->copy ? strlen(l->copy) : 0;
	if (cl && !strncmp(path, l->copy, cl) && (path[cl] == '/' || !path[cl])) {
		snprintf(real, rl, "%s%s", l->real_ws, path + cl);
		snprintf(hint, hl, ".%s", path[cl] ? path + cl : "/");
	} else {
		snprintf(real, rl, "%s", path);
		snprintf(hint, hl, "%s", path);
	}
}

static int note_path(struct learn *l, const cJSON *ev, const char *path, const char *access, const char *rule)
{
	char real[4096], hint[4096];
	struct stat st;
	map_path(l, path, real, sizeof real, hint, sizeof hint);
	if (rule && !strcmp(rule, "no code:exec capability"))
		return add(l, LEARN_EXEC, NULL, ev, path);
	if (access && !strcmp(access, "write")) {
		const char *op = jstr(ev, "op") ? jstr(ev, "op") : jstr(ev, "syscall");
		if (op && !strncmp(op, "mkdir", 5) && lstat(real, &st) == 0)
			return 0;  /* EEXIST natively: `mkdir -p` of an existing parent writes nothing */
		if (lstat(real, &st) < 0) {
			/* a file the program wanted to create: its directory (which must exist: else the
			 * program saw ENOENT, as natively) is the object */
			char *slash = strrchr(hint, '/'), *rslash = strrchr(real, '/');
			if (!slash || slash == hint || !rslash || rslash == real)
				return 0;
			*slash = 0;
			*rslash = 0;
			if (!strcmp(hint, ".") || lstat(real, &st) < 0 || !S_ISDIR(st.st_mode))
				return 0;
		}
		/* inside the workspace ("./...") it is the caller's; elsewhere never a system path */
		const char *why = hint[0] == '/' ? learn_write_refused(hint, l->home) : NULL;
		return add_literal(l, LEARN_WRITE, hint, ev, path, why);
	}
	if (lstat(real, &st) < 0)
		return 0;   /* ENOENT natively too: nothing to grant */
	int r = add_literal(l, LEARN_READ, hint, ev, path, NULL);
	if (r >= 0 && access && !strcmp(access, "exec")) {
		int r2 = add(l, LEARN_EXEC, NULL, ev, path);
		r = r2 < 0 ? -1 : (r || r2);
	}
	return r;
}

static int note_host(struct learn *l, const cJSON *ev)
{
	const char *host = jstr(ev, "host"), *addr = jstr(ev, "addr");
	long port = jnum(ev, "port");
	char h[300];
	if (addr && strchr(addr, ':'))
		snprintf(h, sizeof h, port > 0 ? "[%s]:%ld" : "[%s]", addr, port);
	else if (addr || host)
		snprintf(h, sizeof h, port > 0 ? "%s:%ld" : "%s", addr ? addr : host, port);
	else
		return 0;
	return add(l, LEARN_HOST, h, ev, h);
}

/* A name the executor sent, as a host grant: a plain name (never a wildcard, an address or anything
 * mf_parse_host would read as more than the name), with the port when one is given. */
static int literal_name(const char *name, long port, char *out, size_t outlen)
{
	if (!name || !*name || name[0] == '*' || strchr(name, ':'))
		return -1;
	snprintf(out, outlen, port > 0 ? "%s:%ld" : "%s", name, port);
	struct mf_host h;
	char why[160];
	if (mf_parse_host(out, &h, why, sizeof why) < 0)
		return -1;
	int ok = h.kind == MF_HOST_NAME && h.name[0] != '*';
	mf_host_clear(&h);
	return ok ? 0 : -1;
}

/* The gateway's refusals (net.deny, dns.deny). */
static int note_gateway(struct learn *l, const cJSON *ev, const char *event)
{
	char h[300];
	if (!strcmp(event, "dns.deny"))
		return literal_name(jstr(ev, "name"), 0, h, sizeof h) == 0 ? add(l, LEARN_DNS, h, ev, h) : 0;
	const char *reason = jstr(ev, "reason");
	if (!reason)
		return 0;
	if (!strcmp(reason, "name-not-granted"))
		return literal_name(jstr(ev, "peer"), jnum(ev, "port"), h, sizeof h) == 0 ? add(l, LEARN_HOST, h, ev, h) : 0;
	if (!strcmp(reason, "no-name") || !strcmp(reason, "addr-not-granted") || !strcmp(reason, "timeout"))
		return jstr(ev, "addr") ? note_host(l, ev) : 0;
	return 0; /* HTTP rules, malformed bytes, an unreachable host: nothing a host grant changes */
}

int learn_note(struct learn *l, const cJSON *ev)
{
	const char *event = jstr(ev, "event");
	if (!event)
		return 0;
	if (!strcmp(event, "net.deny") || !strcmp(event, "dns.deny"))
		return note_gateway(l, ev, event);
	const char *path = jstr(ev, "path"), *access = jstr(ev, "access"), *rule = jstr(ev, "rule");
	if (!strcmp(event, "netfilter.deny"))
		return note_host(l, ev);
	if (strcmp(event, "preload.deny") && strcmp(event, "kernel.violation") && strcmp(event, "landlock.deny"))
		return 0;  /* seccomp.deny and the rest: nothing a manifest can grant */
	if (access && !strcmp(access, "connect") && !path)
		return note_host(l, ev);
	if (path && path[0] == '/')
		return note_path(l, ev, path, access, rule);
	if (rule && !strcmp(rule, "no code:exec capability"))
		return add(l, LEARN_EXEC, NULL, ev, "exec");
	return 0;
}

static cJSON *cap_of(const struct learn_item *it)
{
	if (it->kind == LEARN_EXEC)
		return cJSON_CreateString("code:exec");
	cJSON *c = cJSON_CreateObject();
	if (!c)
		return NULL;
	cJSON_AddStringToObject(c, "cap", learn_kind_name(it->kind));
	if (it->kind == LEARN_HOST || it->kind == LEARN_DNS) {
		cJSON *a = cJSON_AddArrayToObject(c, "hosts");
		cJSON_AddItemToArray(a, cJSON_CreateString(it->object));
	} else {
		cJSON_AddStringToObject(c, "hint", it->object);
	}
	return c;
}

/* `manifest` (as JSON) parsed and compiled as a run would (no name resolution); with `check`,
 * also refused as `validate` refuses (pol_check). Returns the policy, which lives in *blob (the
 * caller frees it), or NULL with err set: a parse error as `bad` followed by the parser's first
 * message (else `none`). */
static const struct policy *compile_json(const cJSON *manifest, const struct mf_ctx *ctx, const char *label,
					 bool check, const char *bad, const char *none, void **blob,
					 char *err, size_t errlen)
{
	char *txt = cJSON_PrintUnformatted(manifest);
	struct manifest *m = NULL;
	struct mf_errors e = {0};
	size_t len = 0;
	const char *pwhy = NULL;
	const struct policy *p = NULL;
	*blob = NULL;
	if (!txt) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	struct pol_build_opts bo = {.resolve = false, .uid = ctx->uid};
	if (manifest_parse(txt, strlen(txt), label, ctx, &m, &e) < 0)
		snprintf(err, errlen, "%s%s", bad, e.n ? e.msg[0] : none);
	else if ((!check || pol_check(m, ctx->uid, err, errlen) == 0) &&
		 pol_build(m, &bo, blob, &len, err, errlen) == 0 && !(p = pol_open(*blob, len, &pwhy)))
		snprintf(err, errlen, "%s", pwhy ? pwhy : "policy");
	free(txt);
	manifest_free(m);
	mf_errors_free(&e);
	return p;
}

/* Would `manifest` (as JSON) allow the item's access? 1 yes, 0 no (why set), -1 error (why set). */
static int allows(const cJSON *manifest, const struct learn_item *it, const struct mf_ctx *ctx,
		  char *why, size_t wl)
{
	void *blob = NULL;
	int rc = -1;
	const struct policy *p = compile_json(manifest, ctx, "learned manifest", false, "", "invalid manifest",
					      &blob, why, wl);
	if (!p)
		goto out;
	struct pol_decision d = {0};
	int v = POL_ALLOW;
	if (it->kind == LEARN_EXEC) {
		v = pol_code_exec(p) ? POL_ALLOW : POL_DENY;
		d.rule = POL_RULE_NO_EXEC;
	} else if (it->kind == LEARN_HOST || it->kind == LEARN_DNS) {
		char host[300];
		unsigned long port = 0;
		snprintf(host, sizeof host, "%s", it->object);
		char *colon = host[0] == '[' ? strstr(host, "]:") : strrchr(host, ':');
		if (colon) {
			port = strtoul(colon + (host[0] == '[' ? 2 : 1), NULL, 10);
			*colon = 0;
		}
		char *ip = host[0] == '[' ? host + 1 : host;
		ip[strcspn(ip, "]")] = 0;
		unsigned char a[16];
		if (inet_pton(AF_INET, ip, a) == 1)
			v = pol_net_addr(p, AF_INET, a, (uint16_t)port, &d);
		else if (inet_pton(AF_INET6, ip, a) == 1)
			v = pol_net_addr(p, AF_INET6, a, (uint16_t)port, &d);
		else
			v = pol_net_name(p, ip, (uint16_t)port, &d);
	} else {
		char *abs = mf_expand_path(it->path ? it->path : it->object, ctx);
		if (!abs) {
			snprintf(why, wl, "%s: %s", it->object, strerror(errno));
			goto out;
		}
		v = pol_path(p, abs, it->kind == LEARN_WRITE ? POL_WRITE : POL_READ, &d);
		free(abs);
	}
	if (v == POL_ALLOW) {
		rc = 1;
	} else {
		snprintf(why, wl, "%s", pol_rule_text(p, d.rule));
		rc = 0;
	}
out:
	free(blob);
	return rc;
}

static cJSON *caps_of(cJSON *manifest, char *err, size_t errlen)
{
	cJSON *caps = cJSON_GetObjectItemCaseSensitive(manifest, "capabilities");
	if (!caps && !(caps = cJSON_AddArrayToObject(manifest, "capabilities")))
		snprintf(err, errlen, "out of memory");
	else if (!cJSON_IsArray(caps))
		snprintf(err, errlen, "the base manifest's capabilities is not an array");
	else
		return caps;
	return NULL;
}

int learn_apply(struct learn *l, cJSON *manifest, cJSON *next, const struct mf_ctx *ctx, char *err,
		size_t errlen)
{
	cJSON *caps = caps_of(manifest, err, errlen), *ncaps = caps_of(next, err, errlen);
	if (!caps || !ncaps)
		return -1;
	int added = 0;
	for (size_t i = 0; i < l->n; i++) {
		struct learn_item *it = &l->v[i];
		if (it->applied || it->refused)
			continue;
		char why[512] = "";
		int before = allows(manifest, it, ctx, why, sizeof why);
		if (before < 0) {
			snprintf(err, errlen, "%s", why);
			return -1;
		}
		if (before == 1) {          /* already granted (an earlier proposal covers it) */
			it->applied = it->covered = true;
			continue;
		}
		cJSON *cap = cap_of(it);
		if (!cap) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		cJSON_AddItemToArray(caps, cap);
		int after = allows(manifest, it, ctx, why, sizeof why);
		if (after == 1) {
			it->applied = true;
			added++;
			/* exercise only what cannot touch the host or the network on the program's behalf */
			cJSON *nc = (it->kind == LEARN_READ || it->kind == LEARN_EXEC) ? cap_of(it) : NULL;
			if (nc)
				cJSON_AddItemToArray(ncaps, nc);
			continue;
		}
		/* the grant cannot win (a secret, a deny rule): take it back and say why */
		cJSON_DeleteItemFromArray(caps, cJSON_GetArraySize(caps) - 1);
		if (after < 0) {
			snprintf(err, errlen, "%s", why);
			return -1;
		}
		it->refused = strdup(why[0] ? why : "denied");
		if (!it->refused) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
	}
	return added;
}

int learn_check(struct learn *l, const cJSON *manifest, const struct mf_ctx *ctx, char *err, size_t errlen)
{
	void *blob = NULL;
	int rc = -1;
	const struct policy *p = compile_json(manifest, ctx, "proposed manifest", true,
					      "the proposed manifest is invalid: ", "?", &blob, err, errlen);
	if (!p)
		goto out;
	for (size_t i = 0; i < l->n; i++) {
		struct learn_item *it = &l->v[i];
		if (!it->applied || !it->path || (it->kind != LEARN_READ && it->kind != LEARN_WRITE))
			continue;
		char *abs = mf_expand_path(it->path, ctx);
		if (!abs)
			continue;
		struct pol_decision d = {0};
		pol_path(p, abs, it->kind == LEARN_WRITE ? POL_WRITE : POL_READ, &d);
		char buf[600];
		snprintf(buf, sizeof buf, "%s %s by %s", it->kind == LEARN_WRITE ? "write" : "read",
			 d.verdict == POL_ALLOW ? "ALLOWED" : "DENIED", pol_rule_text(p, d.rule));
		sbx_escape_fit(buf, sizeof buf); /* the rule holds the hint: the executor's name */
		free(abs);
		free(it->explain);
		if (!(it->explain = strdup(buf))) {
			snprintf(err, errlen, "out of memory");
			goto out;
		}
	}
	rc = 0;
out:
	free(blob);
	return rc;
}

void learn_free(struct learn *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->v[i].object);
		free(l->v[i].path);
		free(l->v[i].explain);
		free(l->v[i].evidence);
		free(l->v[i].refused);
	}
	free(l->v);
	l->v = NULL;
	l->n = l->cap = 0;
}
