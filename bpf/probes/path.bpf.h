/* path.bpf.h — the kernel's view of a path: an fd's file and the dentry walk.
 *
 * Promise: fd_file() is the task's open file for fd (NULL when none); walk() writes the dentry
 * names of (dentry, mount) leaf first into the record, crossing mounts via struct mount, until the
 * task's root (so paths inside bwrap are the sandbox's paths). The walk runs in a bpf_loop callback
 * (verified once whatever the depth); a walk cut by the bounds sets PR_EVF_TRUNC; a walk that ends
 * without meeting the task's root (a pseudo file system's object, a mount outside the task's tree)
 * sets PR_EVF_DETACHED; an object whose name the kernel makes up (d_dname: pipe, socket, anon
 * inode, namespace, pidfd) sets PR_EVF_PSEUDO. fsmagic is the walked object's file-system magic.
 * When asked (walk_ctx.want), each dentry up to the first hit is also looked up in pr_safe (one
 * hash lookup per step) for the in-kernel decision (decide.bpf.h). The walk's state is kept in the
 * per-CPU buffer, not on the stack, and a record's walk is the global subprogram pr_walk_ev():
 * both keep the verifier's work per program load small (docs/ARCHITECTURE.md "Inside the probes").
 */
#ifndef SBX_PROBES_PATH_BPF_H
#define SBX_PROBES_PATH_BPF_H

static __always_inline struct file *fd_file(struct task_struct *t, long fd)
{
	__u64 fdt = k_fdt(k_files((__u64)(unsigned long)t));
	unsigned int max = k_max_fds(fdt);
	if (fd < 0 || fd >= (long)max)
		return NULL;
	struct file **arr = (struct file **)(unsigned long)k_fd_arr(fdt);
	struct file *f = NULL;
	bpf_probe_read_kernel(&f, sizeof(f), &arr[fd]);
	return f;
}

struct walk_ctx {
	__u64 d;                    /* struct dentry *, struct vfsmount *: as numbers (kread.bpf.h) */
	__u64 mnt;
	__u64 root_d;
	__u64 root_m;
	__u32 off;
	__u32 n;
	__u32 done;
	__u32 detached;
	/* in-kernel decision (decide.bpf.h): the access asked (PR_KD_*, 0: none), the run slot, the
	 * nearest walked dentry found in pr_safe granting it (its key, and where its name starts in
	 * the buffer), and the length of the leaf's name (incl. NUL) */
	__u32 want;
	__u32 slot;
	__u32 hit;
	__u32 hit_off;
	__u32 hdev;
	__u32 leaf_len;
	__u64 hino;
};

/* The walk's names and its state, per CPU. The state lives here, not on the BPF stack: the
 * verifier does not track map memory, so the bpf_loop callback converges at once instead of being
 * re-verified for every distinct (offset, count, hit) it could reach (that cost ~0.4 s per load). */
struct pr_pathbuf { char b[PR_PATH_BUF]; struct walk_ctx w; };

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct pr_pathbuf);
} pr_pathbuf SEC(".maps");

/* Is dentry d a granted subtree root for the access asked (decide.bpf.h)? Remembered once. */
static __always_inline void walk_safe_lookup(struct walk_ctx *w, __u64 d)
{
	struct pr_safe_key k = {
		.slot = w->slot & (PR_SLOTS - 1),
		.dev = k_sb_dev(k_d_sb(d)),
		.ino = k_i_ino(k_d_inode(d)),
	};
	if (!k.ino)
		return;
	struct pr_kdec *kd = bpf_map_lookup_elem(&pr_kdec, &k.slot);
	__u32 b = pr_kd_bit(k.dev, k.ino);
	if (!kd || !(kd->safe_bits[(b >> 3) & (PR_KD_BITS / 8 - 1)] & (1u << (b & 7))))
		return;                             /* no granted subtree root of this slot here */
	struct pr_safe *v = bpf_map_lookup_elem(&pr_safe, &k);
	if (!v || !(v->access & w->want))
		return;
	w->hit = 1;
	w->hit_off = w->off;
	w->hdev = k.dev;
	w->hino = k.ino;
}

/* Dentry d's name, NUL-terminated, into the walk's buffer at off: its length incl. the NUL, <= 0
 * when it cannot be read. A short name (kept in the dentry itself, d_shortname) is copied by direct
 * loads where kread.bpf.h allows them; any other by the string helper. */
static __always_inline long walk_name(struct pr_pathbuf *pb, __u32 off, __u64 d)
{
	__u64 name = k_d_name(d);
	char *dst = &pb->b[off & PR_PATH_OFF_MASK];
	if (pr_fast_reads && bpf_core_field_exists(struct dentry, d_shortname)) {
		struct dentry *dd = KCAST(struct dentry, d);
		__u32 len = dd->d_name.len;
		if (name == d + bpf_core_field_offset(struct dentry, d_shortname) &&
		    len < sizeof(dd->d_shortname.words)) {
			for (int j = 0; j < (int)(sizeof(dd->d_shortname.words) / 8); j++) {
				__u64 x = dd->d_shortname.words[j];
				__builtin_memcpy(dst + j * 8, &x, 8);
			}
			dst[len] = 0;
			return (long)len + 1;
		}
	}
	return bpf_probe_read_kernel_str(dst, PR_NAME_MAX, (const void *)(unsigned long)name);
}

/* One step of the walk (bpf_loop callback: verified once, whatever the depth; its state is the
 * per-CPU pr_pathbuf.w). */
static long walk_step(__u32 i, void *arg)
{
	__u32 z = 0;
	struct pr_pathbuf *pb = bpf_map_lookup_elem(&pr_pathbuf, &z);
	if (!pb)
		return 1;
	struct walk_ctx *w = &pb->w;
	__u64 d = w->d;
	__u64 mnt = w->mnt;
	if (!d || (d == w->root_d && mnt == w->root_m)) {
		w->done = 1;
		return 1;
	}
	if (w->want && !w->hit)
		walk_safe_lookup(w, d);
	if (d == k_mnt_root(mnt)) {
		__u64 m = mnt - bpf_core_field_offset(struct mount, mnt);
		__u64 parent = k_mount_parent(m);
		if (parent == m) {
			w->done = 1;                /* the top of a mount tree the task's root is not in */
			w->detached = 1;
			return 1;
		}
		w->d = k_mountpoint(m);
		w->mnt = parent + bpf_core_field_offset(struct mount, mnt);
		return 0;
	}
	__u32 off = w->off;
	if (off > PR_PATH_OFF_MASK)
		return 1;                           /* buffer bound: truncated */
	__u64 up = k_d_parent(d);
	long r = walk_name(pb, off, d);
	if (r <= 0)
		return 1;
	if (!w->n)
		w->leaf_len = (__u32)r;
	w->off = off + (__u32)r;
	w->n++;
	if (up == d) {
		w->done = 1;                        /* a dentry not linked below its mount's root */
		w->detached = 1;
		return 1;
	}
	w->d = up;
	return 0;
}

/* The walk of (d, mnt) up to the task's root into the per-CPU buffer; its outcome in pb->w
 * (want/slot: the in-kernel decision's inputs, 0 for a record's walk). NULL when no buffer. */
static __always_inline struct pr_pathbuf *walk_run(struct task_struct *t, struct dentry *d,
						   struct vfsmount *mnt, __u32 want, __u32 slot)
{
	__u32 z = 0;
	struct pr_pathbuf *pb = bpf_map_lookup_elem(&pr_pathbuf, &z);
	if (!pb)
		return NULL;
	struct walk_ctx *w = &pb->w;
	__builtin_memset(w, 0, sizeof(*w));
	__u64 fs = k_fs((__u64)(unsigned long)t);
	w->d = (__u64)(unsigned long)d;
	w->mnt = (__u64)(unsigned long)mnt;
	w->root_d = k_fs_root_d(fs);
	w->root_m = k_fs_root_m(fs);
	w->want = want;
	w->slot = slot;
	bpf_loop(PR_MAX_DEPTH, walk_step, NULL, 0);
	return pb;
}

/* Dentry names leaf first into ev->path, up to the task's root, crossing mounts. */
static __always_inline void walk_w(struct pr_event *ev, struct task_struct *t, struct dentry *d,
				   struct vfsmount *mnt)
{
	struct pr_pathbuf *pb = walk_run(t, d, mnt, 0, 0);
	if (!pb)
		return;
	struct walk_ctx *w = &pb->w;
	__u32 off = w->off;
	__u32 used = off;
	if (used > sizeof(ev->path))
		used = sizeof(ev->path);
	asm volatile("" : "+r"(used));
	bpf_probe_read_kernel(ev->path, used, pb->b);
	if (!w->done)
		ev->flags |= PR_EVF_TRUNC;
	if (w->detached)
		ev->flags |= PR_EVF_DETACHED;
	ev->fsmagic = (__u32)BPF_CORE_READ(d, d_sb, s_magic);
	ev->okey = (__u64)(unsigned long)d * 31 + (__u64)(unsigned long)mnt;
	if (BPF_CORE_READ(d, d_op, d_dname))
		ev->flags |= PR_EVF_PSEUDO;         /* named by the kernel ("pipe:[n]"), no path */
	ev->ncomp = (__u16)w->n;
	ev->path_len = (__u16)(off > PR_PATH_BUF ? PR_PATH_BUF : off);
}

/* Global subprogram (non-static, not inlined: the verifier checks it once, on its own, whatever
 * its callers' states): the current task's walk of (d, mnt) into the per-CPU record (pr_evbuf).
 * d and mnt come as numbers (read with the probe helpers), so both tiers call it alike. */
__noinline int pr_walk_ev(__u64 d, __u64 mnt)
{
	__u32 z = 0;
	struct pr_ovf *o = bpf_map_lookup_elem(&pr_evbuf, &z);
	if (!o)
		return 0;
	walk_w(&o->ev, (struct task_struct *)bpf_get_current_task(), (struct dentry *)d,
	       (struct vfsmount *)mnt);
	return 0;
}

static __always_inline void walk_file(struct pr_event *ev, struct task_struct *t, struct file *f)
{
	/* helper reads: a global subprogram's arguments must be numbers, not BTF pointers */
	pr_walk_ev((__u64)(unsigned long)BPF_CORE_READ(f, f_path.dentry),
		   (__u64)(unsigned long)BPF_CORE_READ(f, f_path.mnt));
}

static __always_inline void walk_cwd(struct pr_event *ev, struct task_struct *t)
{
	pr_walk_ev((__u64)(unsigned long)BPF_CORE_READ(t, fs, pwd.dentry),
		   (__u64)(unsigned long)BPF_CORE_READ(t, fs, pwd.mnt));
}

#endif
