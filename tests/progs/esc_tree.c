/* esc_tree.c — helper for tests/integration/faults.sh: builds a small process tree that lives
 * until killed. argv: MARKER [SECONDS]. The parent forks 3 children; each forks a grandchild
 * that calls setsid() (leaving the process group, as a daemon would). Every process keeps MARKER
 * in its argv (pgrep -f finds them) and sleeps SECONDS (default 60) — bounded, so nothing lives
 * forever even if the supervisor under test fails. Prints "ready" on stdout once the tree exists. */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: esc_tree MARKER [SECONDS]\n");
		return 2;
	}
	int secs = argc > 2 ? atoi(argv[2]) : 60;
	int fds[2];
	if (pipe(fds) < 0)
		return 1;
	for (int i = 0; i < 3; i++) {
		pid_t p = fork();
		if (p < 0)
			return 1;
		if (p == 0) {
			pid_t g = fork();
			if (g == 0) {
				setsid();
				close(fds[0]);
				(void)!write(fds[1], "g", 1);
				close(fds[1]);
				sleep((unsigned)secs);
				_exit(0);
			}
			close(fds[0]);
			(void)!write(fds[1], "c", 1);
			close(fds[1]);
			sleep((unsigned)secs);
			_exit(0);
		}
	}
	close(fds[1]);
	char c;
	int n = 0;
	while (n < 6 && read(fds[0], &c, 1) == 1)
		n++;
	printf("ready %d\n", n);
	fflush(stdout);
	sleep((unsigned)secs);
	return 0;
}
