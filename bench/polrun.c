/* polrun.c — the preload without the supervisor, for `make bench`.
 *
 * Promise: compiles a manifest (or the built-in default) with the same pol_build the supervisor
 * uses, seals it into a memfd (pol_to_sealed_memfd), and either
 *   exec mode:  polrun [-m MANIFEST] [-w DIR] -p PRELOAD_LIB -- COMMAND [ARG...]
 *               runs COMMAND as sbxsup's preload-only mode would see it: LD_PRELOAD=PRELOAD_LIB,
 *               SBXSUP_POLICY_FD (the sealed memfd), SBXSUP_REPORT_FD (one end of a DGRAM
 *               socketpair whose records this process drains and counts). Exits with COMMAND's
 *               status (128+N on signal N); prints "polrun: N records" on stderr when -v.
 *   decide mode: polrun [-m MANIFEST] [-w DIR] -d ROUNDS CALLS PATH
 *               times pol_path(PATH, read) directly and prints
 *               {"op":"pol_path","rounds":R,"calls":C,"ns":[...],"verdict":V,"examined":E}.
 * Host names are not resolved (resolve=false): bench manifests grant addresses only.
 * Exits 125 on its own failures, with a message on stderr.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "manifest.h"
#include "policy.h"
#include "policy_build.h"

static double now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e9 + (double)t.tv_nsec;
}

static int build(const char *mpath, const char *ws, const char *lib, void **blob, size_t *len)
{
	char err[512];
	struct mf_ctx ctx;
	if (mf_ctx_init(&ctx, ws, err, sizeof err) < 0) {
		fprintf(stderr, "polrun: %s\n", err);
		return -1;
	}
	struct manifest *m = NULL;
	struct mf_errors e = {0};
	int rc = mpath ? manifest_load(mpath, &ctx, &m, &e) : manifest_load_default(&ctx, &m, &e);
	if (rc < 0) {
		for (size_t i = 0; i < e.n; i++)
			fprintf(stderr, "polrun: %s: %s\n", mpath ? mpath : "(default)", e.msg[i]);
		mf_errors_free(&e);
		return -1;
	}
	mf_errors_free(&e);
	const char *extra[] = { lib, NULL };
	struct pol_build_opts bo = { .resolve = false, .uid = getuid(), .extra_read = lib ? extra : NULL };
	rc = pol_build(m, &bo, blob, len, err, sizeof err);
	manifest_free(m);
	if (rc < 0) {
		fprintf(stderr, "polrun: pol_build: %s\n", err);
		return -1;
	}
	return 0;
}

static int decide(const void *blob, size_t len, long rounds, long calls, const char *path)
{
	const char *why = NULL;
	const struct policy *p = pol_open(blob, len, &why);
	if (!p) {
		fprintf(stderr, "polrun: pol_open: %s\n", why ? why : "?");
		return 125;
	}
	struct pol_decision d;
	pol_path(p, path, POL_READ, &d);
	printf("{\"op\":\"pol_path\",\"rounds\":%ld,\"calls\":%ld,\"ns\":[", rounds, calls);
	volatile int sink = 0;
	for (long r = 0; r < rounds; r++) {
		double t0 = now_ns();
		for (long i = 0; i < calls; i++)
			sink += pol_path(p, path, POL_READ, NULL);
		printf("%s%.1f", r ? "," : "", (now_ns() - t0) / (double)calls);
	}
	printf("],\"verdict\":\"%s\",\"examined\":%u}\n", d.verdict == POL_ALLOW ? "allow" : "deny",
	       d.examined);
	(void)sink;
	return 0;
}

static int run(const void *blob, size_t len, const char *lib, char **cmd, int verbose)
{
	int pfd = pol_to_sealed_memfd(blob, len);
	if (pfd < 0) {
		perror("polrun: pol_to_sealed_memfd");
		return 125;
	}
	int sp[2];
	if (socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sp) < 0) {
		perror("polrun: socketpair");
		return 125;
	}
	pid_t pid = fork();
	if (pid < 0) {
		perror("polrun: fork");
		return 125;
	}
	if (pid == 0) {
		char b1[16], b2[16];
		int rfd = dup(sp[1]); /* without CLOEXEC: inherited by the command */
		if (rfd < 0)
			_exit(125);
		snprintf(b1, sizeof b1, "%d", pfd);
		snprintf(b2, sizeof b2, "%d", rfd);
		if (setenv("LD_PRELOAD", lib, 1) || setenv("SBXSUP_POLICY_FD", b1, 1) ||
		    setenv("SBXSUP_REPORT_FD", b2, 1))
			_exit(125);
		execvp(cmd[0], cmd);
		_exit(errno == ENOENT ? 127 : 126);
	}
	close(sp[1]);
	close(pfd);
	int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (pidfd < 0) {
		/* cannot watch the child and the report socket together: give up on this run loudly */
		perror("polrun: pidfd_open");
		kill(pid, SIGKILL);
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
		return 125;
	}
	long records = 0;
	static char buf[70000];
	for (;;) {
		struct pollfd pf[2] = { { .fd = sp[0], .events = POLLIN }, { .fd = pidfd, .events = POLLIN } };
		if (poll(pf, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			perror("polrun: poll");
			break;
		}
		if (pf[0].revents & POLLIN) {
			while (recv(sp[0], buf, sizeof buf, MSG_DONTWAIT) >= 0)
				records++;
		}
		if (pf[1].revents & POLLIN)
			break;
	}
	while (recv(sp[0], buf, sizeof buf, MSG_DONTWAIT) >= 0)
		records++;
	close(pidfd);
	close(sp[0]);
	int st = 0;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (verbose)
		fprintf(stderr, "polrun: %ld records\n", records);
	if (WIFSIGNALED(st))
		return 128 + WTERMSIG(st);
	return WEXITSTATUS(st);
}

int main(int argc, char **argv)
{
	const char *mpath = NULL, *ws = NULL, *lib = NULL;
	int dmode = 0, verbose = 0, opt;
	while ((opt = getopt(argc, argv, "+m:w:p:dv")) != -1) {
		switch (opt) {
		case 'm': mpath = optarg; break;
		case 'w': ws = optarg; break;
		case 'p': lib = optarg; break;
		case 'd': dmode = 1; break;
		case 'v': verbose = 1; break;
		default: goto usage;
		}
	}
	if (dmode ? argc - optind != 3 : (optind >= argc || !lib))
		goto usage;
	void *blob = NULL;
	size_t len = 0;
	if (build(mpath, ws, lib, &blob, &len) < 0)
		return 125;
	int rc;
	if (dmode) {
		long rounds = atol(argv[optind]), calls = atol(argv[optind + 1]);
		if (rounds < 1 || rounds > 1000 || calls < 1)
			goto usage;
		rc = decide(blob, len, rounds, calls, argv[optind + 2]);
	} else {
		rc = run(blob, len, lib, argv + optind, verbose);
	}
	free(blob);
	return rc;
usage:
	fprintf(stderr, "usage: polrun [-m MANIFEST] [-w DIR] [-v] -p PRELOAD_LIB -- COMMAND [ARG...]\n"
			"       polrun [-m MANIFEST] [-w DIR] -d ROUNDS CALLS PATH\n");
	return 125;
}
