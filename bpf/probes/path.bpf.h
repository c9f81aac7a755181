/* path.bpf.h — the kernel's view of a path: an fd's file and the dentry walk.
 *
 * Promise: fd_file() is the task's open file for fd (NULL when none); walk() writes the dentry
 * names of (dentry, mount) leaf first into the record, crossing mounts via struct mount, until the
 * task's root (so paths inside bwrap are the sandbox's paths). The walk runs in a bpf_loop callback
 * (verified once whatever the depth); a walk cut by the bounds sets PR_EVF_TRUNC; a walk that ends
 * without meeting the task's root (a pseudo file system's object, a mount outside the task's tree)
 * sets PR_EVF_DETACHED; an object whose name the kernel makes up (d_dname: pipe, socket, anon
 * inode, namespace, pidfd) sets PR_EVF_PSEUDO. fsmagic is the walked object's file-system magic.
 */
#ifndef SBX_PROBES_PATH_BPF_H
#define SBX_PROBES_PATH_BPF_H

static __always_inline struct file *fd_file(struct task_struct *t, long fd)
{
	struct fdtable *fdt = BPF_CORE_READ(t, files, fdt);
	unsigned int max = BPF_CORE_READ(fdt, max_fds);
	if (fd < 0 || fd >= (long)max)
		return NULL;
	struct file **arr = BPF_CORE_READ(fdt, fd);
	struct file *f = NULL;
	bpf_probe_read_kernel(&f, sizeof(f), &arr[fd]);
	return f;
}

struct pr_pathbuf { char b[PR_PATH_BUF]; };

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct pr_pathbuf);
} pr_pathbuf SEC(".maps");

struct walk_ctx {
	struct dentry *d;
	struct vfsmount *mnt;
	struct dentry *root_d;
	struct vfsmount *root_m;
	__u32 off;
	__u32 n;
	__u32 done;
	__u32 detached;
};

/* One step of the walk (bpf_loop callback: verified once, whatever the depth). */
static long walk_step(__u32 i, void *arg)
{
	struct walk_ctx *w = arg;
	struct dentry *d = w->d;
	struct vfsmount *mnt = w->mnt;
	if (!d || (d == w->root_d && mnt == w->root_m)) {
		w->done = 1;
		return 1;
	}
	struct dentry *mroot = BPF_CORE_READ(mnt, mnt_root);
	if (d == mroot) {
		struct mount *m = (struct mount *)((void *)mnt - bpf_core_field_offset(struct mount, mnt));
		struct mount *parent = BPF_CORE_READ(m, mnt_parent);
		if (parent == m) {
			w->done = 1;                /* the top of a mount tree the task's root is not in */
			w->detached = 1;
			return 1;
		}
		w->d = BPF_CORE_READ(m, mnt_mountpoint);
		w->mnt = (struct vfsmount *)((void *)parent + bpf_core_field_offset(struct mount, mnt));
		return 0;
	}
	if (w->off > PR_PATH_OFF_MASK)
		return 1;                           /* buffer bound: truncated */
	__u32 z = 0;
	struct pr_pathbuf *pb = bpf_map_lookup_elem(&pr_pathbuf, &z);
	if (!pb)
		return 1;
	struct dentry *up = BPF_CORE_READ(d, d_parent);
	const unsigned char *name = BPF_CORE_READ(d, d_name.name);
	long r = bpf_probe_read_kernel_str(&pb->b[w->off & PR_PATH_OFF_MASK], PR_NAME_MAX, name);
	if (r <= 0)
		return 1;
	w->off += (__u32)r;
	w->n++;
	if (up == d) {
		w->done = 1;                        /* a dentry not linked below its mount's root */
		w->detached = 1;
		return 1;
	}
	w->d = up;
	return 0;
}

/* Dentry names leaf first into ev->path, up to the task's root, crossing mounts. */
static __always_inline void walk(struct pr_event *ev, struct task_struct *t, struct dentry *d,
				 struct vfsmount *mnt)
{
	struct walk_ctx w = {
		.d = d, .mnt = mnt,
		.root_d = BPF_CORE_READ(t, fs, root.dentry),
		.root_m = BPF_CORE_READ(t, fs, root.mnt),
	};
	bpf_loop(PR_MAX_DEPTH, walk_step, &w, 0);
	__u32 z = 0;
	struct pr_pathbuf *pb = bpf_map_lookup_elem(&pr_pathbuf, &z);
	if (!pb)
		return;
	__u32 used = w.off;
	if (used > sizeof(ev->path))
		used = sizeof(ev->path);
	asm volatile("" : "+r"(used));
	bpf_probe_read_kernel(ev->path, used, pb->b);
	if (!w.done)
		ev->flags |= PR_EVF_TRUNC;
	if (w.detached)
		ev->flags |= PR_EVF_DETACHED;
	ev->fsmagic = (__u32)BPF_CORE_READ(d, d_sb, s_magic);
	ev->okey = (__u64)(unsigned long)d * 31 + (__u64)(unsigned long)mnt;
	if (BPF_CORE_READ(d, d_op, d_dname))
		ev->flags |= PR_EVF_PSEUDO;         /* named by the kernel ("pipe:[n]"), no path */
	ev->ncomp = (__u16)w.n;
	ev->path_len = (__u16)(w.off > PR_PATH_BUF ? PR_PATH_BUF : w.off);
}

static __always_inline void walk_file(struct pr_event *ev, struct task_struct *t, struct file *f)
{
	walk(ev, t, BPF_CORE_READ(f, f_path.dentry), BPF_CORE_READ(f, f_path.mnt));
}

static __always_inline void walk_cwd(struct pr_event *ev, struct task_struct *t)
{
	walk(ev, t, BPF_CORE_READ(t, fs, pwd.dentry), BPF_CORE_READ(t, fs, pwd.mnt));
}

#endif
