/* policy_write.c — lays out a compiled policy blob (format: policy_format.h).
 *
 * Promise: the writer accumulates rules, directory grants, masks and network entries in ordinary
 * heap arrays, then pol_writer_finish() produces one malloc'd, 8-byte aligned blob that passes
 * pol_open() (it is checked before being returned). Errors are sticky: the first one is kept and
 * every later call fails, so a builder may check once at the end.
 *
 * libc only. The preload never writes a policy: its build (SBX_PRELOAD) compiles this file empty.
 */
#ifndef SBX_PRELOAD
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "policy_write.h"

struct wrule {
	uint8_t kind, access, flags;
	uint32_t glob, prefix_len, text, hash;
};

struct pol_writer {
	char *str; size_t slen, scap;
	struct wrule *rules; size_t nrules, crules;
	struct pol_dir_rec *dirs; size_t ndirs, cdirs;
	struct pol_dir_rec *masks; size_t nmasks, cmasks;
	struct pol_net_rec *nets; size_t nnets, cnets;
	uint32_t name, workspace, home, flags, net_mode;
	uint64_t stage_dev, stage_ino;
	char err[256];
	bool failed;
};

static int fail(struct pol_writer *w, const char *fmt, ...)
{
	if (!w->failed) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(w->err, sizeof w->err, fmt, ap);
		va_end(ap);
		w->failed = true;
	}
	errno = EINVAL;
	return -1;
}

/* Grow *arr (element size `sz`) to hold n + 1 elements. */
static int grow(struct pol_writer *w, void **arr, size_t *cap, size_t n, size_t sz)
{
	if (n < *cap)
		return 0;
	size_t nc = *cap ? *cap * 2 : 16;
	if (nc > POL_MAX_BLOB / sz)
		return fail(w, "policy too large");
	void *p = realloc(*arr, nc * sz);
	if (p == NULL)
		return fail(w, "out of memory");
	*arr = p;
	*cap = nc;
	return 0;
}

/* Appends a string; returns its offset or POL_NONE on failure. */
static uint32_t add_str(struct pol_writer *w, const char *s)
{
	if (w->failed)
		return POL_NONE;
	size_t n = strlen(s) + 1;
	if (w->slen + n > POL_MAX_BLOB)
		return fail(w, "policy string table too large"), POL_NONE;
	while (w->slen + n > w->scap) {
		size_t nc = w->scap ? w->scap * 2 : 4096;
		char *p = realloc(w->str, nc);
		if (p == NULL)
			return fail(w, "out of memory"), POL_NONE;
		w->str = p;
		w->scap = nc;
	}
	memcpy(w->str + w->slen, s, n);
	uint32_t off = (uint32_t)w->slen;
	w->slen += n;
	return off;
}

struct pol_writer *pol_writer_new(void)
{
	struct pol_writer *w = calloc(1, sizeof *w);
	if (w == NULL)
		return NULL;
	/* Offset 0 is the empty string, the default for name/workspace/home. */
	if (add_str(w, "") != 0) {
		pol_writer_free(w);
		return NULL;
	}
	return w;
}

void pol_writer_free(struct pol_writer *w)
{
	if (w == NULL)
		return;
	free(w->str);
	free(w->rules);
	free(w->dirs);
	free(w->masks);
	free(w->nets);
	free(w);
}

const char *pol_writer_error(const struct pol_writer *w)
{
	return w != NULL && w->failed ? w->err : NULL;
}

int pol_writer_meta(struct pol_writer *w, const char *name, const char *workspace,
		    const char *home, bool code_exec, enum pol_net_mode mode)
{
	if (w->failed)
		return -1;
	w->name = add_str(w, name ? name : "");
	w->workspace = add_str(w, workspace ? workspace : "");
	w->home = add_str(w, home ? home : "");
	w->flags = code_exec ? POL_F_CODE_EXEC : 0;
	w->net_mode = (uint32_t)mode;
	return w->failed ? -1 : 0;
}

void pol_writer_abstract_inside(struct pol_writer *w, bool on)
{
	if (on)
		w->flags |= POL_F_ABSTRACT_INSIDE;
	else
		w->flags &= ~(uint32_t)POL_F_ABSTRACT_INSIDE;
}

void pol_writer_own_pidns(struct pol_writer *w, bool on)
{
	if (on)
		w->flags |= POL_F_OWN_PIDNS;
	else
		w->flags &= ~(uint32_t)POL_F_OWN_PIDNS;
}

void pol_writer_stage(struct pol_writer *w, uint64_t dev, uint64_t ino)
{
	w->stage_dev = dev;
	w->stage_ino = ino;
}

static int add_rule(struct pol_writer *w, struct wrule *r, uint32_t *idx)
{
	if (w->failed)
		return -1;
	if (w->nrules >= POL_RULE_NO_EXEC - 1)
		return fail(w, "too many rules");
	if (grow(w, (void **)&w->rules, &w->crules, w->nrules, sizeof *w->rules) < 0)
		return -1;
	w->rules[w->nrules] = *r;
	if (idx != NULL)
		*idx = (uint32_t)w->nrules;
	w->nrules++;
	return 0;
}

int pol_writer_rule(struct pol_writer *w, enum pol_rule_kind kind, unsigned access,
		    const char *glob, const char *text, uint32_t *idx)
{
	if (w->failed)
		return -1;
	if (kind > POL_R_HARD_DENY)
		return fail(w, "%s: not a path rule", text);
	size_t gl = strlen(glob);
	if (gl == 0 || glob[0] != '/')
		return fail(w, "%s: path is not absolute", text);
	if (gl > POL_GLOB_MAX)
		return fail(w, "%s: longer than %u bytes", text, POL_GLOB_MAX);
	bool exact = (access & POL_W_EXACT) != 0;
	access &= ~POL_W_EXACT;
	if (access & ~(unsigned)(POL_READ | POL_WRITE | POL_EXEC))
		return fail(w, "%s: bad access bits", text);
	struct wrule r = { .kind = (uint8_t)kind, .access = (uint8_t)access };
	r.prefix_len = (uint32_t)pol_glob_literal_prefix(glob);
	r.flags = pol_glob_has_magic(glob) ? 0 : exact ? POL_RF_EXACT : POL_RF_SUBTREE;
	if (exact && pol_glob_has_magic(glob))
		return fail(w, "%s: an exact rule must be a literal path", text);
	if ((r.flags & (POL_RF_SUBTREE | POL_RF_EXACT)) && r.prefix_len != gl)
		return fail(w, "%s: path must not end with '/'", text);
	r.hash = pol_prefix_hash(glob, r.prefix_len);
	r.glob = add_str(w, glob);
	r.text = add_str(w, text);
	if (w->failed)
		return -1;
	return add_rule(w, &r, idx);
}

int pol_writer_net_rule(struct pol_writer *w, const char *host, const char *text, uint32_t *idx)
{
	if (w->failed)
		return -1;
	struct wrule r = { .kind = POL_R_NET, .hash = pol_prefix_hash("", 0) };
	r.glob = add_str(w, host);
	r.text = add_str(w, text);
	if (w->failed)
		return -1;
	return add_rule(w, &r, idx);
}

static int add_dir(struct pol_writer *w, struct pol_dir_rec **arr, size_t *n, size_t *cap,
		   const char *path, unsigned access, uint32_t rule, bool merge)
{
	if (w->failed)
		return -1;
	if (path == NULL || path[0] != '/')
		return fail(w, "directory entry is not absolute");
	if (rule >= w->nrules)
		return fail(w, "directory entry names no rule");
	if (merge) {
		for (size_t i = 0; i < *n; i++) {
			if (strcmp(w->str + (*arr)[i].path, path) == 0) {
				(*arr)[i].access |= access;
				return 0;
			}
		}
	}
	if (grow(w, (void **)arr, cap, *n, sizeof **arr) < 0)
		return -1;
	uint32_t s = add_str(w, path);
	if (w->failed)
		return -1;
	(*arr)[*n] = (struct pol_dir_rec){ .path = s, .access = access, .rule = rule };
	(*n)++;
	return 0;
}

int pol_writer_dir(struct pol_writer *w, const char *path, unsigned access, uint32_t rule)
{
	return add_dir(w, &w->dirs, &w->ndirs, &w->cdirs, path, access, rule, true);
}

int pol_writer_dir_at(const struct pol_writer *w, size_t i, const char **path, unsigned *access)
{
	if (w->failed || i >= w->ndirs)
		return -1;
	*path = w->str + w->dirs[i].path;
	*access = w->dirs[i].access;
	return 0;
}

int pol_writer_mask(struct pol_writer *w, const char *path, uint32_t rule)
{
	return add_dir(w, &w->masks, &w->nmasks, &w->cmasks, path, POL_READ | POL_WRITE, rule,
		       true);
}

int pol_writer_net(struct pol_writer *w, const struct pol_net *n)
{
	if (w->failed)
		return -1;
	if (n->rule >= w->nrules || w->rules[n->rule].kind != POL_R_NET)
		return fail(w, "network entry names no network rule");
	if ((n->family == AF_INET && n->prefix > 32) || (n->family == AF_INET6 && n->prefix > 128) ||
	    (n->family != AF_INET && n->family != AF_INET6 && !(n->family == 0 && n->is_name)))
		return fail(w, "%s: bad network entry", w->str + w->rules[n->rule].text);
	if (n->is_name && (n->name == NULL || n->name[0] == '\0'))
		return fail(w, "network name entry without a name");
	if (grow(w, (void **)&w->nets, &w->cnets, w->nnets, sizeof *w->nets) < 0)
		return -1;
	struct pol_net_rec r = {
		.family = (uint32_t)n->family, .prefix = n->prefix, .is_name = n->is_name ? 1 : 0,
		.port = n->port, .name = POL_NONE, .rule = n->rule,
	};
	memcpy(r.addr, n->addr, sizeof r.addr);
	if (n->is_name) {
		r.name = add_str(w, n->name);
		if (w->failed)
			return -1;
	}
	w->nets[w->nnets++] = r;
	return 0;
}

static size_t align8(size_t n)
{
	return (n + 7u) & ~(size_t)7u;
}

int pol_writer_finish(struct pol_writer *w, void **blob, size_t *len, char *err, size_t errlen)
{
	*blob = NULL;
	*len = 0;
	if (w->failed)
		goto out_err;

	size_t nbuckets = 8;
	while (nbuckets < w->nrules * 2)
		nbuckets *= 2;
	size_t nfloat = 0;
	for (size_t i = 0; i < w->nrules; i++)
		if (w->rules[i].kind != POL_R_NET && w->rules[i].prefix_len == 0)
			nfloat++;

	size_t off = align8(sizeof(struct pol_hdr));
	size_t rule_off = off;   off = align8(off + w->nrules * sizeof(struct pol_rule_rec));
	size_t bucket_off = off; off = align8(off + nbuckets * sizeof(uint32_t));
	size_t float_off = off;  off = align8(off + nfloat * sizeof(uint32_t));
	size_t dir_off = off;    off = align8(off + w->ndirs * sizeof(struct pol_dir_rec));
	size_t mask_off = off;   off = align8(off + w->nmasks * sizeof(struct pol_dir_rec));
	size_t net_off = off;    off = align8(off + w->nnets * sizeof(struct pol_net_rec));
	size_t str_off = off;    off = align8(off + w->slen);
	if (off > POL_MAX_BLOB) {
		fail(w, "policy larger than %u bytes", POL_MAX_BLOB);
		goto out_err;
	}

	char *b = aligned_alloc(8, off);
	if (b == NULL) {
		fail(w, "out of memory");
		goto out_err;
	}
	memset(b, 0, off);
	struct pol_hdr *h = (struct pol_hdr *)b;
	*h = (struct pol_hdr){
		.magic = POL_MAGIC, .version = POL_VERSION, .total_size = (uint32_t)off,
		.flags = w->flags, .net_mode = w->net_mode,
		.stage_dev = w->stage_dev, .stage_ino = w->stage_ino,
		.name = w->name, .workspace = w->workspace, .home = w->home,
		.rule_off = (uint32_t)rule_off, .nrules = (uint32_t)w->nrules,
		.bucket_off = (uint32_t)bucket_off, .nbuckets = (uint32_t)nbuckets,
		.float_off = (uint32_t)float_off, .nfloat = (uint32_t)nfloat,
		.dir_off = (uint32_t)dir_off, .ndirs = (uint32_t)w->ndirs,
		.mask_off = (uint32_t)mask_off, .nmasks = (uint32_t)w->nmasks,
		.net_off = (uint32_t)net_off, .nnet = (uint32_t)w->nnets,
		.str_off = (uint32_t)str_off, .str_len = (uint32_t)w->slen,
	};

	struct pol_rule_rec *rr = (struct pol_rule_rec *)(b + rule_off);
	uint32_t *buckets = (uint32_t *)(b + bucket_off);
	uint32_t *floats = (uint32_t *)(b + float_off);
	for (size_t k = 0; k < nbuckets; k++)
		buckets[k] = POL_NONE;
	/* Chains are built in index order by appending at the tail: next > index always. The tail of
	 * each bucket is tracked in the `next` field of a scratch pass. */
	uint32_t *tail = malloc(nbuckets * sizeof *tail);
	if (tail == NULL) {
		free(b);
		fail(w, "out of memory");
		goto out_err;
	}
	for (size_t k = 0; k < nbuckets; k++)
		tail[k] = POL_NONE;
	size_t nf = 0;
	for (size_t i = 0; i < w->nrules; i++) {
		const struct wrule *r = &w->rules[i];
		rr[i] = (struct pol_rule_rec){
			.kind = r->kind, .access = r->access, .flags = r->flags,
			.glob = r->glob, .prefix_len = r->prefix_len, .text = r->text,
			.next = POL_NONE, .hash = r->hash,
		};
		if (r->kind == POL_R_NET)
			continue;
		if (r->prefix_len == 0) {
			floats[nf++] = (uint32_t)i;
			continue;
		}
		size_t k = r->hash & (nbuckets - 1);
		if (tail[k] == POL_NONE)
			buckets[k] = (uint32_t)i;
		else
			rr[tail[k]].next = (uint32_t)i;
		tail[k] = (uint32_t)i;
	}
	free(tail);
	if (w->ndirs)
		memcpy(b + dir_off, w->dirs, w->ndirs * sizeof(struct pol_dir_rec));
	if (w->nmasks)
		memcpy(b + mask_off, w->masks, w->nmasks * sizeof(struct pol_dir_rec));
	if (w->nnets)
		memcpy(b + net_off, w->nets, w->nnets * sizeof(struct pol_net_rec));
	memcpy(b + str_off, w->str, w->slen);

	const char *why = NULL;
	if (pol_open(b, off, &why) == NULL) {
		free(b);
		fail(w, "internal error: built policy does not validate: %s", why);
		goto out_err;
	}
	*blob = b;
	*len = off;
	return 0;
out_err:
	if (err != NULL && errlen > 0)
		snprintf(err, errlen, "%s", w->err);
	errno = EINVAL;
	return -1;
}
#else
typedef int pol_write_unused_in_preload;
#endif
