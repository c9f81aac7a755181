/* esc_flood.c — helper for tests/integration/faults.sh: abuses the preload report descriptor
 * (SBXSUP_REPORT_FD) from inside the sandbox.
 *   esc_flood close N     close the report fd, then make N denied opens (/etc/shadow)
 *   esc_flood garbage N   send N garbage datagrams (non-blocking; counts what the kernel refused)
 *   esc_flood forged N    send N well-formed-looking deny records with lying fields (huge lengths,
 *                         bad enums, unterminated strings, wrong magic/version on every 7th)
 * Exits 0 when it did what it was told (the supervisor's behaviour is the test's business). */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
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

int main(int argc, char **argv)
{
	if (argc < 3)
		return 2;
	long n = atol(argv[2]);
	const char *rf = getenv("SBXSUP_REPORT_FD");
	int fd = rf ? atoi(rf) : -1;
	if (!rf && strcmp(argv[1], "close")) { /* fixed channel: the sandbox's report socket */
		struct sockaddr_un a = {.sun_family = AF_UNIX, .sun_path = "/run/sbxsup/report"};
		fd = socket(AF_UNIX, SOCK_DGRAM, 0);
		if (fd >= 0 && connect(fd, (struct sockaddr *)&a, sizeof a) < 0)
			fd = -1;
	}
	long sent = 0, refused = 0;
	if (!strcmp(argv[1], "close")) {
		if (fd >= 0)
			close(fd);
		for (long i = 0; i < n; i++) {
			int f = open("/etc/shadow", O_RDONLY);
			if (f >= 0)
				close(f);
		}
		printf("closed fd %d, %ld denied opens\n", fd, n);
		return 0;
	}
	if (fd < 0) {
		fprintf(stderr, "esc_flood: no SBXSUP_REPORT_FD\n");
		return 0;
	}
	char buf[4608];
	for (long i = 0; i < n; i++) {
		size_t len;
		if (!strcmp(argv[1], "garbage")) {
			len = (size_t)(i % 4600) + 1;
			memset(buf, (int)(i & 0xff), len);
		} else {
			struct hdr h;
			memset(&h, 0, sizeof h);
			h.magic = (i % 7 == 0) ? 0xdeadbeefu : 0x52584253u;
			h.version = (i % 11 == 0) ? 9 : 1;
			h.type = (uint16_t)(i % 4);
			h.pid = (int32_t)(i * 7919);
			h.op = (uint16_t)(i % 40);
			h.access = (uint8_t)i;
			h.err = 13;
			h.rule = (uint32_t)i;
			h.subject_len = (uint16_t)((i % 3 == 0) ? 65535 : 200);
			h.comm_len = (uint16_t)((i % 5 == 0) ? 400 : 8);
			memcpy(buf, &h, sizeof h);
			memset(buf + sizeof h, 'A' + (int)(i % 26), sizeof buf - sizeof h);
			len = sizeof h + 208;
		}
		if (send(fd, buf, len, MSG_DONTWAIT | MSG_NOSIGNAL) < 0) {
			if (errno != EAGAIN && errno != EWOULDBLOCK && errno != ENOBUFS)
				break;
			refused++;
		} else {
			sent++;
		}
	}
	printf("%s: sent %ld, refused %ld\n", argv[1], sent, refused);
	return 0;
}
