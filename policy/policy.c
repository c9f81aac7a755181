/* policy.c — reading the compiled policy: validation, path and network decisions, accessors.
 *
 * Promise (see policy.h / policy_format.h): pol_open() checks every offset, count, string and
 * hash chain of a blob once; afterwards the decision functions trust the blob, allocate nothing
 * and make no system calls. A path decision walks the path's ancestor prefixes ("/", "/a",
 * "/a/b", ..., the path), looks each up in the prefix hash table, tests the rules of that chain,
 * then the floating rules; its cost is O(depth + rules sharing a prefix + floating rules).
 *
 * Strength: a matching HARD_DENY wins; otherwise the GRANT with the longest literal prefix that
 * covers every requested access bit competes with the SOFT_DENY with the longest literal prefix,
 * and the grant wins only when its prefix is strictly longer; otherwise POL_RULE_DEFAULT. EXEC
 * is READ plus the manifest's code:exec (POL_RULE_NO_EXEC when missing).
 *
 * libc only (linked into libsbxpreload.so).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

#include "policy.h"
#include "policy_format.h"

struct policy {
	struct pol_hdr h;
};

uint32_t pol_prefix_hash(const char *s, size_t n)
{
	uint32_t h = 2166136261u;
	for (size_t i = 0; i < n; i++) {
		h ^= (uint8_t)s[i];
		h *= 16777619u;
	}
	return h;
}

static uint32_t hash_step(uint32_t h, char c)
{
	h ^= (uint8_t)c;
	return h * 16777619u;
}

/* ---- accessors (blob already validated) -------------------------------------------------------- */

static const char *base(const struct policy *p)
{
	return (const char *)p;
}

static const char *str_at(const struct policy *p, uint32_t off)
{
	return base(p) + p->h.str_off + off;
}

static const struct pol_rule_rec *rule_at(const struct policy *p, uint32_t i)
{
	return (const struct pol_rule_rec *)(base(p) + p->h.rule_off) + i;
}

static const uint32_t *u32_table(const struct policy *p, uint32_t off)
{
	return (const uint32_t *)(base(p) + off);
}

static const struct pol_dir_rec *dir_table(const struct policy *p, uint32_t off)
{
	return (const struct pol_dir_rec *)(base(p) + off);
}

static const struct pol_net_rec *net_at(const struct policy *p, uint32_t i)
{
	return (const struct pol_net_rec *)(base(p) + p->h.net_off) + i;
}

/* ---- validation -------------------------------------------------------------------------------- */

/* Is the table [off, off + n * size) inside [sizeof hdr, total) and aligned? */
static bool table_ok(uint32_t off, uint32_t n, size_t size, uint32_t total, size_t align)
{
	if (off % align != 0 || off < sizeof(struct pol_hdr) || off > total)
		return false;
	uint64_t bytes = (uint64_t)n * size;
	return bytes <= (uint64_t)(total - off);
}

static bool str_ok(const struct pol_hdr *h, uint32_t off)
{
	return off < h->str_len; /* the table ends with NUL, so every in-range string terminates */
}

static const char *check_rules(const struct policy *p)
{
	const struct pol_hdr *h = &p->h;
	for (uint32_t i = 0; i < h->nrules; i++) {
		const struct pol_rule_rec *r = rule_at(p, i);
		if (r->kind > POL_R_NET)
			return "rule kind out of range";
		if (r->access & ~(unsigned)(POL_READ | POL_WRITE | POL_EXEC))
			return "rule access bits out of range";
		if (!str_ok(h, r->glob) || !str_ok(h, r->text))
			return "rule string offset out of bounds";
		const char *g = str_at(p, r->glob);
		size_t gl = strnlen(g, POL_GLOB_MAX + 1);
		if (gl > POL_GLOB_MAX)
			return "rule glob too long";
		if (r->prefix_len > gl)
			return "rule literal prefix longer than its glob";
		if (r->kind != POL_R_NET && r->prefix_len != pol_glob_literal_prefix(g))
			return "rule literal prefix does not match its glob";
		if (r->hash != pol_prefix_hash(g, r->prefix_len))
			return "rule prefix hash mismatch";
		if (r->next != POL_NONE && (r->next <= i || r->next >= h->nrules))
			return "rule hash chain goes backwards or out of bounds";
		if ((r->flags & ~(unsigned)(POL_RF_SUBTREE | POL_RF_EXACT)) || r->pad != 0 ||
		    r->flags == (POL_RF_SUBTREE | POL_RF_EXACT))
			return "rule flags out of range";
		if ((r->flags & (POL_RF_SUBTREE | POL_RF_EXACT)) &&
		    (g[0] != '/' || pol_glob_has_magic(g) || r->prefix_len != gl))
			return "subtree rule is not an absolute literal path";
		if (r->kind == POL_R_NET && (r->next != POL_NONE || r->prefix_len != 0))
			return "network rule in a path chain";
	}
	return NULL;
}

static const char *check_index(const struct policy *p)
{
	const struct pol_hdr *h = &p->h;
	const uint32_t *b = u32_table(p, h->bucket_off);
	uint32_t mask = h->nbuckets - 1;
	uint32_t want_chained = 0, want_float = 0, chained = 0;
	for (uint32_t i = 0; i < h->nrules; i++) {
		const struct pol_rule_rec *r = rule_at(p, i);
		if (r->kind != POL_R_NET) {
			if (r->prefix_len == 0)
				want_float++;
			else
				want_chained++;
		}
	}
	for (uint32_t k = 0; k < h->nbuckets; k++) {
		/* Chains are strictly increasing and every member must hash to this bucket, so a rule
		 * belongs to at most one chain and the total walk is O(nrules + nbuckets). */
		for (uint32_t i = b[k]; i != POL_NONE; i = rule_at(p, i)->next) {
			if (i >= h->nrules)
				return "hash bucket points out of bounds";
			const struct pol_rule_rec *r = rule_at(p, i);
			if ((r->hash & mask) != k)
				return "rule chained in the wrong bucket";
			if (r->kind == POL_R_NET || r->prefix_len == 0)
				return "hash chain holds a network or floating rule";
			chained++;
		}
	}
	/* Every path rule must be reachable (a rule left out would fall open): each chained rule
	 * sits in exactly one chain, each floating rule exactly once in the (increasing) list. */
	if (chained != want_chained)
		return "path rule missing from the hash index";
	if (h->nfloat != want_float)
		return "floating rule list incomplete";
	const uint32_t *f = u32_table(p, h->float_off);
	for (uint32_t k = 0; k < h->nfloat; k++) {
		if (f[k] >= h->nrules || (k > 0 && f[k] <= f[k - 1]))
			return "floating rule out of bounds or out of order";
		const struct pol_rule_rec *r = rule_at(p, f[k]);
		if (r->kind == POL_R_NET || r->prefix_len != 0)
			return "floating rule has a literal prefix or is a network rule";
	}
	return NULL;
}

static const char *check_dirs(const struct policy *p, uint32_t off, uint32_t n)
{
	const struct pol_dir_rec *d = dir_table(p, off);
	for (uint32_t i = 0; i < n; i++) {
		if (!str_ok(&p->h, d[i].path) || d[i].pad != 0)
			return "dir/mask path out of bounds";
		if (d[i].rule >= p->h.nrules)
			return "dir/mask rule out of bounds";
		if (d[i].access & ~(unsigned)(POL_READ | POL_WRITE | POL_EXEC | POL_LIST | POL_TREE))
			return "dir/mask access bits out of range";
	}
	return NULL;
}

static const char *check_net(const struct policy *p)
{
	for (uint32_t i = 0; i < p->h.nnet; i++) {
		const struct pol_net_rec *n = net_at(p, i);
		if (n->family == AF_INET) {
			if (n->prefix > 32)
				return "IPv4 prefix length out of range";
		} else if (n->family == AF_INET6) {
			if (n->prefix > 128)
				return "IPv6 prefix length out of range";
		} else if (n->family != 0 || !n->is_name) {
			return "network family out of range";
		}
		if (n->is_name > 1)
			return "network name flag out of range";
		if (n->is_name && (n->name == POL_NONE || !str_ok(&p->h, n->name)))
			return "network name out of bounds";
		if (!n->is_name && n->name != POL_NONE)
			return "network name on an address rule";
		if (n->rule >= p->h.nrules || rule_at(p, n->rule)->kind != POL_R_NET)
			return "network entry does not point at a network rule";
	}
	return NULL;
}

const struct policy *pol_open(const void *blob, size_t len, const char **why)
{
	const char *dummy;
	if (why == NULL)
		why = &dummy;
	*why = NULL;
	if (blob == NULL || ((uintptr_t)blob & 7u) != 0) {
		*why = "blob missing or not 8-byte aligned";
		return NULL;
	}
	if (len < sizeof(struct pol_hdr) || len > POL_MAX_BLOB) {
		*why = "blob size out of range";
		return NULL;
	}
	const struct policy *p = blob;
	const struct pol_hdr *h = &p->h;
	if (h->magic != POL_MAGIC) {
		*why = "bad magic";
		return NULL;
	}
	if (h->version != POL_VERSION) {
		*why = "unsupported version";
		return NULL;
	}
	uint32_t total = h->total_size;
	if (total < sizeof(struct pol_hdr) || total > len) {
		*why = "total size larger than the blob";
		return NULL;
	}
	if ((h->flags & ~(uint32_t)(POL_F_CODE_EXEC | POL_F_ABSTRACT_INSIDE | POL_F_OWN_PIDNS)) != 0 ||
	    h->net_mode > POL_NET_ANY ||
	    h->reserved[0] != 0 || h->reserved[1] != 0) {
		*why = "flags or network mode out of range";
		return NULL;
	}
	if (h->str_len == 0 || !table_ok(h->str_off, h->str_len, 1, total, 8) ||
	    base(p)[h->str_off + h->str_len - 1] != '\0') {
		*why = "string table out of bounds or not terminated";
		return NULL;
	}
	if (!table_ok(h->rule_off, h->nrules, sizeof(struct pol_rule_rec), total, 8) ||
	    h->nrules >= POL_RULE_NO_EXEC ||
	    h->nbuckets == 0 || (h->nbuckets & (h->nbuckets - 1)) != 0 ||
	    !table_ok(h->bucket_off, h->nbuckets, sizeof(uint32_t), total, 8) ||
	    !table_ok(h->float_off, h->nfloat, sizeof(uint32_t), total, 8) ||
	    !table_ok(h->dir_off, h->ndirs, sizeof(struct pol_dir_rec), total, 8) ||
	    !table_ok(h->mask_off, h->nmasks, sizeof(struct pol_dir_rec), total, 8) ||
	    !table_ok(h->net_off, h->nnet, sizeof(struct pol_net_rec), total, 8)) {
		*why = "table out of bounds";
		return NULL;
	}
	if (!str_ok(h, h->name) || !str_ok(h, h->workspace) || !str_ok(h, h->home)) {
		*why = "header string out of bounds";
		return NULL;
	}
	const char *e;
	if ((e = check_rules(p)) != NULL || (e = check_index(p)) != NULL ||
	    (e = check_dirs(p, h->dir_off, h->ndirs)) != NULL ||
	    (e = check_dirs(p, h->mask_off, h->nmasks)) != NULL || (e = check_net(p)) != NULL) {
		*why = e;
		return NULL;
	}
	return p;
}

/* ---- normalisation ------------------------------------------------------------------------------ */

/* Apply the components of `s` to out[0..*n) (which holds "" for "/" or "/a/b"). */
static int apply_components(const char *s, char *out, size_t outlen, size_t *n)
{
	while (*s != '\0') {
		while (*s == '/')
			s++;
		if (*s == '\0')
			break;
		size_t cl = 0;
		while (s[cl] != '\0' && s[cl] != '/')
			cl++;
		if (cl == 1 && s[0] == '.') {
			/* nothing */
		} else if (cl == 2 && s[0] == '.' && s[1] == '.') {
			while (*n > 0 && out[*n - 1] != '/')
				(*n)--;
			if (*n > 0)
				(*n)--; /* drop the '/' too; "" stands for "/" */
		} else {
			if (*n + 1 + cl + 1 > outlen)
				return -1;
			out[(*n)++] = '/';
			memcpy(out + *n, s, cl);
			*n += cl;
		}
		s += cl;
	}
	return 0;
}

int pol_normalize(const char *cwd, const char *path, char *out, size_t outlen)
{
	if (path == NULL || out == NULL || outlen < 2) {
		errno = outlen < 2 ? ENAMETOOLONG : EINVAL;
		return -1;
	}
	size_t n = 0;
	if (path[0] != '/') {
		if (cwd == NULL || cwd[0] != '/') {
			errno = EINVAL;
			return -1;
		}
		if (apply_components(cwd, out, outlen, &n) < 0)
			goto toolong;
	}
	if (apply_components(path, out, outlen, &n) < 0)
		goto toolong;
	if (n == 0)
		out[n++] = '/';
	out[n] = '\0';
	return 0;
toolong:
	out[0] = '\0';
	errno = ENAMETOOLONG;
	return -1;
}

/* ---- path decisions ----------------------------------------------------------------------------- */

struct path_eval {
	const struct policy *p;
	const char *path;
	unsigned need;           /* READ/WRITE bits every grant must cover */
	uint32_t grant, grant_len, soft, soft_len, hard;
	uint32_t examined;
};

static void consider(struct path_eval *ev, uint32_t i)
{
	const struct pol_rule_rec *r = rule_at(ev->p, i);
	ev->examined++;
	if (r->kind == POL_R_NET)
		return;
	bool match;
	if (r->flags & POL_RF_SUBTREE) {
		/* Reached through the walk, so the literal prefix (== the glob) is an ancestor-or-self
		 * of the path: callers pass prefix_len-equal candidates only. */
		match = true;
	} else if (r->flags & POL_RF_EXACT) {
		/* Same walk: the prefix is an ancestor-or-self; exact means self. */
		match = ev->path[r->prefix_len] == '\0';
	} else {
		match = pol_glob_match(str_at(ev->p, r->glob), ev->path);
	}
	if (!match)
		return;
	switch (r->kind) {
	case POL_R_HARD_DENY:
		if (ev->hard == POL_NONE)
			ev->hard = i;
		break;
	case POL_R_SOFT_DENY:
		if (ev->soft == POL_NONE || r->prefix_len > ev->soft_len) {
			ev->soft = i;
			ev->soft_len = r->prefix_len;
		}
		break;
	case POL_R_GRANT:
		if ((r->access & ev->need) == ev->need &&
		    (ev->grant == POL_NONE || r->prefix_len > ev->grant_len)) {
			ev->grant = i;
			ev->grant_len = r->prefix_len;
		}
		break;
	default:
		break;
	}
}

/* Rules whose literal prefix is exactly path[0..n) (hash h). */
static void lookup_prefix(struct path_eval *ev, size_t n, uint32_t h)
{
	const struct policy *p = ev->p;
	uint32_t i = u32_table(p, p->h.bucket_off)[h & (p->h.nbuckets - 1)];
	for (; i != POL_NONE && ev->hard == POL_NONE; i = rule_at(p, i)->next) {
		const struct pol_rule_rec *r = rule_at(p, i);
		if (r->hash != h)
			continue; /* another prefix in this bucket: one integer compare, not counted */
		if (r->prefix_len != n || memcmp(str_at(p, r->glob), ev->path, n) != 0) {
			ev->examined++; /* full 32-bit hash collision */
			continue;
		}
		consider(ev, i);
	}
}

static int finish(struct pol_decision *out, int verdict, uint32_t rule, uint32_t examined)
{
	if (out != NULL) {
		out->verdict = verdict;
		out->rule = rule;
		out->examined = examined;
	}
	return verdict;
}

int pol_path(const struct policy *p, const char *path, unsigned access, struct pol_decision *out)
{
	if (p == NULL || path == NULL || path[0] != '/')
		return finish(out, POL_DENY, POL_RULE_DEFAULT, 0);

	struct path_eval ev = {
		.p = p, .path = path, .grant = POL_NONE, .soft = POL_NONE, .hard = POL_NONE,
	};
	ev.need = access & (POL_READ | POL_WRITE);
	if ((access & POL_EXEC) || ev.need == 0)
		ev.need |= POL_READ;

	/* Ancestor prefixes: "/" then every "/..." ending before a '/' or at the end. */
	uint32_t h = hash_step(2166136261u, '/');
	lookup_prefix(&ev, 1, h);
	for (size_t i = 1; path[i - 1] != '\0' && ev.hard == POL_NONE; i++) {
		if (path[i] == '/' || path[i] == '\0') {
			if (i > 1)
				lookup_prefix(&ev, i, h);
			if (path[i] == '\0')
				break;
		}
		h = hash_step(h, path[i]);
	}
	const uint32_t *f = u32_table(p, p->h.float_off);
	for (uint32_t k = 0; k < p->h.nfloat && ev.hard == POL_NONE; k++)
		consider(&ev, f[k]);

	if (ev.hard != POL_NONE)
		return finish(out, POL_DENY, ev.hard, ev.examined);
	if (ev.grant != POL_NONE && (ev.soft == POL_NONE || ev.grant_len > ev.soft_len)) {
		/* A grant carrying EXEC itself (the command named after "--") runs without code:exec. */
		if ((access & POL_EXEC) && !(p->h.flags & POL_F_CODE_EXEC) &&
		    !(rule_at(p, ev.grant)->access & POL_EXEC))
			return finish(out, POL_DENY, POL_RULE_NO_EXEC, ev.examined);
		return finish(out, POL_ALLOW, ev.grant, ev.examined);
	}
	if (ev.soft != POL_NONE)
		return finish(out, POL_DENY, ev.soft, ev.examined);
	return finish(out, POL_DENY, POL_RULE_DEFAULT, ev.examined);
}

static size_t ncomp(const char *s, size_t len)
{
	size_t k = 0;
	for (size_t i = 0; i < len; i++)
		k += s[i] == '/';
	return k;
}

/* A glob whose literal prefix is an ancestor-or-self of anc, against every path strictly below
 * anc: 1 matches them all, 0 matches none, -1 depends on the unknown components. */
static int glob_below(const char *g, const char *anc)
{
	size_t gl = strlen(g), ac = ncomp(anc, strlen(anc)) - (strcmp(anc, "/") == 0);
	const char *dstar = strstr(g, "**");
	if (dstar == NULL)     /* fixed number of components */
		return ncomp(g, gl) <= ac ? 0 : -1;
	if (gl < 3 || strcmp(g + gl - 3, "/**") != 0 || dstar != g + gl - 2)
		return -1;     /* "**" elsewhere than as the final component */
	/* G' + "/" "**": matches q iff G' matches the ancestor-or-self of q with G''s component count */
	size_t m = ncomp(g, gl - 3);
	if (m > ac)
		return -1;
	char head[POL_GLOB_MAX + 1], pre[POL_GLOB_MAX + 1];
	memcpy(head, g, gl - 3);
	head[gl - 3] = 0;
	if (m == 0)
		return 1;      /* "/" "**" */
	size_t k = 0, i = 0;
	for (; anc[i]; i++)
		if (anc[i] == '/' && i > 0 && ++k == m)
			break;
	if (!anc[i])
		k++;
	if (k < m || i > POL_GLOB_MAX)
		return -1;
	memcpy(pre, anc, i);
	pre[i] = 0;
	return pol_glob_match(head, pre) ? 1 : 0;
}

/* "/" "**" "/SUFFIX" with no further "**" in SUFFIX: returns SUFFIX's component count, else 0. */
static size_t tail_glob(const char *g)
{
	if (strncmp(g, "/**/", 4) != 0 || strstr(g + 4, "**") != NULL || !g[4])
		return 0;
	size_t k = 1;
	for (const char *s = g + 4; *s; s++)
		k += *s == '/';
	return k;
}

int pol_path_deep(const struct policy *p, const char *anc, const char *tail, unsigned access,
		  struct pol_decision *out)
{
	size_t al = anc ? strlen(anc) : 0;
	if (p == NULL || al == 0 || anc[0] != '/' || tail == NULL || tail[0] == '/')
		return -1;
	size_t tk = tail[0] ? 1 : 0;   /* "" : the unknown path itself */
	for (const char *s = tail; *s; s++)
		tk += *s == '/';
	char t[POL_GLOB_MAX + 2];
	if (strlen(tail) + 2 > sizeof t)
		return -1;
	t[0] = '/';
	strcpy(t + 1, tail);
	unsigned need = access & (POL_READ | POL_WRITE);
	if ((access & POL_EXEC) || need == 0)
		need |= POL_READ;
	uint32_t grant = POL_NONE, grant_len = 0, soft = POL_NONE, soft_len = 0, hard = POL_NONE;
	for (uint32_t i = 0; i < p->h.nrules && hard == POL_NONE; i++) {
		const struct pol_rule_rec *r = rule_at(p, i);
		if (r->kind == POL_R_NET)
			continue;
		const char *g = str_at(p, r->glob);
		size_t n = r->prefix_len;
		bool match;
		if (n == 0) {                       /* floating: decidable on the known tail only */
			size_t k = tail_glob(g);
			if (k == 0 || k > tk)
				return -1;
			match = pol_glob_match(g, t);
		} else if (n <= al && strncmp(g, anc, n) == 0 && (anc[n] == '/' || anc[n] == 0 || n == 1)) {
			/* literal prefix is an ancestor-or-self of anc */
			if (r->flags & POL_RF_EXACT)
				continue;                /* that one path, never below anc */
			int gb = (r->flags & POL_RF_SUBTREE) ? 1 : glob_below(g, anc);
			if (gb < 0)
				return -1;              /* a glob that may match part of the subtree */
			match = gb == 1;
		} else if (n > al && strncmp(g, anc, al) == 0 && (g[al] == '/' || al == 1)) {
			return -1;                      /* a rule for part of the subtree below anc */
		} else {
			continue;
		}
		if (!match)
			continue;
		if (r->kind == POL_R_HARD_DENY) {
			hard = i;
		} else if (r->kind == POL_R_SOFT_DENY) {
			if (soft == POL_NONE || n > soft_len) {
				soft = i;
				soft_len = (uint32_t)n;
			}
		} else if ((r->access & need) == need && (grant == POL_NONE || n > grant_len)) {
			grant = i;
			grant_len = (uint32_t)n;
		}
	}
	if (hard != POL_NONE)
		return finish(out, POL_DENY, hard, 0);
	if (grant != POL_NONE && (soft == POL_NONE || grant_len > soft_len)) {
		if ((access & POL_EXEC) && !(p->h.flags & POL_F_CODE_EXEC) &&
		    !(rule_at(p, grant)->access & POL_EXEC))
			return finish(out, POL_DENY, POL_RULE_NO_EXEC, 0);
		return finish(out, POL_ALLOW, grant, 0);
	}
	if (soft != POL_NONE)
		return finish(out, POL_DENY, soft, 0);
	return finish(out, POL_DENY, POL_RULE_DEFAULT, 0);
}

/* "/" "**" "/NAME" with NAME one literal component: NAME, else NULL. Applied to a rule's glob after
 * its literal prefix, it also finds PREFIX + "/" "**" "/NAME" (a manifest's "**" "/.env" is anchored
 * in the workspace). */
static const char *leaf_glob(const char *g)
{
	if (tail_glob(g) != 1 || pol_glob_has_magic(g + 4) || strchr(g + 4, '/'))
		return NULL;
	return g + 4;
}

int pol_leaf_names(const struct policy *p, void (*fn)(void *arg, const char *name), void *arg)
{
	for (uint32_t i = 0; i < p->h.nrules; i++) {
		const struct pol_rule_rec *r = rule_at(p, i);
		if (r->kind == POL_R_NET || r->kind == POL_R_GRANT)
			continue;               /* a grant never turns an allowed path into a denied one */
		const char *name = leaf_glob(str_at(p, r->glob) + r->prefix_len);
		if (!name && r->prefix_len == 0)
			return -1;
		if (!name)
			continue;               /* a deny under a literal prefix: pol_subtree weighs it */
		if (fn)
			fn(arg, name);
	}
	return 0;
}

/* Grants can only allow: once one grant covering the whole subtree beats every soft deny that may
 * match in it, no other grant (narrower, exact, a partial glob) can make a path below deny. So only
 * deny rules are examined for the subtree, and grants only as the proof. */
int pol_subtree(const struct policy *p, const char *anc, unsigned access)
{
	size_t al = anc ? strlen(anc) : 0;
	if (p == NULL || al == 0 || anc[0] != '/' || (access != POL_READ && access != POL_WRITE))
		return 0;
	if (pol_path(p, anc, access, NULL) != POL_ALLOW)
		return 0;
	uint32_t grant = POL_NONE, grant_len = 0, soft = POL_NONE, soft_len = 0;
	for (uint32_t i = 0; i < p->h.nrules; i++) {
		const struct pol_rule_rec *r = rule_at(p, i);
		if (r->kind == POL_R_NET)
			continue;
		bool deny = r->kind == POL_R_HARD_DENY || r->kind == POL_R_SOFT_DENY;
		const char *g = str_at(p, r->glob);
		size_t n = r->prefix_len;
		if (deny && leaf_glob(g + n))
			continue;                        /* PREFIX/ ** /NAME: NAME is left to user space */
		if (n == 0) {
			if (deny && !leaf_glob(g))
				return 0;                /* a floating deny the kernel cannot match */
			continue;                        /* a grant; or a NAME the kernel leaves to user space */
		} else if (n <= al && strncmp(g, anc, n) == 0 && (anc[n] == '/' || anc[n] == 0 || n == 1)) {
			if (r->flags & POL_RF_EXACT)
				continue;                /* that one path, never below anc */
			int gb = (r->flags & POL_RF_SUBTREE) ? 1 : glob_below(g, anc);
			if (gb < 0 && deny)
				return 0;                /* a deny glob that may match part of the subtree */
			if (gb != 1)
				continue;
		} else if (n > al && strncmp(g, anc, al) == 0 && (g[al] == '/' || al == 1)) {
			if (deny)
				return 0;                /* a deny for part of the subtree */
			continue;
		} else {
			continue;
		}
		if (r->kind == POL_R_HARD_DENY)
			return 0;
		if (r->kind == POL_R_SOFT_DENY) {
			if (soft == POL_NONE || n > soft_len) {
				soft = i;
				soft_len = (uint32_t)n;
			}
		} else if ((r->access & access) == access && (grant == POL_NONE || n > grant_len)) {
			grant = i;
			grant_len = (uint32_t)n;
		}
	}
	return grant != POL_NONE && (soft == POL_NONE || grant_len > soft_len);
}

/* ---- network decisions --------------------------------------------------------------------------- */

static bool prefix_match(const uint8_t *a, const uint8_t *b, unsigned bits)
{
	unsigned bytes = bits / 8, rem = bits % 8;
	if (memcmp(a, b, bytes) != 0)
		return false;
	if (rem == 0)
		return true;
	uint8_t m = (uint8_t)(0xffu << (8 - rem));
	return (a[bytes] & m) == (b[bytes] & m);
}

static bool port_match(uint16_t rule_port, uint16_t port)
{
	return rule_port == 0 || (port != 0 && rule_port == port);
}

/* Common prologue: the policy-wide network mode. Returns -1 when the entries decide. */
static int net_mode_decision(const struct policy *p, struct pol_decision *out)
{
	if (p == NULL)
		return finish(out, POL_DENY, POL_RULE_NET_NONE, 0);
	if (p->h.net_mode == POL_NET_ANY)
		return finish(out, POL_ALLOW, POL_RULE_NET_ANY, 0);
	if (p->h.net_mode == POL_NET_NONE)
		return finish(out, POL_DENY, POL_RULE_NET_NONE, 0);
	return -1;
}

/* Net decisions scan the net entries linearly: host lists are short (tens), and the kernel
 * layers, not this function, handle large CIDR sets (LPM trie). */
/* The run's own loopback or any-address (IPv4-mapped IPv6 decided as IPv4). */
static bool own_local(int family, const uint8_t *a)
{
	static const uint8_t any6[16], lo6[16] = {[15] = 1};
	static const uint8_t mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };
	if (family == AF_INET6 && memcmp(a, mapped, sizeof mapped) == 0) {
		family = AF_INET;
		a += 12;
	}
	if (family == AF_INET)
		return a[0] == 127 || (a[0] | a[1] | a[2] | a[3]) == 0;
	return family == AF_INET6 && (!memcmp(a, any6, 16) || !memcmp(a, lo6, 16));
}

int pol_net_addr(const struct policy *p, int family, const void *addr, uint16_t port,
		 struct pol_decision *out)
{
	if (pol_own_netns(p) && addr != NULL && own_local(family, addr))
		return finish(out, POL_ALLOW, POL_RULE_NET_OWN, 0);
	int v = net_mode_decision(p, out);
	if (v >= 0)
		return v;
	if (addr == NULL || (family != AF_INET && family != AF_INET6))
		return finish(out, POL_DENY, POL_RULE_DEFAULT, 0);
	const uint8_t *a = addr;
	static const uint8_t mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };
	if (family == AF_INET6 && memcmp(a, mapped, sizeof mapped) == 0) {
		family = AF_INET;
		a += 12;
	}
	uint32_t examined = 0;
	for (uint32_t i = 0; i < p->h.nnet; i++) {
		const struct pol_net_rec *n = net_at(p, i);
		examined++;
		if (n->family != (uint32_t)family)
			continue;
		if (prefix_match(n->addr, a, n->prefix) && port_match(n->port, port))
			return finish(out, POL_ALLOW, n->rule, examined);
	}
	return finish(out, POL_DENY, POL_RULE_DEFAULT, examined);
}

static bool is_localhost(const char *name, size_t len)
{
	return (len == 9 && !strncasecmp(name, "localhost", 9)) ||
	       (len > 10 && !strncasecmp(name + len - 10, ".localhost", 10));
}

bool pol_host_match(const char *pattern, const char *name, size_t len)
{
	if (pattern == NULL || name == NULL)
		return false;
	size_t pl = strlen(pattern);
	if (pl > 2 && pattern[0] == '*' && pattern[1] == '.')
		return len > pl - 1 && strncasecmp(name + len - (pl - 1), pattern + 1, pl - 1) == 0;
	return pl == len && strncasecmp(pattern, name, len) == 0;
}

int pol_net_name(const struct policy *p, const char *name, uint16_t port, struct pol_decision *out)
{
	size_t len = name != NULL ? strnlen(name, 256) : 0;
	if (len > 0 && len <= 254 && pol_own_netns(p) && is_localhost(name, name[len - 1] == '.' ? len - 1 : len))
		return finish(out, POL_ALLOW, POL_RULE_NET_OWN, 0);
	int v = net_mode_decision(p, out);
	if (v >= 0)
		return v;
	if (name == NULL || name[0] == '\0')
		return finish(out, POL_DENY, POL_RULE_DEFAULT, 0);
	if (len > 254)
		return finish(out, POL_DENY, POL_RULE_DEFAULT, 0);
	if (name[len - 1] == '.')
		len--;
	if (len == 0)
		return finish(out, POL_DENY, POL_RULE_DEFAULT, 0);

	/* A numeric host is decided as the address it is. */
	char buf[256];
	memcpy(buf, name, len);
	buf[len] = '\0';
	uint8_t a[16];
	if (inet_pton(AF_INET, buf, a) == 1)
		return pol_net_addr(p, AF_INET, a, port, out);
	if (inet_pton(AF_INET6, buf, a) == 1)
		return pol_net_addr(p, AF_INET6, a, port, out);

	uint32_t examined = 0;
	for (uint32_t i = 0; i < p->h.nnet; i++) {
		const struct pol_net_rec *n = net_at(p, i);
		examined++;
		if (!n->is_name)
			continue;
		const char *rn = str_at(p, n->name);
		/* port 0: a lookup with no port (gethostbyname), the connect decides the port */
		if (pol_host_match(rn, buf, len) && (port == 0 || port_match(n->port, port)))
			return finish(out, POL_ALLOW, n->rule, examined);
	}
	return finish(out, POL_DENY, POL_RULE_DEFAULT, examined);
}

/* ---- texts and accessors ------------------------------------------------------------------------- */

bool pol_rule_urgent(const struct policy *p, uint32_t rule)
{
	if (pol_priv_rule_text(rule))
		return true;
	return p != NULL && rule < p->h.nrules && rule_at(p, rule)->kind == POL_R_HARD_DENY;
}

const char *pol_rule_text(const struct policy *p, uint32_t rule)
{
	switch (rule) {
	case POL_RULE_DEFAULT:  return "default: not granted";
	case POL_RULE_NET_ANY:  return "network: unrestricted";
	case POL_RULE_NET_NONE: return "network: no capability";
	case POL_RULE_NO_EXEC:  return "no code:exec capability";
	case POL_RULE_NET_OWN:  return "network: the run's own namespace (loopback)";
	default: break;
	}
	if (pol_priv_rule_text(rule))
		return pol_priv_rule_text(rule);
	if (p == NULL || rule >= p->h.nrules)
		return "unknown rule";
	return str_at(p, rule_at(p, rule)->text);
}

bool pol_rule_hard_deny(const struct policy *p, uint32_t rule)
{
	return p != NULL && rule < p->h.nrules && rule_at(p, rule)->kind == POL_R_HARD_DENY;
}

const char *pol_manifest_deny(const struct policy *p, size_t i, uint32_t *rule)
{
	for (uint32_t k = 0; p != NULL && k < p->h.nrules; k++) {
		const struct pol_rule_rec *r = rule_at(p, k);
		if (r->kind != POL_R_HARD_DENY || strncmp(str_at(p, r->text), "deny[", 5) != 0)
			continue;
		if (i-- == 0) {
			if (rule)
				*rule = k;
			return str_at(p, r->glob);
		}
	}
	return NULL;
}

bool pol_stage_exe(const struct policy *p, uint64_t *dev, uint64_t *ino)
{
	if (p == NULL || p->h.stage_ino == 0)
		return false;
	*dev = p->h.stage_dev;
	*ino = p->h.stage_ino;
	return true;
}

bool pol_code_exec(const struct policy *p)
{
	return p != NULL && (p->h.flags & POL_F_CODE_EXEC) != 0;
}

bool pol_abstract_inside(const struct policy *p)
{
	return p != NULL && (p->h.flags & POL_F_ABSTRACT_INSIDE) != 0;
}

bool pol_own_netns(const struct policy *p)
{
	return pol_abstract_inside(p);
}

bool pol_gateway(const struct policy *p)
{
	return pol_own_netns(p) && p->h.net_mode == POL_NET_LIST;
}

bool pol_own_pidns(const struct policy *p)
{
	return p != NULL && (p->h.flags & POL_F_OWN_PIDNS) != 0;
}

enum pol_net_mode pol_net_mode(const struct policy *p)
{
	return p == NULL ? POL_NET_NONE : (enum pol_net_mode)p->h.net_mode;
}

const char *pol_executor_name(const struct policy *p)
{
	return p == NULL ? "" : str_at(p, p->h.name);
}

const char *pol_workspace(const struct policy *p)
{
	return p == NULL ? "" : str_at(p, p->h.workspace);
}

const char *pol_home(const struct policy *p)
{
	return p == NULL ? "" : str_at(p, p->h.home);
}

size_t pol_dir_count(const struct policy *p)
{
	return p == NULL ? 0 : p->h.ndirs;
}

static int dir_get(const struct policy *p, uint32_t off, uint32_t n, size_t i, struct pol_dir *out)
{
	if (p == NULL || out == NULL || i >= n) {
		errno = ERANGE;
		return -1;
	}
	const struct pol_dir_rec *d = dir_table(p, off) + i;
	out->path = str_at(p, d->path);
	out->access = d->access;
	out->rule = d->rule;
	return 0;
}

int pol_dir_get(const struct policy *p, size_t i, struct pol_dir *out)
{
	return p == NULL ? (errno = ERANGE, -1) : dir_get(p, p->h.dir_off, p->h.ndirs, i, out);
}

size_t pol_mask_count(const struct policy *p)
{
	return p == NULL ? 0 : p->h.nmasks;
}

int pol_mask_get(const struct policy *p, size_t i, struct pol_dir *out)
{
	return p == NULL ? (errno = ERANGE, -1) : dir_get(p, p->h.mask_off, p->h.nmasks, i, out);
}

size_t pol_net_count(const struct policy *p)
{
	return p == NULL ? 0 : p->h.nnet;
}

int pol_net_get(const struct policy *p, size_t i, struct pol_net *out)
{
	if (p == NULL || out == NULL || i >= p->h.nnet) {
		errno = ERANGE;
		return -1;
	}
	const struct pol_net_rec *n = net_at(p, (uint32_t)i);
	out->family = (int)n->family;
	memcpy(out->addr, n->addr, sizeof out->addr);
	out->prefix = n->prefix;
	out->port = n->port;
	out->is_name = n->is_name != 0;
	out->name = n->is_name ? str_at(p, n->name) : NULL;
	out->rule = n->rule;
	return 0;
}
