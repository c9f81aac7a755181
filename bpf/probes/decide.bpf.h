/* decide.bpf.h — the in-kernel decision: an open the run's compiled grants provably allow sends no
 * record.
 *
 * Promise: kd_allowed() is true only when user space (pr_decide + pol_path) would allow the record
 * without a line: the open succeeded (its file is the object, PR_PK_FULL), the walk reached the
 * task's root complete (no truncation, not detached), some walked dentry S is in pr_safe for this
 * run with the access asked, the names from S up to the root are byte for byte S's own path as user
 * space compiled it (so S reached through another mount point does not count), and the leaf's name
 * is not one a floating "**" "/NAME" rule names (nor, when such a rule has a long NAME, longer than
 * the key). Anything else returns false and the record crosses the ring as before. What pr_safe
 * holds (S and everything below S allowed for that access, S not "/" nor under /proc) is user
 * space's promise (supervisor/probes/probes_kdec.c). pr_kd_open() (fd's file, walk,
 * decision) is a global subprogram: verified once, on its own.
 */
#ifndef SBX_PROBES_DECIDE_BPF_H
#define SBX_PROBES_DECIDE_BPF_H

#define O_PATH_ 010000000ull

/* The access an open asks, as probes_decode.c's open_access decides it. */
static __always_inline __u32 kd_open_want(__u64 fl)
{
	__u64 acc = fl & 3;
	if (acc == 1 || acc == 2 || (fl & (0100 | 01000 | 02000)) || (fl & 020200000ull) == 020200000ull)
		return PR_KD_WRITE;
	return PR_KD_READ;
}

/* Is the in-kernel decision on for this run slot? */
static __always_inline bool kd_on(__u32 slot)
{
	slot &= PR_SLOTS - 1;
	struct pr_kdec *k = bpf_map_lookup_elem(&pr_kdec, &slot);
	return k && k->on;
}

static __always_inline void kd_count(__u32 slot)
{
	count(&pr_kallow, slot & (PR_SLOTS - 1));
}

/* The walked names from the hit on against S's encoded path, 8 bytes a step (a bpf_loop callback:
 * verified once instead of once per unrolled step). */
struct kd_cmp {
	const char *walked;         /* pr_pathbuf.b */
	const char *enc;            /* pr_safe.enc */
	__u32 base;
	__u32 len;
	__u32 differ;
};

static long kd_cmp_step(__u32 i, void *arg)
{
	struct kd_cmp *c = arg;
	__u32 at = (i & (PR_KD_ENC / 8 - 1)) * 8;
	if (at >= c->len)
		return 1;
	__u64 a = *(const __u64 *)&c->walked[(c->base + at) & PR_PATH_OFF_MASK];
	__u64 b = *(const __u64 *)&c->enc[at & (PR_KD_ENC - 8)];
	__u32 rem = c->len - at;
	__u64 mask = rem >= 8 ? ~0ull : ((1ull << (rem * 8)) - 1);
	if ((a ^ b) & mask) {
		c->differ = 1;
		return 1;
	}
	return 0;
}

/* The walk just done into pb (walk_run with want and slot). */
static __always_inline bool kd_allowed(struct pr_pathbuf *pb)
{
	const struct walk_ctx *w = &pb->w;
	__u32 slot = w->slot & (PR_SLOTS - 1);
	if (!w->want || !w->hit || !w->done || w->detached || !w->n)
		return false;
	struct pr_kdec *k = bpf_map_lookup_elem(&pr_kdec, &slot);
	if (!k || !k->on)
		return false;
	if (w->leaf_len > PR_KD_LEAF) {
		if (k->long_leaf)
			return false;
	} else {
		/* the leaf's name as the walk wrote it (leaf_len bytes incl. the NUL, at most the
		 * key's), zeros after: copied by words, no helper call */
		struct pr_leaf_key lk = { .slot = slot };
		__u32 ll = w->leaf_len;
		for (int j = 0; j < PR_KD_LEAF / 8; j++) {
			__u32 at = (__u32)j * 8;
			__u64 x = 0;
			if (at < ll) {
				x = *(const __u64 *)&pb->b[at];
				if (ll - at < 8)
					x &= (1ull << ((ll - at) * 8)) - 1;
			}
			__builtin_memcpy(&lk.name[at], &x, 8);
		}
		if (bpf_map_lookup_elem(&pr_leaves, &lk))
			return false;
	}
	struct pr_safe_key sk = { .slot = slot, .dev = w->hdev, .ino = w->hino };
	struct pr_safe *v = bpf_map_lookup_elem(&pr_safe, &sk);
	if (!v || !(v->access & w->want))
		return false;
	__u32 len = w->off - w->hit_off;
	if (w->off < w->hit_off || len != v->len || len == 0 || len > PR_KD_ENC)
		return false;
	struct kd_cmp c = { .walked = pb->b, .enc = v->enc, .base = w->hit_off, .len = len, .differ = 0 };
	bpf_loop(PR_KD_ENC / 8, kd_cmp_step, &c, 0);
	return !c.differ;
}

/* Global subprogram (verified once, on its own): is the file of the current task's fd, a
 * successful open asking `want`, provably allowed by slot's grants? (kd_on(slot) checked first.) */
__noinline int pr_kd_open(__u32 slot, __u32 want, long fd)
{
	struct task_struct *t = (struct task_struct *)bpf_get_current_task();
	struct file *kf = fd_file(t, fd);
	if (!kf)
		return 0;
	__u64 f = (__u64)(unsigned long)kf;
	struct pr_pathbuf *pb = walk_run(t, (struct dentry *)(unsigned long)k_f_dentry(f),
					 (struct vfsmount *)(unsigned long)k_f_mnt(f), want, slot & (PR_SLOTS - 1));
	return pb && kd_allowed(pb);
}

#endif
