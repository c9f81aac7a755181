/* pl_bench.c — per-call cost of open+close (for the preload overhead measurement).
 *   usage: pl_bench FILE [ITERATIONS]
 * Prints "FILE ns_per_open_close" (process CPU time: insensitive to other load). */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	long n = argc > 2 ? atol(argv[2]) : 200000;
	struct timespec a, b;
	for (int w = 0; w < 1000; w++)
		close(open(argv[1], O_RDONLY));
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &a);
	for (long i = 0; i < n; i++) {
		int fd = open(argv[1], O_RDONLY);
		if (fd < 0) {
			perror(argv[1]);
			return 1;
		}
		close(fd);
	}
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &b);
	double ns = ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / n;
	printf("%s %.0f\n", argv[1], ns);
	return 0;
}
