/* au_flood.c — helper for tests/integration/audit_attacks.sh: tries to flood the audit stream.
 *   au_flood forge N SECRET  send N well-formed preload deny records with distinct paths through
 *                            SBXSUP_REPORT_FD (blocking: none is lost on the way), then read SECRET
 *                            with a raw openat system call (the preload never sees it: a kernel-side
 *                            event must report it) and print what it got
 *   au_flood deny N PATH     N libc open(PATH) calls (each one denied by the preload and reported)
 * Exits 0 when it did what it was told (what the supervisor records is the test's business). */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

struct hdr { /* same layout as struct sbx_rec_hdr (policy/report.h) */
	uint32_t magic;
	uint16_t version, type;
	int32_t pid;
	uint16_t op;
	uint8_t access, family;
	int32_t err;
	uint32_t rule;
	uint16_t port, subject_len, comm_len, reserved;
	uint32_t dropped;
};

/* a system call the preload cannot interpose (no libc wrapper) */
static long raw_openat(const char *path)
{
#if defined(__x86_64__)
	register long r10 __asm__("r10") = 0;
	long ret;
	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"((long)SYS_openat), "D"((long)AT_FDCWD), "S"(path), "d"((long)O_RDONLY), "r"(r10)
			 : "rcx", "r11", "memory");
	if (ret < 0) {
		errno = (int)-ret;
		return -1;
	}
	return ret;
#else
	return syscall(SYS_openat, AT_FDCWD, path, O_RDONLY);
#endif
}

int main(int argc, char **argv)
{
	if (argc < 4)
		return 2;
	long n = atol(argv[2]);
	if (!strcmp(argv[1], "deny")) {
		long denied = 0;
		for (long i = 0; i < n; i++) {
			int f = open(argv[3], O_RDONLY);
			if (f >= 0)
				close(f);
			else
				denied++;
		}
		printf("%ld of %ld opens denied\n", denied, n);
		return 0;
	}
	const char *rf = getenv("SBXSUP_REPORT_FD");
	int fd = rf ? atoi(rf) : -1;
	long sent = 0;
	for (long i = 0; fd >= 0 && i < n; i++) {
		char buf[sizeof(struct hdr) + 128];
		char subj[96];
		int sl = snprintf(subj, sizeof subj, "/forged/decoy-%ld", i);
		struct hdr h = {.magic = 0x52584253u, .version = 1, .type = 2, .pid = 1, .op = 1, .access = 1,
				.err = EACCES, .rule = 0xffffffffu, .subject_len = (uint16_t)sl, .comm_len = 4};
		memcpy(buf, &h, sizeof h);
		memcpy(buf + sizeof h, subj, (size_t)sl);
		memcpy(buf + sizeof h + sl, "evil", 4);
		if (send(fd, buf, sizeof h + (size_t)sl + 4, MSG_NOSIGNAL) > 0)
			sent++;
	}
	long f = raw_openat(argv[3]);
	char got[64] = "";
	if (f >= 0) {
		ssize_t k = read((int)f, got, sizeof got - 1);
		got[k > 0 ? k : 0] = '\0';
	}
	printf("sent %ld forged records; raw open of %s: %s%s\n", sent, argv[3],
	       f >= 0 ? "OPENED: " : strerror(errno), got);
	return 0;
}
