/* vmchild.c — a child sharing the caller's memory (vmchild.h). */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "vmchild.h"

#define VM_CHILD_STACK (64 * 1024)

pid_t sbx_vm_child_start(struct sbx_vm_child *c, int (*fn)(void *), void *arg, int flags)
{
	c->pid = -1;
	c->size = VM_CHILD_STACK;
	c->stack = mmap(NULL, c->size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_STACK, -1, 0);
	if (c->stack == MAP_FAILED) {
		c->stack = NULL;
		return -1;
	}
	/* the stack grows down on every architecture sbxsup builds for */
	c->pid = clone(fn, (char *)c->stack + c->size, CLONE_VM | flags | SIGCHLD, arg);
	if (c->pid < 0) {
		int e = errno;
		munmap(c->stack, c->size);
		c->stack = NULL;
		errno = e;
	}
	return c->pid;
}

int sbx_vm_child_wait(struct sbx_vm_child *c)
{
	int st = -1, rc;
	if (c->pid > 0) {
		while ((rc = waitpid(c->pid, &st, __WALL)) < 0 && errno == EINTR)
			;
		if (rc < 0)
			st = -1;
	}
	c->pid = -1;
	if (c->stack) {
		int e = errno;
		munmap(c->stack, c->size);
		errno = e;
	}
	c->stack = NULL;
	return st;
}
