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
	bool have = false;
	for (size_t guard = 0; guard < 4 * PR_KD_MAX && bpf_map_get_next_key(fd, have ? key : NULL, next) == 0;
	     guard++) {
		uint32_t s;
		memcpy(&s, next, sizeof s);
		if (s == slot && n < cap)
			memcpy(del + n++ * key_size, next, key_size);
		memcpy(key, next, key_size);
		have = true;
	}
	for (size_t i = 0; i < n; i++)
		bpf_map_delete_elem(fd, del + i * key_size);
	free(del);
}

void pr_kdec_clear(const struct pr_kdec_fds *m, uint32_t slot)
{
	struct pr_kdec off = { 0, 0 };
	if (m->kdec >= 0)
		bpf_map_update_elem(m->kdec, &slot, &off, BPF_ANY);
	purge(m->safe, slot, sizeof(struct pr_safe_key));
	purge(m->leaves, slot, sizeof(struct pr_leaf_key));
}

struct leaf_acc {
	const struct pr_kdec_fds *m;
	uint32_t slot;
	struct pr_kdec_stats *st;
	bool long_leaf;
	int err;
};

static void add_leaf(void *arg, const char *name)
{
	struct leaf_acc *a = arg;
	size_t n = strlen(name);
	if (n >= PR_KD_LEAF) {
		a->long_leaf = true;            /* the kernel leaves every long basename to user space */
		return;
	}
	struct pr_leaf_key k;
	memset(&k, 0, sizeof k);
	k.slot = a->slot;
	memcpy(k.name, name, n);
	uint32_t one = 1;
	if (bpf_map_update_elem(a->m->leaves, &k, &one, BPF_ANY) != 0)
		a->err = errno;
	else
		a->st->leaves++;
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
	struct leaf_acc la = { .m = m, .slot = slot, .st = st };
	if (pol_leaf_names(p, add_leaf, &la) != 0)
		return 0;                       /* a floating glob the kernel cannot match: all to user space */
	if (la.err) {
		errno = la.err;
		return -1;
	}
	struct pr_safe *v = calloc(1, sizeof *v);
	if (!v)
		return -1;
	const char *dbg = getenv("SBXSUP_DEBUG_KDEC");
	bool debug = dbg && !strcmp(dbg, "1");
	size_t nd = pol_dir_count(p);
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
		memset(v, 0, sizeof *v);
		size_t len = pr_kdec_encode(d.path, v->enc, sizeof v->enc);
		struct stat sb;
		if (!len || lstat(d.path, &sb) != 0 || S_ISLNK(sb.st_mode))
			continue;
		v->access = acc;
		v->len = (unsigned)len;
		struct pr_safe_key k = {
			.slot = slot,
			.dev = (unsigned)((major(sb.st_dev) << 20) | minor(sb.st_dev)),   /* the kernel's dev_t */
			.ino = (unsigned long long)sb.st_ino,
		};
		if (bpf_map_update_elem(m->safe, &k, v, BPF_NOEXIST) == 0)
			st->subtrees++;
		else if (errno != EEXIST)
			break;                  /* the map is full: what is in stays valid */
	}
	free(v);
	struct pr_kdec on = { 1, la.long_leaf };
	if (bpf_map_update_elem(m->kdec, &slot, &on, BPF_ANY) != 0)
		return -1;
	st->on = true;
	return 0;
}
