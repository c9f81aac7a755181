/* serve_calls.c — per-call latency for `make bench`: N calls of a command, either started directly
 * (fork + exec + wait, the "bare exec" base) or sent to `sbxsup serve` by this one long-lived
 * process (connect + one request + the reply per call, as an agent runtime would: no process start
 * of sbxsup per call; serve/serve_client.h).
 *
 * Promise: prints one JSON object {"values":[ms per call...],"ok":K,"first_status":S}; a call is
 * ok when its exit status is 0; values are of ok calls only (a failed call's status and result
 * record go to stderr). Exit 0 when every call was ok.
 *
 * With --gap MS the calls are paced: MS milliseconds of sleep between two calls (not timed), as an
 * agent's tool calls come; without it they come back-to-back.
 *
 *   usage: serve_calls exec N [--gap MS] -- COMMAND [ARG...]
 *          serve_calls serve SOCKET N [--gap MS] [RUN OPTIONS] -- COMMAND [ARG...]
 */
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "serve_client.h"

extern char **environ;

static double now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static int exec_once(char **cmd)
{
	pid_t p = fork();
	if (p == 0) {
		int nul = open("/dev/null", O_RDWR);
		dup2(nul, 0), dup2(nul, 1), dup2(nul, 2);
		execvp(cmd[0], cmd);
		_exit(127);
	}
	int st = 0;
	if (p < 0 || waitpid(p, &st, 0) < 0)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static int serve_once(const char *sock, char **argv)
{
	int nul = open("/dev/null", O_RDWR | O_CLOEXEC);
	int fds[3] = {nul, nul, nul};
	int32_t tg[3] = {0, 1, 2};
	char *rec = NULL, why[256];
	size_t rl;
	int code = serve_call(sock, argv, environ, fds, tg, 3, &rec, &rl, why, sizeof why);
	if (code < 0)
		fprintf(stderr, "serve_calls: %s\n", why);
	else if (code != 0) /* say why (the record's reason), for the bench's note */
		fprintf(stderr, "serve_calls: exit %d: %.300s\n", code, rec ? rec : "");
	free(rec);
	close(nul);
	return code;
}

int main(int argc, char **argv)
{
	if (argc < 4)
		goto usage;
	bool serve = !strcmp(argv[1], "serve");
	if (!serve && strcmp(argv[1], "exec"))
		goto usage;
	const char *sock = serve ? argv[2] : NULL;
	int n = atoi(argv[serve ? 3 : 2]), first = serve ? 4 : 3;
	long gap_ms = 0;
	if (first + 1 < argc && !strcmp(argv[first], "--gap")) {
		gap_ms = atol(argv[first + 1]);
		first += 2;
	}
	if (n <= 0 || first >= argc || gap_ms < 0)
		goto usage;
	/* serve: argv for the request = "run" + the rest; exec: the command after "--" */
	char **rest = argv + first;
	char **req = calloc((size_t)(argc - first + 2), sizeof *req);
	if (!req)
		return 2;
	req[0] = "run";
	for (int i = 0; i < argc - first; i++)
		req[i + 1] = rest[i];
	char **cmd = rest;
	if (!serve) {
		if (strcmp(cmd[0], "--") || !cmd[1])
			goto usage;
		cmd++;
	}
	int ok = 0, firstst = -1;
	printf("{\"values\":[");
	for (int i = 0; i < n; i++) {
		if (gap_ms && i) {
			struct timespec g = {.tv_sec = gap_ms / 1000, .tv_nsec = gap_ms % 1000 * 1000000L};
			while (nanosleep(&g, &g) < 0)
				;
		}
		double t0 = now_ms();
		int st = serve ? serve_once(sock, req) : exec_once(cmd);
		double dt = now_ms() - t0;
		if (i == 0)
			firstst = st;
		if (st == 0)
			printf("%s%.3f", ok++ ? "," : "", dt);
	}
	printf("],\"ok\":%d,\"first_status\":%d}\n", ok, firstst);
	free(req);
	return ok == n ? 0 : 1;
usage:
	fprintf(stderr, "usage: serve_calls exec N [--gap MS] -- COMMAND [ARG...]\n"
			"       serve_calls serve SOCKET N [--gap MS] [RUN OPTIONS] -- COMMAND [ARG...]\n");
	return 2;
}
