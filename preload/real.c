/* real.c — the next definition of each interposed symbol, and the raw system calls the library
 * uses for itself.
 *
 * Promise: sbx_real_sym() resolves a symbol with dlsym(RTLD_NEXT) the first time it is needed and
 * caches it in the caller's slot (an atomic pointer: concurrent first calls both store the same
 * value, no lock, so it is safe in threads, fork children and signal handlers once resolved).
 * The library never calls its own interposers: file-system work it needs (readlink, getcwd,
 * getpid, comm) goes through the real syscall(2).
 */
#include "pl.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

void *sbx_real_sym(void *_Atomic *slot, const char *name)
{
	void *p = atomic_load_explicit(slot, memory_order_acquire);
	if (p)
		return p;
	p = dlsym(RTLD_NEXT, name);
	if (p)
		atomic_store_explicit(slot, p, memory_order_release);
	return p;
}

typedef long (*sys_fn)(long, ...);
static void *_Atomic real_syscall;

__attribute__((constructor(101))) static void prime_syscall(void)
{
	(void)sbx_real_sym(&real_syscall, "syscall");
}

long sbx_sys(long nr, long a, long b, long c, long d, long e, long f)
{
	sys_fn fn = (sys_fn)sbx_real_sym(&real_syscall, "syscall");
	if (!fn) {
		errno = ENOSYS;
		return -1;
	}
	return fn(nr, a, b, c, d, e, f);
}

ssize_t sbx_readlinkat(int dirfd, const char *path, char *buf, size_t len)
{
	return sbx_sys(SYS_readlinkat, dirfd, (long)path, (long)buf, (long)len, 0, 0);
}

/* getcwd(2) returns the length including the NUL; "(unreachable)" paths are not absolute. */
int sbx_getcwd(char *buf, size_t len)
{
	long n = sbx_sys(SYS_getcwd, (long)buf, (long)len, 0, 0, 0, 0);
	if (n < 0)
		return -1;
	if (buf[0] != '/') {
		errno = ENOENT;
		return -1;
	}
	return 0;
}

pid_t sbx_getpid(void)
{
	return (pid_t)sbx_sys(SYS_getpid, 0, 0, 0, 0, 0, 0);
}

void sbx_comm(char out[17])
{
	memset(out, 0, 17);
	if (sbx_sys(SYS_prctl, PR_GET_NAME, (long)out, 0, 0, 0, 0) < 0)
		out[0] = 0;
	out[16] = 0;
}

int sbx_fd_valid(int fd)
{
	return sbx_sys(SYS_fcntl, fd, F_GETFD, 0, 0, 0, 0) >= 0;
}
