/* gw_names.c — name -> addresses with TTL, for the gateway (see gw_names.h). */
#include "gw_names.h"

#include <arpa/inet.h>
#include <arpa/nameser.h>
#include <netdb.h>
#include <netinet/in.h>
#include <resolv.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

static time_t mono_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec;
}

static void add_addr(struct gw_dns_addr *out, size_t *n, int family, const void *a)
{
	if (*n >= GW_ADDRS_MAX)
		return;
	size_t al = family == AF_INET ? 4 : 16;
	for (size_t i = 0; i < *n; i++)
		if (out[i].family == family && memcmp(out[i].addr, a, al) == 0)
			return;
	memset(&out[*n], 0, sizeof out[*n]);
	out[*n].family = family;
	memcpy(out[*n].addr, a, al);
	(*n)++;
}

static int resolve_file(const char *file, const char *name, struct gw_dns_addr *out, size_t *n,
			uint32_t *ttl)
{
	FILE *f = fopen(file, "re");
	if (!f)
		return -1;
	char line[512];
	*ttl = GW_TTL_MAX;
	while (fgets(line, sizeof line, f)) {
		char a[128], nm[GW_NAME_MAX];
		unsigned t = 1;
		int k = sscanf(line, "%127s %255s %u", a, nm, &t);
		if (k < 2 || a[0] == '#' || strcasecmp(nm, name) != 0)
			continue;
		uint8_t buf[16];
		if (inet_pton(AF_INET, a, buf) == 1)
			add_addr(out, n, AF_INET, buf);
		else if (inet_pton(AF_INET6, a, buf) == 1)
			add_addr(out, n, AF_INET6, buf);
		else
			continue;
		if (t < *ttl)
			*ttl = t;
	}
	fclose(f);
	if (*n == 0)
		*ttl = GW_TTL_MIN;
	return 0;
}

/* The host's /etc/hosts, as libc reads it: "ADDRESS NAME [ALIAS...]", '#' starts a comment. A name
 * found there is answered from it (res_nquery never reads it), with GW_HOSTS_TTL. */
#define GW_HOSTS_TTL 60
static void resolve_etc_hosts(const char *path, const char *name, struct gw_dns_addr *out, size_t *n)
{
	FILE *f = fopen(path, "re");
	if (!f)
		return;
	char line[1024];
	while (fgets(line, sizeof line, f)) {
		line[strcspn(line, "#\n")] = '\0';
		char *save = NULL, *a = strtok_r(line, " \t", &save);
		if (!a)
			continue;
		for (char *t = strtok_r(NULL, " \t", &save); t; t = strtok_r(NULL, " \t", &save)) {
			size_t tl = strlen(t);
			if (tl && t[tl - 1] == '.')
				t[--tl] = '\0';
			if (strcasecmp(t, name) != 0)
				continue;
			uint8_t buf[16];
			if (inet_pton(AF_INET, a, buf) == 1)
				add_addr(out, n, AF_INET, buf);
			else if (inet_pton(AF_INET6, a, buf) == 1)
				add_addr(out, n, AF_INET6, buf);
			break;
		}
	}
	fclose(f);
}

static int query_type(struct __res_state *rs, const char *name, int type, struct gw_dns_addr *out,
		      size_t *n, uint32_t *ttl)
{
	unsigned char ans[4096];
	int len = res_nquery(rs, name, ns_c_in, type, ans, sizeof ans);
	if (len < 0)
		return rs->res_h_errno == HOST_NOT_FOUND || rs->res_h_errno == NO_DATA ? 0 : -1;
	ns_msg msg;
	if (ns_initparse(ans, len, &msg) < 0)
		return -1;
	int cnt = ns_msg_count(msg, ns_s_an);
	for (int i = 0; i < cnt; i++) {
		ns_rr rr;
		if (ns_parserr(&msg, ns_s_an, i, &rr) < 0)
			return -1;
		if ((int)ns_rr_type(rr) != type)
			continue; /* the CNAME chain: its addresses follow */
		size_t want = type == ns_t_a ? 4 : 16;
		if (ns_rr_rdlen(rr) != want)
			continue;
		add_addr(out, n, type == ns_t_a ? AF_INET : AF_INET6, ns_rr_rdata(rr));
		if (ns_rr_ttl(rr) < *ttl)
			*ttl = ns_rr_ttl(rr);
	}
	return 0;
}

int gw_resolve(const char *hosts_file, const char *name, struct gw_dns_addr *out, size_t *n,
	       uint32_t *ttl)
{
	*n = 0;
	if (hosts_file)
		return resolve_file(hosts_file, name, out, n, ttl);
	resolve_etc_hosts("/etc/hosts", name, out, n);
	if (*n) {
		*ttl = GW_HOSTS_TTL;
		return 0;
	}
	struct __res_state rs;
	memset(&rs, 0, sizeof rs);
	if (res_ninit(&rs) < 0)
		return -1;
	rs.retrans = 2;
	rs.retry = 2;
	*ttl = GW_TTL_MAX;
	int r4 = query_type(&rs, name, ns_t_a, out, n, ttl);
	int r6 = query_type(&rs, name, ns_t_aaaa, out, n, ttl);
	res_nclose(&rs);
	if (*n == 0)
		*ttl = GW_TTL_MIN;
	return r4 < 0 && r6 < 0 ? -1 : 0;
}

static void refresh(struct gw_names *ns, struct gw_name_ent *e, time_t now)
{
	struct gw_dns_addr a[GW_ADDRS_MAX];
	size_t n = 0;
	uint32_t ttl = GW_TTL_MIN;
	if (gw_resolve(ns->hosts_file, e->name, a, &n, &ttl) < 0) {
		/* a resolver failure keeps the previous answer for a short while */
		e->expires = now + GW_TTL_MIN;
		return;
	}
	if (ttl < GW_TTL_MIN)
		ttl = GW_TTL_MIN;
	if (ttl > GW_TTL_MAX)
		ttl = GW_TTL_MAX;
	memcpy(e->cur, a, sizeof a);
	e->ncur = n;
	e->ttl = ttl;
	e->expires = now + ttl;
}

/* A slot for a new name: a new one while under GW_NAMES_MAX, else the least recently asked. */
static struct gw_name_ent *new_slot(struct gw_names *ns)
{
	if (ns->n == GW_NAMES_MAX) {
		struct gw_name_ent *old = &ns->v[0];
		for (size_t i = 1; i < ns->n; i++)
			if (ns->v[i].used < old->used)
				old = &ns->v[i];
		return old;
	}
	if (ns->n == ns->cap) {
		size_t nc = ns->cap ? ns->cap * 2 : 16;
		if (nc > GW_NAMES_MAX)
			nc = GW_NAMES_MAX;
		struct gw_name_ent *v = realloc(ns->v, nc * sizeof *v);
		if (!v)
			return NULL;
		ns->v = v;
		ns->cap = nc;
	}
	return &ns->v[ns->n++];
}

struct gw_name_ent *gw_names_get(struct gw_names *ns, const char *name)
{
	time_t now = mono_now();
	ns->clock++;
	for (size_t i = 0; i < ns->n; i++)
		if (strcmp(ns->v[i].name, name) == 0) {
			if (now >= ns->v[i].expires)
				refresh(ns, &ns->v[i], now);
			ns->v[i].used = ns->clock;
			return &ns->v[i];
		}
	if (strlen(name) >= GW_NAME_MAX)
		return NULL;
	struct gw_name_ent *e = new_slot(ns);
	if (!e)
		return NULL;
	memset(e, 0, sizeof *e);
	strcpy(e->name, name);
	e->used = ns->clock;
	refresh(ns, e, now);
	return e;
}

void gw_names_served(struct gw_name_ent *e)
{
	for (size_t i = 0; i < e->ncur; i++) {
		if (gw_names_has(e, e->cur[i].family, e->cur[i].addr) == 2)
			continue;
		size_t slot = e->nseen < GW_SEEN_MAX ? e->nseen++ : (size_t)(e->nseen - 1);
		e->seen[slot] = e->cur[i];
	}
}

/* 1: a current address; 2: one served earlier; 0: neither. */
int gw_names_has(const struct gw_name_ent *e, int family, const uint8_t *addr)
{
	size_t al = family == AF_INET ? 4 : 16;
	for (size_t i = 0; i < e->nseen; i++)
		if (e->seen[i].family == family && memcmp(e->seen[i].addr, addr, al) == 0)
			return 2;
	for (size_t i = 0; i < e->ncur; i++)
		if (e->cur[i].family == family && memcmp(e->cur[i].addr, addr, al) == 0)
			return 1;
	return 0;
}

const char *gw_names_by_addr(const struct gw_names *ns, int family, const uint8_t *addr)
{
	for (size_t i = 0; i < ns->n; i++)
		if (gw_names_has(&ns->v[i], family, addr))
			return ns->v[i].name;
	return NULL;
}

uint32_t gw_names_ttl_left(const struct gw_name_ent *e)
{
	time_t left = e->expires - mono_now();
	return left < 1 ? 1 : (uint32_t)left;
}

void gw_names_free(struct gw_names *ns)
{
	free(ns->v);
	ns->v = NULL;
	ns->n = ns->cap = 0;
}
