/* vmchild.h — a short-lived child that shares the caller's memory (clone(2) with CLONE_VM), for
 * work that needs other credentials or a namespace of its own but no copy of the caller's address
 * space: no page tables copied, no copy-on-write faults in the caller afterwards (a fork of sbxsup,
 * with its libraries and BPF objects mapped, costs ~0.5-1 ms of both).
 *
 * Promise: sbx_vm_child_start() runs fn(arg) in a child made by clone(CLONE_VM | flags | SIGCHLD) on
 * a stack of its own (allocated here, freed by sbx_vm_child_wait()); fn's return value is the
 * child's exit status. With CLONE_VFORK in flags the caller is suspended until the child exits.
 * Rules for fn (it runs beside the caller, in the caller's memory, with the caller's TLS): raw
 * system calls only (open/read/write/close, syscall(2)) — no malloc, no stdio, none of glibc's
 * set*id/setgroups wrappers (they signal the caller's threads: use syscall(SYS_setresuid, ...));
 * errno is the caller's variable, so the caller reads no errno it did not set after the child
 * started, until sbx_vm_child_wait() returned. The caller owns the struct; one child per struct.
 */
#ifndef SBX_VMCHILD_H
#define SBX_VMCHILD_H

#include <stddef.h>
#include <sys/types.h>

struct sbx_vm_child {
	pid_t pid;
	void *stack;
	size_t size;
};

/* The child's pid, or -1 (errno; nothing to wait for). */
pid_t sbx_vm_child_start(struct sbx_vm_child *c, int (*fn)(void *), void *arg, int flags);
/* Reap it (EINTR retried) and free its stack: its wait status, or -1 (errno). */
int sbx_vm_child_wait(struct sbx_vm_child *c);

#endif
