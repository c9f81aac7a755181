/* names.bpf.h — the kernel's own copy of a path argument, to see a name raced by another thread.
 *
 * Promise: while a watched file call of a run's task is in progress (its stash is live), every
 * struct filename the call frees (kmem_cache_free of the names_cache, before the memory is
 * released) whose user pointer is one of the call's path arguments is copied into the stash
 * (kname[i], kname_ok[i]): that is the string the kernel looked up, whatever the buffer held at
 * sys_enter or holds at sys_exit. emit_path (files.bpf.h, name_raced) compares it with the copy made
 * at enter and marks the record PR_EVF_RACED when they differ. Names longer than the struct's inline part
 * (~4 KiB, kept in a separate buffer) are not copied (a long name is read again at exit,
 * PR_EVF_REQ_LONG).
 * Cost outside a run: one pointer compare per slab free once the names_cache is known (learnt from
 * its name on the first 4 KiB-object free), else the object-size compare.
 */
#ifndef SBX_PROBES_NAMES_BPF_H
#define SBX_PROBES_NAMES_BPF_H

/* The names_cache's struct kmem_cache, 0 until seen. */
volatile __u64 pr_names_cache = 0;

/* s is the names cache (objsize: s->object_size, read only while the cache is not known yet). */
static __always_inline bool names_cache(const struct kmem_cache *s, bool known_only)
{
	__u64 nc = pr_names_cache;
	if (nc)
		return (__u64)s == nc;
	if (known_only)
		return false;
	char n[12];
	const char *name = BPF_CORE_READ(s, name);
	if (!name || bpf_probe_read_kernel_str(n, sizeof(n), name) != 12)
		return false;
	const char want[12] = "names_cache";
	for (int i = 0; i < 12; i++)
		if (n[i] != want[i])
			return false;
	pr_names_cache = (__u64)s;
	return true;
}

/* Global subprogram (verified once, on its own): a struct filename being freed by the current task. */
__noinline int pr_name_freed(__u64 ptr)
{
	if (!ptr)
		return 0;
	/* a stash exists only for a call a run's task entered (on_enter checked the scope) */
	struct pr_stash *s = stash_cur();
	if (!s)
		return 0;
	const char *name = (const char *)(unsigned long)KREAD(struct filename, ptr, name);
	if ((__u64)name != ptr + bpf_core_field_offset(struct filename, iname))
		return 0;                           /* a long name's separate buffer: not a struct filename */
	__u64 up = KREAD(struct filename, ptr, uptr);
	if (!up)
		return 0;
	struct layout l = layout_of(s->sc, s->compat);
	if (l.p0 >= 0 && l.p0 < 6 && up == argn(s, l.p0)) {
		long r = bpf_probe_read_kernel_str(s->kname[0], PR_NAME_MAX, name);
		s->kname_ok[0] = r > 0 ? (__u32)r : 0;
	} else if (l.p1 >= 0 && l.p1 < 6 && up == argn(s, l.p1)) {
		long r = bpf_probe_read_kernel_str(s->kname[1], PR_NAME_MAX, name);
		s->kname_ok[1] = r > 0 ? (__u32)r : 0;
	}
	return 0;
}

#endif
