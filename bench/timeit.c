/* timeit.c — wall-clock timing of a command, N times, for `make bench`.
 *
 * Promise: forks and execs COMMAND N times one after the other (after W untimed warm-up runs),
 * timing each run from just before fork to the return of wait4 with CLOCK_MONOTONIC, and prints
 * one JSON object on stdout:
 *   {"runs":N,"ok":K,"min_ms":..,"median_ms":..,"max_ms":..,"maxrss_kb":MEDIAN,"first_status":S}
 * maxrss_kb is the median of wait4's ru_maxrss (the child and its reaped descendants, KiB).
 * With -s, the direct child's VmHWM (/proc/PID/status) is also sampled every millisecond while it
 * runs (for the supervisor's own peak RSS: ru_maxrss would include its descendants), and the
 * median of the per-run maxima is printed as "hwm_kb" (null when never sampled).
 * A run counts as ok when its exit status is EXPECT (default 0); statistics are taken over the
 * ok runs only, and with no ok run the numbers are null. The command's stdout/stderr go to
 * /dev/null unless -v. Exit 0 when every run was ok, 1 otherwise, 2 on usage errors.
 *
 *   usage: timeit [-n N] [-w W] [-e EXPECT] [-v] [-s] -- COMMAND [ARG...]
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static int cmp_long(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;
	return x < y ? -1 : x > y;
}

static double now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* VmHWM of pid in KiB, or -1. */
static long read_hwm(pid_t pid)
{
	char path[64], line[256];
	snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
	FILE *f = fopen(path, "r");
	if (!f)
		return -1;
	long v = -1;
	while (fgets(line, sizeof line, f))
		if (!strncmp(line, "VmHWM:", 6) && sscanf(line + 6, "%ld", &v) == 1)
			break;
	fclose(f);
	return v;
}

/* Samples the child's VmHWM every millisecond until it exits (pidfd readable). */
static long sample_hwm(pid_t pid)
{
	long best = -1;
	int pfd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (pfd < 0)
		return -1;
	for (;;) {
		long v = read_hwm(pid);
		if (v > best)
			best = v;
		struct pollfd p = { .fd = pfd, .events = POLLIN };
		int r = poll(&p, 1, 1);
		if (r > 0 || (r < 0 && errno != EINTR))
			break;
	}
	close(pfd);
	return best;
}

/* One run. Returns the wait status (or -1 when fork failed); *ms and *rss_kb filled, and *hwm_kb
 * when hwm_kb is not NULL (sampling). */
static int run_once(char **argv, int quiet, double *ms, long *rss_kb, long *hwm_kb)
{
	double t0 = now_ms();
	pid_t pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		if (quiet) {
			int fd = open("/dev/null", O_WRONLY);
			if (fd >= 0) {
				dup2(fd, 1);
				dup2(fd, 2);
				if (fd > 2)
					close(fd);
			}
		}
		execvp(argv[0], argv);
		_exit(127);
	}
	if (hwm_kb)
		*hwm_kb = sample_hwm(pid);
	int st = 0;
	struct rusage ru;
	memset(&ru, 0, sizeof ru);
	while (wait4(pid, &st, 0, &ru) < 0) {
		if (errno != EINTR)
			return -1;
	}
	*ms = now_ms() - t0;
	*rss_kb = ru.ru_maxrss;
	return st;
}

static int status_code(int st)
{
	if (st < 0)
		return -1;
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	if (WIFSIGNALED(st))
		return 128 + WTERMSIG(st);
	return -1;
}

int main(int argc, char **argv)
{
	long n = 10, warm = 1, expect = 0;
	int quiet = 1, sample = 0, opt;
	while ((opt = getopt(argc, argv, "+n:w:e:vs")) != -1) {
		switch (opt) {
		case 'n': n = atol(optarg); break;
		case 'w': warm = atol(optarg); break;
		case 'e': expect = atol(optarg); break;
		case 'v': quiet = 0; break;
		case 's': sample = 1; break;
		default:
			fprintf(stderr, "usage: timeit [-n N] [-w W] [-e EXPECT] [-v] [-s] -- COMMAND [ARG...]\n");
			return 2;
		}
	}
	if (optind >= argc || n < 1 || n > 100000 || warm < 0) {
		fprintf(stderr, "usage: timeit [-n N] [-w W] [-e EXPECT] [-v] [-s] -- COMMAND [ARG...]\n");
		return 2;
	}
	char **cmd = argv + optind;
	double *ms = calloc((size_t)n, sizeof *ms);
	long *rss = calloc((size_t)n, sizeof *rss);
	long *hwm = calloc((size_t)n, sizeof *hwm);
	if (!ms || !rss || !hwm) {
		perror("timeit");
		return 2;
	}
	double t;
	long r, h = -1, nh = 0;
	int first = 0;
	for (long i = 0; i < warm; i++)
		(void)run_once(cmd, quiet, &t, &r, NULL);
	long ok = 0;
	for (long i = 0; i < n; i++) {
		int st = status_code(run_once(cmd, quiet, &t, &r, sample ? &h : NULL));
		if (i == 0)
			first = st;
		if (st == expect) {
			ms[ok] = t;
			rss[ok] = r;
			ok++;
			if (h > 0)
				hwm[nh++] = h;
		}
	}
	if (ok == 0) {
		printf("{\"runs\":%ld,\"ok\":0,\"min_ms\":null,\"median_ms\":null,\"max_ms\":null,"
		       "\"maxrss_kb\":null,\"hwm_kb\":null,\"first_status\":%d}\n", n, first);
		return 1;
	}
	qsort(ms, (size_t)ok, sizeof *ms, cmp_double);
	qsort(rss, (size_t)ok, sizeof *rss, cmp_long);
	qsort(hwm, (size_t)nh, sizeof *hwm, cmp_long);
	char hbuf[32] = "null";
	if (nh > 0)
		snprintf(hbuf, sizeof hbuf, "%ld", hwm[nh / 2]);
	double med = ok % 2 ? ms[ok / 2] : (ms[ok / 2 - 1] + ms[ok / 2]) / 2;
	printf("{\"runs\":%ld,\"ok\":%ld,\"min_ms\":%.3f,\"median_ms\":%.3f,\"max_ms\":%.3f,"
	       "\"maxrss_kb\":%ld,\"hwm_kb\":%s,\"first_status\":%d}\n", n, ok, ms[0], med, ms[ok - 1],
	       rss[ok / 2], hbuf, first);
	free(ms);
	free(rss);
	free(hwm);
	return ok == n ? 0 : 1;
}
