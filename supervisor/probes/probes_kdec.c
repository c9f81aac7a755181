/* probes_kdec.c — see probes_kdec.h. */
#include <errno.h>
#include <stdio.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <bpf/bpf.h>
#include "probes_kdec.h"
#include "bpf/probes.h"

size_t pr_kdec_encode(const char *path, char *out, size_t len)
{
	size_t pl = strlen(path), o = 0;
	if (pl < 2 || path[0] != '/')
		return 0;
	/* components from the last to the first */
	size_t end = pl;
	while (end > 0) {
		size_t start = end;
		while (start > 0 && path[start - 1] != '/')
			start--;
		size_t n = end - start;
		if (n == 0 || o + n + 1 > len)
			return 0;
		memcpy(out + o, path + start, n);
		out[o + n] = 0;
		o += n + 1;
		end = start - 1;            /* the '/' before it */
		if (start == 1)
			break;
	}
	return o;
}

/* Delete n keys (key_size each) in one system call where the kernel has batch operations (5.6+);
 * a key already gone is skipped. Where the kernel refused the batch before deleting anything (the
 * count it reports unchanged: no batch operations), one call per key. */
static void delete_keys(int fd, const unsigned char *keys, size_t n, size_t key_size)
{
	size_t i = 0;
	while (i < n) {
		__u32 want = (__u32)(n - i), cnt = want;
		if (bpf_map_delete_batch(fd, keys + i * key_size, &cnt, NULL) == 0)
			return;
		if (cnt >= want)
			break;                  /* refused as a whole: one by one */
		i += cnt + 1;                   /* keys i .. i+cnt-1 deleted; i+cnt is gone (ENOENT): skip */
	}
	for (; i < n; i++)
		bpf_map_delete_elem(fd, keys + i * key_size);
}

/* Put n (key, value) pairs, keys distinct and none in the map yet, in one system call where the
 * kernel can (BPF_ANY: the kernel's batch takes no other flag), else one call per pair. *in: how
 * many went in. 0, or -1 (errno) at a refusal, which stops it (a full map: what is in stays). */
static int update_pairs(int fd, const unsigned char *keys, size_t key_size, const unsigned char *vals,
			size_t val_size, size_t n, size_t *in)
{
	*in = 0;
	if (!n)
		return 0;
	__u32 cnt = (__u32)n;
	if (bpf_map_update_batch(fd, keys, vals, &cnt, NULL) == 0) {
		*in = n;
		return 0;
	}
	if (cnt < n) {                          /* pairs 0 .. cnt-1 went in, pair cnt was refused */
		*in = cnt;
		return -1;
	}
	for (size_t i = 0; i < n; i++) {        /* refused as a whole (no batch operations) */
		if (bpf_map_update_elem(fd, keys + i * key_size, vals + i * val_size, BPF_ANY) != 0)
			return -1;
		(*in)++;
	}
	return 0;
}

/* The keys of `fd` whose first u32 is `slot`, appended to del (cap keys at most), read a chunk of
 * entries per system call (bpf_map_lookup_batch). 0 when the walk ended, -1 when the kernel has no
 * batch lookup for it (nothing appended). */
static int slot_keys_batch(int fd, uint32_t slot, size_t key_size, unsigned char *del, size_t cap, size_t *n)
{
	struct bpf_map_info info;
	__u32 il = sizeof info;
	memset(&info, 0, sizeof info);
	if (bpf_obj_get_info_by_fd(fd, &info, &il) != 0 || info.key_size != key_size || !info.value_size)
		return -1;
	size_t chunk = 256;
	unsigned char *keys = malloc(chunk * key_size), *vals = malloc(chunk * info.value_size);
	unsigned char in[8], out[8];            /* the hash map's batch token: a bucket number */
	bool first = true;
	int rc = -1;
	size_t n0 = *n;
	for (size_t guard = 0; keys && vals && guard < 4 * PR_KD_MAX; guard++) {
		__u32 cnt = (__u32)chunk;
		int r = bpf_map_lookup_batch(fd, first ? NULL : in, out, keys, vals, &cnt, NULL);
		int e = errno;
		if (r != 0 && e == ENOSPC && chunk < PR_KD_MAX) { /* one bucket holds more than a chunk */
			chunk *= 4;
			unsigned char *k2 = realloc(keys, chunk * key_size), *v2 = k2 ? realloc(vals, chunk * info.value_size) : NULL;
			keys = k2 ? k2 : keys;
			vals = v2 ? v2 : vals;
			if (!k2 || !v2)
				break;
			continue;
		}
		if (r != 0 && e != ENOENT) {
			*n = n0;                /* no batch lookup here: the caller walks key by key */
			break;
		}
		for (__u32 i = 0; i < cnt; i++) {
			uint32_t s;
			memcpy(&s, keys + i * key_size, sizeof s);
			if (s == slot && *n < cap)
				memcpy(del + (*n)++ * key_size, keys + i * key_size, key_size);
		}
		if (r != 0) {                   /* ENOENT: the end of the map */
			rc = 0;
			break;
		}
		memcpy(in, out, sizeof in);
		first = false;
	}
	free(keys);
	free(vals);
	return rc;
}

/* Delete every key of `fd` whose first u32 (the slot) is `slot`. */
static void purge(int fd, uint32_t slot, size_t key_size)
{
	unsigned char key[64], next[64];
	if (fd < 0 || key_size > sizeof key)
		return;
	size_t cap = PR_KD_MAX, n = 0;
	unsigned char *del = malloc(cap * key_size);
	if (!del)
		return;
	if (slot_keys_batch(fd, slot, key_size, del, cap, &n) != 0) {
		bool have = false;
		for (size_t guard = 0;
		     guard < 4 * PR_KD_MAX && bpf_map_get_next_key(fd, have ? key : NULL, next) == 0; guard++) {
			uint32_t s;
			memcpy(&s, next, sizeof s);
			if (s == slot && n < cap)
				memcpy(del + n++ * key_size, next, key_size);
			memcpy(key, next, key_size);
			have = true;
		}
	}
	delete_keys(fd, del, n, key_size);
	free(del);
}

void pr_kdec_clear(const struct pr_kdec_fds *m, uint32_t slot)
{
	struct pr_kdec off;
	memset(&off, 0, sizeof off);
	if (m->kdec >= 0)
		bpf_map_update_elem(m->kdec, &slot, &off, BPF_ANY);
	purge(m->safe, slot, sizeof(struct pr_safe_key));
	purge(m->leaves, slot, sizeof(struct pr_leaf_key));
}

/* Keep the first pair of each key (the slot was just cleared, so only the policy's own repeats
 * collide: two granted paths of one (dev, ino)). Order kept; returns the new count. */
static int cmp_key_idx(const void *a, const void *b)
{
	const struct pr_safe_key *x = *(const struct pr_safe_key *const *)a, *y = *(const struct pr_safe_key *const *)b;
	if (x->dev != y->dev)
		return x->dev < y->dev ? -1 : 1;
	if (x->ino != y->ino)
		return x->ino < y->ino ? -1 : 1;
	return x < y ? -1 : x > y; /* the earlier entry first */
}

static size_t first_of_each(struct pr_safe_key *keys, struct pr_safe *vals, size_t n)
{
	const struct pr_safe_key **o = n > 1 ? malloc(n * sizeof *o) : NULL;
	bool *drop = n > 1 ? calloc(n, sizeof *drop) : NULL;
	if (!o || !drop) {
		free(o);
		free(drop);
		return n > 1 ? 0 : n;           /* out of memory: nothing goes in (the fill is partial) */
	}
	for (size_t i = 0; i < n; i++)
		o[i] = &keys[i];
	qsort(o, n, sizeof *o, cmp_key_idx);
	for (size_t i = 1; i < n; i++)
		if (o[i]->dev == o[i - 1]->dev && o[i]->ino == o[i - 1]->ino)
			drop[o[i] - keys] = true;
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (!drop[i]) {
			keys[k] = keys[i];
			vals[k] = vals[i];
			k++;
		}
	free(o);
	free(drop);
	return k;
}

/* The leaf names, gathered for one batch. */
struct leaf_acc {
	uint32_t slot;
	bool long_leaf;
	int err;
	struct pr_leaf_key *k;
	size_t n, cap;
};

static void add_leaf(void *arg, const char *name)
{
	struct leaf_acc *a = arg;
	size_t n = strlen(name);
	if (n >= PR_KD_LEAF) {
		a->long_leaf = true;            /* the kernel leaves every long basename to user space */
		return;
	}
	if (a->n == a->cap) {
		size_t cap = a->cap ? 2 * a->cap : 64;
		struct pr_leaf_key *k = realloc(a->k, cap * sizeof *k);
		if (!k) {
			a->err = ENOMEM;
			return;
		}
		a->k = k;
		a->cap = cap;
	}
	struct pr_leaf_key *k = &a->k[a->n++];
	memset(k, 0, sizeof *k);
	k->slot = a->slot;
	memcpy(k->name, name, n);
}

static bool under_proc(const char *p)
{
	return !strncmp(p, "/proc", 5) && (p[5] == 0 || p[5] == '/');
}

int pr_kdec_fill(const struct pr_kdec_fds *m, uint32_t slot, const struct policy *p,
		 struct pr_kdec_stats *st)
{
	memset(st, 0, sizeof *st);
	pr_kdec_clear(m, slot);
	struct leaf_acc la = { .slot = slot };
	if (pol_leaf_names(p, add_leaf, &la) != 0) {
		free(la.k);
		return 0;                       /* a floating glob the kernel cannot match: all to user space */
	}
	uint32_t *ones = la.err ? NULL : calloc(la.n + 1, sizeof *ones);
	for (size_t i = 0; ones && i < la.n; i++)
		ones[i] = 1;
	size_t in = 0;
	int rc = ones ? update_pairs(m->leaves, (const unsigned char *)la.k, sizeof *la.k,
				     (const unsigned char *)ones, sizeof *ones, la.n, &in) : -1;
	int e = la.err ? la.err : errno;
	free(ones);
	free(la.k);
	st->leaves = (unsigned)in;
	if (rc < 0 || la.err) {
		errno = e;
		return -1;
	}
	size_t nd = pol_dir_count(p), n = 0;
	struct pr_safe *vals = calloc(nd + 1, sizeof *vals);
	struct pr_safe_key *keys = calloc(nd + 1, sizeof *keys);
	if (!vals || !keys) {
		free(vals);
		free(keys);
		return -1;
	}
	const char *dbg = getenv("SBXSUP_DEBUG_KDEC");
	bool debug = dbg && !strcmp(dbg, "1");
	for (size_t i = 0; i < nd; i++) {
		struct pol_dir d;
		if (pol_dir_get(p, i, &d) != 0 || !(d.access & (POL_READ | POL_WRITE)) || under_proc(d.path))
			continue;
		unsigned acc = (pol_subtree(p, d.path, POL_READ) ? PR_KD_READ : 0) |
			       (pol_subtree(p, d.path, POL_WRITE) ? PR_KD_WRITE : 0);
		if (debug)                      /* SBXSUP_DEBUG_KDEC=1: what each candidate became */
			fprintf(stderr, "sbxsup: kdec: %s %s%s\n", d.path, acc & PR_KD_READ ? "r" : "-",
				acc & PR_KD_WRITE ? "w" : "-");
		if (!acc)
			continue;
		struct pr_safe *v = &vals[n];
		size_t len = pr_kdec_encode(d.path, v->enc, sizeof v->enc);
		struct stat sb;
		if (!len || lstat(d.path, &sb) != 0 || S_ISLNK(sb.st_mode)) {
			memset(v, 0, sizeof *v);
			continue;
		}
		v->access = acc;
		v->len = (unsigned)len;
		keys[n++] = (struct pr_safe_key){
			.slot = slot,
			.dev = (unsigned)((major(sb.st_dev) << 20) | minor(sb.st_dev)),   /* the kernel's dev_t */
			.ino = (unsigned long long)sb.st_ino,
		};
	}
	/* the first of two entries for one (dev, ino) wins; a full map stops the fill, what is in
	 * stays valid */
	n = first_of_each(keys, vals, n);
	(void)update_pairs(m->safe, (const unsigned char *)keys, sizeof *keys, (const unsigned char *)vals,
			   sizeof *vals, n, &in);
	st->subtrees = (unsigned)in;
	struct pr_kdec on;
	memset(&on, 0, sizeof on);
	on.on = 1;
	on.long_leaf = la.long_leaf;
	for (size_t i = 0; i < n; i++) {       /* every key handed to the map (a superset of those in) */
		unsigned b = pr_kd_bit(keys[i].dev, keys[i].ino);
		on.safe_bits[b / 8] |= (unsigned char)(1u << (b % 8));
	}
	free(vals);
	free(keys);
	if (bpf_map_update_elem(m->kdec, &slot, &on, BPF_ANY) != 0)
		return -1;
	st->on = true;
	return 0;
}
