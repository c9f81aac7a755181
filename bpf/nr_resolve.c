/* nr_resolve.c — build-time helper of bpf/gen_syscall_nr.sh: syscall numbers from libseccomp's
 * per-architecture tables, for calls newer than the installed UAPI headers (fchmodat2 on 6.1
 * headers). Promise: prints "name nr" for every name the architecture has; nothing for the others.
 * usage: nr_resolve ARCH NAME...   (ARCH as libseccomp names it: x86_64, x86, aarch64, ...) */
#include <seccomp.h>
#include <stdio.h>

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	uint32_t arch = seccomp_arch_resolve_name(argv[1]);
	if (!arch)
		return 2;
	for (int i = 2; i < argc; i++) {
		int nr = seccomp_syscall_resolve_name_arch(arch, argv[i]);
		if (nr >= 0)
			printf("%s %d\n", argv[i], nr);
	}
	return 0;
}
