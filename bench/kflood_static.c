/* kflood_static.c — floods the kernel probes with policy-violating syscalls, for `make bench`.
 *
 * Promise: a static binary (so no preload intercepts anything) that makes N openat(PATH, O_RDONLY)
 * calls as fast as it can, closing any fd it gets, then prints
 * {"calls":N,"ns":ELAPSED_NS,"ok":K} (K = opens that succeeded). Run inside `sbxsup run` with the
 * probes layer, each call is one kernel.violation event; run.end.lost says how many the ring
 * buffer dropped. Exit 0, 2 on usage.
 *   usage: kflood_static N PATH
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc != 3 || atol(argv[1]) < 1) {
		fprintf(stderr, "usage: kflood_static N PATH\n");
		return 2;
	}
	long n = atol(argv[1]), ok = 0;
	struct timespec a, b;
	clock_gettime(CLOCK_MONOTONIC, &a);
	for (long i = 0; i < n; i++) {
		int fd = open(argv[2], O_RDONLY);
		if (fd >= 0) {
			ok++;
			close(fd);
		}
	}
	clock_gettime(CLOCK_MONOTONIC, &b);
	double ns = (double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec);
	printf("{\"calls\":%ld,\"ns\":%.0f,\"ok\":%ld}\n", n, ns, ok);
	return 0;
}
