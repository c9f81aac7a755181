/* gw_names.h — the gateway's view of names: what each granted name resolves to on the host side,
 * with its TTL, and every address handed to the run for it.
 *
 * Promise: gw_names_get() answers from the cache while the answer's TTL lasts and resolves again
 * when it has expired (at least GW_TTL_MIN, at most GW_TTL_MAX seconds); addresses once handed out
 * are remembered (`seen`, bounded) so a connection to an address the run got earlier is still
 * recognised after the answer changed. Resolution is the host's resolver (res_nquery: A and AAAA,
 * with their TTL) after the host's /etc/hosts (a name there is answered from it, TTL 60 s, as libc
 * would), or — tests only — a hosts file "ADDRESS NAME [TTL]" re-read on every expiry.
 * A name that does not resolve is cached empty for GW_TTL_MIN (never an error). The cache holds at
 * most GW_NAMES_MAX names: the names are the executor's (every name under a `*.` wildcard, every
 * name of an unrestricted network), so past that the least recently asked one makes room (its
 * addresses handed out earlier are then no longer recognised: a later connection to one is decided
 * as to an address of no granted name). Owns its entries.
 */
#ifndef SBX_GW_NAMES_H
#define SBX_GW_NAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "gw_parse.h"

#define GW_ADDRS_MAX 16
#define GW_SEEN_MAX 64
#define GW_TTL_MIN 1
#define GW_TTL_MAX 3600
#define GW_NAMES_MAX 4096

struct gw_name_ent {
	char name[GW_NAME_MAX];
	struct gw_dns_addr cur[GW_ADDRS_MAX];
	size_t ncur;
	uint32_t ttl;
	time_t expires;                     /* CLOCK_MONOTONIC seconds */
	struct gw_dns_addr seen[GW_SEEN_MAX];
	size_t nseen;
	uint64_t used;                      /* the cache's clock when last asked (least recent goes) */
	bool answered;                      /* the DNS stub answered it (its dns.answer is recorded) */
};

struct gw_names {
	struct gw_name_ent *v;
	size_t n, cap;
	uint64_t clock;                     /* counts gw_names_get calls */
	const char *hosts_file;             /* tests only: SBXSUP_GW_HOSTS */
};

/* The current answer for name (resolving when absent or expired). NULL only when out of memory or
 * name is too long. */
struct gw_name_ent *gw_names_get(struct gw_names *ns, const char *name);
/* Remember that the run was given these addresses for e (for gw_names_by_addr). */
void gw_names_served(struct gw_name_ent *e);
/* Whether e's current or served addresses hold addr. */
int gw_names_has(const struct gw_name_ent *e, int family, const uint8_t *addr);
/* The first name whose current or served addresses hold addr, or NULL. */
const char *gw_names_by_addr(const struct gw_names *ns, int family, const uint8_t *addr);
/* Seconds left before e expires (for DNS answers' TTL), at least 1. */
uint32_t gw_names_ttl_left(const struct gw_name_ent *e);
void gw_names_free(struct gw_names *ns);

/* Resolve once (no cache): the addresses and the smallest TTL. Exposed for tests. 0 (possibly
 * with n == 0 when the name does not exist), -1 on a resolver failure. */
int gw_resolve(const char *hosts_file, const char *name, struct gw_dns_addr *out, size_t *n,
	       uint32_t *ttl);

#endif
