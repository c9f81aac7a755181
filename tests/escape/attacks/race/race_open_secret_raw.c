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
#include <time.h>
#include "esc.h"
#include "esc_race.h"

int main(int argc, char **argv)
{
	esc_init(argc, argv);
	const char *good = "race-ok.txt";
	long w = ESC_SYS(SYS_openat, AT_FDCWD, good, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (w >= 0)
		close((int)w);
	if (esc_flip_start(good, esc_arg("secret")) < 0)
		return 2;
	int got = 0, refused = 0, met = 0;
	time_t t0 = time(NULL);
	while (!esc_flip_count() && time(NULL) - t0 < 4)
		sched_yield();
	for (int i = 0; time(NULL) - t0 < 4; i++) {
		if (i >= 4000 && (got || refused || met >= 1000))
			break;
		unsigned long f0 = esc_flip_count();
		long fd = ESC_SYS(SYS_openat, AT_FDCWD, esc_flip_buf, O_RDONLY, 0);
		met += esc_flip_count() != f0;
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
	esc_flip_stop();
	return esc_result(got, "raced raw open of the secret");
}
