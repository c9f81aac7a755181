/* au_flood.c — helper for tests/integration/audit_attacks.sh: tries to flood the audit stream.
 *   au_flood forge N SECRET  send N well-formed preload deny records with distinct paths to the
 *                            report address (SBXSUP_REPORT_ADDR) with raw system calls (blocking:
 *                            none is lost on the way; the inherited report fd is guarded by the
 *                            preload), then read SECRET
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
#include <sys/un.h>
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

/* A system call the preload cannot interpose (no libc wrapper): the preload guards its own report
 * descriptor against libc calls, an attacker uses the raw instruction. */
static long raw6(long n, long a, long b, long c, long d, long e, long f)
{
#if defined(__x86_64__)
	register long r10 __asm__("r10") = d;
	register long r8 __asm__("r8") = e;
	register long r9 __asm__("r9") = f;
	long ret;
	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"(n), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
			 : "rcx", "r11", "memory");
	if (ret < 0) {
		errno = (int)-ret;
		return -1;
	}
	return ret;
#else
	return syscall(n, a, b, c, d, e, f);
#endif
}

static long raw_openat(const char *path)
{
	return raw6(SYS_openat, AT_FDCWD, (long)path, O_RDONLY, 0, 0, 0);
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
	/* The report address (SBXSUP_REPORT_ADDR; /run/sbxsup/report inside bwrap), through a socket of
	 * our own made with raw system calls: the inherited report descriptor is guarded by the preload. */
	const char *ra = getenv("SBXSUP_REPORT_ADDR");
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	snprintf(sa.sun_path, sizeof sa.sun_path, "%s", ra ? ra : "/run/sbxsup/report");
	int fd = (int)raw6(SYS_socket, AF_UNIX, SOCK_DGRAM, 0, 0, 0, 0);
	if (fd >= 0 && raw6(SYS_connect, fd, (long)&sa, (long)sizeof sa, 0, 0, 0) < 0)
		fd = -1;
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
		if (raw6(SYS_sendto, fd, (long)buf, (long)(sizeof h + (size_t)sl + 4), MSG_NOSIGNAL, 0, 0) > 0)
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
