/* pr_static_reader_static.c — a static binary (no preload possible) that opens argv[1] with a raw
 * openat(2) and prints its first bytes: the "static reader" bypass of the probes tests.
 * Exit 0 when the open succeeded, 1 when it failed (errno printed on stderr). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s PATH\n", argv[0]);
		return 2;
	}
	long fd = syscall(SYS_openat, AT_FDCWD, argv[1], O_RDONLY);
	if (fd < 0) {
		fprintf(stderr, "openat %s: %s\n", argv[1], strerror(errno));
		return 1;
	}
	char buf[64];
	ssize_t n = read((int)fd, buf, sizeof(buf));
	printf("opened %s (%zd bytes read)\n", argv[1], n);
	close((int)fd);
	return 0;
}
