/* arch.bpf.h — the architecture-specific part of the probes: syscall number -> enum pr_sc, the
 * compat (32-bit) ABI test, and the syscall's arguments.
 *
 * Promise: sc_of(nr, compat) maps a raw number to the probes' architecture-independent id with
 * tables generated at build time from the kernel's UAPI headers (bpf/gen_syscall_nr.sh ->
 * syscall_nr.h; nothing typed by hand); syscall_args() reads the six arguments from the syscall
 * registers of the native ABI (di, si, dx, r10, r8, r9) or of the ia32 one (int 0x80 / compat
 * calls), CO-RE, by direct loads where kread.bpf.h allows. An architecture without tables stops the build (#error).
 */
#ifndef SBX_PROBES_ARCH_BPF_H
#define SBX_PROBES_ARCH_BPF_H

#include "syscall_nr.h"

#if !defined(__TARGET_ARCH_x86)
#error "probes: syscall tables and argument registers are only defined for x86 (x86_64 + i386 compat)"
#endif

#define TS_COMPAT_ 0x0002u
#define X32_BIT_ 0x40000000L
#define PR_NR_SOCKETCALL_COMPAT PR_NR_COMPAT_socketcall

static const __u8 sc_native[PR_NR_TABLE] = { PR_SC_TABLE_NATIVE };
static const __u8 sc_compat[PR_NR_TABLE] = { PR_SC_TABLE_COMPAT };

static __always_inline __u32 sc_of(long nr, bool compat)
{
	if (nr < 0 || nr >= PR_NR_TABLE)
		return PR_SC_NONE;
	return compat ? sc_compat[nr & (PR_NR_TABLE - 1)] : sc_native[nr & (PR_NR_TABLE - 1)];
}

/* The cheap first filter: is `nr` (x32 bit masked) a number we watch in either ABI? */
static __always_inline bool sc_watched(long nr)
{
	if (nr < 0 || nr >= PR_NR_TABLE)
		return false;
	return sc_native[nr & (PR_NR_TABLE - 1)] || sc_compat[nr & (PR_NR_TABLE - 1)] ||
	       nr == PR_NR_SOCKETCALL_COMPAT;
}

/* int 0x80 / ia32 entry: the task's thread_info status says so */
static __always_inline bool task_compat(struct task_struct *t)
{
	return (KREAD(struct task_struct, t, thread_info.status) & TS_COMPAT_) != 0;
}

/* The raw number as the syscall tables index it (the x32 bit dropped for 64-bit calls). */
static __always_inline long sc_number(long id, bool compat)
{
	return compat ? id : (id & ~X32_BIT_);
}

/* The six syscall arguments. ia32 passes them in ebx, ecx, edx, esi, edi, ebp. libbpf has no
 * PARM6 helper: arg 6 of the 64-bit ABI is r9, read the same CO-RE way. */
static __always_inline void syscall_args(struct pt_regs *regs, bool compat, __u64 a[6])
{
	if (compat) {
		a[0] = (__u32)KREAD(struct pt_regs, regs, bx);
		a[1] = (__u32)KREAD(struct pt_regs, regs, cx);
		a[2] = (__u32)KREAD(struct pt_regs, regs, dx);
		a[3] = (__u32)KREAD(struct pt_regs, regs, si);
		a[4] = (__u32)KREAD(struct pt_regs, regs, di);
		a[5] = (__u32)KREAD(struct pt_regs, regs, bp);
		return;
	}
	/* the x86_64 syscall registers (PT_REGS_PARMn_CORE_SYSCALL: di, si, dx, r10, r8, r9) */
	a[0] = KREAD(struct pt_regs, regs, di);
	a[1] = KREAD(struct pt_regs, regs, si);
	a[2] = KREAD(struct pt_regs, regs, dx);
	a[3] = KREAD(struct pt_regs, regs, r10);
	a[4] = KREAD(struct pt_regs, regs, r8);
	a[5] = KREAD(struct pt_regs, regs, r9);
}

/* i386 socketcall(call, args): the call number and the user array of 32-bit arguments. */
static __always_inline __u32 socketcall_sc(struct pt_regs *regs)
{
	long call = (long)(__u32)BPF_CORE_READ(regs, bx);
	return call == 1 ? PR_SC_SOCKET : call == 2 ? PR_SC_BIND : call == 3 ? PR_SC_CONNECT :
	       call == 11 ? PR_SC_SENDTO : call == 16 ? PR_SC_SENDMSG : call == 20 ? PR_SC_SENDMMSG :
	       PR_SC_NONE;
}

static __always_inline void socketcall_args(struct pt_regs *regs, __u64 a[6])
{
	__u32 a32[6] = {};
	bpf_probe_read_user(a32, sizeof(a32), (void *)(long)(__u32)BPF_CORE_READ(regs, cx));
	for (int i = 0; i < 6; i++)
		a[i] = a32[i];
}

#endif
