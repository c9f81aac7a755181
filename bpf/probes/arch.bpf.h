/* arch.bpf.h — the architecture-specific part of the probes: syscall number -> enum pr_sc, the
 * compat (32-bit) ABI test, and the syscall's arguments.
 *
 * Promise: sc_of(nr, compat) maps a raw number to the probes' architecture-independent id with
 * tables generated at build time from the kernel's UAPI headers (bpf/gen_syscall_nr.sh ->
 * syscall_nr.h; nothing typed by hand); syscall_args() reads the six arguments with libbpf's CO-RE
 * syscall helpers (PT_REGS_PARMn_CORE_SYSCALL) for the native ABI and CO-RE reads of the ia32
 * registers for int 0x80 / compat calls. An architecture without tables stops the build (#error).
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
	return (BPF_CORE_READ(t, thread_info.status) & TS_COMPAT_) != 0;
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
		a[0] = (__u32)BPF_CORE_READ(regs, bx);
		a[1] = (__u32)BPF_CORE_READ(regs, cx);
		a[2] = (__u32)BPF_CORE_READ(regs, dx);
		a[3] = (__u32)BPF_CORE_READ(regs, si);
		a[4] = (__u32)BPF_CORE_READ(regs, di);
		a[5] = (__u32)BPF_CORE_READ(regs, bp);
		return;
	}
	a[0] = PT_REGS_PARM1_CORE_SYSCALL(regs);
	a[1] = PT_REGS_PARM2_CORE_SYSCALL(regs);
	a[2] = PT_REGS_PARM3_CORE_SYSCALL(regs);
	a[3] = PT_REGS_PARM4_CORE_SYSCALL(regs);
	a[4] = PT_REGS_PARM5_CORE_SYSCALL(regs);
	a[5] = BPF_CORE_READ(regs, r9);
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
