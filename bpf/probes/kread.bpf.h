/* kread.bpf.h — reading the kernel structures the hot paths need (the walk, an fd's file, the
 * task's root and cwd, the syscall registers).
 *
 * Promise: each accessor returns the field as BPF_CORE_READ would (0 when the memory cannot be
 * read). With pr_fast_reads (set by the loader for the tp_btf tier when the kernel has the
 * bpf_rdonly_cast kfunc) the field is read by a direct load through an untrusted BTF pointer —
 * the verifier inlines the cast and turns the load into a fault-handled one (PROBE_MEM), no helper
 * call; else by the CO-RE probe-read helpers (raw_tp tier, older kernels). Both forms are CO-RE:
 * the offsets are relocated against the running kernel's BTF. Pointers travel as numbers (__u64),
 * so both tiers share the callers.
 */
#ifndef SBX_PROBES_KREAD_BPF_H
#define SBX_PROBES_KREAD_BPF_H

extern void *bpf_rdonly_cast(const void *obj, __u32 btf_id) __ksym __weak;

/* Set by the loader before the load (probes_bpf.c): 1 when direct loads are allowed. A read-only
 * constant: the verifier drops the other branch. */
const volatile __u32 pr_fast_reads = 0;

#define KCAST(type, p) ((type *)bpf_rdonly_cast((const void *)(unsigned long)(p), \
						 bpf_core_type_id_kernel(type)))
/* KREAD(type, p, a, b...): ((type *)p)->a.b... (the field path as BPF_CORE_READ_ names it with
 * dots: KREAD(struct dentry, d, d_name.name)). */
#define KREAD(type, p, path) \
	(pr_fast_reads ? (__u64)(unsigned long)(KCAST(type, p)->path) \
		       : (__u64)(unsigned long)BPF_CORE_READ((type *)(unsigned long)(p), path))

static __always_inline __u64 k_d_parent(__u64 d) { return KREAD(struct dentry, d, d_parent); }
static __always_inline __u64 k_d_name(__u64 d) { return KREAD(struct dentry, d, d_name.name); }
static __always_inline __u64 k_d_sb(__u64 d) { return KREAD(struct dentry, d, d_sb); }
static __always_inline __u64 k_d_inode(__u64 d) { return KREAD(struct dentry, d, d_inode); }
static __always_inline __u32 k_sb_dev(__u64 sb) { return (__u32)KREAD(struct super_block, sb, s_dev); }
static __always_inline __u64 k_i_ino(__u64 i) { return KREAD(struct inode, i, i_ino); }
static __always_inline __u64 k_mnt_root(__u64 mnt) { return KREAD(struct vfsmount, mnt, mnt_root); }
static __always_inline __u64 k_mount_parent(__u64 m) { return KREAD(struct mount, m, mnt_parent); }
static __always_inline __u64 k_mountpoint(__u64 m) { return KREAD(struct mount, m, mnt_mountpoint); }
static __always_inline __u64 k_f_dentry(__u64 f) { return KREAD(struct file, f, f_path.dentry); }
static __always_inline __u64 k_f_mnt(__u64 f) { return KREAD(struct file, f, f_path.mnt); }
static __always_inline __u64 k_fs(__u64 t) { return KREAD(struct task_struct, t, fs); }
static __always_inline __u64 k_fs_root_d(__u64 fs) { return KREAD(struct fs_struct, fs, root.dentry); }
static __always_inline __u64 k_fs_root_m(__u64 fs) { return KREAD(struct fs_struct, fs, root.mnt); }
static __always_inline __u64 k_files(__u64 t) { return KREAD(struct task_struct, t, files); }
static __always_inline __u64 k_fdt(__u64 files) { return KREAD(struct files_struct, files, fdt); }
static __always_inline __u32 k_max_fds(__u64 fdt) { return (__u32)KREAD(struct fdtable, fdt, max_fds); }
static __always_inline __u64 k_fd_arr(__u64 fdt) { return KREAD(struct fdtable, fdt, fd); }

/* The current task as a number (both tiers). */
static __always_inline __u64 k_task(void)
{
	return (__u64)bpf_get_current_task();
}

#endif
