/* preload_calls.c — per-call cost of the libc calls the preload interposes, for `make bench`.
 *
 * Promise: runs ROUNDS rounds of CALLS calls of one operation (after a short untimed warm-up) and
 * prints one JSON object: {"op":OP,"rounds":R,"calls":C,"ns":[ns per call of each round]}. It
 * does the same work whether or not libsbxpreload.so is loaded: the bench runs it both ways and
 * divides. Any failed call aborts with exit 1 and a message (a denied call would make the figure
 * meaningless, so it is never silently counted).
 *   preload_calls open    ROUNDS CALLS PATH   open(PATH, O_RDONLY) + close
 *   preload_calls stat    ROUNDS CALLS PATH   stat(PATH)
 *   preload_calls connect ROUNDS CALLS PORT   TCP socket + connect(127.0.0.1:PORT) + close (RST)
 *   preload_calls getpid  ROUNDS CALLS        syscall(SYS_getppid): a call nothing interposes
 *   preload_calls listen  PORTFILE            listen on 127.0.0.1:0, write the port to PORTFILE,
 *                                             accept and close connections until killed
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static double now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static int do_listen(const char *portfile)
{
	int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s < 0) {
		perror("listen: socket");
		return 1;
	}
	int one = 1;
	(void)setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t al = sizeof a;
	if (bind(s, (struct sockaddr *)&a, sizeof a) < 0 || listen(s, 4096) < 0 ||
	    getsockname(s, (struct sockaddr *)&a, &al) < 0) {
		perror("listen: bind/listen");
		return 1;
	}
	char tmp[4096];
	snprintf(tmp, sizeof tmp, "%s.tmp", portfile);
	FILE *f = fopen(tmp, "w");
	if (!f || fprintf(f, "%u\n", ntohs(a.sin_port)) < 0 || fclose(f) != 0 || rename(tmp, portfile) < 0) {
		perror(portfile);
		return 1;
	}
	for (;;) {
		int c = accept4(s, NULL, NULL, SOCK_CLOEXEC);
		if (c >= 0)
			close(c);
		else if (errno != EINTR && errno != ECONNABORTED && errno != EMFILE && errno != ENFILE)
			return 1;
	}
}

/* One call of the operation; 0 on success. */
static int one_call(const char *op, const char *arg, const struct sockaddr_in *peer)
{
	if (!strcmp(op, "open")) {
		int fd = open(arg, O_RDONLY);
		if (fd < 0)
			return -1;
		return close(fd);
	}
	if (!strcmp(op, "stat")) {
		struct stat st;
		return stat(arg, &st);
	}
	if (!strcmp(op, "getpid"))
		return syscall(SYS_getppid) > 0 ? 0 : -1;
	/* connect */
	int s = socket(AF_INET, SOCK_STREAM, 0);
	if (s < 0)
		return -1;
	struct linger lg = { .l_onoff = 1, .l_linger = 0 }; /* RST on close: no TIME_WAIT pile-up */
	(void)setsockopt(s, SOL_SOCKET, SO_LINGER, &lg, sizeof lg);
	int rc = connect(s, (const struct sockaddr *)peer, sizeof *peer);
	int e = errno;
	close(s);
	errno = e;
	return rc;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "listen"))
		return do_listen(argv[2]);
	if (argc < 4) {
		fprintf(stderr, "usage: preload_calls open|stat|connect|getpid ROUNDS CALLS [PATH|PORT]\n"
				"       preload_calls listen PORTFILE\n");
		return 2;
	}
	const char *op = argv[1];
	long rounds = atol(argv[2]), calls = atol(argv[3]);
	const char *arg = argc > 4 ? argv[4] : "";
	if (strcmp(op, "open") && strcmp(op, "stat") && strcmp(op, "connect") && strcmp(op, "getpid")) {
		fprintf(stderr, "preload_calls: unknown operation %s\n", op);
		return 2;
	}
	if (rounds < 1 || rounds > 1000 || calls < 1) {
		fprintf(stderr, "preload_calls: bad ROUNDS or CALLS\n");
		return 2;
	}
	struct sockaddr_in peer = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK),
				    .sin_port = htons((uint16_t)atoi(arg)) };
	long warm = calls / 20 < 1000 ? calls / 20 : 1000;
	for (long i = 0; i < warm; i++) {
		if (one_call(op, arg, &peer) != 0) {
			fprintf(stderr, "preload_calls: %s %s: %s\n", op, arg, strerror(errno));
			return 1;
		}
	}
	printf("{\"op\":\"%s\",\"rounds\":%ld,\"calls\":%ld,\"ns\":[", op, rounds, calls);
	for (long r = 0; r < rounds; r++) {
		double t0 = now_ns();
		for (long i = 0; i < calls; i++) {
			if (one_call(op, arg, &peer) != 0) {
				fprintf(stderr, "preload_calls: %s %s: %s\n", op, arg, strerror(errno));
				return 1;
			}
		}
		printf("%s%.1f", r ? "," : "", (now_ns() - t0) / (double)calls);
	}
	printf("]}\n");
	return 0;
}
