/* fi_ringmap — fault injection for tests: run a command under a seccomp filter that fails, with
 * ENOMEM, the one mapping a BPF ring buffer's consumer makes of its producer pages
 * (mmap(NULL, len, PROT_READ, MAP_SHARED, fd, <page size>): libbpf's ring_buffer__new/add), and
 * nothing else. Used where an address-space limit cannot single that mapping out (a sanitizer
 * build reserves its shadow memory first). Needs CAP_SYS_ADMIN or sets no_new_privs.
 *
 * usage: fi_ringmap COMMAND [ARG...]
 */
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#if defined(__x86_64__)
#define ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define ARCH AUDIT_ARCH_AARCH64
#else
#error "fi_ringmap: add this architecture's AUDIT_ARCH value"
#endif

#define ARG_LO(n) offsetof(struct seccomp_data, args[n])
#define ARG_HI(n) (offsetof(struct seccomp_data, args[n]) + 4)

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: fi_ringmap COMMAND [ARG...]\n");
		return 2;
	}
	unsigned page = (unsigned)sysconf(_SC_PAGESIZE);
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, ARCH, 0, 11),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_mmap, 0, 9),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG_LO(2)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, PROT_READ, 0, 7),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG_LO(3)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, MAP_SHARED, 0, 5),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG_LO(5)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, page, 0, 3),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, ARG_HI(5)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (ENOMEM & SECCOMP_RET_DATA)),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = {.len = sizeof(f) / sizeof(f[0]), .filter = f};
	if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) != 0) {
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 ||
		    syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog) != 0) {
			perror("fi_ringmap: seccomp");
			return 2;
		}
	}
	execvp(argv[1], argv + 1);
	perror("fi_ringmap: exec");
	return 127;
}
